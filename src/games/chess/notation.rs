//! FEN reading and writing with validation, and moves in SAN (`Qxd5#`, `e8=Q+`, `exd6`) and UCI
//! (`a1a8`, `e7e8q`).

use anyhow::{Context, Result, anyhow, bail};

use super::board::{Kind, Square, file, rank, square_name};
use super::{Move, Piece, Position};
use crate::counted::counted;
use crate::games::Clocks;
use crate::games::board_text::{self, Shape, format_placement, letter_side, side_letter, side_to_move_letter};
use crate::games::typed_move::first_named;
use crate::material::GameId;

/// The board as FEN writes it: files a to h, ranks 1 to 8.
const SHAPE: Shape = Shape {
    files: 8,
    ranks: 8,
    first_rank: 1,
};

/// Parses a FEN (`8/8/8/4k3/8/8/8/R3K3 w - - 0 1`; the last four fields may be left out) into a
/// legal position and its clocks. An en passant square must be one that a double step has just
/// produced; where no capture can use it, the position has no en passant right (standard FEN
/// names the square after every double step).
pub fn parse_fen(text: &str) -> Result<(Position, Clocks)> {
    // The shared reader also takes `r` and upper case, which only xiangqi and dark chess write.
    if let Some(side) = text.split_whitespace().nth(1)
        && !matches!(side, "w" | "b")
    {
        bail!("position '{text}': side to move '{side}' is not w or b");
    }
    let mut board = [None; 64];
    let parsed = board_text::parse(text, SHAPE, |f, r, c| {
        let kind = u8::try_from(c)
            .ok()
            .and_then(|l| GameId::Chess.kind_of_letter(l))
            .with_context(|| format!("'{c}' is no piece letter (KQRBNP, lower case for black)"))?;
        board[f + 8 * r] = Some(Piece {
            side: letter_side(c),
            kind: Kind::ALL[kind],
        });
        Ok(())
    })?;
    let rest = parsed.rest;
    if rest.len() > 4 {
        bail!(
            "position '{text}' has {}, expected the board and side to move (and optionally castling, en passant, clocks)",
            counted(rest.len() + 2, "field")
        );
    }
    if let Some(&castling) = rest.first()
        && castling != "-"
    {
        bail!(
            "position '{text}': castling rights '{castling}' are not supported (tablebases have no castling): write '-'"
        );
    }
    let en_passant = match rest.get(1) {
        Some(&"-") | None => None,
        Some(&square) => Some(
            parse_square(square)
                .with_context(|| format!("position '{text}': en passant square '{square}' is no square"))?,
        ),
    };
    let clocks = Clocks::parse(rest.get(2..).unwrap_or_default()).map_err(|e| anyhow!("position '{text}': {e}"))?;
    let legal = Position::new(board, parsed.side_to_move).and_then(|position| match en_passant {
        Some(target) => position.with_fen_en_passant(target),
        None => Ok(position),
    });
    Ok((legal.with_context(|| format!("position '{text}'"))?, clocks))
}

/// A square in algebraic notation (`e3`).
fn parse_square(text: &str) -> Option<Square> {
    let &[f, r] = text.as_bytes() else { return None };
    ((b'a'..=b'h').contains(&f) && (b'1'..=b'8').contains(&r)).then(|| (f - b'a') + 8 * (r - b'1'))
}

/// Writes a position as FEN, with no castling, its en passant square and `clocks`.
pub fn format_fen(position: &Position, clocks: Clocks) -> String {
    let placement = format_placement(SHAPE, |f, r| {
        let piece = position.piece_at((f + 8 * r) as Square)?;
        Some(side_letter(piece.side, piece.kind.letter()))
    });
    let side = side_to_move_letter(position.side_to_move());
    let en_passant = position.en_passant().map_or("-".to_string(), square_name);
    format!("{placement} {side} - {en_passant} {clocks}")
}

/// A move in UCI notation (`a1a8`, `e7e8q`).
pub fn uci(mv: Move) -> String {
    let promotion = mv
        .promotion
        .map_or(String::new(), |k| k.letter().to_ascii_lowercase().to_string());
    format!("{}{}{promotion}", square_name(mv.from), square_name(mv.to))
}

/// A legal move in SAN (`Ra8+`, `Nbxd5`, `Qh4#`, `exd6`, `bxa8=N`), disambiguated by file, rank
/// or both.
pub fn san(position: &Position, mv: Move) -> String {
    let piece = position.piece_at(mv.from).expect("a legal move starts on a piece");
    let mut out = String::new();
    let capture = position.piece_at(mv.to).is_some() || position.is_en_passant(mv);
    if piece.kind == Kind::Pawn {
        if capture {
            out.push_str(&square_name(mv.from)[..1]);
        }
    } else {
        out.push(piece.kind.letter());
    }
    if piece.kind != Kind::King && piece.kind != Kind::Pawn {
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
    if capture {
        out.push('x');
    }
    out.push_str(&square_name(mv.to));
    if let Some(kind) = mv.promotion {
        out.push('=');
        out.push(kind.letter());
    }
    let after = position.play(mv);
    if after.in_check() {
        out.push(if after.legal_moves().is_empty() { '#' } else { '+' });
    }
    out
}

/// The legal moves named in SAN or UCI as people type them: check marks and the `=` of a
/// promotion optional (`e8Q`), coordinates in either case and with a dash (`E7-E8Q`), piece
/// letters in either case (`nf3`; `bxc4` is the b-pawn's capture when it has one, an upper-case
/// `B` always a bishop). A name that leaves out which of two pieces moves (`Nd2` for `Nbd2` and
/// `Nfd2`), what a pawn promotes to (`e8`, `e7e8`) or a capture's `x` names every move it fits.
pub fn moves_named(position: &Position, text: &str) -> Vec<Move> {
    let plain = |name: &str| name.trim_end_matches(['+', '#']).replace('=', "");
    let typed = plain(text.trim());
    let coordinates = typed.to_ascii_lowercase().replace(['-', 'x'], "");
    let named: Vec<(Move, String)> = position
        .legal_moves()
        .into_iter()
        .map(|mv| (mv, plain(&san(position, mv))))
        .collect();
    let named: Vec<&(Move, String)> = named.iter().collect();
    // A name against the text, both without a capture's `x`, the name also without the rest of
    // what people leave out (`unspecific`), after `case`.
    let loose_typed = typed.replace('x', "");
    let loosely = |name: &str, case: &dyn Fn(String) -> String| {
        case(name.replace('x', "")) == loose_typed || case(unspecific(name)) == loose_typed
    };
    first_named(
        &named,
        &[
            &|(_, name)| *name == typed,
            &|(mv, _)| uci(*mv) == coordinates,
            &|(mv, name)| loosely(name, &|n| n) || uci(*mv)[..4] == coordinates,
            &|(_, name)| name.to_ascii_lowercase() == typed,
            &|(_, name)| loosely(name, &|n| n.to_ascii_lowercase()),
        ],
    )
    .into_iter()
    .map(|(mv, _)| *mv)
    .collect()
}

/// A plain SAN (no check mark, no `=`) without what people leave out: a piece's file or rank
/// of departure (`Rad1` is `Rd1`), a capture's `x` (`Nxd2` is `Nd2`, `exd6` is `ed6`), a
/// promotion's piece (`e8Q` is `e8`).
fn unspecific(name: &str) -> String {
    let name = name.replace('x', "");
    match name.chars().next() {
        Some(piece) if piece.is_ascii_uppercase() => format!("{piece}{}", &name[name.len() - 2..]),
        _ if name.ends_with(|c: char| c.is_ascii_uppercase()) => name[..name.len() - 1].to_string(),
        _ => name,
    }
}
