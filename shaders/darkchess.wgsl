// Chinese dark chess rules for the GPU solver: the twin of src/games/darkchess (index.rs,
// moves.rs, space.rs).
//
// Joined after a prelude that src/games/darkchess/gpu.rs generates: the rule options
// (CANNON_JUMPS, NO_MOVE_ENTRY), the layout constants of the data buffers below (GEO_*, SET_*,
// RULE_*, IX_*, EXIT_*), SQUARES, CANNON, GROUPS and GAME_MAX_SUCCESSORS. Every table comes
// from Rust:
//   dark_geo:          board::GEOMETRY (steps, rays, symmetry maps, binomials)
//   dark_sets:         index::SquareSets of each group size used (colex unranking, anchor
//                      canonicalisation, representatives, stabilizers)
//   dark_material:     who captures whom by stepping, the index descriptors (this table, then
//                      per group the smaller table capturing one of its pieces leads to) and the
//                      capture exits
//   dark_exit_entries: the smaller tables' entries, two per word
// A position is the square masks of its groups, in index order; no smaller table has more groups
// than this one's GROUPS, which keeps the per-thread arrays small.

alias Masks = array<u32, GROUPS>;

fn steps_of(sq: u32) -> u32 {
    return dark_geo[GEO_STEPS + sq];
}

fn ray(d: u32, sq: u32) -> u32 {
    return dark_geo[GEO_RAYS + d * SQUARES + sq];
}

fn symmetry(g: u32, sq: u32) -> u32 {
    return dark_geo[GEO_SYMMETRY + g * SQUARES + sq];
}

fn binomial(n: u32, k: u32) -> u32 {
    return dark_geo[GEO_BINOMIAL + k * (SQUARES + 1u) + n];
}

// Colex rank of a mask among the masks with as many squares.
fn colex(mask: u32) -> u32 {
    var rank = 0u;
    var m = mask;
    var i = 1u;
    while m != 0u {
        rank += binomial(firstTrailingBit(m), i);
        m &= m - 1u;
        i += 1u;
    }
    return rank;
}

// The image of a mask under symmetry `g`.
fn transform(mask: u32, g: u32) -> u32 {
    if g == 0u {
        return mask;
    }
    var image = 0u;
    var m = mask;
    while m != 0u {
        image |= 1u << symmetry(g, firstTrailingBit(m));
        m &= m - 1u;
    }
    return image;
}

// Entry `at` of one of the square-set tables of group size `k`.
fn set_word(k: u32, table: u32, at: u32) -> u32 {
    return dark_sets[dark_sets[(k - 1u) * SET_TABLES + table] + at];
}

// Field of descriptor `ix` (0: this table, 1 + group: the table capturing it leads to).
fn ix_word(ix: u32, field: u32) -> u32 {
    return dark_material[IX_BASE + ix * IX_WORDS + field];
}

// The slot of the image under symmetry `g` of group masks of index `ix`, the image's anchor
// being the representative `rep`.
fn slot_of_image(ix: u32, rep: u32, gm: Masks, g: u32) -> u32 {
    let groups = ix_word(ix, IX_GROUPS);
    var slot = rep * ix_word(ix, IX_STRIDE);
    for (var j = 1u; j < groups; j += 1u) {
        var digit: u32;
        if ix_word(ix, IX_COUNT + j) == 1u {
            digit = symmetry(g, firstTrailingBit(gm[j]));
        } else {
            digit = colex(transform(gm[j], g));
        }
        slot += digit * ix_word(ix, IX_STRIDE + j);
    }
    return slot;
}

// The canonical slot of group masks of index `ix`, and the symmetry that made it canonical.
fn canonical_slot(ix: u32, gm: Masks) -> vec2<u32> {
    let k = ix_word(ix, IX_COUNT);
    let entry = set_word(k, SET_CANON, colex(gm[0]));
    let rep = entry >> 2u;
    let g = entry & 3u;
    var best = vec2<u32>(slot_of_image(ix, rep, gm, g), g);
    var stabilizer = set_word(k, SET_STABILIZER, rep);
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
    let per_side = ix_word(0u, IX_PER_SIDE);
    var d: Decoded;
    d.side = select(0u, 1u, state >= per_side);
    d.slot = state - d.side * per_side;
    d.legal = false;
    let first_single = ix_word(0u, IX_FIRST_SINGLE);
    var rest = d.slot;
    var occupied = 0u;
    for (var j = GROUPS - 1u; j > 0u; j -= 1u) {
        var mask: u32;
        if j >= first_single {
            mask = 1u << (rest & 31u);
            rest >>= 5u;
        } else {
            let radix = ix_word(0u, IX_RADIX + j);
            mask = set_word(ix_word(0u, IX_COUNT + j), SET_BY_COLEX, rest % radix);
            rest /= radix;
        }
        if (occupied & mask) != 0u {
            return d;
        }
        occupied |= mask;
        d.gm[j] = mask;
    }
    let k = ix_word(0u, IX_COUNT);
    d.gm[0] = set_word(k, SET_REPS, rest);
    if (occupied & d.gm[0]) != 0u {
        return d;
    }
    var stabilizer = set_word(k, SET_STABILIZER, rest);
    while stabilizer != 0u {
        let h = firstTrailingBit(stabilizer);
        stabilizer &= stabilizer - 1u;
        if slot_of_image(0u, rest, d.gm, h) < d.slot {
            return d;
        }
    }
    d.legal = true;
    return d;
}

// Pushes the states reached when `mover` steps one piece, with `next` to move; says whether
// there was any. As on the CPU, a step that leaves a plain anchor in place changes one digit.
fn push_steps(out: ptr<function, Successors>, gm: Masks, slot: u32, mover: u32, next: u32) -> bool {
    let base = next * ix_word(0u, IX_PER_SIDE);
    let anchor_count = ix_word(0u, IX_COUNT);
    let anchor_stride = ix_word(0u, IX_STRIDE);
    let anchor_rep = slot / anchor_stride;
    let symmetric = anchor_count > 1u && set_word(anchor_count, SET_STABILIZER, anchor_rep) != 0u;
    var occupied = 0u;
    for (var j = 0u; j < GROUPS; j += 1u) {
        occupied |= gm[j];
    }
    let empty = ~occupied;
    var stepped = false;
    for (var j = 0u; j < GROUPS; j += 1u) {
        if ix_word(0u, IX_SIDE + j) != mover {
            continue;
        }
        let stride = ix_word(0u, IX_STRIDE + j);
        let count = ix_word(0u, IX_COUNT + j);
        if j > 0u && !symmetric && count == 1u {
            let origin = firstTrailingBit(gm[j]);
            var targets = steps_of(origin) & empty;
            stepped = stepped || targets != 0u;
            let cleared = base + slot - origin * stride;
            while targets != 0u {
                let to = firstTrailingBit(targets);
                targets &= targets - 1u;
                succ_push_plain(out, cleared + to * stride);
            }
        } else if j > 0u && !symmetric {
            let cleared = base + slot - colex(gm[j]) * stride;
            var pieces = gm[j];
            while pieces != 0u {
                let origin = firstTrailingBit(pieces);
                pieces &= pieces - 1u;
                var targets = steps_of(origin) & empty;
                stepped = stepped || targets != 0u;
                let others = gm[j] ^ (1u << origin);
                while targets != 0u {
                    let to = firstTrailingBit(targets);
                    targets &= targets - 1u;
                    succ_push_plain(out, cleared + colex(others | (1u << to)) * stride);
                }
            }
        } else {
            var pieces = gm[j];
            while pieces != 0u {
                let origin = firstTrailingBit(pieces);
                pieces &= pieces - 1u;
                var targets = steps_of(origin) & empty;
                stepped = stepped || targets != 0u;
                while targets != 0u {
                    let to = firstTrailingBit(targets);
                    targets &= targets - 1u;
                    // A single anchor stepping onto a representative square keeps the
                    // position canonical as it stands.
                    var after = 1u;
                    if !symmetric && count == 1u {
                        after = set_word(1u, SET_CANON, to);
                    }
                    if (after & 3u) == 0u {
                        let before = set_word(1u, SET_CANON, origin);
                        succ_push_plain(out, base + slot + (after >> 2u) * stride - (before >> 2u) * stride);
                    } else {
                        var child = gm;
                        child[j] ^= (1u << origin) | (1u << to);
                        let c = canonical_slot(0u, child);
                        if c.y == 0u {
                            succ_push_plain(out, base + c.x);
                        } else {
                            succ_push_mapped(out, base + c.x);
                        }
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
    var after = gm;
    after[attacker] ^= (1u << origin) | (1u << to);
    after[victim] ^= 1u << to;
    let ix = 1u + victim;
    var smaller: Masks;
    let groups = ix_word(ix, IX_GROUPS);
    for (var i = 0u; i < groups; i += 1u) {
        smaller[i] = after[dark_material[exit + EXIT_SOURCE + i]];
    }
    let next = (1u - side) ^ dark_material[exit + EXIT_SWAP];
    let at = dark_material[exit + EXIT_OFFSET] + next * ix_word(ix, IX_PER_SIDE)
        + canonical_slot(ix, smaller).x;
    return (dark_exit_entries[at >> 1u] >> (16u * (at & 1u))) & 0xFFFFu;
}

// The group of side `enemy` with a piece on `to`.
fn group_on(gm: Masks, to: u32, enemy: u32) -> u32 {
    for (var v = 0u; v < GROUPS; v += 1u) {
        if ix_word(0u, IX_SIDE + v) == enemy && ((gm[v] >> to) & 1u) == 1u {
            return v;
        }
    }
    return GROUPS;
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
    var occupied = 0u;
    var enemy_all = 0u;
    for (var j = 0u; j < GROUPS; j += 1u) {
        occupied |= gm[j];
        if ix_word(0u, IX_SIDE + j) == enemy {
            enemy_all |= gm[j];
        }
    }
    var node = node_inner();
    var captured = false;
    for (var j = 0u; j < GROUPS; j += 1u) {
        if ix_word(0u, IX_SIDE + j) != side {
            continue;
        }
        let kind = ix_word(0u, IX_KIND + j);
        let adjacent = dark_material[RULE_ADJACENT + kind];
        var prey = 0u;
        for (var v = 0u; v < GROUPS; v += 1u) {
            if ix_word(0u, IX_SIDE + v) == enemy && ((adjacent >> ix_word(0u, IX_KIND + v)) & 1u) == 1u {
                prey |= gm[v];
            }
        }
        let jumps = CANNON_JUMPS != 0u && kind == CANNON;
        var pieces = gm[j];
        while pieces != 0u {
            let origin = firstTrailingBit(pieces);
            pieces &= pieces - 1u;
            var targets = steps_of(origin) & prey;
            while targets != 0u {
                let to = firstTrailingBit(targets);
                targets &= targets - 1u;
                captured = true;
                node_add_exit(&node, exit_entry(gm, side, j, origin, to, group_on(gm, to, enemy)));
            }
            if jumps {
                for (var dir = 0u; dir < 4u; dir += 1u) {
                    let on_ray = ray(dir, origin) & occupied;
                    if countOneBits(on_ray) < 2u {
                        continue;
                    }
                    let to = jump_target(on_ray, dir);
                    if ((enemy_all >> to) & 1u) == 1u {
                        captured = true;
                        node_add_exit(&node, exit_entry(gm, side, j, origin, to, group_on(gm, to, enemy)));
                    }
                }
            }
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
