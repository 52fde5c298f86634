//! The multi-threaded CPU reference solver (rayon): the DTM algorithm of DESIGN.md, exactly.
//!
//! Working memory is 3 bytes a state: a 16-bit entry and an 8-bit HP counter. While a state is
//! unresolved its entry may hold a *pending* resolution `PENDING | t` derived from its exits: a
//! win at `t` (odd: an exit into a lost child) that only a shorter in-table win can pre-empt, or a
//! loss at `t` (even: 1 + the longest exit win) that happens only once the HP counter is 0.
//! HP counts the distinct in-table children, plus one when an exit saves the position (a drawn or
//! lost child), so that HP reaches 0 exactly when every child is a win for the opponent.
//!
//! Layer `t` sweeps the states selecting those resolved at DTM `t`. Every state of a layer has
//! the same outcome (parity), so within a layer no two updates conflict and the result is the
//! same whatever the thread schedule. The sweep skips blocks that cannot hold a state of the
//! layer: a block is visited when a state in it was resolved during the previous layer, or when
//! the earliest pending layer still waiting in it is this one (see `Frontier`).

use std::sync::atomic::{AtomicU8, AtomicU16, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::{Node, Progress, Space, Successors};
use crate::value::{BROKEN, DRAW, Entry, MAX_DTM};

/// Tag of a pending resolution in a working entry (final entries are below it).
pub(crate) const PENDING: u16 = 0x8000;
/// States per block, the unit of skipping: small, so that sparse layers skip most blocks.
const BLOCK: usize = 1 << 6;
/// `next_pending` of a block with nothing pending.
const NONE_PENDING: u16 = u16::MAX;

/// Solves `space` and returns its entries.
pub fn solve<S: Space + ?Sized>(space: &S, progress: &dyn Progress) -> Vec<Entry> {
    let n = usize::try_from(space.states()).expect("state count fits in memory");
    let mut entries = vec![DRAW; n];
    let mut hp = vec![0u8; n];
    progress.phase("moves", n as u64);
    let frontier = initialise(space, &mut entries, &mut hp, progress);
    {
        let entries = atomic_u16(&mut entries);
        let hp = atomic_u8(&mut hp);
        progress.phase("layers", n as u64);
        let mut t: u16 = 0;
        loop {
            let found = sweep(space, entries, hp, &frontier, t);
            progress.advance(found);
            if found == 0 && t >= frontier.last_pending {
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

/// Which blocks a layer must visit.
struct Frontier {
    /// Per layer parity, a bit per block: a state of the block was resolved at that layer by an
    /// update of the previous layer (or, for layer 0, is a terminal loss).
    touched: [Vec<AtomicU64>; 2],
    /// Per block, a lower bound of the pending layers still waiting in it.
    next_pending: Vec<AtomicU16>,
    /// The largest pending layer of all.
    last_pending: u16,
}

impl Frontier {
    fn touch(&self, t: u16, state: usize) {
        let block = state / BLOCK;
        let word = &self.touched[usize::from(t % 2)][block / 64];
        let bit = 1u64 << (block % 64);
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }

    fn visits(&self, t: u16, block: usize) -> bool {
        let touched = self.touched[usize::from(t % 2)][block / 64].load(Relaxed) >> (block % 64) & 1 == 1;
        touched || self.next_pending[block].load(Relaxed) == t
    }
}

/// Fills HP counters and entries from a forward look at every state, and the frontier of
/// layer 0 and of the pending layers.
fn initialise<S: Space + ?Sized>(space: &S, entries: &mut [Entry], hp: &mut [u8], progress: &dyn Progress) -> Frontier {
    let blocks: Vec<(u16, bool)> = entries
        .par_chunks_mut(BLOCK)
        .zip(hp.par_chunks_mut(BLOCK))
        .enumerate()
        .map_init(Successors::default, |children, (block, (entries, hp))| {
            let first = (block * BLOCK) as u64;
            let mut next_pending = NONE_PENDING;
            let mut lost = false;
            for (i, (entry, hp)) in entries.iter_mut().zip(hp.iter_mut()).enumerate() {
                children.clear();
                (*entry, *hp) = match space.expand(first + i as u64, children) {
                    Node::Broken => (BROKEN, 0),
                    Node::Terminal(value) => {
                        lost |= value.entry() == 1;
                        (value.entry(), 0)
                    }
                    Node::Inner(exits) => {
                        let count = children.distinct().len() + usize::from(exits.saves);
                        let pending = exits.win.or(if exits.saves { None } else { exits.loss });
                        if let Some(t) = pending {
                            next_pending = next_pending.min(t);
                        }
                        let hp = u8::try_from(count).expect("at most 255 distinct children");
                        (pending.map_or(DRAW, |t| PENDING | t), hp)
                    }
                };
            }
            progress.advance(entries.len() as u64);
            (next_pending, lost)
        })
        .collect();
    let words = blocks.len().div_ceil(64);
    let touched = [
        (0..words).map(|_| AtomicU64::new(0)).collect(),
        (0..words).map(|_| AtomicU64::new(0)).collect(),
    ];
    let frontier = Frontier {
        touched,
        next_pending: blocks.iter().map(|&(p, _)| AtomicU16::new(p)).collect(),
        last_pending: entries
            .par_iter()
            .filter(|&&e| e >= PENDING && e != BROKEN)
            .map(|&e| e & !PENDING)
            .max()
            .unwrap_or(0),
    };
    for (block, &(_, lost)) in blocks.iter().enumerate() {
        if lost {
            frontier.touch(0, block * BLOCK);
        }
    }
    frontier
}

/// Resolves the parents of every state resolved at DTM `t`; returns how many there were.
fn sweep<S: Space + ?Sized>(space: &S, entries: &[AtomicU16], hp: &[AtomicU8], frontier: &Frontier, t: u16) -> u64 {
    let resolved = t + 1;
    let pending = PENDING | t;
    let loss_layer = t.is_multiple_of(2);
    let blocks = entries.len().div_ceil(BLOCK);
    let found = (0..blocks)
        .into_par_iter()
        .with_min_len(64)
        .map_init(Successors::default, |parents, block| {
            if !frontier.visits(t, block) {
                return 0;
            }
            let first = block * BLOCK;
            let mut found = 0;
            let mut next_pending = NONE_PENDING;
            for (state, entry) in entries.iter().enumerate().skip(first).take(BLOCK) {
                let e = entry.load(Relaxed);
                let in_layer = e == resolved || (e == pending && (!loss_layer || hp[state].load(Relaxed) == 0));
                if !in_layer {
                    if e > pending && e != BROKEN {
                        next_pending = next_pending.min(e & !PENDING);
                    }
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
                        frontier.touch(t + 1, p);
                    } else if hp[p].fetch_sub(1, Relaxed) == 1 {
                        // Every child wins for the opponent: lost, after the slowest of them.
                        let exit_loss = if pe >= PENDING { pe & !PENDING } else { 0 };
                        if exit_loss <= t + 1 {
                            entries[p].store(resolved + 1, Relaxed);
                            frontier.touch(t + 1, p);
                        }
                    }
                }
            }
            frontier.next_pending[block].store(next_pending, Relaxed);
            found
        })
        .sum();
    frontier.touched[usize::from(t % 2)]
        .iter()
        .for_each(|w| w.store(0, Relaxed));
    found
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

    #[test]
    fn skipping_blocks_misses_no_layer_on_graphs_of_many_blocks() {
        for seed in 100..104 {
            let graph = Graph::random(40 * BLOCK + 77, seed, Value::LOST);
            assert_eq!(solve(&graph, &Silent), graph.reference(), "seed {seed}");
        }
    }
}
