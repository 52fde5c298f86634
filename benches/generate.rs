//! CPU generation benchmark: for each material, in a folder of its own, its smaller tables are
//! built first (untimed), then the table itself is generated and written, timed (its smaller
//! tables loaded as `egtb generate` loads them), with the peak memory of that generation.
//!
//! `cargo bench --bench generate -- [game:]MATERIAL...` (default: chess KQvKR KRvKN KRRvKR).
//! `EGTB_BENCH_THREADS=N` sets the worker threads.

#[path = "../tests/integration/support/temp.rs"]
mod temp;

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use egtb::games::Game;
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::progress::peak_memory;
use egtb::solver::Silent;
use egtb::with_game;

fn bench<G: Game>(dir: &Path, name: &str) -> Result<()> {
    let (material, _) = Material::parse(G::ID, name)?.canonical();
    let mut generator = Generator::<G>::new(dir, G::Rules::default(), &Silent);
    for sub in G::sub_materials(&material) {
        generator.ensure(&sub)?;
    }
    // The table's generation loads its smaller tables as `egtb generate` does.
    generator.unload();
    // Linux: writing 5 to clear_refs resets the peak resident size, so the peak is this table's.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let start = Instant::now();
    generator.ensure_file(&material)?;
    let seconds = start.elapsed().as_secs_f64();
    let states = generator.built.last().map_or(0, |b| b.states);
    let peak = peak_memory().unwrap_or(0) as f64;
    println!(
        "{:<10}{:<14}{states:>12}{seconds:>10.3}{:>14.0}{:>11.1}{:>12.2}",
        G::ID.name(),
        material.to_string(),
        states as f64 / seconds,
        peak / (1 << 20) as f64,
        peak / states as f64,
    );
    Ok(())
}

fn main() -> Result<()> {
    if let Ok(threads) = std::env::var("EGTB_BENCH_THREADS") {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads.parse()?)
            .build_global()?;
    }
    let mut args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if args.is_empty() {
        args = ["KQvKR", "KRvKN", "KRRvKR"].map(String::from).to_vec();
    }
    // Removed when the bench ends, on an error too.
    let root = temp::temp_dir("generate-bench");
    println!("threads: {}", rayon::current_num_threads());
    println!(
        "{:<10}{:<14}{:>12}{:>10}{:>14}{:>11}{:>12}",
        "game", "material", "states", "seconds", "states/s", "peak MiB", "bytes/state"
    );
    for arg in &args {
        let (game, name) = arg.split_once(':').unwrap_or(("chess", arg));
        let dir = root.join(arg.replace(':', "-"));
        with_game!(GameId::parse(game)?, G => bench::<G>(&dir, name))?;
    }
    Ok(())
}
