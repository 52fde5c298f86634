//! Xiangqi tables solved on the GPU equal the CPU solver's, byte for byte.

use std::path::Path;

use egtb::games::xiangqi::Xiangqi;
use egtb::solver::gpu::{Gpu, GpuOptions};

use crate::support::{gpu_equals_cpu, succeeds, temp_dir};

/// Compares GPU and CPU on each material; one given with `true` must have decisive entries, so
/// that the comparison covers wins and losses, not only draws.
fn gpu_equals_cpu_decisive(materials: &[(&str, bool)], options: &GpuOptions) {
    let names: Vec<&str> = materials.iter().map(|m| m.0).collect();
    let Some(tables) = gpu_equals_cpu::<Xiangqi>(&names, Default::default(), options) else {
        return;
    };
    for (&(name, decisive), entries) in materials.iter().zip(&tables) {
        let wins_and_losses = entries.iter().filter(|&&e| e != 0 && e != u16::MAX).count();
        assert_eq!(
            wins_and_losses > 0,
            decisive,
            "{name}: {wins_and_losses} decisive entries"
        );
    }
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
    gpu_equals_cpu_decisive(&materials, &GpuOptions::default());
}

#[test]
fn advisors_and_elephants_on_both_sides_match_the_cpu() {
    let materials = [("KAvKE", false), ("KCvKA", false), ("KCAvK", true), ("KNAvKE", true)];
    gpu_equals_cpu_decisive(&materials, &GpuOptions::default());
}

#[test]
fn pairs_of_identical_pieces_match_the_cpu() {
    let materials = [("KAAvKEE", false), ("KPPvK", true)];
    gpu_equals_cpu_decisive(&materials, &GpuOptions::default());
}

#[test]
fn krvka_matches_the_cpu_split_over_many_bindings() {
    // Twelve chunks of 4096 states, each its own binding.
    let options = GpuOptions {
        split_bytes: Some(24_000),
        ..GpuOptions::default()
    };
    gpu_equals_cpu_decisive(&[("KRvKA", true)], &options);
}

#[test]
fn the_command_line_generates_and_verifies_on_the_gpu() {
    if Gpu::open_unless_absent().unwrap().is_none() {
        return;
    }
    let (gpu_dir, cpu_dir) = (temp_dir("cli-gpu"), temp_dir("cli-cpu"));
    let summary = succeeds(&gpu_dir, &["generate", "xiangqi", "KPvK", "--backend", "gpu"]);
    assert!(summary.contains("GPU solver"), "{summary}");
    succeeds(&cpu_dir, &["generate", "xiangqi", "KPvK", "--backend", "cpu"]);
    for table in ["KvK.rules-draw.egtb", "KPvK.rules-draw.egtb"] {
        let read = |dir: &Path| std::fs::read(dir.join("xiangqi").join(table)).unwrap();
        assert!(read(&gpu_dir) == read(&cpu_dir), "{table} differs");
    }
    let report = succeeds(&gpu_dir, &["verify", "xiangqi", "KNvK"]);
    assert!(report.contains("identical, byte for byte"), "{report}");
    // The adapter in words: its kind and backend as a person reads them.
    let adapter = report.lines().find(|l| l.contains("GPU solver on")).unwrap();
    let kinds = [
        "(discrete GPU, ",
        "(integrated GPU, ",
        "(virtual GPU, ",
        "(software, ",
        "(other, ",
    ];
    assert!(kinds.iter().any(|k| adapter.contains(k)), "{report}");
}
