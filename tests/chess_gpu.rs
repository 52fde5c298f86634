//! Chess tables solved on the GPU equal the CPU solver's, byte for byte.

use std::path::PathBuf;

use egtb::games::Game;
use egtb::games::chess::Chess;
use egtb::games::chess::gpu::ChessGpu;
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;
use egtb::solver::gpu::{Gpu, GpuOptions};

/// Opens the GPU, or says why the test is skipped; with `EGTB_REQUIRE_GPU=1` a missing GPU fails.
fn gpu_or_skip() -> Option<Gpu> {
    match Gpu::open() {
        Ok(gpu) => Some(gpu),
        Err(e) if std::env::var("EGTB_REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            panic!("EGTB_REQUIRE_GPU=1 but no GPU: {e:#}")
        }
        Err(e) => {
            eprintln!("skipping GPU test: {e:#}");
            None
        }
    }
}

/// A fresh folder for one test's tables.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("egtb-chess-gpu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Builds each material on the CPU (with what it needs), solves it again on the GPU from the
/// same smaller tables, and compares.
fn gpu_equals_cpu(test: &str, materials: &[&str], options: &GpuOptions) {
    let Some(gpu) = gpu_or_skip() else { return };
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

#[test]
fn kqvk_and_krvk_match_the_cpu() {
    gpu_equals_cpu("basic", &["KvK", "KQvK", "KRvK"], &GpuOptions::default());
}

#[test]
fn kbnvk_matches_the_cpu_split_over_many_bindings() {
    let options = GpuOptions {
        split_bytes: Some(200_000),
        ..GpuOptions::default()
    };
    gpu_equals_cpu("kbnvk", &["KBNvK"], &options);
}

#[test]
fn kqvkr_matches_the_cpu() {
    gpu_equals_cpu("kqvkr", &["KQvKR"], &GpuOptions::default());
}
