//! `egtb play` in the terminal: the table against itself to the end, moves read in either
//! notation from piped input, illegal ones explained, `--json` events, and bad arguments
//! refused with one line.

use egtb::games::chess::Chess;
use egtb::games::xiangqi::Xiangqi;
use egtb::games::{Clocks, Game};
use egtb::probe::Prober;
use egtb::value::Value;
use serde_json::{Value as Json, json};

use crate::support::served::{BEFORE_PERPETUAL_CHECK, PERPETUAL_CHECK, tables};
use crate::support::{egtb_reading, failed, succeeded};

/// Runs `egtb play` on the test tables with `input` piped in; checks that it succeeded and
/// returns its output.
fn plays(args: &[&str], input: &str) -> String {
    succeeded(egtb_reading(tables(), args, input), args)
}

#[test]
fn play_auto_plays_the_best_line_to_the_end() {
    let fen = "8/8/8/4k3/8/8/8/R3K3 w - - 0 1";
    let out = plays(&["play", fen, "--auto"], "");
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    let line = prober.line(&Chess::parse_position(fen).unwrap()).unwrap();
    let played: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split(" plays ").nth(1))
        .filter_map(|rest| rest.split_whitespace().next())
        .collect();
    let best: Vec<&str> = line.iter().map(|(m, _)| m.name.as_str()).collect();
    assert_eq!(played, best);
    assert!(out.trim_end().ends_with("Game over: checkmate, White wins"), "{out}");

    // Under the Asian rules the game ends at the position lost by a ruling, as the line does.
    let out = plays(&["--rules", "asian", "play", BEFORE_PERPETUAL_CHECK, "--auto"], "");
    let played: Vec<&str> = out.lines().filter(|l| l.contains(" plays ")).collect();
    assert_eq!(played, ["Red plays R8.9 (b0a0)"], "{out}");
    assert!(
        out.trim_end()
            .ends_with("Game over: lost by the rules (perpetual check, order 1), Red wins"),
        "{out}"
    );
}

#[test]
fn play_reads_moves_in_either_notation_and_explains_illegal_ones() {
    // Xiangqi, red to move: a WXF move, then nonsense, then an ICCS move, then the input ends.
    let fen = "3k5/9/9/9/9/9/9/9/4R4/5K3 w - - 5 30";
    let position = Xiangqi::parse_position(fen).unwrap();
    let mut prober = Prober::<Xiangqi>::new(tables(), Default::default());
    let first = prober
        .moves(&position)
        .unwrap()
        .into_iter()
        .find(|m| m.value.dtm().is_some_and(|d| d > 1))
        .unwrap();
    let after = Xiangqi::play(&position, first.mv);
    let reply = prober.moves(&after).unwrap().remove(0);
    let mine = Xiangqi::play(&after, reply.mv);
    let second = prober.moves(&mine).unwrap().remove(0);
    let input = format!("{}\nZ9+9\n{}\n", first.name, second.coords);
    let out = plays(&["play", fen, "--side", "red"], &input);
    assert!(out.contains("'Z9+9' is no legal move here. Legal moves:"), "{out}");
    assert!(
        out.contains(&format!("Black plays {} ({})", reply.name, reply.coords)),
        "{out}"
    );
    // The position after the second move is shown, its clocks run on from the given ones; then
    // the game is over there, or black answers and the input ends, as the table says.
    let last = Xiangqi::play(&mine, second.mv);
    let clocks = Clocks {
        halfmove: 8,
        fullmove: 31,
    };
    assert!(
        out.contains(&Xiangqi::format_position_with_clocks(&last, clocks)),
        "{out}"
    );
    let end = out.trim_end().lines().last().unwrap();
    match prober.value(&last).unwrap() {
        Value::Loss(0) => assert!(end.starts_with("Game over: "), "{out}"),
        _ => assert_eq!(end, "Game left unfinished.", "{out}"),
    }
    assert!(
        out.contains("1 ") && out.contains(" a  b  c"),
        "the board is drawn: {out}"
    );
    // With each side's WXF file numbers, counted from its right: black's above, red's below.
    assert!(
        out.contains("\n    1  2  3  4  5  6  7  8  9 \n 9 ")
            && out.contains(" h  i \n    9  8  7  6  5  4  3  2  1 \n"),
        "the files are numbered: {out}"
    );

    // A promotion typed without its piece asks which of the four it is instead of refusing it.
    let pawn = "8/4P3/8/8/8/2k5/8/K7 w - - 0 1";
    let out = plays(
        &["play", pawn],
        "e7e8
e8
e8=N
",
    );
    let ask = "names 4 moves: say which, e8=Q (e7e8q), e8=R (e7e8r), e8=B (e7e8b) or e8=N (e7e8n)";
    for typed in ["e7e8", "e8"] {
        assert!(out.contains(&format!("'{typed}' {ask}")), "{out}");
    }
    assert!(out.contains("4N3/8/8/8/8/2k5/8/K7 b - - 0 1"), "{out}");

    // Each game's prompt says how its moves are typed: dark chess by coordinates alone.
    for (fen, how) in [
        (
            "8/8/8/4k3/8/8/8/R3K3 w - - 0 1",
            "Type moves in either notation (for example Qb7 or d5b7)",
        ),
        (
            "k7/8/8/6AK w",
            "Type moves as coordinates, from and to (for example b2b3)",
        ),
    ] {
        let out = plays(&["play", fen], "quit\n");
        assert!(out.contains(how), "{out}");
        let out = plays(&["play", fen], "QUIT\n");
        assert!(!out.contains("legal move"), "quit in any case: {out}");
    }
}

/// `play --json` tells the game as one object a line: the start, each position with its value
/// as the prober gives it, each move with who made it, each input refused with its reason and the
/// moves it may mean, and the end with the winner.
#[test]
fn play_in_json_tells_the_game_as_events() {
    let fen = "8/4P3/8/8/8/2k5/8/K7 w - - 0 1";
    let out = plays(&["play", fen, "--json"], "e8\ne8=Q\n");
    let events: Vec<Json> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let kinds: Vec<&str> = events.iter().map(|e| e["event"].as_str().unwrap()).collect();
    let expected = [
        "start", "position", "rejected", "move", "position", "move", "position", "end",
    ];
    assert_eq!(kinds, expected, "{out}");
    assert_eq!(events[0]["you"], json!("white"));
    let mut prober = Prober::<Chess>::new(tables(), Default::default());
    let mut position = Chess::parse_position(fen).unwrap();
    let value = prober.value(&position).unwrap();
    assert_eq!(events[1]["value"], json!({ "outcome": "win", "dtm": value.dtm() }));
    assert_eq!(events[1]["position"], json!(fen));
    assert!(
        events[2]["error"]
            .as_str()
            .unwrap()
            .contains("names 4 moves: say which"),
        "{out}"
    );
    assert_eq!(events[2]["input"], json!("e8"));
    let meant: Vec<&str> = events[2]["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["coords"].as_str().unwrap())
        .collect();
    assert_eq!(meant.len(), 4, "{out}");
    assert!(meant.iter().all(|c| c.starts_with("e7e8")), "{out}");
    assert_eq!(
        events[3],
        json!({"event": "move", "by": "you", "side": "white", "move": "e8=Q", "coords": "e7e8q"})
    );
    // Then the table's best answer and the person's turn again, until the input ends.
    let queen = prober
        .moves(&position)
        .unwrap()
        .into_iter()
        .find(|m| m.name == "e8=Q")
        .unwrap();
    position = Chess::play(&position, queen.mv);
    assert_eq!(events[4]["position"], json!(Chess::format_position(&position)));
    let reply = prober.moves(&position).unwrap().remove(0);
    assert_eq!(events[5]["by"], json!("table"));
    assert_eq!(events[5]["move"], json!(reply.name));
    let last = events.last().unwrap();
    assert_eq!(last["event"], json!("end"));
    assert_eq!(last["reason"], json!("unfinished"));

    // The table against itself, to the mate: the end names the winner.
    let out = plays(&["play", "8/8/8/4k3/8/8/8/R3K3 w", "--auto", "--json"], "");
    let end: Json = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(end["reason"], json!("checkmate"));
    assert_eq!(end["winner"], json!("white"));
    assert_eq!(end["text"], json!("Game over: checkmate, White wins"));
    assert!(out.lines().all(|l| l.starts_with('{')), "{out}");

    // Under the Asian rules a ruling ends the game, and the position says which.
    let args = ["--rules", "asian", "play", BEFORE_PERPETUAL_CHECK, "--auto", "--json"];
    let out = plays(&args, "");
    let events: Vec<Json> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let end = events.last().unwrap();
    assert_eq!(
        (&end["reason"], &end["winner"]),
        (&json!("ruling"), &json!("red")),
        "{out}"
    );
    let ruled = &events[events.len() - 2];
    // One quiet move on from the start's clocks.
    assert_eq!(ruled["position"], json!(PERPETUAL_CHECK.replace(" 0 1", " 1 1")));
    assert_eq!(ruled["ruling"]["reason"], json!("perpetual check"), "{out}");

    // A game stopped by a missing table ends with an event too, naming the command that builds
    // it, and fails.
    let args = ["play", "8/8/8/4k3/8/8/8/RQ2K3 w", "--auto", "--json"];
    let out = egtb_reading(tables(), &args, "");
    assert!(!out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let end: Json = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(
        (&end["event"], &end["reason"]),
        (&json!("end"), &json!("error")),
        "{stdout}"
    );
    assert!(
        end["text"].as_str().unwrap().contains("egtb generate chess KQRvK"),
        "{end}"
    );
}

#[test]
fn play_refuses_bad_arguments_with_one_line() {
    for args in [
        ["play", "8/8/8/4k3/8/8/8/R3K3 w", "--side", "green"].as_slice(),
        &["play", "8/8/8/4k3/8/8/8/RR2K3 w"],
    ] {
        failed(egtb_reading(tables(), args, ""), args);
    }
}
