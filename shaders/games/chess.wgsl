// Chess rules for the GPU solver: the twin of src/games/chess (index.rs, moves.rs, space.rs).
//
// Joined after a prelude that src/games/chess/gpu.rs generates for one material: the men (MEN,
// MEN_SIDE a bit per man, MEN_KIND four bits per man), this table's index THIS, its en passant
// layout (EP_PER_SIDE, and per side to move EP_MAN and EP_LEN), the exits of captures and
// promotions (fn exit_of), the layout constants of the data buffers below (GEO_*, TAB_*), KING,
// PAWN, SLIDERS (a bit per kind), DIAGONAL, PAWN_SQUARES, TRANSPOSE, MIRROR, COLOUR_FLIP,
// NO_MAN and GAME_MAX_SUCCESSORS. Every table comes from Rust:
//   chess_geo:          board::Geometry::gpu_words (symmetry maps, attack patterns, rays,
//                       between), then beyond (the squares behind a blocker), then the pawn
//                       attacks of each side
//   chess_tables:       index::IndexTables (king pairs, king_canonical, combinadic unrank
//                       tables, then the king pairs and king_canonical of materials with pawns)
//   chess_exits:        the smaller tables' entries, two per word, each table from a word of
//                       its own, split over bindings and read with chess_exits_word
// Bitboards are vec2<u32> (low word: squares 0..31).
//
// Speed on SIMD-per-thread drivers (llvmpipe) comes from three rules, besides the CPU's
// algorithm (legality as masks computed once per piece, a man's move changing one group rank):
// - loops over the men run to the constant MEN, so the compiler unrolls them and every man's
//   index, side and kind is a constant;
// - placements are values updated with `select`, never variables indexed at run time (those
//   live in memory, one gather or scatter per access);
// - few buffer loads: each one is a gather of a load per lane.

// The squares of both kings (white, black) and of the men in their order.
struct Placement {
    kings: vec2<u32>,
    men: vec3<u32>,
}

// An index descriptor (index::ChessIndex): the men, the king pair's weight in the slot, slots per
// side, per man its group's first man, length and weight in the slot, and a bit per pawn (with a
// pawn, the mirror is the only symmetry, and the pawn groups are the most significant digits).
struct Index {
    men: u32,
    pair_multiplier: u32,
    per_side: u32,
    first: vec3<u32>,
    len: vec3<u32>,
    multiplier: vec3<u32>,
    pawn_men: u32,
}

fn man_side(man: u32) -> u32 {
    return (MEN_SIDE >> man) & 1u;
}

fn man_kind(man: u32) -> u32 {
    return (MEN_KIND >> (4u * man)) & 0xFu;
}

fn is_pawn(man: u32) -> bool {
    return man_kind(man) == PAWN;
}

fn relative_rank(side: u32, sq: u32) -> u32 {
    return select(sq >> 3u, 7u - (sq >> 3u), side == 1u);
}

fn forward(side: u32, sq: u32) -> u32 {
    return select(sq + 8u, sq - 8u, side == 1u);
}

fn backward(side: u32, sq: u32) -> u32 {
    return select(sq - 8u, sq + 8u, side == 1u);
}

// The placement with man `man` (NO_MAN: none) on `sq`.
fn with_man(p: Placement, man: u32, sq: u32) -> Placement {
    return Placement(p.kings, select(p.men, vec3<u32>(sq), vec3<u32>(man) == vec3<u32>(0u, 1u, 2u)));
}

fn with_king(p: Placement, side: u32, sq: u32) -> Placement {
    return Placement(select(p.kings, vec2<u32>(sq), vec2<u32>(side) == vec2<u32>(0u, 1u)), p.men);
}

// The placement after `mover` (a man, or NO_MAN: the king of `side`) goes to `to`.
fn moved(p: Placement, side: u32, mover: u32, to: u32) -> Placement {
    if mover == NO_MAN {
        return with_king(p, side, to);
    }
    return with_man(p, mover, to);
}

fn bb_bit(sq: u32) -> vec2<u32> {
    let shift = vec2<u32>(sq) - vec2<u32>(0u, 32u);
    return select(vec2<u32>(0u), vec2<u32>(1u) << (shift & vec2<u32>(31u)), shift < vec2<u32>(32u));
}

fn bb_empty(b: vec2<u32>) -> bool {
    return all(b == vec2<u32>(0u));
}

fn bb_count(b: vec2<u32>) -> u32 {
    return countOneBits(b.x) + countOneBits(b.y);
}

// Removes and returns the lowest square of a non-empty bitboard.
fn bb_pop(b: ptr<function, vec2<u32>>) -> u32 {
    if (*b).x != 0u {
        let sq = firstTrailingBit((*b).x);
        (*b).x &= (*b).x - 1u;
        return sq;
    }
    let sq = 32u + firstTrailingBit((*b).y);
    (*b).y &= (*b).y - 1u;
    return sq;
}

fn geo_board(at: u32) -> vec2<u32> {
    return vec2<u32>(chess_geo[at], chess_geo[at + 1u]);
}

fn symmetry(sym: u32, sq: u32) -> u32 {
    return chess_geo[GEO_SYMMETRY + sym * 64u + sq];
}

fn pattern(kind: u32, sq: u32) -> vec2<u32> {
    return geo_board(GEO_PATTERN + 2u * (kind * 64u + sq));
}

// Whether the pattern of `kind` on `origin` holds `aim` (one load: the word holding it).
fn pattern_has(kind: u32, origin: u32, aim: u32) -> bool {
    let word = chess_geo[GEO_PATTERN + 2u * (kind * 64u + origin) + (aim >> 5u)];
    return ((word >> (aim & 31u)) & 1u) != 0u;
}

fn pawn_attacks(side: u32, sq: u32) -> vec2<u32> {
    return geo_board(GEO_PAWN_ATTACKS + 2u * (side * 64u + sq));
}

fn between(a: u32, b: u32) -> vec2<u32> {
    return geo_board(GEO_BETWEEN + 2u * (a * 64u + b));
}

// Whether a piece of `kind` on `origin` attacks `aim`, with `occupied` blocking sliders
// (`between` is empty for leapers, so one test serves every kind).
fn attacks_square(kind: u32, origin: u32, aim: u32, occupied: vec2<u32>) -> bool {
    return pattern_has(kind, origin, aim) && bb_empty(between(origin, aim) & occupied);
}

// Squares a piece of `kind` on `origin` attacks: a slider's pattern less the squares beyond
// each blocker in it.
fn attacks(kind: u32, origin: u32, occupied: vec2<u32>) -> vec2<u32> {
    var reach = pattern(kind, origin);
    if ((SLIDERS >> kind) & 1u) == 0u {
        return reach;
    }
    var blockers = reach & occupied;
    while !bb_empty(blockers) {
        let blocker = bb_pop(&blockers);
        reach &= ~geo_board(GEO_BEYOND + 2u * (origin * 64u + blocker));
    }
    return reach;
}

// Whether man `man` attacks `aim` (a pawn by its side's captures).
fn man_attacks_square(p: Placement, man: u32, aim: u32, occupied: vec2<u32>) -> bool {
    if is_pawn(man) {
        return !bb_empty(pawn_attacks(man_side(man), p.men[man]) & bb_bit(aim));
    }
    return attacks_square(man_kind(man), p.men[man], aim, occupied);
}

// Squares man `man` attacks.
fn man_attacks(p: Placement, man: u32, occupied: vec2<u32>) -> vec2<u32> {
    if is_pawn(man) {
        return pawn_attacks(man_side(man), p.men[man]);
    }
    return attacks(man_kind(man), p.men[man], occupied);
}

fn occupied_of(p: Placement) -> vec2<u32> {
    var occupied = bb_bit(p.kings.x) | bb_bit(p.kings.y);
    for (var i = 0u; i < MEN; i += 1u) {
        occupied |= bb_bit(p.men[i]);
    }
    return occupied;
}

// The squares of the men of one side.
fn men_of(p: Placement, side: u32) -> vec2<u32> {
    var squares = vec2<u32>(0u);
    for (var i = 0u; i < MEN; i += 1u) {
        if man_side(i) == side {
            squares |= bb_bit(p.men[i]);
        }
    }
    return squares;
}

// Whether `aim` is attacked by the pieces of side `by`, man `skip` (or NO_MAN) left out.
fn attacked_except(p: Placement, aim: u32, by: u32, occupied: vec2<u32>, skip: u32) -> bool {
    if pattern_has(KING, p.kings[by], aim) {
        return true;
    }
    for (var i = 0u; i < MEN; i += 1u) {
        if i != skip && man_side(i) == by && man_attacks_square(p, i, aim, occupied) {
            return true;
        }
    }
    return false;
}

fn attacked(p: Placement, aim: u32, by: u32, occupied: vec2<u32>) -> bool {
    return attacked_except(p, aim, by, occupied, NO_MAN);
}

// The image of the placement (its first `count` men) under a symmetry.
fn mapped(p: Placement, sym: u32, count: u32) -> Placement {
    var image = Placement(vec2<u32>(symmetry(sym, p.kings.x), symmetry(sym, p.kings.y)), p.men);
    for (var i = 0u; i < count; i += 1u) {
        image = with_man(image, i, symmetry(sym, p.men[i]));
    }
    return image;
}

// Both kings on the a1-h8 diagonal: the reflection in it keeps them.
fn kings_on_diagonal(p: Placement) -> bool {
    return bb_empty((bb_bit(p.kings.x) | bb_bit(p.kings.y)) & ~DIAGONAL);
}

// The square's number among those a man may stand on: for a pawn, among the 48 of ranks 2 to 7;
// else among the 62 that hold no king.
fn free_square(pawn: bool, sq: u32, kings: vec2<u32>) -> u32 {
    if pawn {
        return sq - 8u;
    }
    return sq - select(0u, 1u, sq > kings.x) - select(0u, 1u, sq > kings.y);
}

fn index_pawn(ix: Index, man: u32) -> bool {
    return ((ix.pawn_men >> man) & 1u) != 0u;
}

// C(n, 2) and C(n, 3) by arithmetic (0 for n below k, also through wrapping).
fn pairs(n: u32) -> u32 {
    return n * (n - 1u) / 2u;
}

fn triples(n: u32) -> u32 {
    return n * (n - 1u) * (n - 2u) / 6u;
}

// Combinadic rank of the group of index `ix` starting at man `first`: sorting networks of at most
// three men, as on the CPU.
fn group_rank(ix: Index, first: u32, p: Placement) -> u32 {
    let len = ix.len[first];
    let pawn = index_pawn(ix, first);
    let a = free_square(pawn, p.men[first], p.kings);
    if len == 1u {
        return a;
    }
    let b = free_square(pawn, p.men[first + 1u], p.kings);
    if len == 2u {
        return min(a, b) + pairs(max(a, b));
    }
    let c = free_square(pawn, p.men[2u], p.kings);
    let low = min(a, b);
    let high = max(a, b);
    let top = max(high, c);
    let middle = min(high, c);
    return min(low, middle) + pairs(max(low, middle)) + triples(top);
}

// The slot of a placement whose kings form canonical pair number `pair`, as it stands.
fn slot_as_is(ix: Index, pair: u32, p: Placement) -> u32 {
    var slot = pair * ix.pair_multiplier;
    for (var man = 0u; man < ix.men; man += 1u) {
        if ix.first[man] == man {
            slot += group_rank(ix, man, p) * ix.multiplier[man];
        }
    }
    return slot;
}

// The canonical slot of a placement of legal kings, and whether a symmetry produced it (1).
fn canonical(ix: Index, p: Placement) -> vec2<u32> {
    if ix.pawn_men != 0u {
        let pawn_kings = chess_tables[TAB_PAWN_KING_CANONICAL + p.kings.x * 64u + p.kings.y];
        let mirror = (pawn_kings >> 16u) != 0u;
        var mirrored = p;
        if mirror {
            mirrored = mapped(p, MIRROR, ix.men);
        }
        return vec2<u32>(slot_as_is(ix, pawn_kings & 0xFFFFu, mirrored), select(0u, 1u, mirror));
    }
    let kings = chess_tables[TAB_KING_CANONICAL + p.kings.x * 64u + p.kings.y];
    let pair = kings & 0xFFFFu;
    let sym = (kings >> 16u) & 7u;
    var image = p;
    if sym != 0u {
        image = mapped(p, sym, ix.men);
    }
    let slot = slot_as_is(ix, pair, image);
    if (kings >> 19u) != 0u {
        let reflected = slot_as_is(ix, pair, mapped(image, TRANSPOSE, ix.men));
        if reflected < slot {
            return vec2<u32>(reflected, 1u);
        }
    }
    return vec2<u32>(slot, select(0u, 1u, sym != 0u));
}

// The placement a slot of this table spells out, legal or not: the pawn groups, the king pair,
// then the other groups, in decreasing weight.
fn placement_of(slot: u32) -> Placement {
    var rest = slot;
    var p = Placement(vec2<u32>(0u), vec3<u32>(0u));
    for (var man = 0u; man < MEN; man += 1u) {
        if THIS.first[man] == man && index_pawn(THIS, man) {
            let multiplier = THIS.multiplier[man];
            p = place_group(p, man, rest / multiplier);
            rest %= multiplier;
        }
    }
    let pair = chess_tables[select(TAB_KING_PAIRS, TAB_PAWN_KING_PAIRS, THIS.pawn_men != 0u) + rest / THIS.pair_multiplier];
    rest %= THIS.pair_multiplier;
    p.kings = vec2<u32>(pair & 0xFFu, pair >> 8u);
    for (var man = 0u; man < MEN; man += 1u) {
        if THIS.first[man] == man && !index_pawn(THIS, man) {
            let multiplier = THIS.multiplier[man];
            p = place_group(p, man, rest / multiplier);
            rest %= multiplier;
        }
    }
    return p;
}

// `p` with the men of the group led by `man` on the squares of combinadic rank `rank` (a pawn
// group's squares do not depend on the kings; the others' skip the kings' squares).
fn place_group(p: Placement, man: u32, rank: u32) -> Placement {
    let len = THIS.len[man];
    let squares = chess_tables[TAB_UNRANK[len - 1u] + rank];
    let pawn = index_pawn(THIS, man);
    let low = min(p.kings.x, p.kings.y);
    let high = max(p.kings.x, p.kings.y);
    var placed = p;
    for (var j = 0u; j < len; j += 1u) {
        var sq = (squares >> (8u * j)) & 0xFFu;
        if pawn {
            sq += 8u;
        } else {
            sq += select(0u, 1u, sq >= low);
            sq += select(0u, 1u, sq >= high);
        }
        placed = with_man(placed, man + j, sq);
    }
    return placed;
}

struct Decoded {
    p: Placement,
    side: u32,
    slot: u32,
}

fn decode(state: u32) -> Decoded {
    let side = select(0u, 1u, state >= THIS.per_side);
    let slot = state - side * THIS.per_side;
    return Decoded(placement_of(slot), side, slot);
}

// Whether a decoded slot is a legal position: men apart, the side not to move not in check,
// not the larger image of a diagonal pair.
fn legal(d: Decoded) -> bool {
    let p = d.p;
    let occupied = occupied_of(p);
    return bb_count(occupied) == MEN + 2u
        && !attacked(p, p.kings[1u - d.side], d.side, occupied)
        && !(THIS.pawn_men == 0u && kings_on_diagonal(p) && slot_as_is(THIS, d.slot / THIS.pair_multiplier, mapped(p, TRANSPOSE, MEN)) < d.slot);
}

// The states one move (or un-move) of side `moving` away from `p` (slot `slot`); `base` is the
// first state of the side to move next. Off the diagonal (always, with pawns), a man's move
// changes only its group's rank and no symmetry applies; king moves, diagonal king pairs and
// positions with an en passant right (whose slot is not `p`'s as it stands) canonicalise fully.
struct Neighbours {
    p: Placement,
    slot: u32,
    moving: u32,
    base: u32,
    // Every neighbour needs canonicalising: a diagonal king pair or an en passant state.
    canonicalise_all: bool,
}

fn neighbours(p: Placement, slot: u32, moving: u32, next: u32, fast: bool) -> Neighbours {
    let canonicalise_all = !fast || (THIS.pawn_men == 0u && kings_on_diagonal(p));
    return Neighbours(p, slot, moving, next * THIS.per_side, canonicalise_all);
}

// Pushes the states reached by moving `mover` (NO_MAN: the king) to each of `squares`.
fn push_moves(out: ptr<function, Successors>, nb: Neighbours, mover: u32, squares: vec2<u32>) {
    var left = squares;
    if mover != NO_MAN && !nb.canonicalise_all {
        let first = THIS.first[mover];
        let multiplier = THIS.multiplier[mover];
        let partial = nb.base + nb.slot - group_rank(THIS, first, nb.p) * multiplier;
        if THIS.len[mover] == 1u {
            // A lone man's rank is its free square: no sort.
            while !bb_empty(left) {
                let to = bb_pop(&left);
                succ_push_plain(out, partial + free_square(is_pawn(mover), to, nb.p.kings) * multiplier);
            }
        } else {
            while !bb_empty(left) {
                let to = bb_pop(&left);
                succ_push_plain(out, partial + group_rank(THIS, first, with_man(nb.p, mover, to)) * multiplier);
            }
        }
        return;
    }
    while !bb_empty(left) {
        let to = bb_pop(&left);
        let child = canonical(THIS, moved(nb.p, nb.moving, mover, to));
        if child.y == 0u {
            succ_push_plain(out, nb.base + child.x);
        } else {
            succ_push_mapped(out, nb.base + child.x);
        }
    }
}

// The table that a capture, a promotion or both lead to (`exit_of(key)` in the prelude): whether
// it is stored with colours swapped, the word of chess_exits its entries start at, where each
// surviving man goes among its men, and its index.
struct Exit {
    flip: bool,
    offset: u32,
    order: vec3<u32>,
    index: Index,
}

// The case of `exit_of` for capturing `victim` (or NO_MAN) and promoting `promoter` (or NO_MAN)
// to `kind` (0: none).
fn exit_key(victim: u32, promoter: u32, kind: u32) -> u32 {
    return min(victim, 3u) + 4u * min(promoter, 3u) + 16u * kind;
}

// The entry, for the side then to move, of the position `after` a move that captured `victim`
// (or NO_MAN), exit `key`.
fn exit_entry(after: Placement, victim: u32, key: u32, next: u32) -> u32 {
    let exit = exit_of(key);
    var smaller = Placement(after.kings, vec3<u32>(0u));
    for (var man = 0u; man < MEN; man += 1u) {
        if man != victim {
            smaller = with_man(smaller, exit.order[man], after.men[man]);
        }
    }
    var side = next;
    if exit.flip {
        // Swapping colours mirrors the ranks (the board symmetry COLOUR_FLIP).
        smaller = mapped(smaller, COLOUR_FLIP, exit.index.men);
        smaller.kings = smaller.kings.yx;
        side = 1u - next;
    }
    let at = side * exit.index.per_side + canonical(exit.index, smaller).x;
    return (chess_exits_word(exit.offset + (at >> 1u)) >> (16u * (at & 1u))) & 0xFFFFu;
}

// Records the exits of `mover`'s captures on `captures`. The loop runs over the victims, not the
// squares, so that each victim's exit is a constant.
fn add_captures(node: ptr<function, Node>, p: Placement, side: u32, mover: u32, captures: vec2<u32>) {
    let next = 1u - side;
    for (var victim = 0u; victim < MEN; victim += 1u) {
        let to = p.men[victim];
        if man_side(victim) == next && !bb_empty(captures & bb_bit(to)) {
            node_add_exit(node, exit_entry(moved(p, side, mover, to), victim, exit_key(victim, NO_MAN, 0u), next));
        }
    }
}

// Records the four promotions of pawn `pawn` of `side` moving to `to` (capturing what stands
// there, if anything).
fn add_promotions(node: ptr<function, Node>, p: Placement, side: u32, pawn: u32, to: u32) {
    let next = 1u - side;
    let after = with_man(p, pawn, to);
    var victim = NO_MAN;
    for (var v = 0u; v < MEN; v += 1u) {
        if man_side(v) == next && p.men[v] == to {
            victim = v;
        }
    }
    for (var kind = 1u; kind <= 4u; kind += 1u) {
        for (var v = 0u; v <= MEN; v += 1u) {
            let candidate = select(v, NO_MAN, v == MEN);
            if candidate == victim {
                node_add_exit(node, exit_entry(after, candidate, exit_key(candidate, pawn, kind), next));
            }
        }
    }
}

// The squares a pawn of `side` on `origin` may move to, before legality: one step, two from its
// second rank, and the captures of `enemies`.
fn pawn_targets(side: u32, origin: u32, occupied: vec2<u32>, enemies: vec2<u32>) -> vec2<u32> {
    let one = forward(side, origin);
    var targets = pawn_attacks(side, origin) & enemies;
    if bb_empty(occupied & bb_bit(one)) {
        targets |= bb_bit(one);
        if relative_rank(side, origin) == 1u {
            let two = forward(side, one);
            if bb_empty(occupied & bb_bit(two)) {
                targets |= bb_bit(two);
            }
        }
    }
    return targets;
}

// The empty squares a pawn of `side` on `to` may have come from by a push: one step back (not
// from its first rank), two from its fourth rank.
fn pawn_sources(side: u32, to: u32, occupied: vec2<u32>) -> vec2<u32> {
    if relative_rank(side, to) < 2u {
        return vec2<u32>(0u);
    }
    let one = backward(side, to);
    if !bb_empty(occupied & bb_bit(one)) {
        return vec2<u32>(0u);
    }
    var sources = bb_bit(one);
    if relative_rank(side, to) == 3u {
        let two = backward(side, one);
        if bb_empty(occupied & bb_bit(two)) {
            sources |= bb_bit(two);
        }
    }
    return sources & PAWN_SQUARES;
}

fn ep_man_of(side: u32) -> u32 {
    return select(EP_MAN.x, EP_MAN.y, side == 1u);
}

// The legal en passant captures (moves::for_each_en_passant) of side `to_move` of the enemy pawn
// on `pawn`, had it just moved two squares: a bit per capturing man, and the victim.
fn en_passant_captures(p: Placement, to_move: u32, pawn: u32) -> vec2<u32> {
    let waiting = 1u - to_move;
    if relative_rank(waiting, pawn) != 3u {
        return vec2<u32>(0u, NO_MAN);
    }
    let passed = backward(waiting, pawn);
    let origin = backward(waiting, passed);
    let occupied = occupied_of(p);
    if !bb_empty(occupied & (bb_bit(passed) | bb_bit(origin))) {
        return vec2<u32>(0u, NO_MAN);
    }
    var victim = NO_MAN;
    for (var m = 0u; m < MEN; m += 1u) {
        if victim == NO_MAN && man_side(m) == waiting && is_pawn(m) && p.men[m] == pawn {
            victim = m;
        }
    }
    if victim == NO_MAN {
        return vec2<u32>(0u, NO_MAN);
    }
    let king = p.kings[to_move];
    var capturers = 0u;
    for (var c = 0u; c < MEN; c += 1u) {
        let square = p.men[c];
        if man_side(c) != to_move || !is_pawn(c) || bb_empty(pawn_attacks(to_move, square) & bb_bit(passed)) {
            continue;
        }
        let after = with_man(p, c, passed);
        let left = occupied ^ bb_bit(square) ^ bb_bit(pawn) ^ bb_bit(passed);
        if !attacked_except(after, king, waiting, left, victim) {
            capturers |= 1u << c;
        }
    }
    return vec2<u32>(capturers, victim);
}

fn en_passant_right(p: Placement, to_move: u32, pawn: u32) -> bool {
    return en_passant_captures(p, to_move, pawn).x != 0u;
}

// Sorts men first .. first + len of `squares` (len at most 3; three only from man 0).
fn sort_men(squares: vec3<u32>, first: u32, len: u32) -> vec3<u32> {
    var v = squares;
    if len == 2u {
        let a = v[first];
        let b = v[first + 1u];
        v[first] = min(a, b);
        v[first + 1u] = max(a, b);
    } else if len == 3u {
        let low = min(v.x, v.y);
        let high = max(v.x, v.y);
        let top = max(high, v.z);
        let middle = min(high, v.z);
        v = vec3<u32>(min(low, middle), max(low, middle), top);
    }
    return v;
}

// The state of a legal placement with `to_move` to move and the right to capture en passant the
// enemy pawn on `pawn` (index::ChessIndex::en_passant_state).
fn en_passant_state(original: Placement, to_move: u32, original_pawn: u32) -> u32 {
    var p = original;
    var pawn = original_pawn;
    if (pawn & 7u) > 3u {
        p = mapped(original, MIRROR, MEN);
        pawn = symmetry(MIRROR, original_pawn);
    }
    let ep_man = ep_man_of(to_move);
    var squares = p.men;
    for (var man = 0u; man < MEN; man += 1u) {
        if THIS.first[man] != man {
            continue;
        }
        let len = THIS.len[man];
        if man == ep_man {
            // The pawn first, the rest of its group in increasing order.
            for (var j = man + 1u; j < man + len; j += 1u) {
                if squares[j] == pawn {
                    squares[j] = squares[man];
                    squares[man] = pawn;
                }
            }
            squares = sort_men(squares, man + 1u, len - 1u);
        } else {
            squares = sort_men(squares, man, len);
        }
    }
    var slot = ((pawn & 7u) * 64u + p.kings.x) * 64u + p.kings.y;
    for (var m = 0u; m < MEN; m += 1u) {
        if m != ep_man {
            let pawn_man = is_pawn(m);
            slot = slot * select(64u, 48u, pawn_man) + select(squares[m], squares[m] - 8u, pawn_man);
        }
    }
    return 2u * THIS.per_side + to_move * EP_PER_SIDE + slot;
}

// A position with an en passant right: its placement, side to move, the pawn that may be
// captured, and whether the slot is legal (index::ChessIndex::decode_en_passant).
struct EnPassant {
    p: Placement,
    side: u32,
    pawn: u32,
    legal: bool,
}

fn decode_en_passant(state: u32) -> EnPassant {
    let rest = state - 2u * THIS.per_side;
    let side = select(0u, 1u, rest >= EP_PER_SIDE);
    var slot = rest - side * EP_PER_SIDE;
    var p = Placement(vec2<u32>(0u), vec3<u32>(0u));
    if slot >= select(EP_LEN.x, EP_LEN.y, side == 1u) {
        return EnPassant(p, side, 0u, false);
    }
    let ep_man = ep_man_of(side);
    for (var k = 0u; k < MEN; k += 1u) {
        let m = MEN - 1u - k;
        if m != ep_man {
            let pawn_man = is_pawn(m);
            let radix = select(64u, 48u, pawn_man);
            let code = slot % radix;
            slot /= radix;
            p = with_man(p, m, select(code, code + 8u, pawn_man));
        }
    }
    let bk = slot % 64u;
    slot /= 64u;
    let wk = slot % 64u;
    let pawn = slot / 64u + 8u * select(3u, 4u, side == 0u);
    p.kings = vec2<u32>(wk, bk);
    p = with_man(p, ep_man, pawn);
    var ok = true;
    for (var man = 0u; man < MEN; man += 1u) {
        if THIS.first[man] != man {
            continue;
        }
        let origin = select(man, man + 1u, man == ep_man);
        for (var m = origin + 1u; m < man + THIS.len[man]; m += 1u) {
            if p.men[m - 1u] >= p.men[m] {
                ok = false;
            }
        }
    }
    let occupied = occupied_of(p);
    ok = ok && bb_count(occupied) == MEN + 2u && wk != bk && !pattern_has(KING, wk, bk)
        && !attacked(p, p.kings[1u - side], side, occupied) && en_passant_right(p, side, pawn);
    return EnPassant(p, side, pawn, ok);
}

// Pushes the en passant states of a legal placement with `to_move` to move: one per enemy pawn
// that may have just moved two squares and that `to_move` can capture en passant.
fn push_en_passant_variants(out: ptr<function, Successors>, p: Placement, to_move: u32) {
    let ep_man = ep_man_of(to_move);
    if ep_man == NO_MAN {
        return;
    }
    for (var m = 0u; m < MEN; m += 1u) {
        if m >= ep_man && man_side(m) != to_move && is_pawn(m) && en_passant_right(p, to_move, p.men[m]) {
            succ_push_mapped(out, en_passant_state(p, to_move, p.men[m]));
        }
    }
}

// Moves as in moves::for_each_move and ChessSpace::expand: a man's moves must capture or block
// every enemy man that would attack its king once it has left its square; the king may only go
// where no enemy piece attacks with the king removed. A pawn's move to the last rank stands for
// its four promotions (exits); a double step after which the opponent may capture en passant
// leads to that en passant state. `ep_pawn` is the pawn that may be captured en passant (when
// `fast` is false: the position has the right, and `slot` is not its slot as it stands).
fn expand_position(p: Placement, side: u32, slot: u32, fast: bool, ep_pawn: u32, out: ptr<function, Successors>) -> Node {
    let next = 1u - side;
    let occupied = occupied_of(p);
    let king = p.kings[side];
    let enemy_king = p.kings[next];
    let enemies = men_of(p, next);
    let own = men_of(p, side) | bb_bit(king);
    let nb = neighbours(p, slot, side, next, fast);
    var node = node_inner();
    var moves = 0u;
    for (var i = 0u; i < MEN; i += 1u) {
        if man_side(i) != side {
            continue;
        }
        let origin = p.men[i];
        let vacated = occupied ^ bb_bit(origin);
        var allowed = ~own & ~bb_bit(enemy_king);
        for (var j = 0u; j < MEN; j += 1u) {
            if man_side(j) == next && man_attacks_square(p, j, king, vacated) {
                allowed &= between(p.men[j], king) | bb_bit(p.men[j]);
            }
        }
        if is_pawn(i) {
            let targets = pawn_targets(side, origin, occupied, enemies) & allowed;
            moves += bb_count(targets);
            var quiet = vec2<u32>(0u);
            var left = targets;
            while !bb_empty(left) {
                let to = bb_pop(&left);
                let capture = !bb_empty(enemies & bb_bit(to));
                if relative_rank(side, to) == 7u {
                    add_promotions(&node, p, side, i, to);
                } else if capture {
                    add_captures(&node, p, side, i, bb_bit(to));
                } else if max(to, origin) - min(to, origin) == 16u && en_passant_right(with_man(p, i, to), next, to) {
                    succ_push_mapped(out, en_passant_state(with_man(p, i, to), next, to));
                } else {
                    quiet |= bb_bit(to);
                }
            }
            push_moves(out, nb, i, quiet);
        } else {
            let targets = attacks(man_kind(i), origin, occupied) & allowed;
            moves += bb_count(targets);
            add_captures(&node, p, side, i, targets & enemies);
            push_moves(out, nb, i, targets & ~enemies);
        }
    }
    let without_king = occupied ^ bb_bit(king);
    var danger = pattern(KING, enemy_king);
    for (var j = 0u; j < MEN; j += 1u) {
        if man_side(j) == next {
            danger |= man_attacks(p, j, without_king);
        }
    }
    let targets = pattern(KING, king) & ~own & ~danger;
    moves += bb_count(targets);
    add_captures(&node, p, side, NO_MAN, targets & enemies);
    push_moves(out, nb, NO_MAN, targets & ~enemies);
    if !fast {
        let captures = en_passant_captures(p, side, ep_pawn);
        let passed = backward(next, ep_pawn);
        for (var c = 0u; c < MEN; c += 1u) {
            if ((captures.x >> c) & 1u) != 0u {
                moves += 1u;
                let after = with_man(p, c, passed);
                for (var v = 0u; v < MEN; v += 1u) {
                    if v == captures.y {
                        node_add_exit(&node, exit_entry(after, v, exit_key(v, NO_MAN, 0u), next));
                    }
                }
            }
        }
    }
    if moves > 0u {
        return node;
    }
    if attacked(p, king, next, occupied) {
        return node_terminal(LOST);
    }
    return node_terminal(DRAW);
}

fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    if state >= 2u * THIS.per_side {
        let e = decode_en_passant(state);
        if !e.legal {
            return node_broken();
        }
        return expand_position(e.p, e.side, 0u, false, e.pawn, out);
    }
    let d = decode(state);
    if !legal(d) {
        return node_broken();
    }
    return expand_position(d.p, d.side, d.slot, true, 0u, out);
}

// The squares a piece of side `mover` leaving `square` (man `skip`, or NO_MAN) may go back to:
// empty, and blocking every other man of `mover` that attacks `waiting_king` once `square` is
// empty.
fn unmove_allowed(p: Placement, occupied: vec2<u32>, square: u32, skip: u32, mover: u32, waiting_king: u32) -> vec2<u32> {
    let vacated = occupied ^ bb_bit(square);
    var allowed = ~occupied;
    for (var j = 0u; j < MEN; j += 1u) {
        if j != skip && man_side(j) == mover && man_attacks_square(p, j, waiting_king, vacated) {
            allowed &= between(p.men[j], waiting_king);
        }
    }
    return allowed;
}

// Pushes the en passant states of the parents reached by un-moving `piece` (a man, or NO_MAN:
// the king) of `mover` to each of `sources`.
fn push_parent_variants(out: ptr<function, Successors>, p: Placement, mover: u32, piece: u32, sources: vec2<u32>) {
    if ep_man_of(mover) == NO_MAN {
        return;
    }
    var left = sources;
    while !bb_empty(left) {
        let origin = bb_pop(&left);
        push_en_passant_variants(out, moved(p, mover, piece, origin), mover);
    }
}

// Un-moves as in moves::for_each_unmove and ChessSpace::parents (no un-captures, no
// un-promotions); a man may not come from a square from which it attacks the waiting king, a
// pawn only steps back. A double step after which the waiting side may capture en passant led
// to the en passant state, not to this one; every parent's own en passant states are parents
// too. The solver asks only for legal states.
fn game_parents(state: u32, out: ptr<function, Successors>) {
    if state >= 2u * THIS.per_side {
        // The last move was the double step of the pawn that may be captured.
        let e = decode_en_passant(state);
        let mover = 1u - e.side;
        var man = NO_MAN;
        for (var m = 0u; m < MEN; m += 1u) {
            if man == NO_MAN && man_side(m) == mover && e.p.men[m] == e.pawn {
                man = m;
            }
        }
        let parent = with_man(e.p, man, backward(mover, backward(mover, e.pawn)));
        if !attacked(parent, parent.kings[e.side], mover, occupied_of(parent)) {
            let c = canonical(THIS, parent);
            if c.y == 0u {
                succ_push_plain(out, mover * THIS.per_side + c.x);
            } else {
                succ_push_mapped(out, mover * THIS.per_side + c.x);
            }
            push_en_passant_variants(out, parent, mover);
        }
        return;
    }
    let d = decode(state);
    let p = d.p;
    let mover = 1u - d.side;
    let occupied = occupied_of(p);
    let waiting_king = p.kings[d.side];
    let nb = neighbours(p, d.slot, mover, mover, true);
    for (var i = 0u; i < MEN; i += 1u) {
        if man_side(i) != mover {
            continue;
        }
        let to = p.men[i];
        let allowed = unmove_allowed(p, occupied, to, i, mover, waiting_king);
        var sources: vec2<u32>;
        if is_pawn(i) {
            sources = pawn_sources(mover, to, occupied) & allowed & ~pawn_attacks(d.side, waiting_king);
            if relative_rank(mover, to) == 3u && en_passant_right(p, d.side, to) {
                sources &= ~bb_bit(backward(mover, backward(mover, to)));
            }
        } else {
            let kind = man_kind(i);
            let checking = attacks(kind, waiting_king, occupied ^ bb_bit(to));
            sources = attacks(kind, to, occupied) & allowed & ~checking;
        }
        push_moves(out, nb, i, sources);
        push_parent_variants(out, p, mover, i, sources);
    }
    let king = p.kings[mover];
    let allowed = unmove_allowed(p, occupied, king, NO_MAN, mover, waiting_king);
    let sources = pattern(KING, king) & ~pattern(KING, waiting_king) & allowed;
    push_moves(out, nb, NO_MAN, sources);
    push_parent_variants(out, p, mover, NO_MAN, sources);
}
