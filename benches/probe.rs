//! Probe latency of table files, compressed and raw: one random probe cold (the file dropped
//! from the page cache, then opened and probed once, as a first query does) and warm (the table
//! open and the file cached; a random state, so usually one block to decompress), and the size of
//! each file.
//!
//! `cargo bench --bench probe -- [game:]MATERIAL...` (default: chess KQvKR). The tables are read
//! from `EGTB_TABLES` when set (and built there when missing), else built in a temporary folder.

#[path = "../tests/integration/support/rng.rs"]
mod rng;
#[path = "../tests/integration/support/temp.rs"]
mod temp;

use std::fs::{self, File};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use egtb::games::Game;
use egtb::generate::{Generator, table_path};
use egtb::material::{GameId, Material};
use egtb::solver::Silent;
use egtb::table::{Encoding, Table, convert};
use egtb::with_game;
use rng::Rng;

/// Cold probes per table and encoding (each drops the file from the page cache first).
const COLD: usize = 15;
/// Warm probes per table and encoding.
const WARM: usize = 20_000;

/// Asks the kernel to drop the file's cached pages (all of them once the file is synced).
fn drop_from_page_cache(path: &Path) -> Result<()> {
    let file = File::open(path)?;
    // SAFETY: a plain system call on a file descriptor that stays open for the call.
    let status = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    anyhow::ensure!(status == 0, "posix_fadvise failed ({status})");
    Ok(())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn bench_file(path: &Path, label: &str) -> Result<()> {
    let header = Table::open_unchecked(path)?.header;
    let states = header.states();
    let mut rng = Rng::new(7);
    let mut cold = Vec::new();
    for _ in 0..COLD {
        drop_from_page_cache(path)?;
        let state = rng.below(states);
        let start = Instant::now();
        let table = Table::open(path, &header)?;
        std::hint::black_box(table.entry(state)?);
        cold.push(start.elapsed());
    }
    let table = Table::open(path, &header)?;
    let mut warm = Vec::new();
    for _ in 0..WARM {
        let state = rng.below(states);
        let start = Instant::now();
        std::hint::black_box(table.entry(state)?);
        warm.push(start.elapsed());
    }
    let mean = warm.iter().sum::<Duration>() / WARM as u32;
    println!(
        "{label:<22}{:<6}{states:>12}{:>12.2}{:>14.3}{:>14.1}{:>14.1}",
        header.encoding.name(),
        table.file_bytes() as f64 / (1 << 20) as f64,
        median(cold).as_secs_f64() * 1e3,
        median(warm).as_secs_f64() * 1e6,
        mean.as_secs_f64() * 1e6,
    );
    Ok(())
}

fn bench<G: Game>(dir: &Path, scratch: &Path, name: &str) -> Result<()> {
    let (material, _) = Material::parse(G::ID, name)?.canonical();
    let rules = G::Rules::default();
    Generator::<G>::new(dir, rules, &Silent).lean().ensure(&material)?;
    let path = table_path::<G>(dir, &material, rules);
    for encoding in [Encoding::DEFAULT, Encoding::Raw] {
        let copy = scratch.join(format!("{}.{}", material, encoding.name()));
        fs::copy(&path, &copy).with_context(|| format!("cannot copy {}", path.display()))?;
        convert(&copy, encoding, &Silent)?;
        // A copy left in its encoding was not rewritten: its pages are dirty until synced, and
        // dirty pages stay cached.
        File::open(&copy)?.sync_all()?;
        bench_file(&copy, &format!("{} {material}", G::ID))?;
        fs::remove_file(&copy)?;
    }
    Ok(())
}

fn main() -> Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).filter(|a| !a.starts_with("--")).collect();
    if args.is_empty() {
        args = vec!["KQvKR".to_string()];
    }
    // Removed when the bench ends, on an error too; tables in `EGTB_TABLES` stay.
    let temporary = temp::temp_dir("probe-bench");
    let dir: PathBuf = std::env::var_os("EGTB_TABLES").map_or(temporary.join("tables"), PathBuf::from);
    let scratch = temporary.join("copies");
    fs::create_dir_all(&scratch)?;
    println!(
        "{:<22}{:<6}{:>12}{:>12}{:>14}{:>14}{:>14}",
        "table", "enc", "states", "MiB", "cold ms", "warm med us", "warm mean us"
    );
    for arg in &args {
        let (game, name) = arg.split_once(':').unwrap_or(("chess", arg));
        with_game!(GameId::parse(game)?, G => bench::<G>(&dir, &scratch, name))?;
    }
    Ok(())
}
