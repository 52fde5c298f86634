//! Chess tables solved on the GPU equal the CPU solver's, byte for byte.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

use egtb::games::chess::Chess;
use egtb::games::{Game, IndexSpace};
use egtb::generate::{Generator, expected_header};
use egtb::material::{GameId, Material};
use egtb::solver::gpu::{Gpu, GpuOptions};
use egtb::solver::{Progress, Silent};
use egtb::table::{LoadedTable, TableSet};
use egtb::value::{BROKEN, DRAW, Entry, Value};
use rayon::prelude::*;

use crate::support::chess::has_pawns;
use crate::support::{gpu_equals_cpu, temp_dir};

/// Compares GPU and CPU on each material under the default rules.
fn gpu_equals_cpu_chess(materials: &[impl AsRef<str>], options: &GpuOptions) {
    let names: Vec<&str> = materials.iter().map(AsRef::as_ref).collect();
    gpu_equals_cpu::<Chess>(&names, Default::default(), options);
}

/// The names of the chess materials of up to `pieces` pieces that `keep` keeps.
fn materials(pieces: usize, keep: impl Fn(&Material) -> bool) -> Vec<String> {
    Chess::materials(pieces)
        .iter()
        .filter(|m| keep(m))
        .map(|m| m.to_string())
        .collect()
}

#[test]
fn every_material_of_up_to_three_pieces_matches_the_cpu() {
    let materials = materials(3, |m| !has_pawns(m));
    assert_eq!(materials.len(), 5, "{materials:?}");
    gpu_equals_cpu_chess(&materials, &GpuOptions::default());
}

#[test]
fn kbnvk_matches_the_cpu_split_over_many_bindings() {
    let options = GpuOptions {
        split_bytes: Some(1_500_000),
        ..GpuOptions::default()
    };
    gpu_equals_cpu_chess(&["KBNvK"], &options);
}

/// With the sweep a GPU runs (a thread per vector of eight entries, many vectors a thread).
#[test]
fn kqvkr_matches_the_cpu() {
    let options = GpuOptions {
        sweep_run: Some(1),
        ..GpuOptions::default()
    };
    gpu_equals_cpu_chess(&["KQvKR"], &options);
}

/// Each phase's name and total, as a solver reports them.
#[derive(Default)]
struct Phases(Mutex<Vec<(String, u64)>>);

impl Progress for Phases {
    fn phase(&self, name: &str, total: u64) {
        self.0.lock().unwrap().push((name.to_string(), total));
    }
    fn advance(&self, _: u64) {}
}

/// The layers' progress counts up to the states that hold a position, the broken states being
/// counted by the initialisation window by window, as on the CPU.
#[test]
fn the_layers_count_up_to_the_states_that_hold_a_position() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let dir = temp_dir("gpu-phases");
    let rules = Default::default();
    let mut generator = Generator::<Chess>::new(&dir, rules, &Silent);
    let material = Material::parse(GameId::Chess, "KRvK").unwrap();
    let entries = generator.ensure(&material).unwrap().entries().to_vec();
    let holding = entries.iter().filter(|&&e| e != BROKEN).count() as u64;
    let index = Chess::index(&material, rules).unwrap();
    let gpu_rules = Chess::gpu_rules(&index, rules, generator.tables()).unwrap();
    let options = GpuOptions {
        window_states: Some(1024),
        ..GpuOptions::default()
    };
    let phases = Phases::default();
    gpu.solve(gpu_rules.as_ref(), &options, &phases).unwrap();
    let expected = [("moves".to_string(), index.states()), ("layers".to_string(), holding)];
    assert_eq!(phases.0.into_inner().unwrap(), expected);
    assert!(holding < index.states(), "KRvK has broken slots");
}

/// A five-piece material sized for CI's two cores: three identical sliders (36.8M states), so
/// blocking among the men and their combinadic group are both on the path.
#[test]
fn kbbbvk_five_pieces_matches_the_cpu() {
    gpu_equals_cpu_chess(&["KBBBvK"], &GpuOptions::default());
}

/// Every pawnless four-piece material (KQvKR and KBNvK again among them).
#[test]
fn every_material_of_four_pieces_matches_the_cpu() {
    let materials = materials(4, |m| m.pieces() == 4 && !has_pawns(m));
    assert_eq!(materials.len(), 20, "{materials:?}");
    gpu_equals_cpu_chess(&materials, &GpuOptions::default());
}

/// En passant on both sides, with the split forced small.
#[test]
fn kpvkp_matches_the_cpu_split_over_many_bindings() {
    let options = GpuOptions {
        split_bytes: Some(4_000_000),
        ..GpuOptions::default()
    };
    gpu_equals_cpu_chess(&["KPvKP"], &options);
}

/// Every other pawn material of up to four pieces: pushes, double steps, promotions and
/// capture-promotions into smaller tables, pawns on either side.
#[test]
fn every_pawn_material_of_up_to_four_pieces_matches_the_cpu() {
    let materials = materials(4, |m| has_pawns(m) && m.to_string() != "KPvKP");
    assert_eq!(materials.len(), 10, "{materials:?}");
    gpu_equals_cpu_chess(&materials, &GpuOptions::default());
}

/// A five-piece pawn table, KPPPvK (62.5M states: three identical pawns, double steps and
/// promotions from every file). Its promotions reach four 5-piece tables that would need 8.8
/// billion states of smaller tables built first, so both solvers read the same stand-ins
/// instead: tables of the right sizes whose entries are a hash of their state (wins, losses and
/// draws of up to 40 plies). A wrong exit index on either side then shows as a differing entry.
#[test]
fn kpppvk_five_pieces_with_pawns_matches_the_cpu_on_stand_in_exits() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let material = Material::parse(GameId::Chess, "KPPPvK").unwrap();
    let rules = Default::default();
    let mut tables = TableSet::default();
    for (seed, sub) in Chess::sub_materials(&material).into_iter().enumerate() {
        let index = Chess::index(&sub, rules).unwrap();
        let entries = (0..index.states())
            .into_par_iter()
            .map(|state| stand_in_entry(seed as u64, state))
            .collect();
        let header = expected_header::<Chess>(&sub, rules, &index);
        // Held in memory only: the path just names the table in messages.
        let path = PathBuf::from(format!("{sub}.egtb"));
        tables.insert(sub, LoadedTable::solved(&path, header, entries));
    }
    let index = Chess::index(&material, rules).unwrap();
    let cpu = Chess::solve_cpu(&index, rules, &tables, &Silent).unwrap().entries;
    let gpu_rules = Chess::gpu_rules(&index, rules, &tables).unwrap();
    let solution = gpu.solve(gpu_rules.as_ref(), &GpuOptions::default(), &Silent).unwrap();
    assert_eq!(solution.entries.len(), cpu.len());
    let differing = cpu.iter().zip(&solution.entries).filter(|(a, b)| a != b).count();
    assert_eq!(differing, 0, "KPPPvK: {differing} entries differ");
    let values: BTreeSet<Entry> = cpu.iter().copied().filter(|&e| e != BROKEN).collect();
    assert!(
        values.len() > 40,
        "the comparison covers wins, losses and draws of many lengths"
    );
    eprintln!("KPPPvK: {} states, {} layers", cpu.len(), solution.layers);
}

/// The entry of a stand-in table's state: a draw one time in four, else a win or loss of up
/// to 40 plies, from a hash of the state and the table's seed.
fn stand_in_entry(seed: u64, state: u64) -> Entry {
    let mut h = (state ^ seed << 40).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 32;
    if h.is_multiple_of(4) {
        DRAW
    } else {
        Value::of_dtm((h >> 8) as u16 % 40).entry()
    }
}
