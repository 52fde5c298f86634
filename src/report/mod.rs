//! Answers in words and in JSON, the same from the command line and the server: a value for the
//! side to move ("White to move wins: mate in 12"), the ruling a result rests on, the rule
//! options, and a table's statistics as the user wrote its material ([`stats`]).

pub mod stats;

use serde_json::json;

use crate::counted::plies;
use crate::games::{Game, Rules};
use crate::material::{GameId, Side};
use crate::probe::RuledEnd;
use crate::value::Value;

/// A value in words for the side to move, for example "White to move wins: mate in 12".
pub fn verdict(game: GameId, side: Side, value: Value) -> String {
    let who = game.side_title(side);
    match (game, value, value.moves()) {
        (_, Value::Loss(0), _) => format!("{who} to move has lost: the game is over"),
        (GameId::DarkChess, _, _) => distance_verdict(game, side, value),
        (_, Value::Win(d), Some(n)) => format!("{who} to move wins: mate in {n} ({})", plies(d)),
        (_, Value::Loss(d), Some(n)) => format!("{who} to move loses: mated in {n} ({})", plies(d)),
        _ => format!("{who} to move: draw"),
    }
}

/// A value in words with its distance but not how the game ends, for example "Red to move
/// wins in 10 (19 plies)": dark chess, whose games end without mate, and results that end in a
/// ruling.
pub fn distance_verdict(game: GameId, side: Side, value: Value) -> String {
    let who = game.side_title(side);
    match (value, value.moves()) {
        (Value::Win(d), Some(n)) => format!("{who} to move wins in {n} ({})", plies(d)),
        (Value::Loss(d), Some(n)) => format!("{who} to move loses in {n} ({})", plies(d)),
        _ => format!("{who} to move: draw"),
    }
}

/// A position's value in words, naming the ruling it rests on (`ruled`: the ruling its best line
/// ends in, [`Prober::ruled_end`](crate::Prober::ruled_end)): "Black to move has lost by the
/// rules: perpetual check (order 1)" where the ruling applies to the position itself.
pub fn headline<G: Game>(position: &G::Position, value: Value, ruled: Option<&RuledEnd<G::Position>>) -> String {
    let side = G::side_to_move(position);
    match ruled {
        Some(end) if end.position == *position => format!(
            "{} to move has lost by the rules: {} (order {})",
            G::ID.side_title(side),
            end.ruling.reason.name(),
            end.ruling.order
        ),
        Some(end) => format!(
            "{}, by the rules: {}",
            distance_verdict(G::ID, side, value),
            ruling_text::<G>(end)
        ),
        None => verdict(G::ID, side, value),
    }
}

/// A ruling a result rests on, in words: `Black loses: perpetual check (order 1), at` and the position.
pub fn ruling_text<G: Game>(end: &RuledEnd<G::Position>) -> String {
    format!(
        "{} loses: {} (order {}), at {}",
        G::ID.side_title(end.loser),
        end.ruling.reason.name(),
        end.ruling.order,
        G::format_position(&end.position)
    )
}

/// A ruling a result rests on, for JSON (`null` when none).
pub fn ruling_json<G: Game>(end: &Option<RuledEnd<G::Position>>) -> serde_json::Value {
    match end {
        Some(end) => json!({
            "loser": G::ID.side_name(end.loser),
            "reason": end.ruling.reason.name(),
            "order": end.ruling.order,
            "position": G::format_position(&end.position),
        }),
        None => serde_json::Value::Null,
    }
}

/// A value as JSON: outcome and DTM in plies (null for a draw).
pub fn value_json(value: Value) -> serde_json::Value {
    json!({ "outcome": value.outcome(), "dtm": value.dtm() })
}

/// Rule options as a JSON object.
pub fn rules_json<R: Rules>(rules: R) -> serde_json::Value {
    options_json(&rules.option_strings())
}

/// Rule options in words for a heading, each after a comma: ", rules=asian" (nothing for a
/// game without options).
pub fn rules_words<R: Rules>(rules: R) -> String {
    rules
        .option_strings()
        .iter()
        .map(|(key, value)| format!(", {key}={value}"))
        .collect()
}

/// Rule options as written in a table's header, as a JSON object: `{"cannon":"jump"}`.
pub fn options_json(options: &[(String, String)]) -> serde_json::Value {
    serde_json::Value::Object(options.iter().map(|(k, v)| (k.clone(), v.clone().into())).collect())
}
