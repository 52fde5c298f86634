//! Game-theoretic values and their 16-bit table entries.
//!
//! A value is always from the side to move's point of view. DTM counts plies to the end of the
//! game with best play (winner shortest, loser longest), straight through captures into smaller
//! tables, so a won position has odd DTM and a lost one even DTM; 0 means already lost.

use std::fmt;

use crate::counted::plies;
use crate::material::Side;

/// The value of a position for the side to move.
///
/// DTM counts plies: a win is odd, a loss even, and one ply back turns each into the other.
///
/// ```
/// use egtb::Value;
///
/// // Mated: lost now. The move that mates wins in 1 ply, "mate in 1".
/// let mated = Value::LOST;
/// let mating = Value::parent_of(mated);
/// assert_eq!(mating, Value::Win(1));
/// assert_eq!(mating.to_string(), "win in 1 (1 ply)");
/// assert_eq!(Value::parent_of(mating), Value::Loss(2));
/// assert_eq!(Value::parent_of(Value::Draw), Value::Draw);
/// // Quicker wins and slower losses are preferred.
/// assert!(Value::Win(3).preference() > Value::Win(5).preference());
/// assert!(Value::Loss(8).preference() > Value::Loss(2).preference());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The side to move wins in this many plies (odd).
    Win(u16),
    /// The side to move loses in this many plies (even; 0 = already lost).
    Loss(u16),
    /// Neither side can force a result.
    Draw,
}

/// A table entry: `DRAW`, `BROKEN`, or `dtm + 1` (parity tells win from loss).
pub type Entry = u16;

/// Entry of a drawn position.
pub const DRAW: Entry = 0;
/// Entry of a slot that is no legal position (overlap, side not to move in check, duplicate).
pub const BROKEN: Entry = u16::MAX;
/// The longest DTM the solvers give: its entry (DTM + 1) stays below the tags of their working
/// words (`0x8000` and up, see [`crate::solver::working`]).
pub const MAX_DTM: u16 = 0x7FFE;
/// The longest DTM a solver takes from a smaller table that a move reaches: half its range, the
/// other half left for the table being solved. No table of these games comes near (the longest
/// DTMs are hundreds of plies), so a larger one marks a damaged file, not a deep ending.
pub const MAX_REACHED_DTM: u16 = MAX_DTM / 2;

impl Value {
    /// The value of a position that has already ended in a loss for the side to move.
    pub const LOST: Value = Value::Loss(0);

    /// The side that wins with best play, for a position with `mover` to move; `None` for a draw.
    pub fn winner(self, mover: Side) -> Option<Side> {
        match self {
            Value::Win(_) => Some(mover),
            Value::Loss(_) => Some(mover.other()),
            Value::Draw => None,
        }
    }

    /// The value of a position whose only child (the chosen move) has value `child`.
    pub fn parent_of(child: Value) -> Value {
        match child {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// The value of the position a move leads to, from the value `mover` the move has for the
    /// side making it: the inverse of [`Value::parent_of`]. A move is never worth `Win(0)` or
    /// `Loss(0)` (those are positions already over).
    pub fn child_of(mover: Value) -> Value {
        match mover {
            Value::Win(d) => Value::Loss(d - 1),
            Value::Loss(d) => Value::Win(d - 1),
            Value::Draw => Value::Draw,
        }
    }

    /// The entry storing this value.
    pub fn entry(self) -> Entry {
        match self {
            Value::Draw => DRAW,
            Value::Win(d) | Value::Loss(d) => d + 1,
        }
    }

    /// The value stored in an entry, `None` for a broken slot.
    pub fn from_entry(entry: Entry) -> Option<Value> {
        match entry {
            DRAW => Some(Value::Draw),
            BROKEN => None,
            e => Some(Value::of_dtm(e - 1)),
        }
    }

    /// The decisive value with this DTM (odd: win, even: loss).
    pub fn of_dtm(dtm: u16) -> Value {
        if dtm % 2 == 1 {
            Value::Win(dtm)
        } else {
            Value::Loss(dtm)
        }
    }

    /// DTM in plies, `None` for a draw.
    pub fn dtm(self) -> Option<u16> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// Ordering key from the side to move's view: larger is better (quick wins, slow losses).
    pub fn preference(self) -> i32 {
        match self {
            Value::Win(d) => 100_000 - i32::from(d),
            Value::Draw => 0,
            Value::Loss(d) => -100_000 + i32::from(d),
        }
    }

    /// The distance in moves, counted for the winner as chess counts them: a win in 2n-1 plies
    /// is a mate in n, a loss in 2n plies is mated in n; `None` for a draw.
    pub fn moves(self) -> Option<u16> {
        match self {
            Value::Win(d) => Some(d.div_ceil(2)),
            Value::Loss(d) => Some(d / 2),
            Value::Draw => None,
        }
    }

    /// "win", "draw" or "loss".
    pub fn outcome(self) -> &'static str {
        match self {
            Value::Win(_) => "win",
            Value::Draw => "draw",
            Value::Loss(_) => "loss",
        }
    }
}

impl fmt::Display for Value {
    /// Moves are counted for the winner ([`Value::moves`]): a win in 2n-1 plies is "win in n".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (*self, self.moves()) {
            (Value::Loss(0), _) => write!(f, "lost"),
            (Value::Win(d), Some(n)) => write!(f, "win in {n} ({})", plies(d)),
            (Value::Loss(d), Some(n)) => write!(f, "loss in {n} ({})", plies(d)),
            _ => write!(f, "draw"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_keep_parity() {
        for v in [
            Value::Draw,
            Value::Loss(0),
            Value::Win(1),
            Value::Loss(68),
            Value::Win(MAX_DTM - 1),
        ] {
            assert_eq!(Value::from_entry(v.entry()), Some(v));
        }
        assert_eq!(Value::from_entry(BROKEN), None);
        assert_eq!(Value::parent_of(Value::Loss(0)), Value::Win(1));
        assert_eq!(Value::parent_of(Value::Win(5)), Value::Loss(6));
    }

    #[test]
    fn preference_orders_quick_wins_first_and_slow_losses_last() {
        let mut vs = [
            Value::Loss(2),
            Value::Win(9),
            Value::Draw,
            Value::Win(1),
            Value::Loss(10),
        ];
        vs.sort_by_key(|v| std::cmp::Reverse(v.preference()));
        assert_eq!(
            vs,
            [
                Value::Win(1),
                Value::Win(9),
                Value::Draw,
                Value::Loss(10),
                Value::Loss(2)
            ]
        );
    }

    #[test]
    fn values_read_in_moves_and_plies() {
        let shown = [
            Value::Win(1),
            Value::Win(7),
            Value::Loss(0),
            Value::Loss(2),
            Value::Draw,
        ]
        .map(|v| v.to_string());
        assert_eq!(
            shown,
            [
                "win in 1 (1 ply)",
                "win in 4 (7 plies)",
                "lost",
                "loss in 1 (2 plies)",
                "draw"
            ]
        );
    }
}
