//! The solver's view of a chess material ([`ChessSpace`]): children, exits into smaller tables
//! (captures, promotions) and parents, in the index's slots.
//!
//! Moves keep the men in their order, so a man's move changes only its group's rank: when no
//! symmetry is involved (pawnless: the king pair is not on the a1-h8 diagonal; with pawns:
//! always), the child's slot is the parent's with that one rank replaced. King moves, diagonal
//! king pairs and positions with an en passant right canonicalise fully.
//!
//! En passant: a double step after which the opponent may capture en passant leads to the
//! en passant state of the child (see [`ChessIndex`]), whose moves are the child's plus the en
//! passant captures; the child without the right is then not reached by that move, so a
//! double step is un-made from a position only when no en passant capture of that pawn is
//! possible in it. Every parent's own en passant states are parents too.
//!
//! Pawn slices: a table with pawns is solved a slice at a time (see [`Sliced`] and
//! `pawn_slices.rs`), each in a numbering of its own; `ChessSpace::expand_position` takes the
//! numbering of its children as a `Neighbourhood`.

use std::ops::Range;

use anyhow::Result;

use super::Chess;
use super::board::{
    Bitboard, Geometry, Kind, MAX_MEN, Men, Mover, Placement, Square, backward, bit, forward, geometry, rank_mirrored,
    relative_rank,
};
use super::index::ChessIndex;
use super::moves::{en_passant_right, for_each_en_passant, for_each_move, for_each_unmove, man_on, men_of, promotes};
use crate::games::{Game, IndexSpace};
use crate::material::{GameId, Material, Side};
use crate::solver::slices::Sliced;
use crate::solver::{Exits, Node, Space, Successors};
use crate::table::{LoadedTable, TableSet};
use crate::value::{Entry, Value};

/// A solved smaller table that captures or promotions lead into.
struct Exit<'t> {
    material: Material,
    index: ChessIndex,
    table: &'t LoadedTable,
}

/// Where a move that leaves the table lands, worked out once per material rather than per
/// move: the smaller table, whether it is stored with colours swapped, and where each surviving
/// man goes among its men.
#[derive(Clone, Copy, Debug)]
struct Route {
    /// Position in [`ChessSpace::exits`].
    exit: usize,
    flip: bool,
    /// Per man, its place among the smaller material's men (`None` for the victim).
    place: [Option<usize>; MAX_MEN],
}

/// Number of promotion cases a route is kept for: none, or one of the four kinds per man.
const PROMOTION_CASES: usize = 1 + MAX_MEN * Kind::PROMOTIONS.len();

/// The number of a route: the victim (`MAX_MEN` for none) and the promotion.
#[inline]
fn route_key(victim: Option<usize>, promoted: Option<(usize, Kind)>) -> usize {
    let promotion = promoted.map_or(0, |(pawn, kind)| 1 + pawn * Kind::PROMOTIONS.len() + kind.index() - 1);
    victim.unwrap_or(MAX_MEN) * PROMOTION_CASES + promotion
}

/// Where a move of `men` that captures `victim`, promotes a pawn (man, new kind), or both lands:
/// the canonical smaller material, whether it is stored with colours swapped, and per man its
/// place among that material's men (`None` for the victim). The CPU's routes and the GPU's exits
/// both take it from here.
pub(super) fn exit_route(
    men: &Men,
    victim: Option<usize>,
    promoted: Option<(usize, Kind)>,
) -> (Material, bool, [Option<usize>; MAX_MEN]) {
    let kind_of = |m: usize| match promoted {
        Some((pawn, kind)) if pawn == m => kind,
        _ => men.kind[m],
    };
    let mut material = Material::empty(GameId::Chess);
    for side in Side::BOTH {
        material.counts[side.index()][Kind::King.index()] = 1;
    }
    for m in (0..men.count).filter(|&m| Some(m) != victim) {
        material.counts[men.side[m].index()][kind_of(m).index()] += 1;
    }
    let (canonical, flip) = material.canonical();
    let sub_men = Men::of_material(&canonical);
    let mut taken = [false; MAX_MEN];
    let mut place = [None; MAX_MEN];
    for m in (0..men.count).filter(|&m| Some(m) != victim) {
        let side = if flip { men.side[m].other() } else { men.side[m] };
        let p = sub_men
            .of(side)
            .find(|&p| !taken[p] && sub_men.kind[p] == kind_of(m))
            .expect("the smaller material is counted from the surviving men");
        taken[p] = true;
        place[m] = Some(p);
    }
    (canonical, flip, place)
}

/// The route of a move that captures `victim`, promotes a pawn, or both, when `exits` holds the
/// material it leads to (a case no move makes may have none).
fn route(men: &Men, exits: &[Exit], victim: Option<usize>, promoted: Option<(usize, Kind)>) -> Option<Route> {
    let (material, flip, place) = exit_route(men, victim, promoted);
    let exit = exits.iter().position(|e| e.material == material)?;
    Some(Route { exit, flip, place })
}

/// Every route of `men` by [`route_key`].
fn routes(men: &Men, exits: &[Exit]) -> Vec<Option<Route>> {
    let mut routes = vec![None; (MAX_MEN + 1) * PROMOTION_CASES];
    let victims = (0..men.count).map(Some).chain([None]);
    for victim in victims {
        let promotions = (0..men.count)
            .filter(|&m| men.kind[m] == Kind::Pawn && Some(m) != victim)
            .flat_map(|pawn| Kind::PROMOTIONS.map(|kind| Some((pawn, kind))))
            .chain([None]);
        for promoted in promotions {
            if victim.is_some() || promoted.is_some() {
                routes[route_key(victim, promoted)] = route(men, exits, victim, promoted);
            }
        }
    }
    routes
}

/// For counting a position's distinct children without computing them (see
/// [`Successors::counting`]), per king pair and side to move: which children are sure to be
/// distinct from every other child.
#[derive(Clone, Copy, Debug, Default)]
struct Countable {
    /// The king's targets whose children have a king pair that no other child can have.
    king: Bitboard,
    /// The men's moves (which keep the king pair) meet no king move's child.
    men: bool,
}

/// [`Countable`] of every king pair of `index`, per side to move.
fn countable(index: &ChessIndex, geo: &Geometry) -> Vec<[Countable; 2]> {
    (0..index.king_pair_count())
        .map(|own| {
            let (wk, bk) = index.pair_kings(own);
            Side::BOTH.map(|moving| {
                let mut targets = geo.pattern[Kind::King.index()][if moving == Side::First { wk } else { bk } as usize];
                let mut pairs = Vec::new();
                while targets != 0 {
                    let to = targets.trailing_zeros() as Square;
                    targets &= targets - 1;
                    let (w, b) = if moving == Side::First { (to, bk) } else { (wk, to) };
                    if let Some((pair, _)) = index.king_pair(w, b) {
                        pairs.push((to, pair));
                    }
                }
                let own = own as u32;
                Countable {
                    king: pairs
                        .iter()
                        .filter(|&&(_, pair)| pair != own && pairs.iter().filter(|&&(_, p)| p == pair).count() == 1)
                        .fold(0, |b, &(to, _)| b | bit(to)),
                    men: pairs.iter().all(|&(_, pair)| pair != own),
                }
            })
        })
        .collect()
}

/// The solver's view of one chess material.
pub struct ChessSpace<'t> {
    pub(super) index: &'t ChessIndex,
    pub(super) geo: &'static Geometry,
    /// The tables reached by captures and promotions.
    exits: Vec<Exit<'t>>,
    /// Per [`route_key`], where a capture, a promotion or both lead.
    routes: Vec<Option<Route>>,
    /// Per king pair and side to move, which children may be counted without computing them.
    countable: Vec<[Countable; 2]>,
}

impl<'t> ChessSpace<'t> {
    /// The space of `index`, with the solved tables its captures and promotions reach.
    pub fn new(index: &'t ChessIndex, tables: &'t TableSet) -> Result<ChessSpace<'t>> {
        let mut exits = Vec::new();
        for material in Chess::sub_materials(index.material()) {
            exits.push(Exit {
                material,
                index: ChessIndex::new(&material),
                table: tables.require(&material)?,
            });
        }
        let routes = routes(index.men(), &exits);
        let geo = geometry();
        Ok(ChessSpace {
            index,
            geo,
            exits,
            routes,
            countable: countable(index, geo),
        })
    }

    /// The value, for the side then to move (`next`), of the position `after` a move that
    /// captured man `victim` or promoted a pawn (man, new kind), or both (kept out of line:
    /// these moves are rare next to quiet ones).
    #[inline(never)]
    fn exit_value(
        &self,
        after: Placement,
        victim: Option<usize>,
        promoted: Option<(usize, Kind)>,
        next: Side,
    ) -> Value {
        let (exit, state) = self.exit_state(after, victim, promoted, next);
        exit.table.reached_value(state)
    }

    /// The smaller table and its state of [`ChessSpace::exit_value`]'s position.
    #[inline]
    fn exit_state(
        &self,
        after: Placement,
        victim: Option<usize>,
        promoted: Option<(usize, Kind)>,
        next: Side,
    ) -> (&Exit<'t>, u64) {
        let route = self.routes[route_key(victim, promoted)].expect("every material a move reaches has a table");
        let exit = &self.exits[route.exit];
        let flip = route.flip;
        let flip_square = |sq: Square| if flip { rank_mirrored(sq) } else { sq };
        let [wk, bk] = after.kings();
        let mut smaller = if flip {
            Placement::new([rank_mirrored(bk), rank_mirrored(wk)], &[])
        } else {
            Placement::new([wk, bk], &[])
        };
        for (m, place) in route.place[..self.index.men().count].iter().enumerate() {
            if let Some(p) = *place {
                smaller = smaller.with_man(p, flip_square(after.man(m)));
            }
        }
        let side = if flip { next.other() } else { next };
        let (slot, _) = exit.index.canonical(smaller);
        (exit, side.index() as u64 * exit.index.per_side() + slot)
    }

    /// Which region of its table the queen promotion of pawn `pawn` (of `side`, to move) reads
    /// from `placements`, those of one king pair: the states with the same side to move, pawns
    /// left and king pair (the state divided by a king pair's share of the table), from the
    /// first legal placement whose square ahead of the pawn is empty (`None` when there is
    /// none). The placements of one region read the same few blocks of every promotion table.
    pub(super) fn promotion_region(
        &self,
        side: Side,
        mut placements: impl Iterator<Item = Placement>,
        pawn: usize,
    ) -> Option<u64> {
        let men = self.index.men();
        placements.find_map(|placement| {
            let to = forward(side, placement.man(pawn));
            let empty = placement
                .occupied_apart(men.count)
                .is_some_and(|occupied| occupied & bit(to) == 0);
            if !empty || !self.index.is_legal_anywhere(side, placement) {
                return None;
            }
            let after = placement.with_man(pawn, to);
            let (exit, state) = self.exit_state(after, None, Some((pawn, Kind::Queen)), side.other());
            Some(state / exit.index.pair_multiplier())
        })
    }

    /// Prepares to push the states one move (or un-move) of `moving` away from `placement`
    /// (slot `slot`), which have `next` to move.
    /// `fast` is false when `slot` is not the slot of `placement` as it stands (an en passant
    /// state): every neighbour is then canonicalised fully.
    /// `counting`: only the number of distinct neighbours is wanted (see
    /// [`Successors::counting`]).
    #[inline]
    fn neighbours<'a>(
        &'a self,
        placement: Placement,
        slot: u64,
        moving: Side,
        next: Side,
        fast: bool,
        counting: bool,
    ) -> Neighbours<'a> {
        let base = next.index() as u64 * self.index.per_side();
        let men = self.index.men();
        let canonicalise_all = !fast || (!self.index.has_pawns() && ChessIndex::kings_on_diagonal(placement));
        let counting = counting && !canonicalise_all;
        let countable = if counting {
            let [wk, bk] = placement.kings();
            let (pair, _) = self.index.king_pair(wk, bk).expect("the kings of a legal position");
            self.countable[pair as usize][moving.index()]
        } else {
            Countable::default()
        };
        let mut partial = [0; MAX_MEN];
        if !canonicalise_all && !countable.men {
            for i in men.of(moving) {
                let group = self.index.group_of(i);
                partial[i] = base + self.index.slot_without(group, slot, placement);
            }
        }
        Neighbours {
            index: self.index,
            placement,
            moving,
            base,
            canonicalise_all,
            partial,
            countable,
        }
    }

    /// Records the captures of a piece other than a pawn, onto each of `captures`, as exits.
    #[inline]
    fn piece_captures(
        &self,
        placement: Placement,
        side: Side,
        mover: Mover,
        mut captures: Bitboard,
        exits: &mut Exits,
    ) {
        let men = self.index.men();
        let next = side.other();
        while captures != 0 {
            let to = captures.trailing_zeros() as Square;
            captures &= captures - 1;
            let victim = man_on(men, placement, next, to);
            exits.add(self.exit_value(placement.moved(side, mover, to), Some(victim), None, next));
        }
    }
    /// [`Space::expand`] of a slot, given the placement it spells out.
    #[inline]
    fn expand_slot(&self, side: Side, slot: u64, placement: Placement, children: &mut Successors) -> Node {
        if !self.index.is_legal(side, slot, placement) {
            return Node::Broken;
        }
        let neighbours = self.neighbours(placement, slot, side, side.other(), true, children.is_counting());
        self.expand_position(placement, side, None, &neighbours, children, None)
    }

    /// [`Space::expand`] of a position with an en passant right (`ep_pawn` may be captured).
    pub(super) fn expand_en_passant(
        &self,
        placement: Placement,
        side: Side,
        ep_pawn: Square,
        children: &mut Successors,
        solved: SolvedSlices,
    ) -> Node {
        let neighbours = self.neighbours(placement, 0, side, side.other(), false, children.is_counting());
        self.expand_position(placement, side, Some(ep_pawn), &neighbours, children, solved)
    }

    /// [`Space::expand`] of a legal position, its children numbered by `neighbours`: `ep_pawn`
    /// is the pawn that may be captured en passant. With `solved`, a pawn's move (into another
    /// pawn slice) is an exit.
    #[inline]
    pub(super) fn expand_position(
        &self,
        placement: Placement,
        side: Side,
        ep_pawn: Option<Square>,
        neighbours: &impl Neighbourhood,
        children: &mut Successors,
        solved: SolvedSlices,
    ) -> Node {
        let next = side.other();
        let men = self.index.men();
        let enemies = men_of(men, placement, next);
        let mut exits = Exits::default();
        let mut has_moves = false;
        for_each_move(self.geo, men, placement, side, |mover, from, targets| {
            has_moves |= targets != 0;
            let pawn = match mover {
                Mover::Man(man) if men.kind[man] == Kind::Pawn => man,
                _ => {
                    self.piece_captures(placement, side, mover, targets & enemies, &mut exits);
                    return neighbours.push(children, mover, targets & !enemies);
                }
            };
            let mut quiet = 0;
            let mut left = targets;
            while left != 0 {
                let to = left.trailing_zeros() as Square;
                left &= left - 1;
                let victim = (enemies & bit(to) != 0).then(|| man_on(men, placement, next, to));
                let after = placement.with_man(pawn, to);
                if promotes(side, to) {
                    for kind in Kind::PROMOTIONS {
                        exits.add(self.exit_value(after, victim, Some((pawn, kind)), next));
                    }
                } else if victim.is_some() {
                    exits.add(self.exit_value(after, victim, None, next));
                } else if to.abs_diff(from) == 16 && en_passant_right(self.geo, men, after, next, to) {
                    let child = self.index.en_passant_state(after, next, to);
                    match solved {
                        Some(solved) => exits.add(solved_value(solved, child)),
                        None => children.push_mapped(child),
                    }
                } else if let Some(solved) = solved {
                    exits.add(solved_value(solved, neighbours.table_state(pawn, after)));
                } else {
                    quiet |= bit(to);
                }
            }
            neighbours.push(children, mover, quiet);
        });
        if let Some(pawn) = ep_pawn {
            for_each_en_passant(self.geo, men, placement, side, pawn, |capturer, victim| {
                has_moves = true;
                let after = placement.with_man(capturer, backward(next, pawn));
                exits.add(self.exit_value(after, Some(victim), None, next));
            });
        }
        if has_moves {
            Node::Inner(exits)
        } else if placement.in_check(self.geo, men, side) {
            Node::Terminal(Value::LOST)
        } else {
            Node::Terminal(Value::Draw)
        }
    }
}

/// The states one move away from a placement: its slot less each moving man's group rank, so a
/// man's move costs one rank (no symmetry applies to it); king moves, diagonal king pairs and
/// en passant states canonicalise fully.
struct Neighbours<'a> {
    index: &'a ChessIndex,
    placement: Placement,
    moving: Side,
    /// First state of the side to move next.
    base: u64,
    /// Every neighbour needs canonicalising: the king pair is on the a1-h8 diagonal, or the
    /// state is an en passant one (see [`ChessSpace::neighbours`]).
    canonicalise_all: bool,
    /// `partial[man]`: the next state with the man's group rank taken out.
    partial: [u64; MAX_MEN],
    /// The neighbours to count, not compute, when only their number is wanted (nothing
    /// otherwise).
    countable: Countable,
}

/// How a space numbers the positions one move (or un-move) away from a position: the table's
/// slots ([`Neighbours`]), or a pawn slice's own numbering (see `pawn_slices.rs`).
pub(super) trait Neighbourhood {
    /// Pushes the states reached by moving `mover` to each of `squares`.
    fn push(&self, out: &mut Successors, mover: Mover, squares: Bitboard);

    /// The table's state reached by the move of man `man` that gives `after` (a pawn's move,
    /// which a pawn slice reads among the slices solved before).
    fn table_state(&self, man: usize, after: Placement) -> u64;
}

impl Neighbourhood for Neighbours<'_> {
    /// Canonicalised fully: only an en passant state of a pawn slice asks (its pawn moves lead
    /// to the slices solved before), and its neighbours always are.
    #[inline]
    fn table_state(&self, _: usize, after: Placement) -> u64 {
        self.base + self.index.canonical(after).0
    }

    #[inline]
    fn push(&self, out: &mut Successors, mover: Mover, mut squares: Bitboard) {
        match mover {
            Mover::Man(_) if self.countable.men => out.add_unique(squares.count_ones() as usize),
            Mover::Man(man) if !self.canonicalise_all => {
                let group = self.index.group_of(man);
                let (partial, multiplier) = (self.partial[man], group.multiplier);
                let rank = self.index.rank_after_move(group, self.placement, man);
                while squares != 0 {
                    let to = squares.trailing_zeros() as Square;
                    squares &= squares - 1;
                    out.push_plain(partial + rank(to) * multiplier);
                }
            }
            _ => {
                // Only a king's move reaches here with countable targets.
                let unique = squares & self.countable.king;
                if unique != 0 {
                    out.add_unique(unique.count_ones() as usize);
                    squares ^= unique;
                }
                while squares != 0 {
                    let to = squares.trailing_zeros() as Square;
                    squares &= squares - 1;
                    let next = self.placement.moved(self.moving, mover, to);
                    let [wk, bk] = next.kings();
                    match self.index.king_pair(wk, bk) {
                        // Kings that need no symmetry: the slot as it stands.
                        Some((pair, true)) => out.push_plain(self.base + self.index.slot_as_is(pair, next)),
                        _ => {
                            let (slot, mapped) = self.index.canonical(next);
                            out.push(self.base + slot, mapped);
                        }
                    }
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
        if self.index.is_en_passant(state) {
            let Some((placement, side, pawn)) = self.index.decode_en_passant(state) else {
                return Node::Broken;
            };
            return self.expand_en_passant(placement, side, pawn, children, None);
        }
        let (side, slot) = self.index.split(state);
        self.expand_slot(side, slot, self.index.placement(slot), children)
    }

    /// Steps from one slot's placement to the next one's where the index allows, instead of
    /// decoding every slot.
    fn expand_run(&self, states: Range<u64>, children: &mut Successors, visit: &mut dyn FnMut(Node, &mut Successors)) {
        // The placement of the state after the last one expanded, when stepped to.
        let mut stepped = None;
        for state in states {
            children.clear();
            let node = if self.index.is_en_passant(state) {
                stepped = None;
                self.expand(state, children)
            } else {
                let (side, slot) = self.index.split(state);
                let placement = stepped.unwrap_or_else(|| self.index.placement(slot));
                stepped = self.index.next_placement(placement);
                self.expand_slot(side, slot, placement, children)
            };
            visit(node, children);
        }
    }

    fn parents(&self, state: u64, parents: &mut Successors) {
        // The solver asks only for legal states: no need to check the slot again.
        let men = self.index.men();
        if self.index.is_en_passant(state) {
            // The last move was the double step of the pawn that may be captured.
            let (placement, side, pawn) = self.index.decode_en_passant(state).expect("a legal state");
            let mover = side.other();
            let man = man_on(men, placement, mover, pawn);
            let parent = placement.with_man(man, backward(mover, backward(mover, pawn)));
            if !parent.in_check(self.geo, men, side) {
                let (slot, mapped) = self.index.canonical(parent);
                parents.push(mover.index() as u64 * self.index.per_side() + slot, mapped);
                self.index
                    .en_passant_variants(parent, mover, |s| parents.push_mapped(s));
            }
            return;
        }
        let (side, slot) = self.index.split(state);
        let placement = self.index.placement(slot);
        let mover = side.other();
        let neighbours = self.neighbours(placement, slot, mover, mover, true, false);
        for_each_unmove(self.geo, men, placement, side, true, |piece, to, mut sources| {
            let pawn_move = matches!(piece, Mover::Man(man) if men.kind[man] == Kind::Pawn);
            if pawn_move && relative_rank(mover, to) == 3 && en_passant_right(self.geo, men, placement, side, to) {
                // That double step leads to the en passant state, not to this one.
                sources &= !bit(backward(mover, backward(mover, to)));
            }
            neighbours.push(parents, piece, sources);
            if self.index.ep_man(mover).is_none() {
                return;
            }
            let mut left = sources;
            while left != 0 {
                let from = left.trailing_zeros() as Square;
                left &= left - 1;
                let parent = placement.moved(mover, piece, from);
                self.index
                    .en_passant_variants(parent, mover, |s| parents.push_mapped(s));
            }
        });
    }

    fn sliced(&self) -> Option<&dyn Sliced> {
        self.index.solved_by_slices().then_some(self as &dyn Sliced)
    }
}

/// The entries of the pawn slices solved so far, when the table is solved a slice at a time.
pub(super) type SolvedSlices<'a> = Option<&'a (dyn Fn(u64) -> Entry + Sync)>;

/// The value of a state of a slice solved before, which a move reaches.
pub(super) fn solved_value(solved: &(dyn Fn(u64) -> Entry + Sync), state: u64) -> Value {
    Value::from_entry(solved(state)).expect("a move leads to a legal position")
}
