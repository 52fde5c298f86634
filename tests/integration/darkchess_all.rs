//! Every dark chess material of up to four pieces builds, under the default rules and under
//! stepping cannons with drawn stalemates, and every table holds legal positions for both sides
//! to move.

use std::time::Instant;

use egtb::games::Game;
use egtb::games::darkchess::{DarkChess, DarkChessRules};
use egtb::generate::Generator;
use egtb::solver::Silent;
use egtb::stats::table_stats;

use crate::support::temp_dir;

fn build_all(rules: DarkChessRules) {
    let dir = temp_dir("all");
    let mut generator = Generator::<DarkChess>::new(&dir, rules, &Silent);
    let start = Instant::now();
    let materials = DarkChess::materials(4);
    for m in &materials {
        generator.ensure(m).unwrap();
    }
    let elapsed = start.elapsed();
    let states: u64 = generator.built.iter().map(|b| b.states).sum();
    println!(
        "{rules:?}: {} materials, {states} states in {elapsed:.2?}",
        materials.len()
    );
    for m in &materials {
        let index = DarkChess::index(m, rules).unwrap();
        let stats = table_stats(&index, &generator.tables().require(m).unwrap().entries());
        for s in stats {
            assert!(s.legal > 0, "{m}");
        }
    }
}

#[test]
fn every_four_piece_table_builds_under_the_default_rules() {
    build_all(DarkChessRules::default());
}

#[test]
fn every_four_piece_table_builds_with_stepping_cannons_and_drawn_stalemates() {
    build_all(DarkChessRules::STEP_DRAW);
}
