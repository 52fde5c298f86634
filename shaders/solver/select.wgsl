// The layer sweep, a module of its own: layer t (control[CTRL_LAYER]) selects the states
// resolved at DTM t, gives them their final entry and queues them for the propagation kernel
// (solver.wgsl), with the PENDING states, which the `place` kernel values first. Nothing else
// runs while it does and each thread owns the vectors of entries it reads, so the generated
// prelude declares the control words as plain u32 and the chunks as plain 4-word vectors (eight
// entries) here: a sweep is a stream of wide plain loads, with a store only
// where a state joins the layer. A thread reads a run of SWEEP_RUN vectors of one block, and
// neighbouring threads neighbouring runs: on a GPU a run is one vector, so that the loads of a
// group of threads are one contiguous read; on a software driver, whose lanes gain nothing from
// that, it is the whole block, which is then checked once. It reads only the blocks flagged
// active for this sweep (see common.wgsl) and flags for the next sweep those it leaves work in.
//
// The queue's first word counts the states offered to it; those beyond QUEUE_CAPACITY keep their
// tag, and the layer is swept again once the queue is worked off.

// Vectors of eight entries per block.
const BLOCK_VECTORS: u32 = 1u << (BLOCK_SHIFT - 3u);

@compute @workgroup_size(WORKGROUP)
fn select_layer(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    if control[CTRL_DONE] != 0u {
        return;
    }
    let t = control[CTRL_LAYER];
    let sweep = control[CTRL_SWEEP];
    let threads = groups.x * groups.y * WORKGROUP;
    let runs = (VECTORS + SWEEP_RUN - 1u) / SWEEP_RUN;
    for (var run = thread_index(wg, groups, local); run < runs; run += threads) {
        let first = run * SWEEP_RUN;
        let block = first / BLOCK_VECTORS;
        if first % BLOCK_VECTORS == 0u {
            atomicStore(&active_blocks[active_flag(sweep + 2u, block)], 0u);
        }
        if atomicLoad(&active_blocks[active_flag(sweep, block)]) == 0u {
            continue;
        }
        var live = false;
        for (var vector = first; vector < min(first + SWEEP_RUN, VECTORS); vector += 1u) {
            if select_eight(vector, t) {
                live = true;
            }
        }
        if live {
            atomicStore(&active_blocks[active_flag(sweep + 1u, block)], 1u);
        }
    }
}

// Selects the states of layer t among the eight of one vector of entries; returns whether the
// vector still holds work for a later sweep: a tagged entry (resolved, parents waiting, or left
// out of a full queue) or one due after t.
fn select_eight(vector: u32, t: u32) -> bool {
    let first = 8u * vector;
    let resolved = t + 1u;
    let chunk = first >> CHUNK_SHIFT;
    let at = (first & CHUNK_MASK) >> 3u;
    let words = chunk_load4(chunk, at);
    let low = words & vec4<u32>(0xFFFFu);
    let high = words >> vec4<u32>(16u);
    let fresh = vec4<u32>(FRESH | resolved);
    let due = vec4<u32>(DUE | t);
    // States turn PENDING in odd layers and are placed in the even layer after: one that turns
    // PENDING while an odd layer is swept again waits for the next.
    let placing = (t & 1u) == 0u;
    let pending = select(fresh, vec4<u32>(PENDING), placing);
    let later = any(later_work(low, t) | later_work(high, t));
    if !any((low == fresh) | (low == due) | (low == pending) | (high == fresh) | (high == due) | (high == pending)) {
        return later;
    }
    var joining = 0u;
    var to_place = 0u;
    for (var k = 0u; k < 8u; k += 1u) {
        let e = (words[k >> 1u] >> (16u * (k & 1u))) & 0xFFFFu;
        if e == (FRESH | resolved) || e == (DUE | t) {
            joining |= 1u << k;
        } else if placing && e == PENDING {
            to_place |= 1u << k;
        }
    }
    joining |= to_place;
    // One reservation for the vector's states; the ones beyond the queue stay tagged.
    var slot = atomicAdd(&queue[0], countOneBits(joining));
    var updated = words;
    while joining != 0u && slot < QUEUE_CAPACITY {
        let k = firstTrailingBit(joining);
        joining &= joining - 1u;
        atomicStore(&queue[1u + slot], first + k);
        slot += 1u;
        if (to_place & (1u << k)) == 0u {
            let shift = 16u * (k & 1u);
            updated[k >> 1u] = (updated[k >> 1u] & ~(0xFFFFu << shift)) | (resolved << shift);
        }
    }
    if any(updated != words) {
        chunk_store4(chunk, at, updated);
    }
    return joining != 0u || later;
}

// Which of four entries need a sweep after layer t: tagged ones of a later layer, due ones
// after t, pending ones.
fn later_work(e: vec4<u32>, t: u32) -> vec4<bool> {
    let tagged = (e >= vec4<u32>(FRESH)) & (e < vec4<u32>(UNRESOLVED)) & (e != vec4<u32>(FRESH | (t + 1u)));
    let due = vec4<u32>(DUE);
    let due_later = ((e & due) == due) & (e != vec4<u32>(BROKEN)) & ((e & vec4<u32>(~DUE)) > vec4<u32>(t));
    return tagged | due_later | (e == vec4<u32>(PENDING));
}
