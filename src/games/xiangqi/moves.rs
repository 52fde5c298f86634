//! Move and un-move generation and check detection on a working board: pieces by slot, a
//! square-to-slot map and an occupancy bitboard, updated in place by make / unmake.

use super::geometry::{Geometry, Kind, NONE, SQUARES, file, geometry};
use super::index::{Layout, MAX_PIECES, Squares};

/// Most targets (or sources) of one piece: a rook or cannon sees at most 17 squares.
const MAX_TARGETS: usize = 17;

/// A short list of squares, filled without allocating.
#[derive(Clone, Copy)]
pub struct SquareList {
    squares: [u8; MAX_TARGETS],
    len: usize,
}

impl SquareList {
    fn new() -> SquareList {
        SquareList {
            squares: [NONE; MAX_TARGETS],
            len: 0,
        }
    }

    fn push(&mut self, square: u8) {
        self.squares[self.len] = square;
        self.len += 1;
    }

    pub fn as_slice(&self) -> &[u8] {
        &self.squares[..self.len]
    }
}

/// The pieces of one material on the board.
#[derive(Clone)]
pub struct Board<'l> {
    pub layout: &'l Layout,
    /// Square of each slot, [`NONE`] while captured.
    pub squares: Squares,
    /// Slot on each square, or [`NONE`].
    pub at: [u8; SQUARES],
    pub occupied: u128,
}

/// What [`Board::make`] changed, for [`Board::unmake`].
#[derive(Clone, Copy)]
pub struct Undo {
    slot: usize,
    from: u8,
    to: u8,
    /// The captured slot, or [`NONE`].
    pub victim: u8,
}

impl<'l> Board<'l> {
    /// The board of pieces on `squares`, `None` when two share a square.
    pub fn new(layout: &'l Layout, squares: Squares) -> Option<Board<'l>> {
        let mut board = Board {
            layout,
            squares,
            at: [NONE; SQUARES],
            occupied: 0,
        };
        for (slot, &s) in squares.iter().enumerate().take(layout.pieces) {
            if board.at[usize::from(s)] != NONE {
                return None;
            }
            board.at[usize::from(s)] = slot as u8;
            board.occupied |= 1u128 << s;
        }
        Some(board)
    }

    fn side_of_square(&self, square: u8) -> Option<u8> {
        let slot = self.at[usize::from(square)];
        (slot != NONE).then(|| self.layout.side[usize::from(slot)])
    }

    fn empty(&self, square: u8) -> bool {
        self.occupied & (1u128 << square) == 0
    }

    /// Moves the piece in `slot` to `to`, capturing what stands there.
    #[inline]
    pub fn make(&mut self, slot: usize, to: u8) -> Undo {
        let from = self.squares[slot];
        let victim = self.at[usize::from(to)];
        if victim != NONE {
            self.squares[usize::from(victim)] = NONE;
        }
        self.at[usize::from(from)] = NONE;
        self.at[usize::from(to)] = slot as u8;
        self.squares[slot] = to;
        self.occupied = (self.occupied & !(1u128 << from)) | (1u128 << to);
        Undo {
            slot,
            from,
            to,
            victim,
        }
    }

    /// Takes back a [`Board::make`].
    #[inline]
    pub fn unmake(&mut self, undo: Undo) {
        self.squares[undo.slot] = undo.from;
        self.at[usize::from(undo.from)] = undo.slot as u8;
        self.at[usize::from(undo.to)] = undo.victim;
        self.occupied |= 1u128 << undo.from;
        if undo.victim == NONE {
            self.occupied &= !(1u128 << undo.to);
        } else {
            self.squares[usize::from(undo.victim)] = undo.to;
        }
    }

    /// Whether the king of `side` (0 red, 1 black) is attacked, the facing kings included.
    pub fn in_check(&self, side: usize) -> bool {
        let g = geometry();
        let king = self.squares[self.layout.king(side)];
        let enemy = 1 - side;
        (self.layout.sides[enemy].0..self.layout.attackers_end[enemy]).any(|slot| {
            let s = self.squares[slot];
            s != NONE && attacks(g, self.layout.kind[slot], enemy, s, king, self.occupied)
        })
    }

    /// Where the piece in `slot` may move, ignoring checks to its own king: empty points and
    /// enemy pieces.
    pub fn targets(&self, slot: usize) -> SquareList {
        let g = geometry();
        let from = usize::from(self.squares[slot]);
        let side = usize::from(self.layout.side[slot]);
        let mut list = SquareList::new();
        let mut take = |t: u8| {
            if t != NONE && self.side_of_square(t) != Some(side as u8) {
                list.push(t);
            }
        };
        match self.layout.kind[slot] {
            Kind::King => g.king_steps[from].iter().for_each(|&t| take(t)),
            Kind::Advisor => g.advisor_steps[from].iter().for_each(|&t| take(t)),
            Kind::Elephant => {
                for (&t, &eye) in g.elephant_to[from].iter().zip(&g.elephant_eye[from]) {
                    if t != NONE && self.empty(eye) {
                        take(t);
                    }
                }
            }
            Kind::Horse => {
                for (&t, &leg) in g.horse_to[from].iter().zip(&g.horse_leg[from]) {
                    if t != NONE && self.empty(leg) {
                        take(t);
                    }
                }
            }
            Kind::Pawn => g.pawn_to[side][from].iter().for_each(|&t| take(t)),
            Kind::Rook => {
                for ray in &g.rays[from] {
                    for &t in ray.iter().take_while(|&&t| t != NONE) {
                        take(t);
                        if !self.empty(t) {
                            break;
                        }
                    }
                }
            }
            Kind::Cannon => {
                for ray in &g.rays[from] {
                    let mut squares = ray.iter().copied().take_while(|&t| t != NONE);
                    for t in squares.by_ref() {
                        if !self.empty(t) {
                            break;
                        }
                        take(t);
                    }
                    if let Some(t) = squares.find(|&t| !self.empty(t)) {
                        take(t);
                    }
                }
            }
        }
        list
    }

    /// Where the piece in `slot` may have come from by a move that captured nothing: empty
    /// points from which it reaches its square.
    pub fn sources(&self, slot: usize) -> SquareList {
        let g = geometry();
        let to = usize::from(self.squares[slot]);
        let side = usize::from(self.layout.side[slot]);
        let mut list = SquareList::new();
        let mut take = |s: u8| {
            if s != NONE && self.empty(s) {
                list.push(s);
            }
        };
        match self.layout.kind[slot] {
            Kind::King => g.king_steps[to].iter().for_each(|&s| take(s)),
            Kind::Advisor => g.advisor_steps[to].iter().for_each(|&s| take(s)),
            Kind::Elephant => {
                for (&s, &eye) in g.elephant_to[to].iter().zip(&g.elephant_eye[to]) {
                    if s != NONE && self.empty(eye) {
                        take(s);
                    }
                }
            }
            Kind::Horse => {
                for (&s, &leg) in g.horse_from[to].iter().zip(&g.horse_from_leg[to]) {
                    if s != NONE && self.empty(leg) {
                        take(s);
                    }
                }
            }
            Kind::Pawn => g.pawn_from[side][to].iter().for_each(|&s| take(s)),
            Kind::Rook | Kind::Cannon => {
                for ray in &g.rays[to] {
                    ray.iter()
                        .take_while(|&&s| s != NONE && self.empty(s))
                        .for_each(|&s| take(s));
                }
            }
        }
        list
    }

    /// Calls `visit(slot, to, victim)` for every legal move of `side` (its king safe after the
    /// move), with the move made on the board; `victim` is the captured slot or [`NONE`].
    #[inline]
    pub fn for_each_legal_move(&mut self, side: usize, mut visit: impl FnMut(&Self, usize, u8)) {
        let (start, end) = self.layout.sides[side];
        for slot in start..end {
            for &to in self.targets(slot).as_slice() {
                let undo = self.make(slot, to);
                if !self.in_check(side) {
                    visit(self, slot, undo.victim);
                }
                self.unmake(undo);
            }
        }
    }

    /// Calls `visit(slot)` for every un-move of `side` (the side not to move on this board):
    /// a non-capturing move of one of its pieces that leads here from a legal position, with
    /// that position on the board.
    #[inline]
    pub fn for_each_unmove(&mut self, side: usize, mut visit: impl FnMut(&Self, usize)) {
        let (start, end) = self.layout.sides[side];
        for slot in start..end {
            for &from in self.sources(slot).as_slice() {
                let undo = self.make(slot, from);
                if !self.in_check(1 - side) {
                    visit(self, slot);
                }
                self.unmake(undo);
            }
        }
    }
}

/// Whether a piece of `kind` of `side` on `from` attacks `target` given the occupancy.
#[inline]
fn attacks(g: &Geometry, kind: Kind, side: usize, from: u8, target: u8, occupied: u128) -> bool {
    let pair = usize::from(from) * SQUARES + usize::from(target);
    match kind {
        Kind::King => {
            file(from) == file(target) && g.aligned[pair] != 0 && g.between[pair] & occupied == 0
        }
        Kind::Rook => g.aligned[pair] != 0 && g.between[pair] & occupied == 0,
        Kind::Cannon => g.aligned[pair] != 0 && (g.between[pair] & occupied).count_ones() == 1,
        Kind::Horse => {
            let leg = g.horse_leg_for[pair];
            leg != NONE && occupied & (1u128 << leg) == 0
        }
        Kind::Pawn => g.pawn_to[side][usize::from(from)].contains(&target),
        Kind::Advisor | Kind::Elephant => false,
    }
}

/// The squares of a fresh board (all [`NONE`]).
pub fn no_squares() -> Squares {
    [NONE; MAX_PIECES]
}
