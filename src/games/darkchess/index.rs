//! The index of one dark chess material, reduced by the 4 symmetries of the board.
//!
//! # Scheme (index version 1; a GPU twin reproduces it bit for bit)
//! - **Groups.** The pieces form groups of identical pieces, one per (side, kind) present, with
//!   `count` pieces each. The *natural order* is first side then second side, kinds K A E R N C P
//!   within a side. Group order: the *anchor* first, which is the group with the smallest count
//!   (ties: the earliest in the natural order), then the other groups of two or more pieces in the
//!   natural order, then the other single pieces in the natural order.
//! - **Anchor digit.** `reps[k]` lists, in increasing mask order, every k-square mask that is the
//!   smallest (as a `u32`) of its 4 images under the symmetries. The anchor digit is the position
//!   of the anchor's mask in that list; its radix is the list's length (8 for one piece: the
//!   squares a1-d1 and a2-d2). `canon[k][colex(mask)] = rep << 2 | g` maps any k-square mask to
//!   its representative's position `rep` and the smallest symmetry `g` with
//!   `transform(mask, g) = reps[k][rep]`, where `colex(mask) = sum_i C(s_i, i + 1)` over the
//!   mask's squares `s_0 < s_1 < ...` (masks in increasing order have colex 0, 1, 2, ...).
//! - **Other digits.** A group of `k >= 2` pieces has digit `colex(mask)`, radix `C(32, k)`; a
//!   single piece has its square as digit, radix 32. Slots where two pieces share a square are
//!   broken. (Ranking over all 32 squares wastes some slots but makes a step of a single piece
//!   from `s` to `t` change the slot by exactly `(t - s) * stride`.)
//! - **Slot.** Mixed radix with the anchor most significant:
//!   `slot = sum_j digit_j * stride_j`, `stride_last = 1`, `stride_j = stride_{j+1} * radix_{j+1}`.
//!   The single pieces after the anchor are thus 5-bit fields at the bottom of the slot, the
//!   last one lowest. `state = side_to_move * per_side + slot` with `per_side` the product of the
//!   radices.
//! - **Sizes.** `n` single pieces take `2 * 8 * 32^(n - 1)` states: 2^19 for 4 pieces, 2^24 for
//!   5, 2^29 for 6 (so a 6-piece state still fits a `u32`); groups of identical pieces take less.
//! - **Symmetry.** A position is first mapped by the `g` of its anchor's `canon` entry. When the
//!   representative is itself symmetric (`stabilizer[rep]`, a bit set over `g` in 1..4, is not
//!   empty; never for a single anchor piece), the position and its images under the stabilizer
//!   all have that anchor, and the one with the smallest slot is canonical. Slots whose position
//!   is not canonical are broken (duplicates).

use std::sync::OnceLock;

use anyhow::{Result, bail};

use super::Position;
use super::board::{Board, GEOMETRY, KINDS, MAX_GROUP, SQUARES, SYMMETRIES, transform};
use crate::games::IndexSpace;
use crate::games::binomial::binomial;
use crate::material::{Material, Side};

/// The most pieces of a material the index numbers: every material of 12 pieces has fewer than
/// 2^62 slots a side, and 13 single pieces (the anchor's classes times 32^12) would have more.
pub const MAX_PIECES: usize = 12;
/// The most groups a material has (every kind on both sides).
pub const MAX_GROUPS: usize = 2 * KINDS;
/// Masks of the groups, in index order.
pub type GroupMasks = [u32; MAX_GROUPS];

/// One group of identical pieces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Group {
    /// The side the pieces belong to.
    pub side: Side,
    /// Their kind, an index in the order K A E R N C P.
    pub kind: usize,
    /// Number of pieces in the group.
    pub count: usize,
    /// Number of values of the group's digit.
    pub radix: u64,
    /// Weight of the group's digit in the slot.
    pub stride: u64,
}

/// Tables of the sets of `k` squares (see the module doc).
#[derive(Debug)]
pub struct SquareSets {
    /// Every k-square mask, in increasing order: the mask of each colex rank.
    pub by_colex: Vec<u32>,
    /// The orbit-smallest masks, increasing: the anchor representatives.
    pub reps: Vec<u32>,
    /// By colex rank of any k-square mask: `rep << 2 | g`.
    pub canon: Vec<u32>,
    /// By representative: bit `g` set when symmetry `g != 0` maps it onto itself.
    pub stabilizer: Vec<u32>,
}

impl SquareSets {
    /// The tables for sets of `k` squares, computed once.
    pub fn of(k: usize) -> &'static SquareSets {
        static TABLES: [OnceLock<SquareSets>; MAX_GROUP + 1] = [const { OnceLock::new() }; MAX_GROUP + 1];
        TABLES[k].get_or_init(|| SquareSets::new(k))
    }

    fn new(k: usize) -> SquareSets {
        let by_colex = k_masks(k);
        let smallest = |m: u32| (0..SYMMETRIES).map(|g| transform(m, g)).min().unwrap_or(m);
        let reps: Vec<u32> = by_colex.iter().copied().filter(|&m| smallest(m) == m).collect();
        let canon = by_colex
            .iter()
            .map(|&m| {
                let min = smallest(m);
                let g = (0..SYMMETRIES).find(|&g| transform(m, g) == min).unwrap_or(0);
                let rep = reps.binary_search(&min).expect("the minimum is a representative");
                (rep as u32) << 2 | g as u32
            })
            .collect();
        let stabilizer = reps
            .iter()
            .map(|&r| {
                (1..SYMMETRIES)
                    .filter(|&g| transform(r, g) == r)
                    .fold(0, |s, g| s | 1 << g)
            })
            .collect();
        SquareSets {
            by_colex,
            reps,
            canon,
            stabilizer,
        }
    }
}

/// Every mask of `k` squares, in increasing order (Gosper's next-combination step).
fn k_masks(k: usize) -> Vec<u32> {
    let count = binomial(SQUARES as u32, k) as usize;
    let mut masks = Vec::with_capacity(count);
    let mut m: u64 = (1 << k) - 1;
    while masks.len() < count {
        masks.push(m as u32);
        let low = m & m.wrapping_neg();
        let ripple = m + low;
        m = ripple | (((m ^ ripple) >> 2) / low);
    }
    masks
}

/// Colex rank of a mask among the masks with as many squares.
#[inline]
pub fn colex(mask: u32) -> u32 {
    let mut rank = 0;
    let mut m = mask;
    let mut i = 1;
    while m != 0 {
        rank += binomial(m.trailing_zeros(), i);
        m &= m - 1;
        i += 1;
    }
    rank
}

/// The index of one material.
#[derive(Debug)]
pub struct DarkIndex {
    material: Material,
    groups: Vec<Group>,
    side_groups: [Vec<usize>; 2],
    anchors: &'static SquareSets,
    per_side: u64,
    /// The first of the single pieces after the anchor: groups `first_single..` are 5-bit fields.
    first_single: usize,
}

impl DarkIndex {
    /// The index of a material (any orientation; sides as given).
    pub fn new(material: &Material) -> Result<DarkIndex> {
        let natural: Vec<(Side, usize, usize)> = Side::BOTH
            .into_iter()
            .flat_map(|side| (0..KINDS).map(move |kind| (side, kind)))
            .map(|(side, kind)| (side, kind, usize::from(material.count(side, kind))))
            .filter(|&(_, _, count)| count > 0)
            .collect();
        let Some(anchor) = (0..natural.len()).min_by_key(|&i| natural[i].2) else {
            bail!("material {material} has no pieces");
        };
        if natural.iter().any(|&(_, _, count)| count > MAX_GROUP) {
            bail!("material {material} has more than {MAX_GROUP} identical pieces");
        }
        let pieces = natural.iter().map(|&(_, _, count)| count).sum::<usize>();
        if pieces > SQUARES {
            bail!("material {material} has more pieces than the board has squares");
        }
        let others = (0..natural.len()).filter(|&i| i != anchor);
        let order = std::iter::once(anchor)
            .chain(others.clone().filter(|&i| natural[i].2 > 1))
            .chain(others.filter(|&i| natural[i].2 == 1));
        let anchors = SquareSets::of(natural[anchor].2);
        let mut groups: Vec<Group> = order
            .map(|i| {
                let (side, kind, count) = natural[i];
                Group {
                    side,
                    kind,
                    count,
                    radix: u64::from(binomial(SQUARES as u32, count)),
                    stride: 1,
                }
            })
            .collect();
        groups[0].radix = anchors.reps.len() as u64;
        let mut per_side: u64 = 1;
        for group in groups.iter_mut().rev() {
            group.stride = per_side;
            per_side = match per_side.checked_mul(group.radix) {
                Some(p) if p <= u64::MAX / 2 => p,
                _ => bail!("material {material} is too large to index"),
            };
        }
        let side_groups = Side::BOTH.map(|side| (0..groups.len()).filter(|&j| groups[j].side == side).collect());
        let first_single = (1..groups.len())
            .find(|&j| groups[j].count == 1)
            .unwrap_or(groups.len());
        Ok(DarkIndex {
            material: *material,
            groups,
            side_groups,
            anchors,
            per_side,
            first_single,
        })
    }

    /// The material, sides as given.
    pub fn material(&self) -> &Material {
        &self.material
    }

    /// The groups in index order (anchor first).
    pub fn groups(&self) -> &[Group] {
        &self.groups
    }

    /// The first group after the anchor with a single piece (the group count if none): groups
    /// from it on are 5-bit fields of the slot.
    pub fn first_single(&self) -> usize {
        self.first_single
    }

    /// The groups of one side's pieces.
    #[inline]
    pub fn side_groups(&self, side: Side) -> &[usize] {
        &self.side_groups[side.index()]
    }

    /// Whether the anchor of a slot is a symmetric representative, so that moves of the other
    /// pieces may need a symmetry too (never for a single anchor piece).
    #[inline]
    pub fn symmetric_anchor(&self, slot: u64) -> bool {
        self.groups[0].count > 1 && self.anchors.stabilizer[(slot / self.groups[0].stride) as usize] != 0
    }

    /// The slot after a single anchor piece steps from `from` to `to`, when the position stays
    /// canonical as it stands (`to` is a representative square too); `None` otherwise.
    #[inline]
    pub fn anchor_step_slot(&self, slot: u64, from: u32, to: u32) -> Option<u64> {
        let anchor = &self.groups[0];
        let after = self.anchors.canon[to as usize];
        (anchor.count == 1 && after & 3 == 0).then(|| {
            let before = self.anchors.canon[from as usize];
            (slot + u64::from(after >> 2) * anchor.stride) - u64::from(before >> 2) * anchor.stride
        })
    }

    /// Group masks of a board of this material.
    #[inline]
    pub fn group_masks(&self, board: &Board) -> GroupMasks {
        let mut gm = [0; MAX_GROUPS];
        for (j, g) in self.groups.iter().enumerate() {
            gm[j] = board.masks[g.side.index()][g.kind];
        }
        gm
    }

    /// The board of group masks.
    #[inline]
    pub fn board(&self, gm: &GroupMasks) -> Board {
        let mut board = Board::default();
        for (j, g) in self.groups.iter().enumerate() {
            board.masks[g.side.index()][g.kind] = gm[j];
        }
        board
    }

    /// The slot of the image under symmetry `g` of group masks, the image's anchor being the
    /// representative `rep`.
    #[inline]
    fn slot_of_image(&self, rep: u64, gm: &GroupMasks, g: usize) -> u64 {
        (1..self.groups.len()).fold(rep * self.groups[0].stride, |slot, j| {
            let group = &self.groups[j];
            let digit = if group.count == 1 {
                u64::from(GEOMETRY.symmetry[g][gm[j].trailing_zeros() as usize])
            } else {
                u64::from(colex(transform(gm[j], g)))
            };
            slot + digit * group.stride
        })
    }

    /// The canonical slot of a position given by its group masks, and the symmetry that made it
    /// canonical (0: the position as it stands).
    #[inline]
    pub fn canonical_slot(&self, gm: &GroupMasks) -> (u64, usize) {
        let entry = self.anchors.canon[colex(gm[0]) as usize];
        let (rep, g) = (u64::from(entry >> 2), (entry & 3) as usize);
        let mut best = (self.slot_of_image(rep, gm, g), g);
        let mut stabilizer = self.anchors.stabilizer[rep as usize];
        while stabilizer != 0 {
            let h = stabilizer.trailing_zeros() as usize;
            stabilizer &= stabilizer - 1;
            let slot = self.slot_of_image(rep, gm, g ^ h);
            if slot < best.0 {
                best = (slot, g ^ h);
            }
        }
        best
    }

    /// The group masks of a slot, `None` when it is broken (pieces overlap, or a symmetric
    /// image has a smaller slot).
    #[inline(always)]
    pub fn decode_groups(&self, slot: u64) -> Option<GroupMasks> {
        let mut gm = [0; MAX_GROUPS];
        let mut rest = slot;
        let mut occupied = 0;
        for j in (1..self.groups.len()).rev() {
            let mask = if j >= self.first_single {
                let square = rest & 31;
                rest >>= 5;
                1 << square
            } else {
                let g = &self.groups[j];
                let digit = rest % g.radix;
                rest /= g.radix;
                SquareSets::of(g.count).by_colex[digit as usize]
            };
            if occupied & mask != 0 {
                return None;
            }
            occupied |= mask;
            gm[j] = mask;
        }
        gm[0] = self.anchors.reps[rest as usize];
        if occupied & gm[0] != 0 || !self.is_canonical(&gm, slot) {
            return None;
        }
        Some(gm)
    }

    /// Whether group masks with a representative anchor are the canonical position of `slot`.
    #[inline]
    fn is_canonical(&self, gm: &GroupMasks, slot: u64) -> bool {
        if self.groups[0].count == 1 {
            return true;
        }
        let rep = slot / self.groups[0].stride;
        let mut stabilizer = self.anchors.stabilizer[rep as usize];
        while stabilizer != 0 {
            let h = stabilizer.trailing_zeros() as usize;
            stabilizer &= stabilizer - 1;
            if self.slot_of_image(rep, gm, h) < slot {
                return false;
            }
        }
        true
    }
}

impl IndexSpace for DarkIndex {
    type Position = Position;

    fn per_side(&self) -> u64 {
        self.per_side
    }

    fn locate(&self, position: &Position) -> u64 {
        let (slot, _) = self.canonical_slot(&self.group_masks(&position.board));
        self.state(position.side_to_move, slot)
    }

    fn decode(&self, state: u64) -> Option<Position> {
        let (side_to_move, slot) = self.split(state);
        let gm = self.decode_groups(slot)?;
        Some(Position {
            board: self.board(&gm),
            side_to_move,
        })
    }

    fn weight(&self, state: u64) -> u32 {
        let Some(gm) = self.decode_groups(self.split(state).1) else {
            return 0;
        };
        let fixed = (0..SYMMETRIES)
            .filter(|&g| gm.iter().all(|&m| transform(m, g) == m))
            .count();
        (SYMMETRIES / fixed) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::GameId;

    #[test]
    fn anchor_tables_cover_every_orbit() {
        assert_eq!(SquareSets::of(1).reps, [0, 1, 2, 3, 8, 9, 10, 11].map(|s| 1 << s));
        // Burnside: (C(32,2) + 3 * 16 pairs swapped by a fixed-point-free involution) / 4.
        assert_eq!(SquareSets::of(2).reps.len(), (496 + 48) / 4);
        for k in 1..=MAX_GROUP {
            let a = SquareSets::of(k);
            assert_eq!(a.canon.len(), binomial(32, k) as usize);
            for (r, &m) in a.by_colex.iter().enumerate() {
                assert_eq!(colex(m), r as u32);
                let e = a.canon[r];
                assert_eq!(transform(m, (e & 3) as usize), a.reps[(e >> 2) as usize]);
            }
        }
    }

    #[test]
    fn sizes_follow_the_groups() {
        let m = Material::parse(GameId::DarkChess, "KPPvAA").unwrap();
        let index = DarkIndex::new(&m).unwrap();
        let kinds: Vec<(Side, usize)> = index.groups().iter().map(|g| (g.side, g.kind)).collect();
        assert_eq!(kinds, [(Side::First, 0), (Side::First, 6), (Side::Second, 1)]);
        assert_eq!(index.per_side(), 8 * 496 * 496);
    }
}
