//! The index space of a pawnless chess material (index scheme version 1).
//!
//! The GPU twin reproduces this scheme bit for bit:
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

use std::sync::OnceLock;

use anyhow::{Result, bail};

use super::Position;
use super::board::{
    DIAGONAL, Geometry, MAX_MEN, Men, Placement, Square, TRANSPOSE, apply_symmetry, bit, file, geometry, rank,
};
use crate::games::IndexSpace;
use crate::material::{Material, Side};

/// Number of canonical king pairs.
pub const KING_PAIRS: usize = 462;
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
    /// `unrank[k - 1][r]`: the squares `s_1 | s_2 << 8 | s_3 << 16` (0..62) of combinadic rank
    /// `r` of a group of `k`.
    pub unrank: [Vec<u32>; MAX_MEN],
}

fn adjacent_or_same(a: Square, b: Square) -> bool {
    file(a).abs_diff(file(b)) <= 1 && rank(a).abs_diff(rank(b)) <= 1
}

fn pair_in_table(wk: Square, bk: Square) -> bool {
    file(wk) <= 3 && rank(wk) <= file(wk) && !adjacent_or_same(wk, bk) && (file(wk) != rank(wk) || rank(bk) <= file(bk))
}

fn choose(n: u64, k: u64) -> u64 {
    if k > n {
        return 0;
    }
    (0..k).fold(1, |c, i| c * (n - i) / (i + 1))
}

impl IndexTables {
    fn new() -> IndexTables {
        let mut king_pairs = Vec::with_capacity(KING_PAIRS);
        let mut pair_number = vec![NONE; 64 * 64];
        for wk in 0..64u8 {
            for bk in 0..64u8 {
                if pair_in_table(wk, bk) {
                    pair_number[wk as usize * 64 + bk as usize] = king_pairs.len() as u32;
                    king_pairs.push(u32::from(wk) | u32::from(bk) << 8);
                }
            }
        }
        assert_eq!(king_pairs.len(), KING_PAIRS);
        let king_canonical = (0..64 * 64)
            .map(|i| {
                let (wk, bk) = ((i / 64) as Square, (i % 64) as Square);
                let image = |s| (apply_symmetry(s, wk), apply_symmetry(s, bk));
                let sym = (0..8).find(|&s| {
                    let (w, b) = image(s);
                    !adjacent_or_same(wk, bk) && pair_in_table(w, b)
                });
                sym.map_or(NONE, |s| {
                    let (w, b) = image(s);
                    let diagonal = (bit(w) | bit(b)) & !DIAGONAL == 0;
                    pair_number[w as usize * 64 + b as usize] | (s as u32) << 16 | u32::from(diagonal) << 19
                })
            })
            .collect();
        let unrank = std::array::from_fn(|k| {
            let k = k + 1;
            let mut table = vec![0u32; choose(FREE_SQUARES as u64, k as u64) as usize];
            let mut squares = [0u32; MAX_MEN];
            fill_unrank(&mut table, &mut squares, k, 0, 0);
            table
        });
        IndexTables {
            king_pairs,
            king_canonical,
            unrank,
        }
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
}

/// A group of identical men: its place in the men's order and in the slot's mixed radix.
#[derive(Clone, Copy, Debug, Default)]
pub struct Group {
    /// Index of its first man.
    pub first: usize,
    /// Number of men in it.
    pub len: usize,
    /// C(62, len).
    pub radix: u64,
    /// Weight of its rank in the slot.
    pub multiplier: u64,
}

/// The index space of one canonical pawnless material.
pub struct ChessIndex {
    material: Material,
    men: Men,
    groups: [Group; MAX_MEN],
    group_count: usize,
    /// `group_of[man]`: the group a man belongs to.
    group_of: [usize; MAX_MEN],
    /// Slots per king pair (R).
    per_pair: u64,
    /// Divisions by `per_pair` and by each group's multiplier, for decoding.
    pair_divisor: Divisor,
    group_divisors: [Divisor; MAX_MEN],
    per_side: u64,
    geo: &'static Geometry,
    tables: &'static IndexTables,
}

impl ChessIndex {
    /// The index of a canonical material of kings plus at most [`MAX_MEN`] Q, R, B, N (checked
    /// by the caller).
    pub fn new(material: &Material) -> Result<ChessIndex> {
        if !material.is_canonical() {
            bail!(
                "material {material} is not in canonical order (use {})",
                material.canonical().0
            );
        }
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
        let mut per_pair = 1;
        for g in groups[..group_count].iter_mut().rev() {
            g.radix = choose(FREE_SQUARES as u64, g.len as u64);
            g.multiplier = per_pair;
            per_pair *= g.radix;
        }
        let per_side = KING_PAIRS as u64 * per_pair;
        if 2 * per_side > u64::from(u32::MAX) {
            bail!("material {material} has too many states for chess index version 1");
        }
        let mut group_divisors = [Divisor::default(); MAX_MEN];
        for (divisor, g) in group_divisors.iter_mut().zip(&groups[..group_count]) {
            *divisor = Divisor::new(g.multiplier as u32);
        }
        Ok(ChessIndex {
            material: *material,
            men,
            groups,
            group_count,
            group_of,
            per_pair,
            pair_divisor: Divisor::new(per_pair as u32),
            group_divisors,
            per_side,
            geo: geometry(),
            tables: index_tables(),
        })
    }

    pub fn material(&self) -> &Material {
        &self.material
    }

    pub fn men(&self) -> &Men {
        &self.men
    }

    pub fn per_side(&self) -> u64 {
        self.per_side
    }

    /// Slots per king pair (`R` of the scheme).
    pub fn per_pair(&self) -> u64 {
        self.per_pair
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

    /// Combinadic rank of a group in a placement whose kings are as given.
    #[inline(always)]
    pub fn group_rank(&self, group: &Group, placement: Placement) -> u64 {
        let [wk, bk] = placement.kings();
        let free = |sq: Square| u32::from(sq) - u32::from(sq > wk) - u32::from(sq > bk);
        // C(n, 2) and C(n, 3) by arithmetic: quicker than a table lookup.
        let pairs = |n: u32| u64::from(n * n.saturating_sub(1) / 2);
        let triples = |n: u32| u64::from(n * n.saturating_sub(1) * n.saturating_sub(2) / 6);
        let man = |j: usize| free(placement.man(group.first + j));
        match group.len {
            1 => u64::from(man(0)),
            2 => {
                let (a, b) = (man(0), man(1));
                u64::from(a.min(b)) + pairs(a.max(b))
            }
            _ => {
                let (a, b, c) = (man(0), man(1), man(2));
                let (a, b) = (a.min(b), a.max(b));
                let (b, c) = (b.min(c), b.max(c));
                let (a, b) = (a.min(b), a.max(b));
                u64::from(a) + pairs(b) + triples(c)
            }
        }
    }

    /// The slot of a placement whose kings form canonical pair number `pair`, as it stands.
    #[inline(always)]
    pub fn slot_as_is(&self, pair: u32, placement: Placement) -> u64 {
        let mut slot = u64::from(pair) * self.per_pair;
        for g in &self.groups[..self.group_count] {
            slot += self.group_rank(g, placement) * g.multiplier;
        }
        slot
    }

    /// The canonical slot of a placement of legal kings, and whether a symmetry other than the
    /// identity produced it.
    #[inline]
    pub fn canonical(&self, placement: Placement) -> (u64, bool) {
        let [wk, bk] = placement.kings();
        let canonical = self.tables.king_canonical[wk as usize * 64 + bk as usize];
        debug_assert_ne!(canonical, NONE, "kings on one square or adjacent");
        let (pair, sym) = (canonical & 0xFFFF, (canonical >> 16 & 7) as usize);
        let image = if sym == 0 {
            placement
        } else {
            placement.mapped(self.geo, sym, self.men.count)
        };
        let slot = self.slot_as_is(pair, image);
        if canonical >> 19 != 0 {
            let reflected = self.slot_as_is(pair, image.mapped(self.geo, TRANSPOSE, self.men.count));
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
        let pair = (slot / self.per_pair) as u32;
        self.slot_as_is(pair, placement.mapped(self.geo, TRANSPOSE, self.men.count))
    }

    /// Whether both kings stand on the a1-h8 diagonal (the reflection in it keeps them).
    #[inline]
    pub fn kings_on_diagonal(placement: Placement) -> bool {
        let [wk, bk] = placement.kings();
        (bit(wk) | bit(bk)) & !DIAGONAL == 0
    }

    /// The side to move of a state and its slot.
    #[inline]
    pub fn split(&self, state: u64) -> (Side, u64) {
        crate::games::split_state(state, self.per_side)
    }

    /// The placement a slot spells out, whether or not it is a legal position.
    #[inline]
    pub fn placement(&self, slot: u64) -> Placement {
        // Every supported table has fewer than 2^32 states (checked in `new`).
        let (pair, mut rest) = self.pair_divisor.div_rem(slot as u32);
        let pair = self.tables.king_pairs[pair as usize];
        let (wk, bk) = ((pair & 0xFF) as Square, (pair >> 8) as Square);
        let (low, high) = (wk.min(bk), wk.max(bk));
        let mut placement = Placement::new([wk, bk], &[]);
        for (g, divisor) in self.groups[..self.group_count].iter().zip(&self.group_divisors) {
            let (rank, left) = divisor.div_rem(rest);
            rest = left;
            let squares = self.tables.unrank[g.len - 1][rank as usize];
            for j in 0..g.len {
                let mut sq = ((squares >> (8 * j)) & 0xFF) as Square;
                sq += Square::from(sq >= low);
                sq += Square::from(sq >= high);
                placement = placement.with_man(g.first + j, sq);
            }
        }
        placement
    }

    /// The placement and side to move of a state, `None` for a broken slot.
    #[inline]
    pub fn decode_legal(&self, state: u64) -> Option<(Placement, Side)> {
        let (side, slot) = self.split(state);
        let placement = self.placement(slot);
        let count = self.men.count;
        let occupied = placement.occupied(count);
        if occupied.count_ones() as usize != count + 2 {
            return None;
        }
        let waiting = side.other();
        if placement.attacked(self.geo, &self.men, placement.king(waiting), side, occupied) {
            return None;
        }
        if Self::kings_on_diagonal(placement) && self.reflected(slot, placement) < slot {
            return None;
        }
        Some((placement, side))
    }
}

impl IndexSpace for ChessIndex {
    type Position = Position;

    fn per_side(&self) -> u64 {
        self.per_side
    }

    fn states(&self) -> u64 {
        2 * self.per_side
    }

    /// Panics when the position is not of this index's material.
    fn locate(&self, position: &Position) -> u64 {
        let (men, placement) = position.men_and_placement();
        assert_eq!(
            men, self.men,
            "position {position:?} is not of material {}",
            self.material
        );
        let (slot, _) = self.canonical(placement);
        position.turn().index() as u64 * self.per_side + slot
    }

    fn decode(&self, state: u64) -> Option<Position> {
        let (placement, side) = self.decode_legal(state)?;
        Some(Position::from_placement(&self.men, placement, side))
    }

    fn weight(&self, state: u64) -> u32 {
        let Some((placement, _)) = self.decode_legal(state) else {
            return 0;
        };
        let slot = self.split(state).1;
        let symmetric = Self::kings_on_diagonal(placement) && self.reflected(slot, placement) == slot;
        if symmetric { 4 } else { 8 }
    }

    fn side_to_move(&self, state: u64) -> Side {
        self.split(state).0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combinadic_tables_invert_the_rank() {
        let t = index_tables();
        for k in 1..=MAX_MEN {
            assert_eq!(t.unrank[k - 1].len() as u64, choose(62, k as u64));
            for (r, &packed) in t.unrank[k - 1].iter().enumerate() {
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
    fn every_legal_king_pair_has_one_symmetry_into_the_table() {
        let t = index_tables();
        let legal = (0..64 * 64).filter(|&i| t.king_canonical[i] != NONE).count();
        assert_eq!(legal, 3612);
        assert_eq!(t.king_pairs.len(), 462);
    }
}
