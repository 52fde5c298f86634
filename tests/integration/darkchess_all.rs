//! Every dark chess material of up to four pieces builds, under the default rules and under
//! stepping cannons with drawn stalemates; every table holds legal positions for both sides to
//! move, and a sample of every table's values follows from its moves (an audit of every 32nd
//! slot, which reads the tables as they lie on disk).

use std::time::Instant;

use egtb::audit::Auditor;
use egtb::games::Game;
use egtb::games::darkchess::{DarkChess, DarkChessRules};
use egtb::generate::Generator;
use egtb::solver::Silent;
use egtb::stats::table_stats;

use crate::support::temp_dir;

/// The audit looks at one slot in this many: every slot would take nearly three times as long as
/// building the tables.
const AUDIT_EVERY: u64 = 32;

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
        let audit = Auditor::<DarkChess>::open(&dir, m, rules)
            .unwrap()
            .run(AUDIT_EVERY, &Silent);
        assert!(audit.positions > 0, "{m}: {audit:?}");
        assert!(audit.is_consistent(), "{m}: {:?}", audit.first_faults);
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
