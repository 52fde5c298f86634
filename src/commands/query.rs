//! `egtb query` and `egtb line`: a position's value, its moves' outcomes, the best-play line.

use anyhow::Result;
use serde_json::json;

use super::{Env, Palette, rules_json, side_title, value_json, verdict};
use crate::games::Game;
use crate::games::ending::{Ending, ending};
use crate::material::Side;
use crate::probe::{Prober, RuledEnd};
use crate::value::Value;

/// A position from the command line with its value and the ruling that value rests on, and
/// the prober that found them: where `query` and `line` start.
struct Probed<G: Game> {
    rules: G::Rules,
    position: G::Position,
    prober: Prober<G>,
    value: Value,
    ruled: Option<RuledEnd<G::Position>>,
}

impl<G: Game> Probed<G> {
    /// Reads the position and probes its value and ruling under the command line's rules.
    fn new(env: &Env, text: &str) -> Result<Probed<G>> {
        let rules = env.rules::<G>()?;
        let position = G::parse_position(text)?;
        let mut prober = Prober::<G>::new(&env.tables, rules);
        let value = prober.value(&position)?;
        let ruled = prober.ruled_end(&position)?;
        Ok(Probed {
            rules,
            position,
            prober,
            value,
            ruled,
        })
    }

    /// How the game ended at this position, in words, when it has.
    fn ending(&self) -> Option<String> {
        let who = side_title(G::ID, G::side_to_move(&self.position));
        Some(match ending::<G>(&self.position, self.rules)? {
            Ending::Checkmate => format!("Checkmate: {who} to move is in check and has no legal move."),
            Ending::Stalemate => format!("Stalemate: {who} to move has no legal move."),
            Ending::NoPieces => format!("{who} has no pieces left."),
        })
    }

    /// The value of the position in words, naming the ruling it rests on.
    fn headline(&self) -> String {
        let side = G::side_to_move(&self.position);
        match &self.ruled {
            Some(end) if end.position == self.position => format!(
                "{} to move has lost by the rules: {} (order {})",
                side_title(G::ID, side),
                end.ruling.reason.name(),
                end.ruling.order
            ),
            Some(end) => format!(
                "{}; by the rules: {}",
                verdict(G::ID, side, self.value),
                ruling_text::<G>(end)
            ),
            None => verdict(G::ID, side, self.value),
        }
    }
}

/// Prints the value of a position and every legal move with its outcome, best first.
pub fn query<G: Game>(env: &Env, text: &str) -> Result<()> {
    let mut probed = Probed::<G>::new(env, text)?;
    let moves = probed.prober.moves(&probed.position)?;
    let side = G::side_to_move(&probed.position);
    let fen = G::format_position(&probed.position);
    if env.json {
        let moves: Vec<_> = moves
            .iter()
            .map(|m| json!({ "move": m.name, "coords": m.coords, "outcome": m.value.outcome(), "dtm": m.value.dtm() }))
            .collect();
        let out = json!({
            "game": G::ID.name(),
            "rules": rules_json(probed.rules),
            "position": fen,
            "material": G::material_of(&probed.position).to_string(),
            "side_to_move": G::ID.side_name(side),
            "value": value_json(probed.value),
            "ruling": ruling_json::<G>(&probed.ruled),
            "moves": moves,
        });
        println!("{out}");
        return Ok(());
    }
    let palette = Palette::detect();
    println!("{fen}  ({} {})", G::ID, G::material_of(&probed.position));
    println!("{}", palette.paint(probed.value, &probed.headline()));
    if let Some(ending) = probed.ending() {
        println!("{ending}");
    }
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
    let mut probed = Probed::<G>::new(env, text)?;
    let line = probed.prober.line(&probed.position)?;
    let side = G::side_to_move(&probed.position);
    if env.json {
        let steps: Vec<_> = line
            .iter()
            .map(|(m, after)| json!({ "move": m.name, "coords": m.coords, "dtm_after": after.dtm() }))
            .collect();
        let out = json!({
            "game": G::ID.name(),
            "rules": rules_json(probed.rules),
            "position": G::format_position(&probed.position),
            "value": value_json(probed.value),
            "ruling": ruling_json::<G>(&probed.ruled),
            "line": steps,
        });
        println!("{out}");
        return Ok(());
    }
    println!("{}", probed.headline());
    if let Some(ending) = probed.ending() {
        println!("{ending}");
    } else if probed.value == Value::Draw {
        println!("No forced line: neither side can force the end of the game.");
    }
    for (ply, (m, after)) in line.iter().enumerate() {
        let (number, dots) = move_number(side, ply);
        println!(
            "{number:>3}{dots:<3} {:<8} {:<6} DTM {}",
            m.name,
            m.coords,
            after.dtm().unwrap_or(0)
        );
    }
    if let Some(end) = probed.ruled.as_ref().filter(|_| !line.is_empty()) {
        println!("{}", ruling_text::<G>(end));
    } else if line.last().is_some_and(|(_, after)| *after == Value::LOST) {
        println!("The game is over.");
    }
    Ok(())
}

/// The move number of ply `ply` (from 0) of a line that `starter` begins, and its dots, as a
/// game score numbers it: the first side's move opens a number ("1."), the second side's
/// continues it ("1...").
pub fn move_number(starter: Side, ply: usize) -> (usize, &'static str) {
    let ply = ply + usize::from(starter == Side::Second);
    (ply / 2 + 1, if ply.is_multiple_of(2) { "." } else { "..." })
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
            "loser": G::ID.side_name(end.loser),
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
