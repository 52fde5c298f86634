//! Positions as FEN-like text (`k7/8/8/6PK w`: ranks 4 down to 1, red uppercase, then the side
//! to move, `w` or `r` for red and `b` for black) and moves as coordinates (`g1g2`).

use anyhow::{Context, Result, bail};

use super::board::{Board, FILES, LETTERS, RANKS, square_name};
use super::{DarkChess, DarkChessRules, Move, Position};
use crate::games::Game;
use crate::games::board_text::{self, Shape, format_placement, letter_side, side_letter, side_to_move_letter};
use crate::games::typed_move::first_named;
use crate::material::GameId;

/// The 4x8 board, ranks 1 to 4.
const SHAPE: Shape = Shape {
    files: FILES,
    ranks: RANKS,
    first_rank: 1,
};

/// Parses a position, checking piece counts and that the side not to move has pieces.
pub fn parse_position(text: &str) -> Result<Position> {
    let mut board = Board::default();
    let parsed = board_text::parse(text, SHAPE, |file, rank, c| {
        let Some(kind) = u8::try_from(c).ok().and_then(|l| GameId::DarkChess.kind_of_letter(l)) else {
            bail!("'{c}' is no dark chess piece (KAERNCP or B, H; red uppercase)");
        };
        board.masks[letter_side(c).index()][kind] |= 1 << (rank * FILES + file);
        Ok(())
    })?;
    if let Some(extra) = parsed.rest.first() {
        bail!(
            "position '{text}': '{extra}' after the side to move (a position is a placement and a side to move, like 'k7/8/8/6PK w')"
        );
    }
    let position = Position {
        board,
        side_to_move: parsed.side_to_move,
    };
    position.check_legal().with_context(|| format!("position '{text}'"))?;
    Ok(position)
}

/// Writes a position.
pub fn format_position(position: &Position) -> String {
    let placement = format_placement(SHAPE, |file, rank| {
        let (side, kind) = position.board.piece_at(rank * FILES + file)?;
        Some(side_letter(side, LETTERS[kind] as char))
    });
    format!("{placement} {}", side_to_move_letter(position.side_to_move))
}

/// A move in coordinates, `g1g2`.
pub fn move_name(mv: Move) -> String {
    format!(
        "{}{}",
        square_name(usize::from(mv.from)),
        square_name(usize::from(mv.to))
    )
}

/// The legal moves named in coordinates as people type them: in either case, with a dash or a
/// capture's `x` between the squares (`G1-G2` is `g1g2`, `a1xa4` is `a1a4`); one move or none.
pub fn moves_named(position: &Position, text: &str, rules: DarkChessRules) -> Vec<Move> {
    let coordinates = text.trim().to_ascii_lowercase().replace(['-', 'x'], "");
    first_named(
        &DarkChess::legal_moves(position, rules),
        &[&|mv| move_name(mv) == coordinates],
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::material::Side;

    #[test]
    fn round_trips_and_rejects_bad_text() {
        for text in ["k7/8/8/6PK w", "1c2P3/8/a6E/KPPPP2p b", "k7/8/8/8 w"] {
            assert_eq!(format_position(&parse_position(text).unwrap()), text);
        }
        assert_eq!(parse_position("k7/8/8/6PK r").unwrap().side_to_move, Side::First);
        // H and B read as the horse and the elephant, as in xiangqi.
        assert_eq!(
            format_position(&parse_position("k7/8/8/h1B4K b").unwrap()),
            "k7/8/8/n1E4K b"
        );
        for bad in [
            "k7/8/8/6PK",
            "k7/8/8/6PK x",
            "k7/8/8 w",
            "k7/8/8/6PKK w",
            "k7/8/8/5PK w",
            "k7/8/8/6PX w",
            "k7/8/8/9 w",
            "k7/8/8/8 b",
            "8/8/8/8 w",
            "kk6/8/8/6PK w",
            "k7/8/PPP5/PPP5 w",
        ] {
            let err = parse_position(bad).unwrap_err().to_string();
            assert!(!err.contains('\n'), "{err}");
        }
    }

    #[test]
    fn a_move_is_read_in_either_case_and_with_a_dash_or_an_x() {
        // The red cannon on a1 can jump the pawn on a2 to take the black cannon on a4.
        let position = parse_position("c7/8/P7/C7 w").unwrap();
        let rules = DarkChessRules::default();
        let named = |typed| -> Vec<String> {
            moves_named(&position, typed, rules)
                .into_iter()
                .map(move_name)
                .collect()
        };
        for (typed, name) in [(" A2-A3 ", "a2a3"), ("a2a3", "a2a3"), ("a1xA4", "a1a4")] {
            assert_eq!(named(typed), [name], "{typed}");
        }
        assert!(named("a1a3").is_empty());
    }
}
