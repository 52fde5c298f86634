//! The 8x8 board: squares, bitboards, the 8 symmetries of the square, rays, leaper and pawn
//! tables, the compact placement of a position, and attack tests.
//!
//! Squares are numbered a1 = 0, b1 = 1, ..., h1 = 7, a2 = 8, ..., h8 = 63 (`file + 8 * rank`);
//! bit `s` of a bitboard is square `s`. All geometry lives in one [`Geometry`] computed once, in
//! plain arrays that a GPU twin can upload as they are (see [`Geometry::gpu_words`]).

use std::ops::Range;
use std::sync::OnceLock;

use crate::material::{GameId, Material, Side};

/// A square, `file + 8 * rank` (a1 = 0, h8 = 63).
pub type Square = u8;
/// A set of squares, bit `s` for square `s`.
pub type Bitboard = u64;

/// The most non-king pieces a supported material has (6 pieces in all).
pub const MAX_MEN: usize = 4;
/// Number of symmetries of the square board.
pub const SYMMETRIES: usize = 8;
/// The symmetry that mirrors the files (a <-> h), the only one of a material with pawns.
pub const MIRROR: usize = 1;
/// The symmetry that mirrors the ranks (1 <-> 8), which swapping colours applies.
pub const RANK_MIRROR: usize = 2;
/// The symmetry that reflects the board in the a1-h8 diagonal (swaps file and rank).
pub const TRANSPOSE: usize = 4;
/// The a1-h8 diagonal.
pub const DIAGONAL: Bitboard = 0x8040_2010_0804_0201;

/// Piece kinds, numbered as in the material's canonical letter order (K Q R B N P).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    /// The king.
    King = 0,
    /// The queen.
    Queen = 1,
    /// The rook.
    Rook = 2,
    /// The bishop.
    Bishop = 3,
    /// The knight.
    Knight = 4,
    /// The pawn.
    Pawn = 5,
}

impl Kind {
    /// Every kind, in index order.
    pub const ALL: [Kind; 6] = [
        Kind::King,
        Kind::Queen,
        Kind::Rook,
        Kind::Bishop,
        Kind::Knight,
        Kind::Pawn,
    ];
    /// The kinds a pawn promotes to.
    pub const PROMOTIONS: [Kind; 4] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight];
    /// The kinds that are not kings, in group order.
    pub const MEN: [Kind; 5] = [Kind::Queen, Kind::Rook, Kind::Bishop, Kind::Knight, Kind::Pawn];

    /// Index in the material's kind order.
    pub fn index(self) -> usize {
        self as usize
    }

    /// The uppercase letter of the kind.
    pub fn letter(self) -> char {
        GameId::Chess.kind_letters()[self.index()] as char
    }
}

/// The file (0 = a) of a square.
pub fn file(sq: Square) -> u8 {
    sq & 7
}

/// The rank (0 = rank 1) of a square.
pub fn rank(sq: Square) -> u8 {
    sq >> 3
}

/// The rank (0 = rank 1) of a square seen from `side`: a pawn of `side` starts on its rank 1
/// and promotes on its rank 7.
pub fn relative_rank(side: Side, sq: Square) -> u8 {
    match side {
        Side::First => rank(sq),
        Side::Second => 7 - rank(sq),
    }
}

/// The square one step forward for a pawn of `side` (the square must not be on the last rank).
pub fn forward(side: Side, sq: Square) -> Square {
    match side {
        Side::First => sq + 8,
        Side::Second => sq - 8,
    }
}

/// The square one step backward for a pawn of `side` (the square must not be on the first rank).
pub fn backward(side: Side, sq: Square) -> Square {
    match side {
        Side::First => sq - 8,
        Side::Second => sq + 8,
    }
}

/// The squares a pawn may stand on: ranks 2 to 7.
pub const PAWN_SQUARES: Bitboard = 0x00FF_FFFF_FFFF_FF00;

/// The square with its rank mirrored (a1 <-> a8): symmetry [`RANK_MIRROR`].
pub fn rank_mirrored(sq: Square) -> Square {
    sq ^ 56
}

/// Whether two kings stand on one square or adjacent, which no legal position has.
pub fn kings_touch(a: Square, b: Square) -> bool {
    file(a).abs_diff(file(b)) <= 1 && rank(a).abs_diff(rank(b)) <= 1
}

/// The bitboard of one square.
pub fn bit(sq: Square) -> Bitboard {
    1 << sq
}

/// The square in algebraic notation (`e4`).
pub fn square_name(sq: Square) -> String {
    format!("{}{}", (b'a' + file(sq)) as char, (b'1' + rank(sq)) as char)
}

/// Image of a square under symmetry `sym`: bit 2 swaps file and rank first, then bit 0 mirrors
/// the file and bit 1 mirrors the rank. Symmetry 0 is the identity, 4 the a1-h8 reflection.
pub fn apply_symmetry(sym: usize, sq: Square) -> Square {
    let (mut f, mut r) = (file(sq), rank(sq));
    if sym & 4 != 0 {
        std::mem::swap(&mut f, &mut r);
    }
    if sym & 1 != 0 {
        f = 7 - f;
    }
    if sym & 2 != 0 {
        r = 7 - r;
    }
    f + 8 * r
}

/// Ray directions as (file step, rank step): the first four go to higher squares, the last four
/// to lower ones, so the nearest blocker on a ray is its lowest (first four) or highest set bit.
const DIRECTIONS: [(i8, i8); 8] = [(0, 1), (1, 0), (1, 1), (-1, 1), (0, -1), (-1, 0), (-1, -1), (1, -1)];
/// Directions along which a rook slides.
const ROOK_DIRECTIONS: [usize; 4] = [0, 1, 4, 5];
/// Directions along which a bishop slides.
const BISHOP_DIRECTIONS: [usize; 4] = [2, 3, 6, 7];

/// Every precomputed table of board geometry.
pub struct Geometry {
    /// `symmetry[s][sq]`: image of `sq` under symmetry `s` (see [`apply_symmetry`]).
    pub symmetry: [[Square; 64]; SYMMETRIES],
    /// `pattern[kind][sq]`: squares a piece of `kind` on `sq` attacks on an empty board.
    pub pattern: [[Bitboard; 64]; 5],
    /// `ray[d][sq]`: squares beyond `sq` in direction `d` up to the edge.
    pub ray: [[Bitboard; 64]; 8],
    /// `between[a][b]`: squares strictly between two squares on a common line, else empty.
    pub between: [[Bitboard; 64]; 64],
    /// `pawn_attacks[side][sq]`: squares a pawn of `side` on `sq` attacks.
    pub pawn_attacks: [[Bitboard; 64]; 2],
    /// The sliders' lookup tables (see [`Lines`]).
    lines: Lines,
}

/// Slider attacks by table lookups, a line at a time, without a branch ("kindergarten"
/// bitboards): the blockers on a line are gathered into a 6-bit number by one multiplication,
/// which indexes the line's attacks. The tables are small enough to stay in the first-level
/// cache.
struct Lines {
    /// `through[line][sq]`: the squares of line `line` through `sq` (`sq` itself excluded):
    /// [`RANK_LINE`], [`DIAGONAL_LINE`], [`ANTI_DIAGONAL_LINE`] (at most one square per file).
    through: [[Bitboard; 64]; 3],
    /// `by_file[file][blockers]`: the files a slider on `file` reaches along a line with the
    /// inner files (b to g) blocked as in `blockers` (bit `f - 1` for file `f`), repeated on
    /// every rank so that masking with the line leaves its squares.
    by_file: [[Bitboard; 64]; 8],
    /// `a_file[rank][blockers]`: the squares of the a-file a slider on `rank` of it reaches
    /// with the inner ranks blocked as gathered by [`FILE_GATHER`].
    a_file: [[Bitboard; 64]; 8],
}

const RANK_LINE: usize = 0;
const DIAGONAL_LINE: usize = 1;
const ANTI_DIAGONAL_LINE: usize = 2;
/// The a-file.
const A_FILE: Bitboard = 0x0101_0101_0101_0101;
/// Multiplying a line with at most one square per file by the b-file puts files b to g of it
/// in bits 58 to 63, with no carries.
const LINE_GATHER: Bitboard = 0x0202_0202_0202_0202;
/// Multiplying the a-file by the c2-h7 diagonal puts ranks 2 to 7 of it in bits 63 down to 58,
/// with no carries.
const FILE_GATHER: Bitboard = 0x0080_4020_1008_0400;

impl Lines {
    /// The blockers of a line with at most one square per file, as a 6-bit number.
    #[inline(always)]
    fn gather(line_blockers: Bitboard) -> usize {
        (line_blockers.wrapping_mul(LINE_GATHER) >> 58) as usize
    }

    /// The blockers of the a-file, as a 6-bit number.
    #[inline(always)]
    fn gather_file(a_file_blockers: Bitboard) -> usize {
        (a_file_blockers.wrapping_mul(FILE_GATHER) >> 58) as usize
    }

    /// The tables, each entry worked out by walking the rays of `ray` (the slider's own square
    /// may count as a blocker: the walk starts beyond it).
    fn new(ray: &[[Bitboard; 64]; 8]) -> Lines {
        // Squares reached from `sq` along direction `d` with `occupied` blocking.
        let walk = |d: usize, sq: Square, occupied: Bitboard| {
            let mut reached = 0;
            let mut left = ray[d][sq as usize];
            while left != 0 {
                let next = if d < 4 {
                    left.trailing_zeros()
                } else {
                    63 - left.leading_zeros()
                } as Square;
                reached |= bit(next);
                if occupied & bit(next) != 0 {
                    break;
                }
                left &= !bit(next);
            }
            reached
        };
        let mut lines = Lines {
            through: [[0; 64]; 3],
            by_file: [[0; 64]; 8],
            a_file: [[0; 64]; 8],
        };
        for sq in 0..64u8 {
            for (line, (d, e)) in [(1, 5), (2, 6), (3, 7)].into_iter().enumerate() {
                lines.through[line][sq as usize] = ray[d][sq as usize] | ray[e][sq as usize];
            }
        }
        for f in 0..8u8 {
            for blockers in 0..256u64 {
                let reached = walk(1, f, blockers) | walk(5, f, blockers);
                lines.by_file[f as usize][Self::gather(blockers)] = reached.wrapping_mul(A_FILE);
            }
        }
        for r in 0..8u8 {
            for blockers in 0..256u64 {
                let blockers = (0..8)
                    .filter(|&k| blockers & bit(k) != 0)
                    .fold(0, |b, k| b | bit(8 * k));
                let reached = walk(0, 8 * r, blockers) | walk(4, 8 * r, blockers);
                lines.a_file[r as usize][Self::gather_file(blockers)] = reached;
            }
        }
        lines
    }

    /// Squares reached from `sq` along a line with at most one square per file.
    #[inline(always)]
    fn along(&self, line: usize, sq: Square, occupied: Bitboard) -> Bitboard {
        let through = self.through[line][sq as usize];
        self.by_file[file(sq) as usize][Self::gather(occupied & through)] & through
    }

    /// Squares reached from `sq` along its file.
    #[inline(always)]
    fn along_file(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        let f = file(sq);
        self.a_file[rank(sq) as usize][Self::gather_file((occupied >> f) & A_FILE)] << f
    }

    #[inline(always)]
    fn rook(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        self.along(RANK_LINE, sq, occupied) | self.along_file(sq, occupied)
    }

    #[inline(always)]
    fn bishop(&self, sq: Square, occupied: Bitboard) -> Bitboard {
        self.along(DIAGONAL_LINE, sq, occupied) | self.along(ANTI_DIAGONAL_LINE, sq, occupied)
    }
}

impl Geometry {
    fn new() -> Box<Geometry> {
        let mut g = Box::new(Geometry {
            symmetry: [[0; 64]; SYMMETRIES],
            pattern: [[0; 64]; 5],
            ray: [[0; 64]; 8],
            between: [[0; 64]; 64],
            pawn_attacks: [[0; 64]; 2],
            lines: Lines {
                through: [[0; 64]; 3],
                by_file: [[0; 64]; 8],
                a_file: [[0; 64]; 8],
            },
        });
        let step = |sq: Square, (df, dr): (i8, i8)| -> Option<Square> {
            let f = file(sq) as i8 + df;
            let r = rank(sq) as i8 + dr;
            ((0..8).contains(&f) && (0..8).contains(&r)).then(|| (f + 8 * r) as Square)
        };
        const KNIGHT_STEPS: [(i8, i8); 8] = [(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)];
        for sq in 0..64u8 {
            for sym in 0..SYMMETRIES {
                g.symmetry[sym][sq as usize] = apply_symmetry(sym, sq);
            }
            for (d, &dir) in DIRECTIONS.iter().enumerate() {
                let mut cur = sq;
                let mut passed = 0;
                while let Some(next) = step(cur, dir) {
                    g.ray[d][sq as usize] |= bit(next);
                    g.between[sq as usize][next as usize] = passed;
                    passed |= bit(next);
                    cur = next;
                }
                if let Some(next) = step(sq, dir) {
                    g.pattern[Kind::King.index()][sq as usize] |= bit(next);
                }
            }
            for (side, rank_step) in [(0, 1), (1, -1)] {
                for file_step in [-1, 1] {
                    if let Some(next) = step(sq, (file_step, rank_step)) {
                        g.pawn_attacks[side][sq as usize] |= bit(next);
                    }
                }
            }
            for &dir in &KNIGHT_STEPS {
                if let Some(next) = step(sq, dir) {
                    g.pattern[Kind::Knight.index()][sq as usize] |= bit(next);
                }
            }
            let union = |dirs: &[usize; 4]| dirs.iter().fold(0, |b, &d| b | g.ray[d][sq as usize]);
            let rook = union(&ROOK_DIRECTIONS);
            let bishop = union(&BISHOP_DIRECTIONS);
            g.pattern[Kind::Rook.index()][sq as usize] = rook;
            g.pattern[Kind::Bishop.index()][sq as usize] = bishop;
            g.pattern[Kind::Queen.index()][sq as usize] = rook | bishop;
        }
        g.lines = Lines::new(&g.ray);
        g
    }

    /// Squares a piece of `kind` and `side` on `sq` attacks, with `occupied` blocking sliders.
    #[inline]
    pub fn attacks_of(&self, kind: Kind, side: Side, sq: Square, occupied: Bitboard) -> Bitboard {
        if kind == Kind::Pawn {
            self.pawn_attacks[side.index()][sq as usize]
        } else {
            self.attacks(kind, sq, occupied)
        }
    }

    /// Whether a piece of `kind` and `side` on `from` attacks `target`, with `occupied`
    /// blocking sliders.
    #[inline]
    pub fn attacks_square_of(&self, kind: Kind, side: Side, from: Square, target: Square, occupied: Bitboard) -> bool {
        if kind == Kind::Pawn {
            self.pawn_attacks[side.index()][from as usize] & bit(target) != 0
        } else {
            self.attacks_square(kind, from, target, occupied)
        }
    }

    /// Squares a piece of `kind` (not a pawn) on `sq` attacks with `occupied` squares blocking
    /// sliders.
    #[inline]
    pub fn attacks(&self, kind: Kind, sq: Square, occupied: Bitboard) -> Bitboard {
        match kind {
            Kind::King | Kind::Knight => self.pattern[kind.index()][sq as usize],
            Kind::Pawn => unreachable!("a pawn's attacks depend on its side (see attacks_of)"),
            Kind::Rook => self.lines.rook(sq, occupied),
            Kind::Bishop => self.lines.bishop(sq, occupied),
            Kind::Queen => self.lines.rook(sq, occupied) | self.lines.bishop(sq, occupied),
        }
    }

    /// Whether a piece of `kind` (not a pawn) on `from` attacks `target`, with `occupied`
    /// blocking sliders.
    #[inline]
    pub fn attacks_square(&self, kind: Kind, from: Square, target: Square, occupied: Bitboard) -> bool {
        self.pattern[kind.index()][from as usize] & bit(target) != 0
            && self.between[from as usize][target as usize] & occupied == 0
    }

    /// The geometry tables of `shaders/games/chess.wgsl` as little-endian u32 words
    /// (`symmetry` one square per word, then `pattern`, `ray`, `between` with each bitboard as
    /// its low word then its high word), for upload to a GPU.
    pub fn gpu_words(&self) -> Vec<u32> {
        let symmetry = self.symmetry.iter().flatten().map(|&s| u32::from(s));
        let boards = self
            .pattern
            .iter()
            .chain(&self.ray)
            .chain(&self.between)
            .flatten()
            .flat_map(|&b| [b as u32, (b >> 32) as u32]);
        symmetry.chain(boards).collect()
    }
}

/// The board geometry, computed on first use.
pub fn geometry() -> &'static Geometry {
    static GEOMETRY: OnceLock<Box<Geometry>> = OnceLock::new();
    GEOMETRY.get_or_init(Geometry::new)
}

/// Who the non-king pieces ("men") of a material are, in the index's group order: white Q, R,
/// B, N, P, then black Q, R, B, N, P (identical pieces next to each other).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Men {
    /// Number of men (at most [`MAX_MEN`]).
    pub count: usize,
    /// The side of each man; entries from `count` on are unused.
    pub side: [Side; MAX_MEN],
    /// The kind of each man; entries from `count` on are unused.
    pub kind: [Kind; MAX_MEN],
    /// The number of white men, which come first.
    white: usize,
}

impl Men {
    /// The men of a material of at most [`MAX_MEN`] non-king pieces.
    pub fn of_material(material: &Material) -> Men {
        let mut men = Men {
            count: 0,
            side: [Side::First; MAX_MEN],
            kind: [Kind::Queen; MAX_MEN],
            white: 0,
        };
        for side in Side::BOTH {
            for kind in Kind::MEN {
                for _ in 0..material.count(side, kind.index()) {
                    men.side[men.count] = side;
                    men.kind[men.count] = kind;
                    men.count += 1;
                }
            }
            if side == Side::First {
                men.white = men.count;
            }
        }
        men
    }

    /// The men of `side`: the white men come first, so they are a range (the move generators'
    /// loops visit only the men they need, without testing each man's side).
    #[inline]
    pub fn of(&self, side: Side) -> Range<usize> {
        match side {
            Side::First => 0..self.white,
            Side::Second => self.white..self.count,
        }
    }

    /// Whether any man is a pawn.
    pub fn has_pawns(&self) -> bool {
        self.kind[..self.count].contains(&Kind::Pawn)
    }
}

/// Where the pieces of a position stand, packed into one word so that it lives in a register
/// (byte arrays written square by square and read back whole stall the CPU): byte 0 holds the
/// white king's square, byte 1 the black king's, byte `2 + i` the square of man `i` in the
/// order of its [`Men`].
#[derive(Clone, Copy, Default, PartialEq, Eq)]
pub struct Placement(u64);

impl Placement {
    /// A placement of two kings (white, black) and the men in order.
    pub fn new(kings: [Square; 2], men: &[Square]) -> Placement {
        let mut placement = Placement(u64::from(kings[0]) | u64::from(kings[1]) << 8);
        for (i, &sq) in men.iter().enumerate() {
            placement = placement.with_man(i, sq);
        }
        placement
    }

    /// The square of the king of `side`.
    #[inline]
    pub fn king(self, side: Side) -> Square {
        (self.0 >> (8 * side.index())) as Square
    }

    /// The squares of the white and the black king.
    #[inline]
    pub fn kings(self) -> [Square; 2] {
        [self.0 as Square, (self.0 >> 8) as Square]
    }

    /// The square of man `i`.
    #[inline]
    pub fn man(self, i: usize) -> Square {
        (self.0 >> (16 + 8 * i)) as Square
    }

    fn with_byte(self, byte: usize, sq: Square) -> Placement {
        let shift = 8 * byte;
        Placement((self.0 & !(0xFF << shift)) | u64::from(sq) << shift)
    }

    /// The placement with the king of `side` on `sq`.
    #[inline]
    pub fn with_king(self, side: Side, sq: Square) -> Placement {
        self.with_byte(side.index(), sq)
    }

    /// The placement with man `i` on `sq`.
    #[inline]
    pub fn with_man(self, i: usize, sq: Square) -> Placement {
        self.with_byte(2 + i, sq)
    }

    /// The occupied squares (men may overlap in a broken slot; the set then has fewer bits).
    #[inline]
    pub fn occupied(self, count: usize) -> Bitboard {
        (0..count).fold(bit(self.king(Side::First)) | bit(self.king(Side::Second)), |occ, i| {
            occ | bit(self.man(i))
        })
    }

    /// The occupied squares when no two pieces share a square, else `None`.
    #[inline]
    pub fn occupied_apart(self, count: usize) -> Option<Bitboard> {
        let mut occupied = bit(self.king(Side::First));
        let mut overlap = occupied & bit(self.king(Side::Second));
        occupied |= bit(self.king(Side::Second));
        for i in 0..count {
            let b = bit(self.man(i));
            overlap |= occupied & b;
            occupied |= b;
        }
        (overlap == 0).then_some(occupied)
    }

    /// The image of the placement under a symmetry (see [`apply_symmetry`]), every square at
    /// once: the transpose swaps the file and rank bits of each byte, the mirrors flip them.
    #[inline]
    pub fn mapped(self, sym: usize, count: usize) -> Placement {
        const FILES: u64 = 0x0707_0707_0707_0707;
        let mut squares = self.0;
        if sym & 4 != 0 {
            squares = (squares & FILES) << 3 | (squares >> 3 & FILES);
        }
        if sym & 1 != 0 {
            squares ^= FILES;
        }
        if sym & 2 != 0 {
            squares ^= FILES << 3;
        }
        // The bytes of the two kings and of `count` men, of the word's eight.
        Placement(squares & u64::MAX >> (8 * (8 - 2 - count)))
    }

    /// Whether `target` is attacked by the pieces of side `by`, with `occupied` blocking
    /// sliders.
    #[inline]
    pub fn attacked(self, geo: &Geometry, men: &Men, target: Square, by: Side, occupied: Bitboard) -> bool {
        self.attacked_except(geo, men, target, by, occupied, usize::MAX)
    }

    /// Whether `target` is attacked by the pieces of side `by` other than man `skip` (a man
    /// just captured; `usize::MAX` for none), with `occupied` blocking sliders.
    #[inline]
    pub fn attacked_except(
        self,
        geo: &Geometry,
        men: &Men,
        target: Square,
        by: Side,
        occupied: Bitboard,
        skip: usize,
    ) -> bool {
        if geo.pattern[Kind::King.index()][self.king(by) as usize] & bit(target) != 0 {
            return true;
        }
        men.of(by)
            .any(|i| i != skip && geo.attacks_square_of(men.kind[i], by, self.man(i), target, occupied))
    }

    /// Whether the king of `side` is in check.
    #[inline]
    pub fn in_check(self, geo: &Geometry, men: &Men, side: Side) -> bool {
        let occupied = self.occupied(men.count);
        self.attacked(geo, men, self.king(side), side.other(), occupied)
    }
}

/// Which piece moves: the king of the moving side, or a man by its index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mover {
    /// The king of the moving side.
    King,
    /// The man with this index in the order of the [`Men`].
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

impl std::fmt::Debug for Placement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let men: Vec<String> = (0..MAX_MEN).map(|i| square_name(self.man(i))).collect();
        write!(
            f,
            "Placement(K{} k{} men {})",
            square_name(self.king(Side::First)),
            square_name(self.king(Side::Second)),
            men.join(" ")
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symmetries_form_the_dihedral_group() {
        let geo = geometry();
        let mut images: Vec<[Square; 64]> = geo.symmetry.to_vec();
        images.sort();
        images.dedup();
        assert_eq!(images.len(), 8);
        for s in 0..SYMMETRIES {
            let mut seen = [false; 64];
            geo.symmetry[s].iter().for_each(|&t| seen[t as usize] = true);
            assert!(seen.iter().all(|&x| x), "symmetry {s} is a permutation");
        }
        assert_eq!(apply_symmetry(TRANSPOSE, 1), 8);
        assert!((0..64).all(|sq| (DIAGONAL & bit(sq) != 0) == (file(sq) == rank(sq))));
    }

    #[test]
    fn placements_map_like_their_squares() {
        let geo = geometry();
        let squares: [Square; 6] = [0, 63, 9, 42, 7, 56];
        for count in 0..=MAX_MEN {
            for shift in 0..64 {
                let moved = squares.map(|sq| (sq + shift) % 64);
                let placement = Placement::new([moved[0], moved[1]], &moved[2..2 + count]);
                for sym in 0..SYMMETRIES {
                    let map = |sq: Square| geo.symmetry[sym][sq as usize];
                    let men: Vec<Square> = moved[2..2 + count].iter().map(|&sq| map(sq)).collect();
                    let expected = Placement::new([map(moved[0]), map(moved[1])], &men);
                    assert_eq!(placement.mapped(sym, count), expected, "{sym} {placement:?}");
                }
            }
        }
    }

    #[test]
    fn table_sliders_match_walking_the_rays() {
        let geo = geometry();
        let walk = |directions: &[usize; 4], sq: Square, occupied: Bitboard| {
            let mut reached = 0;
            for &d in directions {
                let ray = geo.ray[d][sq as usize];
                let blockers = ray & occupied;
                reached |= if blockers == 0 {
                    ray
                } else {
                    let first = if d < 4 {
                        blockers.trailing_zeros()
                    } else {
                        63 - blockers.leading_zeros()
                    };
                    ray ^ geo.ray[d][first as usize]
                };
            }
            reached
        };
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..20_000 {
            // Sparse and dense boards alike: the and of one to three random words.
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let occupied = match x % 3 {
                0 => x,
                1 => x & x.rotate_left(23),
                _ => x & x.rotate_left(23) & x.rotate_left(41),
            };
            for sq in 0..64 {
                let rook = walk(&ROOK_DIRECTIONS, sq, occupied);
                let bishop = walk(&BISHOP_DIRECTIONS, sq, occupied);
                assert_eq!(geo.attacks(Kind::Rook, sq, occupied), rook, "rook {sq} {occupied:x}");
                assert_eq!(
                    geo.attacks(Kind::Bishop, sq, occupied),
                    bishop,
                    "bishop {sq} {occupied:x}"
                );
                assert_eq!(geo.attacks(Kind::Queen, sq, occupied), rook | bishop);
            }
        }
    }

    #[test]
    fn attacks_respect_blockers() {
        let geo = geometry();
        // Rook on a1, blocker on a4: a2, a3, a4 and the first rank.
        let a = geo.attacks(Kind::Rook, 0, bit(24));
        assert_eq!(a, bit(8) | bit(16) | bit(24) | 0xFE);
        assert_eq!(geo.attacks(Kind::Knight, 0, 0), bit(10) | bit(17));
        assert_eq!(geo.attacks(Kind::Queen, 27, u64::MAX).count_ones(), 8);
        assert_eq!(geo.between[0][63], DIAGONAL & !bit(0) & !bit(63));
        assert_eq!(geo.between[0][10], 0);
        assert!(geo.attacks_square(Kind::Bishop, 0, 63, 0));
        assert!(!geo.attacks_square(Kind::Bishop, 0, 63, bit(36)));
        assert_eq!(geo.gpu_words().len(), 8 * 64 + 2 * 64 * (5 + 8 + 64));
    }
}
