//! The 4x8 board: squares, pieces, the geometry tables (steps, rays, symmetry maps)
//! and the bitboard position every other module works on.
//!
//! Square `s = rank * 8 + file` with rank 0..4 (rank 1 to 4 in notation) and file 0..8 (a to h);
//! bit `s` of a `u32` mask is that square. The geometry is computed once, at compile time, as
//! plain `u32` arrays ([`GEOMETRY`]) so that a GPU twin can upload exactly the same data.

use crate::material::Side;

/// Squares on the board.
pub const SQUARES: usize = 32;
/// Files (a to h).
pub const FILES: usize = 8;
/// Ranks (1 to 4).
pub const RANKS: usize = 4;
/// Piece kinds, in the canonical letter order K A E R N C P (a kind is its index here).
pub const KINDS: usize = 7;
/// Piece letters of the first side (red), by kind.
pub const LETTERS: &[u8; KINDS] = b"KAERNCP";
/// The most pieces of each kind a side may have.
pub const MAX_COUNTS: [u8; KINDS] = [1, 2, 2, 2, 2, 2, 5];
/// The king (general).
pub const KING: usize = 0;
/// The cannon.
pub const CANNON: usize = 5;
/// The soldier.
pub const SOLDIER: usize = 6;
/// Symmetries of the rectangle: identity, mirror a<->h, mirror 1<->4, both (180 degree turn).
/// They form a Klein group: applying `g` then `h` is applying `g ^ h`.
pub const SYMMETRIES: usize = 4;
/// The largest group of identical pieces (five soldiers).
pub const MAX_GROUP: usize = 5;

/// Rank of a piece kind in the capture order (K 6 down to P 0).
pub const fn strength(kind: usize) -> usize {
    KINDS - 1 - kind
}

/// Ray directions: towards rank 4, towards file h, towards rank 1, towards file a.
const DIRECTIONS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// Geometry shared by the CPU rules and their GPU twin, as plain arrays.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// Orthogonal neighbours of each square.
    pub steps: [u32; SQUARES],
    /// `rays[d][s]`: the squares beyond `s` in direction `d` (see `DIRECTIONS`), excluding `s`.
    /// Directions 0 and 1 run towards higher squares, 2 and 3 towards lower ones.
    pub rays: [[u32; SQUARES]; 4],
    /// `symmetry[g][s]`: the image of square `s` under symmetry `g`.
    pub symmetry: [[u32; SQUARES]; SYMMETRIES],
}

/// The geometry, computed at compile time.
pub const GEOMETRY: Geometry = Geometry::new();

impl Geometry {
    const fn new() -> Geometry {
        let mut steps = [0u32; SQUARES];
        let mut rays = [[0u32; SQUARES]; 4];
        let mut symmetry = [[0u32; SQUARES]; SYMMETRIES];
        let mut s = 0;
        while s < SQUARES {
            let (rank, file) = ((s / FILES) as i32, (s % FILES) as i32);
            let mut d = 0;
            while d < 4 {
                let (dr, df) = DIRECTIONS[d];
                let (mut r, mut f) = (rank + dr, file + df);
                if on_board(r, f) {
                    steps[s] |= 1 << (r * FILES as i32 + f);
                }
                while on_board(r, f) {
                    rays[d][s] |= 1 << (r * FILES as i32 + f);
                    r += dr;
                    f += df;
                }
                d += 1;
            }
            let (mr, mf) = (RANKS as i32 - 1 - rank, FILES as i32 - 1 - file);
            symmetry[0][s] = s as u32;
            symmetry[1][s] = (rank * FILES as i32 + mf) as u32;
            symmetry[2][s] = (mr * FILES as i32 + file) as u32;
            symmetry[3][s] = (mr * FILES as i32 + mf) as u32;
            s += 1;
        }
        Geometry { steps, rays, symmetry }
    }
}

const fn on_board(rank: i32, file: i32) -> bool {
    rank >= 0 && rank < RANKS as i32 && file >= 0 && file < FILES as i32
}

/// The image of a square mask under symmetry `g` (bit tricks equal to [`Geometry::symmetry`]:
/// a rank is one byte, so mirroring the ranks swaps bytes and mirroring both reverses the bits).
#[inline]
pub fn transform(mask: u32, g: usize) -> u32 {
    match g {
        0 => mask,
        1 => mask.reverse_bits().swap_bytes(),
        2 => mask.swap_bytes(),
        _ => mask.reverse_bits(),
    }
}

/// Calls `f` with every square of a mask, lowest first.
#[inline]
pub fn for_each_square(mask: u32, mut f: impl FnMut(u32)) {
    let mut m = mask;
    while m != 0 {
        f(m.trailing_zeros());
        m &= m - 1;
    }
}

/// The pieces on the board: one square mask per side and kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Board {
    /// `masks[side][kind]`: the squares of that side's pieces of that kind.
    pub masks: [[u32; KINDS]; 2],
}

impl Board {
    /// Squares of one side's pieces.
    #[inline]
    pub fn side_mask(&self, side: Side) -> u32 {
        self.masks[side.index()].iter().fold(0, |acc, &m| acc | m)
    }

    /// Every occupied square.
    #[inline]
    pub fn occupied(&self) -> u32 {
        self.side_mask(Side::First) | self.side_mask(Side::Second)
    }

    /// The piece on a square, if any.
    ///
    /// # Panics
    /// If `square` is not one of the board's 32.
    pub fn piece_at(&self, square: usize) -> Option<(Side, usize)> {
        assert!(square < SQUARES, "dark chess has no square {square}");
        Side::BOTH.into_iter().find_map(|side| {
            (0..KINDS)
                .find(|&kind| self.masks[side.index()][kind] >> square & 1 == 1)
                .map(|kind| (side, kind))
        })
    }

    /// The same pieces with the colours swapped (the board itself is unchanged).
    pub fn swapped(&self) -> Board {
        Board {
            masks: [self.masks[1], self.masks[0]],
        }
    }

    /// The image of the board under symmetry `g`.
    pub fn transformed(&self, g: usize) -> Board {
        let mut board = *self;
        board.masks.iter_mut().flatten().for_each(|m| *m = transform(*m, g));
        board
    }
}

/// The name of a square, `a1` to `h4`.
pub fn square_name(square: usize) -> String {
    format!("{}{}", (b'a' + (square % FILES) as u8) as char, square / FILES + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_transforms_match_the_square_maps() {
        for g in 0..SYMMETRIES {
            for s in 0..SQUARES {
                assert_eq!(transform(1 << s, g), 1 << GEOMETRY.symmetry[g][s]);
                assert_eq!(transform(transform(1 << s, g), g), 1 << s);
            }
        }
        // Klein group: composing is xor of the indices.
        for (g, h) in (0..4).flat_map(|g| (0..4).map(move |h| (g, h))) {
            assert_eq!(transform(transform(0x1234_5678, g), h), transform(0x1234_5678, g ^ h));
        }
    }

    #[test]
    fn steps_and_rays_have_the_right_sizes() {
        let a1 = 0;
        let d2 = 8 + 3;
        assert_eq!(GEOMETRY.steps[a1].count_ones(), 2);
        assert_eq!(GEOMETRY.steps[d2].count_ones(), 4);
        assert_eq!(GEOMETRY.rays[1][a1].count_ones(), 7);
        assert_eq!(GEOMETRY.rays[0][a1].count_ones(), 3);
        assert_eq!(GEOMETRY.rays[2][a1] | GEOMETRY.rays[3][a1], 0);
        assert_eq!(square_name(31), "h4");
    }
}
