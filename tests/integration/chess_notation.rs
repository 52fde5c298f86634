//! FEN reading and writing: round trips, and one clear error (never a panic) per bad input.

use egtb::games::chess::Chess;
use egtb::games::{Clocks, Game};
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

/// The clocks are read, written back and run on: a capture or a pawn's move resets the halfmove
/// clock, black's move ends a move.
#[test]
fn clocks_are_kept_and_run_on() {
    let fen = "n3k3/8/8/8/8/8/4P3/R3K3 w - - 12 40";
    let (position, clocks) = Chess::parse_position_with_clocks(fen).unwrap();
    assert_eq!(
        clocks,
        Clocks {
            halfmove: 12,
            fullmove: 40
        }
    );
    assert_eq!(Chess::format_position_with_clocks(&position, clocks), fen);
    let start = |text| Chess::parse_position_with_clocks(text).unwrap().1;
    assert_eq!(start("n3k3/8/8/8/8/8/4P3/R3K3 w"), Clocks::START);
    assert_eq!(
        start("n3k3/8/8/8/8/8/4P3/R3K3 w - - 3"),
        Clocks {
            halfmove: 3,
            fullmove: 1
        }
    );
    assert_eq!(
        start("n3k3/8/8/8/8/8/4P3/R3K3 w - - 3 0"),
        Clocks {
            halfmove: 3,
            fullmove: 1
        }
    );
    let resets = |name| {
        let [mv] = Chess::moves_named(&position, name, Default::default())[..] else {
            panic!("{name} names one move");
        };
        Chess::resets_clock(&position, mv)
    };
    assert_eq!(
        ["Rxa8", "e4", "e3", "Ra2", "Kd1"].map(resets),
        [true, true, true, false, false]
    );
}

#[test]
fn bad_fens_give_one_clear_error_each() {
    let cases = [
        ("", "is empty"),
        ("8/8/8/4k3/8/8/8/R3K3", "does not say who is to move"),
        ("8/8/8/4k3/8/8/8/R3K3 w - - 0 1 extra", "fields"),
        ("8/8/8/4k3/8/8/R3K3 w", "ranks"),
        ("8/8/8/4k3/8/8/8/R3K3/8 w", "ranks"),
        ("8/8/8/4k3/8/8/8/R3K4 w", "more than 8 squares"),
        ("8/8/8/4k3/8/8/8/R3K2 w", "rank 1 has 7 squares, not 8"),
        ("8/8/8/4k3/8/8/8/R3K3R w", "more than 8 squares"),
        ("8/8/8/4k3/8/8/8/R3X3 w", "'X' is no piece letter"),
        ("9/8/8/4k3/8/8/8/R3K3 w", "rank 8 has more than 8 squares"),
        (
            "0/8/8/4k3/8/8/8/R3K3 w",
            "'0' is no piece letter (KQRBNP, lower case for black)",
        ),
        ("8/8/8/4k3/8/8/8/R3K3 x", "side to move 'x' is not w or b"),
        // The shared board text takes `r` and upper case for xiangqi and dark chess; chess not.
        ("8/8/8/4k3/8/8/8/R3K3 r", "side to move 'r' is not w or b"),
        ("8/8/8/4k3/8/8/8/R3K3 W - - 0 1", "side to move 'W' is not w or b"),
        ("8/8/8/4k3/8/8/8/R3K3 w KQ", "have no castling): write '-'"),
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
        // Before d7-d5 the bishop on f8 gave check to the king on a3, black to move.
        (
            "5b2/8/8/3pP3/8/K7/8/7k w - d6 0 1",
            "en passant square d6: no double step can have passed it, as white would have been in check before it",
        ),
        ("8/8/8/8/8/8/8/R3K3 w", "black must have exactly one king, found 0"),
        ("8/8/8/4k3/8/8/8/R3KK2 w", "white must have exactly one king, found 2"),
        ("8/8/8/4k3/8/8/8/RRRQQK2 w", "material KQQRRRvK has 7 pieces"),
        // Named as on the board, not as its table would be (KQQQvKRRR).
        ("qqq5/8/8/4k3/8/8/8/RRRK4 w", "material KRRRvKQQQ has 8 pieces"),
        ("8/8/8/8/8/8/3k4/R3K3 w", "adjacent"),
        ("8/8/8/4k3/8/8/8/4K2r b", "white is in check"),
        ("4k3/8/8/8/8/8/8/K3R3 w", "black is in check"),
    ];
    for (fen, message) in cases {
        let error = Chess::parse_position(fen)
            .err()
            .unwrap_or_else(|| panic!("'{fen}' is rejected"));
        let error = format!("{error:#}");
        assert!(error.contains(message), "'{fen}': {error}");
        assert!(
            error.starts_with(&format!("position '{fen}'")),
            "names the position: {error}"
        );
        assert!(!error.contains('\n'), "'{fen}': one line");
    }
}

/// A move is read as people type it: SAN or UCI, with or without check marks and a promotion's
/// `=`, coordinates in either case or with a dash, piece letters in either case; a name that
/// leaves out what tells moves apart names each move it fits.
#[test]
fn typed_moves_are_read_in_every_spelling() {
    let promote = Chess::parse_position("1n6/2P5/8/8/8/8/k7/7K w").unwrap();
    let named = |position, typed| {
        let moves = Chess::moves_named(position, typed, Default::default());
        moves
            .into_iter()
            .map(|mv| Chess::move_names(position, mv).1)
            .collect::<Vec<_>>()
    };
    for (typed, uci) in [
        ("c8=Q", "c7c8q"),
        ("c8Q", "c7c8q"),
        ("c8q", "c7c8q"),
        ("c8=N+", "c7c8n"),
        ("cxb8N", "c7b8n"),
        ("cxb8=R", "c7b8r"),
        ("c7c8b", "c7c8b"),
        ("C7-C8B", "c7c8b"),
        ("Kg2", "h1g2"),
        ("kg2", "h1g2"),
        ("h1-g2", "h1g2"),
    ] {
        assert_eq!(named(&promote, typed), [uci], "{typed}");
    }
    for unnamed in ["Kb3", "Qc8", "", "c6"] {
        assert!(named(&promote, unnamed).is_empty(), "{unnamed}");
    }
    // A promotion without its piece, or a piece's move without which piece moves, names every
    // move it fits.
    for promotion in ["c8", "c7c8", "C7-C8", "cxb8"] {
        assert_eq!(named(&promote, promotion).len(), 4, "{promotion}");
    }
    let knights = Chess::parse_position("4k3/8/8/8/8/5N2/8/1N2K3 w").unwrap();
    assert_eq!(named(&knights, "Nd2"), ["b1d2", "f3d2"]);
    assert_eq!(named(&knights, "nd2"), ["b1d2", "f3d2"]);
    assert_eq!(named(&knights, "Nbd2"), ["b1d2"]);
    // A capture typed without its `x`, or a pawn's capture-promotion without its piece, where a
    // bishop takes on the same square: the pawn's four moves, not the bishop's.
    let takes = Chess::parse_position("4k3/8/8/8/8/5N2/3n4/1N5K w").unwrap();
    for typed in ["Nd2", "Nxd2", "nxd2"] {
        assert_eq!(named(&takes, typed), ["b1d2", "f3d2"], "{typed}");
    }
    assert_eq!(named(&takes, "Nbd2"), ["b1d2"]);
    let promotions = Chess::parse_position("2r1k3/1P6/4B3/8/8/8/8/4K3 w").unwrap();
    assert_eq!(named(&promotions, "bxc8").len(), 4);
    assert!(named(&promotions, "bxc8").iter().all(|uci| uci.starts_with("b7c8")));
    assert_eq!(named(&promotions, "Bxc8"), ["e6c8"]);
    // `bxc4` and `Bxc4` are two moves: each is read as written, and `BXC4` as neither; `bxc4`
    // is the bishop's move only where the pawn has none.
    let both = Chess::parse_position("4k3/8/8/8/2p5/1P6/8/B3K3 w").unwrap();
    assert_eq!(named(&both, "bxc4"), ["b3c4"]);
    assert!(named(&both, "Bxc4").is_empty(), "the bishop on a1 does not reach c4");
    let both = Chess::parse_position("4k3/8/8/8/2p5/1P1B4/8/4K3 w").unwrap();
    assert_eq!(named(&both, "bxc4"), ["b3c4"]);
    assert_eq!(named(&both, "Bxc4"), ["d3c4"]);
    assert!(named(&both, "BXC4").is_empty());
    let bishop = Chess::parse_position("4k3/8/8/8/2p5/3B4/8/4K3 w").unwrap();
    assert_eq!(named(&bishop, "bxc4"), ["d3c4"]);
}
