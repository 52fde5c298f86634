//! The board-text skeleton every game's position notation shares (chess FEN, xiangqi FEN, the
//! dark chess placement): the ranks from the top (the second side's back rank) down, separated
//! by `/`, a digit counting empty squares, a letter a piece (the first side's uppercase), then
//! the side to move, `w` or `r` for the first side and `b` for the second, in either case (chess
//! refuses all but `w` and `b` before). Each game maps the letters to its pieces and reads or
//! rejects the fields after.

use anyhow::{Context, Result, bail};

use crate::counted::counted;
use crate::material::Side;

/// The size of a board and how its ranks are numbered in messages.
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Number of files (columns, a first).
    pub files: usize,
    /// Number of ranks (rows).
    pub ranks: usize,
    /// The number of the first side's back rank (xiangqi 0, chess and dark chess 1).
    pub first_rank: usize,
}

/// A position's text taken apart.
#[derive(Debug)]
pub struct BoardText<'t> {
    /// The side to move.
    pub side_to_move: Side,
    /// The fields after the side to move.
    pub rest: Vec<&'t str>,
}

/// Reads the placement and the side to move of `text`, calling `place(file, rank, letter)`
/// (file 0 = a, rank 0 = the first side's back rank) for every piece letter.
pub fn parse<'t>(
    text: &'t str,
    shape: Shape,
    mut place: impl FnMut(usize, usize, char) -> Result<()>,
) -> Result<BoardText<'t>> {
    let mut fields = text.split_whitespace();
    let placement = fields.next().with_context(|| format!("position '{text}' is empty"))?;
    let rows: Vec<&str> = placement.split('/').collect();
    if rows.len() != shape.ranks {
        bail!(
            "position '{text}': expected {} ranks separated by '/', found {}",
            shape.ranks,
            rows.len()
        );
    }
    for (row, letters) in rows.iter().enumerate() {
        let rank = shape.ranks - 1 - row;
        let name = rank + shape.first_rank;
        let mut file = 0;
        for c in letters.chars() {
            match c.to_digit(10).filter(|&d| d > 0) {
                Some(empty) => file += empty as usize,
                None if file < shape.files => {
                    if let Err(e) = place(file, rank, c) {
                        bail!("position '{text}': {e}");
                    }
                    file += 1;
                }
                None => file += 1,
            }
            if file > shape.files {
                bail!("position '{text}': rank {name} has more than {} squares", shape.files);
            }
        }
        if file != shape.files {
            bail!(
                "position '{text}': rank {name} has {}, not {}",
                counted(file, "square"),
                shape.files
            );
        }
    }
    let side_to_move = match fields.next() {
        Some(side) => match side.to_ascii_lowercase().as_str() {
            "w" | "r" => Side::First,
            "b" => Side::Second,
            _ => bail!("position '{text}': side to move '{side}' is not w, r or b"),
        },
        None => bail!("position '{text}' does not say who is to move (w or b)"),
    };
    Ok(BoardText {
        side_to_move,
        rest: fields.collect(),
    })
}

/// Writes a placement: `letter(file, rank)` is the letter of the piece on a square, `None` for
/// an empty one.
pub fn format_placement(shape: Shape, letter: impl Fn(usize, usize) -> Option<char>) -> String {
    let mut out = String::new();
    for rank in (0..shape.ranks).rev() {
        let mut empty = 0;
        for file in 0..shape.files {
            match letter(file, rank) {
                None => empty += 1,
                Some(c) => {
                    if empty > 0 {
                        out.push_str(&empty.to_string());
                        empty = 0;
                    }
                    out.push(c);
                }
            }
        }
        if empty > 0 {
            out.push_str(&empty.to_string());
        }
        if rank > 0 {
            out.push('/');
        }
    }
    out
}

/// The letter of a piece: `first` (uppercase) for the first side, lowercase for the second.
pub fn side_letter(side: Side, first: char) -> char {
    match side {
        Side::First => first,
        Side::Second => first.to_ascii_lowercase(),
    }
}

/// The side a piece letter belongs to (uppercase: the first side).
pub fn letter_side(letter: char) -> Side {
    if letter.is_ascii_uppercase() {
        Side::First
    } else {
        Side::Second
    }
}

/// The letter of the side to move, `w` or `b`.
pub fn side_to_move_letter(side: Side) -> char {
    match side {
        Side::First => 'w',
        Side::Second => 'b',
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHAPE: Shape = Shape {
        files: 3,
        ranks: 2,
        first_rank: 1,
    };

    #[test]
    fn reads_what_it_writes() {
        let mut pieces = Vec::new();
        let text = parse("1k1/K2 b x", SHAPE, |file, rank, c| {
            pieces.push((file, rank, c));
            Ok(())
        })
        .unwrap();
        assert_eq!(pieces, [(1, 1, 'k'), (0, 0, 'K')]);
        assert_eq!((text.side_to_move, text.rest), (Side::Second, vec!["x"]));
        let letter = |file, rank| pieces.iter().find(|p| (p.0, p.1) == (file, rank)).map(|p| p.2);
        assert_eq!(format_placement(SHAPE, letter), "1k1/K2");
    }

    #[test]
    fn rejects_bad_text_in_one_line() {
        for bad in ["", "3/3/3 w", "4/3 w", "2/3 w", "K3/3 w", "3/3", "3/3 x", "X2/3 w"] {
            let err = parse(bad, SHAPE, |_, _, c| {
                if c == 'X' {
                    bail!("'X' is no piece")
                }
                Ok(())
            })
            .unwrap_err();
            assert!(!format!("{err:#}").contains('\n'), "{bad}: {err:#}");
        }
    }
}
