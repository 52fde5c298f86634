//! Xiangqi text: WXF/UCCI FEN positions, ICCS coordinate moves (`h2e2`) and WXF moves (`C2.5`,
//! `H2+3`, `R+.3` for the front one of two rooks on a file).

use anyhow::{Context, Result, bail};

use super::board::{FILES, Kind, SQUARES, file, rank, square};
use super::{Move, Piece, Position, Xiangqi};
use crate::games::Game;
use crate::games::board_text::{self, Shape, format_placement, letter_side, side_letter, side_to_move_letter};
use crate::material::Side;

/// The FEN letter of a kind (red's, uppercase).
fn fen_letter(kind: Kind) -> char {
    match kind {
        Kind::King => 'K',
        Kind::Advisor => 'A',
        Kind::Elephant => 'B',
        Kind::Horse => 'N',
        Kind::Rook => 'R',
        Kind::Cannon => 'C',
        Kind::Pawn => 'P',
    }
}

/// The kind a FEN letter names (either case, synonyms E and H included).
fn kind_of_letter(letter: char) -> Option<Kind> {
    Some(match letter.to_ascii_uppercase() {
        'K' => Kind::King,
        'A' => Kind::Advisor,
        'B' | 'E' => Kind::Elephant,
        'N' | 'H' => Kind::Horse,
        'R' => Kind::Rook,
        'C' => Kind::Cannon,
        'P' => Kind::Pawn,
        _ => return None,
    })
}

/// The board as FEN writes it: files a to i, ranks 0 to 9.
const SHAPE: Shape = Shape {
    files: FILES,
    ranks: 10,
    first_rank: 0,
};

/// Parses the board and side-to-move fields of a FEN, and the later fields when present (`- - 0
/// 1`: no castling nor en passant in xiangqi, and the clocks, which tables do not count);
/// legality is checked by the caller.
pub fn parse_fen(text: &str) -> Result<Position> {
    let mut cells = [None; SQUARES];
    let parsed = board_text::parse(text, SHAPE, |f, r, c| {
        let kind =
            kind_of_letter(c).with_context(|| format!("'{c}' is no xiangqi piece (KABNRCP or E, H; red uppercase)"))?;
        let side = letter_side(c);
        cells[usize::from(square(f as u8, r as u8))] = Some(Piece { side, kind });
        Ok(())
    })?;
    let fits = |field: &&str| *field == "-" || field.parse::<u32>().is_ok();
    if parsed.rest.len() > 4 || !parsed.rest.iter().all(fits) {
        bail!(
            "position '{text}': '{}' after the side to move (a xiangqi FEN may end there, or with '- - 0 1')",
            parsed.rest.join(" ")
        );
    }
    Ok(Position {
        cells,
        side_to_move: parsed.side_to_move,
    })
}

/// Writes a position as FEN.
pub fn format_fen(position: &Position) -> String {
    let placement = format_placement(SHAPE, |f, r| {
        let piece = position.cells[usize::from(square(f as u8, r as u8))]?;
        Some(side_letter(piece.side, fen_letter(piece.kind)))
    });
    let side = side_to_move_letter(position.side_to_move);
    format!("{placement} {side} - - 0 1")
}

/// ICCS coordinates of a move: `h2e2`.
pub fn iccs(mv: Move) -> String {
    let name = |s: u8| format!("{}{}", char::from(b'a' + file(s)), rank(s));
    format!("{}{}", name(mv.from), name(mv.to))
}

/// WXF name of a legal move.
pub fn wxf(position: &Position, mv: Move) -> String {
    let piece = position.cells[usize::from(mv.from)].expect("a move starts on a piece");
    let red = piece.side == Side::First;
    let file_number = |s: u8| {
        if red { 9 - file(s) } else { file(s) + 1 }
    };
    let ahead = |a: u8, b: u8| {
        if red { rank(a) > rank(b) } else { rank(a) < rank(b) }
    };
    let letter = match piece.kind {
        Kind::Elephant => 'E',
        Kind::Horse => 'H',
        kind => fen_letter(kind),
    };
    let tandem = matches!(piece.kind, Kind::Rook | Kind::Cannon | Kind::Horse | Kind::Pawn)
        .then(|| {
            (0..SQUARES as u8)
                .find(|&s| s != mv.from && file(s) == file(mv.from) && position.cells[usize::from(s)] == Some(piece))
        })
        .flatten();
    let origin = match tandem {
        Some(other) if ahead(mv.from, other) => '+',
        Some(_) => '-',
        None => char::from(b'0' + file_number(mv.from)),
    };
    let diagonal = matches!(piece.kind, Kind::Advisor | Kind::Elephant | Kind::Horse);
    let (op, amount) = if rank(mv.to) == rank(mv.from) {
        ('.', file_number(mv.to))
    } else {
        let op = if ahead(mv.to, mv.from) { '+' } else { '-' };
        let amount = if diagonal {
            file_number(mv.to)
        } else {
            rank(mv.to).abs_diff(rank(mv.from))
        };
        (op, amount)
    };
    format!("{letter}{origin}{op}{amount}")
}

/// The legal move named in ICCS (`h2e2`, `H2-E2`) or WXF (`C2.5`; `=` accepted for `.`, N and
/// B for H and E, letters in either case).
pub fn parse_move(position: &Position, text: &str) -> Option<Move> {
    let wanted = text.trim();
    let normal = wanted
        .to_ascii_uppercase()
        .replace('=', ".")
        .replace('N', "H")
        .replace('B', "E");
    let coordinates = wanted.to_ascii_lowercase().replace('-', "");
    Xiangqi::legal_moves(position, Default::default())
        .into_iter()
        .find(|&mv| iccs(mv) == coordinates || wxf(position, mv) == normal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_read_in_every_spelling_of_both_notations() {
        let position = parse_fen("9/4a4/b2a1k3/9/2b6/9/9/9/3N5/1R1K5 w").unwrap();
        let horse = parse_move(&position, "H6+5").unwrap();
        assert_eq!(iccs(horse), "d1e3");
        for typed in ["N6+5", "n6+5", "h6+5", "d1e3", "D1-E3", " d1-e3 "] {
            assert_eq!(parse_move(&position, typed), Some(horse), "{typed}");
        }
        let rook = parse_move(&position, "R8.9").unwrap();
        assert_eq!(parse_move(&position, "R8=9"), Some(rook));
        let black = parse_fen("9/4a4/b2a1k3/9/2b6/9/9/9/3N5/1R1K5 b").unwrap();
        let elephant = parse_move(&black, "E3-5").unwrap();
        assert_eq!(parse_move(&black, "B3-5"), Some(elephant));
        for bad in ["H6+6", "d1e4", "", "R8.10"] {
            assert_eq!(parse_move(&position, bad), None, "{bad}");
        }
    }

    #[test]
    fn the_fields_after_the_side_to_move_are_those_of_a_fen() {
        let board = "4k4/9/9/9/9/9/9/9/9/3K5";
        for good in ["w", "w - - 0 1", "b - - 12 40", "r -"] {
            assert!(parse_fen(&format!("{board} {good}")).is_ok(), "{good}");
        }
        for bad in ["w extra junk", "w - - 0 1 x", "w - - 0 1 2"] {
            let error = parse_fen(&format!("{board} {bad}")).unwrap_err().to_string();
            assert!(error.contains("after the side to move"), "{error}");
        }
    }
}
