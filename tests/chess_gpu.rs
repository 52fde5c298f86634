//! Chess tables solved on the GPU equal the CPU solver's, byte for byte.

use std::path::PathBuf;

use egtb::games::Game;
use egtb::games::chess::Chess;
use egtb::games::chess::board::Kind;
use egtb::games::chess::gpu::ChessGpu;
use egtb::generate::Generator;
use egtb::material::{GameId, Material, Side};
use egtb::solver::Silent;
use egtb::solver::gpu::{Gpu, GpuOptions};

/// A fresh folder for one test's tables.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("egtb-chess-gpu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Builds each material on the CPU (with what it needs), solves it again on the GPU from the
/// same smaller tables, and compares.
fn gpu_equals_cpu(test: &str, materials: &[&str], options: &GpuOptions) {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let dir = temp_dir(test);
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &Silent);
    for name in materials {
        let material = Material::parse(GameId::Chess, name).unwrap();
        let cpu = generator.ensure(&material).unwrap().entries().to_vec();
        let index = Chess::index(&material, Default::default()).unwrap();
        let rules = ChessGpu::new(&index, generator.tables()).unwrap();
        let solution = gpu.solve(&rules, options, &Silent).unwrap();
        let differing = cpu.iter().zip(&solution.entries).filter(|(a, b)| a != b).count();
        assert_eq!(solution.entries.len(), cpu.len(), "{name}");
        assert_eq!(differing, 0, "{name}: {differing} entries differ");
        eprintln!(
            "{name}: {} states, {} layers, kernels {:?}",
            cpu.len(),
            solution.layers,
            solution.kernel_time
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Materials without pawns (the pawn materials have tests of their own).
fn pawnless(material: &Material) -> bool {
    let pawn = Kind::Pawn.index();
    material.count(Side::First, pawn) + material.count(Side::Second, pawn) == 0
}

#[test]
fn every_material_of_up_to_three_pieces_matches_the_cpu() {
    let materials: Vec<String> = Chess::materials(3)
        .iter()
        .filter(|m| pawnless(m))
        .map(|m| m.to_string())
        .collect();
    assert_eq!(materials.len(), 5, "{materials:?}");
    let names: Vec<&str> = materials.iter().map(String::as_str).collect();
    gpu_equals_cpu("three", &names, &GpuOptions::default());
}

#[test]
fn kbnvk_matches_the_cpu_split_over_many_bindings() {
    let options = GpuOptions {
        split_bytes: Some(1_500_000),
        ..GpuOptions::default()
    };
    gpu_equals_cpu("kbnvk", &["KBNvK"], &options);
}

/// With the sweep a GPU runs (a thread per vector of eight entries, many vectors a thread).
#[test]
fn kqvkr_matches_the_cpu() {
    let options = GpuOptions {
        sweep_run: Some(1),
        ..GpuOptions::default()
    };
    gpu_equals_cpu("kqvkr", &["KQvKR"], &options);
}

/// A five-piece material sized for CI's two cores: three identical sliders (36.8M states), so
/// blocking among the men and their combinadic group are both on the path.
#[test]
fn kbbbvk_five_pieces_matches_the_cpu() {
    gpu_equals_cpu("kbbbvk", &["KBBBvK"], &GpuOptions::default());
}

/// Every pawnless four-piece material (KQvKR and KBNvK again among them).
#[test]
fn every_material_of_four_pieces_matches_the_cpu() {
    let materials: Vec<String> = Chess::materials(4)
        .iter()
        .filter(|m| m.pieces() == 4 && pawnless(m))
        .map(|m| m.to_string())
        .collect();
    assert_eq!(materials.len(), 20, "{materials:?}");
    let names: Vec<&str> = materials.iter().map(String::as_str).collect();
    gpu_equals_cpu("four", &names, &GpuOptions::default());
}

/// The chess materials of up to `pieces` pieces with a pawn.
fn with_pawns(pieces: usize) -> Vec<String> {
    Chess::materials(pieces)
        .iter()
        .filter(|m| !pawnless(m))
        .map(|m| m.to_string())
        .collect()
}

/// En passant on both sides, with the split forced small.
#[test]
fn kpvkp_matches_the_cpu_split_over_many_bindings() {
    let options = GpuOptions {
        split_bytes: Some(4_000_000),
        ..GpuOptions::default()
    };
    gpu_equals_cpu("kpvkp", &["KPvKP"], &options);
}

/// Every other pawn material of up to four pieces: pushes, double steps, promotions and
/// capture-promotions into smaller tables, pawns on either side.
#[test]
fn every_pawn_material_of_up_to_four_pieces_matches_the_cpu() {
    let materials: Vec<String> = with_pawns(4).into_iter().filter(|m| m != "KPvKP").collect();
    assert_eq!(materials.len(), 10, "{materials:?}");
    let names: Vec<&str> = materials.iter().map(String::as_str).collect();
    gpu_equals_cpu("pawns-four", &names, &GpuOptions::default());
}
