//! `egtb stats`: legal positions, wins, draws, losses and the longest DTM per side to move.

use anyhow::Result;
use serde_json::json;

use super::{Env, parse_material, rules_json};
use crate::games::{Game, IndexSpace};
use crate::generate::open_table;
use crate::material::{Material, Side};
use crate::stats::{SideStats, table_stats};
use crate::value::Entry;

/// Prints the statistics of a table; sides as the user wrote the material.
pub fn run<G: Game>(env: &Env, material: &str) -> Result<()> {
    let rules = env.rules::<G>()?;
    let (material, flipped) = parse_material::<G>(material)?;
    let (index, table) = open_table::<G>(&env.tables, &material, rules)?;
    let table = table.load()?;
    if env.json {
        println!("{}", stats_json::<G>(&index, table.entries(), rules, &material, flipped));
        return Ok(());
    }
    let (shown, sides) = oriented::<G>(&index, table.entries(), &material, flipped);
    println!("{} {shown}  ({})", G::ID, table.path.display());
    println!(
        "{:<14}{:>14}{:>14}{:>14}{:>14}  longest",
        "to move", "legal", "win", "draw", "loss"
    );
    for (side, s, example) in &sides {
        let longest = match example {
            Some((plies, fen)) => format!("{plies} plies  {fen}"),
            None => "-".to_string(),
        };
        let name = G::ID.side_names()[side.index()];
        println!(
            "{name:<14}{:>14}{:>14}{:>14}{:>14}  {longest}",
            s.legal, s.win, s.draw, s.loss
        );
    }
    Ok(())
}

/// The statistics of a canonical material's table as `egtb stats --json` prints them, sides as
/// the user wrote the material (`flipped` when that is the canonical material's other way round).
pub fn stats_json<G: Game>(
    index: &G::Index,
    entries: &[Entry],
    rules: G::Rules,
    material: &Material,
    flipped: bool,
) -> serde_json::Value {
    let (shown, sides) = oriented::<G>(index, entries, material, flipped);
    let mut by_side = serde_json::Map::new();
    for (side, s, example) in sides {
        let longest = example.map(|(plies, fen)| json!({ "plies": plies, "fen": fen }));
        by_side.insert(
            G::ID.side_names()[side.index()].to_string(),
            json!({ "legal": s.legal, "win": s.win, "draw": s.draw, "loss": s.loss, "longest": longest }),
        );
    }
    json!({
        "game": G::ID.name(),
        "material": shown.to_string(),
        "rules": rules_json(rules),
        "sides": by_side,
    })
}

/// One side to move's counts and an example of its longest win or loss (DTM, position).
type SideReport = (Side, SideStats, Option<(u16, String)>);

/// The material as the user wrote it and each side's statistics in that orientation.
fn oriented<G: Game>(
    index: &G::Index,
    entries: &[Entry],
    material: &Material,
    flipped: bool,
) -> (Material, Vec<SideReport>) {
    let stats = table_stats(index, entries);
    let example = |s: &SideStats| {
        s.longest.and_then(|(plies, state)| {
            let position = index.decode(state)?;
            let position = if flipped { G::flip(&position) } else { position };
            Some((plies, G::format_position(&position)))
        })
    };
    let shown = if flipped { material.flipped() } else { *material };
    let sides = Side::BOTH
        .into_iter()
        .map(|side| {
            let s = stats[if flipped { side.other() } else { side }.index()];
            (side, s, example(&s))
        })
        .collect();
    (shown, sides)
}
