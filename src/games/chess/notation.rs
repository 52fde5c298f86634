//! FEN reading and writing with validation, and moves in SAN (`Qxd5#`) and UCI (`a1a8`).

use anyhow::{Context, Result, bail};

use super::board::{Kind, Square, file, rank, square_name};
use super::{ChessMove, Piece, Position};
use crate::material::Side;

/// Parses a FEN (`8/8/8/4k3/8/8/8/R3K3 w - - 0 1`; the last four fields may be left out) into a
/// legal pawnless position.
pub fn parse_fen(text: &str) -> Result<Position> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    if !(2..=6).contains(&fields.len()) {
        bail!(
            "FEN '{text}' has {} fields, expected the board and side to move (and optionally castling, en passant, clocks)",
            fields.len()
        );
    }
    let (board, pawns) = parse_board(fields[0])?;
    let turn = match fields[1] {
        "w" => Side::First,
        "b" => Side::Second,
        other => bail!("FEN side to move '{other}' must be 'w' or 'b'"),
    };
    if let Some(&castling) = fields.get(2)
        && castling != "-"
    {
        bail!("FEN castling rights '{castling}' are not supported (tablebases have no castling)");
    }
    if let Some(&en_passant) = fields.get(3)
        && en_passant != "-"
    {
        bail!("FEN en passant square '{en_passant}' is impossible without pawns");
    }
    for (name, field) in ["halfmove clock", "fullmove number"]
        .iter()
        .zip(&fields[4.min(fields.len())..])
    {
        field
            .parse::<u32>()
            .ok()
            .with_context(|| format!("FEN {name} '{field}' is not a number"))?;
    }
    if pawns {
        bail!("chess positions with pawns are not supported yet");
    }
    Position::new(board, turn)
}

/// Reads the board field: ranks 8 to 1, each exactly 8 squares. Pawns are noted, not placed.
fn parse_board(field: &str) -> Result<([Option<Piece>; 64], bool)> {
    let ranks: Vec<&str> = field.split('/').collect();
    if ranks.len() != 8 {
        bail!("FEN board '{field}' has {} ranks, expected 8", ranks.len());
    }
    let mut board = [None; 64];
    let mut pawns = false;
    for (row, text) in ranks.iter().enumerate() {
        let rank_number = 8 - row;
        let mut f = 0usize;
        for c in text.chars() {
            if f >= 8 {
                bail!("FEN rank {rank_number} '{text}' has more than 8 squares");
            }
            if let Some(empty) = c.to_digit(10).filter(|d| (1..=8).contains(d)) {
                f += empty as usize;
                continue;
            }
            let side = if c.is_ascii_uppercase() {
                Side::First
            } else {
                Side::Second
            };
            if c.eq_ignore_ascii_case(&'p') {
                pawns = true;
            } else {
                let kind = Kind::from_letter(c)
                    .with_context(|| format!("FEN rank {rank_number}: '{c}' is no piece letter"))?;
                board[(rank_number - 1) * 8 + f] = Some(Piece { side, kind });
            }
            f += 1;
        }
        if f != 8 {
            let what = if f > 8 { "more" } else { "fewer" };
            bail!("FEN rank {rank_number} '{text}' has {what} than 8 squares");
        }
    }
    Ok((board, pawns))
}

/// Writes a position as FEN, with no castling, no en passant and clocks `0 1`.
pub fn format_fen(position: &Position) -> String {
    let mut out = String::new();
    for r in (0..8u8).rev() {
        let mut empty = 0;
        for f in 0..8u8 {
            match position.piece_at(f + 8 * r) {
                None => empty += 1,
                Some(piece) => {
                    if empty > 0 {
                        out.push(char::from(b'0' + empty));
                        empty = 0;
                    }
                    let letter = piece.kind.letter();
                    out.push(match piece.side {
                        Side::First => letter,
                        Side::Second => letter.to_ascii_lowercase(),
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
    let turn = match position.turn() {
        Side::First => 'w',
        Side::Second => 'b',
    };
    format!("{out} {turn} - - 0 1")
}

/// A move in UCI notation (`a1a8`).
pub fn uci(mv: ChessMove) -> String {
    format!("{}{}", square_name(mv.from), square_name(mv.to))
}

/// A legal move in SAN (`Ra8+`, `Nbxd5`, `Qh4#`), disambiguated by file, rank or both.
pub fn san(position: &Position, mv: ChessMove) -> String {
    let piece = position.piece_at(mv.from).expect("a legal move starts on a piece");
    let mut out = String::new();
    out.push(piece.kind.letter());
    if piece.kind != Kind::King {
        let rivals: Vec<Square> = position
            .legal_moves()
            .into_iter()
            .filter(|m| m.to == mv.to && m.from != mv.from && position.piece_at(m.from) == Some(piece))
            .map(|m| m.from)
            .collect();
        if !rivals.is_empty() {
            let from = square_name(mv.from);
            if rivals.iter().all(|&r| file(r) != file(mv.from)) {
                out.push_str(&from[..1]);
            } else if rivals.iter().all(|&r| rank(r) != rank(mv.from)) {
                out.push_str(&from[1..]);
            } else {
                out.push_str(&from);
            }
        }
    }
    if position.piece_at(mv.to).is_some() {
        out.push('x');
    }
    out.push_str(&square_name(mv.to));
    let after = position.play(mv);
    if after.in_check() {
        out.push(if after.legal_moves().is_empty() { '#' } else { '+' });
    }
    out
}
