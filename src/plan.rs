//! The plan of a batch: every table it needs in dependency order (each after the tables its
//! exits read), with its state count, estimated peak memory and whether it is already present,
//! so that a batch can be split into one job per table on a cluster ([`slurm`]).

pub mod slurm;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::games::{Game, IndexSpace, Rules};
use crate::generate::{expected_header, table_path};
use crate::material::{GameId, Material};
use crate::table::Table;

/// Bytes a state of the table being built takes while it is solved: one 16-bit word, the entry
/// or, while the state is unresolved, its HP counter.
pub const WORKING_BYTES_PER_STATE: u64 = 2;
/// Bytes a state of a smaller table takes once loaded (mapped raw, or decompressed).
pub const MAPPED_BYTES_PER_STATE: u64 = 2;
/// The program beside the tables (about 5 MiB) and a GPU driver that the auto backend opens to
/// look for an adapter (73 MiB measured with Mesa's llvmpipe; hardware drivers differ).
pub const BASE_BYTES: u64 = 128 << 20;

/// Estimated peak resident memory of generating a table of `states` states while the smaller
/// tables its exits read, `mapped_states` states in all, are loaded (generation keeps only those:
/// see [`crate::generate::Generator::lean`]). The one place where generation's memory is
/// estimated.
pub fn estimate_peak_bytes(states: u64, mapped_states: u64) -> u64 {
    BASE_BYTES + WORKING_BYTES_PER_STATE * states + MAPPED_BYTES_PER_STATE * mapped_states
}

/// The environment variable that sets the memory generation may use (`16G`, `512M`, bytes), in
/// place of what the machine has available, or turns the check off (`off`).
pub const MEMORY_LIMIT_VAR: &str = "EGTB_MEMORY_LIMIT";

/// The memory generation may use: [`MEMORY_LIMIT_VAR`] when set, else what the system has
/// available (within a cgroup's limit, where one is set) plus what this process holds already.
/// `None` when the check is off or nothing could be read.
pub fn memory_limit() -> Result<Option<u64>> {
    if let Ok(text) = std::env::var(MEMORY_LIMIT_VAR) {
        return parse_memory_limit(&text);
    }
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let field = |text: &str, key: &str| -> Option<u64> {
        let line = text.lines().find(|l| l.starts_with(key))?;
        Some(line.split_whitespace().nth(1)?.parse::<u64>().ok()? * 1024)
    };
    let Some(available) = read("/proc/meminfo").and_then(|t| field(&t, "MemAvailable:")) else {
        return Ok(None);
    };
    let cgroup = read("/sys/fs/cgroup/memory.max")
        .and_then(|max| max.trim().parse::<u64>().ok())
        .zip(read("/sys/fs/cgroup/memory.current").and_then(|c| c.trim().parse::<u64>().ok()))
        .map(|(max, current)| max.saturating_sub(current));
    let held = read("/proc/self/status").and_then(|t| field(&t, "VmRSS:")).unwrap_or(0);
    Ok(Some(available.min(cgroup.unwrap_or(u64::MAX)) + held))
}

/// Reads a memory size: bytes, or a number with a K, M, G or T suffix (powers of 1024); `off`
/// for no limit.
pub fn parse_memory_limit(text: &str) -> Result<Option<u64>> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("off") {
        return Ok(None);
    }
    let (digits, shift) = match text.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => {
            let shift = match c.to_ascii_uppercase() {
                'K' => 10,
                'M' => 20,
                'G' => 30,
                'T' => 40,
                _ => bail!("{MEMORY_LIMIT_VAR}={text}: unknown unit '{c}' (expected K, M, G or T, or 'off')"),
            };
            (&text[..i], shift)
        }
        _ => (text, 0),
    };
    let value: f64 = digits
        .parse()
        .map_err(|_| anyhow::anyhow!("{MEMORY_LIMIT_VAR}={text} is not a size (for example 16G, or 'off')"))?;
    Ok(Some((value * (1u64 << shift) as f64) as u64))
}

/// An error, before any work, when generating a table would need more memory than `limit`.
pub fn check_memory(material: &Material, states: u64, mapped_states: u64, limit: Option<u64>) -> Result<()> {
    let needed = estimate_peak_bytes(states, mapped_states);
    let Some(limit) = limit.filter(|&limit| needed > limit) else {
        return Ok(());
    };
    let size = |b: u64| match b {
        b if b >= 1 << 30 => format!("{:.1} GiB", b as f64 / (1u64 << 30) as f64),
        b => format!("{:.1} MiB", b as f64 / (1u64 << 20) as f64),
    };
    bail!(
        "generating {material} needs about {} ({states} states at {WORKING_BYTES_PER_STATE} bytes, and \
         {mapped_states} states of smaller tables at {MAPPED_BYTES_PER_STATE}) but {} is available; \
         free memory, use a larger machine (egtb plan shows each table's peak), or set \
         {MEMORY_LIMIT_VAR}=off to try anyway",
        size(needed),
        size(limit)
    )
}

/// Whether a table's file is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Presence {
    /// No file: the table is to be built.
    Missing,
    /// The file is there and verifies: the table is reused.
    Present,
    /// A file is there but cannot be used (why): generation would stop on it.
    Bad(String),
}

impl Presence {
    /// One word for the status column and JSON.
    pub fn word(&self) -> &'static str {
        match self {
            Presence::Missing => "missing",
            Presence::Present => "present",
            Presence::Bad(_) => "bad",
        }
    }
}

/// One table of a batch.
#[derive(Clone, Debug)]
pub struct PlannedTable {
    pub material: Material,
    /// The tables this one's exits read directly (each earlier in the plan).
    pub reads: Vec<Material>,
    pub states: u64,
    /// States of the tables it reads, which generating it loads.
    pub mapped_states: u64,
    /// [`estimate_peak_bytes`] of this table.
    pub peak_bytes: u64,
    pub path: PathBuf,
    pub presence: Presence,
}

/// The tables of a batch in dependency order.
#[derive(Clone, Debug)]
pub struct Plan {
    pub game: GameId,
    /// The rule options every table is built under, `key=value`, defaults included.
    pub rules: Vec<(String, String)>,
    /// The tables folder.
    pub dir: PathBuf,
    pub tables: Vec<PlannedTable>,
}

impl Plan {
    /// Plans the tables of `materials` (canonical) and every table they need, under `rules`,
    /// in the folder `dir`; present tables are verified.
    pub fn new<G: Game>(dir: &Path, rules: G::Rules, materials: &[Material]) -> Result<Plan> {
        let mut plan = Plan {
            game: G::ID,
            rules: rules
                .options()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            dir: dir.to_path_buf(),
            tables: Vec::new(),
        };
        let mut position = HashMap::new();
        for material in materials {
            plan.visit::<G>(material, rules, &mut position)?;
        }
        Ok(plan)
    }

    /// Adds a material after every table it reads (depth first), once.
    fn visit<G: Game>(
        &mut self,
        material: &Material,
        rules: G::Rules,
        position: &mut HashMap<Material, usize>,
    ) -> Result<()> {
        if position.contains_key(material) {
            return Ok(());
        }
        G::check_material(material)?;
        let reads = G::sub_materials(material);
        for sub in &reads {
            self.visit::<G>(sub, rules, position)?;
        }
        let index = G::index(material, rules)?;
        let states = index.states();
        let mapped_states = reads.iter().map(|sub| self.tables[position[sub]].states).sum();
        let path = table_path::<G>(&self.dir, material, rules);
        // Present only when generation would reuse it: the whole file verifies (a compressed
        // table's blocks are checked only when read).
        let presence = if path.exists() {
            match Table::open(&path, &expected_header::<G>(material, rules, &index)).and_then(|t| t.verify()) {
                Ok(_) => Presence::Present,
                Err(e) => Presence::Bad(format!("{e:#}")),
            }
        } else {
            Presence::Missing
        };
        position.insert(*material, self.tables.len());
        self.tables.push(PlannedTable {
            material: *material,
            reads,
            states,
            mapped_states,
            peak_bytes: estimate_peak_bytes(states, mapped_states),
            path,
            presence,
        });
        Ok(())
    }

    /// Where a material is in the plan.
    pub fn position(&self, material: &Material) -> Option<usize> {
        self.tables.iter().position(|t| t.material == *material)
    }

    /// The tables still to build (missing or bad), in dependency order.
    pub fn to_build(&self) -> impl Iterator<Item = &PlannedTable> {
        self.tables.iter().filter(|t| t.presence != Presence::Present)
    }

    /// The rule options as command-line arguments (`--key value`), as `egtb generate` takes them.
    pub fn rule_args(&self) -> Vec<String> {
        self.rules
            .iter()
            .flat_map(|(k, v)| [format!("--{k}"), v.clone()])
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_limits_read_units_and_off() {
        assert_eq!(parse_memory_limit("16G").unwrap(), Some(16 << 30));
        assert_eq!(parse_memory_limit("512m").unwrap(), Some(512 << 20));
        assert_eq!(parse_memory_limit("1.5K").unwrap(), Some(1536));
        assert_eq!(parse_memory_limit("4096").unwrap(), Some(4096));
        assert_eq!(parse_memory_limit("off").unwrap(), None);
        assert!(parse_memory_limit("16Q").is_err());
        assert!(parse_memory_limit("lots").is_err());
    }

    #[test]
    fn a_table_beyond_the_limit_is_refused_with_what_it_needs() {
        let material = Material::parse(GameId::Chess, "KRRvKRR").unwrap();
        let states = 3_000_000_000;
        let needed = estimate_peak_bytes(states, 1000);
        assert!(check_memory(&material, states, 1000, Some(needed)).is_ok());
        assert!(check_memory(&material, states, 1000, None).is_ok());
        let message = format!(
            "{:#}",
            check_memory(&material, states, 1000, Some(needed - 1)).unwrap_err()
        );
        assert!(message.contains("KRRvKRR needs about 5.7 GiB"), "{message}");
        assert!(!message.contains('\n'), "{message}");
    }
}
