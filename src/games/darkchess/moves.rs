//! Move generation on a [`Board`]: steps to empty squares, adjacent captures by rank, cannon
//! jumps. Un-moves need no generator of their own: captures are never un-made and every step
//! is undone by a step of the same piece back to the square it left, which is empty.

use super::board::{Board, CANNON, GEOMETRY, KINDS, KING, SOLDIER, for_each_square, strength};
use super::{Cannon, DarkChessRules, Move};
use crate::material::Side;

/// The capture rules of one rule set, as tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CaptureRules {
    /// `adjacent[attacker]`: bit set of the victim kinds an attacker takes by stepping onto them.
    pub adjacent: [u32; KINDS],
    /// Whether the cannon captures by jumping over exactly one screen.
    pub cannon_jumps: bool,
}

impl CaptureRules {
    /// The capture tables of a rule set.
    pub fn new(rules: DarkChessRules) -> CaptureRules {
        let mut adjacent = [0; KINDS];
        for (attacker, victims) in adjacent.iter_mut().enumerate() {
            for victim in 0..KINDS {
                let by_rank = strength(attacker) >= strength(victim);
                let allowed = match (attacker, victim) {
                    (KING, SOLDIER) => false,
                    (SOLDIER, KING) => true,
                    (CANNON, _) if rules.cannon == Cannon::Jump => false,
                    _ => by_rank,
                };
                if allowed {
                    *victims |= 1 << victim;
                }
            }
        }
        CaptureRules {
            adjacent,
            cannon_jumps: rules.cannon == Cannon::Jump,
        }
    }

    /// Calls `capture(kind, from, to, victim_kind)` for every capture by `side`.
    #[inline]
    pub fn for_each_capture(&self, board: &Board, side: Side, mut capture: impl FnMut(usize, u32, u32, usize)) {
        let enemy = &board.masks[side.other().index()];
        let enemy_all = enemy.iter().fold(0, |acc, &m| acc | m);
        if enemy_all == 0 {
            return;
        }
        let own = &board.masks[side.index()];
        let jumping_cannons = if self.cannon_jumps { own[CANNON] } else { 0 };
        let mut near_enemy = 0;
        for_each_square(enemy_all, |square| near_enemy |= GEOMETRY.steps[square as usize]);
        if own.iter().fold(0, |acc, &m| acc | m) & near_enemy == 0 && jumping_cannons == 0 {
            return;
        }
        let occupied = board.occupied();
        let victim_at = |square: u32| (0..KINDS).find(|&k| enemy[k] >> square & 1 == 1).unwrap_or(KINDS);
        for (kind, &pieces) in own.iter().enumerate() {
            if pieces == 0 {
                continue;
            }
            let prey = (0..KINDS)
                .filter(|&v| self.adjacent[kind] >> v & 1 == 1)
                .fold(0, |acc, v| acc | enemy[v]);
            let jumps = kind == CANNON && self.cannon_jumps;
            let mut m = pieces;
            while m != 0 {
                let from = m.trailing_zeros();
                m &= m - 1;
                let mut targets = GEOMETRY.steps[from as usize] & prey;
                while targets != 0 {
                    let to = targets.trailing_zeros();
                    targets &= targets - 1;
                    capture(kind, from, to, victim_at(to));
                }
                if jumps {
                    for (d, rays) in GEOMETRY.rays.iter().enumerate() {
                        if let Some(to) = jump_target(rays[from as usize] & occupied, d)
                            && enemy_all >> to & 1 == 1
                        {
                            capture(kind, from, to, victim_at(to));
                        }
                    }
                }
            }
        }
    }
}

/// The square a cannon jump along direction `d` lands on, given the occupied squares of its ray:
/// the nearest piece is the screen, the next one the target.
#[inline]
fn jump_target(ray_occupied: u32, d: usize) -> Option<u32> {
    let nearest = |m: u32| {
        if d < 2 {
            m.trailing_zeros()
        } else {
            31 - m.leading_zeros()
        }
    };
    if ray_occupied.count_ones() < 2 {
        return None;
    }
    let beyond = ray_occupied & !(1 << nearest(ray_occupied));
    Some(nearest(beyond))
}

/// Every legal move of `side`, captures first.
pub fn legal_moves(board: &Board, side: Side, captures: &CaptureRules) -> Vec<Move> {
    let mut moves = Vec::new();
    let mut push = |from: u32, to: u32| {
        moves.push(Move {
            from: from as u8,
            to: to as u8,
        })
    };
    captures.for_each_capture(board, side, |_, from, to, _| push(from, to));
    let empty = !board.occupied();
    for_each_square(board.side_mask(side), |from| {
        for_each_square(GEOMETRY.steps[from as usize] & empty, |to| push(from, to))
    });
    moves
}

/// The board after a legal move of `side`.
pub fn play(board: &Board, side: Side, mv: Move) -> Board {
    let mut after = *board;
    let (from, to) = (1u32 << mv.from, 1u32 << mv.to);
    for m in after.masks[side.other().index()].iter_mut() {
        *m &= !to;
    }
    for m in after.masks[side.index()].iter_mut() {
        if *m & from != 0 {
            *m ^= from | to;
        }
    }
    after
}
