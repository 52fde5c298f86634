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
//! possible in it. Every parent position also has the en passant states of its own as parents.
//!
//! Pawn slices: a table with pawns is solved a slice at a time (see [`Sliced`]); the space of a
//! few slices (`PawnSlices`) reads a pawn's move as an exit into the slices solved before and
//! lists only the parents in the same slice, and the en passant states are valued after their
//! slice ([`Sliced::value_after`]).

use std::ops::Range;

use anyhow::Result;

use super::Chess;
use super::board::{
    Bitboard, Geometry, Kind, MAX_MEN, Men, Mover, Placement, Square, backward, bit, file, forward, geometry,
    relative_rank,
};
use super::index::{ChessIndex, MIRROR};
use super::moves::{en_passant_right, for_each_en_passant, for_each_move, for_each_unmove, man_on, men_of, promotes};
use crate::games::{Game, IndexSpace};
use crate::material::{GameId, Material, Side};
use crate::solver::slices::{Slice, Sliced};
use crate::solver::{Exits, Node, Space, Successors, runs};
use crate::table::{LoadedTable, TableSet};
use crate::value::{BROKEN, Entry, Value};

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

/// The route of a move that captures `victim`, promotes a pawn, or both, when `exits` holds the
/// material it leads to (a case no move makes may have none).
fn route(men: &Men, exits: &[Exit], victim: Option<usize>, promoted: Option<(usize, Kind)>) -> Option<Route> {
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
    let exit = exits.iter().position(|e| e.material == canonical)?;
    let sub_men = exits[exit].index.men();
    let mut taken = [false; MAX_MEN];
    let mut place = [None; MAX_MEN];
    for m in (0..men.count).filter(|&m| Some(m) != victim) {
        let side = if flip { men.side[m].other() } else { men.side[m] };
        let p = (0..sub_men.count).find(|&p| !taken[p] && sub_men.side[p] == side && sub_men.kind[p] == kind_of(m))?;
        taken[p] = true;
        place[m] = Some(p);
    }
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
    index: &'t ChessIndex,
    geo: &'static Geometry,
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
                index: ChessIndex::new(&material)?,
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
        exit.table
            .value(state)
            .expect("a capture or promotion leads to a legal position")
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
        let flip_square = |sq: Square| if flip { sq ^ 56 } else { sq };
        let [wk, bk] = after.kings();
        let mut smaller = if flip {
            Placement::new([bk ^ 56, wk ^ 56], &[])
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
    /// from `slots`, the run of one king pair: the states with the same side to move, pawns left
    /// and king pair (the state divided by a king pair's share of the table), from the first
    /// legal slot whose square ahead of the pawn is empty (`None` when there is none). The runs
    /// of one region read the same few blocks of every promotion table.
    fn promotion_region(&self, side: Side, slots: Range<u64>, pawn: usize) -> Option<u64> {
        let men = self.index.men();
        slots.into_iter().find_map(|slot| {
            let placement = self.index.placement(slot);
            let to = forward(side, placement.man(pawn));
            let empty = placement
                .occupied_apart(men.count)
                .is_some_and(|occupied| occupied & bit(to) == 0);
            if !empty || !self.index.is_legal(side, slot, placement) {
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
        let diagonal = !fast || (!self.index.has_pawns() && ChessIndex::kings_on_diagonal(placement));
        let counting = counting && !diagonal;
        let countable = if counting {
            let [wk, bk] = placement.kings();
            let (pair, _) = self.index.king_pair(wk, bk).expect("the kings of a legal position");
            self.countable[pair as usize][moving.index()]
        } else {
            Countable::default()
        };
        let mut partial = [0; MAX_MEN];
        if !diagonal && !countable.men {
            for (i, p) in partial[..men.count].iter_mut().enumerate() {
                if men.side[i] == moving {
                    let group = self.index.group_of(i);
                    *p = base + self.index.slot_without(group, slot, placement);
                }
            }
        }
        Neighbours {
            index: self.index,
            placement,
            slot,
            moving,
            base,
            diagonal,
            partial,
            countable,
        }
    }

    /// Records the moves of a piece other than a pawn: captures as exits, the rest as children.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn piece_moves(
        &self,
        placement: Placement,
        side: Side,
        mover: Mover,
        targets: Bitboard,
        enemies: Bitboard,
        neighbours: &Neighbours<'_>,
        children: &mut Successors,
        exits: &mut Exits,
    ) {
        let men = self.index.men();
        let next = side.other();
        let mut captures = targets & enemies;
        while captures != 0 {
            let to = captures.trailing_zeros() as Square;
            captures &= captures - 1;
            let victim = man_on(men, placement, next, to);
            exits.add(self.exit_value(placement.moved(side, mover, to), Some(victim), None, next));
        }
        neighbours.push(children, mover, targets & !enemies);
    }
    /// [`Space::expand`] of a slot, given the placement it spells out.
    #[inline]
    fn expand_slot(
        &self,
        side: Side,
        slot: u64,
        placement: Placement,
        children: &mut Successors,
        solved: SolvedSlices,
    ) -> Node {
        if !self.index.is_legal(side, slot, placement) {
            return Node::Broken;
        }
        self.expand_position(placement, side, None, slot, children, solved)
    }

    /// [`Space::expand`] of a legal position: `ep_pawn` is the pawn that may be captured en
    /// passant (an en passant state, whose `slot` is ignored). With `solved`, a pawn's move
    /// (into another pawn slice) is an exit.
    #[inline]
    fn expand_position(
        &self,
        placement: Placement,
        side: Side,
        ep_pawn: Option<Square>,
        slot: u64,
        children: &mut Successors,
        solved: SolvedSlices,
    ) -> Node {
        let next = side.other();
        let neighbours = self.neighbours(placement, slot, side, next, ep_pawn.is_none(), children.is_counting());
        let men = self.index.men();
        let enemies = men_of(men, placement, next);
        let mut exits = Exits::default();
        let mut has_moves = false;
        for_each_move(self.geo, men, placement, side, |mover, from, targets| {
            has_moves |= targets != 0;
            let pawn = match mover {
                Mover::Man(man) if men.kind[man] == Kind::Pawn => man,
                _ => {
                    return self.piece_moves(
                        placement,
                        side,
                        mover,
                        targets,
                        enemies,
                        &neighbours,
                        children,
                        &mut exits,
                    );
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
                    exits.add(solved_value(solved, neighbours.man_moved(pawn, after)));
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
    /// The slot of `placement`, unless `diagonal`.
    slot: u64,
    moving: Side,
    /// First state of the side to move next.
    base: u64,
    /// Every neighbour needs canonicalising (see [`ChessSpace::neighbours`]).
    diagonal: bool,
    /// `partial[man]`: the next state with the man's group rank taken out.
    partial: [u64; MAX_MEN],
    /// The neighbours to count, not compute, when only their number is wanted (nothing
    /// otherwise).
    countable: Countable,
}

impl Neighbours<'_> {
    /// The state reached by the move of man `man` that gives `after`: the slot with the man's
    /// group rank replaced (no symmetry applies to a man's move), unless every neighbour needs
    /// canonicalising.
    #[inline]
    fn man_moved(&self, man: usize, after: Placement) -> u64 {
        if self.diagonal {
            let (slot, _) = self.index.canonical(after);
            return self.base + slot;
        }
        let group = self.index.group_of(man);
        self.base
            + self.index.slot_without(group, self.slot, self.placement)
            + self.index.group_rank(group, after) * group.multiplier
    }

    /// Pushes the states reached by moving `mover` to each of `squares`.
    #[inline]
    fn push(&self, out: &mut Successors, mover: Mover, mut squares: Bitboard) {
        match mover {
            Mover::Man(_) if self.countable.men => out.add_unique(squares.count_ones() as usize),
            Mover::Man(man) if !self.diagonal => {
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
            return self.expand_position(placement, side, Some(pawn), 0, children, None);
        }
        let (side, slot) = self.index.split(state);
        self.expand_slot(side, slot, self.index.placement(slot), children, None)
    }

    fn expand_run(&self, states: Range<u64>, children: &mut Successors, visit: &mut dyn FnMut(Node, &mut Successors)) {
        self.expand_run_with(states, children, visit, None);
    }

    fn parents(&self, state: u64, parents: &mut Successors) {
        self.parents_with(state, parents, true);
    }

    fn sliced(&self) -> Option<&dyn Sliced> {
        self.index.solved_by_slices().then_some(self as &dyn Sliced)
    }
}

impl ChessSpace<'_> {
    /// [`Space::expand_run`], stepping from one slot's placement to the next one's where the
    /// index allows instead of decoding every slot; with `solved`, pawn moves are exits.
    fn expand_run_with(
        &self,
        states: Range<u64>,
        children: &mut Successors,
        visit: &mut dyn FnMut(Node, &mut Successors),
        solved: SolvedSlices,
    ) {
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
                self.expand_slot(side, slot, placement, children, solved)
            };
            visit(node, children);
        }
    }

    /// [`Space::parents`]; without `pawn_moves`, only the parents in the state's pawn slice
    /// (no pawn un-moves, no en passant states).
    fn parents_with(&self, state: u64, parents: &mut Successors, pawn_moves: bool) {
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
        for_each_unmove(self.geo, men, placement, side, pawn_moves, |piece, to, mut sources| {
            let pawn_move = matches!(piece, Mover::Man(man) if men.kind[man] == Kind::Pawn);
            if pawn_move && relative_rank(mover, to) == 3 && en_passant_right(self.geo, men, placement, side, to) {
                // That double step leads to the en passant state, not to this one.
                sources &= !bit(backward(mover, backward(mover, to)));
            }
            neighbours.push(parents, piece, sources);
            if self.index.ep_man(mover).is_none() || !pawn_moves {
                // In a pawn slice, the en passant states are valued after it, not updated.
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
}

/// The entries of the pawn slices solved so far, when the table is solved a slice at a time.
type SolvedSlices<'a> = Option<&'a (dyn Fn(u64) -> Entry + Sync)>;

/// The value of a state of a slice solved before, which a move reaches.
fn solved_value(solved: &(dyn Fn(u64) -> Entry + Sync), state: u64) -> Value {
    Value::from_entry(solved(state)).expect("a move leads to a legal position")
}

/// The pawn slices: one per placement of the pawns and its mirror image (a king's move may
/// mirror a position to bring it into the table), each placement one run of slots per side
/// (see [`ChessIndex`]); the level is how far the pawns have advanced.
impl Sliced for ChessSpace<'_> {
    fn slices(&self) -> Vec<Slice> {
        let index = self.index;
        let (per_side, len) = (index.per_side(), index.slice_slots());
        let men = index.men();
        let mut slices = Vec::new();
        for k in 0..per_side / len {
            let pawns = index.placement(k * len);
            // The other men stay in the first king pair's share of the slice.
            let mirror = index.slot_as_is(0, pawns.mapped(MIRROR, men.count)) / len;
            if mirror < k {
                continue;
            }
            let level = (0..men.count)
                .filter(|&m| men.kind[m] == Kind::Pawn)
                .map(|m| u32::from(relative_rank(men.side[m], pawns.man(m))))
                .sum();
            let placements = if mirror == k { vec![k] } else { vec![k, mirror] };
            let ranges = Side::BOTH
                .iter()
                .flat_map(|&side| {
                    placements
                        .iter()
                        .map(move |&p| index.state(side, p * len)..index.state(side, (p + 1) * len))
                })
                .collect();
            slices.push(Slice { ranges, level });
        }
        slices
    }

    fn outside(&self) -> Range<u64> {
        2 * self.index.per_side()..self.index.states()
    }

    /// The en passant states of the placements of `ranges`: the enemy pawn that has just moved
    /// two squares on files a-d (the others are the mirror placement's), every square for the
    /// kings and the other men, only the legal positions.
    fn states_after(&self, ranges: &[Range<u64>]) -> Vec<u64> {
        let index = self.index;
        let men = index.men();
        let len = index.slice_slots();
        let free: Vec<usize> = (0..men.count).filter(|&m| men.kind[m] != Kind::Pawn).collect();
        // The kings and the other men.
        let others = 2 + free.len();
        let mut states = Vec::new();
        for range in ranges {
            let (to_move, slot) = index.split(range.start);
            let Some(first) = index.ep_man(to_move) else { continue };
            let pawns = index.placement(slot / len * len);
            let enemy = to_move.other();
            for m in (first..men.count).filter(|&m| men.side[m] == enemy && men.kind[m] == Kind::Pawn) {
                let pawn = pawns.man(m);
                if relative_rank(enemy, pawn) != 3 || file(pawn) > 3 {
                    continue;
                }
                // Kings and the other men on every square, identical men in increasing order.
                for code in 0..1u64 << (6 * others) {
                    let square = |i: usize| (code >> (6 * i) & 63) as Square;
                    let mut placement = pawns
                        .with_king(Side::First, square(0))
                        .with_king(Side::Second, square(1));
                    for (i, &man) in free.iter().enumerate() {
                        placement = placement.with_man(man, square(2 + i));
                    }
                    let ordered = free.windows(2).all(|w| {
                        index.group_of(w[0]).first != index.group_of(w[1]).first
                            || placement.man(w[0]) < placement.man(w[1])
                    });
                    if !ordered {
                        continue;
                    }
                    if let Some(occupied) = placement.occupied_apart(men.count)
                        && !placement.attacked(self.geo, men, placement.king(enemy), to_move, occupied)
                        && en_passant_right(self.geo, men, placement, to_move, pawn)
                    {
                        states.push(index.en_passant_state(placement, to_move, pawn));
                    }
                }
            }
        }
        states.sort_unstable();
        states.dedup();
        states
    }

    fn value_after(&self, state: u64, solved: &(dyn Fn(u64) -> Entry + Sync), children: &mut Successors) -> Entry {
        let Some((placement, side, pawn)) = self.index.decode_en_passant(state) else {
            return BROKEN;
        };
        children.clear();
        match self.expand_position(placement, side, Some(pawn), 0, children, Some(solved)) {
            Node::Inner(mut exits) => {
                for &child in children.distinct() {
                    exits.add(solved_value(solved, child));
                }
                exits.value().entry()
            }
            Node::Terminal(value) => value.entry(),
            Node::Broken => BROKEN,
        }
    }

    fn slice_space<'a>(
        &'a self,
        ranges: &'a [Range<u64>],
        solved: &'a (dyn Fn(u64) -> Entry + Sync),
    ) -> Box<dyn Space + 'a> {
        let len = self.index.slice_slots();
        let slices = self.index.per_side() / len;
        let mut local_base = vec![u64::MAX; 2 * slices as usize];
        for (i, range) in ranges.iter().enumerate() {
            assert_eq!(
                range.end - range.start,
                len,
                "a range is one pawn placement of one side"
            );
            let (side, slot) = self.index.split(range.start);
            local_base[side.index() * slices as usize + (slot / len) as usize] = i as u64 * len;
        }
        Box::new(PawnSlices {
            space: self,
            ranges,
            local_base,
            slices: slices as usize,
            solved,
        })
    }
}

/// The space of some pawn slices of one level: their states numbered from 0 through their runs
/// in order, each run one pawn placement of one side (`slice_slots` states, so that run `i`
/// starts at state `i * slice_slots`); pawn moves are exits into the slices solved before.
struct PawnSlices<'a, 't> {
    space: &'a ChessSpace<'t>,
    ranges: &'a [Range<u64>],
    /// Per side and pawn slice, the number of its first state ([`u64::MAX`] for the slices of
    /// other spaces).
    local_base: Vec<u64>,
    /// Pawn slices a side.
    slices: usize,
    solved: &'a (dyn Fn(u64) -> Entry + Sync),
}

impl PawnSlices<'_, '_> {
    /// The table's state of one of ours.
    fn global(&self, state: u64) -> u64 {
        let (range, offset) = self.space.index.slice_of(state);
        self.ranges[range as usize].start + offset
    }

    /// Renumbers the children the table's space listed into ours; a set that only counts them
    /// is left as it is (its count does not depend on the numbers).
    fn number_children(&self, children: &mut Successors) {
        if !children.is_counting() {
            children.renumber(|child| self.local(child));
        }
    }

    /// Our state of a table's state in one of our slices.
    #[inline]
    fn local(&self, state: u64) -> u64 {
        let index = self.space.index;
        let (side, slot) = index.split(state);
        let (slice, offset) = index.slice_of(slot);
        let base = self.local_base[side.index() * self.slices + slice as usize];
        assert_ne!(base, u64::MAX, "a parent outside the slices solved");
        base + offset
    }
}

impl Space for PawnSlices<'_, '_> {
    fn states(&self) -> u64 {
        self.ranges.len() as u64 * self.space.index.slice_slots()
    }

    fn expand(&self, state: u64, children: &mut Successors) -> Node {
        let (side, slot) = self.space.index.split(self.global(state));
        let placement = self.space.index.placement(slot);
        let node = self
            .space
            .expand_slot(side, slot, placement, children, Some(self.solved));
        self.number_children(children);
        node
    }

    fn expand_run(&self, states: Range<u64>, children: &mut Successors, visit: &mut dyn FnMut(Node, &mut Successors)) {
        let len = self.space.index.slice_slots();
        let mut visit_local = |node, children: &mut Successors| {
            self.number_children(children);
            visit(node, children);
        };
        for (i, range) in self.ranges.iter().enumerate() {
            let start = i as u64 * len;
            let (from, to) = (states.start.max(start), states.end.min(start + len));
            if from < to {
                let global = range.start + (from - start)..range.start + (to - start);
                self.space
                    .expand_run_with(global, children, &mut visit_local, Some(self.solved));
            }
        }
    }

    /// The runs of a side whose pawn may promote go king pair by king pair, the pairs of every
    /// such run ordered by the region of the promotion tables their promotions read (see
    /// [`ChessSpace::promotion_region`]: a king pair of a pawnless table; with pawns left, a
    /// king pair of one placement of them): the promotions of one region read the same few
    /// blocks of the promotion tables, which are then decompressed once for the region rather
    /// than once for each pair. The other runs come first, in state order.
    fn expansion_order(&self) -> Option<Vec<Range<u64>>> {
        let index = self.space.index;
        let men = index.men();
        let per_pair = index.pair_multiplier();
        let pairs = index.slice_slots() / per_pair;
        let mut order = Vec::new();
        let mut promoting = Vec::new();
        for (i, range) in self.ranges.iter().enumerate() {
            let start = i as u64 * index.slice_slots();
            let (side, slot) = index.split(range.start);
            let pawns = index.placement(slot);
            let promoting_pawn = (0..men.count)
                .find(|&m| men.side[m] == side && men.kind[m] == Kind::Pawn && relative_rank(side, pawns.man(m)) == 6);
            let Some(pawn) = promoting_pawn else {
                order.extend(runs(start..start + index.slice_slots()));
                continue;
            };
            promoting.extend((0..pairs).flat_map(|pair| {
                let slots = slot + pair * per_pair..slot + (pair + 1) * per_pair;
                let region = self.space.promotion_region(side, slots, pawn);
                runs(start + pair * per_pair..start + (pair + 1) * per_pair).map(move |run| (region, run))
            }));
        }
        promoting.sort_by_key(|(region, _)| *region);
        order.extend(promoting.into_iter().map(|(_, run)| run));
        Some(order)
    }

    /// A parent keeps the pawns (their moves are exits here): it stands in the state's own pawn
    /// placement with the other side to move, found by a subtraction, unless a king's move
    /// mirrored it into the mirror placement.
    fn parents(&self, state: u64, parents: &mut Successors) {
        let global = self.global(state);
        self.space.parents_with(global, parents, false);
        let index = self.space.index;
        let (side, slot) = index.split(global);
        let (slice, _) = index.slice_of(slot);
        let other = side.other();
        let first = index.state(other, slice * index.slice_slots());
        let base = self.local_base[other.index() * self.slices + slice as usize];
        debug_assert_ne!(base, u64::MAX, "a slice holds both sides to move");
        let len = index.slice_slots();
        parents.renumber(|parent| match parent.wrapping_sub(first) {
            offset if offset < len => base + offset,
            _ => self.local(parent),
        });
    }
}
