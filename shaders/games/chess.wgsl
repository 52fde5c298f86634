// Pawnless chess rules for the GPU solver: the twin of src/games/chess (index.rs, moves.rs).
//
// Joined after a prelude that src/games/chess/gpu.rs generates for one material: the men (MEN,
// MEN_SIDE a bit per man, MEN_KIND four bits per man), this table's index THIS, the capture
// exits (fn exit_of), the layout constants of the data buffers below (GEO_*, TAB_*), KING,
// SLIDERS (a bit per kind), DIAGONAL, TRANSPOSE, COLOUR_FLIP, NO_MAN and GAME_MAX_SUCCESSORS.
// Every table comes from Rust:
//   chess_geo:          board::Geometry::gpu_words (symmetry maps, attack patterns, rays,
//                       between), then beyond (the squares behind a blocker)
//   chess_tables:       index::IndexTables (king pairs, king_canonical, combinadic unrank tables)
//   chess_exit_entries: the smaller tables' entries, two per word
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

// An index descriptor (index::ChessIndex): the men, slots per king pair and per side, and per man
// its group's first man, length and multiplier in the slot.
struct Index {
    men: u32,
    per_pair: u32,
    per_side: u32,
    first: vec3<u32>,
    len: vec3<u32>,
    multiplier: vec3<u32>,
}

fn man_side(man: u32) -> u32 {
    return (MEN_SIDE >> man) & 1u;
}

fn man_kind(man: u32) -> u32 {
    return (MEN_KIND >> (4u * man)) & 0xFu;
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

// Whether `aim` is attacked by the pieces of side `by`.
fn attacked(p: Placement, aim: u32, by: u32, occupied: vec2<u32>) -> bool {
    if pattern_has(KING, p.kings[by], aim) {
        return true;
    }
    for (var i = 0u; i < MEN; i += 1u) {
        if man_side(i) == by && attacks_square(man_kind(i), p.men[i], aim, occupied) {
            return true;
        }
    }
    return false;
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

// The square's number among the 62 that hold no king.
fn free_square(sq: u32, kings: vec2<u32>) -> u32 {
    return sq - select(0u, 1u, sq > kings.x) - select(0u, 1u, sq > kings.y);
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
    let a = free_square(p.men[first], p.kings);
    if len == 1u {
        return a;
    }
    let b = free_square(p.men[first + 1u], p.kings);
    if len == 2u {
        return min(a, b) + pairs(max(a, b));
    }
    let c = free_square(p.men[2u], p.kings);
    let low = min(a, b);
    let high = max(a, b);
    let top = max(high, c);
    let middle = min(high, c);
    return min(low, middle) + pairs(max(low, middle)) + triples(top);
}

// The slot of a placement whose kings form canonical pair number `pair`, as it stands.
fn slot_as_is(ix: Index, pair: u32, p: Placement) -> u32 {
    var slot = pair * ix.per_pair;
    for (var man = 0u; man < ix.men; man += 1u) {
        if ix.first[man] == man {
            slot += group_rank(ix, man, p) * ix.multiplier[man];
        }
    }
    return slot;
}

// The canonical slot of a placement of legal kings, and whether a symmetry produced it (1).
fn canonical(ix: Index, p: Placement) -> vec2<u32> {
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

// The placement a slot of this table spells out, legal or not.
fn placement_of(slot: u32) -> Placement {
    let pair = chess_tables[TAB_KING_PAIRS + slot / THIS.per_pair];
    var rest = slot % THIS.per_pair;
    var p = Placement(vec2<u32>(pair & 0xFFu, pair >> 8u), vec3<u32>(0u));
    let low = min(p.kings.x, p.kings.y);
    let high = max(p.kings.x, p.kings.y);
    for (var man = 0u; man < MEN; man += 1u) {
        if THIS.first[man] != man {
            continue;
        }
        let len = THIS.len[man];
        let multiplier = THIS.multiplier[man];
        let rank = rest / multiplier;
        rest %= multiplier;
        let squares = chess_tables[TAB_UNRANK[len - 1u] + rank];
        for (var j = 0u; j < len; j += 1u) {
            var sq = (squares >> (8u * j)) & 0xFFu;
            sq += select(0u, 1u, sq >= low);
            sq += select(0u, 1u, sq >= high);
            p = with_man(p, man + j, sq);
        }
    }
    return p;
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
        && !(kings_on_diagonal(p) && slot_as_is(THIS, d.slot / THIS.per_pair, mapped(p, TRANSPOSE, MEN)) < d.slot);
}

// The states one move (or un-move) of side `moving` away from `p` (slot `slot`); `base` is the
// first state of the side to move next. Off the diagonal, a man's move changes only its group's
// rank and no symmetry applies; king moves and diagonal king pairs canonicalise fully.
struct Neighbours {
    p: Placement,
    slot: u32,
    moving: u32,
    base: u32,
    diagonal: bool,
}

fn neighbours(p: Placement, slot: u32, moving: u32, next: u32) -> Neighbours {
    return Neighbours(p, slot, moving, next * THIS.per_side, kings_on_diagonal(p));
}

// Pushes the states reached by moving `mover` (NO_MAN: the king) to each of `squares`.
fn push_moves(out: ptr<function, Successors>, nb: Neighbours, mover: u32, squares: vec2<u32>) {
    var left = squares;
    if mover != NO_MAN && !nb.diagonal {
        let first = THIS.first[mover];
        let multiplier = THIS.multiplier[mover];
        let partial = nb.base + nb.slot - group_rank(THIS, first, nb.p) * multiplier;
        if THIS.len[mover] == 1u {
            // A lone man's rank is its free square: no sort.
            while !bb_empty(left) {
                let to = bb_pop(&left);
                succ_push_plain(out, partial + free_square(to, nb.p.kings) * multiplier);
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

// The table that capturing a man leads to (`exit_of(victim)` in the prelude): whether it is
// stored with colours swapped, where its entries start in chess_exit_entries, where each
// surviving man goes among its men, and its index.
struct Exit {
    flip: bool,
    offset: u32,
    order: vec3<u32>,
    index: Index,
}

// The entry, for the side then to move, of the position after capturing `victim`.
fn exit_entry(after: Placement, victim: u32, next: u32) -> u32 {
    let exit = exit_of(victim);
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
    let at = exit.offset + side * exit.index.per_side + canonical(exit.index, smaller).x;
    return (chess_exit_entries[at >> 1u] >> (16u * (at & 1u))) & 0xFFFFu;
}

// Records the exits of `mover`'s captures on `captures`. The loop runs over the victims, not the
// squares, so that each victim's exit is a constant.
fn add_captures(node: ptr<function, Node>, p: Placement, side: u32, mover: u32, captures: vec2<u32>) {
    let next = 1u - side;
    for (var victim = 0u; victim < MEN; victim += 1u) {
        let to = p.men[victim];
        if man_side(victim) == next && !bb_empty(captures & bb_bit(to)) {
            node_add_exit(node, exit_entry(moved(p, side, mover, to), victim, next));
        }
    }
}

// Moves as in moves::for_each_move: a man's moves must capture or block every enemy man that
// would attack its king once it has left its square; the king may only go where no enemy piece
// attacks with the king removed.
fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    let d = decode(state);
    if !legal(d) {
        return node_broken();
    }
    let p = d.p;
    let side = d.side;
    let next = 1u - side;
    let occupied = occupied_of(p);
    let king = p.kings[side];
    let enemy_king = p.kings[next];
    let enemies = men_of(p, next);
    let own = men_of(p, side) | bb_bit(king);
    let nb = neighbours(p, d.slot, side, next);
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
            if man_side(j) == next && attacks_square(man_kind(j), p.men[j], king, vacated) {
                allowed &= between(p.men[j], king) | bb_bit(p.men[j]);
            }
        }
        let targets = attacks(man_kind(i), origin, occupied) & allowed;
        moves += bb_count(targets);
        add_captures(&node, p, side, i, targets & enemies);
        push_moves(out, nb, i, targets & ~enemies);
    }
    let without_king = occupied ^ bb_bit(king);
    var danger = pattern(KING, enemy_king);
    for (var j = 0u; j < MEN; j += 1u) {
        if man_side(j) == next {
            danger |= attacks(man_kind(j), p.men[j], without_king);
        }
    }
    let targets = pattern(KING, king) & ~own & ~danger;
    moves += bb_count(targets);
    add_captures(&node, p, side, NO_MAN, targets & enemies);
    push_moves(out, nb, NO_MAN, targets & ~enemies);
    if moves > 0u {
        return node;
    }
    if attacked(p, king, next, occupied) {
        return node_terminal(LOST);
    }
    return node_terminal(DRAW);
}

// The squares a piece of side `mover` leaving `square` (man `skip`, or NO_MAN) may go back to:
// empty, and blocking every other man of `mover` that attacks `waiting_king` once `square` is
// empty.
fn unmove_allowed(p: Placement, occupied: vec2<u32>, square: u32, skip: u32, mover: u32, waiting_king: u32) -> vec2<u32> {
    let vacated = occupied ^ bb_bit(square);
    var allowed = ~occupied;
    for (var j = 0u; j < MEN; j += 1u) {
        if j != skip && man_side(j) == mover && attacks_square(man_kind(j), p.men[j], waiting_king, vacated) {
            allowed &= between(p.men[j], waiting_king);
        }
    }
    return allowed;
}

// Un-moves as in moves::for_each_unmove (no un-captures); a man may not come from a square from
// which it attacks the waiting king. The solver asks only for legal states.
fn game_parents(state: u32, out: ptr<function, Successors>) {
    let d = decode(state);
    let p = d.p;
    let mover = 1u - d.side;
    let occupied = occupied_of(p);
    let waiting_king = p.kings[d.side];
    let nb = neighbours(p, d.slot, mover, mover);
    for (var i = 0u; i < MEN; i += 1u) {
        if man_side(i) != mover {
            continue;
        }
        let to = p.men[i];
        let kind = man_kind(i);
        let checking = attacks(kind, waiting_king, occupied ^ bb_bit(to));
        let allowed = unmove_allowed(p, occupied, to, i, mover, waiting_king);
        push_moves(out, nb, i, attacks(kind, to, occupied) & allowed & ~checking);
    }
    let king = p.kings[mover];
    let allowed = unmove_allowed(p, occupied, king, NO_MAN, mover, waiting_king);
    push_moves(out, nb, NO_MAN, pattern(KING, king) & ~pattern(KING, waiting_king) & allowed);
}
