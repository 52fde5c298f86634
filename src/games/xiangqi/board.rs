//! The xiangqi board: squares, zones (palaces, river, piece points), move geometry and symmetry
//! maps, computed once as plain arrays so that a WGSL twin can upload exactly the same data; and
//! the working [`Board`] that moves are made and unmade on: pieces in layout order and occupancy
//! bitboards (all pieces, each side's), updated in place.
//!
//! A square is `rank * 9 + file` (file 0 = a .. 8 = i, rank 0 = red's back rank .. 9). Every
//! per-square list is padded with [`NONE`]. Bitboards are `u128` with bit `square` set; on a GPU
//! a bitboard is the three little-endian u32 words of the same value (90 squares).

use std::sync::OnceLock;

use super::index::{Layout, Squares};
use crate::games::binomial::binomial;

/// Squares on the board.
pub const SQUARES: usize = 90;
/// Files per rank.
pub const FILES: usize = 9;
/// Padding of every square list, and "no square".
pub const NONE: u8 = u8::MAX;

/// Piece kinds, numbered in the canonical order of material names (K R C N P A E).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// The general (king), confined to the palace.
    King = 0,
    /// The chariot (rook).
    Rook = 1,
    /// The cannon, which captures by jumping over one screen.
    Cannon = 2,
    /// The horse (knight), blocked by a piece on its leg.
    Horse = 3,
    /// The soldier (pawn), which also steps sideways once over the river.
    Pawn = 4,
    /// The advisor, on the palace's diagonals.
    Advisor = 5,
    /// The elephant, two steps diagonally on its own side of the river, blocked by its eye.
    Elephant = 6,
}

impl Kind {
    /// Every kind, in the canonical order.
    pub const ALL: [Kind; 7] = [
        Kind::King,
        Kind::Rook,
        Kind::Cannon,
        Kind::Horse,
        Kind::Pawn,
        Kind::Advisor,
        Kind::Elephant,
    ];

    /// The attacking kinds: what [`MAX_ATTACKERS`](super::MAX_ATTACKERS) limits, and what both
    /// sides need for the Asian rules to change a table.
    pub const ATTACKERS: [Kind; 4] = [Kind::Rook, Kind::Cannon, Kind::Horse, Kind::Pawn];

    /// Index in the material's kind order.
    pub fn index(self) -> usize {
        self as usize
    }

    /// How many attacking pieces ([`Kind::ATTACKERS`]) one side's counts, in kind order, hold.
    pub fn attackers(counts: &[u8]) -> usize {
        Kind::ATTACKERS
            .iter()
            .map(|kind| usize::from(counts[kind.index()]))
            .sum()
    }

    /// Whether the kind can ever give check: the attackers and the king, by facing the other
    /// (advisors and elephants never leave their half).
    pub fn attacks(self) -> bool {
        !matches!(self, Kind::Advisor | Kind::Elephant)
    }
}

/// File of a square.
pub fn file(square: u8) -> u8 {
    square % FILES as u8
}

/// Rank of a square.
pub fn rank(square: u8) -> u8 {
    square / FILES as u8
}

/// The square at a file and rank.
pub fn square(file: u8, rank: u8) -> u8 {
    rank * FILES as u8 + file
}

/// The square at signed coordinates, if on the board.
fn offset(square: u8, df: i32, dr: i32) -> Option<u8> {
    let f = i32::from(file(square)) + df;
    let r = i32::from(rank(square)) + dr;
    ((0..9).contains(&f) && (0..10).contains(&r)).then(|| (r * 9 + f) as u8)
}

/// Whether a square lies in either palace.
fn in_palace(square: u8) -> bool {
    (3..=5).contains(&file(square)) && !(3..=6).contains(&rank(square))
}

/// Whether a piece of `side` (0 red) on `square` has crossed the river into the other half.
pub fn crossed(side: usize, square: u8) -> bool {
    if side == 0 {
        rank(square) >= 5
    } else {
        rank(square) <= 4
    }
}

/// Whether two squares lie on the same side of the river.
fn same_half(a: u8, b: u8) -> bool {
    (rank(a) < 5) == (rank(b) < 5)
}

/// Whether a point is one a piece of `kind` of red can stand on; black's points are these with
/// ranks mirrored.
fn red_point(kind: Kind, square: u8) -> bool {
    let (f, r) = (file(square), rank(square));
    match kind {
        Kind::King => in_palace(square) && r <= 2,
        Kind::Advisor => in_palace(square) && r <= 2 && (f + r) % 2 == 1,
        Kind::Elephant => r <= 4 && r % 2 == 0 && f % 2 == 0 && (f + r) % 4 == 2,
        Kind::Pawn => crossed(0, square) || (r >= 3 && f % 2 == 0),
        Kind::Rook | Kind::Cannon | Kind::Horse => true,
    }
}

/// All geometry, computed once (see [`geometry`]).
pub struct Geometry {
    /// `points[side][kind][square]`: the square's number among the points where a piece of that
    /// side and kind may stand (ascending squares), or [`NONE`].
    pub points: [[[u8; SQUARES]; 7]; 2],
    /// `point_squares[side][kind][n]`: the n-th point, padded with [`NONE`].
    pub point_squares: [[[u8; SQUARES]; 7]; 2],
    /// Number of points per side and kind.
    pub point_count: [[u8; 7]; 2],
    /// Number of the red king's square among the six points on files d and e (the red king
    /// after the mirror reduction), or [`NONE`].
    pub red_king_reduced: [u8; SQUARES],
    /// `points` and `red_king_reduced` read through the mirror: the point number of the
    /// mirror image of each square (the index of a position's mirror image).
    pub mirrored_points: [[[u8; SQUARES]; 7]; 2],
    /// `red_king_reduced` of the mirror image of each square.
    pub red_king_reduced_mirrored: [u8; SQUARES],
    /// The six squares of the reduced red king, in order.
    pub red_king_squares: [u8; 6],
    /// Left-right mirror (file f -> 8 - f).
    pub mirror: [u8; SQUARES],
    /// Top-bottom mirror (rank r -> 9 - r), used with a colour swap.
    pub flip: [u8; SQUARES],
    /// Orthogonal steps inside the palace.
    pub king_steps: [[u8; 4]; SQUARES],
    /// Diagonal steps inside the palace.
    pub advisor_steps: [[u8; 4]; SQUARES],
    /// Elephant targets on the same side of the river, and the eye each needs empty.
    pub elephant_to: [[u8; 4]; SQUARES],
    /// The eye of each of `elephant_to`'s targets.
    pub elephant_eye: [[u8; 4]; SQUARES],
    /// Horse targets and the leg each needs empty.
    pub horse_to: [[u8; 8]; SQUARES],
    /// The leg of each of `horse_to`'s targets.
    pub horse_leg: [[u8; 8]; SQUARES],
    /// Squares a horse reaches this square from, and the leg of that move.
    pub horse_from: [[u8; 8]; SQUARES],
    /// The leg of each of `horse_from`'s moves.
    pub horse_from_leg: [[u8; 8]; SQUARES],
    /// `pawn_to[side][square]`: pawn steps (forward, then sideways after the river).
    pub pawn_to: [[[u8; 3]; SQUARES]; 2],
    /// `pawn_from[side][square]`: pawn points a pawn steps to this square from.
    pub pawn_from: [[[u8; 3]; SQUARES]; 2],
    /// `rays[square][direction]`: squares outward in the order north, south, west, east.
    pub rays: [[[u8; 9]; 4]; SQUARES],
    /// `between[a * 90 + b]`: squares strictly between two squares on one rank or file.
    pub between: Vec<u128>,
    /// `aligned[a * 90 + b]`: 1 if the squares differ and share a rank or file.
    pub aligned: Vec<u8>,
    /// `sensitive[king]`: the squares whose emptiness can decide an attack on a king there
    /// (its rank and file, and its diagonal neighbours, the legs of horses attacking it).
    pub sensitive: [u128; SQUARES],
    /// `horse_leg_for[a * 90 + b]`: the leg a horse on `a` needs to reach `b`, or [`NONE`].
    pub horse_leg_for: Vec<u8>,
    /// `pair_unrank[rank]`: the two point numbers (low, high) of the pair with this rank, where
    /// `rank = binomial(high, 2) + low`; one table serves every point count up to 90.
    pub pair_unrank: Vec<[u8; 2]>,
}

/// The shared geometry.
pub fn geometry() -> &'static Geometry {
    static GEOMETRY: OnceLock<Geometry> = OnceLock::new();
    GEOMETRY.get_or_init(Geometry::compute)
}

/// Fills a padded list from an iterator.
fn padded<const N: usize>(items: impl IntoIterator<Item = u8>) -> [u8; N] {
    let mut list = [NONE; N];
    for (entry, item) in list.iter_mut().zip(items) {
        *entry = item;
    }
    list
}

const ORTHOGONAL: [(i32, i32); 4] = [(0, 1), (0, -1), (-1, 0), (1, 0)];
const DIAGONAL: [(i32, i32); 4] = [(1, 1), (1, -1), (-1, 1), (-1, -1)];

impl Geometry {
    fn compute() -> Geometry {
        let all = || 0..SQUARES as u8;
        let mirror: [u8; SQUARES] = padded(all().map(|s| square(8 - file(s), rank(s))));
        let flip: [u8; SQUARES] = padded(all().map(|s| square(file(s), 9 - rank(s))));

        let mut points = [[[NONE; SQUARES]; 7]; 2];
        let mut point_squares = [[[NONE; SQUARES]; 7]; 2];
        let mut point_count = [[0u8; 7]; 2];
        for side in 0..2 {
            for kind in Kind::ALL {
                let k = kind.index();
                for s in all() {
                    let red_square = if side == 0 { s } else { flip[usize::from(s)] };
                    if red_point(kind, red_square) {
                        let n = point_count[side][k];
                        points[side][k][usize::from(s)] = n;
                        point_squares[side][k][usize::from(n)] = s;
                        point_count[side][k] += 1;
                    }
                }
            }
        }
        let mut red_king_reduced = [NONE; SQUARES];
        let red_king_squares: [u8; 6] = padded(all().filter(|&s| red_point(Kind::King, s) && file(s) <= 4));
        for (n, &s) in red_king_squares.iter().enumerate() {
            red_king_reduced[usize::from(s)] = n as u8;
        }

        let through_mirror =
            |table: &[u8; SQUARES]| -> [u8; SQUARES] { std::array::from_fn(|s| table[usize::from(mirror[s])]) };
        let mirrored_points = points.map(|side| side.map(|kind| through_mirror(&kind)));
        let red_king_reduced_mirrored = through_mirror(&red_king_reduced);

        let steps = |dirs: [(i32, i32); 4], s: u8| -> [u8; 4] {
            padded(
                dirs.iter()
                    .filter_map(|&(df, dr)| offset(s, df, dr))
                    .filter(|&t| in_palace(s) && in_palace(t) && same_half(s, t)),
            )
        };
        let king_steps: [[u8; 4]; SQUARES] = std::array::from_fn(|s| steps(ORTHOGONAL, s as u8));
        let advisor_steps: [[u8; 4]; SQUARES] = std::array::from_fn(|s| steps(DIAGONAL, s as u8));

        let elephant = |s: u8| {
            DIAGONAL.iter().filter_map(move |&(df, dr)| {
                let t = offset(s, 2 * df, 2 * dr)?;
                same_half(s, t).then(|| (t, offset(s, df, dr).expect("midpoint on board")))
            })
        };
        let elephant_to = std::array::from_fn(|s| padded(elephant(s as u8).map(|m| m.0)));
        let elephant_eye = std::array::from_fn(|s| padded(elephant(s as u8).map(|m| m.1)));

        let horse = |s: u8| {
            [(1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (2, -1), (-2, 1), (-2, -1)]
                .into_iter()
                .filter_map(move |(df, dr): (i32, i32)| {
                    let t = offset(s, df, dr)?;
                    let leg = if dr.abs() == 2 {
                        offset(s, 0, dr.signum())
                    } else {
                        offset(s, df.signum(), 0)
                    };
                    Some((t, leg.expect("leg on board")))
                })
        };
        let horse_to = std::array::from_fn(|s| padded(horse(s as u8).map(|m| m.0)));
        let horse_leg = std::array::from_fn(|s| padded(horse(s as u8).map(|m| m.1)));
        let horse_sources = |t: u8| all().flat_map(move |s| horse(s).filter(move |m| m.0 == t).map(move |m| (s, m.1)));
        let horse_from = std::array::from_fn(|t| padded(horse_sources(t as u8).map(|m| m.0)));
        let horse_from_leg = std::array::from_fn(|t| padded(horse_sources(t as u8).map(|m| m.1)));

        let pawn = |side: usize, s: u8| {
            let forward = if side == 0 { 1 } else { -1 };
            let sideways: &[(i32, i32)] = if crossed(side, s) { &[(-1, 0), (1, 0)] } else { &[] };
            [(0, forward)]
                .iter()
                .chain(sideways)
                .filter_map(move |&(df, dr)| offset(s, df, dr))
                .collect::<Vec<u8>>()
        };
        let is_pawn_point = |side: usize, s: u8| points[side][Kind::Pawn.index()][usize::from(s)] != NONE;
        let pawn_to = std::array::from_fn(|side| std::array::from_fn(|s| padded(pawn(side, s as u8))));
        let pawn_from = std::array::from_fn(|side| {
            std::array::from_fn(|t| {
                padded(all().filter(|&s| is_pawn_point(side, s) && pawn(side, s).contains(&(t as u8))))
            })
        });

        let rays = std::array::from_fn(|s| {
            std::array::from_fn(|d| {
                let (df, dr) = ORTHOGONAL[d];
                padded((1..10).map_while(|n| offset(s as u8, df * n, dr * n)))
            })
        });

        let mut between = vec![0u128; SQUARES * SQUARES];
        let mut aligned = vec![0u8; SQUARES * SQUARES];
        for a in all() {
            for (df, dr) in ORTHOGONAL {
                let mut mask = 0u128;
                let mut n = 1;
                while let Some(b) = offset(a, df * n, dr * n) {
                    let i = usize::from(a) * SQUARES + usize::from(b);
                    between[i] = mask;
                    aligned[i] = 1;
                    mask |= 1u128 << b;
                    n += 1;
                }
            }
        }
        let mut horse_leg_for = vec![NONE; SQUARES * SQUARES];
        for a in all() {
            for (t, leg) in horse(a) {
                horse_leg_for[usize::from(a) * SQUARES + usize::from(t)] = leg;
            }
        }

        let sensitive = std::array::from_fn(|k| {
            let k = k as u8;
            let lines = all().filter(|&s| s != k && (file(s) == file(k) || rank(s) == rank(k)));
            let legs = DIAGONAL.iter().filter_map(|&(df, dr)| offset(k, df, dr));
            lines.chain(legs).fold(0u128, |mask, s| mask | 1u128 << s)
        });

        let mut pair_unrank = Vec::with_capacity(binomial(SQUARES as u32, 2) as usize);
        for high in 1..SQUARES as u8 {
            for low in 0..high {
                pair_unrank.push([low, high]);
            }
        }

        Geometry {
            points,
            point_squares,
            point_count,
            red_king_reduced,
            mirrored_points,
            red_king_reduced_mirrored,
            red_king_squares,
            mirror,
            flip,
            king_steps,
            advisor_steps,
            elephant_to,
            elephant_eye,
            horse_to,
            horse_leg,
            horse_from,
            horse_from_leg,
            pawn_to,
            pawn_from,
            rays,
            between,
            aligned,
            sensitive,
            horse_leg_for,
            pair_unrank,
        }
    }

    /// Whether a piece of `side` (0 red, 1 black) and `kind` may stand on `square`.
    pub fn allowed(&self, side: usize, kind: Kind, square: u8) -> bool {
        self.points[side][kind.index()][usize::from(square)] != NONE
    }
}

/// The pieces of one material on the board.
#[derive(Clone)]
pub struct Board<'l> {
    /// The material's pieces in layout order: the side and kind of each.
    pub layout: &'l Layout,
    /// Square of each piece, [`NONE`] while captured.
    pub squares: Squares,
    /// Occupied squares, a bit per square.
    pub occupied: u128,
    /// Squares of each side's pieces.
    pub side_occupied: [u128; 2],
}

/// What [`Board::make`] changed, for [`Board::unmake`].
#[derive(Clone, Copy)]
pub struct Undo {
    piece: usize,
    from: u8,
    to: u8,
    /// The captured piece, or [`NONE`].
    pub victim: u8,
}

impl<'l> Board<'l> {
    /// The board of pieces on `squares`, `None` when two share a square.
    pub fn new(layout: &'l Layout, squares: Squares) -> Option<Board<'l>> {
        let mut board = Board {
            layout,
            squares,
            occupied: 0,
            side_occupied: [0; 2],
        };
        for (piece, &s) in squares.iter().enumerate().take(layout.pieces) {
            let bit = 1u128 << s;
            if board.occupied & bit != 0 {
                return None;
            }
            board.occupied |= bit;
            board.side_occupied[usize::from(layout.side[piece])] |= bit;
        }
        Some(board)
    }

    /// Whether no piece stands on `square`.
    pub fn empty(&self, square: u8) -> bool {
        self.occupied & (1u128 << square) == 0
    }

    /// Moves `piece` to `to`, capturing what stands there.
    #[inline]
    pub fn make(&mut self, piece: usize, to: u8) -> Undo {
        let side = usize::from(self.layout.side[piece]);
        let from = self.squares[piece];
        let (from_bit, to_bit) = (1u128 << from, 1u128 << to);
        let mut victim = NONE;
        if self.side_occupied[1 - side] & to_bit != 0 {
            let (start, end) = self.layout.sides[1 - side];
            let captured = (start..end)
                .find(|&v| self.squares[v] == to)
                .expect("an occupied enemy square holds an enemy piece");
            self.squares[captured] = NONE;
            self.side_occupied[1 - side] &= !to_bit;
            victim = captured as u8;
        }
        self.squares[piece] = to;
        self.side_occupied[side] = (self.side_occupied[side] & !from_bit) | to_bit;
        self.occupied = (self.occupied & !from_bit) | to_bit;
        Undo {
            piece,
            from,
            to,
            victim,
        }
    }

    /// Takes back a [`Board::make`].
    #[inline]
    pub fn unmake(&mut self, undo: Undo) {
        let side = usize::from(self.layout.side[undo.piece]);
        let (from_bit, to_bit) = (1u128 << undo.from, 1u128 << undo.to);
        self.squares[undo.piece] = undo.from;
        self.side_occupied[side] = (self.side_occupied[side] & !to_bit) | from_bit;
        self.occupied |= from_bit;
        if undo.victim == NONE {
            self.occupied &= !to_bit;
        } else {
            self.squares[usize::from(undo.victim)] = undo.to;
            self.side_occupied[1 - side] |= to_bit;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zones_have_the_documented_sizes() {
        let g = geometry();
        for side in 0..2 {
            assert_eq!(g.point_count[side], [9, 90, 90, 90, 55, 5, 7]);
        }
        assert_eq!(g.red_king_reduced.iter().filter(|&&n| n != NONE).count(), 6);
        assert_eq!(g.pair_unrank.len(), 4005);
        assert_eq!(g.pair_unrank[usize::try_from(binomial(7, 2)).unwrap() + 3], [3, 7]);
    }

    #[test]
    fn horse_sources_invert_horse_targets() {
        let g = geometry();
        let mut moves = 0;
        for s in 0..SQUARES {
            for (&t, &leg) in g.horse_to[s].iter().zip(&g.horse_leg[s]) {
                if t == NONE {
                    continue;
                }
                moves += 1;
                let back = g.horse_from[usize::from(t)].iter().position(|&f| f == s as u8);
                let back = back.expect("source listed");
                assert_eq!(g.horse_from_leg[usize::from(t)][back], leg);
            }
        }
        assert_eq!(moves, g.horse_from.iter().flatten().filter(|&&f| f != NONE).count());
    }
}
