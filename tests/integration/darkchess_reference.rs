//! Dark chess tables against the figures of an earlier dark chess generator (docs/reference.md)
//! and the KvK parity fact.

use egtb::games::Game;
use egtb::games::darkchess::board::{FILES, RANKS, square_name};
use egtb::games::darkchess::{Cannon, DarkChess, DarkChessRules, Stalemate};
use egtb::stats::{SideStats, table_stats};
use egtb::value::Value;

use crate::support::darkchess::{build, material, position, probe};

/// (win, loss, draw) for red to move and for black to move.
fn wld(name: &str, rules: DarkChessRules) -> [(u64, u64, u64); 2] {
    let (generator, _dir) = build(name, rules);
    let m = material(name);
    let index = DarkChess::index(&m, rules).unwrap();
    let entries = generator.tables().require(&m).unwrap().entries();
    table_stats(&index, &entries).map(|s: SideStats| (s.win, s.loss, s.draw))
}

#[test]
fn king_against_king_matches_the_earlier_generator() {
    assert_eq!(wld("KvK", DarkChessRules::STEP_DRAW), [(512, 480, 0), (512, 480, 0)]);
}

#[test]
fn king_and_soldier_against_king_matches_the_earlier_generator() {
    assert_eq!(
        wld("KPvK", DarkChessRules::STEP_DRAW),
        [(29760, 0, 0), (0, 28200, 1560)]
    );
}

/// Two lone kings: the side to move wins exactly when the kings' Manhattan distance is odd.
/// A king always has a move (at least two neighbours, one of them at most taken by the other
/// king, which it may capture), so no stalemate and no cannon ever matters: the fact holds
/// under all four rule sets.
#[test]
fn lone_kings_parity_decides_under_every_rule_set() {
    for cannon in [Cannon::Jump, Cannon::Step] {
        for stalemate in [Stalemate::Loss, Stalemate::Draw] {
            let rules = DarkChessRules { cannon, stalemate };
            let (mut generator, _dir) = build("KvK", rules);
            for red in 0..FILES * RANKS {
                for black in (0..FILES * RANKS).filter(|&b| b != red) {
                    let distance = (red / FILES).abs_diff(black / FILES) + (red % FILES).abs_diff(black % FILES);
                    for side in ["w", "b"] {
                        let text = kings(red, black, side);
                        let value = probe(&mut generator, rules, &position(&text));
                        assert_eq!(
                            matches!(value, Value::Win(_)),
                            distance % 2 == 1,
                            "{text} ({} {}) is {value}",
                            square_name(red),
                            square_name(black)
                        );
                        assert_ne!(value, Value::Draw, "{text}");
                    }
                }
            }
        }
    }
}

/// A position with a red king and a black king.
fn kings(red: usize, black: usize, side: &str) -> String {
    let mut rows = Vec::new();
    for rank in (0..RANKS).rev() {
        let row: String = (0..FILES)
            .map(|file| match rank * FILES + file {
                s if s == red => 'K',
                s if s == black => 'k',
                _ => '1',
            })
            .collect();
        rows.push(row);
    }
    format!("{} {side}", rows.join("/"))
}
