//! The xiangqi index scheme (version 1). A WGSL twin reproduces it bit for bit from the arrays of
//! [`super::board::Geometry`] and the group list of [`Layout`].
//!
//! - Pieces are numbered in *layout* order: red pieces, then black pieces; within a side the kinds
//!   in material order K R C N P A E; identical pieces (same side and kind, at most two) form one
//!   *group* of consecutive numbers.
//! - A group's *rank*: a single piece's point number `points[side][kind][square]`; a pair's
//!   combinadic rank `C(high, 2) + low` of its two point numbers (see [`crate::games::binomial`]),
//!   so the pair's order is irrelevant. The red king instead uses `red_king_reduced` (its six
//!   points on files d and e, ascending squares: d0 e0 d1 e1 d2 e2 -> 0..5).
//! - Radices: the number of points (pair: `C(points, 2)`), red king 6. Groups are mixed
//!   radix digits, the first group most significant: `slot = sum(rank_g * stride_g)` with the last
//!   group's stride 1. `per_side` is the product of the radices, and
//!   `state = side_to_move * per_side + slot` (red = 0).
//! - Left-right mirror: a position whose red king stands on file f..i is mirrored first (every
//!   square `s -> mirror[s]`). With the red king on file e, the position and its mirror image
//!   both have slots; the canonical one is the smaller slot, and the larger is a broken
//!   duplicate. Weight: 1 for a position equal to its mirror image (same slot), otherwise 2.
//! - Broken slots: two pieces on one square, a non-canonical duplicate, or the side not to move
//!   in check (flying general included).

use anyhow::{Result, bail};

use super::board::{Board, Kind, NONE, SQUARES, file, geometry};
use super::moves::in_check;
use crate::games::IndexSpace;
use crate::games::binomial::binomial;
use crate::material::{Material, Side};

/// Most pieces on the board: per side a king, two advisors, two elephants, two attackers.
pub const MAX_PIECES: usize = 14;

/// Squares of the pieces in layout order ([`NONE`] beyond the last piece, or for a captured one).
pub type Squares = [u8; MAX_PIECES];

/// The rank of each group, in group order.
pub type Ranks = [u64; MAX_PIECES];

/// A slot's index digits, from which a neighbour's slot follows by changing one digit.
pub struct Digits {
    /// The slot, in one side's share of the states.
    pub slot: u64,
    /// Its digits: the rank of each group.
    pub ranks: Ranks,
    /// With the red king on file e: the mirror image's slot and digits.
    pub mirror: Option<(u64, Ranks)>,
}

/// Identical pieces sharing one index digit.
#[derive(Clone, Copy, Debug)]
pub struct Group {
    /// 0 red, 1 black.
    pub side: usize,
    /// The kind of its pieces.
    pub kind: Kind,
    /// First piece of the group.
    pub first: usize,
    /// 1 or 2 pieces.
    pub count: usize,
    /// Number of values of the group's digit.
    pub radix: u64,
    /// `ceil(2^64 / radix)`, to divide by the radix with a multiplication.
    pub reciprocal: u64,
    /// Weight of the group's digit in the slot.
    pub stride: u64,
    /// Point number of each square for this group (`points` or `red_king_reduced`).
    pub points: &'static [u8; SQUARES],
    /// The same for the mirror image of each square.
    pub mirrored_points: &'static [u8; SQUARES],
    /// The squares by point number.
    pub squares: &'static [u8],
}

impl Group {
    /// `n / radix`, by a multiplication when `n` is below 2^32 (exact there for divisors below
    /// 2^32: Lemire, Kaser & Kurz 2019).
    #[inline(always)]
    pub fn divide(&self, n: u64) -> u64 {
        if n >> 32 == 0 {
            ((u128::from(n) * u128::from(self.reciprocal)) >> 64) as u64
        } else {
            n / self.radix
        }
    }
}

/// The pieces of one material in layout order (sides as on the board): their sides, kinds and
/// groups.
#[derive(Clone, Debug)]
pub struct Layout {
    /// Number of pieces, kings included.
    pub pieces: usize,
    /// The side of each piece (0 red, 1 black).
    pub side: [u8; MAX_PIECES],
    /// The kind of each piece.
    pub kind: [Kind; MAX_PIECES],
    /// The groups of identical pieces, most significant digit first.
    pub groups: Vec<Group>,
    /// Group of each piece.
    pub group_of: [u8; MAX_PIECES],
    /// Pieces of each side: `sides[side]` is a range start and end.
    pub sides: [(usize, usize); 2],
    /// End of each side's pieces that can give check (king, rooks, cannons, horses, pawns come
    /// first in a side's pieces).
    pub attackers_end: [usize; 2],
}

impl Layout {
    /// The layout of a material with one king per side and at most two pieces per kind.
    pub fn new(material: &Material) -> Result<Layout> {
        let mut layout = Layout {
            pieces: 0,
            side: [0; MAX_PIECES],
            kind: [Kind::King; MAX_PIECES],
            groups: Vec::new(),
            group_of: [0; MAX_PIECES],
            sides: [(0, 0); 2],
            attackers_end: [0; 2],
        };
        let g = geometry();
        for side in Side::BOTH {
            let s = side.index();
            layout.sides[s].0 = layout.pieces;
            for kind in Kind::ALL {
                let count = usize::from(material.count(side, kind.index()));
                if count == 0 {
                    continue;
                }
                if count > 2 || (kind == Kind::King && count != 1) {
                    bail!("material {material}: unsupported count of {kind:?}");
                }
                if layout.pieces + count > MAX_PIECES {
                    bail!("material {material} has more than {MAX_PIECES} pieces");
                }
                let points = u64::from(g.point_count[s][kind.index()]);
                let reduced_king = s == 0 && kind == Kind::King;
                let radix = match (reduced_king, count) {
                    (true, _) => g.red_king_squares.len() as u64,
                    (false, 1) => points,
                    (false, _) => u64::from(binomial(points as u32, 2)),
                };
                let (point_table, mirrored_points, squares): (_, _, &'static [u8]) = if reduced_king {
                    (&g.red_king_reduced, &g.red_king_reduced_mirrored, &g.red_king_squares)
                } else {
                    (
                        &g.points[s][kind.index()],
                        &g.mirrored_points[s][kind.index()],
                        &g.point_squares[s][kind.index()],
                    )
                };
                for piece in layout.pieces..layout.pieces + count {
                    layout.side[piece] = s as u8;
                    layout.kind[piece] = kind;
                    layout.group_of[piece] = layout.groups.len() as u8;
                }
                layout.groups.push(Group {
                    side: s,
                    kind,
                    first: layout.pieces,
                    count,
                    radix,
                    reciprocal: u64::MAX / radix + 1,
                    stride: 0,
                    points: point_table,
                    mirrored_points,
                    squares,
                });
                layout.pieces += count;
                if kind.attacks() {
                    layout.attackers_end[s] = layout.pieces;
                }
            }
            layout.sides[s].1 = layout.pieces;
            if material.count(side, Kind::King.index()) != 1 {
                bail!("material {material}: each side needs exactly one king");
            }
        }
        let mut stride = 1u64;
        for group in layout.groups.iter_mut().rev() {
            group.stride = stride;
            stride = stride
                .checked_mul(group.radix)
                .ok_or_else(|| anyhow::anyhow!("material {material} is too large to index"))?;
        }
        Ok(layout)
    }

    /// The number of a side's king.
    pub fn king(&self, side: usize) -> usize {
        self.sides[side].0
    }

    /// Number of slots per side to move.
    pub fn per_side(&self) -> u64 {
        self.groups.first().map_or(1, |g| g.radix * g.stride)
    }

    /// Rank of a group with its pieces on `squares`, or of their mirror images; every square
    /// must be one of the group's points.
    #[inline(always)]
    pub fn group_rank(group: &Group, squares: &Squares, mirrored: bool) -> u64 {
        let table = if mirrored { group.mirrored_points } else { group.points };
        let point = |piece: usize| u32::from(table[usize::from(squares[piece])]);
        if group.count == 1 {
            u64::from(point(group.first))
        } else {
            let (a, b) = (point(group.first), point(group.first + 1));
            u64::from(binomial(a.max(b), 2) + a.min(b))
        }
    }

    /// Slot of the pieces as they stand (red king on file d or e), or of their mirror image.
    pub fn raw_slot(&self, squares: &Squares, mirrored: bool) -> u64 {
        self.groups
            .iter()
            .map(|group| Layout::group_rank(group, squares, mirrored) * group.stride)
            .sum()
    }

    /// The canonical slot of a position, and whether the mirror was needed to reach it.
    pub fn canonical_slot(&self, squares: &Squares) -> (u64, bool) {
        let king_file = file(squares[0]);
        if king_file > 4 {
            return (self.raw_slot(squares, true), true);
        }
        let slot = self.raw_slot(squares, false);
        if king_file == 4 {
            let mirrored = self.raw_slot(squares, true);
            if mirrored < slot {
                return (mirrored, true);
            }
        }
        (slot, false)
    }

    /// The squares a slot stands for (pieces may overlap), and its digits (group ranks).
    pub fn decode_slot(&self, slot: u64) -> (Squares, Ranks) {
        let g = geometry();
        let mut squares = [NONE; MAX_PIECES];
        let mut ranks = [0; MAX_PIECES];
        let mut rest = slot;
        for (group, digit) in self.groups.iter().zip(&mut ranks).rev() {
            let quotient = group.divide(rest);
            let rank = rest - quotient * group.radix;
            rest = quotient;
            *digit = rank;
            if group.count == 1 {
                squares[group.first] = group.squares[rank as usize];
            } else {
                let [low, high] = g.pair_unrank[rank as usize];
                squares[group.first] = group.squares[usize::from(low)];
                squares[group.first + 1] = group.squares[usize::from(high)];
            }
        }
        (squares, ranks)
    }

    /// The canonical slot after piece `moved` went to another square (no capture), from
    /// the digits of the position before: only the moved piece's digit changes, unless the red
    /// king moved (which can change the mirror).
    #[inline]
    pub fn slot_after(&self, digits: &Digits, squares: &Squares, moved: usize) -> (u64, bool) {
        if moved == 0 {
            return self.canonical_slot(squares);
        }
        let g = usize::from(self.group_of[moved]);
        let group = &self.groups[g];
        let rank = Layout::group_rank(group, squares, false);
        let slot = digits.slot + rank * group.stride - digits.ranks[g] * group.stride;
        match &digits.mirror {
            Some((mirror_slot, mirror_ranks)) => {
                let rank = Layout::group_rank(group, squares, true);
                let mirrored = mirror_slot + rank * group.stride - mirror_ranks[g] * group.stride;
                if mirrored < slot {
                    (mirrored, true)
                } else {
                    (slot, false)
                }
            }
            None => (slot, false),
        }
    }
}

/// The index space of one xiangqi material.
#[derive(Clone, Debug)]
pub struct XiangqiIndex {
    /// The canonical material the index numbers.
    pub material: Material,
    /// The pieces in layout order.
    pub layout: Layout,
    /// Slots of one side to move.
    pub per_side: u64,
}

/// What a slot holds once decoded and checked.
pub struct Decoded<'l> {
    /// The pieces on the board.
    pub board: Board<'l>,
    /// The slot's digits.
    pub digits: Digits,
    /// 0 red, 1 black.
    pub side_to_move: usize,
}

impl XiangqiIndex {
    /// The index of `material` (canonical); fails for a material xiangqi tables do not support.
    pub fn new(material: &Material) -> Result<XiangqiIndex> {
        let layout = Layout::new(material)?;
        let per_side = layout.per_side();
        Ok(XiangqiIndex {
            material: *material,
            layout,
            per_side,
        })
    }

    /// The state of pieces on `squares` (any mirror image) with `side_to_move` to move.
    pub fn state_of(&self, squares: &Squares, side_to_move: usize) -> (u64, bool) {
        let (slot, mapped) = self.layout.canonical_slot(squares);
        (self.state(Side::BOTH[side_to_move], slot), mapped)
    }

    /// Decodes a state, `None` for a broken slot.
    pub fn decode_state(&self, state: u64) -> Option<Decoded<'_>> {
        let (side, slot) = self.split(state);
        let side_to_move = side.index();
        let (squares, ranks) = self.layout.decode_slot(slot);
        let mirror = if file(squares[0]) == 4 {
            let mut mirror_ranks = [0; MAX_PIECES];
            let mut mirror_slot = 0;
            for (group, rank) in self.layout.groups.iter().zip(&mut mirror_ranks) {
                *rank = Layout::group_rank(group, &squares, true);
                mirror_slot += *rank * group.stride;
            }
            if mirror_slot < slot {
                return None;
            }
            Some((mirror_slot, mirror_ranks))
        } else {
            None
        };
        let board = Board::new(&self.layout, squares)?;
        if in_check(&board, 1 - side_to_move) {
            return None;
        }
        Some(Decoded {
            board,
            digits: Digits { slot, ranks, mirror },
            side_to_move,
        })
    }
}

impl IndexSpace for XiangqiIndex {
    type Position = super::Position;

    fn per_side(&self) -> u64 {
        self.per_side
    }

    fn locate(&self, position: &super::Position) -> u64 {
        let squares = position.squares(&self.layout);
        self.state_of(&squares, position.side_to_move.index()).0
    }

    fn decode(&self, state: u64) -> Option<super::Position> {
        let decoded = self.decode_state(state)?;
        Some(super::Position::from_squares(
            &self.layout,
            &decoded.board.squares,
            decoded.side_to_move,
        ))
    }

    fn weight(&self, state: u64) -> u32 {
        match self.decode_state(state) {
            None => 0,
            Some(d) if d.digits.mirror.is_some_and(|m| m.0 == d.digits.slot) => 1,
            Some(_) => 2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::GameId;

    fn layout(name: &str) -> Layout {
        Layout::new(&Material::parse(GameId::Xiangqi, name).unwrap()).unwrap()
    }

    #[test]
    fn groups_are_mixed_radix_digits_first_most_significant() {
        let l = layout("KRvKAAEE");
        let radices: Vec<u64> = l.groups.iter().map(|g| g.radix).collect();
        assert_eq!(radices, [6, 90, 9, 10, 21]);
        let strides: Vec<u64> = l.groups.iter().map(|g| g.stride).collect();
        assert_eq!(strides, [90 * 9 * 10 * 21, 9 * 10 * 21, 10 * 21, 21, 1]);
        assert_eq!(l.per_side(), 6 * 90 * 9 * 10 * 21);
        assert_eq!((l.sides, l.attackers_end), ([(0, 2), (2, 7)], [2, 3]));
        assert_eq!(layout("KvK").per_side(), 54);
    }

    #[test]
    fn division_by_reciprocal_is_exact() {
        let l = layout("KRRvKPPAAEE");
        let mut radices: Vec<u64> = l.groups.iter().map(|g| g.radix).collect();
        radices.extend([5, 7, 9, 10, 21, 55, 1485]);
        for radix in radices {
            let group = Group {
                radix,
                reciprocal: u64::MAX / radix + 1,
                ..l.groups[0]
            };
            let mut n = 0u64;
            while n < 1 << 40 {
                for m in [n, n * radix, (n * radix).saturating_sub(1), u64::from(u32::MAX)] {
                    assert_eq!(group.divide(m), m / radix, "{m} / {radix}");
                }
                n = n * 5 / 4 + 1;
            }
        }
    }

    #[test]
    fn rejects_unsupported_counts() {
        for bad in ["KKvK", "KRRRvK", "KvR"] {
            assert!(Layout::new(&Material::parse(GameId::Xiangqi, bad).unwrap()).is_err());
        }
    }
}
