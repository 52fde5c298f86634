//! The solver's view of a chess material ([`ChessSpace`]): children, exits into smaller tables
//! and parents, in the index's slots.
//!
//! Moves keep the men in their order, so a man's move changes only its group's rank: when the
//! king pair is not on the a1-h8 diagonal, the child's slot is the parent's with that one rank
//! replaced, and no symmetry is involved. King moves and diagonal king pairs canonicalise fully.

use anyhow::Result;

use super::board::{Bitboard, Geometry, MAX_MEN, Mover, Placement, Square, geometry};
use super::index::ChessIndex;
use super::moves::{for_each_move, for_each_unmove, man_on, men_of};
use crate::games::IndexSpace;
use crate::material::Side;
use crate::solver::{Exits, Node, Space, Successors};
use crate::table::TableSet;
use crate::value::{Entry, Value};

/// The solved table a capture of one man leads into.
struct Exit<'t> {
    index: ChessIndex,
    entries: &'t [Entry],
    /// The smaller material is stored with colours swapped (see `Game::flip`).
    flip: bool,
    /// `order[man]`: where a surviving man goes in the smaller material's men.
    order: [usize; MAX_MEN],
}

/// The solver's view of one chess material.
pub struct ChessSpace<'t> {
    index: &'t ChessIndex,
    geo: &'static Geometry,
    /// `exits[man]`: the table reached by capturing that man.
    exits: Vec<Exit<'t>>,
}

impl<'t> ChessSpace<'t> {
    /// The space of `index`, with the solved tables its captures reach.
    pub fn new(index: &'t ChessIndex, tables: &'t TableSet) -> Result<ChessSpace<'t>> {
        let men = index.men();
        let mut exits = Vec::with_capacity(men.count);
        for victim in 0..men.count {
            let smaller = index.material().without(men.side[victim], men.kind[victim].index());
            let (canonical, flip) = smaller.canonical();
            let table = tables.require(&canonical)?;
            let sub = ChessIndex::new(&canonical)?;
            let sub_men = sub.men();
            let mut taken = [false; MAX_MEN];
            let mut order = [usize::MAX; MAX_MEN];
            for man in (0..men.count).filter(|&m| m != victim) {
                let side = if flip { men.side[man].other() } else { men.side[man] };
                let place = (0..sub_men.count)
                    .find(|&p| !taken[p] && sub_men.side[p] == side && sub_men.kind[p] == men.kind[man])
                    .expect("the smaller material has every surviving man");
                taken[place] = true;
                order[man] = place;
            }
            exits.push(Exit {
                index: sub,
                entries: table.entries(),
                flip,
                order,
            });
        }
        Ok(ChessSpace {
            index,
            geo: geometry(),
            exits,
        })
    }

    /// The value, for the side then to move, of the position after a capture (kept out of line:
    /// captures are rare next to quiet moves).
    #[inline(never)]
    fn exit_value(&self, after: Placement, victim: usize, next: Side) -> Value {
        let exit = &self.exits[victim];
        let men = self.index.men();
        let flip_square = |sq: Square| if exit.flip { sq ^ 56 } else { sq };
        let [wk, bk] = after.kings();
        let mut smaller = if exit.flip {
            Placement::new([bk ^ 56, wk ^ 56], &[])
        } else {
            Placement::new([wk, bk], &[])
        };
        for man in (0..men.count).filter(|&m| m != victim) {
            smaller = smaller.with_man(exit.order[man], flip_square(after.man(man)));
        }
        let side = if exit.flip { next.other() } else { next };
        let (slot, _) = exit.index.canonical(smaller);
        let state = side.index() as u64 * exit.index.per_side() + slot;
        Value::from_entry(exit.entries[state as usize]).expect("a capture leads to a legal position")
    }

    /// Prepares to push the states one move (or un-move) of `moving` away from `placement`
    /// (slot `slot`), which have `next` to move.
    #[inline]
    fn neighbours<'a>(&'a self, placement: Placement, slot: u64, moving: Side, next: Side) -> Neighbours<'a> {
        let base = next.index() as u64 * self.index.per_side();
        let men = self.index.men();
        let mut partial = [0; MAX_MEN];
        let diagonal = ChessIndex::kings_on_diagonal(placement);
        if !diagonal {
            for (i, p) in partial[..men.count].iter_mut().enumerate() {
                if men.side[i] == moving {
                    let group = self.index.group_of(i);
                    *p = base + slot - self.index.group_rank(group, placement) * group.multiplier;
                }
            }
        }
        Neighbours {
            index: self.index,
            placement,
            moving,
            base,
            diagonal,
            partial,
        }
    }
}

/// The states one move away from a placement: its slot less each moving man's group rank, so a
/// man's move costs one rank (no symmetry applies while the king pair stays off the diagonal);
/// king moves and diagonal king pairs canonicalise fully.
struct Neighbours<'a> {
    index: &'a ChessIndex,
    placement: Placement,
    moving: Side,
    /// First state of the side to move next.
    base: u64,
    diagonal: bool,
    /// `partial[man]`: the next state with the man's group rank taken out.
    partial: [u64; MAX_MEN],
}

impl Neighbours<'_> {
    /// Pushes the states reached by moving `mover` to each of `squares`.
    #[inline]
    fn push(&self, out: &mut Successors, mover: Mover, mut squares: Bitboard) {
        match mover {
            Mover::Man(man) if !self.diagonal => {
                let group = self.index.group_of(man);
                let (partial, multiplier) = (self.partial[man], group.multiplier);
                if group.len == 1 {
                    let [wk, bk] = self.placement.kings();
                    while squares != 0 {
                        let to = squares.trailing_zeros() as Square;
                        squares &= squares - 1;
                        let free = to - Square::from(to > wk) - Square::from(to > bk);
                        out.push_plain(partial + u64::from(free) * multiplier);
                    }
                } else {
                    while squares != 0 {
                        let to = squares.trailing_zeros() as Square;
                        squares &= squares - 1;
                        let next = self.placement.with_man(man, to);
                        out.push_plain(partial + self.index.group_rank(group, next) * multiplier);
                    }
                }
            }
            _ => {
                while squares != 0 {
                    let to = squares.trailing_zeros() as Square;
                    squares &= squares - 1;
                    let next = self.placement.moved(self.moving, mover, to);
                    let (slot, mapped) = self.index.canonical(next);
                    out.push(self.base + slot, mapped);
                }
            }
        }
    }
}

impl Space for ChessSpace<'_> {
    fn states(&self) -> u64 {
        self.index.states()
    }

    fn expand(&self, state: u64, children: &mut Successors) -> Node {
        let Some((placement, side)) = self.index.decode_legal(state) else {
            return Node::Broken;
        };
        let slot = self.index.split(state).1;
        let next = side.other();
        let neighbours = self.neighbours(placement, slot, side, next);
        let men = self.index.men();
        let enemies = men_of(men, placement, next);
        let mut exits = Exits::default();
        let mut moves = 0;
        for_each_move(self.geo, men, placement, side, |mover, _, targets| {
            moves += targets.count_ones();
            let mut captures = targets & enemies;
            while captures != 0 {
                let to = captures.trailing_zeros() as Square;
                captures &= captures - 1;
                let victim = man_on(men, placement, next, to);
                let after = placement.moved(side, mover, to);
                exits.add(self.exit_value(after, victim, next));
            }
            neighbours.push(children, mover, targets & !enemies);
        });
        if moves > 0 {
            Node::Inner(exits)
        } else if placement.in_check(self.geo, self.index.men(), side) {
            Node::Terminal(Value::LOST)
        } else {
            Node::Terminal(Value::Draw)
        }
    }

    fn parents(&self, state: u64, parents: &mut Successors) {
        // The solver asks only for legal states: no need to check the slot again.
        let (side, slot) = self.index.split(state);
        let placement = self.index.placement(slot);
        let mover = side.other();
        let neighbours = self.neighbours(placement, slot, mover, mover);
        for_each_unmove(self.geo, self.index.men(), placement, side, |piece, _, sources| {
            neighbours.push(parents, piece, sources)
        });
    }
}
