//! How a finished game ended: checkmate, stalemate or, in dark chess, no pieces left; for the
//! words of `query` and `line` and the board's announcement.

use super::Game;

/// How a finished game ended for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// No legal move while in check.
    Checkmate,
    /// No legal move, not in check (a draw in chess, a loss in xiangqi, by option in dark chess).
    Stalemate,
    /// No pieces left (dark chess).
    NoPieces,
}

impl Ending {
    /// The ending in words: "checkmate", "stalemate", "no pieces left".
    pub fn name(self) -> &'static str {
        match self {
            Ending::Checkmate => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::NoPieces => "no pieces left",
        }
    }

    /// The ending as a key for JSON: `checkmate`, `stalemate`, `no_pieces`.
    pub fn key(self) -> &'static str {
        match self {
            Ending::Checkmate => "checkmate",
            Ending::Stalemate => "stalemate",
            Ending::NoPieces => "no_pieces",
        }
    }
}

/// How the game ended for the side to move, or `None` when it goes on.
pub fn ending<G: Game>(position: &G::Position, rules: G::Rules) -> Option<Ending> {
    G::game_over(position, rules)?;
    let side = G::side_to_move(position);
    Some(if G::material_of(position).side_pieces(side) == 0 {
        Ending::NoPieces
    } else if G::in_check(position) {
        Ending::Checkmate
    } else {
        Ending::Stalemate
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::Chess;
    use crate::games::xiangqi::Xiangqi;

    #[test]
    fn mates_and_stalemates_are_told_apart_by_check() {
        let rules = Default::default();
        let chess = |fen| ending::<Chess>(&Chess::parse_position(fen).unwrap(), rules);
        assert_eq!(chess("1k5R/8/1K6/8/8/8/8/8 b"), Some(Ending::Checkmate));
        assert_eq!(chess("k7/1R6/1K6/8/8/8/8/8 b"), Some(Ending::Stalemate));
        assert_eq!(chess("k7/8/1K6/8/8/8/8/7R w"), None);
        let rules = Default::default();
        let xiangqi = |fen| ending::<Xiangqi>(&Xiangqi::parse_position(fen).unwrap(), rules);
        // Rooks on the d- and e-files: the red king in check with both palace squares taken.
        assert_eq!(xiangqi("5k3/9/9/9/3rr4/9/9/9/9/3K5 w"), Some(Ending::Checkmate));
        // The same squares taken from the e-file and rank 1, no check: a stalemate (lost).
        assert_eq!(xiangqi("5k3/9/9/9/4r4/9/9/9/r8/3K5 w"), Some(Ending::Stalemate));
        assert_eq!(xiangqi("5k3/9/9/9/4r4/9/9/9/9/3K5 w"), None);
    }
}
