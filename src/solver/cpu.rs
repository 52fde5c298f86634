//! The multi-threaded CPU reference solver (rayon): the DTM algorithm of `docs/algorithm.md`, exactly.
//!
//! Working memory is the table itself, 2 bytes a state: an unresolved state's word holds its HP
//! counter or the layer its exits resolve it at (see [`super::working`]). HP counts the distinct
//! in-table children, plus one when an exit saves the position (a drawn or lost child), so that
//! HP reaches 0 exactly when every child is a win for the opponent.
//!
//! Layer `t` sweeps the states selecting those resolved at DTM `t`. Every state of a layer has
//! the same outcome (parity), so within a layer no two updates conflict and the result is the
//! same whatever the thread schedule. The sweep skips blocks that cannot hold a state of the
//! layer: a block is visited when a state in it was resolved during the previous layer, or when
//! the earliest due layer waiting in it is this one (see `Frontier`).

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::AcqRel, Ordering::Relaxed, Ordering::Release};

use rayon::prelude::*;

use super::working::{DUE, EXIT_LOSS, HP, initial, is_due, is_unresolved};
use super::{Node, Progress, Space, Successors};
use crate::value::{BROKEN, DRAW, Entry, MAX_DTM};

/// States per block, the unit of skipping: small, so that sparse layers skip most blocks.
const BLOCK: usize = 1 << 6;
/// `next_due` of a block with nothing due.
const NONE_DUE: u16 = u16::MAX;

/// Solves `space` and returns its entries.
pub fn solve<S: Space + ?Sized>(space: &S, progress: &dyn Progress) -> Vec<Entry> {
    let n = usize::try_from(space.states()).expect("state count fits in memory");
    let mut entries = vec![DRAW; n];
    progress.phase("moves", n as u64);
    let frontier = initialise(space, &mut entries, progress);
    {
        let entries = atomic_u16(&mut entries);
        progress.phase("layers", n as u64);
        let mut t: u16 = 0;
        loop {
            let found = sweep(space, entries, &frontier, t);
            progress.advance(found);
            if found == 0 && t >= frontier.last_due {
                break;
            }
            assert!(t < MAX_DTM, "DTM beyond {MAX_DTM} plies");
            t += 1;
        }
    }
    entries.par_iter_mut().for_each(|e| {
        if is_unresolved(*e) {
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
    /// Per block, a lower bound of the due layers still waiting in it.
    next_due: Vec<AtomicU16>,
    /// The latest layer any exit can resolve a state at.
    last_due: u16,
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
        touched || self.next_due[block].load(Relaxed) == t
    }
}

/// Fills the working words from a forward look at every state, and the frontier of layer 0 and
/// of the due layers.
fn initialise<S: Space + ?Sized>(space: &S, entries: &mut [Entry], progress: &dyn Progress) -> Frontier {
    let blocks: Vec<(u16, u16, bool)> = entries
        .par_chunks_mut(BLOCK)
        .enumerate()
        .map_init(Successors::counting, |children, (block, entries)| {
            let first = (block * BLOCK) as u64;
            let mut next_due = NONE_DUE;
            let mut last_due = 0;
            let mut lost = false;
            for (i, entry) in entries.iter_mut().enumerate() {
                children.clear();
                *entry = match space.expand(first + i as u64, children) {
                    Node::Broken => BROKEN,
                    Node::Terminal(value) => {
                        lost |= value.entry() == 1;
                        value.entry()
                    }
                    Node::Inner(exits) => {
                        let hp = children.count() + usize::from(exits.saves);
                        let exit_loss = exits.loss.filter(|_| !exits.saves);
                        let word = initial(hp, exits.win, exit_loss)
                            .expect("at most 255 distinct children and exits within the DTM limit");
                        if is_due(word) {
                            next_due = next_due.min(word & !DUE);
                        }
                        last_due = last_due.max(exits.win.or(exit_loss).unwrap_or(0));
                        word
                    }
                };
            }
            progress.advance(entries.len() as u64);
            (next_due, last_due, lost)
        })
        .collect();
    let words = blocks.len().div_ceil(64);
    let touched = [
        (0..words).map(|_| AtomicU64::new(0)).collect(),
        (0..words).map(|_| AtomicU64::new(0)).collect(),
    ];
    let frontier = Frontier {
        touched,
        next_due: blocks.iter().map(|&(d, _, _)| AtomicU16::new(d)).collect(),
        last_due: blocks.iter().map(|&(_, d, _)| d).max().unwrap_or(0),
    };
    for (block, &(_, _, lost)) in blocks.iter().enumerate() {
        if lost {
            frontier.touch(0, block * BLOCK);
        }
    }
    frontier
}

/// Resolves the parents of every state resolved at DTM `t`; returns how many there were.
fn sweep<S: Space + ?Sized>(space: &S, entries: &[AtomicU16], frontier: &Frontier, t: u16) -> u64 {
    let resolved = t + 1;
    let due = DUE | t;
    // The states of layer `t` are lost when `t` is even.
    let lost = t.is_multiple_of(2);
    let blocks = entries.len().div_ceil(BLOCK);
    let found = (0..blocks)
        .into_par_iter()
        .with_min_len(64)
        .map_init(
            || (Successors::default(), Successors::counting()),
            |(parents, children), block| {
                if !frontier.visits(t, block) {
                    return 0;
                }
                // Updates of this layer may lower the bound while the block is swept: they
                // write the entry first, so the sweep sees the entry or the lowered bound.
                frontier.next_due[block].swap(NONE_DUE, AcqRel);
                let first = block * BLOCK;
                let mut found = 0;
                let mut next_due = NONE_DUE;
                for (state, entry) in entries.iter().enumerate().skip(first).take(BLOCK) {
                    let e = entry.load(Relaxed);
                    if e != resolved && e != due {
                        if is_due(e) {
                            next_due = next_due.min(e & !DUE);
                        }
                        continue;
                    }
                    if e != resolved {
                        entry.store(resolved, Relaxed);
                    }
                    found += 1;
                    parents.clear();
                    space.parents(state as u64, parents);
                    if lost {
                        // Winning a parent twice changes nothing: no need to drop repeats.
                        for p in parents.with_repeats() {
                            win_parent(entries, frontier, p as usize, t);
                        }
                    } else {
                        for &p in parents.distinct() {
                            hit_parent(space, entries, frontier, children, p as usize, t);
                        }
                    }
                }
                frontier.next_due[block].fetch_min(next_due, Release);
                found
            },
        )
        .sum();
    frontier.touched[usize::from(t % 2)]
        .iter()
        .for_each(|w| w.store(0, Relaxed));
    found
}

/// Tells parent `p` that one of its children was lost at DTM `t` (even): the parent, unless
/// already resolved, is won at `t + 1`.
#[inline]
fn win_parent(entries: &[AtomicU16], frontier: &Frontier, p: usize, t: u16) {
    let entry = &entries[p];
    if is_unresolved(entry.load(Relaxed)) {
        // The entry of DTM `t + 1`.
        entry.store(t + 2, Relaxed);
        frontier.touch(t + 1, p);
    }
}

/// Tells parent `p` that one of its children was won at DTM `t` (odd): that takes one HP, and
/// the update that takes the last makes the parent lost at `t + 1`, or at its slowest exit if
/// that is later.
fn hit_parent<S: Space + ?Sized>(
    space: &S,
    entries: &[AtomicU16],
    frontier: &Frontier,
    children: &mut Successors,
    p: usize,
    t: u16,
) {
    let entry = &entries[p];
    let pe = entry.load(Relaxed);
    // A due state never loses by its moves: a due win is saved by its exit, a due loss has no
    // HP left.
    if !is_unresolved(pe) || is_due(pe) {
        return;
    }
    let old = entry.fetch_sub(1, Relaxed);
    if old & HP != 1 {
        return;
    }
    let exit_loss = if old & EXIT_LOSS != 0 {
        children.clear();
        match space.expand(p as u64, children) {
            Node::Inner(exits) => exits.loss.unwrap_or(0),
            _ => unreachable!("a state with an HP counter has moves"),
        }
    } else {
        0
    };
    if exit_loss <= t + 1 {
        // The entry of DTM `t + 1`.
        entry.store(t + 2, Relaxed);
        frontier.touch(t + 1, p);
    } else {
        entry.store(DUE | exit_loss, Release);
        frontier.next_due[p / BLOCK].fetch_min(exit_loss, Release);
    }
}

fn atomic_u16(v: &mut [u16]) -> &[AtomicU16] {
    // SAFETY: AtomicU16 has the size and alignment of u16, and the borrow is exclusive.
    unsafe { &*(v as *mut [u16] as *const [AtomicU16]) }
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
