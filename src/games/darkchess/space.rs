//! The solver's view of one dark chess material: in-table children and parents as canonical
//! states, and captures as exits into the smaller tables (or into a side with no pieces).

use anyhow::Result;

use super::DarkChessRules;
use super::Position;
use super::board::{Board, GEOMETRY, KINDS, for_each_square};
use super::index::{DarkIndex, GroupMasks, colex};
use super::moves::CaptureRules;
use crate::games::IndexSpace;
use crate::material::{Material, Side};
use crate::solver::{Exits, Node, Space, Successors};
use crate::table::{LoadedTable, TableSet};
use crate::value::Value;

/// Where capturing a piece of one (side, kind) leads.
enum CaptureExit<'t> {
    /// It was that side's last piece: the side to move next has no pieces and has lost.
    Lost,
    /// A position of a smaller table; `swap` when that table's material has the sides swapped.
    Table {
        index: DarkIndex,
        table: &'t LoadedTable,
        swap: bool,
    },
}

/// The smaller table that capturing a piece of `side`'s `kind` in `material` leads to, as its
/// canonical material and whether that has the sides swapped; `None` when it was the side's
/// last piece (the game is over). The CPU's exits and the GPU's data both read it.
pub(super) fn capture_route(material: &Material, side: Side, kind: usize) -> Option<(Material, bool)> {
    let after = material.without(side, kind);
    (after.side_pieces(side) > 0).then(|| after.canonical())
}

/// A capture: the attacker's kind and squares, the victim's kind.
#[derive(Clone, Copy)]
struct Capture {
    kind: usize,
    from: u32,
    to: u32,
    victim: usize,
}

/// One material's states, moves and exits.
pub struct DarkSpace<'t> {
    index: &'t DarkIndex,
    captures: CaptureRules,
    no_move: Value,
    exits: [[Option<CaptureExit<'t>>; KINDS]; 2],
}

impl<'t> DarkSpace<'t> {
    /// The space of `index` under `rules`; every table a capture reaches must be in `tables`.
    pub fn new(index: &'t DarkIndex, rules: DarkChessRules, tables: &'t TableSet) -> Result<Self> {
        let material = index.material();
        let mut exits: [[Option<CaptureExit<'t>>; KINDS]; 2] = Default::default();
        for side in Side::BOTH {
            for (kind, exit) in exits[side.index()].iter_mut().enumerate() {
                if material.count(side, kind) == 0 {
                    continue;
                }
                *exit = Some(match capture_route(material, side, kind) {
                    None => CaptureExit::Lost,
                    Some((canonical, swap)) => CaptureExit::Table {
                        index: DarkIndex::new(&canonical)?,
                        table: tables.require(&canonical)?,
                        swap,
                    },
                });
            }
        }
        Ok(DarkSpace {
            index,
            captures: CaptureRules::new(rules),
            no_move: rules.no_move_value(),
            exits,
        })
    }

    /// The value (for the side then to move) of the position after `side` captures.
    fn capture_value(&self, board: &Board, side: Side, capture: Capture) -> Value {
        let Capture { kind, from, to, victim } = capture;
        let enemy = side.other();
        match &self.exits[enemy.index()][victim] {
            Some(CaptureExit::Lost) => Value::LOST,
            Some(CaptureExit::Table { index, table, swap }) => {
                let mut after = *board;
                after.masks[side.index()][kind] ^= 1 << from | 1 << to;
                after.masks[enemy.index()][victim] ^= 1 << to;
                let position = if *swap {
                    Position {
                        board: after.swapped(),
                        side_to_move: side,
                    }
                } else {
                    Position {
                        board: after,
                        side_to_move: enemy,
                    }
                };
                table.reached_value(index.locate(&position))
            }
            None => unreachable!("the material has the victim"),
        }
    }

    /// Pushes the canonical states reached when `mover` steps one piece, with `next` to move;
    /// says whether there was any.
    fn push_steps(&self, gm: &GroupMasks, slot: u64, mover: Side, next: Side, out: &mut Successors) -> bool {
        let index = self.index;
        let base = next.index() as u64 * index.per_side();
        let symmetric = index.symmetric_anchor(slot);
        let groups = index.groups().len();
        let empty = !gm[..groups].iter().fold(0, |acc, &m| acc | m);
        let mut stepped = false;
        for &j in index.side_groups(mover) {
            let group = &index.groups()[j];
            let stride = group.stride;
            if j > 0 && !symmetric && group.count == 1 {
                // The anchor stays where it is: only this piece's square (its digit) changes.
                let from = gm[j].trailing_zeros();
                let targets = GEOMETRY.steps[from as usize] & empty;
                stepped |= targets != 0;
                let origin = base + slot - u64::from(from) * stride;
                for_each_square(targets, |to| out.push_plain(origin + u64::from(to) * stride));
            } else if j > 0 && !symmetric {
                // Likewise, with the group's colex rank as its digit.
                let origin = base + slot - u64::from(colex(gm[j])) * stride;
                for_each_square(gm[j], |from| {
                    let targets = GEOMETRY.steps[from as usize] & empty;
                    stepped |= targets != 0;
                    let others = gm[j] ^ 1 << from;
                    for_each_square(targets, |to| {
                        out.push_plain(origin + u64::from(colex(others | 1 << to)) * stride)
                    });
                });
            } else {
                for_each_square(gm[j], |from| {
                    let targets = GEOMETRY.steps[from as usize] & empty;
                    stepped |= targets != 0;
                    for_each_square(targets, |to| {
                        let unmapped = if symmetric {
                            None
                        } else {
                            index.anchor_step_slot(slot, from, to)
                        };
                        if let Some(child) = unmapped {
                            out.push_plain(base + child);
                        } else {
                            let mut child = *gm;
                            child[j] ^= 1 << from | 1 << to;
                            let (s, g) = index.canonical_slot(&child);
                            out.push(base + s, g != 0);
                        }
                    });
                });
            }
        }
        stepped
    }
}

impl Space for DarkSpace<'_> {
    fn states(&self) -> u64 {
        self.index.states()
    }

    fn expand(&self, state: u64, children: &mut Successors) -> Node {
        let index = self.index;
        let (side, slot) = index.split(state);
        let Some(gm) = index.decode_groups(slot) else {
            return Node::Broken;
        };
        let board = index.board(&gm);
        let mut exits = Exits::default();
        let mut captured = false;
        self.captures.for_each_capture(&board, side, |kind, from, to, victim| {
            captured = true;
            let capture = Capture { kind, from, to, victim };
            exits.add(self.capture_value(&board, side, capture));
        });
        let stepped = self.push_steps(&gm, slot, side, side.other(), children);
        if !captured && !stepped {
            return Node::Terminal(self.no_move);
        }
        Node::Inner(exits)
    }

    fn parents(&self, state: u64, parents: &mut Successors) {
        let index = self.index;
        let (side, slot) = index.split(state);
        let gm = index
            .decode_groups(slot)
            .expect("the solver asks only for the parents of legal states");
        let previous = side.other();
        self.push_steps(&gm, slot, previous, previous, parents);
    }
}
