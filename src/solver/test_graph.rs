//! An explicit random game graph for testing solvers: children, parents and exit values per
//! state, with a definition-level reference solution.

use std::sync::Mutex;

use super::{Exits, Node, Progress, Space, Successors};
use crate::value::{Entry, Value};

/// Progress that records each phase's name and total, and the units advanced in it.
#[derive(Default)]
pub(crate) struct Recorded(Mutex<Vec<(String, u64, u64)>>);

impl Recorded {
    /// The phases recorded so far: name, total, units advanced.
    pub fn phases(self) -> Vec<(String, u64, u64)> {
        self.0.into_inner().unwrap()
    }
}

impl Progress for Recorded {
    fn phase(&self, name: &str, total: u64) {
        self.0.lock().unwrap().push((name.to_string(), total, 0));
    }
    fn advance(&self, done: u64) {
        self.0.lock().unwrap().last_mut().expect("a phase begun").2 += done;
    }
}

/// An explicit game graph: children per state, exit values, what "no move" is worth.
pub(crate) struct Graph {
    pub children: Vec<Vec<u64>>,
    pub parents: Vec<Vec<u64>>,
    pub exits: Vec<Vec<Value>>,
    pub no_move: Value,
}

impl Graph {
    /// A random graph with cycles, drawn from a fixed linear congruential sequence.
    pub fn random(n: usize, seed: u64, no_move: Value) -> Graph {
        let mut x = seed;
        let mut next = |m: u64| {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (x >> 33) % m
        };
        let mut children = vec![Vec::new(); n];
        let mut exits = vec![Vec::new(); n];
        for s in 0..n {
            for _ in 0..next(4) {
                let c = next(n as u64);
                if !children[s].contains(&c) {
                    children[s].push(c);
                }
            }
            for _ in 0..next(3).saturating_sub(1) {
                let d = next(12) as u16;
                exits[s].push(match next(3) {
                    0 => Value::Draw,
                    _ => Value::of_dtm(d),
                });
            }
        }
        let mut parents = vec![Vec::new(); n];
        for (s, cs) in children.iter().enumerate() {
            for &c in cs {
                parents[c as usize].push(s as u64);
            }
        }
        Graph {
            children,
            parents,
            exits,
            no_move,
        }
    }

    /// Values by the definition, one DTM at a time, with no cleverness.
    pub fn reference(&self) -> Vec<Entry> {
        let n = self.children.len();
        let mut value: Vec<Option<Value>> = vec![None; n];
        for d in 0..200u16 {
            let snapshot = value.clone();
            for s in 0..n {
                if snapshot[s].is_some() {
                    continue;
                }
                let all: Vec<Option<Value>> = self.children[s]
                    .iter()
                    .map(|&c| snapshot[c as usize])
                    .chain(self.exits[s].iter().map(|&v| Some(v)))
                    .collect();
                if all.is_empty() {
                    value[s] = Some(self.no_move);
                    continue;
                }
                let best_win = all
                    .iter()
                    .filter_map(|v| match v {
                        Some(Value::Loss(l)) => Some(l + 1),
                        _ => None,
                    })
                    .min();
                if best_win == Some(d) {
                    value[s] = Some(Value::Win(d));
                } else if best_win.is_none() {
                    let wins: Option<Vec<u16>> = all
                        .iter()
                        .map(|v| match v {
                            Some(Value::Win(w)) => Some(*w),
                            _ => None,
                        })
                        .collect();
                    if wins.and_then(|w| w.into_iter().max()).map(|w| w + 1) == Some(d) {
                        value[s] = Some(Value::Loss(d));
                    }
                }
            }
        }
        value.into_iter().map(|v| v.unwrap_or(Value::Draw).entry()).collect()
    }
}

impl Space for Graph {
    fn states(&self) -> u64 {
        self.children.len() as u64
    }
    fn expand(&self, state: u64, children: &mut Successors) -> Node {
        let s = state as usize;
        if self.children[s].is_empty() && self.exits[s].is_empty() {
            return Node::Terminal(self.no_move);
        }
        self.children[s].iter().for_each(|&c| children.push_plain(c));
        let mut exits = Exits::default();
        self.exits[s].iter().for_each(|&v| exits.add(v));
        Node::Inner(exits)
    }
    fn parents(&self, state: u64, parents: &mut Successors) {
        self.parents[state as usize].iter().for_each(|&p| parents.push_plain(p));
    }
}
