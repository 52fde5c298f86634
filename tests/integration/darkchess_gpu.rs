//! Dark chess tables solved on the GPU equal the CPU solver's, byte for byte, under every rule
//! option: cannons (jumping or stepping), stalemates (lost or drawn), groups of identical pieces
//! (some with symmetric anchors) and captures of a side's last piece.

use std::path::Path;

use egtb::games::darkchess::{DarkChess, DarkChessRules};
use egtb::games::{Game, IndexSpace, Rules};
use egtb::material::GameId;
use egtb::solver::gpu::{Gpu, GpuOptions};
use egtb::table::{Table, table_path};

use crate::support::darkchess::material;
use crate::support::{gpu_equals_cpu, succeeds, temp_dir};

/// Legal positions in the tables of `materials` whose side to move has pieces and no move.
fn stalemated(materials: &[&str], rules: DarkChessRules) -> usize {
    let mut count = 0;
    for name in materials {
        let index = DarkChess::index(&material(name), rules).unwrap();
        count += (0..index.states())
            .filter_map(|s| index.decode(s))
            .filter(|p| DarkChess::legal_moves(p, rules).is_empty())
            .count();
    }
    count
}

/// Compares GPU and CPU on `materials` and checks that they hold stalemated positions.
fn gpu_equals_cpu_with_stalemates(materials: &[&str], rules: DarkChessRules) {
    if gpu_equals_cpu::<DarkChess>(materials, rules, &GpuOptions::default()).is_some() {
        assert!(stalemated(materials, rules) > 0, "no stalemate covered");
    }
}

const SMALL: [&str; 6] = ["KvK", "KPvK", "KCvK", "KvPP", "CCvP", "EEvK"];

#[test]
fn small_tables_match_the_cpu_under_the_default_rules() {
    gpu_equals_cpu_with_stalemates(&SMALL, DarkChessRules::default());
}

#[test]
fn small_tables_match_the_cpu_with_stepping_cannons_and_drawn_stalemates() {
    gpu_equals_cpu_with_stalemates(&SMALL, DarkChessRules::STEP_DRAW);
}

/// Four pieces: a jumping cannon against two soldiers, and two identical pairs, whose anchor
/// (the advisors) can stand symmetrically, so that steps of the soldiers need a symmetry too.
#[test]
fn four_pieces_match_the_cpu_under_both_rule_sets() {
    for rules in [DarkChessRules::default(), DarkChessRules::STEP_DRAW] {
        gpu_equals_cpu::<DarkChess>(&["CvCP", "KCvPP", "AAvPP"], rules, &GpuOptions::default());
    }
}

#[test]
fn a_table_split_over_many_bindings_matches_the_cpu() {
    let options = GpuOptions {
        split_bytes: Some(8192),
        ..GpuOptions::default()
    };
    gpu_equals_cpu::<DarkChess>(&["KCvP"], DarkChessRules::default(), &options);
}

/// The command line: `generate --backend gpu` writes the entries `--backend cpu` writes, and
/// `verify` finds both solvers identical, with non-default rule options.
#[test]
fn the_command_line_generates_and_verifies_on_the_gpu() {
    if Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let run = |dir: &Path, args: &[&str]| {
        let rules = ["--cannon", "step", "--stalemate", "draw"];
        succeeds(dir, &[&rules[..], args].concat())
    };
    let (gpu_dir, cpu_dir) = (temp_dir("cli-gpu"), temp_dir("cli-cpu"));
    // Each table built names the backend that built it.
    for (dir, backend) in [(&gpu_dir, "gpu"), (&cpu_dir, "cpu")] {
        let summary = run(dir, &["generate", "darkchess", "KCvP", "--backend", backend, "--json"]);
        let summary: serde_json::Value = serde_json::from_str(&summary).unwrap();
        let tables = summary["tables"].as_array().unwrap();
        assert!(tables.len() > 1, "{summary}");
        assert!(tables.iter().all(|t| t["backend"] == backend), "{summary}");
    }
    let entries = |dir: &Path| {
        let path = table_path(
            dir,
            GameId::DarkChess,
            &material("KCvP"),
            &DarkChessRules::STEP_DRAW.options(),
        );
        Table::open_unchecked(&path).unwrap().load().unwrap().entries().to_vec()
    };
    let gpu_entries = entries(&gpu_dir);
    assert_eq!(gpu_entries.len(), 2 * 8 * 32 * 32);
    assert_eq!(gpu_entries, entries(&cpu_dir));
    let verified = run(&gpu_dir, &["verify", "darkchess", "KCvP"]);
    assert!(verified.contains("identical, byte for byte"), "{verified}");
}
