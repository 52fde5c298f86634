//! A table's statistics ([`crate::stats`]) as the user wrote its material: the sides in that
//! orientation, each with its longest win or loss and an example position, and the positions
//! lost by rulings; for `egtb stats` and the server, in words or in JSON.

use serde_json::json;

use super::rules_json;
use crate::games::{Game, IndexSpace};
use crate::material::{Material, Side};
use crate::rulings::{Reason, Ruling};
use crate::stats::SideStats;
use crate::value::Value;

/// The longest DTM of a side to move, how many positions have it, and the first of them.
pub struct LongestReport {
    /// The DTM in plies.
    pub dtm: u16,
    /// Full-board positions with this DTM.
    pub positions: u64,
    /// The first of them, as the user wrote the material.
    pub position: String,
}

/// One side to move's counts and its longest win or loss.
pub type SideReport = (Side, SideStats, Option<LongestReport>);

/// The material as the user wrote it (`flipped`: the canonical material's other way round) and
/// each side's statistics in that orientation.
pub fn oriented<G: Game>(
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
                position: G::format_position(&position),
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

/// The rounds of rulings that ruled something.
pub fn rounds(rulings: &[Ruling]) -> u16 {
    rulings.iter().map(|r| r.order).max().unwrap_or(0)
}

/// The full-board positions with `side` to move (as the user wrote the material) ruled lost for
/// `reason`, and a first example in that orientation.
pub fn ruled_lost<G: Game>(
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

/// The statistics of a canonical material's table ([`crate::stats::file_stats`]) as
/// `egtb stats --json` prints them, sides as the user wrote the material (`flipped` when that
/// is the canonical material's other way round).
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
            json!({ "outcome": Value::of_dtm(l.dtm).outcome(), "dtm": l.dtm, "positions": l.positions, "position": l.position })
        });
        let mut ruled = serde_json::Map::new();
        for reason in [Reason::PerpetualCheck, Reason::PerpetualChase] {
            let (count, example) = ruled_lost::<G>(index, rulings, side, reason, flipped);
            ruled.insert(reason.key().to_string(), json!({ "count": count, "position": example }));
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
