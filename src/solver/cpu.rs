//! The multi-threaded CPU reference solver (rayon): the DTM algorithm of DESIGN.md, exactly.
//!
//! Working memory is 3 bytes a state: a 16-bit entry and an 8-bit HP counter. While a state is
//! unresolved its entry may hold a *pending* resolution `PENDING | t` derived from its exits: a
//! win at `t` (odd: an exit into a lost child) that only a shorter in-table win can pre-empt, or a
//! loss at `t` (even: 1 + the longest exit win) that happens only once the HP counter is 0.
//! HP counts the distinct in-table children, plus one when an exit saves the position (a drawn or
//! lost child), so that HP reaches 0 exactly when every child is a win for the opponent.
//!
//! Layer `t` is a sweep over all states selecting those resolved at DTM `t`. Every state of a
//! layer has the same outcome (parity), so within a layer no two updates conflict and the result
//! is the same whatever the thread schedule.

use std::sync::atomic::{AtomicU8, AtomicU16, Ordering::Relaxed};

use rayon::prelude::*;

use super::{Node, Progress, Space, Successors};
use crate::value::{BROKEN, DRAW, Entry, MAX_DTM};

/// Tag of a pending resolution in a working entry (final entries are below it).
const PENDING: u16 = 0x8000;
/// States handled by one task.
const BLOCK: usize = 1 << 12;

/// Solves `space` and returns its entries.
pub fn solve<S: Space + ?Sized>(space: &S, progress: &dyn Progress) -> Vec<Entry> {
    let n = usize::try_from(space.states()).expect("state count fits in memory");
    let mut entries = vec![DRAW; n];
    let mut hp = vec![0u8; n];
    progress.phase("moves", n as u64);
    let last_pending = initialise(space, &mut entries, &mut hp, progress);
    {
        let entries = atomic_u16(&mut entries);
        let hp = atomic_u8(&mut hp);
        progress.phase("layers", n as u64);
        let mut t: u16 = 0;
        loop {
            let found = sweep(space, entries, hp, t);
            progress.advance(found);
            if found == 0 && t >= last_pending {
                break;
            }
            assert!(t < MAX_DTM, "DTM beyond {MAX_DTM} plies");
            t += 1;
        }
    }
    entries.par_iter_mut().for_each(|e| {
        if *e >= PENDING && *e != BROKEN {
            *e = DRAW;
        }
    });
    entries
}

/// Fills HP counters and entries from a forward look at every state; returns the largest
/// pending layer.
fn initialise<S: Space + ?Sized>(space: &S, entries: &mut [Entry], hp: &mut [u8], progress: &dyn Progress) -> u16 {
    entries
        .par_chunks_mut(BLOCK)
        .zip(hp.par_chunks_mut(BLOCK))
        .enumerate()
        .map_init(Successors::default, |children, (block, (entries, hp))| {
            let first = (block * BLOCK) as u64;
            let mut last_pending = 0;
            for (i, (entry, hp)) in entries.iter_mut().zip(hp.iter_mut()).enumerate() {
                children.clear();
                (*entry, *hp) = match space.expand(first + i as u64, children) {
                    Node::Broken => (BROKEN, 0),
                    Node::Terminal(value) => (value.entry(), 0),
                    Node::Inner(exits) => {
                        let count = children.distinct().len() + usize::from(exits.saves);
                        let pending = exits.win.or(if exits.saves { None } else { exits.loss });
                        if let Some(t) = pending {
                            last_pending = last_pending.max(t);
                        }
                        let hp = u8::try_from(count).expect("at most 255 distinct children");
                        (pending.map_or(DRAW, |t| PENDING | t), hp)
                    }
                };
            }
            progress.advance(entries.len() as u64);
            last_pending
        })
        .max()
        .unwrap_or(0)
}

/// Resolves the parents of every state resolved at DTM `t`; returns how many there were.
fn sweep<S: Space + ?Sized>(space: &S, entries: &[AtomicU16], hp: &[AtomicU8], t: u16) -> u64 {
    let resolved = t + 1;
    let pending = PENDING | t;
    let loss_layer = t.is_multiple_of(2);
    entries
        .par_chunks(BLOCK)
        .enumerate()
        .map_init(Successors::default, |parents, (block, chunk)| {
            let first = block * BLOCK;
            let mut found = 0;
            for (i, entry) in chunk.iter().enumerate() {
                let e = entry.load(Relaxed);
                let state = first + i;
                let in_layer = e == resolved || (e == pending && (!loss_layer || hp[state].load(Relaxed) == 0));
                if !in_layer {
                    continue;
                }
                if e != resolved {
                    entry.store(resolved, Relaxed);
                }
                found += 1;
                parents.clear();
                space.parents(state as u64, parents);
                for &p in parents.distinct() {
                    let p = p as usize;
                    let pe = entries[p].load(Relaxed);
                    if pe != DRAW && pe < PENDING {
                        continue;
                    }
                    if loss_layer {
                        entries[p].store(resolved + 1, Relaxed);
                    } else if hp[p].fetch_sub(1, Relaxed) == 1 {
                        // Every child wins for the opponent: lost, after the slowest of them.
                        let exit_loss = if pe >= PENDING { pe & !PENDING } else { 0 };
                        if exit_loss <= t + 1 {
                            entries[p].store(resolved + 1, Relaxed);
                        }
                    }
                }
            }
            found
        })
        .sum()
}

fn atomic_u16(v: &mut [u16]) -> &[AtomicU16] {
    // SAFETY: AtomicU16 has the size and alignment of u16, and the borrow is exclusive.
    unsafe { &*(v as *mut [u16] as *const [AtomicU16]) }
}

fn atomic_u8(v: &mut [u8]) -> &[AtomicU8] {
    // SAFETY: AtomicU8 has the size and alignment of u8, and the borrow is exclusive.
    unsafe { &*(v as *mut [u8] as *const [AtomicU8]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Silent;
    use crate::solver::test_graph::Graph;
    use crate::value::Value;

    #[test]
    fn matches_the_definition_on_random_graphs_with_exits_and_cycles() {
        for seed in 0..40 {
            let no_move = if seed % 2 == 0 { Value::LOST } else { Value::Draw };
            let graph = Graph::random(300 + seed as usize * 37, seed, no_move);
            assert_eq!(solve(&graph, &Silent), graph.reference(), "seed {seed}");
        }
    }
}
