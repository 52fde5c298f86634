//! Dark chess tables solved on the GPU equal the CPU solver's, byte for byte, under every rule
//! option: cannons (jumping or stepping), stalemates (lost or drawn), groups of identical pieces
//! (some with symmetric anchors) and captures of a side's last piece.

mod darkchess_support;

use std::process::Command;

use darkchess_support::{fresh_dir, material};
use egtb::games::darkchess::gpu::DarkGpu;
use egtb::games::darkchess::index::DarkIndex;
use egtb::games::darkchess::{Cannon, DarkChess, DarkRules, Stalemate};
use egtb::games::{Game, IndexSpace, Rules};
use egtb::generate::Generator;
use egtb::material::GameId;
use egtb::solver::Silent;
use egtb::solver::gpu::{Gpu, GpuOptions};
use egtb::table::{Table, table_path};

/// The seed program's rules: stepping cannons, drawn stalemates.
const STEP_DRAW: DarkRules = DarkRules {
    cannon: Cannon::Step,
    stalemate: Stalemate::Draw,
};

/// Builds each material on the CPU (with what it needs), solves it again on the GPU from the
/// same smaller tables, and compares; returns how many stalemated positions the tables hold, so
/// that a test can check that it covered some (`usize::MAX` when skipped).
fn gpu_equals_cpu(materials: &[&str], rules: DarkRules, options: &GpuOptions) -> usize {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return usize::MAX;
    };
    let dir = fresh_dir("gpu");
    let mut generator = Generator::<DarkChess>::new(&dir, rules, &Silent);
    let mut stalemates = 0;
    for name in materials {
        let material = material(name);
        let cpu = generator.ensure(&material).unwrap().entries().to_vec();
        let index = DarkChess::index(&material, rules).unwrap();
        let gpu_rules = DarkGpu::new(&index, rules, generator.tables()).unwrap();
        let solution = gpu.solve(&gpu_rules, options, &Silent).unwrap();
        assert_eq!(solution.entries.len(), cpu.len(), "{name}");
        let differing = cpu.iter().zip(&solution.entries).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{name}: {differing} entries differ");
        stalemates += stalemated(&index, rules);
        eprintln!("{name}: {} states, {} layers", cpu.len(), solution.layers);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    stalemates
}

/// Legal positions of a table whose side to move has pieces and no move.
fn stalemated(index: &DarkIndex, rules: DarkRules) -> usize {
    (0..index.states())
        .filter_map(|s| index.decode(s))
        .filter(|p| DarkChess::legal_moves(p, rules).is_empty())
        .count()
}

const SMALL: [&str; 6] = ["KvK", "KPvK", "KCvK", "KvPP", "CCvP", "EEvK"];

#[test]
fn small_tables_match_the_cpu_under_the_default_rules() {
    let stalemates = gpu_equals_cpu(&SMALL, DarkRules::default(), &GpuOptions::default());
    assert!(stalemates > 0, "no stalemate covered");
}

#[test]
fn small_tables_match_the_cpu_with_stepping_cannons_and_drawn_stalemates() {
    let stalemates = gpu_equals_cpu(&SMALL, STEP_DRAW, &GpuOptions::default());
    assert!(stalemates > 0, "no stalemate covered");
}

/// Four pieces: a jumping cannon against two soldiers, and two identical pairs, whose anchor
/// (the advisors) can stand symmetrically, so that steps of the soldiers need a symmetry too.
#[test]
fn four_pieces_match_the_cpu_under_both_rule_sets() {
    for rules in [DarkRules::default(), STEP_DRAW] {
        gpu_equals_cpu(&["CvCP", "KCvPP", "AAvPP"], rules, &GpuOptions::default());
    }
}

#[test]
fn a_table_split_over_many_bindings_matches_the_cpu() {
    let options = GpuOptions {
        split_bytes: Some(8192),
        ..GpuOptions::default()
    };
    gpu_equals_cpu(&["KCvP"], DarkRules::default(), &options);
}

/// The command line: `generate --backend gpu` writes the entries `--backend cpu` writes, and
/// `verify` finds both solvers identical, with non-default rule options.
#[test]
fn the_command_line_generates_and_verifies_on_the_gpu() {
    if Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let run = |dir: &std::path::Path, args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_egtb"))
            .arg("--tables")
            .arg(dir)
            .args(["--cannon", "step", "--stalemate", "draw"])
            .args(args)
            .output()
            .expect("egtb runs");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout
    };
    let (gpu_dir, cpu_dir) = (fresh_dir("cli-gpu"), fresh_dir("cli-cpu"));
    run(&gpu_dir, &["generate", "darkchess", "KCvP", "--backend", "gpu"]);
    run(&cpu_dir, &["generate", "darkchess", "KCvP", "--backend", "cpu"]);
    let entries = |dir: &std::path::Path| {
        let path = table_path(dir, GameId::DarkChess, &material("KCvP"), &STEP_DRAW.options());
        Table::open_unchecked(&path).unwrap().load().unwrap().entries().to_vec()
    };
    let gpu_entries = entries(&gpu_dir);
    assert_eq!(gpu_entries.len(), 2 * 8 * 32 * 32);
    assert_eq!(gpu_entries, entries(&cpu_dir));
    let verified = run(&gpu_dir, &["verify", "darkchess", "KCvP"]);
    assert!(verified.contains("identical, byte for byte"), "{verified}");
    for dir in [gpu_dir, cpu_dir] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}
