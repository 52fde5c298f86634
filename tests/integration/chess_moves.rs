//! Legal moves, check, mate and move names against shakmaty (an independent implementation).

use std::collections::BTreeMap;

use egtb::games::Game;
use egtb::games::chess::{Chess, Position};
use egtb::value::Value;
use shakmaty::san::SanPlus;
use shakmaty::{CastlingMode, Position as _};

use crate::support::Rng;
use crate::support::chess::{material, oracle, random_position};

/// Moves by UCI with their SAN, from our generator and from shakmaty.
fn both_move_lists(position: &Position) -> (BTreeMap<String, String>, BTreeMap<String, String>) {
    let ours = Chess::legal_moves(position, Default::default())
        .into_iter()
        .map(|mv| {
            let (san, uci) = Chess::move_names(position, mv);
            (uci, san)
        })
        .collect();
    let reference = oracle(position);
    let theirs = reference
        .legal_moves()
        .into_iter()
        .map(|m| {
            (
                m.to_uci(CastlingMode::Standard).to_string(),
                SanPlus::from_move(reference.clone(), m).to_string(),
            )
        })
        .collect();
    (ours, theirs)
}

#[test]
fn legal_moves_and_names_match_shakmaty_on_random_positions() {
    let mut rng = Rng::new(1);
    let mut mates = 0;
    let mut stalemates = 0;
    for name in [
        "KvK", "KQvK", "KRvKB", "KBNvK", "KQvKR", "KRRvKR", "KQRvKB", "KNNvKQ", "KQQQvK", "KBBvKN", "KRvKNN",
    ] {
        let m = material(name);
        for _ in 0..3000 {
            let position = random_position(&mut rng, &m);
            let (ours, theirs) = both_move_lists(&position);
            assert_eq!(ours, theirs, "{}", Chess::format_position(&position));
            let reference = oracle(&position);
            assert_eq!(position.in_check(), reference.is_check());
            let over = Chess::game_over(&position, Default::default());
            let expected = if reference.is_checkmate() {
                mates += 1;
                Some(Value::LOST)
            } else if reference.is_stalemate() {
                stalemates += 1;
                Some(Value::Draw)
            } else {
                None
            };
            assert_eq!(over, expected, "{}", Chess::format_position(&position));
        }
    }
    assert!(mates > 0 && stalemates > 0, "{mates} mates, {stalemates} stalemates");
}

#[test]
fn san_disambiguates_by_file_rank_or_both() {
    let cases = [
        ("4k3/8/8/8/8/8/4K3/R6R w - - 0 1", "a1d1", "Rad1"),
        ("4k3/8/8/R7/8/8/8/R3K3 w - - 0 1", "a1a3", "R1a3"),
        ("8/7k/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "a1c3", "Qa1c3"),
        ("8/7k/8/8/8/Q7/8/Q1Q1K3 w - - 0 1", "c1c3", "Qcc3"),
        ("k7/8/1K6/8/8/8/8/7R w - - 0 1", "h1h8", "Rh8#"),
        ("k7/8/8/8/8/8/8/1R2K3 w - - 0 1", "b1b8", "Rb8+"),
        ("k7/1r6/8/8/8/8/8/1R2K3 w - - 0 1", "b1b7", "Rxb7"),
    ];
    for (fen, uci, san) in cases {
        let position = Chess::parse_position(fen).unwrap();
        let mv = Chess::legal_moves(&position, Default::default())
            .into_iter()
            .find(|&mv| Chess::move_names(&position, mv).1 == uci)
            .unwrap_or_else(|| panic!("{uci} is legal in {fen}"));
        assert_eq!(Chess::move_names(&position, mv).0, san, "{fen}");
    }
}
