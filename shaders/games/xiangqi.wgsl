// Xiangqi rules for the GPU solver: the twin of src/games/xiangqi (index.rs, moves.rs, space.rs).
//
// Joined after a prelude that src/games/xiangqi/gpu.rs generates: the material's constants
// (PIECES, PIECE_KINDS_*, PIECE_GROUPS_*, KINDS_PRESENT, BLACK_START, *_ATTACKERS_END, PER_SIDE, GROUPS,
// GAME_MAX_SUCCESSORS, fn this_group), the kind numbers, the board's FILES and FILE_ZERO_*, and
// the layout constants of the data buffers below (GEO_*, G_*, IX_*, MAT_*, EXIT_*). Every table
// comes from Rust:
//   xq_geo:          board::Geometry (points, symmetry maps, leaper tables with their blocking
//                    squares, rays, horse legs, the squares that can decide an attack on a king)
//   xq_material:     index descriptors (this table, then per piece the table capturing it leads
//                    to), the capture exits
//   xq_exit_entries: the smaller tables' entries, two per word
// Red owns pieces 0..BLACK_START (its king first), black the rest (its king first). Bitboards are
// vec3<u32> (low word: squares 0..31); a captured piece's square is NONE.
//
// Speed on SIMD-per-thread drivers (llvmpipe), where a batch of states runs in lock step:
// - nothing is indexed at run time in private memory (such an array lives in memory, a gather or
//   scatter per access): the placement is three vectors read and written with `select`, each
//   side's occupancy a value of its own, bitboards are built with `select`;
// - few buffer loads (each one a load per lane): this table's groups and each piece's kind and
//   group are prelude constants, line attacks are computed from square numbers;
// - a piece's targets (sources) are gathered as a bitboard, then popped in loops that run as
//   often as the busiest state of the batch needs: quiet moves, which only change one digit of
//   the slot, apart from those that need the board made and a full check test.

// The squares of pieces 0..3, 4..7 and 8..11 (GPU tables have at most 12 pieces).
struct Placement {
    a: vec4<u32>,
    b: vec4<u32>,
    c: vec4<u32>,
}

var<private> pl: Placement;
var<private> red_occ: vec3<u32>;
var<private> black_occ: vec3<u32>;
// The decoded state: its slot, the side to move, whether the red king stands on the centre file
// (and if so the mirror image's slot), and whether the king that a move (or an un-move) must
// leave safe is safe there.
var<private> cur_slot: u32;
var<private> cur_side: u32;
var<private> cur_centre: bool;
var<private> cur_mirror: u32;
var<private> king_safe: bool;
// The squares whose emptiness can decide an attack on that king (geometry's `sensitive`: see
// moves.rs, only moves that empty or fill one need a full check test).
var<private> king_sensitive: vec3<u32>;

fn lane(v: vec4<u32>, k: u32) -> u32 {
    return select(select(v.w, v.z, k == 2u), select(v.y, v.x, k == 0u), k < 2u);
}

// The square of piece `j`.
fn square_of(j: u32) -> u32 {
    let k = j & 3u;
    return select(select(lane(pl.c, k), lane(pl.b, k), j < 8u), lane(pl.a, k), j < 4u);
}

fn set_square(j: u32, s: u32) {
    let at = vec4<u32>(j);
    let to = vec4<u32>(s);
    pl.a = select(pl.a, to, at == vec4<u32>(0u, 1u, 2u, 3u));
    pl.b = select(pl.b, to, at == vec4<u32>(4u, 5u, 6u, 7u));
    pl.c = select(pl.c, to, at == vec4<u32>(8u, 9u, 10u, 11u));
}

// The bitboard of square `s` (empty for NONE).
fn bb_bit(s: u32) -> vec3<u32> {
    let shift = vec3<u32>(s) - vec3<u32>(0u, 32u, 64u);
    return select(vec3<u32>(0u), vec3<u32>(1u) << (shift & vec3<u32>(31u)), shift < vec3<u32>(32u));
}

// The squares below `n` (at most 96).
fn below(n: u32) -> vec3<u32> {
    let shift = vec3<u32>(n) - vec3<u32>(0u, 32u, 64u);
    let partial = (vec3<u32>(1u) << (shift & vec3<u32>(31u))) - vec3<u32>(1u);
    let full = shift >= vec3<u32>(32u) & shift <= vec3<u32>(96u);
    return select(select(vec3<u32>(0u), partial, shift < vec3<u32>(32u)), vec3<u32>(0xFFFFFFFFu), full);
}

// The squares of file `file`: those of file 0 (FILE_ZERO_*) shifted up by `file` (below 32).
fn file_mask(file: u32) -> vec3<u32> {
    let zero = vec3<u32>(FILE_ZERO_0, FILE_ZERO_1, FILE_ZERO_2);
    let lower = vec3<u32>(0u, FILE_ZERO_0, FILE_ZERO_1);
    let carry = select(vec3<u32>(0u), lower >> vec3<u32>(32u - file), file > 0u);
    return (zero << vec3<u32>(file)) | carry;
}

fn bb_has(b: vec3<u32>, s: u32) -> bool {
    return any((b & bb_bit(s)) != vec3<u32>(0u));
}

fn side_occ(side: u32) -> vec3<u32> {
    return select(red_occ, black_occ, side == 1u);
}

// Toggles the squares `bits` in the occupancy of `side`.
fn toggle_occ(side: u32, bits: vec3<u32>) {
    red_occ ^= select(bits, vec3<u32>(0u), side == 1u);
    black_occ ^= select(vec3<u32>(0u), bits, side == 1u);
}

fn occupied() -> vec3<u32> {
    return red_occ | black_occ;
}

fn is_empty(s: u32) -> bool {
    return !bb_has(occupied(), s);
}

fn side_of(piece: u32) -> u32 {
    return select(0u, 1u, piece >= BLACK_START);
}

fn side_start(side: u32) -> u32 {
    return select(0u, BLACK_START, side == 1u);
}

fn attackers_end(side: u32) -> u32 {
    return select(RED_ATTACKERS_END, BLACK_ATTACKERS_END, side == 1u);
}

// Whether `piece` belongs to `side` and can give check.
fn is_attacker(piece: u32, side: u32) -> bool {
    return piece >= side_start(side) && piece < attackers_end(side);
}

// Whether the material has pieces of `kind` (KINDS_PRESENT, a bit per kind): a constant, so that
// the code for absent kinds folds away.
fn present(kind: u32) -> bool {
    return ((KINDS_PRESENT >> kind) & 1u) != 0u;
}

fn piece_kind(piece: u32) -> u32 {
    let word = select(PIECE_KINDS_HIGH, PIECE_KINDS_LOW, piece < 8u);
    return (word >> (4u * (piece & 7u))) & 0xFu;
}

// The leaper entries (`square | block << 8`) of `table` (GEO_LEAP_TO or GEO_LEAP_FROM).
fn leap_base(table: u32, side: u32, kind: u32, s: u32) -> u32 {
    return table + ((side * KINDS + kind) * SQUARES + s) * LEAP_WIDTH;
}

// Whether an attacking piece of `kind` and `side` on `origin` attacks `aim` on a board whose
// occupied squares are `occ`.
fn attacks(kind: u32, side: u32, origin: u32, aim: u32, occ: vec3<u32>) -> bool {
    if present(PAWN) && kind == PAWN {
        let base = leap_base(GEO_LEAP_TO, side, PAWN, origin);
        for (var i = 0u; i < LEAP_WIDTH; i += 1u) {
            let to = xq_geo[base + i] & 0xFFu;
            if to == aim {
                return true;
            }
            if to == NONE {
                return false;
            }
        }
        return false;
    }
    if present(HORSE) && kind == HORSE {
        let leg = xq_geo[GEO_HORSE_LEG + origin * SQUARES + aim];
        return leg != NONE && !bb_has(occ, leg);
    }
    // King (facing along a file), rook, cannon (exactly one screen).
    let file = origin % FILES;
    let same_file = file == aim % FILES;
    if !(same_file || (kind != KING && origin / FILES == aim / FILES)) {
        return false;
    }
    var between = below(max(origin, aim)) & ~below(min(origin, aim) + 1u);
    if same_file {
        between &= file_mask(file);
    }
    let blockers = between & occ;
    let count = countOneBits(blockers.x) + countOneBits(blockers.y) + countOneBits(blockers.z);
    return count == select(0u, 1u, kind == CANNON);
}

// Whether the king of `side` is attacked, the facing kings included.
fn in_check(side: u32) -> bool {
    let king = square_of(side_start(side));
    let enemy = 1u - side;
    let occ = occupied();
    for (var piece = 0u; piece < PIECES; piece += 1u) {
        let s = square_of(piece);
        if is_attacker(piece, enemy) && s != NONE && attacks(piece_kind(piece), enemy, s, king, occ) {
            return true;
        }
    }
    return false;
}

// Sets king_safe and king_sensitive for the king of `side`.
fn watch_king(side: u32) {
    king_safe = !in_check(side);
    let at = GEO_SENSITIVE + square_of(side_start(side)) * 3u;
    king_sensitive = vec3<u32>(xq_geo[at], xq_geo[at + 1u], xq_geo[at + 2u]);
}

fn sensitive(s: u32) -> bool {
    return bb_has(king_sensitive, s);
}

// Moves `piece` to `to`, capturing what stands there; returns the captured piece or
// NONE.
fn make(piece: u32, to: u32) -> u32 {
    let side = side_of(piece);
    let enemy = 1u - side;
    var victim = NONE;
    if bb_has(side_occ(enemy), to) {
        for (var v = 0u; v < PIECES; v += 1u) {
            if side_of(v) == enemy && square_of(v) == to {
                victim = v;
            }
        }
        set_square(victim, NONE);
        toggle_occ(enemy, bb_bit(to));
    }
    toggle_occ(side, bb_bit(square_of(piece)) | bb_bit(to));
    set_square(piece, to);
    return victim;
}

// Takes back a `make` of `piece` from `origin`.
fn unmake(piece: u32, origin: u32, victim: u32) {
    let side = side_of(piece);
    let to = square_of(piece);
    toggle_occ(side, bb_bit(origin) | bb_bit(to));
    set_square(piece, origin);
    if victim != NONE {
        set_square(victim, to);
        toggle_occ(1u - side, bb_bit(to));
    }
}

// Descriptor words of index `ix` (0: this table, 1 + piece: the table capturing the piece leads to).
fn ix_word(ix: u32, field: u32) -> u32 {
    return xq_material[ix * IX_WORDS + field];
}

// A group of an index descriptor (its G_* words in order): its first piece, piece count, radix and
// stride in the slot, and the xq_geo offsets of its point numbers by square, of the same through
// the mirror and of its squares by point number.
struct Group {
    first: u32,
    count: u32,
    radix: u32,
    stride: u32,
    points: u32,
    mirrored: u32,
    squares: u32,
}

// Group `g` of index `ix`: this table's from the prelude's constants (`this_group`), a smaller
// table's from xq_material.
fn group_of(ix: u32, g: u32) -> Group {
    if ix == 0u {
        return this_group(g);
    }
    let at = ix * IX_WORDS + IX_GROUP + g * G_WORDS;
    return Group(
        xq_material[at + G_FIRST],
        xq_material[at + G_COUNT],
        xq_material[at + G_RADIX],
        xq_material[at + G_STRIDE],
        xq_material[at + G_POINTS],
        xq_material[at + G_MIRRORED],
        xq_material[at + G_SQUARES],
    );
}

fn piece_group(piece: u32) -> u32 {
    let word = select(PIECE_GROUPS_HIGH, PIECE_GROUPS_LOW, piece < 8u);
    return (word >> (4u * (piece & 7u))) & 0xFu;
}

// The square of piece `j` of index `ix`'s material, read from the board (through the capture
// exit's piece order and colour flip for a smaller table).
fn square_in(ix: u32, j: u32) -> u32 {
    if ix == 0u {
        return square_of(j);
    }
    let exit = MAT_EXITS + (ix - 1u) * EXIT_WORDS;
    let s = square_of(xq_material[exit + EXIT_ORDER + j]);
    if xq_material[exit + EXIT_FLIP] != 0u {
        return xq_geo[GEO_FLIP + s];
    }
    return s;
}

// Rank of `group` of index `ix`, as the pieces stand or through the mirror.
fn group_rank(ix: u32, group: Group, mirrored: bool) -> u32 {
    let table = select(group.points, group.mirrored, mirrored);
    let a = xq_geo[table + square_in(ix, group.first)];
    if group.count == 1u {
        return a;
    }
    let b = xq_geo[table + square_in(ix, group.first + 1u)];
    return xq_geo[GEO_PAIR_BASE + max(a, b)] + min(a, b);
}

fn raw_slot(ix: u32, mirrored: bool) -> u32 {
    var slot = 0u;
    let groups = select(ix_word(ix, IX_GROUPS), GROUPS, ix == 0u);
    for (var g = 0u; g < groups; g += 1u) {
        let group = group_of(ix, g);
        slot += group_rank(ix, group, mirrored) * group.stride;
    }
    return slot;
}

// The canonical slot of index `ix` for the board, and whether the mirror produced it.
fn canonical_slot(ix: u32) -> vec2<u32> {
    let king = square_in(ix, 0u);
    if xq_geo[GEO_RED_KING + king] == NONE {
        return vec2<u32>(raw_slot(ix, true), 1u);
    }
    let slot = raw_slot(ix, false);
    if xq_geo[GEO_MIRROR + king] == king {
        let mirrored = raw_slot(ix, true);
        if mirrored < slot {
            return vec2<u32>(mirrored, 1u);
        }
    }
    return vec2<u32>(slot, 0u);
}

// Sets up the board of a state; false for a broken slot.
fn decode(state: u32) -> bool {
    cur_side = select(0u, 1u, state >= PER_SIDE);
    cur_slot = state - cur_side * PER_SIDE;
    var rest = cur_slot;
    for (var g = GROUPS; g > 0u; g -= 1u) {
        let group = this_group(g - 1u);
        let rank = rest % group.radix;
        rest /= group.radix;
        if group.count == 1u {
            set_square(group.first, xq_geo[group.squares + rank]);
        } else {
            let pair = xq_geo[GEO_PAIR_UNRANK + rank];
            set_square(group.first, xq_geo[group.squares + (pair & 0xFFu)]);
            set_square(group.first + 1u, xq_geo[group.squares + (pair >> 8u)]);
        }
    }
    let king = square_of(0u);
    cur_centre = xq_geo[GEO_MIRROR + king] == king;
    if cur_centre {
        cur_mirror = raw_slot(0u, true);
        if cur_mirror < cur_slot {
            return false;
        }
    }
    red_occ = vec3<u32>(0u);
    black_occ = vec3<u32>(0u);
    for (var j = 0u; j < PIECES; j += 1u) {
        let s = square_of(j);
        if bb_has(occupied(), s) {
            return false;
        }
        toggle_occ(side_of(j), bb_bit(s));
    }
    return !in_check(1u - cur_side);
}

// The slot and the mirror slot (x, y) less the digit of the group of piece `moved`: a
// move of that piece adds the group's new rank back. Computed once per piece, not per move.
fn digit_partial(moved: u32) -> vec2<u32> {
    let group = this_group(piece_group(moved));
    var ranks = vec2<u32>(group_rank(0u, group, false), 0u);
    if cur_centre {
        ranks.y = group_rank(0u, group, true);
    }
    return vec2<u32>(cur_slot, cur_mirror) - ranks * group.stride;
}

// The slot of the board as it stands, after a move of piece `moved` from the decoded
// state (`partial`: its `digit_partial`), and whether the mirror produced it. Unless the red king
// moved, only the moved piece's digit changes, in the slot and (red king on the centre file) in
// the mirror slot.
fn child_after(moved: u32, partial: vec2<u32>) -> vec2<u32> {
    if moved == 0u {
        return canonical_slot(0u);
    }
    let group = this_group(piece_group(moved));
    let slot = partial.x + group_rank(0u, group, false) * group.stride;
    var mirrored = slot;
    if cur_centre {
        mirrored = partial.y + group_rank(0u, group, true) * group.stride;
    }
    if mirrored < slot {
        return vec2<u32>(mirrored, 1u);
    }
    return vec2<u32>(slot, 0u);
}

// Pushes the state (`base`: its side's first state) of the decoded board with piece `moved` on
// `square` instead (`partial`: its `digit_partial`).
fn push_moved(out: ptr<function, Successors>, moved: u32, square: u32, base: u32, partial: vec2<u32>) {
    let now = square_of(moved);
    set_square(moved, square);
    let child = child_after(moved, partial);
    set_square(moved, now);
    if child.y == 0u {
        succ_push_plain(out, base + child.x);
    } else {
        succ_push_mapped(out, base + child.x);
    }
}

// The entry, for the side then to move, of the position after capturing `victim`.
fn exit_entry(victim: u32, next: u32) -> u32 {
    let exit = MAT_EXITS + victim * EXIT_WORDS;
    let ix = 1u + victim;
    let side = select(next, 1u - next, xq_material[exit + EXIT_FLIP] != 0u);
    let at = side * ix_word(ix, IX_PER_SIDE) + canonical_slot(ix).x;
    return (xq_exit_entries[xq_material[exit + EXIT_OFFSET] + (at >> 1u)] >> (16u * (at & 1u))) & 0xFFFFu;
}

// Plays `piece` to `to` if its king stays safe, recording the child or the exit;
// returns 1 for a legal move. Only a capture or a move that may expose the king is made on the
// board; a quiet move's child follows from its new square.
fn try_move(
    out: ptr<function, Successors>,
    piece: u32,
    to: u32,
    node: ptr<function, Node>,
    partial: vec2<u32>,
) -> u32 {
    let side = side_of(piece);
    let origin = square_of(piece);
    let king_piece = side_start(side);
    let quiet = king_safe && piece != king_piece && !sensitive(origin) && !sensitive(to);
    var legal = quiet;
    var captures = false;
    if !quiet || bb_has(side_occ(1u - side), to) {
        let victim = make(piece, to);
        legal = quiet || !in_check(side);
        captures = victim != NONE;
        if legal && captures {
            node_add_exit(node, exit_entry(victim, 1u - side));
        }
        unmake(piece, origin, victim);
    }
    if legal && !captures {
        push_moved(out, piece, to, (1u - side) * PER_SIDE, partial);
    }
    return select(0u, 1u, legal);
}

// Where `piece` may move, ignoring checks to its own king: empty points and enemy
// pieces (moves.rs `targets`).
fn targets(piece: u32) -> vec3<u32> {
    let side = side_of(piece);
    let origin = square_of(piece);
    let kind = piece_kind(piece);
    let own = side_occ(side);
    var found = vec3<u32>(0u);
    if kind == ROOK || kind == CANNON {
        for (var d = 0u; d < DIRECTIONS; d += 1u) {
            let ray = GEO_RAYS + (origin * DIRECTIONS + d) * RAY_WIDTH;
            var screened = false;
            for (var i = 0u; i < RAY_WIDTH; i += 1u) {
                let to = xq_geo[ray + i];
                if to == NONE {
                    break;
                }
                if is_empty(to) {
                    if !screened {
                        found |= bb_bit(to);
                    }
                    continue;
                }
                if kind == ROOK || screened {
                    found |= bb_bit(to) & ~own;
                    break;
                }
                screened = true;
            }
        }
    } else {
        found = unblocked_leaps(leap_base(GEO_LEAP_TO, side, kind, origin)) & ~own;
    }
    return found;
}

// The squares of one leap list (from `base`, NONE-terminated, each entry a square and the point
// that blocks the leap, or NONE) whose blocking point is empty.
fn unblocked_leaps(base: u32) -> vec3<u32> {
    var found = vec3<u32>(0u);
    for (var i = 0u; i < LEAP_WIDTH; i += 1u) {
        let entry = xq_geo[base + i];
        let square = entry & 0xFFu;
        if square == NONE {
            break;
        }
        let block = entry >> 8u;
        if block == NONE || is_empty(block) {
            found |= bb_bit(square);
        }
    }
    return found;
}

// Where `piece` may have come from by a move that captured nothing: empty points
// from which it reaches its square (moves.rs `sources`).
fn sources(piece: u32) -> vec3<u32> {
    let side = side_of(piece);
    let to = square_of(piece);
    let kind = piece_kind(piece);
    var found = vec3<u32>(0u);
    if kind == ROOK || kind == CANNON {
        for (var d = 0u; d < DIRECTIONS; d += 1u) {
            let ray = GEO_RAYS + (to * DIRECTIONS + d) * RAY_WIDTH;
            for (var i = 0u; i < RAY_WIDTH; i += 1u) {
                let origin = xq_geo[ray + i];
                if origin == NONE || !is_empty(origin) {
                    break;
                }
                found |= bb_bit(origin);
            }
        }
    } else {
        found = unblocked_leaps(leap_base(GEO_LEAP_FROM, side, kind, to)) & ~occupied();
    }
    return found;
}

// Removes and returns the lowest square of a non-empty bitboard.
fn bb_pop(b: ptr<function, vec3<u32>>) -> u32 {
    let bits = *b;
    let word = select(select(2u, 1u, bits.y != 0u), 0u, bits.x != 0u);
    let low = select(select(bits.z, bits.y, word == 1u), bits.x, word == 0u);
    *b = bits & ~(vec3<u32>(low & (0u - low)) * vec3<u32>(vec3<u32>(word) == vec3<u32>(0u, 1u, 2u)));
    return 32u * word + firstTrailingBit(low);
}

fn bb_empty(b: vec3<u32>) -> bool {
    return all(b == vec3<u32>(0u));
}

// Moves as in moves::for_each_legal_move. Each piece's targets are gathered first, so that one
// loop of `try_move` serves every kind (on SIMD-per-thread drivers, every branch of an `if` runs
// for the whole batch of states, masked).
fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    if !decode(state) {
        return node_broken();
    }
    let side = cur_side;
    watch_king(side);
    var node = node_inner();
    var moves = 0u;
    let base = (1u - side) * PER_SIDE;
    let king_piece = side_start(side);
    for (var piece = 0u; piece < PIECES; piece += 1u) {
        if side_of(piece) != side {
            continue;
        }
        let all = targets(piece);
        let partial = digit_partial(piece);
        // Moves of a piece other than the king that capture nothing and neither leave nor fill
        // a square that can decide an attack on a safe king: legal, and never the red king's.
        var quiet = vec3<u32>(0u);
        if king_safe && piece != king_piece && !sensitive(square_of(piece)) {
            quiet = all & ~side_occ(1u - side) & ~king_sensitive;
        }
        moves += countOneBits(quiet.x) + countOneBits(quiet.y) + countOneBits(quiet.z);
        var left = quiet;
        while !bb_empty(left) {
            push_moved(out, piece, bb_pop(&left), base, partial);
        }
        left = all & ~quiet;
        while !bb_empty(left) {
            moves += try_move(out, piece, bb_pop(&left), &node, partial);
        }
    }
    if moves > 0u {
        return node;
    }
    return node_terminal(LOST);
}

// Takes `piece` back to the empty `origin` and pushes that parent if it is legal.
// Unless the move could open a line to the king, only the moved piece's own attack matters (and
// advisors and elephants, past the side's attackers, never attack).
fn try_unmove(out: ptr<function, Successors>, piece: u32, origin: u32, base: u32, partial: vec2<u32>) {
    let to = square_of(piece);
    let side = side_of(piece);
    let king = square_of(side_start(cur_side));
    let quiet = king_safe && !sensitive(to) && !sensitive(origin);
    var safe: bool;
    if quiet {
        let occ = occupied() ^ bb_bit(to) ^ bb_bit(origin);
        safe = piece >= attackers_end(side) || !attacks(piece_kind(piece), side, origin, king, occ);
    } else {
        make(piece, origin);
        safe = !in_check(cur_side);
        unmake(piece, to, NONE);
    }
    if safe {
        push_moved(out, piece, origin, base, partial);
    }
}

fn game_parents(state: u32, out: ptr<function, Successors>) {
    if !decode(state) {
        return;
    }
    let side = 1u - cur_side;
    let base = side * PER_SIDE;
    watch_king(cur_side);
    for (var piece = 0u; piece < PIECES; piece += 1u) {
        if side_of(piece) != side {
            continue;
        }
        let partial = digit_partial(piece);
        var left = sources(piece);
        while !bb_empty(left) {
            try_unmove(out, piece, bb_pop(&left), base, partial);
        }
    }
}
