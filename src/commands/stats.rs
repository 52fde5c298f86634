//! `egtb stats`: legal positions, wins, draws, losses and the longest DTM per side to move.

use anyhow::Result;
use serde_json::json;

use super::Env;
use crate::counted::{counted, grouped, plies};
use crate::games::Game;
use crate::generate::open_table_for_pass;
use crate::material::Side;
use crate::report::stats::{oriented, rounds, ruled_lost, stats_json};
use crate::rulings::{self, Reason};
use crate::stats::{DtmCounts, file_stats, file_stats_by_dtm};
use crate::value::Value;

/// Prints the statistics of a table, with the positions at each DTM when `by_dtm`; sides as the
/// user wrote the material.
pub fn run<G: Game>(env: &Env, material: &str, by_dtm: bool) -> Result<()> {
    let rules = env.rules::<G>()?;
    let (material, flipped) = G::parse_material(material)?;
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
            Some(longest) => {
                let value = Value::of_dtm(longest.dtm);
                // A side whose only losses are positions already over (KNNvK's mates).
                let result = match value.moves() {
                    Some(moves) if longest.dtm > 0 => format!("{} in {moves}", value.outcome()),
                    _ => "lost already".to_string(),
                };
                format!(
                    "{result} ({}), {}  e.g. {}",
                    plies(longest.dtm),
                    counted(longest.positions, "position"),
                    longest.position
                )
            }
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
    if counts.iter().all(|side| side.iter().all(|&n| n == 0)) {
        println!("Positions by DTM: none, no position is won or lost.");
        return;
    }
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
