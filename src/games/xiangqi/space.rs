//! The solver's view of one xiangqi material: children and parents as canonical states, with
//! child indices updated incrementally from the parent's digits, and captures looked up in the
//! smaller tables.

use anyhow::Result;

use super::board::{Board, NONE, geometry};
use super::index::{MAX_PIECES, Squares, XiangqiIndex};
use super::moves::{for_each_legal_move, for_each_unmove};
use crate::games::IndexSpace;
use crate::material::Side;
use crate::solver::{Exits, Node, Space, Successors};
use crate::table::{LoadedTable, TableSet};
use crate::value::Value;

/// Where a capture of one piece leads: the smaller material's index and how to read the
/// position in it.
pub struct ExitMap {
    /// The smaller material's index.
    pub index: XiangqiIndex,
    /// The sub-material is canonical with the colours swapped: flip ranks and sides.
    pub flip: bool,
    /// `order[j]`: the piece of this material that is piece j of the sub-material.
    pub order: Squares,
}

impl ExitMap {
    /// The exit of capturing the (non-king) piece `victim` of `index`.
    pub fn new(index: &XiangqiIndex, victim: usize) -> Result<ExitMap> {
        let layout = &index.layout;
        let side = Side::BOTH[usize::from(layout.side[victim])];
        let (sub, flip) = index.material.without(side, layout.kind[victim].index()).canonical();
        let sub_index = XiangqiIndex::new(&sub)?;
        let mut order = [NONE; MAX_PIECES];
        for group in &sub_index.layout.groups {
            let own_side = if flip { 1 - group.side } else { group.side };
            let own = layout
                .groups
                .iter()
                .find(|g| g.side == own_side && g.kind == group.kind)
                .expect("every sub-material group comes from a group of the material");
            let pieces = (own.first..own.first + own.count).filter(|&s| s != victim);
            for (j, piece) in (group.first..group.first + group.count).zip(pieces) {
                order[j] = piece as u8;
            }
        }
        Ok(ExitMap {
            index: sub_index,
            flip,
            order,
        })
    }
}

/// An exit with the solved table it reads.
struct ExitTable<'t> {
    map: ExitMap,
    table: &'t LoadedTable,
}

/// One material's states, moves and exits.
pub struct XiangqiSpace<'t> {
    index: &'t XiangqiIndex,
    /// Per captured piece (kings are never captured).
    exits: Vec<Option<ExitTable<'t>>>,
}

impl<'t> XiangqiSpace<'t> {
    /// The space of `index`, with the solved tables its captures reach (fails when one is missing).
    pub fn new(index: &'t XiangqiIndex, tables: &'t TableSet) -> Result<XiangqiSpace<'t>> {
        let layout = &index.layout;
        let mut exits = Vec::with_capacity(layout.pieces);
        for victim in 0..layout.pieces {
            if victim == layout.king(usize::from(layout.side[victim])) {
                exits.push(None);
                continue;
            }
            let map = ExitMap::new(index, victim)?;
            exits.push(Some(ExitTable {
                table: tables.require(&map.index.material)?,
                map,
            }));
        }
        Ok(XiangqiSpace { index, exits })
    }

    /// The value, for the side to move there, of the position after a capture of `victim`.
    pub(crate) fn exit_value(&self, board: &Board, victim: usize, child_to_move: usize) -> Value {
        let exit = self.exits[victim].as_ref().expect("only non-king pieces are captured");
        let (map, g) = (&exit.map, geometry());
        let mut squares = [NONE; MAX_PIECES];
        for (j, square) in squares.iter_mut().enumerate().take(map.index.layout.pieces) {
            let s = board.squares[usize::from(map.order[j])];
            *square = if map.flip { g.flip[usize::from(s)] } else { s };
        }
        let side_to_move = if map.flip { 1 - child_to_move } else { child_to_move };
        let (state, _) = map.index.state_of(&squares, side_to_move);
        exit.table.reached_value(state)
    }
}

impl Space for XiangqiSpace<'_> {
    fn states(&self) -> u64 {
        self.index.states()
    }

    fn expand(&self, state: u64, children: &mut Successors) -> Node {
        let Some(mut decoded) = self.index.decode_state(state) else {
            return Node::Broken;
        };
        let layout = &self.index.layout;
        let mover = decoded.side_to_move;
        let child_base = (1 - mover) as u64 * self.index.per_side;
        let mut exits = Exits::default();
        let mut any = false;
        for_each_legal_move(&mut decoded.board, mover, |board, piece, victim| {
            any = true;
            if victim == NONE {
                let (child, mapped) = layout.slot_after(&decoded.digits, &board.squares, piece);
                children.push(child_base + child, mapped);
            } else {
                exits.add(self.exit_value(board, usize::from(victim), 1 - mover));
            }
        });
        if any {
            Node::Inner(exits)
        } else {
            Node::Terminal(Value::LOST)
        }
    }

    fn parents(&self, state: u64, parents: &mut Successors) {
        let Some(mut decoded) = self.index.decode_state(state) else {
            return;
        };
        let layout = &self.index.layout;
        let unmover = 1 - decoded.side_to_move;
        let parent_base = unmover as u64 * self.index.per_side;
        for_each_unmove(&mut decoded.board, unmover, |board, piece| {
            let (parent, mapped) = layout.slot_after(&decoded.digits, &board.squares, piece);
            parents.push(parent_base + parent, mapped);
        });
    }
}
