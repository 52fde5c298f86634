// What both solver modules share (solver.wgsl and select.wgsl): thread numbering, the tags of
// working words, and reads and tests of one word (select.wgsl's `later_work` tests four words at
// once as is_fresh and is_due test one).
//
// Words while solving (src/solver/working.rs): UNRESOLVED | hp (its HP counter, EXIT_LOSS set
// when every exit wins for the opponent), DUE | t (resolved at DTM t unless a move does better),
// BROKEN, a final entry (DTM + 1; DRAW only for a terminal draw), or a final entry tagged FRESH:
// resolved at that DTM, its parents not yet updated. The layer sweep queues the FRESH and the DUE
// states of its DTM and clears the tag, so that a sweep repeated because the queue overflowed
// finds only the states not yet queued; in an even layer it queues the PENDING states too, for
// the kernel that places them.

fn thread_index(wg: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (wg.y * groups.x + wg.x) * WORKGROUP + local;
}

fn entry_of(state: u32) -> u32 {
    let local = state & CHUNK_MASK;
    let word = chunk_load(state >> CHUNK_SHIFT, local >> 1u);
    return (word >> (16u * (local & 1u))) & 0xFFFFu;
}

// An unresolved word whose HP ran out while its exits all lose: its loss is placed by the next
// layer (`place` in solver.wgsl).
const PENDING: u32 = UNRESOLVED | EXIT_LOSS;

fn is_fresh(e: u32) -> bool {
    return e >= FRESH && e < UNRESOLVED;
}

fn is_due(e: u32) -> bool {
    return (e & DUE) == DUE && e != BROKEN;
}

// The active blocks: three arrays of a flag word per block (1: the block may hold work for the
// sweep), used in turn. Sweep s reads array s % 3 (for sweep 0, array 0 as the initialisation
// flagged it), flags in array (s + 1) % 3 the blocks it leaves work in (as do the placing of
// pending losses and the propagation after it), and clears array (s + 2) % 3, which no kernel
// reads or writes until sweep s + 1 flags it. So no thread needs to know whether a whole block
// is done, and every write of a flag is a plain store of the same value, never a
// read-modify-write.
fn active_flag(sweep: u32, block: u32) -> u32 {
    return (sweep % 3u) * BLOCKS + block;
}
