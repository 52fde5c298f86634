// Xiangqi under the Asian rules on the GPU: the twin of src/games/xiangqi/asian.rs. What a move
// is (a check, the chases it creates), and the three steps per state of the rule passes in
// shaders/solver/rounds.wgsl.
//
// Joined after xiangqi.wgsl (whose prelude adds SIDE_PIECES and MARK_CHECK) and rounds.wgsl.
// The marks of a state, whose side to move is X and X's opponent Y: MARK_CHECK while X may be
// checking perpetually, and bit j while X may be chasing Y's piece j perpetually. The
// answers of a state, whose side to move is Y answering a move of X: MARK_CHECK when Y has a
// drawing answer that does not check into a position marked for check, and bit j (Y's piece j as
// this state numbers it) when Y has a quiet drawing answer (no check, no chase) into a position
// marked for chasing that piece (under its number there, `piece_in_child`). A drawing move: a
// legal move into an in-table position that is still a draw.

// Per piece of a side (from its first piece): the squares of enemy pieces, kings excepted, that the
// piece could legally capture (asian.rs `attacks`), or that it reaches legal or not (asian.rs
// `reach`). Kings and pawns never chase.
struct Attacks {
    by: array<vec3<u32>, SIDE_PIECES>,
}

// What a move is: a check, and the squares of the enemy pieces it chases.
struct Threats {
    check: bool,
    chases: vec3<u32>,
}

fn side_end(side: u32) -> u32 {
    return select(BLACK_START, PIECES, side == 1u);
}

// Whether moving `piece` to `to` leaves its own king safe.
fn legal_move(piece: u32, to: u32) -> bool {
    let origin = square_of(piece);
    let victim = make(piece, to);
    let safe = !in_check(side_of(piece));
    unmake(piece, origin, victim);
    return safe;
}

// Whether `piece` can legally capture what stands on `square`.
fn can_capture(piece: u32, square: u32) -> bool {
    return square_of(piece) != NONE && bb_has(targets(piece), square) && legal_move(piece, square);
}

fn reaches_of(side: u32, legal_only: bool) -> Attacks {
    var out: Attacks;
    let start = side_start(side);
    let prey = side_occ(1u - side) & ~bb_bit(square_of(side_start(1u - side)));
    for (var k = 0u; k < SIDE_PIECES; k += 1u) {
        let piece = start + k;
        let kind = piece_kind(piece);
        if piece >= side_end(side) || square_of(piece) == NONE || kind == KING || kind == PAWN {
            continue;
        }
        var left = targets(piece) & prey;
        while !bb_empty(left) {
            let to = bb_pop(&left);
            if !legal_only || legal_move(piece, to) {
                out.by[k] |= bb_bit(to);
            }
        }
    }
    return out;
}

fn attacks_of(side: u32) -> Attacks {
    return reaches_of(side, true);
}

fn reach_of(side: u32) -> Attacks {
    return reaches_of(side, false);
}

// Whether a pawn of `side` on `square` has crossed the river.
fn crossed(side: u32, square: u32) -> bool {
    return select(square / FILES <= 4u, square / FILES >= 5u, side == 0u);
}

// Whether the attack of `attacker` on the enemy piece on `square` counts as a chase
// (asian.rs `counts`).
fn chase_counts(attacker: u32, square: u32) -> bool {
    let enemy = 1u - side_of(attacker);
    var prey = NONE;
    for (var s = side_start(enemy); s < side_end(enemy); s += 1u) {
        if square_of(s) == square {
            prey = s;
        }
    }
    let by = piece_kind(attacker);
    let kind = piece_kind(prey);
    if kind == ROOK && (by == HORSE || by == CANNON) {
        return true;
    }
    if kind == PAWN && !crossed(enemy, square) {
        return false;
    }
    let origin = square_of(attacker);
    if by == kind && can_capture(prey, origin) {
        return false;
    }
    let victim = make(attacker, square);
    var guarded = false;
    for (var s = side_start(enemy); s < side_end(enemy); s += 1u) {
        guarded = guarded || can_capture(s, square);
    }
    unmake(attacker, origin, victim);
    return !guarded;
}

// What the move just made on the board by `mover` is, given what `mover` reached before it
// (asian.rs `threats`).
fn move_threats(mover: u32, before: Attacks) -> Threats {
    let check = in_check(1u - mover);
    let now = attacks_of(mover);
    let start = side_start(mover);
    var chases = vec3<u32>(0u);
    for (var k = 0u; k < SIDE_PIECES; k += 1u) {
        var left = now.by[k] & ~before.by[k] & ~chases;
        while !bb_empty(left) {
            let square = bb_pop(&left);
            if chase_counts(start + k, square) {
                chases |= bb_bit(square);
            }
        }
    }
    return Threats(check, chases);
}

// The bits of the pieces of `side` (kings excepted) that stand on `squares`.
fn pieces_on(squares: vec3<u32>, side: u32) -> u32 {
    var bits = 0u;
    for (var s = side_start(side) + 1u; s < side_end(side); s += 1u) {
        if bb_has(squares, square_of(s)) {
            bits |= 1u << s;
        }
    }
    return bits;
}

// The number that piece `j` of the board as it stands takes in the canonical position (the
// mirror image when `mirrored`): the two pieces of a pair take their numbers in the order of their
// points.
fn piece_in_child(j: u32, mirrored: bool) -> u32 {
    let group = this_group(piece_group(j));
    if group.count == 1u {
        return j;
    }
    let other = select(group.first, group.first + 1u, j == group.first);
    let table = select(group.points, group.mirrored, mirrored);
    let own = xq_geo[table + square_of(j)];
    let theirs = xq_geo[table + square_of(other)];
    return select(group.first + 1u, group.first, own < theirs);
}

// The marks a live state starts with: none when a capture into a drawn smaller ending escapes
// or no move draws; MARK_CHECK when every drawing move checks; when none checks, the pieces that
// every drawing move chases.
fn game_rule_candidates(state: u32) -> u32 {
    if !decode(state) {
        return 0u;
    }
    let mover = cur_side;
    let base = (1u - mover) * PER_SIDE;
    let before = reach_of(mover);
    var escapes = false;
    var drawing = false;
    var every_check = true;
    var no_check = true;
    var chased = vec3<u32>(0xFFFFFFFFu);
    for (var piece = side_start(mover); piece < side_end(mover); piece += 1u) {
        let origin = square_of(piece);
        let partial = digit_partial(piece);
        var left = targets(piece);
        while !bb_empty(left) {
            let victim = make(piece, bb_pop(&left));
            if !in_check(mover) {
                let child = base + child_after(piece, partial).x;
                if victim != NONE {
                    escapes = escapes || exit_entry(victim, 1u - mover) == DRAW;
                } else if rule_live(child) {
                    rule_want(child);
                    drawing = true;
                    let threats = move_threats(mover, before);
                    every_check = every_check && threats.check;
                    no_check = no_check && !threats.check;
                    chased &= threats.chases;
                }
            }
            unmake(piece, origin, victim);
        }
    }
    if escapes || !drawing {
        return 0u;
    }
    var found = select(0u, MARK_CHECK, every_check);
    if no_check {
        found |= pieces_on(chased, 1u - mover);
    }
    return found;
}

// The answers of a live state (see the header), from the marks of the positions its drawing
// moves reach.
fn game_rule_answers(state: u32) -> u32 {
    if !decode(state) {
        return 0u;
    }
    let mover = cur_side;
    let base = (1u - mover) * PER_SIDE;
    let before = reach_of(mover);
    var found = 0u;
    for (var piece = side_start(mover); piece < side_end(mover); piece += 1u) {
        let origin = square_of(piece);
        let partial = digit_partial(piece);
        var left = targets(piece) & ~side_occ(1u - mover);
        while !bb_empty(left) {
            make(piece, bb_pop(&left));
            if !in_check(mover) {
                let child = child_after(piece, partial);
                let held = select(0u, rule_marks(base + child.x), rule_live(base + child.x));
                if held != 0u && !in_check(1u - mover) {
                    if (held & MARK_CHECK) != 0u {
                        found |= MARK_CHECK;
                    }
                    if (held & ~MARK_CHECK) != 0u && bb_empty(move_threats(mover, before).chases) {
                        for (var j = side_start(mover) + 1u; j < side_end(mover); j += 1u) {
                            if ((held >> piece_in_child(j, child.y != 0u)) & 1u) != 0u {
                                found |= 1u << j;
                            }
                        }
                    }
                }
            }
            unmake(piece, origin, NONE);
        }
    }
    return found;
}

// The marks a marked live state keeps: each only while every drawing move reaches a position
// whose answers keep it (for a chase, the answers about the same piece).
fn game_rule_keep(state: u32, marks: u32) -> u32 {
    if !decode(state) {
        return 0u;
    }
    let mover = cur_side;
    let base = (1u - mover) * PER_SIDE;
    var kept = marks;
    for (var piece = side_start(mover); piece < side_end(mover); piece += 1u) {
        let origin = square_of(piece);
        let partial = digit_partial(piece);
        var left = targets(piece) & ~side_occ(1u - mover);
        while !bb_empty(left) {
            make(piece, bb_pop(&left));
            if !in_check(mover) {
                let child = child_after(piece, partial);
                if rule_live(base + child.x) {
                    rule_want(base + child.x);
                    let supported = rule_answers(base + child.x);
                    kept &= supported | ~MARK_CHECK;
                    for (var j = side_start(1u - mover) + 1u; j < side_end(1u - mover); j += 1u) {
                        if ((supported >> piece_in_child(j, child.y != 0u)) & 1u) == 0u {
                            kept &= ~(1u << j);
                        }
                    }
                }
            }
            unmake(piece, origin, NONE);
        }
    }
    return kept;
}
