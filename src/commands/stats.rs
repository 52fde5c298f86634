//! `egtb stats`: legal positions, wins, draws, losses and the longest DTM per side to move.

use anyhow::Result;
use serde_json::json;

use super::{Env, parse_material, rules_json};
use crate::counted::{counted, grouped, plies};
use crate::games::{Game, IndexSpace};
use crate::generate::open_table_for_pass;
use crate::material::{Material, Side};
use crate::rulings::{self, Reason, Ruling};
use crate::stats::{DtmCounts, SideStats, file_stats, file_stats_by_dtm};
use crate::value::Value;

/// Prints the statistics of a table, with the positions at each DTM when `by_dtm`; sides as the
/// user wrote the material.
pub fn run<G: Game>(env: &Env, material: &str, by_dtm: bool) -> Result<()> {
    let rules = env.rules::<G>()?;
    let (material, flipped) = parse_material::<G>(material)?;
    let (index, table) = open_table_for_pass::<G>(&env.tables, &material, rules)?;
    let (stats, counts) = if by_dtm {
        let (stats, [first, second]) = file_stats_by_dtm(&index, &table)?;
        (stats, Some(if flipped { [second, first] } else { [first, second] }))
    } else {
        (file_stats(&index, &table)?, None)
    };
    let rulings = rulings::of(&table.path, &table.header)?;
    if env.json {
        let mut json = stats_json::<G>(&index, stats, &rulings, rules, &material, flipped);
        if let Some(counts) = &counts {
            for side in Side::BOTH {
                let rows: Vec<[u64; 2]> = nonzero(&counts[side.index()]).collect();
                json["sides"][G::ID.side_name(side)]["by_dtm"] = json!(rows);
            }
        }
        println!("{json}");
        return Ok(());
    }
    let (shown, sides) = oriented::<G>(&index, stats, &material, flipped);
    println!("{} {shown}  ({})", G::ID, table.path.display());
    println!(
        "{:<14}{:>14}{:>14}{:>14}{:>14}  longest",
        "to move", "legal", "win", "draw", "loss"
    );
    for (side, s, example) in &sides {
        let longest = match example {
            Some(longest) => format!(
                "{} in {}, {}  e.g. {}",
                Value::of_dtm(longest.dtm).outcome(),
                plies(longest.dtm),
                counted(longest.positions, "position"),
                longest.fen
            ),
            None => "-".to_string(),
        };
        let name = G::ID.side_name(*side);
        println!(
            "{name:<14}{:>14}{:>14}{:>14}{:>14}  {longest}",
            grouped(s.legal),
            grouped(s.win),
            grouped(s.draw),
            grouped(s.loss)
        );
    }
    if let Some(counts) = &counts {
        print_dtm_counts::<G>(counts, G::may_rule(&material, rules));
    }
    if !rulings.is_empty() {
        let rounds = rounds(&rulings);
        println!(
            "Lost by the rules' rulings ({}), positions counted in the losses above:",
            counted(rounds, "round")
        );
        for (side, _, _) in &sides {
            for reason in [Reason::PerpetualCheck, Reason::PerpetualChase] {
                if let (count @ 1.., Some(fen)) = ruled_lost::<G>(&index, &rulings, *side, reason, flipped) {
                    let name = G::ID.side_name(*side);
                    println!("  {name} to move, {}: {}  e.g. {fen}", reason.name(), grouped(count));
                }
            }
        }
    }
    Ok(())
}

/// The `[plies, positions]` rows of a side's counts that hold positions.
fn nonzero(counts: &[u64]) -> impl Iterator<Item = [u64; 2]> + '_ {
    (0u64..)
        .zip(counts.iter().copied())
        .filter(|&(_, positions)| positions > 0)
        .map(|(plies, positions)| [plies, positions])
}

/// The positions at each DTM, a row per DTM that some side has, a column per side; `ruled`:
/// whether positions lost by a ruling are among those at 0.
fn print_dtm_counts<G: Game>(counts: &DtmCounts, ruled: bool) {
    let [first, second] = G::ID.side_names();
    let ended = if ruled {
        "no move left, or lost by a ruling"
    } else {
        "no move left"
    };
    println!("Positions by DTM (wins at odd plies, losses at even; 0: {ended}):");
    println!("{:>14}{first:>14}{second:>14}", "plies");
    let longest = counts[0].len().max(counts[1].len());
    for plies in 0..longest {
        let [a, b] = [0, 1].map(|side| counts[side].get(plies).copied().unwrap_or(0));
        if a + b > 0 {
            println!("{plies:>14}{:>14}{:>14}", grouped(a), grouped(b));
        }
    }
}

/// The statistics of a canonical material's table ([`file_stats`]) as `egtb stats --json` prints
/// them, sides as the user wrote the material (`flipped` when that is the canonical material's
/// other way round).
pub fn stats_json<G: Game>(
    index: &G::Index,
    stats: [SideStats; 2],
    rulings: &[Ruling],
    rules: G::Rules,
    material: &Material,
    flipped: bool,
) -> serde_json::Value {
    let (shown, sides) = oriented::<G>(index, stats, material, flipped);
    let mut by_side = serde_json::Map::new();
    for (side, s, example) in sides {
        let longest = example.map(|l| {
            json!({ "outcome": Value::of_dtm(l.dtm).outcome(), "plies": l.dtm, "positions": l.positions, "fen": l.fen })
        });
        let mut ruled = serde_json::Map::new();
        for reason in [Reason::PerpetualCheck, Reason::PerpetualChase] {
            let (count, example) = ruled_lost::<G>(index, rulings, side, reason, flipped);
            ruled.insert(reason.key().to_string(), json!({ "count": count, "example": example }));
        }
        by_side.insert(
            G::ID.side_name(side).to_string(),
            json!({ "legal": s.legal, "win": s.win, "draw": s.draw, "loss": s.loss, "longest": longest, "ruled_lost": ruled }),
        );
    }
    json!({
        "game": G::ID.name(),
        "material": shown.to_string(),
        "rules": rules_json(rules),
        "rounds": rounds(rulings),
        "sides": by_side,
    })
}

/// The rounds of rulings that ruled something.
fn rounds(rulings: &[Ruling]) -> u16 {
    rulings.iter().map(|r| r.order).max().unwrap_or(0)
}

/// The full-board positions with `side` to move (as the user wrote the material) ruled lost for
/// `reason`, and a first example in that orientation.
fn ruled_lost<G: Game>(
    index: &G::Index,
    rulings: &[Ruling],
    side: Side,
    reason: Reason,
    flipped: bool,
) -> (u64, Option<String>) {
    let table_side = if flipped { side.other() } else { side };
    let of = |r: &&Ruling| r.reason == reason && index.side_to_move(r.state) == table_side;
    let count = rulings
        .iter()
        .filter(of)
        .map(|r| u64::from(index.weight(r.state)))
        .sum();
    let example = rulings.iter().find(of).and_then(|r| {
        let position = index.decode(r.state)?;
        Some(G::format_position(&if flipped { G::flip(&position) } else { position }))
    });
    (count, example)
}

/// One side to move's counts and its longest win or loss.
type SideReport = (Side, SideStats, Option<LongestReport>);

/// The longest DTM of a side to move, how many positions have it, and the first of them.
struct LongestReport {
    dtm: u16,
    positions: u64,
    fen: String,
}

/// The material as the user wrote it and each side's statistics in that orientation.
fn oriented<G: Game>(
    index: &G::Index,
    stats: [SideStats; 2],
    material: &Material,
    flipped: bool,
) -> (Material, Vec<SideReport>) {
    let example = |s: &SideStats| {
        s.longest.and_then(|longest| {
            let position = index.decode(longest.state)?;
            let position = if flipped { G::flip(&position) } else { position };
            Some(LongestReport {
                dtm: longest.dtm,
                positions: longest.positions,
                fen: G::format_position(&position),
            })
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
