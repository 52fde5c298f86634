//! `egtb generate`: build tables (and every smaller table they need), with a summary.

use std::time::Instant;

use anyhow::Result;
use serde_json::json;

use super::{Env, requested_materials};
use crate::counted::{bytes, counted, grouped, per_second};
use crate::error::error_line;
use crate::games::Game;
use crate::generate::{Backend, Generator};
use crate::progress::{Bar, peak_memory};
use crate::report::rules_json;
use crate::solver::gpu::GpuOptions;
use crate::table::Encoding;

/// What to generate.
#[derive(Clone, Debug)]
pub struct Request {
    /// Material names; empty with `pieces` for a batch.
    pub materials: Vec<String>,
    /// Every supported material with at most this many pieces.
    pub pieces: Option<usize>,
    /// Which solver builds the tables.
    pub backend: Backend,
    /// Settings of the GPU solver.
    pub gpu: GpuOptions,
    /// How new tables are written.
    pub encoding: Encoding,
}

/// Generates the requested tables and prints what was built.
pub fn run<G: Game>(env: &Env, request: &Request) -> Result<()> {
    let rules = env.rules::<G>()?;
    let materials = requested_materials::<G>(&request.materials, request.pieces, "generate")?;
    let bar = Bar::new();
    let start = Instant::now();
    let mut generator = Generator::<G>::new(&env.tables, rules, &bar)
        .with_backend(request.backend, request.gpu.clone())
        .with_encoding(request.encoding)
        .lean();
    let missing = generator.check_batch_memory(&materials)?;
    bar.batch(missing.iter().map(|(m, states)| (m.to_string(), *states)));
    // Lean: a batch's memory is that of its largest table and its exits, not of all of them.
    let result = generator.ensure_batch(&materials);
    bar.finish();
    // A batch stopped by an error still reports the tables it finished, then fails.
    let failure = match result {
        Err(e) if generator.built.is_empty() && !env.json => return Err(e),
        result => result.err(),
    };
    let wall = start.elapsed().as_secs_f64();
    let mut solvers: Vec<&str> = generator
        .built
        .iter()
        .filter_map(|b| b.solved.as_ref().map(|s| s.0.words.as_str()))
        .collect();
    // Each solver once, in the order it first ran.
    let mut seen = std::collections::HashSet::new();
    solvers.retain(|s| seen.insert(*s));
    // None when every table was already there.
    let solver = (!solvers.is_empty()).then(|| solvers.join(", "));
    let peak = peak_memory();
    // The peak is the largest table's working memory plus the smaller tables it loads.
    let largest = generator
        .built
        .iter()
        .filter(|b| b.solved.is_some())
        .map(|b| b.states)
        .max();
    let peak_per_state = peak.zip(largest).map(|(p, n)| p as f64 / n.max(1) as f64);
    if env.json {
        let tables: Vec<_> = generator
            .built
            .iter()
            .map(|b| {
                json!({
                    "material": b.material.to_string(),
                    "path": b.path.display().to_string(),
                    "states": b.states,
                    "bytes": b.bytes,
                    "solver": b.solved.as_ref().map(|s| &s.0.words),
                    "backend": b.solved.as_ref().map(|s| s.0.backend.name()),
                    "seconds": b.solved.as_ref().map(|s| s.1.as_secs_f64()),
                    "reused": b.solved.is_none(),
                })
            })
            .collect();
        let out = json!({
            "game": G::ID.name(),
            "rules": rules_json(rules),
            "solver": solver,
            "tables": tables,
            "notes": generator.notes,
            "seconds": wall,
            "peak_memory_bytes": peak,
            "peak_bytes_per_state_of_largest": peak_per_state,
            "error": failure.as_ref().map(error_line),
        });
        println!("{out}");
        return failure.map_or(Ok(()), Err);
    }
    println!(
        "{:<16}{:>14}{:>11}{:>16}{:>12}  file",
        "table", "states", "seconds", "states/s", "size"
    );
    let mut solved_states = 0u64;
    for b in &generator.built {
        let (secs, rate) = match &b.solved {
            Some((_, t)) => {
                solved_states += b.states;
                let s = t.as_secs_f64();
                (format!("{s:.3}"), per_second(b.states, s).to_string())
            }
            None => ("reused".to_string(), "-".to_string()),
        };
        println!(
            "{:<16}{:>14}{:>11}{:>16}{:>12}  {}",
            b.material.to_string(),
            grouped(b.states),
            secs,
            rate,
            bytes(b.bytes),
            b.path.display()
        );
    }
    for note in &generator.notes {
        println!("note: {note}");
    }
    if let Some(failure) = failure {
        return Err(failure);
    }
    // Below a million states the program itself is most of the peak: a figure a state would
    // only say how small the table is.
    let telling = largest.is_some_and(|states| states >= 1 << 20);
    let peak = peak.map_or("unknown".to_string(), |b| bytes(b).to_string())
        + &peak_per_state.filter(|_| telling).map_or(String::new(), |r| {
            format!(" ({r:.2} bytes a state of the largest table)")
        });
    match solver {
        None => println!(
            "Nothing to solve: {} already there and verified; peak memory {peak}.",
            counted(generator.built.len(), "table")
        ),
        Some(solver) => println!(
            "Solved {} in {wall:.3} s ({} states/s) with: {solver}; peak memory {peak}.",
            counted(solved_states, "state"),
            per_second(solved_states, wall),
        ),
    }
    Ok(())
}
