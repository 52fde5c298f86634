//! The plan of a batch: every table it needs in dependency order (each after the tables its
//! exits read), with its state count, estimated peak memory and whether it is already present,
//! so that a batch can be split into one job per table on a cluster ([`slurm`]).

pub mod slurm;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use anyhow::Result;

use crate::counted::{bytes, counted};
use crate::error::error_line;
use crate::games::{Game, IndexSpace, Rules};
use crate::generate::TableSpec;
use crate::material::{GameId, Material};
use crate::memory;
use crate::table::Table;
use crate::table::lock::TableLock;

/// Bytes a state of the table being built takes while it is solved: one 16-bit word, the entry
/// or, while the state is unresolved, its HP counter.
pub const WORKING_BYTES_PER_STATE: u64 = 2;
/// States of the table being built per byte of the solver's frontier (where each layer's states
/// may be: a 16-bit bound per 64 states and two bits per 16, 0.05 bytes a state, rounded up).
pub const STATES_PER_FRONTIER_BYTE: u64 = 16;
/// Bytes a state of a smaller table takes once loaded (read or decompressed into memory).
pub const LOADED_BYTES_PER_STATE: u64 = 2;
/// The largest smaller table (its entries' bytes) that generation loads whole; a larger one is
/// read from disk, each thread reading (and decompressing) the few blocks it needs (the
/// promotions of a 5-piece pawn table reach 5-piece tables of 108 to 328 million states), and
/// counts for nothing in the estimate.
pub const WHOLE_EXIT_BYTES: u64 = 64 << 20;

/// Whether generation loads a smaller table of `states` states whole, given the largest it
/// loads whole (`limit` bytes of entries, [`WHOLE_EXIT_BYTES`] by default).
pub fn loads_whole(states: u64, limit: u64) -> bool {
    LOADED_BYTES_PER_STATE * states <= limit
}

/// The states of smaller tables of `states` states each that generation loads whole, given the
/// largest it loads whole (`limit` bytes, as in [`loads_whole`]).
pub fn held_states(states: impl IntoIterator<Item = u64>, limit: u64) -> u64 {
    states.into_iter().filter(|&s| loads_whole(s, limit)).sum()
}

/// The program beside the tables: its code, its threads, the table writer's buffer and its
/// compression contexts (9 to 19 MiB measured generating 3- and 4-piece tables on the CPU).
pub const PROGRAM_BYTES: u64 = 32 << 20;
/// A GPU driver, which the `gpu` backend opens, and the `auto` backend where the machine has a
/// GPU device (73 MiB measured with Mesa's llvmpipe; hardware drivers differ).
pub const GPU_DRIVER_BYTES: u64 = 96 << 20;
/// What a run holds beside its tables when it opens a GPU driver, as a plan assumes (a job may
/// land on a node with a GPU): the program and the driver.
pub const BASE_BYTES: u64 = PROGRAM_BYTES + GPU_DRIVER_BYTES;

/// Estimated peak resident memory of generating a table whose solver holds `states` states at
/// once (see [`IndexSpace::working_states`]) while the smaller
/// tables its exits read whole, `loaded_states` states in all (see [`held_states`]), are loaded
/// (generation keeps only those:
/// see [`crate::generate::Generator::lean`]), and `rule_bytes` a state for the rules' own
/// passes ([`Game::rule_bytes_per_state`]), with a GPU driver open ([`BASE_BYTES`]). The one
/// place where generation's memory is estimated before the work.
pub fn estimate_peak_bytes(states: u64, loaded_states: u64, rule_bytes: u64) -> u64 {
    BASE_BYTES
        + (WORKING_BYTES_PER_STATE + rule_bytes) * states
        + states / STATES_PER_FRONTIER_BYTE
        + LOADED_BYTES_PER_STATE * loaded_states
}

/// An error, before any work, when generating a table would need more memory than this process
/// can count on ([`crate::memory`]); a run that opens no GPU driver (`opens_gpu_driver` false)
/// is not charged for one. The rules' own passes are left out: their worst-case
/// allowance would refuse tables that fit (KRCvKR's Asian graph takes a third of it), and
/// xiangqi's Asian graph, the one such pass, is estimated from the draws and checked the same
/// way when the first round builds it.
pub fn check_memory(material: &Material, states: u64, loaded_states: u64, opens_gpu_driver: bool) -> Result<()> {
    let (driver, beside) = if opens_gpu_driver {
        (0, "the program and a GPU driver")
    } else {
        (GPU_DRIVER_BYTES, "the program")
    };
    memory::ensure_available(
        estimate_peak_bytes(states, loaded_states, 0) - driver,
        &format!(
            "generating {material} ({} at {WORKING_BYTES_PER_STATE} bytes and 1/{STATES_PER_FRONTIER_BYTE} \
             for the frontier, {} of smaller tables at {LOADED_BYTES_PER_STATE}, and {} for {beside})",
            counted(states, "state"),
            counted(loaded_states, "state"),
            bytes(BASE_BYTES - driver)
        ),
    )
}

/// Bytes of host memory a state of the table takes in a GPU solve: its entries read back.
pub const GPU_HOST_BYTES_PER_STATE: u64 = 2;
/// Bytes of host memory a state of a smaller table takes in a GPU solve: its entries packed for
/// the upload, and the upload's staging copy.
pub const GPU_HOST_BYTES_PER_EXIT_STATE: u64 = 4;

/// Estimated peak host memory of solving a table of `states` states on the GPU: it reads back
/// the whole table and uploads every smaller table its exits reach whole (`exit_states` in all).
pub fn estimate_gpu_host_bytes(states: u64, exit_states: u64) -> u64 {
    BASE_BYTES + GPU_HOST_BYTES_PER_STATE * states + GPU_HOST_BYTES_PER_EXIT_STATE * exit_states
}

/// An error, before the GPU solver starts, when its host memory
/// ([`estimate_gpu_host_bytes`]) would be more than this process can count on.
pub fn check_gpu_host_memory(material: &Material, states: u64, exit_states: u64) -> Result<()> {
    memory::ensure_available(
        estimate_gpu_host_bytes(states, exit_states),
        &format!(
            "solving {material} on the GPU ({} read back at {GPU_HOST_BYTES_PER_STATE} bytes, {} of \
             smaller tables uploaded at {GPU_HOST_BYTES_PER_EXIT_STATE}, and {} for the program and the \
             driver)",
            counted(states, "state"),
            counted(exit_states, "state"),
            bytes(BASE_BYTES)
        ),
    )
}

/// Whether a table's file is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Presence {
    /// No file: the table is to be built.
    Missing,
    /// No file yet, and another process holds the table's lock: it is being built.
    Building,
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
            Presence::Building => "building",
            Presence::Present => "present",
            Presence::Bad(_) => "bad",
        }
    }
}

/// `materials` (canonical) and every table their exits reach, each after the tables it reads
/// (depth first), each once.
pub fn dependency_order<G: Game>(materials: &[Material]) -> Result<Vec<Material>> {
    fn visit<G: Game>(material: &Material, seen: &mut HashSet<Material>, order: &mut Vec<Material>) -> Result<()> {
        if !seen.insert(*material) {
            return Ok(());
        }
        G::check_material(material)?;
        for sub in G::sub_materials(material) {
            visit::<G>(&sub, seen, order)?;
        }
        order.push(*material);
        Ok(())
    }
    let (mut seen, mut order) = (HashSet::new(), Vec::new());
    for material in materials {
        visit::<G>(material, &mut seen, &mut order)?;
    }
    Ok(order)
}

/// One table of a batch.
#[derive(Clone, Debug)]
pub struct PlannedTable {
    /// The table's material.
    pub material: Material,
    /// The tables this one's exits read directly (each earlier in the plan).
    pub reads: Vec<Material>,
    /// Its number of states, both sides to move.
    pub states: u64,
    /// States the CPU solver holds at once (see [`IndexSpace::working_states`]).
    pub working_states: u64,
    /// States of the tables it reads that generating it loads whole.
    pub loaded_states: u64,
    /// Bytes a state allowed for the rules' own passes ([`Game::rule_bytes_per_state`]).
    pub rule_bytes: u64,
    /// [`estimate_peak_bytes`] of this table: generating it with the CPU solver.
    pub peak_bytes: u64,
    /// [`estimate_gpu_host_bytes`] of this table: the host memory of solving it on the GPU;
    /// `None` where the GPU solver does not take it ([`Game::check_gpu_material`]).
    pub gpu_host_bytes: Option<u64>,
    /// Where its file is, or is to be written.
    pub path: PathBuf,
    /// Whether its file is there, and usable.
    pub presence: Presence,
}

/// The tables of a batch in dependency order.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The game of every table.
    pub game: GameId,
    /// The rule options every table is built under, `key=value`, defaults included.
    pub rules: Vec<(String, String)>,
    /// The tables folder.
    pub dir: PathBuf,
    /// The tables, each after the tables it reads.
    pub tables: Vec<PlannedTable>,
}

impl Plan {
    /// Plans the tables of `materials` (canonical) and every table they need, under `rules`,
    /// in the folder `dir`; present tables are verified.
    pub fn new<G: Game>(dir: &Path, rules: G::Rules, materials: &[Material]) -> Result<Plan> {
        let mut plan = Plan {
            game: G::ID,
            rules: rules.option_strings(),
            dir: dir.to_path_buf(),
            tables: Vec::new(),
        };
        let mut position: HashMap<Material, usize> = HashMap::new();
        for material in dependency_order::<G>(materials)? {
            let reads = G::sub_materials(&material);
            let TableSpec { index, header, path } = TableSpec::<G>::new(dir, &material, rules)?;
            let (states, working_states) = (index.states(), index.working_states());
            let read_states: Vec<u64> = reads.iter().map(|sub| plan.tables[position[sub]].states).collect();
            let loaded_states = held_states(read_states.iter().copied(), WHOLE_EXIT_BYTES);
            let rule_bytes = G::rule_bytes_per_state(&material, rules);
            // Present only when generation would reuse it: the whole file verifies (a compressed
            // table's blocks are checked only when read).
            let presence = if path.exists() {
                match Table::open(&path, &header).and_then(|t| t.verify()) {
                    Ok(_) => Presence::Present,
                    Err(e) => Presence::Bad(error_line(&e)),
                }
            } else if TableLock::is_held(&path) {
                Presence::Building
            } else {
                Presence::Missing
            };
            position.insert(material, plan.tables.len());
            plan.tables.push(PlannedTable {
                material,
                reads,
                states,
                working_states,
                loaded_states,
                rule_bytes,
                peak_bytes: estimate_peak_bytes(working_states, loaded_states, rule_bytes),
                gpu_host_bytes: G::check_gpu_material(&material, rules)
                    .is_ok()
                    .then(|| estimate_gpu_host_bytes(states, read_states.iter().sum())),
                path,
                presence,
            });
        }
        Ok(plan)
    }

    /// Where a material is in the plan.
    pub fn position(&self, material: &Material) -> Option<usize> {
        self.tables.iter().position(|t| t.material == *material)
    }

    /// The tables not present (missing, being built, or bad), in dependency order.
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
