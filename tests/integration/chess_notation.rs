//! FEN reading and writing: round trips, and one clear error (never a panic) per bad input.

use egtb::games::Game;
use egtb::games::chess::Chess;
use egtb::material::Side;

use crate::support::Rng;
use crate::support::chess::{material, random_position};

#[test]
fn fen_round_trips_and_optional_fields() {
    let position = Chess::parse_position("8/8/8/4k3/8/8/8/R3K3 w - - 0 1").unwrap();
    assert_eq!(Chess::format_position(&position), "8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
    assert_eq!(Chess::parse_position("8/8/8/4k3/8/8/8/R3K3 w").unwrap(), position);
    assert_eq!(Chess::parse_position("8/8/8/4k3/8/8/8/R3K3 w - -").unwrap(), position);
    assert_eq!(Chess::side_to_move(&position), Side::First);
    assert_eq!(Chess::material_of(&position).to_string(), "KRvK");
    let flipped = Chess::flip(&position);
    assert_eq!(Chess::format_position(&flipped), "r3k3/8/8/8/4K3/8/8/8 b - - 0 1");
    let mut rng = Rng::new(11);
    for name in ["KQvKR", "KBNvK", "KRRvKR", "KNvKNN"] {
        for _ in 0..500 {
            let p = random_position(&mut rng, &material(name));
            assert_eq!(Chess::parse_position(&Chess::format_position(&p)).unwrap(), p);
        }
    }
}

#[test]
fn bad_fens_give_one_clear_error_each() {
    let cases = [
        ("", "fields"),
        ("8/8/8/4k3/8/8/8/R3K3", "has 1 field,"),
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1 extra", "fields"),
        ("8/8/8/4k3/8/8/R3K3 w", "ranks"),
        ("8/8/8/4k3/8/8/8/R3K3/8 w", "ranks"),
        ("8/8/8/4k3/8/8/8/R3K4 w", "more than 8 squares"),
        ("8/8/8/4k3/8/8/8/R3K2 w", "fewer than 8 squares"),
        ("8/8/8/4k3/8/8/8/R3K3R w", "more than 8 squares"),
        ("8/8/8/4k3/8/8/8/R3X3 w", "'X' is no piece letter"),
        (
            "9/8/8/4k3/8/8/8/R3K3 w",
            "'9' is no piece letter (KQRBNP, lower case for black) nor 1 to 8 empty squares",
        ),
        ("8/8/8/4k3/8/8/8/R3K3 x", "side to move"),
        ("8/8/8/4k3/8/8/8/R3K3 w KQ", "castling"),
        ("8/8/8/4k3/8/8/8/R3K3 w - e3", "en passant"),
        ("8/8/8/4k3/8/8/8/R3K3 w - - x 1", "halfmove clock"),
        (
            "8/8/8/4k3/8/8/8/R3K3 w - - -1 1",
            "halfmove clock '-1' is not a whole number from 0",
        ),
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 y", "fullmove number"),
        ("8/8/8/4k3/8/8/8/P3K3 w", "first or last rank"),
        ("p7/8/8/4k3/8/8/8/4K3 w", "first or last rank"),
        ("4k3/8/8/3pP3/8/8/8/4K3 w - c6", "no pawn"),
        ("8/8/8/8/8/8/8/R3K3 w", "black must have exactly one king, found 0"),
        ("8/8/8/4k3/8/8/8/R3KK2 w", "white must have exactly one king, found 2"),
        ("8/8/8/4k3/8/8/8/RRRQQK2 w", "7 pieces"),
        ("8/8/8/8/8/8/3k4/R3K3 w", "adjacent"),
        ("8/8/8/4k3/8/8/8/4K2r b", "white is in check"),
        ("4k3/8/8/8/8/8/8/K3R3 w", "black is in check"),
    ];
    for (fen, message) in cases {
        let error = Chess::parse_position(fen)
            .err()
            .unwrap_or_else(|| panic!("'{fen}' is rejected"))
            .to_string();
        assert!(error.contains(message), "'{fen}': {error}");
        assert!(!error.contains('\n'), "'{fen}': one line");
    }
}
