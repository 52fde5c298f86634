//! Xiangqi text: WXF/UCCI FEN positions, ICCS coordinate moves (`h2e2`) and WXF moves (`C2.5`,
//! `H2+3`, `R+.3` for the front one of two rooks on a file).

use anyhow::{Context, Result, bail};

use super::board::{FILES, Kind, SQUARES, file, rank, square};
use super::{Move, Piece, Position, Xiangqi};
use crate::games::board_text::{self, Shape, format_placement, letter_side, side_letter, side_to_move_letter};
use crate::games::typed_move::first_named;
use crate::games::{Clocks, Game};
use crate::material::{GameId, Side};

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

/// The board as FEN writes it: files a to i, ranks 0 to 9.
const SHAPE: Shape = Shape {
    files: FILES,
    ranks: 10,
    first_rank: 0,
};

/// Parses a FEN (`4k4/9/9/9/9/9/9/9/9/3K5 w - - 0 1`; the last four fields may be left out:
/// xiangqi has no castling nor en passant) into a legal position and its clocks.
pub fn parse_fen(text: &str) -> Result<(Position, Clocks)> {
    let mut cells = [None; SQUARES];
    let parsed = board_text::parse(text, SHAPE, |f, r, c| {
        let kind = u8::try_from(c)
            .ok()
            .and_then(|letter| GameId::Xiangqi.kind_of_letter(letter))
            .map(|k| Kind::ALL[k])
            .with_context(|| format!("'{c}' is no xiangqi piece (KABNRCP or E, H; red uppercase)"))?;
        let side = letter_side(c);
        cells[usize::from(square(f as u8, r as u8))] = Some(Piece { side, kind });
        Ok(())
    })?;
    let rest = &parsed.rest;
    let clocks = Clocks::parse(rest.get(2..).unwrap_or_default());
    let (Ok(clocks), true) = (clocks, rest.len() <= 4 && rest.iter().take(2).all(|f| *f == "-")) else {
        bail!(
            "position '{text}': '{}' after the side to move (a xiangqi FEN may end there, or with '- - 0 1')",
            rest.join(" ")
        );
    };
    let position = Position {
        cells,
        side_to_move: parsed.side_to_move,
    };
    position.check_legal().with_context(|| format!("position '{text}'"))?;
    Ok((position, clocks))
}

/// Writes a position as FEN, with `clocks`.
pub fn format_fen(position: &Position, clocks: Clocks) -> String {
    let placement = format_placement(SHAPE, |f, r| {
        let piece = position.cells[usize::from(square(f as u8, r as u8))]?;
        Some(side_letter(piece.side, fen_letter(piece.kind)))
    });
    let side = side_to_move_letter(position.side_to_move);
    format!("{placement} {side} - - {clocks}")
}

/// ICCS coordinates of a move: `h2e2`.
pub fn iccs(mv: Move) -> String {
    let name = |s: u8| format!("{}{}", char::from(b'a' + file(s)), rank(s));
    format!("{}{}", name(mv.from), name(mv.to))
}

/// WXF name of a legal move.
pub fn wxf(position: &Position, mv: Move) -> String {
    wxf_spelled(position, mv, Tandem::Marked)
}

/// How a WXF name gives the origin of a piece that shares its file with one of its kind.
#[derive(Clone, Copy, PartialEq)]
enum Tandem {
    /// `+` for the front piece, `-` for the rear one, as WXF writes it.
    Marked,
    /// The file number, as for a piece alone on its file: what players often type.
    FileNumber,
}

fn wxf_spelled(position: &Position, mv: Move, spelling: Tandem) -> String {
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
    let tandem = (spelling == Tandem::Marked
        && matches!(piece.kind, Kind::Rook | Kind::Cannon | Kind::Horse | Kind::Pawn))
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

/// The legal moves named in ICCS (`h2e2`, `H2-E2`) or WXF (`C2.5`; `=` accepted for `.`, N and
/// B for H and E, letters in either case). A piece that shares its file with one of its kind may
/// also be named by its file number (`P5+1` for `P++1`); where that fits both pieces, the text
/// names both moves.
pub fn moves_named(position: &Position, text: &str) -> Vec<Move> {
    let wanted = text.trim();
    let normal = wanted
        .to_ascii_uppercase()
        .replace('=', ".")
        .replace('N', "H")
        .replace('B', "E");
    let coordinates = wanted.to_ascii_lowercase().replace('-', "");
    let exactly = |mv: Move| iccs(mv) == coordinates || wxf(position, mv) == normal;
    let by_file_number = |mv: Move| wxf_spelled(position, mv, Tandem::FileNumber) == normal;
    let moves = Xiangqi::legal_moves(position, Default::default());
    first_named(&moves, &[&exactly, &by_file_number])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_move_is_read_in_every_spelling_of_both_notations() {
        let named = |fen: &str, typed| -> Vec<String> {
            moves_named(&parse_fen(fen).unwrap().0, typed)
                .into_iter()
                .map(iccs)
                .collect()
        };
        let red = "9/4a4/b2a1k3/9/2b6/9/9/9/3N5/1R1K5 w";
        for typed in ["H6+5", "N6+5", "n6+5", "h6+5", "d1e3", "D1-E3", " d1-e3 "] {
            assert_eq!(named(red, typed), ["d1e3"], "{typed}");
        }
        assert_eq!(named(red, "R8.9"), ["b0a0"]);
        assert_eq!(named(red, "R8=9"), ["b0a0"]);
        let black = "9/4a4/b2a1k3/9/2b6/9/9/9/3N5/1R1K5 b";
        assert_eq!(named(black, "E3-5"), named(black, "B3-5"));
        assert_eq!(named(black, "E3-5").len(), 1);
        for bad in ["H6+6", "d1e4", "", "R8.10"] {
            assert!(named(red, bad).is_empty(), "{bad}");
        }
    }

    #[test]
    fn a_piece_sharing_its_file_is_named_by_its_file_or_both_are() {
        // Both pawns have crossed the river; the rear one cannot step onto the front one.
        let position = parse_fen("3k5/9/9/4P4/4P4/9/9/9/9/4K4 w").unwrap().0;
        let named = |typed| -> Vec<String> { moves_named(&position, typed).into_iter().map(iccs).collect() };
        assert_eq!(named("P++1"), ["e6e7"]);
        assert_eq!(named("P5+1"), ["e6e7"]);
        assert_eq!(named("P-.4"), ["e5f5"]);
        let mut both = named("P5.4");
        both.sort();
        assert_eq!(both, ["e5f5", "e6f6"], "either pawn can go to file 4");
        let front = moves_named(&position, "P++1")[0];
        assert_eq!(wxf(&position, front), "P++1");
    }

    /// The clocks are read and written back; a capture resets the halfmove clock.
    #[test]
    fn clocks_are_kept_and_a_capture_resets_them() {
        let fen = "3k5/9/9/9/8p/9/9/9/9/4K3R w - - 12 40";
        let (position, clocks) = parse_fen(fen).unwrap();
        assert_eq!(
            clocks,
            Clocks {
                halfmove: 12,
                fullmove: 40
            }
        );
        assert_eq!(format_fen(&position, clocks), fen);
        let resets = |typed| Xiangqi::resets_clock(&position, moves_named(&position, typed)[0]);
        assert_eq!(["i0i5", "i0i1", "e0e1"].map(resets), [true, false, false]);
    }

    #[test]
    fn the_fields_after_the_side_to_move_are_those_of_a_fen() {
        let board = "4k4/9/9/9/9/9/9/9/9/3K5";
        for good in ["w", "w - - 0 1", "b - - 12 40", "r -"] {
            assert!(parse_fen(&format!("{board} {good}")).is_ok(), "{good}");
        }
        for bad in ["w extra junk", "w - - 0 1 x", "w - - 0 1 2", "w 0 0", "w - - x 1"] {
            let error = parse_fen(&format!("{board} {bad}")).unwrap_err().to_string();
            assert!(error.contains("after the side to move"), "{error}");
        }
    }
}
