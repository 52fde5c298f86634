//! Worked dark chess positions whose answers follow from the rules by hand.

use egtb::games::Game;
use egtb::games::darkchess::{DarkChess, DarkChessRules, Stalemate};
use egtb::generate::Generator;
use egtb::solver::Silent;
use egtb::value::Value;

use crate::support::darkchess::{JUMP, position, probe};
use crate::support::{fails, succeeds, temp_dir};

fn moves(text: &str, rules: DarkChessRules) -> Vec<String> {
    let p = position(text);
    let mut names: Vec<String> = DarkChess::legal_moves(&p, rules)
        .into_iter()
        .map(|m| DarkChess::move_names(&p, m).1)
        .collect();
    names.sort();
    names
}

fn value(text: &str, rules: DarkChessRules) -> Value {
    let dir = temp_dir("rules");
    let mut generator = Generator::<DarkChess>::new(&dir, rules, &Silent);
    probe(&mut generator, rules, &position(text))
}

#[test]
fn cannon_jumps_over_one_screen_to_take_the_last_piece() {
    // Red cannon a1, red king a2 as the screen, black king a4 beyond an empty a3.
    let text = "k7/8/K7/C7 w";
    assert!(moves(text, JUMP).contains(&"a1a4".to_string()));
    assert_eq!(value(text, JUMP), Value::Win(1));
    // Stepping cannons do not jump, and nothing else reaches a4 in one move.
    assert!(!moves(text, DarkChessRules::STEP_DRAW).contains(&"a1a4".to_string()));
    assert_ne!(value(text, DarkChessRules::STEP_DRAW), Value::Win(1));
    // Along a rank too, over an enemy screen, whatever the victim's rank.
    assert!(moves("8/8/8/C1pk4 w", JUMP).contains(&"a1d1".to_string()));
}

#[test]
fn cannon_without_a_screen_or_behind_two_screens_cannot_take_the_king() {
    // No screen: the cannon only steps.
    assert_eq!(moves("k7/8/8/C7 w", JUMP), ["a1a2", "a1b1"]);
    // Two screens: the jump lands on the second piece (a soldier), never on the king.
    let two = moves("k7/p7/p7/C7 w", JUMP);
    assert_eq!(two, ["a1a3", "a1b1"]);
    // A jumping cannon does not take the adjacent soldier: it uses it as the screen.
    assert_eq!(moves("8/8/8/Cp5k w", JUMP), ["a1a2", "a1h1"]);
    // A stepping cannon takes an adjacent soldier or cannon, not a higher piece.
    assert_eq!(moves("8/8/8/Cp5k w", DarkChessRules::STEP_DRAW), ["a1a2", "a1b1"]);
    assert_eq!(moves("8/8/8/Cn5k w", DarkChessRules::STEP_DRAW), ["a1a2"]);
}

#[test]
fn king_cannot_take_a_soldier_but_the_soldier_takes_the_king() {
    let rules = DarkChessRules::STEP_DRAW;
    // The red king's only move is away: b1 holds a soldier it may not take.
    assert_eq!(moves("8/8/8/Kp6 w", rules), ["a1a2"]);
    // Black to move: the soldier takes the last red piece.
    assert!(moves("8/8/8/Kp6 b", rules).contains(&"b1a1".to_string()));
    assert_eq!(value("8/8/8/Kp6 b", rules), Value::Win(1));
    // A king takes an advisor (lower rank), an advisor never takes the king.
    assert!(moves("8/8/8/Ka5k w", rules).contains(&"a1b1".to_string()));
    assert_eq!(moves("8/8/8/kA5K w", rules), ["b1b2", "b1c1", "h1g1", "h1h2"]);
}

#[test]
fn a_blocked_side_loses_or_draws_by_the_stalemate_option() {
    // The red soldier on a1 is walled in by black elephants, which it may not take.
    let text = "8/8/e7/Pe6 w";
    assert!(moves(text, JUMP).is_empty());
    let blocked = position(text);
    assert_eq!(DarkChess::game_over(&blocked, JUMP), Some(Value::LOST));
    assert_eq!(
        DarkChess::game_over(&blocked, DarkChessRules::STEP_DRAW),
        Some(Value::Draw)
    );
    assert_eq!(value(text, JUMP), Value::LOST);
    assert_eq!(value(text, DarkChessRules::STEP_DRAW), Value::Draw);
}

#[test]
fn walling_in_the_last_piece_wins_only_when_stalemate_loses() {
    // Jumping cannons on b1 and a3 cannot take the soldier on a1 (no screen), nor can it take
    // them; after a3a2 the soldier has no move.
    let text = "8/C7/8/pC6 w";
    assert!(moves(text, JUMP).contains(&"a3a2".to_string()));
    assert!(moves("8/8/C7/pC6 b", JUMP).is_empty());
    assert_eq!(value(text, JUMP), Value::Win(1));
    let draw = DarkChessRules {
        stalemate: Stalemate::Draw,
        ..JUMP
    };
    assert_ne!(value(text, draw), Value::Win(1));
}

/// The position where a side's last piece has just been taken is the game's last: it reads
/// as any other, lost for the side to move, and needs no table.
#[test]
fn a_side_without_pieces_has_lost() {
    let p = position("8/8/8/1k6 w");
    assert_eq!(DarkChess::game_over(&p, JUMP), Some(Value::LOST));
    assert_eq!(DarkChess::game_over(&p, DarkChessRules::STEP_DRAW), Some(Value::LOST));
    assert!(DarkChess::legal_moves(&p, JUMP).is_empty());
    let dir = temp_dir("rules-no-pieces");
    let query: serde_json::Value = serde_json::from_str(&succeeds(&dir, &["--json", "query", "8/8/8/1k6 w"])).unwrap();
    assert_eq!(query["value"]["dtm"], 0, "{query}");
    assert_eq!(query["ending"], "no_pieces", "{query}");
    let line = succeeds(&dir, &["line", "8/8/8/1k6 w"]);
    assert!(line.contains("Red has no pieces left."), "{line}");
    let error = fails(&dir, &["query", "8/8/8/1k6 b"]);
    assert!(error.contains("red has no pieces but is not to move"), "{error}");
}
