//! Move and un-move generation and check detection on the working [`Board`].
//!
//! Check after a move is tested in full only when the move could matter: a king that is not in
//! check can come under attack from the other side's pieces only when a move (not its own)
//! vacates or fills one of its `sensitive` squares: its rank and file, where rooks, cannons,
//! screens and the other king act, and its four diagonal neighbours, the legs of horses that
//! attack it. Outside the sensitive squares an un-move can change only the moved piece's own
//! attack, which is tested directly.

use super::board::{Board, Geometry, Kind, NONE, SQUARES, file, geometry};

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

    /// The squares listed.
    pub fn as_slice(&self) -> &[u8] {
        &self.squares[..self.len]
    }
}

/// Whether the king of `side` (0 red, 1 black) is attacked, the facing kings included.
pub fn in_check(board: &Board, side: usize) -> bool {
    let g = geometry();
    let king = board.squares[board.layout.king(side)];
    let enemy = 1 - side;
    (board.layout.sides[enemy].0..board.layout.attackers_end[enemy]).any(|piece| {
        let s = board.squares[piece];
        s != NONE && attacks(g, board.layout.kind[piece], enemy, s, king, board.occupied)
    })
}

/// Whether the two kings stand on one file with nothing between them, which the rules forbid:
/// whoever moves could take the other king.
pub fn kings_face(board: &Board) -> bool {
    let (red, black) = (board.squares[board.layout.king(0)], board.squares[board.layout.king(1)]);
    attacks(geometry(), Kind::King, 0, red, black, board.occupied)
}

/// Where `piece` may move, ignoring checks to its own king: empty points and
/// enemy pieces.
pub fn targets(board: &Board, piece: usize) -> SquareList {
    let g = geometry();
    let from = usize::from(board.squares[piece]);
    let side = usize::from(board.layout.side[piece]);
    let mut list = SquareList::new();
    let own = board.side_occupied[side];
    let mut take = |t: u8| {
        if t != NONE && own & (1u128 << t) == 0 {
            list.push(t);
        }
    };
    match board.layout.kind[piece] {
        Kind::King => g.king_steps[from].iter().for_each(|&t| take(t)),
        Kind::Advisor => g.advisor_steps[from].iter().for_each(|&t| take(t)),
        Kind::Elephant => {
            for (&t, &eye) in g.elephant_to[from].iter().zip(&g.elephant_eye[from]) {
                if t != NONE && board.empty(eye) {
                    take(t);
                }
            }
        }
        Kind::Horse => {
            for (&t, &leg) in g.horse_to[from].iter().zip(&g.horse_leg[from]) {
                if t != NONE && board.empty(leg) {
                    take(t);
                }
            }
        }
        Kind::Pawn => g.pawn_to[side][from].iter().for_each(|&t| take(t)),
        Kind::Rook => {
            for ray in &g.rays[from] {
                for &t in ray.iter().take_while(|&&t| t != NONE) {
                    take(t);
                    if !board.empty(t) {
                        break;
                    }
                }
            }
        }
        Kind::Cannon => {
            for ray in &g.rays[from] {
                let mut squares = ray.iter().copied().take_while(|&t| t != NONE);
                for t in squares.by_ref() {
                    if !board.empty(t) {
                        break;
                    }
                    take(t);
                }
                if let Some(t) = squares.find(|&t| !board.empty(t)) {
                    take(t);
                }
            }
        }
    }
    list
}

/// Where `piece` may have come from by a move that captured nothing: empty
/// points from which it reaches its square.
pub fn sources(board: &Board, piece: usize) -> SquareList {
    let g = geometry();
    let to = usize::from(board.squares[piece]);
    let side = usize::from(board.layout.side[piece]);
    let mut list = SquareList::new();
    let mut take = |s: u8| {
        if s != NONE && board.empty(s) {
            list.push(s);
        }
    };
    match board.layout.kind[piece] {
        Kind::King => g.king_steps[to].iter().for_each(|&s| take(s)),
        Kind::Advisor => g.advisor_steps[to].iter().for_each(|&s| take(s)),
        Kind::Elephant => {
            for (&s, &eye) in g.elephant_to[to].iter().zip(&g.elephant_eye[to]) {
                if s != NONE && board.empty(eye) {
                    take(s);
                }
            }
        }
        Kind::Horse => {
            for (&s, &leg) in g.horse_from[to].iter().zip(&g.horse_from_leg[to]) {
                if s != NONE && board.empty(leg) {
                    take(s);
                }
            }
        }
        Kind::Pawn => g.pawn_from[side][to].iter().for_each(|&s| take(s)),
        Kind::Rook | Kind::Cannon => {
            for ray in &g.rays[to] {
                ray.iter()
                    .take_while(|&&s| s != NONE && board.empty(s))
                    .for_each(|&s| take(s));
            }
        }
    }
    list
}

/// Calls `visit(piece, victim)` for every legal move of `side` (its king safe after the
/// move), with the move made on the board; `victim` is the captured piece or [`NONE`].
#[inline]
pub fn for_each_legal_move(board: &mut Board, side: usize, mut visit: impl FnMut(&Board, usize, u8)) {
    let g = geometry();
    let king = board.layout.king(side);
    let sensitive = g.sensitive[usize::from(board.squares[king])];
    let safe_before = !in_check(board, side);
    let (start, end) = board.layout.sides[side];
    for piece in start..end {
        let from_sensitive = sensitive & (1u128 << board.squares[piece]) != 0;
        for &to in targets(board, piece).as_slice() {
            let undo = board.make(piece, to);
            let quiet = safe_before && piece != king && !from_sensitive && sensitive & (1u128 << to) == 0;
            if quiet || !in_check(board, side) {
                visit(board, piece, undo.victim);
            }
            board.unmake(undo);
        }
    }
}

/// Calls `visit(piece)` for every un-move of `side` (the side not to move on this board):
/// a non-capturing move of one of its pieces that leads here from a legal position, with
/// that position on the board.
#[inline]
pub fn for_each_unmove(board: &mut Board, side: usize, mut visit: impl FnMut(&Board, usize)) {
    let g = geometry();
    let enemy = 1 - side;
    let king = board.squares[board.layout.king(enemy)];
    let sensitive = g.sensitive[usize::from(king)];
    let safe_before = !in_check(board, enemy);
    let (start, end) = board.layout.sides[side];
    for piece in start..end {
        let kind = board.layout.kind[piece];
        let to_sensitive = sensitive & (1u128 << board.squares[piece]) != 0;
        for &from in sources(board, piece).as_slice() {
            let undo = board.make(piece, from);
            let quiet = safe_before && !to_sensitive && sensitive & (1u128 << from) == 0;
            let safe = if quiet {
                !attacks(g, kind, side, from, king, board.occupied)
            } else {
                !in_check(board, enemy)
            };
            if safe {
                visit(board, piece);
            }
            board.unmake(undo);
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
