//! Legal moves and un-moves of placements: masks of target (or source) squares per piece, with
//! legality from masks computed once per piece rather than a test per move.

use super::board::{
    Bitboard, Geometry, Kind, Men, Mover, PAWN_SQUARES, Placement, Square, backward, bit, forward, relative_rank,
};
use crate::material::Side;

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
