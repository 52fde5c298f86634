//! `egtb verify`: build one table with both solvers and compare them byte for byte, and with
//! the table on disk when there is one.

use anyhow::{Result, bail};
use serde_json::json;

use super::Env;
use crate::counted::{counted, grouped};
use crate::games::{Game, IndexSpace, Rules};
use crate::generate::{Backend, Generator, TableSpec};
use crate::progress::Bar;
use crate::report::{rules_json, value_json};
use crate::rulings;
use crate::solver::gpu::GpuOptions;
use crate::table::{LoadedTable, checksum};
use crate::value::{Entry, Value};

/// Differences shown at most.
const SHOWN: usize = 10;

/// Solves a material on the CPU and on the GPU (its smaller tables read from the folder, or
/// built there first) and fails, listing the first differing positions, unless they agree with
/// each other and with the table on disk, when there is one.
pub fn run<G: Game>(env: &Env, material: &str, gpu: &GpuOptions) -> Result<()> {
    let rules = env.rules::<G>()?;
    let (material, _) = G::parse_material(material)?;
    let bar = Bar::new();
    let mut generator = Generator::<G>::new(&env.tables, rules, &bar).with_backend(Backend::Cpu, gpu.clone());
    let solved = generator.solve_both(&material);
    bar.finish();
    let (cpu, gpu) = solved?;
    let TableSpec { index, header, path } = TableSpec::<G>::new(&env.tables, &material, rules)?;
    let built: Vec<String> = generator
        .built
        .iter()
        .filter(|b| b.solved.is_some())
        .map(|b| b.material.to_string())
        .collect();
    // The table on disk: how many of its entries differ from the CPU solver's, and whether its
    // rulings are the same.
    let on_disk = match path.exists() {
        false => None,
        true => {
            let table = LoadedTable::open(&path, &header)?;
            let entries = table.entries();
            let differing = entries.iter().zip(&cpu.entries).filter(|(d, c)| d != c).count();
            Some((differing, rulings::of(&path, &table.header)? == cpu.rulings))
        }
    };
    let differing: Vec<u64> = (0..index.states())
        .filter(|&s| cpu.entries[s as usize] != gpu.entries[s as usize])
        .collect();
    // Under repetition rules, the rulings too (a table's entries may agree while its rulings,
    // kept beside it, do not).
    let rulings_identical = cpu.rulings == gpu.rulings && cpu.rounds == gpu.rounds;
    // Each first difference: its state, its position (none for a broken slot), and the values
    // (none for an entry marked broken) of both solvers.
    let shown: Vec<_> = differing
        .iter()
        .take(SHOWN)
        .map(|&s| {
            let value = |entries: &[Entry]| Value::from_entry(entries[s as usize]);
            (
                s,
                index.decode(s).map(|p| G::format_position(&p)),
                value(&cpu.entries),
                value(&gpu.entries),
            )
        })
        .collect();
    if env.json {
        let diffs: Vec<_> = shown
            .iter()
            .map(
                |(s, p, c, g)| json!({ "state": s, "position": p, "cpu": c.map(value_json), "gpu": g.map(value_json) }),
            )
            .collect();
        let out = json!({
            "game": G::ID.name(),
            "material": material.to_string(),
            "states": index.states(),
            "identical": differing.is_empty() && rulings_identical,
            "differing": differing.len(),
            "rulings": { "cpu": cpu.rulings.len(), "gpu": gpu.rulings.len(), "identical": rulings_identical },
            "first_differences": diffs,
            "cpu": { "solver": cpu.solver.words, "seconds": cpu.wall.as_secs_f64() },
            "gpu": { "solver": gpu.solver.words, "seconds": gpu.wall.as_secs_f64() },
            "rules": rules_json(rules),
            "on_disk": on_disk.map(|(differing, same_rulings)| json!({
                "path": path.display().to_string(),
                "identical": differing == 0 && same_rulings,
                "differing": differing,
            })),
            "built_smaller": built,
        });
        println!("{out}");
    } else {
        println!(
            "{} {material}{}: {}",
            G::ID,
            rules.flags(),
            counted(index.states(), "state")
        );
        if !built.is_empty() {
            println!("  built first, as the solves read them: {}", built.join(" "));
        }
        let width = cpu.solver.words.len().max(gpu.solver.words.len());
        println!("  {:<width$} {:>9.3} s", cpu.solver.words, cpu.wall.as_secs_f64());
        println!("  {:<width$} {:>9.3} s", gpu.solver.words, gpu.wall.as_secs_f64());
        if differing.is_empty() {
            println!("identical, byte for byte (CRC-32 {:08x})", checksum(&cpu.entries));
        }
        if !cpu.rulings.is_empty() || !gpu.rulings.is_empty() {
            println!(
                "rulings: CPU {} in {}, GPU {} in {}: {}",
                grouped(cpu.rulings.len() as u64),
                counted(cpu.rounds, "round"),
                grouped(gpu.rulings.len() as u64),
                counted(gpu.rounds, "round"),
                if rulings_identical { "identical" } else { "different" }
            );
        }
        let describe = |value: &Option<Value>| value.map_or("broken slot".to_string(), |v| v.to_string());
        for (state, position, c, g) in &shown {
            let position = position.as_deref().unwrap_or("(broken slot)");
            println!("  state {state}: {position}  CPU {}, GPU {}", describe(c), describe(g));
        }
        match on_disk {
            None => println!("no table on disk to compare ({} is not there)", path.display()),
            Some((0, true)) => println!("the table on disk is the same ({})", path.display()),
            Some(_) => println!("the table on disk differs ({})", path.display()),
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
    match on_disk {
        Some((0, true)) | None => Ok(()),
        Some((differing, _)) => bail!(
            "table {} differs from what both solvers build (in {}): delete it and generate it again",
            path.display(),
            match differing {
                0 => "its rulings".to_string(),
                _ => format!("{differing} of {} entries", index.states()),
            }
        ),
    }
}
