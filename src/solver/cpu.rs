//! The multi-threaded CPU reference solver (rayon): the DTM algorithm of `docs/algorithm.md`, exactly.
//!
//! Working memory is the table itself, 2 bytes a state: an unresolved state's word holds its HP
//! counter or the layer its exits resolve it at (see [`super::working`]). HP counts the distinct
//! in-table children, plus one when an exit into a drawn child saves the position, so that HP
//! reaches 0 exactly when every child is a win for the opponent (an exit into a lost child makes
//! the state due at its win instead).
//!
//! Layer `t` sweeps the states selecting those resolved at DTM `t`. Every state of a layer has
//! the same outcome (parity), so within a layer no two updates conflict and the result is the
//! same whatever the thread schedule. The sweep reads only where a state of the layer can be: a
//! block whose earliest due layer is this one, and the granules (16 states) in which the previous
//! layer resolved a state (see `Frontier`); the entries a thread's next span will read are
//! prefetched while it sweeps the current one. The parent updates are random reads of a large
//! table, so the parents are prefetched when listed and updated a few states later. A parent
//! whose HP runs out while its exits all lose needs its exits read again to place its loss: its
//! word is left `PENDING` and its granule touched, and the next layer's sweep places it in
//! state order, so that the smaller tables are read in order too.

use std::ops::Range;
use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use super::working::{DUE, EXIT_LOSS, HP, UNRESOLVED, initial, is_due, is_unresolved};
use super::{Node, Progress, Space, Successors, runs};
use crate::memory;
use crate::value::{BROKEN, DRAW, Entry, MAX_DTM, Value};

/// States per block, the unit of skipping: small, so that sparse layers skip most blocks.
const BLOCK: usize = 1 << 6;
/// States per granule, the unit that records where the previous layer resolved states: a bit per
/// granule, so that a layer reads few states besides its own.
const GRANULE: usize = 1 << 4;
/// States per span, the unit of work of a thread in a layer: a word of granule bits.
const SPAN: usize = 64 * GRANULE;
/// The granule bits of a span's first block (shifted by [`block_granules_shift`] for the others).
const BLOCK_GRANULES: u64 = (1 << (BLOCK / GRANULE)) - 1;
/// `next_due` of a block with nothing due.
const NONE_DUE: u16 = u16::MAX;
/// Bytes per cache line, the unit of a prefetch.
const CACHE_LINE: usize = 64;

/// Where the granule bits of `block` start in its span's word.
fn block_granules_shift(block: usize) -> usize {
    block % (SPAN / BLOCK) * (BLOCK / GRANULE)
}

/// Solves `space` and returns its entries.
pub fn solve<S: Space + ?Sized>(space: &S, progress: &dyn Progress) -> Vec<Entry> {
    let n = usize::try_from(space.states()).expect("state count fits in memory");
    let mut entries = memory::filled_vec(n, DRAW);
    progress.phase("moves", n as u64);
    let (frontier, broken) = initialise(space, &mut entries, progress);
    {
        let entries = atomic_u16(&mut entries);
        // Every state but the broken ones is found at some layer, unless it is drawn.
        progress.phase("layers", n as u64 - broken);
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

/// Which states a layer must read.
struct Frontier {
    /// Per layer parity, a bit per granule: a state of the granule was resolved at that layer by
    /// an update of the previous layer, or turned pending (or, for layer 0, is a terminal loss).
    touched: [Vec<AtomicU64>; 2],
    /// Per block, a lower bound of the due layers still waiting in it.
    next_due: Vec<AtomicU16>,
    /// Per span, the least `next_due` of its blocks: a layer skips a span with nothing due and
    /// nothing touched after two reads. Only the thread sweeping a span changes its blocks'
    /// bounds during a layer.
    span_due: Vec<AtomicU16>,
    /// The latest layer any exit can resolve a state at.
    last_due: u16,
}

impl Frontier {
    /// The blocks of a span.
    fn blocks_of(&self, span: usize) -> Range<usize> {
        let first = span * (SPAN / BLOCK);
        first..(first + SPAN / BLOCK).min(self.next_due.len())
    }

    /// The least `next_due` of a span's blocks.
    fn least_due(&self, span: usize) -> u16 {
        self.next_due[self.blocks_of(span)]
            .iter()
            .map(|b| b.load(Relaxed))
            .min()
            .unwrap_or(NONE_DUE)
    }

    /// Starts fetching the cache lines of `entries` that layer `t`'s sweep of span `span` will
    /// read: its touched granules and its blocks due at `t`. Scanned one after another, each
    /// would wait for its own miss.
    fn prefetch_span(&self, entries: &[AtomicU16], t: u16, span: usize) {
        let mut granules = self.touched[usize::from(t % 2)][span].load(Relaxed);
        if self.span_due[span].load(Relaxed) == t {
            for block in self.blocks_of(span) {
                if self.next_due[block].load(Relaxed) == t {
                    granules |= BLOCK_GRANULES << block_granules_shift(block);
                }
            }
        }
        let mut last_line = usize::MAX;
        while granules != 0 {
            let first = span * SPAN + granules.trailing_zeros() as usize * GRANULE;
            granules &= granules - 1;
            // A granule may straddle two lines; each line is fetched once.
            for entry in [first, first + GRANULE - 1].iter().filter_map(|&s| entries.get(s)) {
                let line = entry.as_ptr() as usize / CACHE_LINE;
                if line != last_line {
                    prefetch(entry);
                    last_line = line;
                }
            }
        }
    }

    fn touch(&self, t: u16, state: usize) {
        let granule = state / GRANULE;
        let word = &self.touched[usize::from(t % 2)][granule / 64];
        let bit = 1u64 << (granule % 64);
        if word.load(Relaxed) & bit == 0 {
            word.fetch_or(bit, Relaxed);
        }
    }
}

/// Fills the working words from a forward look at every state, and the frontier of layer 0 and
/// of the due layers, run by run in the space's expansion order; returns the frontier and the
/// number of broken states. The frontier is filled in place, so that the initialisation needs no
/// memory beyond it and the table.
fn initialise<S: Space + ?Sized>(space: &S, entries: &mut [Entry], progress: &dyn Progress) -> (Frontier, u64) {
    let words = entries.len().div_ceil(SPAN);
    let mut frontier = Frontier {
        touched: [
            (0..words).map(|_| AtomicU64::new(0)).collect(),
            (0..words).map(|_| AtomicU64::new(0)).collect(),
        ],
        next_due: (0..entries.len().div_ceil(BLOCK))
            .map(|_| AtomicU16::new(NONE_DUE))
            .collect(),
        span_due: Vec::new(),
        last_due: 0,
    };
    let n = entries.len() as u64;
    let runs = space.expansion_order().unwrap_or_else(|| runs(0..n).collect());
    let covered: u64 = runs.iter().map(|run| run.end - run.start).sum();
    assert_eq!(covered, n, "an expansion order covers as many states as the table");
    let (shared, entries) = (&frontier, atomic_u16(entries));
    let (last_due, broken) = runs
        .into_par_iter()
        .map_init(Successors::counting, |children, run| {
            let mut state = run.start as usize;
            let (mut block, mut next_due, mut last_due, mut broken) = (state / BLOCK, NONE_DUE, 0, 0);
            let len = run.end - run.start;
            space.expand_run(run, children, &mut |node, children| {
                if state / BLOCK != block {
                    shared.next_due[block].fetch_min(next_due, Relaxed);
                    (block, next_due) = (state / BLOCK, NONE_DUE);
                }
                let word = match node {
                    Node::Broken => {
                        broken += 1;
                        BROKEN
                    }
                    Node::Terminal(value) => {
                        debug_assert!(matches!(value, Value::LOST | Value::Draw), "terminal {value:?}");
                        if value == Value::LOST {
                            shared.touch(0, state);
                        }
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
                entries[state].store(word, Relaxed);
                state += 1;
            });
            shared.next_due[block].fetch_min(next_due, Relaxed);
            progress.advance(len);
            (last_due, broken)
        })
        .reduce(|| (0, 0), |(a, x), (b, y)| (a.max(b), x + y));
    frontier.last_due = last_due;
    frontier.span_due = (0..words)
        .map(|span| AtomicU16::new(frontier.least_due(span)))
        .collect();
    (frontier, broken)
}

/// One thread's sweep of a span: the parents of each state found are listed, their entries
/// prefetched and queued, and updated only once `PIPELINE` more parents have been queued, so
/// that the random reads of the parents overlap the listing of the next states.
struct Sweeper<'a, S: Space + ?Sized> {
    space: &'a S,
    entries: &'a [AtomicU16],
    frontier: &'a Frontier,
    t: u16,
    /// Parents prefetched, not yet updated (each once per state found that lists it, or, in a
    /// lost layer, as often as listed).
    queued: Vec<u64>,
    /// The parents being listed.
    listing: Successors,
    children: Successors,
    /// The span whose entries were prefetched last.
    prefetched: usize,
}

/// The word of a state whose HP ran out while its exits all lose: the sweep of the next layer
/// reads its exits again and places its loss (see [`Sweeper::place_pending`]). No other word
/// equals it: a state that starts without HP is due at its slowest exit instead (see
/// [`initial`]).
const PENDING: Entry = UNRESOLVED | EXIT_LOSS;

/// Parents queued ahead of their update, so that their entries have arrived when updated.
const PIPELINE: usize = 64;

impl<S: Space + ?Sized> Sweeper<'_, S> {
    /// A state of layer `t` found: lists and queues its parents, and updates the parents queued
    /// long enough ago.
    fn found(&mut self, state: usize) {
        self.listing.clear();
        self.space.parents(state as u64, &mut self.listing);
        let before = self.queued.len();
        if self.t.is_multiple_of(2) {
            self.queued.extend(self.listing.with_repeats());
        } else {
            self.queued.extend_from_slice(self.listing.distinct());
        }
        for &p in &self.queued[before..] {
            prefetch(&self.entries[p as usize]);
        }
        if self.queued.len() >= 2 * PIPELINE {
            let ready = self.queued.len() - PIPELINE;
            self.update(ready);
        }
    }

    /// Updates the first `n` parents queued.
    fn update(&mut self, n: usize) {
        let (entries, frontier, t) = (self.entries, self.frontier, self.t);
        if t.is_multiple_of(2) {
            // Winning a parent twice changes nothing.
            for &p in &self.queued[..n] {
                win_parent(entries, frontier, p as usize, t);
            }
        } else {
            for &p in &self.queued[..n] {
                hit_parent(entries, frontier, p as usize, t);
            }
        }
        self.queued.drain(..n);
    }

    /// Updates every parent queued.
    fn flush(&mut self) {
        self.update(self.queued.len());
    }

    /// Finds the states of layer `t` in span `span` and updates their parents; returns how many
    /// there were.
    fn sweep_span(&mut self, span: usize) -> u64 {
        let (entries, frontier, t) = (self.entries, self.frontier, self.t);
        let resolved = t + 1;
        let due = DUE | t;
        // States turn pending only in odd layers (they lose by the wins of their children) and
        // are placed in the even layer after: one that turns pending while an odd layer is swept
        // waits for the next.
        let placing = t.is_multiple_of(2);
        // This span's lines were fetched while the span before it was swept, unless the thread
        // comes from elsewhere; the next span's are fetched now.
        if self.prefetched != span {
            frontier.prefetch_span(entries, t, span);
        }
        if span + 1 < frontier.span_due.len() {
            frontier.prefetch_span(entries, t, span + 1);
            self.prefetched = span + 1;
        }
        let touched = &frontier.touched[usize::from(t % 2)][span];
        if touched.load(Relaxed) == 0 && frontier.span_due[span].load(Relaxed) != t {
            return 0;
        }
        let touched = touched.swap(0, Relaxed);
        let mut found = 0;
        for block in frontier.blocks_of(span) {
            let first = block * BLOCK;
            if frontier.next_due[block].load(Relaxed) == t {
                // The bound is rebuilt from the entries below; placing a pending state of the
                // block (this thread, the span's only sweeper) may lower it meanwhile.
                frontier.next_due[block].store(NONE_DUE, Relaxed);
                let mut next_due = NONE_DUE;
                for (state, entry) in entries.iter().enumerate().skip(first).take(BLOCK) {
                    let e = entry.load(Relaxed);
                    let in_layer = e == resolved || e == due || placing && e == PENDING && self.place_pending(state);
                    if !in_layer {
                        if is_due(e) {
                            next_due = next_due.min(e & !DUE);
                        }
                        continue;
                    }
                    if e == due {
                        entry.store(resolved, Relaxed);
                    }
                    found += 1;
                    self.found(state);
                }
                frontier.next_due[block].fetch_min(next_due, Relaxed);
                continue;
            }
            // No state of the block is due at `t`: only the touched granules can hold states of
            // the layer.
            let mut granules = touched >> block_granules_shift(block) & BLOCK_GRANULES;
            while granules != 0 {
                let start = first + granules.trailing_zeros() as usize * GRANULE;
                granules &= granules - 1;
                for (state, entry) in entries.iter().enumerate().skip(start).take(GRANULE) {
                    let e = entry.load(Relaxed);
                    if e == resolved || placing && e == PENDING && self.place_pending(state) {
                        found += 1;
                        self.found(state);
                    }
                }
            }
        }
        // Placing a pending state may have lowered a block's bound.
        frontier.span_due[span].store(frontier.least_due(span), Relaxed);
        self.flush();
        found
    }

    /// Places the loss of a [`PENDING`] state, whose HP ran out in the layer before: lost at
    /// this layer (its entry written; returns true), or due at its slowest exit if that is later.
    fn place_pending(&mut self, state: usize) -> bool {
        self.children.clear();
        let exit_loss = match self.space.expand(state as u64, &mut self.children) {
            Node::Inner(exits) => exits.loss.unwrap_or(0),
            _ => unreachable!("a state with an HP counter has moves"),
        };
        let entry = &self.entries[state];
        if exit_loss <= self.t {
            // The entry of DTM `t`.
            entry.store(self.t + 1, Relaxed);
            true
        } else {
            entry.store(DUE | exit_loss, Relaxed);
            self.frontier.next_due[state / BLOCK].fetch_min(exit_loss, Relaxed);
            false
        }
    }
}

/// Starts fetching the cache line of an entry that is about to be updated.
#[inline(always)]
fn prefetch(entry: &AtomicU16) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        // SAFETY: a prefetch only hints the cache; it reads nothing and cannot fault.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(entry.as_ptr().cast()) };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = entry;
}

/// Resolves the parents of every state resolved at DTM `t`; returns how many there were.
fn sweep<S: Space + ?Sized>(space: &S, entries: &[AtomicU16], frontier: &Frontier, t: u16) -> u64 {
    (0..entries.len().div_ceil(SPAN))
        .into_par_iter()
        .with_min_len(4)
        .map_init(
            || Sweeper {
                space,
                entries,
                frontier,
                t,
                queued: Vec::with_capacity(4 * PIPELINE),
                listing: Successors::default(),
                children: Successors::counting(),
                prefetched: usize::MAX,
            },
            |sweeper, span| sweeper.sweep_span(span),
        )
        .sum()
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
/// the update that takes the last makes the parent lost at `t + 1`, or, when its exits all lose
/// too, leaves it [`PENDING`] for the next layer's sweep to place.
#[inline]
fn hit_parent(entries: &[AtomicU16], frontier: &Frontier, p: usize, t: u16) {
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
    if old & EXIT_LOSS == 0 {
        // The entry of DTM `t + 1`.
        entry.store(t + 2, Relaxed);
    }
    frontier.touch(t + 1, p);
}

fn atomic_u16(v: &mut [u16]) -> &[AtomicU16] {
    // SAFETY: AtomicU16 has the size and alignment of u16, and the borrow is exclusive.
    unsafe { &*(v as *mut [u16] as *const [AtomicU16]) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Silent;
    use crate::solver::test_graph::{Graph, Recorded};
    use crate::value::{BROKEN, Value};

    /// A graph followed by `broken` slots that hold no position, as an index's slots may.
    struct WithBroken {
        graph: Graph,
        broken: u64,
    }

    impl Space for WithBroken {
        fn states(&self) -> u64 {
            self.graph.states() + self.broken
        }
        fn expand(&self, state: u64, children: &mut Successors) -> Node {
            if state < self.graph.states() {
                self.graph.expand(state, children)
            } else {
                Node::Broken
            }
        }
        fn parents(&self, state: u64, parents: &mut Successors) {
            if state < self.graph.states() {
                self.graph.parents(state, parents);
            }
        }
    }

    #[test]
    fn matches_the_definition_on_random_graphs_with_exits_and_cycles() {
        for seed in 0..40 {
            let no_move = if seed % 2 == 0 { Value::LOST } else { Value::Draw };
            let graph = Graph::random(300 + seed as usize * 37, seed, no_move);
            assert_eq!(solve(&graph, &Silent), graph.reference(), "seed {seed}");
        }
    }

    #[test]
    fn the_layers_count_up_to_every_state_but_the_broken_ones() {
        let graph = Graph::random(500, 7, Value::LOST);
        let reference = graph.reference();
        let decisive = reference.iter().filter(|&&e| e != DRAW).count() as u64;
        let space = WithBroken { graph, broken: 300 };
        let recorded = Recorded::default();
        let entries = solve(&space, &recorded);
        assert_eq!(entries[..500], reference);
        assert!(entries[500..].iter().all(|&e| e == BROKEN));
        let phases = recorded.phases();
        let expected = [("moves".to_string(), 800, 800), ("layers".to_string(), 500, decisive)];
        assert_eq!(phases, expected);
    }

    #[test]
    fn skipping_blocks_misses_no_layer_on_graphs_of_many_blocks() {
        for seed in 100..104 {
            let graph = Graph::random(40 * BLOCK + 77, seed, Value::LOST);
            assert_eq!(solve(&graph, &Silent), graph.reference(), "seed {seed}");
        }
    }
}
