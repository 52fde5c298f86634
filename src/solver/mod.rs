//! The game-agnostic retrograde solver: what it needs from a game, and the CPU reference solver.
//!
//! A material's positions form a dense state space (both sides to move). The game says, for a
//! state, which in-table states its moves reach (canonical under the game's symmetries, each
//! distinct child once), what its exits into smaller, already solved tables are worth, and which
//! in-table states reach it by one un-move. The solver never sees a board.

pub mod cpu;
pub mod gpu;
pub mod rounds;
pub mod slices;
#[cfg(test)]
pub(crate) mod test_graph;
pub mod working;

use std::ops::Range;

use crate::value::Value;

/// The most states of one run of [`Space::expansion_order`]: runs are the unit of work of the
/// solver's threads when it expands the states.
pub const EXPANSION_RUN: u64 = 1 << 16;

/// `states` cut into runs of [`EXPANSION_RUN`] states (the last one shorter).
pub fn runs(states: Range<u64>) -> impl Iterator<Item = Range<u64>> {
    let end = states.end;
    states
        .step_by(EXPANSION_RUN as usize)
        .map(move |s| s..(s + EXPANSION_RUN).min(end))
}

/// One material's state space and moves, as the solver sees them.
pub trait Space: Sync {
    /// Number of states (slots) of the table, both sides to move; some slots may be broken.
    fn states(&self) -> u64;

    /// Forward analysis of `state`: pushes its distinct canonical in-table children into
    /// `children` and says what the state is.
    fn expand(&self, state: u64, children: &mut Successors) -> Node;

    /// [`Space::expand`] of each of `states` in order, each with `children` cleared first, then
    /// `visit(node, children)`: a game may step from one state to the next more cheaply than
    /// it decodes a state.
    fn expand_run(&self, states: Range<u64>, children: &mut Successors, visit: &mut dyn FnMut(Node, &mut Successors)) {
        for state in states {
            children.clear();
            let node = self.expand(state, children);
            visit(node, children);
        }
    }

    /// Runs of states in the order the solver should expand them in when it starts, each of at
    /// most [`EXPANSION_RUN`] states, when another order than the states' keeps the reads of the
    /// smaller tables together (`None`: the states' order).
    fn expansion_order(&self) -> Option<Vec<Range<u64>>> {
        None
    }

    /// Pushes every distinct canonical in-table parent of `state` (a legal position one un-move
    /// away) into `parents`. `state` is a legal position; captures are never un-made.
    fn parents(&self, state: u64, parents: &mut Successors);

    /// The table cut into slices that may be solved one at a time (see [`slices`]), when the
    /// game knows such a cut for it; `None`: the table is solved whole.
    fn sliced(&self) -> Option<&dyn slices::Sliced> {
        None
    }
}

/// What a slot is, found by expanding it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    /// Not a legal position (overlap, the side not to move in check, a non-canonical duplicate).
    Broken,
    /// The side to move has no legal move; the game says what that is worth: lost at once
    /// ([`Value::LOST`]) or drawn, the only values the solvers place at layer 0.
    Terminal(Value),
    /// A position with moves: its in-table children were pushed, its exits are summarised here.
    Inner(Exits),
}

/// Summary of the exits of a position: moves that leave the table (captures, promotions) into
/// positions whose values are already known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Exits {
    /// Shortest win through an exit (1 + DTM of the best losing child).
    pub win: Option<u16>,
    /// Slowest loss through the exits that win for the opponent (1 + largest DTM): the
    /// position's loss, if every in-table child wins too and no exit saves it.
    pub loss: Option<u16>,
    /// Some exit leads to a drawn or lost child, so this position can never be lost.
    pub saves: bool,
}

impl Exits {
    /// Records an exit whose child (opponent to move) has value `child`.
    pub fn add(&mut self, child: Value) {
        match Value::parent_of(child) {
            Value::Win(d) => {
                self.win = Some(self.win.map_or(d, |w| w.min(d)));
                self.saves = true;
            }
            Value::Loss(d) => self.loss = Some(self.loss.map_or(d, |l| l.max(d))),
            Value::Draw => self.saves = true,
        }
    }

    /// The value of a position whose every move was recorded here (at least one).
    pub fn value(&self) -> Value {
        match (self.win, self.saves) {
            (Some(win), _) => Value::Win(win),
            (None, true) => Value::Draw,
            (None, false) => Value::Loss(self.loss.expect("a position with moves")),
        }
    }
}

/// A small set of successor states (children or parents) of one state.
///
/// Symmetry can make two moves reach the same canonical state, but only when one of them needed
/// a symmetry to become canonical. Pushing states that needed none with [`Successors::push_plain`]
/// lets [`Successors::distinct`] compare only the few mapped ones.
///
/// The solver's initialisation needs only how many distinct children a state has: a set made by
/// [`Successors::counting`] lets a game count, with [`Successors::add_unique`], the states it
/// knows to be distinct from every other one pushed, without computing them.
#[derive(Clone, Debug, Default)]
pub struct Successors {
    plain: Vec<u64>,
    mapped: Vec<u64>,
    /// States counted by [`Successors::add_unique`].
    unique: usize,
    /// Only the number of distinct states is wanted.
    counting: bool,
}

impl Successors {
    /// A set whose user wants only [`Successors::count`]: games may then use
    /// [`Successors::add_unique`].
    pub fn counting() -> Successors {
        Successors {
            counting: true,
            ..Successors::default()
        }
    }

    /// Whether only the number of distinct states is wanted, so that states known to be
    /// distinct from every other one may be counted by [`Successors::add_unique`].
    #[inline]
    pub fn is_counting(&self) -> bool {
        self.counting
    }

    /// Counts `n` states that are distinct from each other and from every other state pushed
    /// or counted (only in a counting set: they are not listed by [`Successors::distinct`]).
    #[inline]
    pub fn add_unique(&mut self, n: usize) {
        debug_assert!(self.counting, "unique states counted in a set that lists its states");
        self.unique += n;
    }

    /// Empties the set for the next state.
    pub fn clear(&mut self) {
        self.plain.clear();
        self.mapped.clear();
        self.unique = 0;
    }

    /// A state reached without applying a symmetry: distinct from every other such state.
    pub fn push_plain(&mut self, state: u64) {
        self.plain.push(state);
    }

    /// A state that a symmetry made canonical: it may repeat another one.
    pub fn push_mapped(&mut self, state: u64) {
        self.mapped.push(state);
    }

    /// Pushes a state, `mapped` telling whether a symmetry made it canonical.
    pub fn push(&mut self, state: u64, mapped: bool) {
        if mapped {
            self.push_mapped(state)
        } else {
            self.push_plain(state)
        }
    }

    /// The distinct states pushed since the last [`Successors::clear`].
    pub fn distinct(&mut self) -> &[u64] {
        for i in 0..self.mapped.len() {
            let state = self.mapped[i];
            if !self.plain.contains(&state) {
                self.plain.push(state);
            }
        }
        self.mapped.clear();
        &self.plain
    }

    /// Every state pushed since the last [`Successors::clear`], a repeated one as often as it was
    /// pushed: for updates that a repeat leaves as they are.
    pub fn with_repeats(&self) -> impl Iterator<Item = u64> + '_ {
        self.plain.iter().chain(&self.mapped).copied()
    }

    /// The number of distinct states pushed or counted since the last [`Successors::clear`].
    pub fn count(&mut self) -> usize {
        self.distinct().len() + self.unique
    }
}

/// Receives progress reports from long work; the CLI draws them, tests ignore them.
pub trait Progress: Sync {
    /// Work on a new table begins.
    fn table(&self, _name: &str) {}
    /// A table of the batch was built by another process sharing the folder: done here too.
    fn built_elsewhere(&self, _name: &str) {}
    /// This process waits for another that is building a table it needs.
    fn waiting(&self, _name: &str) {}
    /// A new phase begins, `total` units long (0 when unknown).
    fn phase(&self, name: &str, total: u64);
    /// `done` more units of the current phase are finished.
    fn advance(&self, done: u64);
}

/// Progress that goes nowhere.
pub struct Silent;

impl Progress for Silent {
    fn phase(&self, _: &str, _: u64) {}
    fn advance(&self, _: u64) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distinct_drops_mapped_repeats_only() {
        let mut s = Successors::default();
        s.push_plain(4);
        s.push_mapped(7);
        s.push_plain(9);
        s.push_mapped(4);
        s.push_mapped(7);
        assert_eq!(s.with_repeats().count(), 5);
        let mut d = s.distinct().to_vec();
        d.sort();
        assert_eq!(d, [4, 7, 9]);
        let mut c = Successors::counting();
        c.add_unique(3);
        c.push_plain(4);
        c.push_mapped(4);
        c.push_mapped(5);
        assert_eq!(c.count(), 5);
        c.clear();
        assert_eq!(c.count(), 0);
    }

    #[test]
    fn exits_summarise_best_win_and_slowest_loss() {
        let mut e = Exits::default();
        e.add(Value::Win(7));
        e.add(Value::Win(3));
        assert_eq!((e.win, e.loss, e.saves), (None, Some(8), false));
        e.add(Value::Loss(10));
        e.add(Value::Loss(4));
        assert_eq!((e.win, e.saves), (Some(5), true));
        let mut d = Exits::default();
        d.add(Value::Draw);
        assert!(d.saves && d.win.is_none());
        assert_eq!((e.value(), d.value()), (Value::Win(5), Value::Draw));
        let mut l = Exits::default();
        l.add(Value::Win(7));
        l.add(Value::Win(3));
        assert_eq!(l.value(), Value::Loss(8));
    }
}
