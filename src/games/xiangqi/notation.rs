//! Xiangqi text: WXF/UCCI FEN positions, ICCS coordinate moves (`h2e2`) and WXF moves (`C2.5`,
//! `H2+3`, `R+.3` for the front one of two rooks on a file).

use anyhow::{Context, Result, bail};

use super::board::{FILES, Kind, SQUARES, file, rank, square};
use super::{Move, Piece, Position, Xiangqi};
use crate::games::Game;
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

/// Parses the board and side-to-move fields of a FEN (later fields are ignored); legality is
/// checked by the caller.
pub fn parse_fen(text: &str) -> Result<Position> {
    let mut fields = text.split_whitespace();
    let board = fields.next().context("empty position")?;
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 10 {
        bail!(
            "position '{text}': expected 10 ranks separated by '/', found {}",
            ranks.len()
        );
    }
    let mut cells = [None; SQUARES];
    for (row, text_rank) in ranks.iter().enumerate() {
        let r = 9 - row as u8;
        let mut f = 0u8;
        for c in text_rank.chars() {
            if let Some(empty) = c.to_digit(10) {
                f += empty as u8;
            } else {
                let kind =
                    kind_of_letter(c).with_context(|| format!("position '{text}': '{c}' is no xiangqi piece"))?;
                if usize::from(f) >= FILES {
                    bail!("position '{text}': rank {r} has more than 9 points");
                }
                let side = if c.is_ascii_uppercase() {
                    Side::First
                } else {
                    Side::Second
                };
                cells[usize::from(square(f, r))] = Some(Piece { side, kind });
                f += 1;
            }
            if usize::from(f) > FILES {
                bail!("position '{text}': rank {r} has more than 9 points");
            }
        }
        if usize::from(f) != FILES {
            bail!("position '{text}': rank {r} has {f} points, not 9");
        }
    }
    let to_move = match fields.next() {
        Some("w" | "r" | "W" | "R") => Side::First,
        Some("b" | "B") => Side::Second,
        Some(other) => bail!("position '{text}': side to move '{other}' is not w, r or b"),
        None => bail!("position '{text}' does not say who is to move (w or b)"),
    };
    Ok(Position { cells, to_move })
}

/// Writes a position as FEN.
pub fn format_fen(position: &Position) -> String {
    let mut out = String::new();
    for r in (0..10u8).rev() {
        let mut empty = 0;
        for f in 0..FILES as u8 {
            match position.cells[usize::from(square(f, r))] {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    let letter = fen_letter(piece.kind);
                    out.push(if piece.side == Side::First {
                        letter
                    } else {
                        letter.to_ascii_lowercase()
                    });
                }
            }
        }
        if empty > 0 {
            out.push(char::from(b'0' + empty));
        }
        if r > 0 {
            out.push('/');
        }
    }
    let side = if position.to_move == Side::First { 'w' } else { 'b' };
    format!("{out} {side} - - 0 1")
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

/// Parses a move in ICCS or WXF notation (`=` accepted for `.`, N and B for H and E), checking
/// that it is legal in the position.
pub fn parse_move(position: &Position, text: &str) -> Result<Move> {
    let wanted = text.trim();
    let normal = wanted
        .to_ascii_uppercase()
        .replace('=', ".")
        .replace('N', "H")
        .replace('B', "E");
    let lowered = wanted.to_ascii_lowercase().replace('-', "");
    Xiangqi::legal_moves(position, Default::default())
        .into_iter()
        .find(|&mv| iccs(mv) == lowered || wxf(position, mv) == normal)
        .with_context(|| format!("'{wanted}' is no legal move in {}", format_fen(position)))
}
