//! Legal moves and un-moves of placements: masks of target (or source) squares per piece, with
//! legality from masks computed once per piece rather than a test per move.

use super::board::{Bitboard, Geometry, Kind, Men, Mover, Placement, Square, bit};
use crate::material::Side;

/// Whether man `j` attacks `target` when the squares `occupied` block.
#[inline]
fn man_attacks(geo: &Geometry, men: &Men, placement: Placement, j: usize, target: Square, occupied: Bitboard) -> bool {
    geo.attacks_square(men.kind[j], placement.man(j), target, occupied)
}

/// Calls `visit(piece, from, targets)` for every piece of side `mover` in a legal placement,
/// with the squares its legal moves go to (captures of the men on `targets & enemies` included;
/// see [`men_of`]).
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
    for i in 0..men.count {
        if men.side[i] != mover {
            continue;
        }
        let from = placement.man(i);
        let vacated = occupied ^ bit(from);
        let mut allowed = !own & !bit(enemy_king);
        for j in 0..men.count {
            if men.side[j] == enemy && man_attacks(geo, men, placement, j, king, vacated) {
                allowed &= geo.between[placement.man(j) as usize][king as usize] | bit(placement.man(j));
            }
        }
        visit(Mover::Man(i), from, geo.attacks(men.kind[i], from, occupied) & allowed);
    }

    let king_pattern = &geo.pattern[Kind::King.index()];
    let without_king = occupied ^ bit(king);
    let mut attacked = king_pattern[enemy_king as usize];
    for j in 0..men.count {
        if men.side[j] == enemy {
            attacked |= geo.attacks(men.kind[j], placement.man(j), without_king);
        }
    }
    visit(Mover::King, king, king_pattern[king as usize] & !own & !attacked);
}

/// The squares of the men of one side.
#[inline]
pub fn men_of(men: &Men, placement: Placement, side: Side) -> Bitboard {
    (0..men.count)
        .filter(|&i| men.side[i] == side)
        .fold(0, |b, i| b | bit(placement.man(i)))
}

/// The man of side `side` on `sq` (which must hold one).
#[inline]
pub fn man_on(men: &Men, placement: Placement, side: Side, sq: Square) -> usize {
    (0..men.count)
        .find(|&j| men.side[j] == side && placement.man(j) == sq)
        .expect("a man of that side stands there")
}

/// Calls `visit(piece, to, sources)` for every piece of the side not to move in a legal
/// placement (`to_move` to move), with the empty squares it may have come from: along its move
/// pattern (no un-captures), keeping only parents in which `to_move` is not in check.
///
/// As for moves, legality is a mask per piece: a man may not go back to a square from which it
/// attacks the waiting king, and every other man that attacks that king once the piece has left
/// its square must be blocked by the square it goes back to.
#[inline]
pub fn for_each_unmove(
    geo: &Geometry,
    men: &Men,
    placement: Placement,
    to_move: Side,
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
        for j in 0..men.count {
            if j != skip && men.side[j] == mover && man_attacks(geo, men, placement, j, waiting_king, vacated) {
                allowed &= geo.between[placement.man(j) as usize][waiting_king as usize];
            }
        }
        allowed
    };
    for i in 0..men.count {
        if men.side[i] != mover {
            continue;
        }
        let to = placement.man(i);
        let kind = men.kind[i];
        let checking = geo.attacks(kind, waiting_king, occupied ^ bit(to));
        visit(
            Mover::Man(i),
            to,
            geo.attacks(kind, to, occupied) & blocks(to, i) & !checking,
        );
    }
    let king_pattern = &geo.pattern[Kind::King.index()];
    let king = placement.king(mover);
    visit(
        Mover::King,
        king,
        king_pattern[king as usize] & !king_pattern[waiting_king as usize] & blocks(king, usize::MAX),
    );
}
