// The layer sweep, a module of its own: layer t (control[CTRL_LAYER]) selects the states
// resolved at DTM t, gives them their final entry and queues them for the propagation kernel
// (solver.wgsl). Nothing else runs while it does and each thread owns one entry word (two
// states), so the generated prelude declares the chunks and the control words as plain u32
// arrays here: a sweep is a stream of plain loads, the width of memory, with a store only where a
// state joins the layer. The queue's first word counts the states offered to it; those beyond
// QUEUE_CAPACITY keep their tag, and the layer is swept again once the queue is worked off.

@compute @workgroup_size(WORKGROUP)
fn select_layer(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let pair = thread_index(wg, groups, local);
    if pair > (STATES - 1u) / 2u || control[CTRL_DONE] != 0u {
        return;
    }
    let t = control[CTRL_LAYER];
    let resolved = t + 1u;
    let state = 2u * pair;
    let chunk = state >> CHUNK_SHIFT;
    let at = (state & CHUNK_MASK) >> 1u;
    let word = chunk_load(chunk, at);
    var updated = word;
    for (var half = 0u; half < 2u; half += 1u) {
        let shift = 16u * half;
        let e = (word >> shift) & 0xFFFFu;
        var in_layer = e == (FRESH | resolved);
        if e == (PENDING | t) {
            // A pending win stands unless a move did better; a pending loss waits for every
            // move to lose.
            in_layer = (t & 1u) == 1u || hp_of(state + half) == 0u;
        }
        if in_layer {
            let slot = atomicAdd(&queue[0], 1u);
            if slot < QUEUE_CAPACITY {
                atomicStore(&queue[1u + slot], state + half);
                updated = (updated & ~(0xFFFFu << shift)) | (resolved << shift);
            }
        }
    }
    if updated != word {
        chunk_store(chunk, at, updated);
    }
}
