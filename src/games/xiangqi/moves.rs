//! Move and un-move generation and check detection on a working board: pieces by slot and
//! occupancy bitboards (all pieces, each side's), updated in place by make / unmake.
//!
//! Check after a move is tested in full only when the move could matter: a king that is not in
//! check can come under attack from the other side's pieces only when a move (not its own)
//! vacates or fills one of its `sensitive` squares: its rank and file, where rooks, cannons,
//! screens and the other king act, and its four diagonal neighbours, the legs of horses that
//! attack it. An un-move moves an attacker, whose own attack is tested directly.

use super::geometry::{Geometry, Kind, NONE, SQUARES, file, geometry};
use super::index::{Layout, Squares};

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
    pub occupied: u128,
    /// Squares of each side's pieces.
    pub side_occupied: [u128; 2],
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
            occupied: 0,
            side_occupied: [0; 2],
        };
        for (slot, &s) in squares.iter().enumerate().take(layout.pieces) {
            let bit = 1u128 << s;
            if board.occupied & bit != 0 {
                return None;
            }
            board.occupied |= bit;
            board.side_occupied[usize::from(layout.side[slot])] |= bit;
        }
        Some(board)
    }

    fn empty(&self, square: u8) -> bool {
        self.occupied & (1u128 << square) == 0
    }

    /// Moves the piece in `slot` to `to`, capturing what stands there.
    #[inline]
    pub fn make(&mut self, slot: usize, to: u8) -> Undo {
        let side = usize::from(self.layout.side[slot]);
        let from = self.squares[slot];
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
        self.squares[slot] = to;
        self.side_occupied[side] = (self.side_occupied[side] & !from_bit) | to_bit;
        self.occupied = (self.occupied & !from_bit) | to_bit;
        Undo { slot, from, to, victim }
    }

    /// Takes back a [`Board::make`].
    #[inline]
    pub fn unmake(&mut self, undo: Undo) {
        let side = usize::from(self.layout.side[undo.slot]);
        let (from_bit, to_bit) = (1u128 << undo.from, 1u128 << undo.to);
        self.squares[undo.slot] = undo.from;
        self.side_occupied[side] = (self.side_occupied[side] & !to_bit) | from_bit;
        self.occupied |= from_bit;
        if undo.victim == NONE {
            self.occupied &= !to_bit;
        } else {
            self.squares[usize::from(undo.victim)] = undo.to;
            self.side_occupied[1 - side] |= to_bit;
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
        let own = self.side_occupied[side];
        let mut take = |t: u8| {
            if t != NONE && own & (1u128 << t) == 0 {
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

    /// Calls `visit(slot, victim)` for every legal move of `side` (its king safe after the
    /// move), with the move made on the board; `victim` is the captured slot or [`NONE`].
    #[inline]
    pub fn for_each_legal_move(&mut self, side: usize, mut visit: impl FnMut(&Self, usize, u8)) {
        let g = geometry();
        let king_slot = self.layout.king(side);
        let sensitive = g.sensitive[usize::from(self.squares[king_slot])];
        let safe_before = !self.in_check(side);
        let (start, end) = self.layout.sides[side];
        for slot in start..end {
            let from_sensitive = sensitive & (1u128 << self.squares[slot]) != 0;
            for &to in self.targets(slot).as_slice() {
                let undo = self.make(slot, to);
                let quiet = safe_before && slot != king_slot && !from_sensitive && sensitive & (1u128 << to) == 0;
                if quiet || !self.in_check(side) {
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
        let g = geometry();
        let enemy = 1 - side;
        let king = self.squares[self.layout.king(enemy)];
        let sensitive = g.sensitive[usize::from(king)];
        let safe_before = !self.in_check(enemy);
        let (start, end) = self.layout.sides[side];
        for slot in start..end {
            let kind = self.layout.kind[slot];
            let to_sensitive = sensitive & (1u128 << self.squares[slot]) != 0;
            for &from in self.sources(slot).as_slice() {
                let undo = self.make(slot, from);
                let quiet = safe_before && !to_sensitive && sensitive & (1u128 << from) == 0;
                let safe = if quiet {
                    !attacks(g, kind, side, from, king, self.occupied)
                } else {
                    !self.in_check(enemy)
                };
                if safe {
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
        Kind::King => file(from) == file(target) && g.aligned[pair] != 0 && g.between[pair] & occupied == 0,
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
