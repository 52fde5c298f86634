//! Legal moves and un-moves of placements, and the solver's view of a material ([`ChessSpace`]).
//!
//! Moves keep the men in their order, so a man's move changes only its group's rank: when the
//! king pair is not on the a1-h8 diagonal, the child's slot is the parent's with that one rank
//! replaced, and no symmetry is involved. King moves and diagonal king pairs canonicalise fully.

use anyhow::Result;

use super::board::{Geometry, Kind, MAX_MEN, Men, Placement, Square, bit, geometry};
use super::index::ChessIndex;
use crate::games::IndexSpace;
use crate::material::Side;
use crate::solver::{Exits, Node, Space, Successors};
use crate::table::TableSet;
use crate::value::{Entry, Value};

/// Which piece moves: the king of the moving side, or a man by its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    King,
    Man(usize),
}

/// One legal move of a placement.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    pub mover: Mover,
    pub from: Square,
    pub to: Square,
    /// The man captured on `to`, if any.
    pub victim: Option<usize>,
    /// The placement after the move; a captured man keeps its square there and must be ignored.
    pub after: Placement,
}

/// Calls `visit` for every legal move of side `mover` in a legal placement.
#[inline]
pub fn for_each_move(geo: &Geometry, men: &Men, placement: &Placement, mover: Side, mut visit: impl FnMut(Step)) {
    let occupied = placement.occupied(men.count);
    let enemy = mover.other();
    let mut own = bit(placement.kings[mover.index()]);
    for i in 0..men.count {
        if men.side[i] == mover {
            own |= bit(placement.men[i]);
        }
    }
    let king = placement.kings[mover.index()];
    let enemy_king = placement.kings[enemy.index()];
    let victim_on = |to: Square| (0..men.count).find(|&j| men.side[j] == enemy && placement.men[j] == to);

    for i in 0..men.count {
        if men.side[i] != mover {
            continue;
        }
        let from = placement.men[i];
        let mut targets = geo.attacks(men.kind[i], from, occupied) & !own & !bit(enemy_king);
        while targets != 0 {
            let to = targets.trailing_zeros() as Square;
            targets &= targets - 1;
            let victim = if occupied & bit(to) != 0 { victim_on(to) } else { None };
            let mut after = *placement;
            after.men[i] = to;
            let occ = (occupied ^ bit(from)) | bit(to);
            if !after.attacked(geo, men, king, enemy, occ, victim.unwrap_or(usize::MAX)) {
                visit(Step {
                    mover: Mover::Man(i),
                    from,
                    to,
                    victim,
                    after,
                });
            }
        }
    }

    let king_pattern = &geo.pattern[Kind::King.index()];
    let mut targets = king_pattern[king as usize] & !own & !king_pattern[enemy_king as usize];
    while targets != 0 {
        let to = targets.trailing_zeros() as Square;
        targets &= targets - 1;
        let victim = if occupied & bit(to) != 0 { victim_on(to) } else { None };
        let mut after = *placement;
        after.kings[mover.index()] = to;
        let occ = (occupied ^ bit(king)) | bit(to);
        if !after.attacked(geo, men, to, enemy, occ, victim.unwrap_or(usize::MAX)) {
            visit(Step {
                mover: Mover::King,
                from: king,
                to,
                victim,
                after,
            });
        }
    }
}

/// Calls `visit(mover, parent)` for every un-move in a legal placement with `to_move` to move:
/// the other side takes one of its pieces back to an empty square along its move pattern (no
/// un-captures), keeping only parents in which `to_move` is not in check.
#[inline]
pub fn for_each_unmove(
    geo: &Geometry,
    men: &Men,
    placement: &Placement,
    to_move: Side,
    mut visit: impl FnMut(Mover, Placement),
) {
    let occupied = placement.occupied(men.count);
    let mover = to_move.other();
    let waiting_king = placement.kings[to_move.index()];
    for i in 0..men.count {
        if men.side[i] != mover {
            continue;
        }
        let to = placement.men[i];
        let mut sources = geo.attacks(men.kind[i], to, occupied) & !occupied;
        while sources != 0 {
            let from = sources.trailing_zeros() as Square;
            sources &= sources - 1;
            let mut parent = *placement;
            parent.men[i] = from;
            let occ = (occupied ^ bit(to)) | bit(from);
            if !parent.attacked(geo, men, waiting_king, mover, occ, usize::MAX) {
                visit(Mover::Man(i), parent);
            }
        }
    }
    let king_pattern = &geo.pattern[Kind::King.index()];
    let king = placement.kings[mover.index()];
    let mut sources = king_pattern[king as usize] & !occupied & !king_pattern[waiting_king as usize];
    while sources != 0 {
        let from = sources.trailing_zeros() as Square;
        sources &= sources - 1;
        let mut parent = *placement;
        parent.kings[mover.index()] = from;
        let occ = (occupied ^ bit(king)) | bit(from);
        if !parent.attacked(geo, men, waiting_king, mover, occ, usize::MAX) {
            visit(Mover::King, parent);
        }
    }
}

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

    /// The value, for the side then to move, of the position after a capture.
    #[inline]
    fn exit_value(&self, after: &Placement, victim: usize, next: Side) -> Value {
        let exit = &self.exits[victim];
        let men = self.index.men();
        let flip_square = |sq: Square| if exit.flip { sq ^ 56 } else { sq };
        let mut smaller = Placement {
            kings: if exit.flip {
                [after.kings[1] ^ 56, after.kings[0] ^ 56]
            } else {
                after.kings
            },
            men: [0; MAX_MEN],
        };
        for man in (0..men.count).filter(|&m| m != victim) {
            smaller.men[exit.order[man]] = flip_square(after.men[man]);
        }
        let side = if exit.flip { next.other() } else { next };
        let (slot, _) = exit.index.canonical(&smaller);
        let state = side.index() as u64 * exit.index.per_side() + slot;
        Value::from_entry(exit.entries[state as usize]).expect("a capture leads to a legal position")
    }

    /// Pushes the canonical state of `next` (side `side` to move), reached from `placement`
    /// whose slot is `slot` by moving `mover`.
    #[inline]
    fn push(&self, out: &mut Successors, placement: &Placement, slot: u64, mover: Mover, next: &Placement, side: Side) {
        let base = side.index() as u64 * self.index.per_side();
        match mover {
            Mover::Man(man) if !ChessIndex::kings_on_diagonal(placement) => {
                let group = self.index.group_of(man);
                let old = self.index.group_rank(group, placement);
                let new = self.index.group_rank(group, next);
                out.push_plain(base + slot - old * group.multiplier + new * group.multiplier);
            }
            _ => {
                let (child, mapped) = self.index.canonical(next);
                out.push(base + child, mapped);
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
        let mut exits = Exits::default();
        let mut moves = 0;
        for_each_move(self.geo, self.index.men(), &placement, side, |step| {
            moves += 1;
            match step.victim {
                Some(victim) => exits.add(self.exit_value(&step.after, victim, next)),
                None => self.push(children, &placement, slot, step.mover, &step.after, next),
            }
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
        let Some((placement, side)) = self.index.decode_legal(state) else {
            return;
        };
        let slot = self.index.split(state).1;
        let mover = side.other();
        for_each_unmove(self.geo, self.index.men(), &placement, side, |man, parent| {
            self.push(parents, &placement, slot, man, &parent, mover)
        });
    }
}
