// The generic retrograde kernels that expand states: the CPU solver's algorithm
// (src/solver/cpu.rs), state by state. The layer sweep that selects each layer's states is in
// select.wgsl, a module of its own.
//
// Joined after a generated prelude (the control words CTRL_*, the error bits ERROR_*, WORKGROUP,
// QUEUE_CAPACITY, STATES, WINDOW_STATES, the bindings control, queue and chunk_*, the chunk accessors
// chunk_load, chunk_store, chunk_or, chunk_sub and chunk_swap, the game's data bindings) and
// common.wgsl, and before the game's rules module, which must define:
//   const GAME_MAX_SUCCESSORS: u32;       // the most succ_push_* calls for one state
//   fn game_expand(state: u32, out: ptr<function, Successors>) -> Node;
//       // pushes the in-table children into `out`
//   fn game_parents(state: u32, out: ptr<function, Successors>);
//       // pushes the in-table parents of a legal state into `out`
// Successors needing no symmetry go through succ_push_plain (distinct among themselves), the
// others through succ_push_mapped (deduplicated here), exactly as `Successors` on the CPU.

const NO_WIN: u32 = 0xFFFFFFFFu;

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
    // What no solver writes where a move reaches it (a position marked as none, a DTM beyond
    // half the solver's range): a damaged file, flagged for the host to name, the exit left out.
    if child > MAX_REACHED_ENTRY {
        flag_error(ERROR_EXIT);
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

// The successors of one state: plain ones from the front, mapped ones from the back. A kernel
// declares it only where it expands a state (it is large, and zeroed when declared).
struct Successors {
    items: array<u32, GAME_MAX_SUCCESSORS>,
    plain: u32,
    mapped: u32,
    overflow: bool,
}

fn succ_push_plain(out: ptr<function, Successors>, state: u32) {
    if (*out).plain + (*out).mapped >= GAME_MAX_SUCCESSORS {
        (*out).overflow = true;
        return;
    }
    (*out).items[(*out).plain] = state;
    (*out).plain += 1u;
}

fn succ_push_mapped(out: ptr<function, Successors>, state: u32) {
    if (*out).plain + (*out).mapped >= GAME_MAX_SUCCESSORS {
        (*out).overflow = true;
        return;
    }
    (*out).mapped += 1u;
    (*out).items[GAME_MAX_SUCCESSORS - (*out).mapped] = state;
}

// Moves the mapped successors not seen yet behind the plain ones; returns how many distinct
// successors items[0..n] holds. Mapped ones are taken lowest slot first, so that an append never
// overwrites one still to be taken.
fn succ_distinct(out: ptr<function, Successors>) -> u32 {
    var n = (*out).plain;
    for (var k = GAME_MAX_SUCCESSORS - (*out).mapped; k < GAME_MAX_SUCCESSORS; k += 1u) {
        let state = (*out).items[k];
        var seen = false;
        for (var i = 0u; i < n; i += 1u) {
            if (*out).items[i] == state {
                seen = true;
                break;
            }
        }
        if !seen {
            (*out).items[n] = state;
            n += 1u;
        }
    }
    (*out).mapped = 0u;
    (*out).plain = n;
    return n;
}

fn flag_error(bits: u32) {
    atomicOr(&control[CTRL_ERROR], bits);
}

// Writes `entry` into one 16-bit half of a shared word whose other half may change
// concurrently: a compare-and-swap loop. Concurrent writers of a half write the same entry.
fn set_entry(state: u32, entry: u32) {
    let chunk = state >> CHUNK_SHIFT;
    let local = state & CHUNK_MASK;
    let shift = 16u * (local & 1u);
    let word = local >> 1u;
    loop {
        let current = chunk_load(chunk, word);
        let updated = (current & ~(0xFFFFu << shift)) | (entry << shift);
        if chunk_swap(chunk, word, current, updated) {
            break;
        }
    }
}

// Decrements the (non-zero) HP counter in the low byte of an unresolved state's word; returns
// the word before.
fn decrement_hp(state: u32) -> u32 {
    let local = state & CHUNK_MASK;
    let shift = 16u * (local & 1u);
    let old = chunk_sub(state >> CHUNK_SHIFT, local >> 1u, 1u << shift);
    return (old >> shift) & 0xFFFFu;
}

var<workgroup> group_last_due: atomic<u32>;
var<workgroup> group_active: atomic<u32>;
var<workgroup> group_broken: atomic<u32>;

// The states of the current window of the per-state kernels: the window's first state (a
// multiple of WORKGROUP, set by the host before each submission) and how many states it holds.
fn window_start() -> u32 {
    return atomicLoad(&control[CTRL_WINDOW]);
}

fn window_len(start: u32) -> u32 {
    return min(WINDOW_STATES, STATES - start);
}

// Expands every state of the window: its working word (broken, terminal value, due layer or HP
// counter, see src/solver/working.rs), and marks the blocks holding work for the layer sweep.
// The chunks start zeroed, so or-ing the non-zero words in is race-free.
@compute @workgroup_size(WORKGROUP)
fn initialise(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let start = window_start();
    let offset = thread_index(wg, groups, local);
    let state = start + offset;
    if offset < window_len(start) {
        var children: Successors;
        let node = game_expand(state, &children);
        var entry = DRAW;
        if node.kind == NODE_BROKEN {
            entry = BROKEN;
            atomicAdd(&group_broken, 1u);
        } else if node.kind == NODE_TERMINAL {
            entry = node.terminal;
            if entry != DRAW {
                entry = fresh(entry);
            }
        } else {
            var hp = succ_distinct(&children) + select(0u, 1u, node.saves);
            var exit_loss = 0u;
            if !node.saves {
                exit_loss = node.exit_loss;
            }
            var due = node.exit_win;
            if due == NO_WIN && exit_loss != 0u && hp == 0u {
                due = exit_loss;
            }
            let last = select(exit_loss, due, due != NO_WIN);
            if last > MAX_LAYER {
                flag_error(ERROR_DTM);
            }
            if last != 0u {
                atomicMax(&group_last_due, last);
            }
            if hp > HP {
                flag_error(ERROR_HP);
                hp = HP;
            }
            if due != NO_WIN {
                entry = DUE | due;
            } else {
                entry = UNRESOLVED | select(0u, EXIT_LOSS, exit_loss != 0u) | hp;
            }
        }
        if children.overflow {
            flag_error(ERROR_SUCCESSORS);
        }
        let chunk = state >> CHUNK_SHIFT;
        let slot = state & CHUNK_MASK;
        if entry != DRAW {
            chunk_or(chunk, slot >> 1u, entry << (16u * (slot & 1u)));
        }
        if is_fresh(entry) || is_due(entry) {
            atomicOr(&group_active, 1u << (local >> BLOCK_SHIFT));
        }
    }
    workgroupBarrier();
    if local == 0u {
        let last_due = atomicLoad(&group_last_due);
        if last_due != 0u {
            atomicMax(&control[CTRL_LAST_DUE], last_due);
        }
        let broken = atomicLoad(&group_broken);
        if broken != 0u {
            atomicAdd(&control[CTRL_BROKEN], broken);
        }
    }
    // The first thread of each block flags it for the first sweep if any of its states has work.
    let block_local = local >> BLOCK_SHIFT;
    if (local & ((1u << BLOCK_SHIFT) - 1u)) == 0u && (atomicLoad(&group_active) & (1u << block_local)) != 0u {
        atomicStore(&active_blocks[active_flag(0u, state >> BLOCK_SHIFT)], 1u);
    }
}

// A final entry whose parents are still to be updated (see common.wgsl).
fn fresh(entry: u32) -> u32 {
    return FRESH | entry;
}

// Resolves an unresolved state at `entry`, leaving its block for sweep `next`.
fn resolve(state: u32, entry: u32, next: u32) {
    set_entry(state, fresh(entry));
    atomicStore(&active_blocks[active_flag(next, state >> BLOCK_SHIFT)], 1u);
}

// Resolves the parents of `state`, resolved at DTM `t`: as on the CPU, a lost state makes its
// unresolved parents won, a won one takes an HP from each, and the update that takes the last
// makes the parent lost, or, when its exits all lose too, leaves it PENDING for the next layer
// to place (see `place`). Every state of a layer has the same outcome, so no two updates of a
// layer conflict. Resolved and pending parents are left to sweep `next`.
fn resolve_parents(state: u32, t: u32, next: u32) {
    let resolved = t + 1u;
    var parents: Successors;
    game_parents(state, &parents);
    if parents.overflow {
        flag_error(ERROR_SUCCESSORS);
    }
    let n = succ_distinct(&parents);
    for (var i = 0u; i < n; i += 1u) {
        let parent = parents.items[i];
        let pe = entry_of(parent);
        if pe < UNRESOLVED || pe == BROKEN {
            continue;
        }
        if (t & 1u) == 0u {
            resolve(parent, resolved + 1u, next);
            continue;
        }
        // A due state never loses by its moves: a due win is saved by its exit, a due loss has
        // no HP left.
        if is_due(pe) {
            continue;
        }
        let old = decrement_hp(parent);
        if (old & HP) != 1u {
            continue;
        }
        if (old & EXIT_LOSS) == 0u {
            resolve(parent, resolved + 1u, next);
        } else {
            // Its word is now PENDING: the next sweep queues it for `place`.
            atomicAdd(&control[CTRL_TO_PLACE], 1u);
            atomicStore(&active_blocks[active_flag(next, parent >> BLOCK_SHIFT)], 1u);
        }
    }
}

@group(2) @binding(0) var<storage, read_write> propagation_grid: array<u32>;

// A queue slot whose state `place` took out of the layer (no state has this number: states are
// fewer than 2^32).
const NOT_QUEUED: u32 = 0xFFFFFFFFu;

// The layer the sweep queued states for: its number t, the sweep its updates leave states to,
// and how many states the queue holds (none once the solve is done).
struct QueuedLayer {
    t: u32,
    next: u32,
    queued: u32,
}

fn queued_layer() -> QueuedLayer {
    var queued = min(atomicLoad(&queue[0]), QUEUE_CAPACITY);
    if atomicLoad(&control[CTRL_DONE]) != 0u {
        queued = 0u;
    }
    return QueuedLayer(atomicLoad(&control[CTRL_LAYER]), atomicLoad(&control[CTRL_SWEEP]) + 1u, queued);
}

// One thread after the sweep: sizes the grids (indirect dispatches) of the placing and the
// propagation kernels to the states queued, a thread a state, so that a small layer wakes few
// workgroups and no thread loops over many states (a software driver ends such loops silently:
// see MAX_RUNS_PER_THREAD in src/solver/gpu/kernels.rs). The placing kernel wakes only in the
// layers that have states to place (few do).
@compute @workgroup_size(1)
fn plan_propagation() {
    let layer = queued_layer();
    let groups = (layer.queued + WORKGROUP - 1u) / WORKGROUP;
    let x = min(groups, MAX_GROUPS);
    let y = select(0u, (groups + x - 1u) / x, x != 0u);
    propagation_grid[0] = x;
    propagation_grid[1] = y;
    propagation_grid[2] = 1u;
    // States are placed in even layers only (see select.wgsl).
    let placing = atomicLoad(&control[CTRL_TO_PLACE]) != 0u && (layer.t & 1u) == 0u;
    propagation_grid[3] = select(0u, x, placing);
    propagation_grid[4] = select(0u, y, placing);
    propagation_grid[5] = 1u;
}

// Layer t (control[CTRL_LAYER]), after the sweep: places the PENDING states the sweep queued
// (states whose HP ran out in layer t - 1 while their exits all lose). Expanded again (few
// states are) to learn their slowest exit, each is lost at t, or due at that exit if it is
// slower: then it leaves the layer. The moves are generated here, in a kernel of its own that
// runs only in the layers with states to place, rather than in the propagation, whose every
// thread would otherwise carry them (on a software driver that made the propagation three
// times as slow). A thread a queued state.
@compute @workgroup_size(WORKGROUP)
fn place(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let layer = queued_layer();
    let i = thread_index(wg, groups, local);
    if i >= layer.queued {
        return;
    }
    let state = atomicLoad(&queue[1u + i]);
    if entry_of(state) != PENDING {
        return;
    }
    var children: Successors;
    let exit_loss = game_expand(state, &children).exit_loss;
    atomicSub(&control[CTRL_TO_PLACE], 1u);
    if exit_loss <= layer.t {
        set_entry(state, layer.t + 1u);
    } else {
        set_entry(state, DUE | exit_loss);
        atomicStore(&active_blocks[active_flag(layer.next, state >> BLOCK_SHIFT)], 1u);
        // Not a state of this layer after all: out of the queue and the layer's count.
        atomicStore(&queue[1u + i], NOT_QUEUED);
        atomicSub(&control[CTRL_FOUND + layer.t], 1u);
    }
}

// Layer t, last: resolves the parents of the states the sweep queued (less those that `place`
// took out, found due later), a thread a state. Compacting the layer first keeps the threads
// of a workgroup busy with the same long work.
@compute @workgroup_size(WORKGROUP)
fn propagate(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let layer = queued_layer();
    let i = thread_index(wg, groups, local);
    if i < layer.queued {
        let state = atomicLoad(&queue[1u + i]);
        if state != NOT_QUEUED {
            resolve_parents(state, layer.t, layer.next);
        }
    }
}

// One thread after each propagation: counts the sweep, adds the states worked off to the layer's
// count; sweeps the layer again if the queue overflowed; else stops when the layer found nothing
// and no pending layer is left, or moves to the next layer.
@compute @workgroup_size(1)
fn advance() {
    if atomicLoad(&control[CTRL_DONE]) != 0u {
        return;
    }
    atomicAdd(&control[CTRL_SWEEP], 1u);
    let t = atomicLoad(&control[CTRL_LAYER]);
    let offered = atomicExchange(&queue[0], 0u);
    let worked = min(offered, QUEUE_CAPACITY);
    let found = atomicAdd(&control[CTRL_FOUND + t], worked) + worked;
    if offered > QUEUE_CAPACITY {
        return;
    }
    if found == 0u && t >= atomicLoad(&control[CTRL_LAST_DUE]) {
        atomicStore(&control[CTRL_DONE], 1u);
    } else if t >= MAX_LAYER {
        flag_error(ERROR_DTM);
        atomicStore(&control[CTRL_DONE], 1u);
    } else {
        atomicStore(&control[CTRL_LAYER], t + 1u);
    }
}

// Maps what is still unresolved to a draw; one thread per entry word of the window.
@compute @workgroup_size(WORKGROUP)
fn finalise(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let start = window_start();
    let pair = thread_index(wg, groups, local);
    if 2u * pair < window_len(start) {
        let state = start + 2u * pair;
        let chunk = state >> CHUNK_SHIFT;
        let word = (state & CHUNK_MASK) >> 1u;
        let old = chunk_load(chunk, word);
        var updated = 0u;
        for (var shift = 0u; shift < 32u; shift += 16u) {
            let e = (old >> shift) & 0xFFFFu;
            if e < FRESH || e == BROKEN {
                updated |= e << shift;
            } else if e < UNRESOLVED {
                flag_error(ERROR_FRESH);
            }
        }
        if updated != old {
            chunk_store(chunk, word, updated);
        }
    }
}
