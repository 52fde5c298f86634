// Chinese dark chess rules for the GPU solver: the twin of src/games/darkchess (index.rs,
// moves.rs, space.rs).
//
// Joined after a prelude that src/games/darkchess/gpu.rs generates: the rule options
// (CANNON_JUMPS, NO_MOVE_ENTRY), the layout constants of the data buffers below (GEO_*, SET_*,
// IX_*, EXIT_*), SQUARES, CANNON, GROUPS, GAME_MAX_SUCCESSORS and this table's descriptor:
// THIS_PER_SIDE, THIS_FIRST_SINGLE and per group THIS_SIDE, THIS_KIND, THIS_COUNT, THIS_RADIX,
// THIS_STRIDE and THIS_PREY (the groups it captures by stepping, a bit each) and the directory
// of dark_sets (SET_DIRECTORY). Every table comes from Rust:
//   dark_geo:          board::GEOMETRY (steps, rays) and games::binomial::BINOMIAL
//   dark_sets:         index::SquareSets of each group size used (colex unranking, anchor
//                      canonicalisation, representatives, stabilizers)
//   dark_material:     per group the index descriptor of the smaller table capturing one of its
//                      pieces leads to, and the capture exits
//   dark_exit_entries: the smaller tables' entries, two per word
// A position is the square masks of its groups, in index order; no smaller table has more groups
// than this one's GROUPS, which keeps the per-thread arrays small.
//
// Speed on SIMD-per-thread drivers (llvmpipe), as in chess.wgsl: loops over the groups run to
// the constant GROUPS with no early exit, so the compiler unrolls them, every group's descriptor
// is a constant and the masks are indexed by constants only (an array indexed at run time lives
// in memory, a gather or scatter per access). Captures and steps are one loop over the pieces
// each, not one per group: a single copy of exit_entry and canonical_slot, whose iterations the
// lanes share whichever groups move.

alias Masks = array<u32, GROUPS>;

// The descriptor `ix` of the accessors below that stands for this table; 0 to GROUPS - 1 are
// the smaller tables that capturing a piece of that group leads to.
const THIS: u32 = GROUPS;

fn steps_of(sq: u32) -> u32 {
    return dark_geo[GEO_STEPS + sq];
}

fn ray(d: u32, sq: u32) -> u32 {
    return dark_geo[GEO_RAYS + d * SQUARES + sq];
}

// The image of a square under symmetry `g` (board::Geometry::symmetry): bit 0 of `g` mirrors
// the file (square = rank * 8 + file), bit 1 the rank.
fn symmetry(g: u32, sq: u32) -> u32 {
    return sq ^ (select(0u, 7u, (g & 1u) != 0u) | select(0u, 24u, (g & 2u) != 0u));
}

fn binomial(n: u32, k: u32) -> u32 {
    return dark_geo[GEO_BINOMIAL + k * (SQUARES + 1u) + n];
}

// Colex rank of a non-empty mask among the masks with as many squares; its lowest square adds
// C(square, 1), the square itself.
fn colex(mask: u32) -> u32 {
    var rank = firstTrailingBit(mask);
    var m = mask & (mask - 1u);
    var i = 2u;
    while m != 0u {
        rank += binomial(firstTrailingBit(m), i);
        m &= m - 1u;
        i += 1u;
    }
    return rank;
}

// The image of a mask under symmetry `g`, a rank a byte: mirroring the ranks swaps the bytes;
// mirroring the files then is reversing the bits of the bytes swapped back.
fn transform(mask: u32, g: u32) -> u32 {
    let ranks = (mask >> 24u) | ((mask >> 8u) & 0xFF00u) | ((mask << 8u) & 0xFF0000u) | (mask << 24u);
    let image = select(mask, ranks, (g & 2u) != 0u);
    let swapped = select(ranks, mask, (g & 2u) != 0u);
    return select(image, reverseBits(swapped), (g & 1u) != 0u);
}

// Entry `at` of one of the square-set tables of group size `k`, a constant: the directory is
// SET_DIRECTORY.
fn set_word(k: u32, table: u32, at: u32) -> u32 {
    return dark_sets[SET_DIRECTORY[(k - 1u) * SET_TABLES + table] + at];
}

// Entry `at` of one of the square-set tables of the anchor of index `ix`; the directory of a
// smaller table's size is read from dark_sets.
fn anchor_set_word(ix: u32, table: u32, at: u32) -> u32 {
    if ix == THIS {
        return set_word(THIS_COUNT[0], table, at);
    }
    return dark_sets[dark_sets[(ix_count(ix, 0u) - 1u) * SET_TABLES + table] + at];
}

// Field of the descriptor of the smaller table capturing a piece of group `victim` leads to.
fn ix_word(victim: u32, field: u32) -> u32 {
    return dark_material[IX_BASE + victim * IX_WORDS + field];
}

fn ix_groups(ix: u32) -> u32 {
    if ix == THIS {
        return GROUPS;
    }
    return ix_word(ix, IX_GROUPS);
}

fn ix_count(ix: u32, j: u32) -> u32 {
    if ix == THIS {
        return THIS_COUNT[j];
    }
    return ix_word(ix, IX_COUNT + j);
}

fn ix_stride(ix: u32, j: u32) -> u32 {
    if ix == THIS {
        return THIS_STRIDE[j];
    }
    return ix_word(ix, IX_STRIDE + j);
}

// The slot of the image under symmetry `g` of group masks of index `ix`, the image's anchor
// being the representative `rep`.
fn slot_of_image(ix: u32, rep: u32, gm: Masks, g: u32) -> u32 {
    let groups = ix_groups(ix);
    var slot = rep * ix_stride(ix, 0u);
    for (var j = 1u; j < GROUPS; j += 1u) {
        if j < groups {
            var digit: u32;
            if ix_count(ix, j) == 1u {
                digit = symmetry(g, firstTrailingBit(gm[j]));
            } else {
                digit = colex(transform(gm[j], g));
            }
            slot += digit * ix_stride(ix, j);
        }
    }
    return slot;
}

// The canonical slot of group masks of index `ix`, and the symmetry that made it canonical.
fn canonical_slot(ix: u32, gm: Masks) -> vec2<u32> {
    let entry = anchor_set_word(ix, SET_CANON, colex(gm[0]));
    let rep = entry >> 2u;
    let g = entry & 3u;
    var best = vec2<u32>(slot_of_image(ix, rep, gm, g), g);
    var stabilizer = anchor_set_word(ix, SET_STABILIZER, rep);
    while stabilizer != 0u {
        let h = firstTrailingBit(stabilizer);
        stabilizer &= stabilizer - 1u;
        let slot = slot_of_image(ix, rep, gm, g ^ h);
        if slot < best.x {
            best = vec2<u32>(slot, g ^ h);
        }
    }
    return best;
}

struct Decoded {
    gm: Masks,
    side: u32,
    slot: u32,
    legal: bool,
}

// The group masks of a state of this table; not legal when pieces overlap or a symmetric image
// has a smaller slot.
fn decode(state: u32) -> Decoded {
    var d: Decoded;
    d.side = select(0u, 1u, state >= THIS_PER_SIDE);
    d.slot = state - d.side * THIS_PER_SIDE;
    d.legal = false;
    var rest = d.slot;
    var occupied = 0u;
    var overlap = false;
    for (var i = 1u; i < GROUPS; i += 1u) {
        let j = GROUPS - i;
        var mask: u32;
        if j >= THIS_FIRST_SINGLE {
            mask = 1u << (rest & 31u);
            rest >>= 5u;
        } else {
            mask = set_word(THIS_COUNT[j], SET_BY_COLEX, rest % THIS_RADIX[j]);
            rest /= THIS_RADIX[j];
        }
        overlap = overlap || (occupied & mask) != 0u;
        occupied |= mask;
        d.gm[j] = mask;
    }
    if overlap {
        return d;
    }
    let k = THIS_COUNT[0];
    d.gm[0] = set_word(k, SET_REPS, rest);
    if (occupied & d.gm[0]) != 0u {
        return d;
    }
    var stabilizer = set_word(k, SET_STABILIZER, rest);
    while stabilizer != 0u {
        let h = firstTrailingBit(stabilizer);
        stabilizer &= stabilizer - 1u;
        if slot_of_image(THIS, rest, d.gm, h) < d.slot {
            return d;
        }
    }
    d.legal = true;
    return d;
}

// The occupied squares, and those of side `side`.
fn occupancy(gm: Masks, side: u32) -> vec2<u32> {
    var squares = vec2<u32>(0u);
    for (var j = 0u; j < GROUPS; j += 1u) {
        squares.x |= gm[j];
        if THIS_SIDE[j] == side {
            squares.y |= gm[j];
        }
    }
    return squares;
}

// Pushes the states reached when `mover` steps one piece, with `next` to move; says whether
// there was any. As on the CPU, a step that leaves a plain anchor in place changes one digit.
// One loop over the mover's pieces: a single copy of the code of each kind of step.
fn push_steps(out: ptr<function, Successors>, gm: Masks, slot: u32, mover: u32, next: u32) -> bool {
    let base = next * THIS_PER_SIDE;
    let anchor_count = THIS_COUNT[0];
    let anchor_rep = slot / THIS_STRIDE[0];
    let symmetric = anchor_count > 1u && set_word(anchor_count, SET_STABILIZER, anchor_rep) != 0u;
    let squares = occupancy(gm, mover);
    let empty = ~squares.x;
    var stepped = false;
    var pieces = squares.y;
    while pieces != 0u {
        let origin = firstTrailingBit(pieces);
        pieces &= pieces - 1u;
        let j = group_on(gm, origin);
        var stride = 0u;
        var count = 0u;
        var group = 0u;
        for (var g = 0u; g < GROUPS; g += 1u) {
            stride = select(stride, THIS_STRIDE[g], g == j);
            count = select(count, THIS_COUNT[g], g == j);
            group = select(group, gm[g], g == j);
        }
        var targets = steps_of(origin) & empty;
        stepped = stepped || targets != 0u;
        // Outside a symmetric anchor, a piece of a group after the anchor changes its digit only.
        let digit_only = j > 0u && !symmetric;
        let others = group ^ (1u << origin);
        var cleared = base + slot;
        if digit_only && count == 1u {
            cleared -= origin * stride;
        } else if digit_only {
            cleared -= colex(group) * stride;
        }
        while targets != 0u {
            let to = firstTrailingBit(targets);
            targets &= targets - 1u;
            if digit_only && count == 1u {
                succ_push_plain(out, cleared + to * stride);
            } else if digit_only {
                succ_push_plain(out, cleared + colex(others | (1u << to)) * stride);
            } else {
                // A single anchor stepping onto a representative square keeps the position
                // canonical as it stands.
                var after = 1u;
                if !symmetric && count == 1u {
                    after = set_word(1u, SET_CANON, to);
                }
                if (after & 3u) == 0u {
                    let before = set_word(1u, SET_CANON, origin);
                    succ_push_plain(out, base + slot + (after >> 2u) * stride - (before >> 2u) * stride);
                } else {
                    var child: Masks;
                    for (var a = 0u; a < GROUPS; a += 1u) {
                        child[a] = gm[a] ^ select(0u, (1u << origin) | (1u << to), a == j);
                    }
                    let c = canonical_slot(THIS, child);
                    if c.y == 0u {
                        succ_push_plain(out, base + c.x);
                    } else {
                        succ_push_mapped(out, base + c.x);
                    }
                }
            }
        }
    }
    return stepped;
}

// The entry, for the side then to move, of the position after the piece of group `attacker`
// on `origin` takes the piece of group `victim` on `to`.
fn exit_entry(gm: Masks, side: u32, attacker: u32, origin: u32, to: u32, victim: u32) -> u32 {
    let exit = EXIT_BASE + victim * EXIT_WORDS;
    if dark_material[exit + EXIT_LOST] != 0u {
        return LOST;
    }
    // Only the victim's group holds `to`, and the attacker's group gains it.
    var after: Masks;
    for (var a = 0u; a < GROUPS; a += 1u) {
        after[a] = gm[a] & ~(1u << to);
        if a == attacker {
            after[a] ^= (1u << origin) | (1u << to);
        }
    }
    let groups = ix_word(victim, IX_GROUPS);
    var smaller: Masks;
    for (var i = 0u; i < GROUPS; i += 1u) {
        var mask = 0u;
        if i < groups {
            let source = dark_material[exit + EXIT_SOURCE + i];
            for (var a = 0u; a < GROUPS; a += 1u) {
                mask = select(mask, after[a], source == a);
            }
        }
        smaller[i] = mask;
    }
    let next = (1u - side) ^ dark_material[exit + EXIT_SWAP];
    let at = next * ix_word(victim, IX_PER_SIDE) + canonical_slot(victim, smaller).x;
    return (dark_exit_entries[dark_material[exit + EXIT_OFFSET] + (at >> 1u)] >> (16u * (at & 1u))) & 0xFFFFu;
}

// The group with a piece on the occupied square `sq`.
fn group_on(gm: Masks, sq: u32) -> u32 {
    var group = 0u;
    for (var v = 0u; v < GROUPS; v += 1u) {
        group = select(group, v, ((gm[v] >> sq) & 1u) == 1u);
    }
    return group;
}

// The square a cannon jump along direction `d` lands on, given the occupied squares of its ray
// (at least two): the nearest piece is the screen, the next one the target. Rays 0 and 1 run
// towards higher squares, 2 and 3 towards lower ones (board::Geometry::rays).
fn jump_target(ray_occupied: u32, d: u32) -> u32 {
    if d < 2u {
        let beyond = ray_occupied & (ray_occupied - 1u);
        return firstTrailingBit(beyond);
    }
    let beyond = ray_occupied ^ (1u << firstLeadingBit(ray_occupied));
    return firstLeadingBit(beyond);
}

fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    let d = decode(state);
    if !d.legal {
        return node_broken();
    }
    let gm = d.gm;
    let side = d.side;
    let enemy = 1u - side;
    let squares = occupancy(gm, enemy);
    let occupied = squares.x;
    let enemy_all = squares.y;
    var node = node_inner();
    var captured = false;
    // One loop over the pieces of the side to move and one call of exit_entry for every capture:
    // a single copy of its code, whose iterations lanes share whatever groups capture.
    var pieces = occupied & ~enemy_all;
    while pieces != 0u {
        let origin = firstTrailingBit(pieces);
        pieces &= pieces - 1u;
        let j = group_on(gm, origin);
        var prey = 0u;
        var jumps = false;
        for (var g = 0u; g < GROUPS; g += 1u) {
            var prey_of_g = 0u;
            for (var v = 0u; v < GROUPS; v += 1u) {
                if ((THIS_PREY[g] >> v) & 1u) == 1u {
                    prey_of_g |= gm[v];
                }
            }
            prey = select(prey, prey_of_g, g == j);
            jumps = jumps || (g == j && CANNON_JUMPS != 0u && THIS_KIND[g] == CANNON);
        }
        var targets = steps_of(origin) & prey;
        if jumps {
            for (var dir = 0u; dir < 4u; dir += 1u) {
                let on_ray = ray(dir, origin) & occupied;
                if countOneBits(on_ray) >= 2u {
                    targets |= (1u << jump_target(on_ray, dir)) & enemy_all;
                }
            }
        }
        captured = captured || targets != 0u;
        while targets != 0u {
            let to = firstTrailingBit(targets);
            targets &= targets - 1u;
            node_add_exit(&node, exit_entry(gm, side, j, origin, to, group_on(gm, to)));
        }
    }
    let stepped = push_steps(out, gm, d.slot, side, enemy);
    if !captured && !stepped {
        return node_terminal(NO_MOVE_ENTRY);
    }
    return node;
}

// Captures are never un-made and every step is undone by a step back to an empty square.
fn game_parents(state: u32, out: ptr<function, Successors>) {
    let d = decode(state);
    if !d.legal {
        return;
    }
    let previous = 1u - d.side;
    _ = push_steps(out, d.gm, d.slot, previous, previous);
}
