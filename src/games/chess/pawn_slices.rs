//! Pawn slices ([`Sliced`]): a chess table with pawns solved one placement of its pawns at a
//! time, the furthest advanced first.
//!
//! A slice is a placement of the pawns and its mirror image, both sides to move: in the table,
//! the white king on files a-d and the pawns on either placement (see [`ChessIndex`]). A slice
//! is solved in a numbering of its own ([`Numbering`]) in which moves cost least: the pawns fixed
//! on one of the two placements (its *anchor*), the kings and the other men each on any of the
//! 64 squares, 6 bits apiece, the white king's the most significant. A king's or man's move
//! replaces its 6 bits: no symmetry, no ranking of identical men, no dependence on where the
//! kings stand. The numbering has slots no position fills (kings adjacent, two pieces on a
//! square) and copies of positions. Identical men in another order are broken copies: only the
//! copy whose identical men stand in increasing order is solved. Both mirror images of a
//! position, when the anchor is its own mirror image, have the position's value, since the moves
//! of copies lead to copies. So the entries taken back into the table's order
//! ([`Sliced::table_entries`]) are the table's. A pawn's move is an exit into the slices solved
//! before, read in the table's numbering; positions with an en passant right are outside every
//! slice and valued once the slices they move into are solved ([`Sliced::value_after`]).

use std::collections::HashMap;
use std::ops::Range;

use anyhow::Result;
use rayon::prelude::*;

use super::board::{Bitboard, Kind, MAX_MEN, MIRROR, Mover, Placement, Square, file, relative_rank};
use super::index::ChessIndex;
use super::moves::{en_passant_right, for_each_unmove};
use super::space::{ChessSpace, Neighbourhood, solved_value};
use crate::games::IndexSpace;
use crate::material::Side;
use crate::solver::slices::{Slice, Sliced};
use crate::solver::{Node, Space, Successors, runs};
use crate::value::{BROKEN, Entry};

/// The pawn slices: one per placement of the pawns and its mirror image (a king's move may
/// mirror a position to bring it into the table), each placement one run of slots per side
/// (see [`ChessIndex`]); the level is how far the pawns have advanced. Each is solved in its
/// `Numbering`.
impl Sliced for ChessSpace<'_> {
    fn slices(&self) -> Vec<Slice> {
        self.index.pawn_slices()
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
        match self.expand_en_passant(placement, side, pawn, children, Some(solved)) {
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
        Box::new(PawnSlices {
            space: self,
            numbering: Numbering::new(self.index, ranges),
            solved,
        })
    }

    fn table_entries(
        &self,
        ranges: &[Range<u64>],
        entries: &[Entry],
        sink: &mut dyn FnMut(usize, &[Entry]) -> Result<()>,
    ) -> Result<()> {
        let index = self.index;
        let count = index.men().count;
        let numbering = Numbering::new(index, ranges);
        let len = index.slice_slots() as usize;
        // A task maps a run of one range: a long range is mapped alone, in runs; short ones
        // many at a time, a task each.
        let (run, batch) = if len > TABLE_ENTRIES_RUN {
            (TABLE_ENTRIES_RUN, 1)
        } else {
            (len, TABLE_ENTRIES_BATCH / len)
        };
        let mut out = vec![BROKEN; batch.min(ranges.len()) * len];
        for (b, batch_ranges) in ranges.chunks(batch).enumerate() {
            let out = &mut out[..batch_ranges.len() * len];
            out.par_chunks_mut(run).enumerate().for_each(|(c, entries_run)| {
                let i = b * batch + c * run / len;
                let (anchor, mirrored) = numbering.of_range[i];
                let (side, first) = index.split(ranges[i].start);
                let block = numbering.block(anchor, side);
                let start = first + (c * run % len) as u64;
                let mut stepped = None;
                for (slot, entry) in (start..).zip(entries_run.iter_mut()) {
                    let placement = stepped.unwrap_or_else(|| index.placement(slot));
                    stepped = index.next_placement(placement);
                    // A broken slot spells out a broken position of ours (the same overlap or
                    // check), whose entry is broken too.
                    let ours = if mirrored {
                        placement.mapped(MIRROR, count)
                    } else {
                        placement
                    };
                    *entry = entries[(block | numbering.code(ours)) as usize];
                }
            });
            for (j, range_entries) in out.chunks(len).enumerate() {
                sink(b * batch + j, range_entries)?;
            }
        }
        Ok(())
    }
}

/// Slots of a range mapped by one task of [`Sliced::table_entries`].
const TABLE_ENTRIES_RUN: usize = 1 << 14;
/// Slots of short ranges mapped at once by [`Sliced::table_entries`].
const TABLE_ENTRIES_BATCH: usize = 1 << 20;

/// Bits of a square in a slice's numbering.
const SQUARE_BITS: u32 = 6;

/// The numbering of the states of a few pawn slices of one level (see the module's doc):
/// `state = (anchor * 2 + side to move) << bits | code`.
struct Numbering {
    /// Bits of a code: [`SQUARE_BITS`] per king and per man other than a pawn.
    bits: u32,
    /// The men other than pawns, each with where its square stands in a code.
    others: Vec<(usize, u32)>,
    /// Per man other than a pawn, where its square stands in a code.
    man_shift: [u32; MAX_MEN],
    /// Per group of identical men other than pawns, the shifts of its men's squares, most
    /// significant first: a state is a position's only copy when they are in increasing order.
    groups: Vec<Vec<u32>>,
    /// Per man, whether it is in one of `groups`.
    grouped: [bool; MAX_MEN],
    /// Per anchor, its placement of the pawns (the kings and the other men are overwritten).
    anchors: Vec<Placement>,
    /// Per range of the table, its anchor and whether the range's placement of the pawns is
    /// the anchor's mirror image.
    of_range: Vec<(usize, bool)>,
}

impl Numbering {
    /// The numbering of the slices of `ranges` (whole slices, see [`Sliced::slices`]).
    fn new(index: &ChessIndex, ranges: &[Range<u64>]) -> Numbering {
        let men = index.men();
        let len = index.slice_slots();
        let bits = index.slice_space_bits();
        let others: Vec<(usize, u32)> = (0..men.count)
            .filter(|&m| men.kind[m] != Kind::Pawn)
            .enumerate()
            .map(|(j, m)| (m, bits - SQUARE_BITS * (3 + j as u32)))
            .collect();
        let mut man_shift = [0; MAX_MEN];
        for &(m, shift) in &others {
            man_shift[m] = shift;
        }
        let mut groups = Vec::new();
        let mut grouped = [false; MAX_MEN];
        for &(m, _) in &others {
            let group = index.group_of(m);
            if group.len > 1 && group.first == m {
                groups.push((m..m + group.len).map(|j| man_shift[j]).collect());
                grouped[m..m + group.len].fill(true);
            }
        }
        let mut anchors = Vec::new();
        let mut anchor_of = HashMap::new();
        let of_range = ranges
            .iter()
            .map(|range| {
                let placement = index.split(range.start).1 / len;
                let mirror = index.mirror_placement(placement);
                let anchor = *anchor_of.entry(placement.min(mirror)).or_insert_with(|| {
                    anchors.push(index.placement(placement.min(mirror) * len));
                    anchors.len() - 1
                });
                (anchor, placement > mirror)
            })
            .collect();
        Numbering {
            bits,
            others,
            man_shift,
            groups,
            grouped,
            anchors,
            of_range,
        }
    }

    fn states(&self) -> u64 {
        (self.anchors.len() as u64 * 2) << self.bits
    }

    /// The first state of an anchor with `side` to move.
    fn block(&self, anchor: usize, side: Side) -> u64 {
        ((anchor * 2 + side.index()) as u64) << self.bits
    }

    /// Where the square of the king of `side` stands in a code.
    fn king_shift(&self, side: Side) -> u32 {
        self.bits - SQUARE_BITS * (1 + side.index() as u32)
    }

    /// The code of a placement of an anchor's pawns (its copy in order, see
    /// [`Numbering::in_order`]).
    fn code(&self, placement: Placement) -> u64 {
        let kings = Side::BOTH.map(|side| u64::from(placement.king(side)) << self.king_shift(side));
        self.in_order(self.others.iter().fold(kings[0] | kings[1], |code, &(m, shift)| {
            code | u64::from(placement.man(m)) << shift
        }))
    }

    /// The copy of `state` whose groups of identical men have their squares in increasing
    /// order: of a position's copies, the one solved (the others are broken).
    #[inline]
    fn in_order(&self, mut state: u64) -> u64 {
        for shifts in &self.groups {
            let mut squares = [0; MAX_MEN];
            for (square, &shift) in squares.iter_mut().zip(shifts) {
                *square = state >> shift & 63;
            }
            squares[..shifts.len()].sort_unstable();
            for (&square, &shift) in squares.iter().zip(shifts) {
                state = state & !(63 << shift) | square << shift;
            }
        }
        state
    }

    /// Whether `state` is the copy of its position that is solved ([`Numbering::in_order`]).
    #[inline]
    fn is_in_order(&self, state: u64) -> bool {
        self.groups
            .iter()
            .all(|shifts| shifts.windows(2).all(|w| state >> w[0] & 63 < state >> w[1] & 63))
    }

    /// The side to move and the placement of a state.
    #[inline]
    fn decode(&self, state: u64) -> (Side, Placement) {
        let square = |shift: u32| (state >> shift & 63) as Square;
        let block = (state >> self.bits) as usize;
        let mut placement = self.anchors[block / 2];
        for side in Side::BOTH {
            placement = placement.with_king(side, square(self.king_shift(side)));
        }
        for &(m, shift) in &self.others {
            placement = placement.with_man(m, square(shift));
        }
        (Side::BOTH[block % 2], placement)
    }
}

/// The space of a few pawn slices of one level, in their [`Numbering`]: a pawn's move is an
/// exit into the slices solved before.
struct PawnSlices<'a, 't> {
    space: &'a ChessSpace<'t>,
    numbering: Numbering,
    solved: &'a (dyn Fn(u64) -> Entry + Sync),
}

/// The states one move of `moving` away from a state of [`PawnSlices`]: its code with the
/// piece's square replaced, the other side to move.
struct SliceNeighbours<'a> {
    numbering: &'a Numbering,
    /// The state with the other side to move.
    flipped: u64,
    moving: Side,
    index: &'a ChessIndex,
}

impl Neighbourhood for SliceNeighbours<'_> {
    #[inline]
    fn push(&self, out: &mut Successors, mover: Mover, mut squares: Bitboard) {
        if out.is_counting() {
            // No two moves reach one state: no symmetry applies.
            out.add_unique(squares.count_ones() as usize);
            return;
        }
        let shift = match mover {
            Mover::King => self.numbering.king_shift(self.moving),
            Mover::Man(m) => self.numbering.man_shift[m],
        };
        let base = self.flipped & !(63 << shift);
        let grouped = matches!(mover, Mover::Man(m) if self.numbering.grouped[m]);
        while squares != 0 {
            let to = squares.trailing_zeros() as u64;
            squares &= squares - 1;
            let state = base | to << shift;
            out.push_plain(if grouped { self.numbering.in_order(state) } else { state });
        }
    }

    fn table_state(&self, _: usize, after: Placement) -> u64 {
        let (slot, _) = self.index.canonical(after);
        self.moving.other().index() as u64 * self.index.per_side() + slot
    }
}

impl PawnSlices<'_, '_> {
    /// The neighbours of `state` by a move of `moving`.
    #[inline]
    fn neighbours(&self, state: u64, moving: Side) -> SliceNeighbours<'_> {
        SliceNeighbours {
            numbering: &self.numbering,
            flipped: state ^ 1 << self.numbering.bits,
            moving,
            index: self.space.index,
        }
    }
}

impl Space for PawnSlices<'_, '_> {
    fn states(&self) -> u64 {
        self.numbering.states()
    }

    fn expand(&self, state: u64, children: &mut Successors) -> Node {
        let (side, placement) = self.numbering.decode(state);
        if !self.numbering.is_in_order(state) || !self.space.index.is_legal_anywhere(side, placement) {
            return Node::Broken;
        }
        let neighbours = self.neighbours(state, side);
        self.space
            .expand_position(placement, side, None, &neighbours, children, Some(self.solved))
    }

    /// The runs of a side whose pawn may promote go king pair by king pair, the pairs of every
    /// such run ordered by the region of the promotion tables their promotions read (see
    /// [`ChessSpace::promotion_region`]: a king pair of a pawnless table; with pawns left, a
    /// king pair of one placement of them): the promotions of one region read the same few
    /// blocks of the promotion tables, which are then decompressed once for the region rather
    /// than once for each pair. The other runs come first, in state order.
    fn expansion_order(&self) -> Option<Vec<Range<u64>>> {
        let numbering = &self.numbering;
        let men = self.space.index.men();
        let per_pair = 1u64 << (numbering.bits - 2 * SQUARE_BITS);
        let mut order = Vec::new();
        let mut promoting = Vec::new();
        for (anchor, pawns) in numbering.anchors.iter().enumerate() {
            for side in Side::BOTH {
                let start = numbering.block(anchor, side);
                let promoting_pawn = men
                    .of(side)
                    .find(|&m| men.kind[m] == Kind::Pawn && relative_rank(side, pawns.man(m)) == 6);
                let Some(pawn) = promoting_pawn else {
                    order.extend(runs(start..start + (1 << numbering.bits)));
                    continue;
                };
                promoting.extend((0..64 * 64).flat_map(|pair| {
                    let states = start + pair * per_pair..start + (pair + 1) * per_pair;
                    let placements = states.clone().map(|state| numbering.decode(state).1);
                    let region = self.space.promotion_region(side, placements, pawn);
                    runs(states).map(move |run| (region, run))
                }));
            }
        }
        promoting.sort_by_key(|(region, _)| *region);
        order.extend(promoting.into_iter().map(|(_, run)| run));
        Some(order)
    }

    /// A parent keeps the pawns (their moves are exits here): the last move was a king's or
    /// another man's.
    fn parents(&self, state: u64, parents: &mut Successors) {
        let (side, placement) = self.numbering.decode(state);
        let neighbours = self.neighbours(state, side.other());
        let space = self.space;
        for_each_unmove(
            space.geo,
            space.index.men(),
            placement,
            side,
            false,
            |piece, _, sources| {
                neighbours.push(parents, piece, sources);
            },
        );
    }
}
