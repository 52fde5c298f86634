//! `egtb bench`: both solvers on the same tables in one run, timed side by side.

use std::time::Duration;

use anyhow::{Result, bail};
use serde_json::json;

use super::Env;
use crate::counted::{grouped, per_second};
use crate::games::Game;
use crate::generate::{Backend, Generator};
use crate::material::Material;
use crate::progress::Bar;
use crate::solver::gpu::{GpuOptions, KernelTime, SWEEP_BYTES_PER_STATE};

/// One material's figures.
struct Row {
    material: Material,
    states: u64,
    /// Rounds of rulings that ruled something (0 without repetition rules).
    rounds: u16,
    cpu: Duration,
    gpu: Duration,
    kernel: Option<KernelTime>,
}

/// Times the CPU and the GPU solver on each material (smaller tables read from the folder or
/// built there first, untimed) and prints a table of seconds, ratios and rates.
pub fn run<G: Game>(env: &Env, materials: &[String], gpu: &GpuOptions) -> Result<()> {
    let rules = env.rules::<G>()?;
    let bar = Bar::new();
    let mut generator = Generator::<G>::new(&env.tables, rules, &bar).with_backend(Backend::Cpu, gpu.clone());
    let mut rows = Vec::new();
    let mut solvers = (String::new(), String::new());
    let result = materials.iter().try_for_each(|name| {
        let (material, _) = G::parse_material(name)?;
        let (cpu, gpu) = generator.solve_both(&material)?;
        if cpu.entries != gpu.entries {
            bail!("{material}: the GPU table differs from the CPU table (run egtb verify)");
        }
        if cpu.rulings != gpu.rulings || cpu.rounds != gpu.rounds {
            bail!("{material}: the GPU's rulings differ from the CPU's (run egtb verify)");
        }
        solvers = (cpu.solver.words, gpu.solver.words);
        rows.push(Row {
            material,
            states: cpu.entries.len() as u64,
            rounds: cpu.rounds,
            cpu: cpu.wall,
            gpu: gpu.wall,
            kernel: gpu.kernel,
        });
        Ok(())
    });
    bar.finish();
    result?;
    if env.json {
        let rows: Vec<_> = rows
            .iter()
            .map(|Row { material, states, rounds, cpu, gpu, kernel }| {
                json!({
                    "material": material.to_string(),
                    "states": states,
                    "rounds": rounds,
                    "cpu_seconds": cpu.as_secs_f64(),
                    "gpu_seconds": gpu.as_secs_f64(),
                    "gpu_kernel_seconds": kernel.as_ref().map(|k| k.total().as_secs_f64()),
                    "gpu_initialise_seconds": kernel.as_ref().map(|k| k.initialise.as_secs_f64()),
                    "gpu_layer_seconds": kernel.as_ref().map(|k| k.layers().as_secs_f64()),
                    "gpu_propagation_seconds": kernel.as_ref().map(|k| k.propagation.as_secs_f64()),
                    "gpu_sweep_seconds": kernel.as_ref().map(|k| k.sweeps.iter().map(Duration::as_secs_f64).collect::<Vec<_>>()),
                    "sweep_bytes": states * SWEEP_BYTES_PER_STATE,
                    "cpu_over_gpu": cpu.as_secs_f64() / gpu.as_secs_f64(),
                })
            })
            .collect();
        println!(
            "{}",
            json!({ "game": G::ID.name(), "cpu": solvers.0, "gpu": solvers.1, "tables": rows })
        );
        return Ok(());
    }
    println!("CPU: {}\nGPU: {}", solvers.0, solvers.1);
    println!(
        "{:<14}{:>12}{:>10}{:>10}{:>10}{:>14}{:>14}{:>11}{:>11}{:>8}{:>12}{:>8}",
        "table",
        "states",
        "CPU s",
        "GPU s",
        "CPU/GPU",
        "CPU states/s",
        "GPU states/s",
        "init s",
        "layers s",
        "sweeps",
        "sweep GB/s",
        "rounds"
    );
    for Row {
        material,
        states,
        rounds,
        cpu,
        gpu,
        kernel,
    } in &rows
    {
        let (c, g) = (cpu.as_secs_f64(), gpu.as_secs_f64());
        let seconds = |d: Option<Duration>| d.map_or("-".to_string(), |d| format!("{:.3}", d.as_secs_f64()));
        let init = seconds(kernel.as_ref().map(|k| k.initialise));
        let layers = seconds(kernel.as_ref().map(|k| k.layers()));
        let sweeps = kernel.as_ref().map_or("-".to_string(), |k| k.sweeps.len().to_string());
        // The slowest sweep, usually the one that reads the most, as a read rate of the whole
        // table's entries.
        let rate = kernel
            .as_ref()
            .and_then(|k| k.slowest_sweep())
            .map_or("-".to_string(), |d| {
                format!("{:.2}", (states * SWEEP_BYTES_PER_STATE) as f64 / d.as_secs_f64() / 1e9)
            });
        println!(
            "{:<14}{:>12}{c:>10.3}{g:>10.3}{:>10.2}{:>14}{:>14}{init:>11}{layers:>11}{sweeps:>8}{rate:>12}{rounds:>8}",
            material.to_string(),
            grouped(*states),
            c / g,
            per_second(*states, c),
            per_second(*states, g),
        );
    }
    Ok(())
}
