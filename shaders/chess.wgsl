// Pawnless chess rules for the GPU solver: the twin of src/games/chess (index.rs, moves.rs).
//
// Joined after a prelude that src/games/chess/gpu.rs generates: the layout constants of the data
// buffers below (GEO_*, TAB_*, IX_*, MEN_*, EXIT_*), KING, SLIDERS (a bit per kind), DIRECTIONS,
// TRANSPOSE, COLOUR_FLIP, NO_MAN and GAME_MAX_SUCCESSORS. Every table comes from Rust:
//   chess_geo:      board::Geometry::gpu_words (symmetry maps, attack patterns, rays, between)
//   chess_tables:   index::IndexTables (king pairs, pair numbers, pair symmetries, binomials,
//                   combinadic unrank tables)
//   chess_material: index descriptors (this table, then one per capturable man's smaller
//                   table), the men's sides and kinds, and the capture exits
//   chess_exit_entries: the smaller tables' entries, two per word
// Bitboards are vec2<u32> (low word: squares 0..31).

struct Placement {
    kings: vec2<u32>,
    men: vec3<u32>,
}

fn bb_bit(sq: u32) -> vec2<u32> {
    if sq < 32u {
        return vec2<u32>(1u << sq, 0u);
    }
    return vec2<u32>(0u, 1u << (sq - 32u));
}

fn bb_has(b: vec2<u32>, sq: u32) -> bool {
    return any((b & bb_bit(sq)) != vec2<u32>(0u));
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

fn between(a: u32, b: u32) -> vec2<u32> {
    return geo_board(GEO_BETWEEN + 2u * (a * 64u + b));
}

// Whether a piece of `kind` on `origin` attacks `aim`, with `occupied` blocking sliders
// (`between` is empty for leapers, so one test serves every kind).
fn attacks_square(kind: u32, origin: u32, aim: u32, occupied: vec2<u32>) -> bool {
    return bb_has(pattern(kind, origin), aim) && bb_empty(between(origin, aim) & occupied);
}

fn bb_lowest(b: vec2<u32>) -> u32 {
    if b.x != 0u {
        return firstTrailingBit(b.x);
    }
    return 32u + firstTrailingBit(b.y);
}

fn bb_highest(b: vec2<u32>) -> u32 {
    if b.y != 0u {
        return 32u + firstLeadingBit(b.y);
    }
    return firstLeadingBit(b.x);
}

fn ray(direction: u32, sq: u32) -> vec2<u32> {
    return geo_board(GEO_RAY + 2u * (direction * 64u + sq));
}

// Squares a piece of `kind` on `origin` attacks. A slider's pattern holds whole rays: along
// each, the attack stops at the nearest blocker (the lowest square on rays to higher squares).
fn attacks(kind: u32, origin: u32, occupied: vec2<u32>) -> vec2<u32> {
    let reach = pattern(kind, origin);
    if (SLIDERS & (1u << kind)) == 0u {
        return reach;
    }
    var result = vec2<u32>(0u);
    for (var d = 0u; d < DIRECTIONS; d += 1u) {
        let line = ray(d, origin);
        if bb_empty(line) || !bb_empty(line & ~reach) {
            continue;
        }
        let blockers = line & occupied;
        if bb_empty(blockers) {
            result |= line;
        } else {
            let nearest = select(bb_highest(blockers), bb_lowest(blockers), bb_lowest(line) > origin);
            result |= line ^ ray(d, nearest);
        }
    }
    return result;
}

// Descriptor of index `ix` (0: this table, 1 + man: the table that capturing the man leads to).
fn ix_word(ix: u32, field: u32) -> u32 {
    return chess_material[ix * IX_WORDS + field];
}

fn man_side(man: u32) -> u32 {
    return chess_material[MEN_SIDE + man];
}

fn man_kind(man: u32) -> u32 {
    return chess_material[MEN_KIND + man];
}

fn occupied_of(p: Placement, count: u32) -> vec2<u32> {
    var occupied = bb_bit(p.kings.x) | bb_bit(p.kings.y);
    for (var i = 0u; i < count; i += 1u) {
        occupied |= bb_bit(p.men[i]);
    }
    return occupied;
}

fn mapped(p: Placement, sym: u32, count: u32) -> Placement {
    var out = p;
    out.kings = vec2<u32>(symmetry(sym, p.kings.x), symmetry(sym, p.kings.y));
    for (var i = 0u; i < count; i += 1u) {
        out.men[i] = symmetry(sym, p.men[i]);
    }
    return out;
}

// Both kings on the a1-h8 diagonal: the squares the reflection in it keeps.
fn kings_on_diagonal(p: Placement) -> bool {
    return symmetry(TRANSPOSE, p.kings.x) == p.kings.x
        && symmetry(TRANSPOSE, p.kings.y) == p.kings.y;
}

// Combinadic rank of the group of index `ix` starting at man `first`.
fn group_rank(ix: u32, first: u32, p: Placement) -> u32 {
    let len = ix_word(ix, IX_GROUP_LEN + first);
    var s = vec3<u32>(0u);
    for (var j = 0u; j < len; j += 1u) {
        let sq = p.men[first + j];
        s[j] = sq - select(0u, 1u, sq > p.kings.x) - select(0u, 1u, sq > p.kings.y);
    }
    for (var i = 1u; i < len; i += 1u) {
        var j = i;
        while j > 0u && s[j - 1u] > s[j] {
            let low = s[j];
            s[j] = s[j - 1u];
            s[j - 1u] = low;
            j -= 1u;
        }
    }
    var rank = 0u;
    for (var i = 0u; i < len; i += 1u) {
        rank += chess_tables[TAB_BINOMIAL + s[i] * 4u + i + 1u];
    }
    return rank;
}

// The slot of a placement whose king pair is in the table, as it stands.
fn slot_as_is(ix: u32, p: Placement) -> u32 {
    let pair = chess_tables[TAB_KING_PAIR_INDEX + p.kings.x * 64u + p.kings.y];
    var slot = pair * ix_word(ix, IX_PER_PAIR);
    let count = ix_word(ix, IX_MEN);
    for (var man = 0u; man < count; man += 1u) {
        if ix_word(ix, IX_GROUP_FIRST + man) == man {
            slot += group_rank(ix, man, p) * ix_word(ix, IX_MULTIPLIER + man);
        }
    }
    return slot;
}

// The canonical slot of a placement of legal kings, and whether a symmetry produced it.
fn canonical(ix: u32, p: Placement) -> vec2<u32> {
    let count = ix_word(ix, IX_MEN);
    let sym = chess_tables[TAB_KING_SYMMETRY + p.kings.x * 64u + p.kings.y];
    var image = p;
    if sym != 0u {
        image = mapped(p, sym, count);
    }
    let slot = slot_as_is(ix, image);
    if kings_on_diagonal(image) {
        let reflected = slot_as_is(ix, mapped(image, TRANSPOSE, count));
        if reflected < slot {
            return vec2<u32>(reflected, 1u);
        }
    }
    return vec2<u32>(slot, select(0u, 1u, sym != 0u));
}

// The placement a slot of this table spells out, legal or not.
fn placement_of(slot: u32) -> Placement {
    let per_pair = ix_word(0u, IX_PER_PAIR);
    let pair = chess_tables[TAB_KING_PAIRS + slot / per_pair];
    var rest = slot % per_pair;
    var p: Placement;
    p.kings = vec2<u32>(pair & 0xFFu, pair >> 8u);
    p.men = vec3<u32>(0u);
    let low = min(p.kings.x, p.kings.y);
    let high = max(p.kings.x, p.kings.y);
    let count = ix_word(0u, IX_MEN);
    for (var man = 0u; man < count; man += 1u) {
        if ix_word(0u, IX_GROUP_FIRST + man) != man {
            continue;
        }
        let len = ix_word(0u, IX_GROUP_LEN + man);
        let multiplier = ix_word(0u, IX_MULTIPLIER + man);
        let rank = rest / multiplier;
        rest %= multiplier;
        let squares = chess_tables[chess_tables[TAB_UNRANK + len - 1u] + rank];
        for (var j = 0u; j < len; j += 1u) {
            var sq = (squares >> (8u * j)) & 0xFFu;
            sq += select(0u, 1u, sq >= low);
            sq += select(0u, 1u, sq >= high);
            p.men[man + j] = sq;
        }
    }
    return p;
}

// Whether `aim` is attacked by side `by` (the man `skip` excluded).
fn attacked(p: Placement, aim: u32, by: u32, occupied: vec2<u32>, skip: u32) -> bool {
    if bb_has(pattern(KING, p.kings[by]), aim) {
        return true;
    }
    let count = ix_word(0u, IX_MEN);
    for (var i = 0u; i < count; i += 1u) {
        if i != skip && man_side(i) == by && attacks_square(man_kind(i), p.men[i], aim, occupied) {
            return true;
        }
    }
    return false;
}

struct Decoded {
    p: Placement,
    side: u32,
    slot: u32,
    legal: bool,
}

fn decode(state: u32) -> Decoded {
    let per_side = ix_word(0u, IX_PER_SIDE);
    var d: Decoded;
    d.side = select(0u, 1u, state >= per_side);
    d.slot = state - d.side * per_side;
    d.p = placement_of(d.slot);
    let count = ix_word(0u, IX_MEN);
    let occupied = occupied_of(d.p, count);
    d.legal = bb_count(occupied) == count + 2u
        && !attacked(d.p, d.p.kings[1u - d.side], d.side, occupied, NO_MAN)
        && !(kings_on_diagonal(d.p) && slot_as_is(0u, mapped(d.p, TRANSPOSE, count)) < d.slot);
    return d;
}

// Pushes the state of `next` (`side` to move), reached from `p` (slot `slot`) by moving `man`
// (NO_MAN: the king). A man's move off the diagonal changes only its group's rank.
fn push_successor(
    out: ptr<function, Successors>,
    p: Placement,
    slot: u32,
    man: u32,
    next: Placement,
    side: u32,
) {
    let base = side * ix_word(0u, IX_PER_SIDE);
    if man != NO_MAN && !kings_on_diagonal(p) {
        let first = ix_word(0u, IX_GROUP_FIRST + man);
        let multiplier = ix_word(0u, IX_MULTIPLIER + man);
        let old = group_rank(0u, first, p);
        let new_rank = group_rank(0u, first, next);
        succ_push_plain(out, base + slot - old * multiplier + new_rank * multiplier);
    } else {
        let child = canonical(0u, next);
        if child.y == 0u {
            succ_push_plain(out, base + child.x);
        } else {
            succ_push_mapped(out, base + child.x);
        }
    }
}

// The entry, for the side then to move, of the position after capturing `victim`.
fn exit_entry(after: Placement, victim: u32, next: u32) -> u32 {
    let exit = EXIT_BASE + victim * EXIT_WORDS;
    let flip = chess_material[exit + EXIT_FLIP] != 0u;
    let offset = chess_material[exit + EXIT_OFFSET];
    // Swapping colours mirrors the ranks: the board symmetry COLOUR_FLIP, or none.
    let sym = select(0u, COLOUR_FLIP, flip);
    var smaller: Placement;
    smaller.kings = vec2<u32>(symmetry(sym, after.kings.x), symmetry(sym, after.kings.y));
    if flip {
        smaller.kings = smaller.kings.yx;
    }
    smaller.men = vec3<u32>(0u);
    let count = ix_word(0u, IX_MEN);
    for (var man = 0u; man < count; man += 1u) {
        if man != victim {
            smaller.men[chess_material[exit + EXIT_ORDER + man]] = symmetry(sym, after.men[man]);
        }
    }
    let side = select(next, 1u - next, flip);
    let ix = 1u + victim;
    let at = offset + side * ix_word(ix, IX_PER_SIDE) + canonical(ix, smaller).x;
    return (chess_exit_entries[at >> 1u] >> (16u * (at & 1u))) & 0xFFFFu;
}

fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    let d = decode(state);
    if !d.legal {
        return node_broken();
    }
    let p = d.p;
    let side = d.side;
    let next = 1u - side;
    let count = ix_word(0u, IX_MEN);
    let occupied = occupied_of(p, count);
    let king = p.kings[side];
    let enemy_king = p.kings[next];
    var own = bb_bit(king);
    for (var i = 0u; i < count; i += 1u) {
        if man_side(i) == side {
            own |= bb_bit(p.men[i]);
        }
    }
    var node = node_inner();
    var moves = 0u;
    for (var i = 0u; i < count; i += 1u) {
        if man_side(i) != side {
            continue;
        }
        let origin = p.men[i];
        var targets = attacks(man_kind(i), origin, occupied) & ~own & ~bb_bit(enemy_king);
        while !bb_empty(targets) {
            let to = bb_pop(&targets);
            let victim = victim_on(p, to, next, occupied, count);
            var after = p;
            after.men[i] = to;
            let occ = (occupied ^ bb_bit(origin)) | bb_bit(to);
            if !attacked(after, king, next, occ, victim) {
                moves += 1u;
                if victim != NO_MAN {
                    node_add_exit(&node, exit_entry(after, victim, next));
                } else {
                    push_successor(out, p, d.slot, i, after, next);
                }
            }
        }
    }
    var targets = pattern(KING, king) & ~own & ~pattern(KING, enemy_king);
    while !bb_empty(targets) {
        let to = bb_pop(&targets);
        let victim = victim_on(p, to, next, occupied, count);
        var after = p;
        after.kings[side] = to;
        let occ = (occupied ^ bb_bit(king)) | bb_bit(to);
        if !attacked(after, to, next, occ, victim) {
            moves += 1u;
            if victim != NO_MAN {
                node_add_exit(&node, exit_entry(after, victim, next));
            } else {
                push_successor(out, p, d.slot, NO_MAN, after, next);
            }
        }
    }
    if moves > 0u {
        return node;
    }
    if attacked(p, king, next, occupied, NO_MAN) {
        return node_terminal(LOST);
    }
    return node_terminal(DRAW);
}

// The man of side `enemy` on `to`, or NO_MAN.
fn victim_on(p: Placement, to: u32, enemy: u32, occupied: vec2<u32>, count: u32) -> u32 {
    if !bb_has(occupied, to) {
        return NO_MAN;
    }
    for (var j = 0u; j < count; j += 1u) {
        if man_side(j) == enemy && p.men[j] == to {
            return j;
        }
    }
    return NO_MAN;
}

fn game_parents(state: u32, out: ptr<function, Successors>) {
    let d = decode(state);
    if !d.legal {
        return;
    }
    let p = d.p;
    let to_move = d.side;
    let mover = 1u - to_move;
    let count = ix_word(0u, IX_MEN);
    let occupied = occupied_of(p, count);
    let waiting_king = p.kings[to_move];
    for (var i = 0u; i < count; i += 1u) {
        if man_side(i) != mover {
            continue;
        }
        let to = p.men[i];
        var sources = attacks(man_kind(i), to, occupied) & ~occupied;
        while !bb_empty(sources) {
            let origin = bb_pop(&sources);
            var parent = p;
            parent.men[i] = origin;
            let occ = (occupied ^ bb_bit(to)) | bb_bit(origin);
            if !attacked(parent, waiting_king, mover, occ, NO_MAN) {
                push_successor(out, p, d.slot, i, parent, mover);
            }
        }
    }
    let king = p.kings[mover];
    var sources = pattern(KING, king) & ~occupied & ~pattern(KING, waiting_king);
    while !bb_empty(sources) {
        let origin = bb_pop(&sources);
        var parent = p;
        parent.kings[mover] = origin;
        let occ = (occupied ^ bb_bit(king)) | bb_bit(origin);
        if !attacked(parent, waiting_king, mover, occ, NO_MAN) {
            push_successor(out, p, d.slot, NO_MAN, parent, mover);
        }
    }
}
