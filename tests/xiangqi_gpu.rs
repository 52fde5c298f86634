//! Xiangqi tables solved on the GPU equal the CPU solver's, byte for byte.

use std::path::{Path, PathBuf};
use std::process::Command;

use egtb::games::Game;
use egtb::games::xiangqi::Xiangqi;
use egtb::games::xiangqi::gpu::XiangqiGpu;
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;
use egtb::solver::gpu::{Gpu, GpuOptions};

/// A fresh folder for one test's tables.
fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("egtb-xiangqi-gpu-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// Builds each material on the CPU (with what it needs), solves it again on the GPU from the
/// same smaller tables, and compares. Each material given with `true` must have decisive
/// entries, so that the comparison covers wins and losses, not only draws.
fn gpu_equals_cpu(test: &str, materials: &[(&str, bool)], options: &GpuOptions) {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let dir = temp_dir(test);
    let mut generator = Generator::<Xiangqi>::new(&dir, Default::default(), &Silent);
    for &(name, decisive) in materials {
        let material = Material::parse(GameId::Xiangqi, name).unwrap();
        let cpu = generator.ensure(&material).unwrap().entries().to_vec();
        let index = Xiangqi::index(&material, Default::default()).unwrap();
        let rules = XiangqiGpu::new(&index, generator.tables()).unwrap();
        let solution = gpu.solve(&rules, options, &Silent).unwrap();
        assert_eq!(solution.entries.len(), cpu.len(), "{name}");
        let differing = cpu.iter().zip(&solution.entries).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{name}: {differing} entries differ");
        let wins_and_losses = cpu.iter().filter(|&&e| e != 0 && e != u16::MAX).count();
        assert_eq!(
            wins_and_losses > 0,
            decisive,
            "{name}: {wins_and_losses} decisive entries"
        );
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
fn single_attackers_match_the_cpu() {
    let materials = [
        ("KvK", false),
        ("KRvK", true),
        ("KNvK", true),
        ("KCvK", false),
        ("KPvK", true),
    ];
    gpu_equals_cpu("single", &materials, &GpuOptions::default());
}

#[test]
fn advisors_and_elephants_on_both_sides_match_the_cpu() {
    let materials = [("KAvKE", false), ("KCvKA", false), ("KCAvK", true), ("KNAvKE", true)];
    gpu_equals_cpu("defenders", &materials, &GpuOptions::default());
}

#[test]
fn pairs_of_identical_pieces_match_the_cpu() {
    let materials = [("KAAvKEE", false), ("KPPvK", true)];
    gpu_equals_cpu("pairs", &materials, &GpuOptions::default());
}

#[test]
fn krvka_matches_the_cpu_split_over_many_bindings() {
    // Twelve chunks of 4096 states, each its own binding.
    let options = GpuOptions {
        split_bytes: Some(24_000),
        ..GpuOptions::default()
    };
    gpu_equals_cpu("split", &[("KRvKA", true)], &options);
}

/// Runs the egtb binary on a tables folder; its stdout, after checking that it succeeded.
fn egtb(tables: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_egtb"))
        .arg("--tables")
        .arg(tables)
        .args(args)
        .output()
        .expect("egtb runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} failed: {stderr}");
    String::from_utf8(out.stdout).expect("utf-8 output")
}

#[test]
fn the_command_line_generates_and_verifies_on_the_gpu() {
    if Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let (gpu_dir, cpu_dir) = (temp_dir("cli-gpu"), temp_dir("cli-cpu"));
    let summary = egtb(&gpu_dir, &["generate", "xiangqi", "KPvK", "--backend", "gpu"]);
    assert!(summary.contains("GPU solver"), "{summary}");
    egtb(&cpu_dir, &["generate", "xiangqi", "KPvK", "--backend", "cpu"]);
    for table in ["KvK.rules-draw.egtb", "KPvK.rules-draw.egtb"] {
        let read = |dir: &Path| std::fs::read(dir.join("xiangqi").join(table)).unwrap();
        assert!(read(&gpu_dir) == read(&cpu_dir), "{table} differs");
    }
    let report = egtb(&gpu_dir, &["verify", "xiangqi", "KNvK"]);
    assert!(report.contains("identical, byte for byte"), "{report}");
    for dir in [gpu_dir, cpu_dir] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}
