//! The index space of a chess material (index scheme version 3).
//!
//! A pawnless material (the GPU twin reproduces this scheme bit for bit):
//! - **King pairs.** The 462 pairs (wK, bK) of distinct, non-adjacent squares with wK in the
//!   triangle a1 b1 c1 d1 b2 c2 d2 c3 d3 d4 (`file <= 3`, `rank <= file`) and, when wK is on
//!   the a1-h8 diagonal, bK on or below it (`rank <= file`), numbered in increasing
//!   `(wK, bK)` order ([`IndexTables::king_pairs`]).
//! - **Groups.** The men (non-king pieces) form groups of identical pieces in the order white
//!   Q, R, B, N, then black Q, R, B, N. A group of `k` pieces is ranked among the 62 squares
//!   that hold no king, each square `sq` renumbered `sq - [sq > wK] - [sq > bK]`; the sorted
//!   renumbered squares `s_1 < ... < s_k` have rank `sum_i C(s_i, i)` (combinadic, i from 1),
//!   in `0..C(62, k)`.
//! - **Slot.** Mixed radix, most significant first:
//!   `slot = pair * R + rank_1 * R_1 + rank_2 * R_2 + ...` where `R_j` is the product of
//!   `C(62, k)` over the groups after group `j` and `R` the product over all groups.
//!   `per_side = 462 * R`; `state = side * per_side + slot`, white to move first.
//! - **Canonical form.** A position is brought into the table by the smallest symmetry `s`
//!   ([`IndexTables::king_canonical`], see [`super::board::apply_symmetry`]) that maps its king
//!   pair into the table. When both kings then lie on the a1-h8 diagonal, the reflection in it
//!   gives a second image with the same king pair: the smaller of the two slots is canonical,
//!   the larger a broken duplicate.
//! - **Broken slots.** Men overlapping, the side not to move in check, non-canonical
//!   duplicates.
//!
//! A material with a pawn has the left-right mirror as its only symmetry:
//! - **King pairs.** The 1806 pairs of distinct, non-adjacent squares with wK on files a-d, in
//!   increasing `(wK, bK)` order; a position with wK on files e-h is mirrored, so no position
//!   is its own image and every legal slot stands for two positions.
//! - **Groups.** As above, except that a group of pawns is ranked among the 48 squares of ranks
//!   2 to 7, square `sq` numbered `sq - 8` (a king there makes the slot broken).
//! - **Slot.** The pawns are the most significant digits: `slot = pawns * P + pair * R' +
//!   ranks of the other groups`, where `pawns` numbers the pawn groups' ranks (mixed radix, men
//!   order, most significant first), `R'` is the product of the other groups' radices and
//!   `P = 1806 * R'`. The positions of one pawn placement (a *pawn slice*) are then one run of
//!   slots per side: pawn moves never return to a slice, so a solver may take the slices one
//!   at a time, the furthest advanced first.
//! - **En passant.** When both sides have pawns, the positions in which the side to move may
//!   capture en passant follow the normal slots: per side to move `X`, `ep_per_side` slots
//!   numbering the file of the enemy pawn that has just moved two squares (a-d, mirrored
//!   otherwise), both kings on any square, then every other man in men order (pawns among 48
//!   squares, other men among 64, identical men in increasing order), most significant first.
//!   That pawn is the first of its group. A slot whose en passant capture is impossible is
//!   broken. Statistics give these slots no weight: they count positions without the right.

use std::sync::OnceLock;

use super::Position;
use super::board::{
    DIAGONAL, Geometry, Kind, MAX_MEN, MIRROR, Men, Placement, Square, TRANSPOSE, apply_symmetry, backward, bit, file,
    geometry, kings_touch, rank, relative_rank,
};
use super::moves::en_passant_right;
use crate::games::IndexSpace;
use crate::games::binomial::binomial;
use crate::material::{Material, Side};
use crate::solver::slices;

/// The most pieces (kings included) of a supported material.
pub const MAX_PIECES: usize = 2 + MAX_MEN;
/// Number of canonical king pairs.
pub const KING_PAIRS: usize = 462;
/// Number of canonical king pairs of a material with pawns.
pub const PAWN_KING_PAIRS: usize = 1806;
/// Squares a pawn may stand on.
const PAWN_SQUARE_COUNT: u64 = 48;
/// Squares left to the men once the kings stand.
const FREE_SQUARES: usize = 62;
/// Marks two kings on one square or adjacent, which no legal position has.
pub const NONE: u32 = u32::MAX;

/// The tables of the index scheme, computed once, as plain arrays for a GPU twin.
pub struct IndexTables {
    /// The canonical king pairs in order, `wK | bK << 8`.
    pub king_pairs: Vec<u32>,
    /// `king_canonical[wK * 64 + bK]`, for any two kings apart: `pair | sym << 16 | diag << 19`
    /// where `sym` is the smallest symmetry that maps them into the table, `pair` the number of
    /// their image there and `diag` 1 when both image kings lie on the a1-h8 diagonal; [`NONE`]
    /// for kings on one square or adjacent. One lookup canonicalises a king pair.
    pub king_canonical: Vec<u32>,
    /// Per group size `k`, made on first use (the 4-man table alone is 2.2 MB): see
    /// [`IndexTables::unrank`].
    unrank: [OnceLock<Vec<u32>>; MAX_MEN],
    /// The canonical king pairs of materials with pawns in order, `wK | bK << 8`.
    pub pawn_king_pairs: Vec<u32>,
    /// `pawn_king_canonical[wK * 64 + bK]`: `pair | mirror << 16` ([`NONE`] for kings on one
    /// square or adjacent).
    pub pawn_king_canonical: Vec<u32>,
}

fn pair_in_table(wk: Square, bk: Square) -> bool {
    file(wk) <= 3 && rank(wk) <= file(wk) && !kings_touch(wk, bk) && (file(wk) != rank(wk) || rank(bk) <= file(bk))
}

/// The king pairs `in_table` accepts in increasing `(wK, bK)` order (`wK | bK << 8`), and the
/// number of each (`[wK * 64 + bK]`, [`NONE`] for the others).
fn number_pairs(in_table: impl Fn(Square, Square) -> bool) -> (Vec<u32>, Vec<u32>) {
    let mut pairs = Vec::new();
    let mut number = vec![NONE; 64 * 64];
    for wk in 0..64u8 {
        for bk in 0..64u8 {
            if in_table(wk, bk) {
                number[wk as usize * 64 + bk as usize] = pairs.len() as u32;
                pairs.push(u32::from(wk) | u32::from(bk) << 8);
            }
        }
    }
    (pairs, number)
}

/// `C(n, k)` from the one binomial table.
fn choose(n: u64, k: u64) -> u64 {
    u64::from(binomial(n as u32, k as usize))
}

impl IndexTables {
    /// `unrank(k)[r]`: the squares `s_1 | s_2 << 8 | s_3 << 16 | s_4 << 24` (0..62) of
    /// combinadic rank `r` of a group of `k` men (the ranks below C(48, k) are the tuples of a
    /// pawn group).
    pub fn unrank(&self, k: usize) -> &[u32] {
        self.unrank[k - 1].get_or_init(|| {
            let mut table = vec![0u32; choose(FREE_SQUARES as u64, k as u64) as usize];
            fill_unrank(&mut table, &mut [0u32; MAX_MEN], k, 0, 0);
            table
        })
    }

    fn new() -> IndexTables {
        let (king_pairs, pair_number) = number_pairs(pair_in_table);
        assert_eq!(king_pairs.len(), KING_PAIRS);
        let king_canonical = (0..64 * 64)
            .map(|i| {
                let (wk, bk) = ((i / 64) as Square, (i % 64) as Square);
                let image = |s| (apply_symmetry(s, wk), apply_symmetry(s, bk));
                let sym = (0..8).find(|&s| {
                    let (w, b) = image(s);
                    !kings_touch(wk, bk) && pair_in_table(w, b)
                });
                sym.map_or(NONE, |s| {
                    let (w, b) = image(s);
                    let diagonal = (bit(w) | bit(b)) & !DIAGONAL == 0;
                    pair_number[w as usize * 64 + b as usize] | (s as u32) << 16 | u32::from(diagonal) << 19
                })
            })
            .collect();
        let (pawn_king_pairs, pawn_pair_number) = number_pairs(|wk, bk| file(wk) <= 3 && !kings_touch(wk, bk));
        assert_eq!(pawn_king_pairs.len(), PAWN_KING_PAIRS);
        let pawn_king_canonical = (0..64 * 64)
            .map(|i| {
                let (wk, bk) = ((i / 64) as Square, (i % 64) as Square);
                if kings_touch(wk, bk) {
                    return NONE;
                }
                let mirror = file(wk) > 3;
                let (w, b) = if mirror {
                    (apply_symmetry(MIRROR, wk), apply_symmetry(MIRROR, bk))
                } else {
                    (wk, bk)
                };
                pawn_pair_number[w as usize * 64 + b as usize] | u32::from(mirror) << 16
            })
            .collect();
        IndexTables {
            king_pairs,
            king_canonical,
            unrank: Default::default(),
            pawn_king_pairs,
            pawn_king_canonical,
        }
    }
}

/// The number of a square among those a man of its group may stand on: pawns among the 48 of
/// ranks 2 to 7, other men among the 62 that hold no king.
#[inline(always)]
fn free_square(pawn: bool, sq: Square, wk: Square, bk: Square) -> u32 {
    if pawn {
        u32::from(sq).wrapping_sub(8)
    } else {
        u32::from(sq) - u32::from(sq > wk) - u32::from(sq > bk)
    }
}

/// The combinadic rank of two distinct squares: C(n, 2) by arithmetic, quicker than a table
/// lookup.
#[inline(always)]
fn pair_rank(a: u32, b: u32) -> u64 {
    let (low, high) = (a.min(b), a.max(b));
    u64::from(low) + u64::from(high * high.saturating_sub(1) / 2)
}

/// The squares man `m` may stand on in an en passant slot: 48 for a pawn, else 64.
fn ep_radix(men: &Men, m: usize) -> u64 {
    if men.kind[m] == Kind::Pawn {
        PAWN_SQUARE_COUNT
    } else {
        64
    }
}

/// Fills `table[rank] = squares` for every increasing tuple of `k` squares among 62.
fn fill_unrank(table: &mut [u32], squares: &mut [u32; MAX_MEN], k: usize, at: usize, low: u32) {
    if at == k {
        let rank: u64 = (0..k).map(|i| choose(u64::from(squares[i]), i as u64 + 1)).sum();
        table[rank as usize] = (0..k).fold(0, |p, i| p | squares[i] << (8 * i));
        return;
    }
    for s in low..FREE_SQUARES as u32 {
        squares[at] = s;
        fill_unrank(table, squares, k, at + 1, s + 1);
    }
}

/// The index tables, computed on first use.
pub fn index_tables() -> &'static IndexTables {
    static TABLES: OnceLock<IndexTables> = OnceLock::new();
    TABLES.get_or_init(IndexTables::new)
}

/// Division of 32-bit numbers by a fixed divisor through one multiplication: with
/// `m = floor((2^64 - 1) / d) + 1`, `x / d` is the high 64 bits of `m * x` for every 32-bit `x`
/// (Lemire, Kaser and Kurz, "Faster remainder by direct computation", 2019). Decoding a slot
/// divides by the mixed radix a few times per state.
#[derive(Clone, Copy, Debug, Default)]
struct Divisor {
    d: u32,
    /// 0 for `d = 1`, whose `m` would not fit.
    m: u64,
}

impl Divisor {
    fn new(d: u32) -> Divisor {
        assert!(d > 0, "division by zero");
        let m = if d == 1 { 0 } else { u64::MAX / u64::from(d) + 1 };
        Divisor { d, m }
    }

    /// Quotient and remainder of `x / d`.
    #[inline(always)]
    fn div_rem(self, x: u32) -> (u32, u32) {
        if self.m == 0 {
            return (x, 0);
        }
        let q = ((u128::from(self.m) * u128::from(x)) >> 64) as u32;
        (q, x - q * self.d)
    }

    /// Quotient and remainder of a 64-bit `x / d`, by the multiplication when `x` fits 32 bits.
    #[inline(always)]
    fn div_rem_wide(self, x: u64) -> (u64, u64) {
        match u32::try_from(x) {
            Ok(x) => {
                let (q, r) = self.div_rem(x);
                (u64::from(q), u64::from(r))
            }
            Err(_) => (x / u64::from(self.d), x % u64::from(self.d)),
        }
    }
}

/// A group of identical men: its place in the men's order and in the slot's mixed radix.
#[derive(Clone, Copy, Debug, Default)]
pub struct Group {
    /// Index of its first man.
    pub first: usize,
    /// Number of men in it.
    pub len: usize,
    /// C(62, len), or C(48, len) for pawns.
    pub radix: u64,
    /// A group of pawns (ranked among 48 squares).
    pub pawn: bool,
    /// Weight of its rank in the slot.
    pub multiplier: u64,
}

/// The index space of one canonical material.
pub struct ChessIndex {
    material: Material,
    men: Men,
    /// Some man is a pawn: the mirror is the only symmetry.
    pawns: bool,
    /// Slots of positions with an en passant right, per side to move (0 unless both sides
    /// have pawns).
    ep_per_side: u64,
    /// Per side to move, the man that has just moved two squares (the first of the enemy
    /// pawns), or `usize::MAX` when that side cannot capture en passant.
    ep_man: [usize; 2],
    /// Per side to move, the slots its en passant positions use (the rest are broken).
    ep_len: [u64; 2],
    groups: [Group; MAX_MEN],
    group_count: usize,
    /// `group_of[man]`: the group a man belongs to.
    group_of: [usize; MAX_MEN],
    /// Weight of the king pair in the slot: the slots of one king pair and pawn slice (R, or R'
    /// with pawns).
    pair_multiplier: u64,
    /// The groups in decreasing weight: the pawn groups first, the others after the king pair.
    decode_order: [usize; MAX_MEN],
    /// Number of pawn groups (decoded before the king pair).
    pawn_groups: usize,
    /// Divisions by `pair_multiplier` and by each group's multiplier, for decoding.
    pair_divisor: Divisor,
    group_divisors: [Divisor; MAX_MEN],
    /// Slots of one pawn slice per side (`per_side` without pawns).
    slice_slots: u64,
    per_side: u64,
    geo: &'static Geometry,
    tables: &'static IndexTables,
    /// Per group size, the unrank table when a group of that size has more than one man (see
    /// [`IndexTables::unrank`]), else empty.
    unrank: [&'static [u32]; MAX_MEN],
}

impl ChessIndex {
    /// The index of a canonical material of kings plus at most [`MAX_MEN`] Q, R, B, N, P
    /// (checked by the caller, [`crate::games::Game::check_material`]).
    pub fn new(material: &Material) -> ChessIndex {
        let men = Men::of_material(material);
        let mut groups = [Group::default(); MAX_MEN];
        let mut group_of = [0; MAX_MEN];
        let mut group_count = 0;
        for (i, group) in group_of[..men.count].iter_mut().enumerate() {
            if i == 0 || men.side[i] != men.side[i - 1] || men.kind[i] != men.kind[i - 1] {
                groups[group_count].first = i;
                group_count += 1;
            }
            groups[group_count - 1].len += 1;
            *group = group_count - 1;
        }
        for g in &mut groups[..group_count] {
            g.pawn = men.kind[g.first] == Kind::Pawn;
            let squares = if g.pawn { PAWN_SQUARE_COUNT } else { FREE_SQUARES as u64 };
            g.radix = choose(squares, g.len as u64);
        }
        let pawns = men.has_pawns();
        let pairs = if pawns { PAWN_KING_PAIRS } else { KING_PAIRS };
        // Weights from the least significant digit: the other groups, the king pair, the pawns.
        let mut decode_order = [0; MAX_MEN];
        let (pawn_ids, other_ids) = (0..group_count).partition::<Vec<_>, _>(|&g| groups[g].pawn);
        let pawn_groups = pawn_ids.len();
        for (slot, &g) in decode_order.iter_mut().zip(pawn_ids.iter().chain(&other_ids)) {
            *slot = g;
        }
        let mut weight = 1;
        for &g in other_ids.iter().rev() {
            groups[g].multiplier = weight;
            weight *= groups[g].radix;
        }
        let pair_multiplier = weight;
        let slice_slots = pairs as u64 * pair_multiplier;
        weight = slice_slots;
        for &g in pawn_ids.iter().rev() {
            groups[g].multiplier = weight;
            weight *= groups[g].radix;
        }
        let per_side = weight;
        let mut ep_man = [usize::MAX; 2];
        let mut ep_len = [0; 2];
        for side in Side::BOTH {
            let own = men.of(side).any(|m| men.kind[m] == Kind::Pawn);
            let Some(enemy) = men.of(side.other()).find(|&m| men.kind[m] == Kind::Pawn) else {
                continue;
            };
            if own {
                ep_man[side.index()] = enemy;
                ep_len[side.index()] = 4
                    * 64
                    * 64
                    * (0..men.count)
                        .filter(|&m| m != enemy)
                        .map(|m| ep_radix(&men, m))
                        .product::<u64>();
            }
        }
        let ep_per_side = ep_len[0].max(ep_len[1]);
        let mut group_divisors = [Divisor::default(); MAX_MEN];
        for (divisor, g) in group_divisors.iter_mut().zip(&groups[..group_count]) {
            *divisor = Divisor::new(u32::try_from(g.multiplier).expect("a group's weight fits 32 bits"));
        }
        ChessIndex {
            material: *material,
            men,
            pawns,
            ep_per_side,
            ep_man,
            ep_len,
            groups,
            group_count,
            group_of,
            pair_multiplier,
            decode_order,
            pawn_groups,
            pair_divisor: Divisor::new(u32::try_from(pair_multiplier).expect("at most 62^4 slots a king pair")),
            group_divisors,
            slice_slots,
            per_side,
            geo: geometry(),
            tables: index_tables(),
            // A lone man's rank is its square: no table.
            unrank: std::array::from_fn(|k| {
                let used = k > 0 && groups[..group_count].iter().any(|g| g.len == k + 1);
                if used { index_tables().unrank(k + 1) } else { &[] }
            }),
        }
    }

    /// The canonical material the index numbers.
    pub fn material(&self) -> &Material {
        &self.material
    }

    /// The men of the material, in the index's group order.
    pub fn men(&self) -> &Men {
        &self.men
    }

    /// Weight of the king pair in the slot (`R` of the scheme, `R'` with pawns).
    pub fn pair_multiplier(&self) -> u64 {
        self.pair_multiplier
    }

    /// Slots of one pawn slice per side: the positions of one placement of the pawns are slots
    /// `k * slice_slots .. (k + 1) * slice_slots` of each side, `k` the pawns' digits (the whole
    /// side without pawns).
    pub fn slice_slots(&self) -> u64 {
        self.slice_slots
    }

    /// Whether the table is solved a pawn slice at a time: every table with pawns.
    pub fn solved_by_slices(&self) -> bool {
        self.pawns
    }

    /// The pawn slices of a table with pawns (see [`slices::Sliced::slices`]): one per
    /// placement of the pawns and its mirror image, its ranges the runs of slots of both
    /// placements and both sides to move, its states those of the numbering it is solved in
    /// ([`ChessIndex::slice_space_states`]), its level how far the pawns have advanced.
    pub fn pawn_slices(&self) -> Vec<slices::Slice> {
        let index = self;
        let (per_side, len) = (index.per_side(), index.slice_slots());
        let men = index.men();
        let mut slices = Vec::new();
        for k in 0..per_side / len {
            let pawns = index.placement(k * len);
            let mirror = index.mirror_placement(k);
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
            slices.push(slices::Slice {
                ranges,
                states: index.slice_space_states(),
                level,
            });
        }
        slices
    }

    /// The number of the placement of the pawns that is the mirror image of placement number
    /// `placement` (the same number when that placement is its own image); a placement's
    /// number is its slots' divided by [`ChessIndex::slice_slots`].
    pub fn mirror_placement(&self, placement: u64) -> u64 {
        let len = self.slice_slots;
        let pawns = self.placement(placement * len);
        // The other men stay in the first king pair's share of the slice.
        self.slot_as_is(0, pawns.mapped(MIRROR, self.men.count)) / len
    }

    /// Bits of a code of a pawn slice's numbering (see `pawn_slices.rs`): 6 per king and per
    /// man other than a pawn.
    pub fn slice_space_bits(&self) -> u32 {
        let others = (0..self.men.count).filter(|&m| self.men.kind[m] != Kind::Pawn).count();
        6 * (2 + others as u32)
    }

    /// The states of a pawn slice in the numbering it is solved in: both sides to move, the
    /// kings and the men other than pawns on any square each.
    pub fn slice_space_states(&self) -> u64 {
        2 << self.slice_space_bits()
    }

    /// The groups of identical men in slot order (radices and multipliers for a GPU twin).
    pub fn groups(&self) -> &[Group] {
        &self.groups[..self.group_count]
    }

    /// The group of a man.
    #[inline]
    pub fn group_of(&self, man: usize) -> &Group {
        &self.groups[self.group_of[man]]
    }

    /// Whether the material has pawns (the mirror is its only symmetry).
    pub fn has_pawns(&self) -> bool {
        self.pawns
    }

    /// Slots of positions with an en passant right, per side to move.
    pub fn ep_per_side(&self) -> u64 {
        self.ep_per_side
    }

    /// The man that may be captured en passant with `to_move` to move (the first of its
    /// enemy's pawns), `None` when that side cannot capture en passant.
    pub fn ep_man(&self, to_move: Side) -> Option<usize> {
        let man = self.ep_man[to_move.index()];
        (man != usize::MAX).then_some(man)
    }

    /// The en passant slots of `to_move` that hold positions (the rest are broken).
    pub fn ep_len(&self, to_move: Side) -> u64 {
        self.ep_len[to_move.index()]
    }

    /// Combinadic rank of a group in a placement whose kings are as given.
    #[inline(always)]
    pub fn group_rank(&self, group: &Group, placement: Placement) -> u64 {
        let [wk, bk] = placement.kings();
        let pawn = group.pawn;
        let free = |sq: Square| free_square(pawn, sq, wk, bk);
        let man = |j: usize| free(placement.man(group.first + j));
        match group.len {
            1 => u64::from(man(0)),
            2 => pair_rank(man(0), man(1)),
            3 => {
                let (a, b, c) = (man(0), man(1), man(2));
                let (a, b) = (a.min(b), a.max(b));
                let (b, c) = (b.min(c), b.max(c));
                // `c` is now the highest, and `pair_rank` orders the other two; C(c, 3) by
                // arithmetic, as `pair_rank` does C(n, 2).
                pair_rank(a, b) + u64::from(c * c.saturating_sub(1) * c.saturating_sub(2) / 6)
            }
            len => {
                let mut squares = [0; MAX_MEN];
                for (j, sq) in squares[..len].iter_mut().enumerate() {
                    *sq = man(j);
                }
                squares[..len].sort_unstable();
                (0..len).map(|i| choose(u64::from(squares[i]), i as u64 + 1)).sum()
            }
        }
    }

    /// The rank of `group` once its man `man` has moved to a square, as a function of that
    /// square: the kings stay, and the group's other man (in a pair) is read once for every
    /// target rather than once per target.
    #[inline(always)]
    pub fn rank_after_move(&self, group: &Group, placement: Placement, man: usize) -> impl Fn(Square) -> u64 {
        let [wk, bk] = placement.kings();
        let pawn = group.pawn;
        let other = if group.len == 2 {
            let other = if man == group.first { man + 1 } else { group.first };
            free_square(pawn, placement.man(other), wk, bk)
        } else {
            0
        };
        move |to| match group.len {
            1 => u64::from(free_square(pawn, to, wk, bk)),
            2 => pair_rank(free_square(pawn, to, wk, bk), other),
            _ => self.group_rank(group, placement.with_man(man, to)),
        }
    }

    /// `slot`, the slot of `placement`, with the rank of `group` taken out: a move of one of
    /// its men that needs no symmetry leads to this plus the group's new rank times its weight.
    #[inline]
    pub fn slot_without(&self, group: &Group, slot: u64, placement: Placement) -> u64 {
        slot - self.group_rank(group, placement) * group.multiplier
    }

    /// The slot of a placement whose kings form canonical pair number `pair`, as it stands.
    #[inline(always)]
    pub fn slot_as_is(&self, pair: u32, placement: Placement) -> u64 {
        let mut slot = u64::from(pair) * self.pair_multiplier;
        for g in &self.groups[..self.group_count] {
            slot += self.group_rank(g, placement) * g.multiplier;
        }
        slot
    }

    /// The number of canonical king pairs.
    pub fn king_pair_count(&self) -> usize {
        self.pair_tables().0.len()
    }

    /// The king pairs and their canonical lookup (see [`IndexTables`]) of this material: those
    /// with pawns (mirror only) or the pawnless ones.
    #[inline]
    fn pair_tables(&self) -> (&'static [u32], &'static [u32]) {
        let t = self.tables;
        if self.pawns {
            (&t.pawn_king_pairs, &t.pawn_king_canonical)
        } else {
            (&t.king_pairs, &t.king_canonical)
        }
    }

    /// The squares of the white and the black king of canonical king pair `pair`.
    pub fn pair_kings(&self, pair: usize) -> (Square, Square) {
        let pairs = self.pair_tables().0;
        ((pairs[pair] & 0xFF) as Square, (pairs[pair] >> 8) as Square)
    }

    /// The number of the canonical king pair of kings on `wk` and `bk`, and whether that pair
    /// needs no symmetry: then every placement with these kings is canonical as it stands
    /// (`canonical` says it was not mapped), and in no other one's image. `None` for kings on
    /// one square or adjacent.
    #[inline]
    pub fn king_pair(&self, wk: Square, bk: Square) -> Option<(u32, bool)> {
        let canonical = self.pair_tables().1[wk as usize * 64 + bk as usize];
        (canonical != NONE).then_some((canonical & 0xFFFF, canonical >> 16 == 0))
    }

    /// The canonical slot of a placement of legal kings, and whether a symmetry other than the
    /// identity produced it.
    #[inline]
    pub fn canonical(&self, placement: Placement) -> (u64, bool) {
        let [wk, bk] = placement.kings();
        let canonical = self.pair_tables().1[wk as usize * 64 + bk as usize];
        debug_assert_ne!(canonical, NONE, "kings on one square or adjacent");
        if self.pawns {
            let mirror = canonical >> 16 != 0;
            let image = if mirror {
                placement.mapped(MIRROR, self.men.count)
            } else {
                placement
            };
            return (self.slot_as_is(canonical & 0xFFFF, image), mirror);
        }
        let (pair, sym) = (canonical & 0xFFFF, (canonical >> 16 & 7) as usize);
        let image = if sym == 0 {
            placement
        } else {
            placement.mapped(sym, self.men.count)
        };
        let slot = self.slot_as_is(pair, image);
        if canonical >> 19 != 0 {
            let reflected = self.slot_as_is(pair, image.mapped(TRANSPOSE, self.men.count));
            if reflected < slot {
                return (reflected, true);
            }
        }
        (slot, sym != 0)
    }

    /// The slot of the reflection in the a1-h8 diagonal of the placement of `slot`, both kings
    /// on that diagonal.
    #[inline]
    fn reflected(&self, slot: u64, placement: Placement) -> u64 {
        let pair = (slot / self.pair_multiplier) as u32;
        self.slot_as_is(pair, placement.mapped(TRANSPOSE, self.men.count))
    }

    /// Whether both kings stand on the a1-h8 diagonal (the reflection in it keeps them).
    #[inline]
    pub fn kings_on_diagonal(placement: Placement) -> bool {
        let [wk, bk] = placement.kings();
        (bit(wk) | bit(bk)) & !DIAGONAL == 0
    }

    /// Whether a state is a position with an en passant right.
    #[inline]
    pub fn is_en_passant(&self, state: u64) -> bool {
        state >= 2 * self.per_side
    }

    /// The state of a legal position with the side `to_move` to move and the right to capture
    /// en passant the enemy pawn on `pawn` (which has just moved two squares).
    pub fn en_passant_state(&self, placement: Placement, to_move: Side, pawn: Square) -> u64 {
        let (placement, pawn) = if file(pawn) > 3 {
            (placement.mapped(MIRROR, self.men.count), apply_symmetry(MIRROR, pawn))
        } else {
            (placement, pawn)
        };
        let ep_man = self.ep_man[to_move.index()];
        let mut squares = [0 as Square; MAX_MEN];
        for g in self.groups() {
            let mut group: Vec<Square> = (g.first..g.first + g.len).map(|m| placement.man(m)).collect();
            if g.first == ep_man {
                let at = group.iter().position(|&sq| sq == pawn).expect("the pawn stands there");
                group.remove(at);
                group.sort_unstable();
                group.insert(0, pawn);
            } else {
                group.sort_unstable();
            }
            squares[g.first..g.first + g.len].copy_from_slice(&group);
        }
        let [wk, bk] = placement.kings();
        let mut slot = (u64::from(file(pawn)) * 64 + u64::from(wk)) * 64 + u64::from(bk);
        for m in (0..self.men.count).filter(|&m| m != ep_man) {
            let code = if self.men.kind[m] == Kind::Pawn {
                squares[m] - 8
            } else {
                squares[m]
            };
            slot = slot * ep_radix(&self.men, m) + u64::from(code);
        }
        2 * self.per_side + to_move.index() as u64 * self.ep_per_side + slot
    }

    /// The placement, side to move and square of the pawn that may be captured en passant of an
    /// en passant state, `None` for a broken slot.
    pub fn decode_en_passant(&self, state: u64) -> Option<(Placement, Side, Square)> {
        let rest = state - 2 * self.per_side;
        let side = if rest < self.ep_per_side {
            Side::First
        } else {
            Side::Second
        };
        let mut slot = rest - side.index() as u64 * self.ep_per_side;
        if slot >= self.ep_len[side.index()] {
            return None;
        }
        let ep_man = self.ep_man[side.index()];
        let mut placement = Placement::default();
        for m in (0..self.men.count).rev().filter(|&m| m != ep_man) {
            let radix = ep_radix(&self.men, m);
            let code = (slot % radix) as Square;
            slot /= radix;
            let sq = if self.men.kind[m] == Kind::Pawn { code + 8 } else { code };
            placement = placement.with_man(m, sq);
        }
        let bk = (slot % 64) as Square;
        slot /= 64;
        let wk = (slot % 64) as Square;
        let pawn_file = (slot / 64) as Square;
        let pawn = pawn_file + 8 * if side == Side::First { 4 } else { 3 };
        placement = placement.with_king(Side::First, wk).with_king(Side::Second, bk);
        placement = placement.with_man(ep_man, pawn);
        for g in self.groups() {
            let from = if g.first == ep_man { g.first + 1 } else { g.first };
            if (from + 1..g.first + g.len).any(|m| placement.man(m - 1) >= placement.man(m)) {
                return None;
            }
        }
        let count = self.men.count;
        let occupied = placement.occupied(count);
        if occupied.count_ones() as usize != count + 2 || kings_touch(wk, bk) {
            return None;
        }
        let waiting = side.other();
        if placement.attacked(self.geo, &self.men, placement.king(waiting), side, occupied) {
            return None;
        }
        en_passant_right(self.geo, &self.men, placement, side, pawn).then_some((placement, side, pawn))
    }

    /// The en passant states of a legal placement with `to_move` to move: one per enemy pawn
    /// that may have just moved two squares and that `to_move` can capture en passant.
    pub fn en_passant_variants(&self, placement: Placement, to_move: Side, mut visit: impl FnMut(u64)) {
        let ep_man = self.ep_man[to_move.index()];
        if ep_man == usize::MAX {
            return;
        }
        let waiting = to_move.other();
        for m in ep_man..self.men.count {
            if self.men.side[m] != waiting || self.men.kind[m] != Kind::Pawn {
                continue;
            }
            let pawn = placement.man(m);
            if en_passant_right(self.geo, &self.men, placement, to_move, pawn) {
                visit(self.en_passant_state(placement, to_move, pawn));
            }
        }
    }

    /// The placement a slot spells out, whether or not it is a legal position.
    #[inline]
    pub fn placement(&self, slot: u64) -> Placement {
        // Weights fit 32 bits (checked in `new`), and so does the rest of a slot once the pawns
        // are taken out of it; a slot beyond 2^32 (6-piece tables) divides in 64 bits.
        let mut rest = slot;
        let mut pawn_ranks = [0; MAX_MEN];
        for &g in &self.decode_order[..self.pawn_groups] {
            let (rank, left) = self.group_divisors[g].div_rem_wide(rest);
            (pawn_ranks[g], rest) = (rank as u32, left);
        }
        let (pair, mut rest) = self.pair_divisor.div_rem_wide(rest);
        let pair = self.pair_tables().0[pair as usize];
        let (wk, bk) = ((pair & 0xFF) as Square, (pair >> 8) as Square);
        let (low, high) = (wk.min(bk), wk.max(bk));
        let mut placement = Placement::new([wk, bk], &[]);
        for &g in &self.decode_order[..self.group_count] {
            let group = &self.groups[g];
            let rank = if group.pawn {
                pawn_ranks[g]
            } else {
                let (rank, left) = self.group_divisors[g].div_rem(rest as u32);
                rest = u64::from(left);
                rank
            };
            // A lone man's rank is its square.
            let squares = if group.len == 1 {
                rank
            } else {
                self.unrank[group.len - 1][rank as usize]
            };
            for j in 0..group.len {
                let mut sq = ((squares >> (8 * j)) & 0xFF) as Square;
                if group.pawn {
                    sq += 8;
                } else {
                    sq += Square::from(sq >= low);
                    sq += Square::from(sq >= high);
                }
                placement = placement.with_man(group.first + j, sq);
            }
        }
        placement
    }

    /// The placement and side to move of a state, `None` for a broken slot.
    #[inline]
    pub fn decode_legal(&self, state: u64) -> Option<(Placement, Side)> {
        let (side, slot) = self.split(state);
        let placement = self.placement(slot);
        self.is_legal(side, slot, placement).then_some((placement, side))
    }

    /// Whether slot `slot`, which spells out `placement`, holds a legal position with `side`
    /// to move (no overlap, the side not to move not in check, not a non-canonical duplicate).
    #[inline]
    pub fn is_legal(&self, side: Side, slot: u64, placement: Placement) -> bool {
        self.is_legal_apart(side, placement)
            && (self.pawns || !Self::kings_on_diagonal(placement) || self.reflected(slot, placement) >= slot)
    }

    /// Whether `placement`, whose kings may stand anywhere, is a legal position with `side` to
    /// move: the kings apart, as well as [`ChessIndex::is_legal`]'s tests of a placement.
    #[inline]
    pub fn is_legal_anywhere(&self, side: Side, placement: Placement) -> bool {
        let [wk, bk] = placement.kings();
        !kings_touch(wk, bk) && self.is_legal_apart(side, placement)
    }

    /// No two pieces on one square and the side not to move not in check (the kings of a slot
    /// stand apart).
    #[inline]
    fn is_legal_apart(&self, side: Side, placement: Placement) -> bool {
        let Some(occupied) = placement.occupied_apart(self.men.count) else {
            return false;
        };
        !placement.attacked(self.geo, &self.men, placement.king(side.other()), side, occupied)
    }

    /// The placement of the slot after the one that spells out `placement`, when only the
    /// least significant group's rank changes and that group is a lone man other than a pawn
    /// (who then steps to the next square he may stand on); `None` otherwise (decode that slot
    /// with [`ChessIndex::placement`]).
    #[inline]
    pub fn next_placement(&self, placement: Placement) -> Option<Placement> {
        if self.pawn_groups == self.group_count {
            // The king pair is the least significant digit.
            return None;
        }
        let group = &self.groups[self.decode_order[self.group_count - 1]];
        if group.len != 1 {
            return None;
        }
        let [wk, bk] = placement.kings();
        let mut next = placement.man(group.first) + 1;
        while next == wk || next == bk {
            next += 1;
        }
        (next <= 63).then(|| placement.with_man(group.first, next))
    }
}

impl IndexSpace for ChessIndex {
    type Position = Position;

    fn per_side(&self) -> u64 {
        self.per_side
    }

    fn working_states(&self) -> u64 {
        if !self.solved_by_slices() {
            return self.states();
        }
        // The slices solved at once, in their own numbering.
        slices::largest_group(self.pawn_slices(), rayon::current_num_threads())
    }

    fn states(&self) -> u64 {
        2 * (self.per_side + self.ep_per_side)
    }

    /// Panics when the position is not of this index's material.
    fn locate(&self, position: &Position) -> u64 {
        let (men, placement) = position.men_and_placement();
        assert_eq!(
            men, self.men,
            "position {position:?} is not of material {}",
            self.material
        );
        if let Some(target) = position.en_passant() {
            return self.en_passant_state(
                placement,
                position.side_to_move(),
                backward(position.side_to_move(), target),
            );
        }
        let (slot, _) = self.canonical(placement);
        position.side_to_move().index() as u64 * self.per_side + slot
    }

    fn decode(&self, state: u64) -> Option<Position> {
        if self.is_en_passant(state) {
            let (placement, side, pawn) = self.decode_en_passant(state)?;
            let target = backward(side.other(), pawn);
            return Some(Position::from_placement(&self.men, placement, side).with_en_passant(target));
        }
        let (placement, side) = self.decode_legal(state)?;
        Some(Position::from_placement(&self.men, placement, side))
    }

    fn weight(&self, state: u64) -> u32 {
        if self.is_en_passant(state) {
            return 0;
        }
        let Some((placement, _)) = self.decode_legal(state) else {
            return 0;
        };
        if self.pawns {
            return 2;
        }
        let slot = self.split(state).1;
        let symmetric = Self::kings_on_diagonal(placement) && self.reflected(slot, placement) == slot;
        if symmetric { 4 } else { 8 }
    }

    fn side_to_move(&self, state: u64) -> Side {
        if self.is_en_passant(state) {
            let rest = state - 2 * self.per_side;
            if rest < self.ep_per_side {
                Side::First
            } else {
                Side::Second
            }
        } else {
            self.split(state).0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinadic_tables_invert_the_rank() {
        let t = index_tables();
        for k in 1..=MAX_MEN {
            assert_eq!(t.unrank(k).len() as u64, choose(62, k as u64));
            for (r, &packed) in t.unrank(k).iter().enumerate() {
                let s: Vec<u32> = (0..k).map(|i| (packed >> (8 * i)) & 0xFF).collect();
                assert!(s.windows(2).all(|w| w[0] < w[1]) && s[k - 1] < 62);
                let rank: u64 = (0..k).map(|i| choose(u64::from(s[i]), i as u64 + 1)).sum();
                assert_eq!(rank, r as u64);
            }
        }
    }

    #[test]
    fn divisors_agree_with_division() {
        let mut x: u32 = 12345;
        for d in [1u32, 2, 3, 62, 1891, 3844, 37820, 238_328, 110_013_792, u32::MAX] {
            let divisor = Divisor::new(d);
            for _ in 0..10_000 {
                x = x.wrapping_mul(2_654_435_761).wrapping_add(d);
                assert_eq!(divisor.div_rem(x), (x / d, x % d), "{x} / {d}");
            }
            for x in [0, 1, d - 1, d, d.wrapping_add(1), u32::MAX - 1, u32::MAX] {
                assert_eq!(divisor.div_rem(x), (x / d, x % d), "{x} / {d}");
            }
        }
    }

    #[test]
    fn stepping_to_the_next_slot_matches_decoding_it() {
        for name in ["KQvK", "KQvKR", "KRRvK", "KRPvKR", "KPvKP"] {
            let index = ChessIndex::new(&Material::parse(crate::material::GameId::Chess, name).unwrap());
            let mut stepped = 0;
            for slot in (0..index.per_side())
                .step_by(101)
                .chain(index.per_side() - 70..index.per_side())
            {
                if let Some(next) = index.next_placement(index.placement(slot)) {
                    assert!(slot + 1 < index.per_side(), "{name} {slot}");
                    assert_eq!(next, index.placement(slot + 1), "{name} {slot}");
                    stepped += 1;
                }
            }
            // Every material here but KRRvK and KPvKP (whose last digit is the king pair) ends
            // with a lone man other than a pawn, who steps on most slots.
            assert_eq!(stepped > 0, !["KRRvK", "KPvKP"].contains(&name), "{name}");
        }
    }

    #[test]
    fn pawn_slices_are_runs_of_slots_and_bound_the_working_states() {
        let index = |name| ChessIndex::new(&Material::parse(crate::material::GameId::Chess, name).unwrap());
        let krpvkr = index("KRPvKR");
        assert!(krpvkr.solved_by_slices());
        // Every slot of a slice has the same pawn, and the next slice's pawn is on the next square.
        for slot in (0..krpvkr.per_side()).step_by(7919) {
            let slice = slot / krpvkr.slice_slots();
            assert_eq!(u64::from(krpvkr.placement(slot).man(1)), 8 + slice, "{slot}");
        }
        // A slice in its own numbering: both sides, the kings and both rooks on any square;
        // each is larger than a group, so solved alone.
        assert_eq!(krpvkr.slice_space_states(), 2 << 24);
        assert_eq!(krpvkr.working_states(), krpvkr.slice_space_states());
        // Every placement of the pawns in one slice with its mirror image.
        let pawn_slices = krpvkr.pawn_slices();
        assert_eq!(pawn_slices.len(), 24);
        let covered: u64 = pawn_slices
            .iter()
            .flat_map(|s| &s.ranges)
            .map(|r| r.end - r.start)
            .sum();
        assert_eq!(covered, 2 * krpvkr.per_side());
        // The slices of a small table are solved many at a time, those of one level together;
        // a pawnless table whole, as one slice.
        let kpvkp = index("KPvKP");
        assert!(kpvkp.solved_by_slices());
        let working = kpvkp.working_states();
        assert!(
            working >= 64 * kpvkp.slice_space_states() && working < kpvkp.states(),
            "{working}"
        );
        let kqvkr = index("KQvKR");
        assert!(!kqvkr.solved_by_slices());
        assert_eq!(kqvkr.slice_slots(), kqvkr.per_side());
    }

    #[test]
    fn every_legal_king_pair_has_one_symmetry_into_the_table() {
        let t = index_tables();
        let legal = (0..64 * 64).filter(|&i| t.king_canonical[i] != NONE).count();
        assert_eq!(legal, 3612);
        assert_eq!(t.king_pairs.len(), 462);
    }
}
