//! `egtb verify`: build one table with both solvers and compare them byte for byte.

use anyhow::{Result, bail};
use serde_json::json;

use super::{Env, parse_material};
use crate::counted::counted;
use crate::games::{Game, IndexSpace};
use crate::generate::{Backend, Generator};
use crate::progress::Bar;
use crate::solver::gpu::GpuOptions;
use crate::table::checksum;
use crate::value::{Entry, Value};

/// Differences shown at most.
const SHOWN: usize = 10;

/// Solves a material on the CPU and on the GPU (its smaller tables read from the folder, or
/// built there first) and fails, listing the first differing positions, unless they agree.
pub fn run<G: Game>(env: &Env, material: &str, gpu: &GpuOptions) -> Result<()> {
    let rules = env.rules::<G>()?;
    let (material, _) = parse_material::<G>(material)?;
    let bar = Bar::new();
    let mut generator = Generator::<G>::new(&env.tables, rules, &bar).with_backend(Backend::Cpu, gpu.clone());
    let solved = (|| {
        G::check_gpu_material(&material)?;
        generator.ensure_smaller(&material)?;
        let cpu = generator.solve(&material, Backend::Cpu)?;
        let gpu = generator.solve(&material, Backend::Gpu)?;
        anyhow::Ok((cpu, gpu))
    })();
    bar.finish();
    let (cpu, gpu) = solved?;
    let index = G::index(&material, rules)?;
    let differing: Vec<u64> = (0..index.states())
        .filter(|&s| cpu.entries[s as usize] != gpu.entries[s as usize])
        .collect();
    // Under repetition rules, the rulings too (a table's entries may agree while its rulings,
    // kept beside it, do not).
    let rulings_identical = cpu.rulings == gpu.rulings && cpu.rounds == gpu.rounds;
    let describe = |entry: Entry| Value::from_entry(entry).map_or("broken slot".to_string(), |v| v.to_string());
    let shown: Vec<_> = differing
        .iter()
        .take(SHOWN)
        .map(|&s| {
            let position = index
                .decode(s)
                .map_or("(broken slot)".to_string(), |p| G::format_position(&p));
            (
                s,
                position,
                describe(cpu.entries[s as usize]),
                describe(gpu.entries[s as usize]),
            )
        })
        .collect();
    if env.json {
        let diffs: Vec<_> = shown
            .iter()
            .map(|(s, p, c, g)| json!({ "state": s, "position": p, "cpu": c, "gpu": g }))
            .collect();
        let out = json!({
            "game": G::ID.name(),
            "material": material.to_string(),
            "states": index.states(),
            "identical": differing.is_empty() && rulings_identical,
            "differing": differing.len(),
            "rulings": { "cpu": cpu.rulings.len(), "gpu": gpu.rulings.len(), "identical": rulings_identical },
            "first_differences": diffs,
            "cpu": { "solver": cpu.solver, "seconds": cpu.wall.as_secs_f64() },
            "gpu": { "solver": gpu.solver, "seconds": gpu.wall.as_secs_f64() },
        });
        println!("{out}");
    } else {
        println!("{} {material}: {}", G::ID, counted(index.states(), "state"));
        let width = cpu.solver.len().max(gpu.solver.len());
        println!("  {:<width$} {:>9.3} s", cpu.solver, cpu.wall.as_secs_f64());
        println!("  {:<width$} {:>9.3} s", gpu.solver, gpu.wall.as_secs_f64());
        if differing.is_empty() {
            println!("identical, byte for byte (CRC-32 {:08x})", checksum(&cpu.entries));
        }
        if !cpu.rulings.is_empty() || !gpu.rulings.is_empty() {
            println!(
                "rulings: CPU {} in {}, GPU {} in {}: {}",
                cpu.rulings.len(),
                counted(cpu.rounds, "round"),
                gpu.rulings.len(),
                counted(gpu.rounds, "round"),
                if rulings_identical { "identical" } else { "different" }
            );
        }
        for (state, position, c, g) in &shown {
            println!("  state {state}: {position}  CPU {c}, GPU {g}");
        }
    }
    if !differing.is_empty() {
        bail!(
            "{} of {} entries differ between the CPU and the GPU",
            differing.len(),
            index.states()
        );
    }
    if !rulings_identical {
        bail!("the CPU and the GPU rule different positions lost by the repetition rules");
    }
    Ok(())
}
