//! Legal moves and un-moves of placements: masks of target (or source) squares per piece, with
//! legality from masks computed once per piece rather than a test per move; and the moves of a
//! [`Position`], with its en passant right.

use anyhow::{Result, bail};

use super::board::{
    self, Bitboard, Geometry, Kind, Men, Mover, PAWN_SQUARES, Placement, Square, backward, bit, forward, geometry,
    relative_rank,
};
use super::{Move, Piece, Position};
use crate::material::{GameId, Side};

/// Whether man `j` attacks `target` when the squares `occupied` block.
#[inline]
fn man_attacks(geo: &Geometry, men: &Men, placement: Placement, j: usize, target: Square, occupied: Bitboard) -> bool {
    geo.attacks_square_of(men.kind[j], men.side[j], placement.man(j), target, occupied)
}

/// The squares a pawn of `side` on `from` may move to on an empty `occupied` path, before
/// legality: one step, two from its second rank, and the captures of `enemies`.
#[inline]
fn pawn_targets(geo: &Geometry, side: Side, from: Square, occupied: Bitboard, enemies: Bitboard) -> Bitboard {
    let one = forward(side, from);
    let mut targets = geo.pawn_attacks[side.index()][from as usize] & enemies;
    if occupied & bit(one) == 0 {
        targets |= bit(one);
        if relative_rank(side, from) == 1 {
            let two = forward(side, one);
            if occupied & bit(two) == 0 {
                targets |= bit(two);
            }
        }
    }
    targets
}

/// Whether a pawn move to `to` promotes.
#[inline]
pub fn promotes(side: Side, to: Square) -> bool {
    relative_rank(side, to) == 7
}

/// Calls `visit(capturer, victim)` for every legal en passant capture of the side `to_move`
/// of the enemy pawn on `pawn` (which must have just moved two squares): a pawn of `to_move`
/// beside it goes to the square it passed, and the king of `to_move` is not attacked after.
pub fn for_each_en_passant(
    geo: &Geometry,
    men: &Men,
    placement: Placement,
    to_move: Side,
    pawn: Square,
    mut visit: impl FnMut(usize, usize),
) {
    let waiting = to_move.other();
    if relative_rank(waiting, pawn) != 3 {
        return;
    }
    let target = backward(waiting, pawn);
    let origin = backward(waiting, target);
    let occupied = placement.occupied(men.count);
    if occupied & (bit(target) | bit(origin)) != 0 {
        return;
    }
    let Some(victim) = men
        .of(waiting)
        .find(|&m| men.kind[m] == Kind::Pawn && placement.man(m) == pawn)
    else {
        return;
    };
    let king = placement.king(to_move);
    for capturer in men.of(to_move) {
        let from = placement.man(capturer);
        if men.kind[capturer] != Kind::Pawn || geo.pawn_attacks[to_move.index()][from as usize] & bit(target) == 0 {
            continue;
        }
        let after = placement.with_man(capturer, target);
        let occupied = occupied ^ bit(from) ^ bit(pawn) ^ bit(target);
        if !after.attacked_except(geo, men, king, waiting, occupied, victim) {
            visit(capturer, victim);
        }
    }
}

/// Whether the side `to_move` may capture en passant the enemy pawn on `pawn`, had it just moved
/// two squares.
pub fn en_passant_right(geo: &Geometry, men: &Men, placement: Placement, to_move: Side, pawn: Square) -> bool {
    let mut any = false;
    for_each_en_passant(geo, men, placement, to_move, pawn, |_, _| any = true);
    any
}

/// Calls `visit(piece, from, targets)` for every piece of side `mover` in a legal placement,
/// with the squares its legal moves go to (captures of the men on `targets & enemies` included;
/// see [`men_of`]; a pawn's target on the last rank stands for its four promotions; en passant
/// captures are not included, see [`for_each_en_passant`]).
///
/// Legality comes from masks computed once per piece, not from a test per move: a man's move
/// must capture or block every enemy man that would attack its king once the man has left its
/// square, and the king may only go where no enemy piece attacks with the king removed.
#[inline]
pub fn for_each_move(
    geo: &Geometry,
    men: &Men,
    placement: Placement,
    mover: Side,
    mut visit: impl FnMut(Mover, Square, Bitboard),
) {
    let occupied = placement.occupied(men.count);
    let enemy = mover.other();
    let king = placement.king(mover);
    let enemy_king = placement.king(enemy);
    let own = men_of(men, placement, mover) | bit(king);
    for i in men.of(mover) {
        let from = placement.man(i);
        let vacated = occupied ^ bit(from);
        let mut allowed = !own & !bit(enemy_king);
        for j in men.of(enemy) {
            if man_attacks(geo, men, placement, j, king, vacated) {
                allowed &= geo.between[placement.man(j) as usize][king as usize] | bit(placement.man(j));
            }
        }
        let reach = if men.kind[i] == Kind::Pawn {
            pawn_targets(geo, mover, from, occupied, men_of(men, placement, enemy))
        } else {
            geo.attacks(men.kind[i], from, occupied)
        };
        visit(Mover::Man(i), from, reach & allowed);
    }

    let king_pattern = &geo.pattern[Kind::King.index()];
    let without_king = occupied ^ bit(king);
    let mut attacked = king_pattern[enemy_king as usize];
    for j in men.of(enemy) {
        attacked |= geo.attacks_of(men.kind[j], enemy, placement.man(j), without_king);
    }
    visit(Mover::King, king, king_pattern[king as usize] & !own & !attacked);
}

/// The squares of the men of one side.
#[inline]
pub fn men_of(men: &Men, placement: Placement, side: Side) -> Bitboard {
    men.of(side).fold(0, |b, i| b | bit(placement.man(i)))
}

/// The man of side `side` on `sq` (which must hold one).
#[inline]
pub fn man_on(men: &Men, placement: Placement, side: Side, sq: Square) -> usize {
    men.of(side)
        .find(|&j| placement.man(j) == sq)
        .expect("a man of that side stands there")
}

/// Calls `visit(piece, to, sources)` for every piece of the side not to move in a legal
/// placement (`to_move` to move), with the empty squares it may have come from: along its move
/// pattern (no un-captures), keeping only parents in which `to_move` is not in check.
///
/// As for moves, legality is a mask per piece: a man may not go back to a square from which it
/// attacks the waiting king, and every other man that attacks that king once the piece has left
/// its square must be blocked by the square it goes back to. A pawn goes back one step, or two
/// from its fourth rank (never to its first rank); whether a two-step un-move is valid also
/// depends on en passant, which the caller decides. Without `pawns`, the pawns are left out (a
/// pawn slice's parents, see `space.rs`).
#[inline]
pub fn for_each_unmove(
    geo: &Geometry,
    men: &Men,
    placement: Placement,
    to_move: Side,
    pawns: bool,
    mut visit: impl FnMut(Mover, Square, Bitboard),
) {
    let occupied = placement.occupied(men.count);
    let mover = to_move.other();
    let waiting_king = placement.king(to_move);
    // Squares from which men that attack the waiting king (the piece on `to` gone) must be
    // blocked, given `to`.
    let blocks = |to: Square, skip: usize| {
        let vacated = occupied ^ bit(to);
        let mut allowed = !occupied;
        for j in men.of(mover) {
            if j != skip && man_attacks(geo, men, placement, j, waiting_king, vacated) {
                allowed &= geo.between[placement.man(j) as usize][waiting_king as usize];
            }
        }
        allowed
    };
    for i in men.of(mover) {
        let kind = men.kind[i];
        if kind == Kind::Pawn && !pawns {
            continue;
        }
        let to = placement.man(i);
        let (sources, checking) = if kind == Kind::Pawn {
            (
                pawn_sources(mover, to, occupied),
                geo.pawn_attacks[to_move.index()][waiting_king as usize],
            )
        } else {
            (
                geo.attacks(kind, to, occupied),
                geo.attacks(kind, waiting_king, occupied ^ bit(to)),
            )
        };
        visit(Mover::Man(i), to, sources & blocks(to, i) & !checking);
    }
    let king_pattern = &geo.pattern[Kind::King.index()];
    let king = placement.king(mover);
    visit(
        Mover::King,
        king,
        king_pattern[king as usize] & !king_pattern[waiting_king as usize] & blocks(king, usize::MAX),
    );
}

/// The empty squares a pawn of `side` on `to` may have come from by a push: one step back (not
/// from its first rank), two from its fourth rank.
#[inline]
fn pawn_sources(side: Side, to: Square, occupied: Bitboard) -> Bitboard {
    if relative_rank(side, to) < 2 {
        return 0;
    }
    let one = backward(side, to);
    if occupied & bit(one) != 0 {
        return 0;
    }
    let mut sources = bit(one);
    if relative_rank(side, to) == 3 {
        let two = backward(side, one);
        if occupied & bit(two) == 0 {
            sources |= bit(two);
        }
    }
    sources & PAWN_SQUARES
}

/// A position's moves and en passant right, here with the other moves as rules.md lays out
/// (the position and its legality are in the parent module).
impl Position {
    /// The position with an en passant right on `target`, checked: an enemy pawn just past it,
    /// the square and the one behind it empty, and an en passant capture legal.
    pub fn with_legal_en_passant(&self, target: Square) -> Result<Position> {
        let pawn = self.double_step_past(target)?;
        if !self.may_take_en_passant(pawn) {
            let name = board::square_name(target);
            bail!("en passant square {name}: no en passant capture is possible");
        }
        Ok(self.with_en_passant(target))
    }

    /// The position a FEN with en passant square `target` names. Standard FEN names the square
    /// after every double step, so one that no capture can use gives the position without an en
    /// passant right; one that no double step can have left is an error.
    pub fn with_fen_en_passant(&self, target: Square) -> Result<Position> {
        let pawn = self.double_step_past(target)?;
        Ok(if self.may_take_en_passant(pawn) {
            self.with_en_passant(target)
        } else {
            self.clone()
        })
    }

    /// The enemy pawn whose double step passed `target`, checked: it stands just past the
    /// square, the square and the one behind it are empty, and the side to move was not in check
    /// before the double step (the position it was played from was legal).
    fn double_step_past(&self, target: Square) -> Result<Square> {
        let waiting = self.side_to_move.other();
        let name = board::square_name(target);
        if relative_rank(waiting, target) != 2 {
            bail!("en passant square {name} is not on the rank a pawn passes on its double step");
        }
        let pawn = forward(waiting, target);
        let origin = backward(waiting, target);
        if self.board[pawn as usize]
            != Some(Piece {
                side: waiting,
                kind: Kind::Pawn,
            })
        {
            bail!("en passant square {name}: no pawn has just passed it");
        }
        if self.board[target as usize].is_some() || self.board[origin as usize].is_some() {
            bail!("en passant square {name}: the squares the pawn came over are not empty");
        }
        let mut before = self.clone();
        before.board[origin as usize] = before.board[pawn as usize].take();
        if before.in_check() {
            let side = GameId::Chess.side_name(self.side_to_move);
            bail!(
                "en passant square {name}: no double step can have passed it, as {side} would have been in check before it"
            );
        }
        Ok(pawn)
    }

    /// Whether the side to move has a legal capture en passant of the enemy pawn on `pawn`.
    fn may_take_en_passant(&self, pawn: Square) -> bool {
        let (men, placement) = self.men_and_placement();
        en_passant_right(geometry(), &men, placement, self.side_to_move, pawn)
    }

    /// The position with an en passant right on `target` (which must be a legal one).
    pub fn with_en_passant(&self, target: Square) -> Position {
        Position {
            en_passant: Some(target),
            ..self.clone()
        }
    }

    /// Every legal move of the side to move (each promotion once per kind).
    pub fn legal_moves(&self) -> Vec<Move> {
        let (men, placement) = self.men_and_placement();
        let mut moves = Vec::new();
        for_each_move(
            geometry(),
            &men,
            placement,
            self.side_to_move,
            |_, from, mut targets| {
                let pawn = self.board[from as usize].is_some_and(|p| p.kind == Kind::Pawn);
                while targets != 0 {
                    let to = targets.trailing_zeros() as Square;
                    targets &= targets - 1;
                    if pawn && promotes(self.side_to_move, to) {
                        for kind in Kind::PROMOTIONS {
                            moves.push(Move {
                                from,
                                to,
                                promotion: Some(kind),
                            });
                        }
                    } else {
                        moves.push(Move {
                            from,
                            to,
                            promotion: None,
                        });
                    }
                }
            },
        );
        if let Some(target) = self.en_passant {
            let pawn = forward(self.side_to_move.other(), target);
            for_each_en_passant(geometry(), &men, placement, self.side_to_move, pawn, |capturer, _| {
                moves.push(Move {
                    from: placement.man(capturer),
                    to: target,
                    promotion: None,
                });
            });
        }
        moves
    }

    /// Whether a legal move captures en passant.
    pub fn is_en_passant(&self, mv: Move) -> bool {
        self.en_passant == Some(mv.to) && self.board[mv.from as usize].is_some_and(|p| p.kind == Kind::Pawn)
    }

    /// The position after a legal move; a double step after which the opponent may capture en
    /// passant gives the right.
    pub fn play(&self, mv: Move) -> Position {
        let mut board = self.board;
        if self.is_en_passant(mv) {
            board[backward(self.side_to_move, mv.to) as usize] = None;
        }
        let mut piece = board[mv.from as usize].take();
        if let (Some(p), Some(kind)) = (piece.as_mut(), mv.promotion) {
            p.kind = kind;
        }
        board[mv.to as usize] = piece;
        let after = Position {
            board,
            side_to_move: self.side_to_move.other(),
            en_passant: None,
        };
        let double_step = piece.is_some_and(|p| p.kind == Kind::Pawn) && mv.from.abs_diff(mv.to) == 16;
        if double_step {
            let target = (mv.from + mv.to) / 2;
            if let Ok(with_right) = after.with_legal_en_passant(target) {
                return with_right;
            }
        }
        after
    }
}
