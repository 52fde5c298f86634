//! GPU against CPU on the same chess tables in the same run: the smaller tables are built first
//! (untimed), then each material is solved by both solvers, timed, and checked to agree.
//!
//! `cargo bench --bench gpu -- MATERIAL...` (default: KQvKR KRvKN).

use std::time::Instant;

use anyhow::{Result, bail};
use egtb::games::Game;
use egtb::games::chess::Chess;
use egtb::games::chess::gpu::ChessGpu;
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::gpu::{Gpu, GpuOptions};
use egtb::solver::{Silent, cpu};

fn main() -> Result<()> {
    let mut materials: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if materials.is_empty() {
        materials = ["KQvKR", "KRvKN"].map(String::from).to_vec();
    }
    let gpu = Gpu::open()?;
    println!("GPU: {}", gpu.description());
    println!("CPU threads: {}", rayon::current_num_threads());
    println!(
        "{:<10}{:>12}{:>8}{:>10}{:>10}{:>12}{:>14}{:>14}",
        "material", "states", "layers", "cpu s", "gpu s", "kernels s", "cpu states/s", "gpu states/s"
    );
    let dir = std::env::temp_dir().join(format!("egtb-bench-gpu-{}", std::process::id()));
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &Silent);
    for name in &materials {
        let (material, _) = Material::parse(GameId::Chess, name)?.canonical();
        for sub in Chess::sub_materials(&material) {
            generator.ensure(&sub)?;
        }
        let index = Chess::index(&material, Default::default())?;
        let space = Chess::space(&index, Default::default(), generator.tables())?;
        let start = Instant::now();
        let cpu_entries = cpu::solve(&space, &Silent);
        let cpu_seconds = start.elapsed().as_secs_f64();

        let rules = ChessGpu::new(&index, generator.tables())?;
        let start = Instant::now();
        let solution = gpu.solve(&rules, &GpuOptions::default(), &Silent)?;
        let gpu_seconds = start.elapsed().as_secs_f64();
        if solution.entries != cpu_entries {
            bail!("{material}: the GPU and CPU tables differ");
        }
        let states = cpu_entries.len() as f64;
        let kernels = solution
            .kernel_time
            .map_or("-".to_string(), |t| format!("{:.3}", t.as_secs_f64()));
        println!(
            "{:<10}{:>12}{:>8}{cpu_seconds:>10.3}{gpu_seconds:>10.3}{kernels:>12}{:>14.0}{:>14.0}",
            material.to_string(),
            cpu_entries.len(),
            solution.layers,
            states / cpu_seconds,
            states / gpu_seconds,
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
