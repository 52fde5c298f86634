//! The two counters that a FEN writes after the position: they belong to the game the position
//! comes from, not to the position, so tables ignore them and the commands that read a position
//! from a game carry them along.

use anyhow::{Context, Result};

use crate::material::Side;

/// A FEN's last two fields: the plies since the last capture (or, in chess, pawn move), which
/// the 50-move rule counts, and the number of the move about to be played, which the second
/// side's move ends. Tables ignore both (a DTM counts the moves to mate, whatever the clocks
/// say); `query`, `line` and `play` keep them, so that a line from a game's position numbers its
/// moves as the game does.
///
/// ```
/// use egtb::games::Clocks;
/// use egtb::Side;
///
/// let clocks = Clocks { halfmove: 12, fullmove: 40 };
/// assert_eq!(clocks.after(Side::First, false), Clocks { halfmove: 13, fullmove: 40 });
/// assert_eq!(clocks.after(Side::Second, true), Clocks { halfmove: 0, fullmove: 41 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clocks {
    /// Plies since the last move that resets it.
    pub halfmove: u32,
    /// The number of the move about to be played, from 1.
    pub fullmove: u32,
}

impl Clocks {
    /// A game's first position, and what a position written without clocks is given: `0 1`.
    pub const START: Clocks = Clocks {
        halfmove: 0,
        fullmove: 1,
    };

    /// The clocks after a move of `mover`; `resets`: the move resets the halfmove clock.
    pub fn after(self, mover: Side, resets: bool) -> Clocks {
        Clocks {
            halfmove: if resets { 0 } else { self.halfmove.saturating_add(1) },
            fullmove: self.fullmove.saturating_add(u32::from(mover == Side::Second)),
        }
    }

    /// The clocks of a FEN's clock fields (`fields`: the halfmove clock, then the fullmove
    /// number, either or both left out), [`Clocks::START`]'s where left out. A fullmove number
    /// of 0, which some programs write, reads as 1.
    pub fn parse(fields: &[&str]) -> Result<Clocks> {
        let number = |index: usize, name: &str| -> Result<Option<u32>> {
            let Some(field) = fields.get(index) else {
                return Ok(None);
            };
            let number = field.parse().ok();
            Ok(Some(number.with_context(|| {
                format!("{name} '{field}' is not a whole number from 0")
            })?))
        };
        Ok(Clocks {
            halfmove: number(0, "halfmove clock")?.unwrap_or(Clocks::START.halfmove),
            fullmove: number(1, "fullmove number")?.map_or(Clocks::START.fullmove, |n| n.max(1)),
        })
    }
}

impl std::fmt::Display for Clocks {
    /// The two fields as a FEN writes them: `0 1`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.halfmove, self.fullmove)
    }
}
