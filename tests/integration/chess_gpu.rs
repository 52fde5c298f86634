//! Chess tables solved on the GPU equal the CPU solver's, byte for byte.

use egtb::games::Game;
use egtb::games::chess::Chess;
use egtb::material::Material;
use egtb::solver::gpu::GpuOptions;

use crate::support::chess::has_pawns;
use crate::support::gpu_equals_cpu;

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
