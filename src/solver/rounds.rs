//! Repetition rulings in rounds ("orders"), on top of the plain retrograde solve.
//!
//! Some rules (xiangqi's Asian rules) decide positions that the plain solve leaves drawn: a side
//! that can only go on checking or chasing perpetually loses. A ruled position is at the end of
//! the game, like a mate: the solve is repeated with every ruled position made a terminal loss,
//! so the ruling propagates backwards exactly like any loss and DTM counts plies to it. Each
//! round looks for new rulings among the draws that remain, until a round finds none.

use anyhow::Result;

use super::{Node, Progress, Space, Successors, cpu};
use crate::rulings::{Reason, Ruling};
use crate::value::{Entry, Value};

/// A space whose ruled states are terminal losses.
struct Ruled<'s, S: Space + ?Sized> {
    space: &'s S,
    /// A bit per state: ruled lost.
    ruled: Vec<u64>,
}

impl<'s, S: Space + ?Sized> Ruled<'s, S> {
    /// `space` with nothing ruled yet.
    fn new(space: &'s S) -> Ruled<'s, S> {
        Ruled {
            space,
            ruled: vec![0; space.states().div_ceil(64) as usize],
        }
    }

    fn rule(&mut self, state: u64) {
        self.ruled[(state / 64) as usize] |= 1 << (state % 64);
    }

    fn is_ruled(&self, state: u64) -> bool {
        self.ruled[(state / 64) as usize] >> (state % 64) & 1 == 1
    }
}

impl<S: Space + ?Sized> Space for Ruled<'_, S> {
    fn states(&self) -> u64 {
        self.space.states()
    }

    fn expand(&self, state: u64, children: &mut Successors) -> Node {
        if self.is_ruled(state) {
            Node::Terminal(Value::LOST)
        } else {
            self.space.expand(state, children)
        }
    }

    fn parents(&self, state: u64, parents: &mut Successors) {
        self.space.parents(state, parents)
    }
}

/// A solve with rulings: the entries and every ruling, ordered by state.
pub struct RuledSolution {
    /// The entry of every state, in state order.
    pub entries: Vec<Entry>,
    /// Every ruling, ordered by state.
    pub rulings: Vec<Ruling>,
    /// Rounds that ruled something.
    pub rounds: u16,
}

impl RuledSolution {
    /// A solve without rulings.
    pub fn plain(entries: Vec<Entry>) -> RuledSolution {
        RuledSolution {
            entries,
            rulings: Vec::new(),
            rounds: 0,
        }
    }
}

/// Solves `space`, then repeatedly asks `find` for new rulings among the draws of the current
/// entries and solves again with them as terminal losses, until `find` returns none. Fails
/// where `find` does (a graph of the draws too large for memory).
pub fn solve_in_rounds<S, F>(space: &S, progress: &dyn Progress, mut find: F) -> Result<RuledSolution>
where
    S: Space + ?Sized,
    F: FnMut(&[Entry]) -> Result<Vec<(u64, Reason)>>,
{
    let mut ruled = Ruled::new(space);
    let mut rulings = Vec::new();
    let mut entries = cpu::solve(&ruled, progress);
    let mut rounds = 0;
    loop {
        let found = find(&entries)?;
        if found.is_empty() {
            break;
        }
        rounds += 1;
        for (state, reason) in found {
            debug_assert_eq!(
                entries[state as usize],
                Value::Draw.entry(),
                "rulings only decide draws"
            );
            ruled.rule(state);
            rulings.push(Ruling {
                state,
                order: rounds,
                reason,
            });
        }
        entries = cpu::solve(&ruled, progress);
    }
    rulings.sort_by_key(|r| r.state);
    Ok(RuledSolution {
        entries,
        rulings,
        rounds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::Silent;
    use crate::solver::test_graph::Graph;

    #[test]
    fn a_ruled_draw_is_a_terminal_loss_that_propagates() {
        let graph = Graph::random(400, 7, Value::LOST);
        let plain = cpu::solve(&graph, &Silent);
        let draw = (0..plain.len())
            .find(|&s| plain[s] == Value::Draw.entry())
            .expect("a draw");
        let mut asked = 0;
        let solution = solve_in_rounds(&graph, &Silent, |_| {
            asked += 1;
            Ok(if asked == 1 {
                vec![(draw as u64, Reason::PerpetualCheck)]
            } else {
                vec![]
            })
        })
        .unwrap();
        assert_eq!(solution.rounds, 1);
        assert_eq!(solution.entries[draw], Value::LOST.entry());
        assert_eq!(
            solution.rulings,
            [Ruling {
                state: draw as u64,
                order: 1,
                reason: Reason::PerpetualCheck
            }]
        );
        let mut ruled = Ruled::new(&graph);
        ruled.rule(draw as u64);
        assert_eq!(solution.entries, cpu::solve(&ruled, &Silent));
        for (s, (&before, &after)) in plain.iter().zip(&solution.entries).enumerate() {
            if before != Value::Draw.entry() && s != draw {
                let (b, a) = (Value::from_entry(before), Value::from_entry(after));
                assert_eq!(b.map(|v| v.outcome()), a.map(|v| v.outcome()), "state {s}");
            }
        }
    }
}
