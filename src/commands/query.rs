//! `egtb query` and `egtb line`: a position's value, its moves' outcomes, the best-play line.

use anyhow::Result;
use serde_json::json;

use super::{Env, Palette, rules_json, side_title, value_json, verdict};
use crate::games::Game;
use crate::probe::{Prober, RuledEnd};
use crate::value::Value;

/// Prints the value of a position and every legal move with its outcome, best first.
pub fn query<G: Game>(env: &Env, text: &str) -> Result<()> {
    let rules = env.rules::<G>()?;
    let position = G::parse_position(text)?;
    let mut prober = Prober::<G>::new(&env.tables, rules);
    let value = prober.value(&position)?;
    let moves = prober.moves(&position)?;
    let ruled = prober.ruled_end(&position)?;
    let side = G::side_to_move(&position);
    let fen = G::format_position(&position);
    if env.json {
        let moves: Vec<_> = moves
            .iter()
            .map(|m| json!({ "move": m.name, "coords": m.coords, "outcome": m.value.outcome(), "dtm": m.value.dtm() }))
            .collect();
        let out = json!({
            "game": G::ID.name(),
            "rules": rules_json(rules),
            "position": fen,
            "material": G::material_of(&position).to_string(),
            "side_to_move": G::ID.side_names()[side.index()],
            "value": value_json(value),
            "ruling": ruling_json::<G>(&ruled),
            "moves": moves,
        });
        println!("{out}");
        return Ok(());
    }
    let palette = Palette::detect();
    println!("{fen}  ({} {})", G::ID, G::material_of(&position));
    println!("{}", palette.paint(value, &headline::<G>(&position, value, &ruled)));
    if !moves.is_empty() {
        println!();
        let width = moves.iter().map(|m| m.name.len()).max().unwrap_or(0);
        for m in &moves {
            let line = format!("  {:<width$}  {:<6}  {}", m.name, m.coords, describe(m.value));
            println!("{}", palette.paint(m.value, &line));
        }
    }
    Ok(())
}

/// Prints the best-play line from a position to the end, one move a line with its DTM.
pub fn line<G: Game>(env: &Env, text: &str) -> Result<()> {
    let rules = env.rules::<G>()?;
    let position = G::parse_position(text)?;
    let mut prober = Prober::<G>::new(&env.tables, rules);
    let value = prober.value(&position)?;
    let line = prober.line(&position)?;
    let ruled = prober.ruled_end(&position)?;
    let side = G::side_to_move(&position);
    if env.json {
        let steps: Vec<_> = line
            .iter()
            .map(|(m, after)| json!({ "move": m.name, "coords": m.coords, "dtm_after": after.dtm() }))
            .collect();
        let out = json!({
            "game": G::ID.name(),
            "rules": rules_json(rules),
            "position": G::format_position(&position),
            "value": value_json(value),
            "ruling": ruling_json::<G>(&ruled),
            "line": steps,
        });
        println!("{out}");
        return Ok(());
    }
    println!("{}", headline::<G>(&position, value, &ruled));
    if value == Value::Draw {
        println!("No forced line: neither side can force the end of the game.");
    }
    for (ply, (m, after)) in line.iter().enumerate() {
        let mover = if ply.is_multiple_of(2) { side } else { side.other() };
        let number = ply / 2 + 1;
        let dots = if mover == side { "." } else { "..." };
        println!(
            "{number:>3}{dots:<3} {:<8} {:<6} DTM {}",
            m.name,
            m.coords,
            after.dtm().unwrap_or(0)
        );
    }
    if let Some(end) = ruled.as_ref().filter(|_| !line.is_empty()) {
        println!("{}", ruling_text::<G>(end));
    } else if line.last().is_some_and(|(_, after)| *after == Value::LOST) {
        println!("The game is over.");
    }
    Ok(())
}

/// The value of a position in words, naming the ruling it rests on.
fn headline<G: Game>(position: &G::Position, value: Value, ruled: &Option<RuledEnd<G::Position>>) -> String {
    let side = G::side_to_move(position);
    match ruled {
        Some(end) if end.position == *position => format!(
            "{} to move has lost by the rules: {} (order {})",
            side_title(G::ID, side),
            end.ruling.reason.name(),
            end.ruling.order
        ),
        Some(end) => format!(
            "{}; by the rules: {}",
            verdict(G::ID, side, value),
            ruling_text::<G>(end)
        ),
        None => verdict(G::ID, side, value),
    }
}

/// A ruling a result rests on, in words: "Black loses: perpetual check (order 1), at <position>".
fn ruling_text<G: Game>(end: &RuledEnd<G::Position>) -> String {
    format!(
        "{} loses: {} (order {}), at {}",
        side_title(G::ID, end.loser),
        end.ruling.reason.name(),
        end.ruling.order,
        G::format_position(&end.position)
    )
}

/// A ruling a result rests on, for JSON (`null` when none).
fn ruling_json<G: Game>(end: &Option<RuledEnd<G::Position>>) -> serde_json::Value {
    match end {
        Some(end) => json!({
            "loser": G::ID.side_names()[end.loser.index()],
            "reason": end.ruling.reason.name(),
            "order": end.ruling.order,
            "position": G::format_position(&end.position),
        }),
        None => serde_json::Value::Null,
    }
}

/// A move's outcome for the mover, in words.
fn describe(value: Value) -> String {
    match value {
        Value::Win(d) => format!("win   in {:>3} (DTM {d})", d.div_ceil(2)),
        Value::Draw => "draw".to_string(),
        Value::Loss(d) => format!("loss  in {:>3} (DTM {d})", d / 2),
    }
}
