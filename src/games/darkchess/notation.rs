//! Positions as FEN-like text (`k7/8/8/6PK w`: ranks 4 down to 1, red uppercase, then the side
//! to move, `w` or `r` for red and `b` for black) and moves as coordinates (`g1g2`).

use anyhow::{Result, bail};

use super::Position;
use super::board::{Board, FILES, KINDS, LETTERS, MAX_COUNTS, RANKS, square_name};
use super::moves::Move;
use crate::material::Side;

/// Parses a position, checking piece counts and that both sides have pieces.
pub fn parse_position(text: &str) -> Result<Position> {
    let fields: Vec<&str> = text.split_whitespace().collect();
    let [placement, side] = fields[..] else {
        bail!("position '{text}' must be a placement and a side to move, like 'k7/8/8/6PK w'");
    };
    let side_to_move = match side {
        "w" | "r" => Side::First,
        "b" => Side::Second,
        _ => bail!("position '{text}': side to move '{side}' is not w, r or b"),
    };
    let ranks: Vec<&str> = placement.split('/').collect();
    if ranks.len() != RANKS {
        bail!("position '{text}' has {} ranks, expected {RANKS}", ranks.len());
    }
    let mut board = Board::default();
    for (i, row) in ranks.iter().enumerate() {
        let rank = RANKS - 1 - i;
        let mut file = 0;
        for c in row.chars() {
            if let Some(empty) = c.to_digit(10).filter(|&d| (1..=FILES as u32).contains(&d)) {
                file += empty as usize;
            } else {
                let Some(kind) = LETTERS.iter().position(|&l| l == c.to_ascii_uppercase() as u8) else {
                    bail!("position '{text}': '{c}' is no dark chess piece (KAERNCP, red uppercase)");
                };
                if file < FILES {
                    let side = if c.is_ascii_uppercase() { 0 } else { 1 };
                    board.masks[side][kind] |= 1 << (rank * FILES + file);
                }
                file += 1;
            }
            if file > FILES {
                bail!("position '{text}': rank {} has more than {FILES} squares", rank + 1);
            }
        }
        if file != FILES {
            bail!(
                "position '{text}': rank {} has {file} squares, expected {FILES}",
                rank + 1
            );
        }
    }
    for side in Side::BOTH {
        let counts = &board.masks[side.index()];
        if let Some(kind) = (0..KINDS).find(|&k| counts[k].count_ones() > u32::from(MAX_COUNTS[k])) {
            bail!(
                "position '{text}': {} has more than {} of '{}'",
                side_name(side),
                MAX_COUNTS[kind],
                LETTERS[kind] as char
            );
        }
        if board.side_mask(side) == 0 {
            bail!("position '{text}': {} has no pieces", side_name(side));
        }
    }
    Ok(Position { board, side_to_move })
}

fn side_name(side: Side) -> &'static str {
    match side {
        Side::First => "red",
        Side::Second => "black",
    }
}

/// Writes a position.
pub fn format_position(position: &Position) -> String {
    let mut text = String::new();
    for rank in (0..RANKS).rev() {
        let mut empty = 0;
        for file in 0..FILES {
            match position.board.piece_at(rank * FILES + file) {
                None => empty += 1,
                Some((side, kind)) => {
                    if empty > 0 {
                        text.push_str(&empty.to_string());
                        empty = 0;
                    }
                    let letter = LETTERS[kind] as char;
                    text.push(match side {
                        Side::First => letter,
                        Side::Second => letter.to_ascii_lowercase(),
                    });
                }
            }
        }
        if empty > 0 {
            text.push_str(&empty.to_string());
        }
        if rank > 0 {
            text.push('/');
        }
    }
    text.push_str(match position.side_to_move {
        Side::First => " w",
        Side::Second => " b",
    });
    text
}

/// A move in coordinates, `g1g2`.
pub fn move_name(mv: Move) -> String {
    format!(
        "{}{}",
        square_name(usize::from(mv.from)),
        square_name(usize::from(mv.to))
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_bad_text() {
        for text in ["k7/8/8/6PK w", "1c2P3/8/a6E/KPPPP2p b"] {
            assert_eq!(format_position(&parse_position(text).unwrap()), text);
        }
        assert_eq!(parse_position("k7/8/8/6PK r").unwrap().side_to_move, Side::First);
        for bad in [
            "k7/8/8/6PK",
            "k7/8/8/6PK x",
            "k7/8/8 w",
            "k7/8/8/6PKK w",
            "k7/8/8/5PK w",
            "k7/8/8/6PX w",
            "k7/8/8/9 w",
            "k7/8/8/8 w",
            "kk6/8/8/6PK w",
            "k7/8/PPP5/PPP5 w",
        ] {
            let err = parse_position(bad).unwrap_err().to_string();
            assert!(!err.contains('\n'), "{err}");
        }
    }
}
