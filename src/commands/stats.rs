//! `egtb stats`: legal positions, wins, draws, losses and the longest DTM per side to move.

use anyhow::Result;
use serde_json::json;

use super::{Env, parse_material, rules_json};
use crate::games::{Game, IndexSpace};
use crate::generate::open_table;
use crate::material::Side;
use crate::rulings::{self, rulings_path};
use crate::solver::rounds::{Reason, Ruling};
use crate::stats::{SideStats, table_stats};

/// Prints the statistics of a table; sides as the user wrote the material.
pub fn run<G: Game>(env: &Env, material: &str) -> Result<()> {
    let rules = env.rules::<G>()?;
    let (material, flipped) = parse_material::<G>(material)?;
    let (index, table) = open_table::<G>(&env.tables, &material, rules)?;
    let stats = table_stats(&index, table.entries());
    let path = rulings_path(&table.path);
    let rulings = if path.exists() {
        rulings::read(&path, &material.to_string())?
    } else {
        Vec::new()
    };
    // Per side to move (of the table): positions ruled lost, by reason, and a first example.
    let ruled = |side: Side, reason: Reason| {
        let of = |r: &&Ruling| r.reason == reason && index.side_to_move(r.state) == side;
        let count: u64 = rulings
            .iter()
            .filter(of)
            .map(|r| u64::from(index.weight(r.state)))
            .sum();
        let example = rulings.iter().find(of).and_then(|r| {
            let position = index.decode(r.state)?;
            Some(G::format_position(&if flipped { G::flip(&position) } else { position }))
        });
        (count, example)
    };
    let rounds = rulings.iter().map(|r| r.order).max().unwrap_or(0);
    // An example position per side, in the orientation the user asked for.
    let example = |s: &SideStats| {
        s.longest.and_then(|(plies, state)| {
            let position = index.decode(state)?;
            let position = if flipped { G::flip(&position) } else { position };
            Some((plies, G::format_position(&position)))
        })
    };
    let shown = if flipped { material.flipped() } else { material };
    let sides: Vec<(Side, &SideStats)> = Side::BOTH
        .into_iter()
        .map(|side| (side, &stats[if flipped { side.other() } else { side }.index()]))
        .collect();
    if env.json {
        let mut by_side = serde_json::Map::new();
        for (side, s) in &sides {
            let longest = example(s).map(|(plies, fen)| json!({ "plies": plies, "fen": fen }));
            let table_side = if flipped { side.other() } else { *side };
            let mut ruled_json = serde_json::Map::new();
            for reason in [Reason::PerpetualCheck, Reason::PerpetualChase] {
                let (count, example) = ruled(table_side, reason);
                ruled_json.insert(reason.name().to_string(), json!({ "count": count, "example": example }));
            }
            by_side.insert(
                G::ID.side_names()[side.index()].to_string(),
                json!({ "legal": s.legal, "win": s.win, "draw": s.draw, "loss": s.loss, "longest": longest, "ruled_lost": ruled_json }),
            );
        }
        let out = json!({
            "game": G::ID.name(),
            "material": shown.to_string(),
            "rules": rules_json(rules),
            "rounds": rounds,
            "sides": by_side,
        });
        println!("{out}");
        return Ok(());
    }
    println!("{} {shown}  ({})", G::ID, table.path.display());
    println!(
        "{:<14}{:>14}{:>14}{:>14}{:>14}  longest",
        "to move", "legal", "win", "draw", "loss"
    );
    for (side, s) in &sides {
        let longest = match example(s) {
            Some((plies, fen)) => format!("{plies} plies  {fen}"),
            None => "-".to_string(),
        };
        let name = G::ID.side_names()[side.index()];
        println!(
            "{name:<14}{:>14}{:>14}{:>14}{:>14}  {longest}",
            s.legal, s.win, s.draw, s.loss
        );
    }
    if !rulings.is_empty() {
        println!("Lost by the rules' rulings ({rounds} rounds), positions counted in the losses above:");
        for (side, _) in &sides {
            let table_side = if flipped { side.other() } else { *side };
            for reason in [Reason::PerpetualCheck, Reason::PerpetualChase] {
                if let (count @ 1.., Some(fen)) = ruled(table_side, reason) {
                    let name = G::ID.side_names()[side.index()];
                    println!("  {name} to move, {}: {count}  e.g. {fen}", reason.name());
                }
            }
        }
    }
    Ok(())
}
