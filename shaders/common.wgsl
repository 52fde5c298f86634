// What both solver modules share (solver.wgsl and select.wgsl): thread numbering and reads of
// entries and HP counters through the chunk accessors of the generated prelude.
//
// Entries while solving: DRAW (unresolved), PENDING | t (unresolved, resolved by its exits at
// DTM t unless its moves do better), BROKEN, a final entry (DTM + 1), or a final entry tagged
// FRESH: resolved at that DTM, its parents not yet updated. The layer sweep queues the FRESH
// (and the due PENDING) states of its DTM and clears the tag, so that a sweep repeated because
// the queue overflowed finds only the states not yet queued.

fn thread_index(wg: vec3<u32>, groups: vec3<u32>, local: u32) -> u32 {
    return (wg.y * groups.x + wg.x) * WORKGROUP + local;
}

fn entry_of(state: u32) -> u32 {
    let local = state & CHUNK_MASK;
    let word = chunk_load(state >> CHUNK_SHIFT, local >> 1u);
    return (word >> (16u * (local & 1u))) & 0xFFFFu;
}

fn hp_of(state: u32) -> u32 {
    let local = state & CHUNK_MASK;
    let word = chunk_load(state >> CHUNK_SHIFT, HP_BASE + (local >> 2u));
    return (word >> (8u * (local & 3u))) & 0xFFu;
}

// The active blocks: three arrays of a flag word per block (1: the block may hold work for the
// sweep), used in turn. Sweep s reads array s % 3, flags in array (s + 1) % 3 the blocks it
// leaves work in (as do the propagation after it and, for sweep 0, the initialisation), and
// clears array (s + 2) % 3, which no kernel reads or writes until sweep s + 1 flags it. So no
// thread needs to know whether a whole block is done, and every write of a flag is a plain
// store of the same value, never a read-modify-write.
fn active_flag(sweep: u32, block: u32) -> u32 {
    return (sweep % 3u) * BLOCKS + block;
}
