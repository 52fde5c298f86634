//! Legal moves and un-moves of placements, and the solver's view of a material ([`ChessSpace`]).
//!
//! Moves keep the men in their order, so a man's move changes only its group's rank: when the
//! king pair is not on the a1-h8 diagonal, the child's slot is the parent's with that one rank
//! replaced, and no symmetry is involved. King moves and diagonal king pairs canonicalise fully.

use anyhow::Result;

use super::board::{Bitboard, Geometry, Kind, MAX_MEN, Men, Placement, Square, bit, geometry};
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

impl Placement {
    /// The placement after `mover` (a piece of `side`) goes to `to`; a captured man keeps its
    /// square and must be ignored.
    #[inline]
    pub fn moved(self, side: Side, mover: Mover, to: Square) -> Placement {
        match mover {
            Mover::King => self.with_king(side, to),
            Mover::Man(i) => self.with_man(i, to),
        }
    }
}

/// Whether man `j` attacks `target` when the squares `occupied` block.
#[inline]
fn man_attacks(geo: &Geometry, men: &Men, placement: Placement, j: usize, target: Square, occupied: Bitboard) -> bool {
    geo.attacks_square(men.kind[j], placement.man(j), target, occupied)
}

/// Calls `visit(piece, from, targets)` for every piece of side `mover` in a legal placement,
/// with the squares its legal moves go to (captures of the men on `targets & enemies` included;
/// see [`men_of`]).
///
/// Legality comes from masks computed once per piece, not from a test per move: a man's move
/// must capture or block every enemy man that would attack its king once the man has left its
/// square, and the king may only go where no enemy piece attacks with the king removed.
#[inline]
pub fn for_each_move(
    geo: &Geometry,
    men: &Men,
    placement: Placement,
    mover: Side,
    mut visit: impl FnMut(Mover, Square, Bitboard),
) {
    let occupied = placement.occupied(men.count);
    let enemy = mover.other();
    let king = placement.king(mover);
    let enemy_king = placement.king(enemy);
    let own = men_of(men, placement, mover) | bit(king);
    for i in 0..men.count {
        if men.side[i] != mover {
            continue;
        }
        let from = placement.man(i);
        let vacated = occupied ^ bit(from);
        let mut allowed = !own & !bit(enemy_king);
        for j in 0..men.count {
            if men.side[j] == enemy && man_attacks(geo, men, placement, j, king, vacated) {
                allowed &= geo.between[placement.man(j) as usize][king as usize] | bit(placement.man(j));
            }
        }
        visit(Mover::Man(i), from, geo.attacks(men.kind[i], from, occupied) & allowed);
    }

    let king_pattern = &geo.pattern[Kind::King.index()];
    let without_king = occupied ^ bit(king);
    let mut attacked = king_pattern[enemy_king as usize];
    for j in 0..men.count {
        if men.side[j] == enemy {
            attacked |= geo.attacks(men.kind[j], placement.man(j), without_king);
        }
    }
    visit(Mover::King, king, king_pattern[king as usize] & !own & !attacked);
}

/// The squares of the men of one side.
#[inline]
pub fn men_of(men: &Men, placement: Placement, side: Side) -> Bitboard {
    (0..men.count)
        .filter(|&i| men.side[i] == side)
        .fold(0, |b, i| b | bit(placement.man(i)))
}

/// The man of side `side` on `sq` (which must hold one).
#[inline]
pub fn man_on(men: &Men, placement: Placement, side: Side, sq: Square) -> usize {
    (0..men.count)
        .find(|&j| men.side[j] == side && placement.man(j) == sq)
        .expect("a man of that side stands there")
}

/// Calls `visit(piece, to, sources)` for every piece of the side not to move in a legal
/// placement (`to_move` to move), with the empty squares it may have come from: along its move
/// pattern (no un-captures), keeping only parents in which `to_move` is not in check.
///
/// As for moves, legality is a mask per piece: a man may not go back to a square from which it
/// attacks the waiting king, and every other man that attacks that king once the piece has left
/// its square must be blocked by the square it goes back to.
#[inline]
pub fn for_each_unmove(
    geo: &Geometry,
    men: &Men,
    placement: Placement,
    to_move: Side,
    mut visit: impl FnMut(Mover, Square, Bitboard),
) {
    let occupied = placement.occupied(men.count);
    let mover = to_move.other();
    let waiting_king = placement.king(to_move);
    // Squares from which men that attack the waiting king (the piece on `to` gone) must be
    // blocked, given `to`.
    let blocks = |to: Square, skip: usize| {
        let vacated = occupied ^ bit(to);
        let mut allowed = !occupied;
        for j in 0..men.count {
            if j != skip && men.side[j] == mover && man_attacks(geo, men, placement, j, waiting_king, vacated) {
                allowed &= geo.between[placement.man(j) as usize][waiting_king as usize];
            }
        }
        allowed
    };
    for i in 0..men.count {
        if men.side[i] != mover {
            continue;
        }
        let to = placement.man(i);
        let kind = men.kind[i];
        let checking = geo.attacks(kind, waiting_king, occupied ^ bit(to));
        visit(
            Mover::Man(i),
            to,
            geo.attacks(kind, to, occupied) & blocks(to, i) & !checking,
        );
    }
    let king_pattern = &geo.pattern[Kind::King.index()];
    let king = placement.king(mover);
    visit(
        Mover::King,
        king,
        king_pattern[king as usize] & !king_pattern[waiting_king as usize] & blocks(king, usize::MAX),
    );
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
