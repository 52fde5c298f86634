// The generic retrograde kernels: the CPU solver's algorithm (src/solver/cpu.rs), state by state.
//
// Joined after a generated prelude (STATES, the chunk bindings and their accessors chunk_load,
// chunk_store, chunk_or, chunk_sub and chunk_swap, the game's data bindings) and before the
// game's rules module, which must define:
//   const GAME_MAX_SUCCESSORS: u32;       // the most succ_push_* calls for one state
//   fn game_expand(state: u32) -> Node;   // pushes the distinct in-table children
//   fn game_parents(state: u32);          // pushes the in-table parents of a legal state
// Successors needing no symmetry go through succ_push_plain (distinct among themselves), the
// others through succ_push_mapped (deduplicated here), exactly as `Successors` on the CPU.

const DRAW: u32 = 0u;
// The entry of a position already lost (no move, or checkmated).
const LOST: u32 = 1u;
const BROKEN: u32 = 0xFFFFu;
const PENDING: u32 = 0x8000u;
const MAX_DTM: u32 = 0x7FFEu;
const NO_WIN: u32 = 0xFFFFFFFFu;

// Control words: the current layer, the largest pending layer, the stop flag, error bits, then
// the number of states found in each layer.
const CTRL_LAYER: u32 = 0u;
const CTRL_LAST_PENDING: u32 = 1u;
const CTRL_DONE: u32 = 2u;
const CTRL_ERROR: u32 = 3u;
const CTRL_FOUND: u32 = 8u;

const ERROR_SUCCESSORS: u32 = 1u;
const ERROR_HP: u32 = 2u;
const ERROR_DTM: u32 = 4u;

const WORKGROUP: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> control: array<atomic<u32>>;

const NODE_BROKEN: u32 = 0u;
const NODE_TERMINAL: u32 = 1u;
const NODE_INNER: u32 = 2u;

// What a state is (`Node` on the CPU); for an inner node, the summary of its exits (`Exits`):
// exit_win is NO_WIN or the shortest exit win, exit_loss 0 or the slowest exit loss.
struct Node {
    kind: u32,
    terminal: u32,
    exit_win: u32,
    exit_loss: u32,
    saves: bool,
}

fn node_broken() -> Node {
    return Node(NODE_BROKEN, BROKEN, NO_WIN, 0u, false);
}

// A state without moves, worth `entry` to the side to move.
fn node_terminal(entry: u32) -> Node {
    return Node(NODE_TERMINAL, entry, NO_WIN, 0u, false);
}

fn node_inner() -> Node {
    return Node(NODE_INNER, DRAW, NO_WIN, 0u, false);
}

// Records an exit into a solved child whose entry (from the child's side to move) is `child`.
fn node_add_exit(node: ptr<function, Node>, child: u32) {
    if child == DRAW {
        (*node).saves = true;
        return;
    }
    let dtm = child - 1u;
    if (dtm & 1u) == 1u {
        (*node).exit_loss = max((*node).exit_loss, dtm + 1u);
    } else {
        (*node).exit_win = min((*node).exit_win, dtm + 1u);
        (*node).saves = true;
    }
}

// Successors of the current state: plain ones from the front, mapped ones from the back.
var<private> succ: array<u32, GAME_MAX_SUCCESSORS>;
var<private> succ_plain: u32;
var<private> succ_mapped: u32;
var<private> succ_overflow: bool;

fn succ_clear() {
    succ_plain = 0u;
    succ_mapped = 0u;
    succ_overflow = false;
}

fn succ_push_plain(state: u32) {
    if succ_plain + succ_mapped >= GAME_MAX_SUCCESSORS {
        succ_overflow = true;
        return;
    }
    succ[succ_plain] = state;
    succ_plain += 1u;
}

fn succ_push_mapped(state: u32) {
    if succ_plain + succ_mapped >= GAME_MAX_SUCCESSORS {
        succ_overflow = true;
        return;
    }
    succ_mapped += 1u;
    succ[GAME_MAX_SUCCESSORS - succ_mapped] = state;
}

// Moves the mapped successors not seen yet behind the plain ones; returns how many distinct
// successors succ[0..n] holds. Mapped ones are taken lowest slot first, so that an append never
// overwrites one still to be taken.
fn succ_distinct() -> u32 {
    var n = succ_plain;
    for (var k = GAME_MAX_SUCCESSORS - succ_mapped; k < GAME_MAX_SUCCESSORS; k += 1u) {
        let state = succ[k];
        var seen = false;
        for (var i = 0u; i < n; i += 1u) {
            if succ[i] == state {
                seen = true;
                break;
            }
        }
        if !seen {
            succ[n] = state;
            n += 1u;
        }
    }
    succ_mapped = 0u;
    succ_plain = n;
    return n;
}

fn flag_error(bits: u32) {
    atomicOr(&control[CTRL_ERROR], bits);
}

fn thread_index(wg: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (wg.y * groups.x + wg.x) * WORKGROUP + local;
}

fn entry_of(state: u32) -> u32 {
    let local = state & CHUNK_MASK;
    let word = chunk_load(state >> CHUNK_SHIFT, local >> 1u);
    return (word >> (16u * (local & 1u))) & 0xFFFFu;
}

// Replaces one 16-bit half of a shared word; the other half may change concurrently.
fn set_entry(state: u32, entry: u32) {
    let chunk = state >> CHUNK_SHIFT;
    let local = state & CHUNK_MASK;
    let shift = 16u * (local & 1u);
    let word = local >> 1u;
    loop {
        let old = chunk_load(chunk, word);
        let updated = (old & ~(0xFFFFu << shift)) | (entry << shift);
        if chunk_swap(chunk, word, old, updated) {
            break;
        }
    }
}

fn hp_of(state: u32) -> u32 {
    let local = state & CHUNK_MASK;
    let word = chunk_load(state >> CHUNK_SHIFT, HP_BASE + (local >> 2u));
    return (word >> (8u * (local & 3u))) & 0xFFu;
}

// Decrements a (non-zero) HP counter; returns its previous value.
fn decrement_hp(state: u32) -> u32 {
    let local = state & CHUNK_MASK;
    let shift = 8u * (local & 3u);
    let old = chunk_sub(state >> CHUNK_SHIFT, HP_BASE + (local >> 2u), 1u << shift);
    return (old >> shift) & 0xFFu;
}

var<workgroup> group_max: atomic<u32>;
var<workgroup> group_found: atomic<u32>;

// Expands every state: its entry (broken, terminal value, pending exit resolution or draw) and
// its HP counter. The chunks start zeroed, so or-ing the non-zero parts in is race-free.
@compute @workgroup_size(WORKGROUP)
fn initialise(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let state = thread_index(wg, groups, local);
    if state < STATES {
        succ_clear();
        let node = game_expand(state);
        var entry = DRAW;
        var hp = 0u;
        if node.kind == NODE_BROKEN {
            entry = BROKEN;
        } else if node.kind == NODE_TERMINAL {
            entry = node.terminal;
        } else {
            hp = succ_distinct() + select(0u, 1u, node.saves);
            var pending = node.exit_win;
            if pending == NO_WIN && !node.saves && node.exit_loss != 0u {
                pending = node.exit_loss;
            }
            if pending != NO_WIN {
                entry = PENDING | pending;
                atomicMax(&group_max, pending);
            }
            if hp > 255u {
                flag_error(ERROR_HP);
                hp = 255u;
            }
        }
        if succ_overflow {
            flag_error(ERROR_SUCCESSORS);
        }
        let chunk = state >> CHUNK_SHIFT;
        let slot = state & CHUNK_MASK;
        if entry != DRAW {
            chunk_or(chunk, slot >> 1u, entry << (16u * (slot & 1u)));
        }
        if hp != 0u {
            chunk_or(chunk, HP_BASE + (slot >> 2u), hp << (8u * (slot & 3u)));
        }
    }
    workgroupBarrier();
    if local == 0u {
        let pending = atomicLoad(&group_max);
        if pending != 0u {
            atomicMax(&control[CTRL_LAST_PENDING], pending);
        }
    }
}

// Layer t (control[CTRL_LAYER]): resolves the parents of every state resolved at DTM t. As on the
// CPU, every state of a layer has the same outcome, so no two updates of a layer conflict.
@compute @workgroup_size(WORKGROUP)
fn sweep(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let state = thread_index(wg, groups, local);
    let done = atomicLoad(&control[CTRL_DONE]) != 0u;
    let t = atomicLoad(&control[CTRL_LAYER]);
    if !done && state < STATES {
        let resolved = t + 1u;
        let loss_layer = (t & 1u) == 0u;
        let e = entry_of(state);
        var in_layer = e == resolved;
        if e == (PENDING | t) {
            in_layer = !loss_layer || hp_of(state) == 0u;
        }
        if in_layer {
            atomicAdd(&group_found, 1u);
            if e != resolved {
                set_entry(state, resolved);
            }
            succ_clear();
            game_parents(state);
            if succ_overflow {
                flag_error(ERROR_SUCCESSORS);
            }
            let n = succ_distinct();
            for (var i = 0u; i < n; i += 1u) {
                let parent = succ[i];
                let pe = entry_of(parent);
                if pe != DRAW && pe < PENDING {
                    continue;
                }
                if loss_layer {
                    set_entry(parent, resolved + 1u);
                } else if decrement_hp(parent) == 1u {
                    // Every child wins for the opponent: lost, after the slowest of them.
                    let exit_loss = select(0u, pe & ~PENDING, pe >= PENDING);
                    if exit_loss <= t + 1u {
                        set_entry(parent, resolved + 1u);
                    }
                }
            }
        }
    }
    workgroupBarrier();
    if local == 0u {
        let found = atomicLoad(&group_found);
        if found != 0u {
            atomicAdd(&control[CTRL_FOUND + t], found);
        }
    }
}

// One thread between layers: stops when a layer found nothing and no pending layer is left,
// else moves to the next layer.
@compute @workgroup_size(1)
fn advance() {
    if atomicLoad(&control[CTRL_DONE]) != 0u {
        return;
    }
    let t = atomicLoad(&control[CTRL_LAYER]);
    let found = atomicLoad(&control[CTRL_FOUND + t]);
    if found == 0u && t >= atomicLoad(&control[CTRL_LAST_PENDING]) {
        atomicStore(&control[CTRL_DONE], 1u);
    } else if t >= MAX_DTM {
        flag_error(ERROR_DTM);
        atomicStore(&control[CTRL_DONE], 1u);
    } else {
        atomicStore(&control[CTRL_LAYER], t + 1u);
    }
}

// Maps what is still pending or unresolved to a draw; one thread per entry word.
@compute @workgroup_size(WORKGROUP)
fn finalise(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let pair = thread_index(wg, groups, local);
    if pair <= (STATES - 1u) / 2u {
        let state = 2u * pair;
        let chunk = state >> CHUNK_SHIFT;
        let word = (state & CHUNK_MASK) >> 1u;
        let old = chunk_load(chunk, word);
        var updated = 0u;
        for (var shift = 0u; shift < 32u; shift += 16u) {
            let e = (old >> shift) & 0xFFFFu;
            if e < PENDING || e == BROKEN {
                updated |= e << shift;
            }
        }
        if updated != old {
            chunk_store(chunk, word, updated);
        }
    }
}
