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
    } else if in_check::<G>(position) {
        Ending::Checkmate
    } else {
        Ending::Stalemate
    })
}

/// Whether the side to move is in check: the same placement with the other side to move is
/// illegal exactly then (every game's legality check refuses a side not to move in check).
fn in_check<G: Game>(position: &G::Position) -> bool {
    let fen = G::format_position(position);
    let mut fields = fen.split_whitespace();
    let (Some(board), Some(side)) = (fields.next(), fields.next()) else {
        return false;
    };
    let other = if side == "b" { "w" } else { "b" };
    G::parse_position(&format!("{board} {other}")).is_err()
}
