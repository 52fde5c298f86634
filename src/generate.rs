//! Generation of tables in dependency order: a table's exits reach smaller tables, which are
//! generated first (or reused after verification), each once; and the choice of solver.
//!
//! Batches resume and share folders: a finished table is a file that verifies, and is reused; a
//! table is built holding its lock (see [`crate::table::lock`]), so two processes on one folder
//! never build it twice at once: in a batch the second builds other tables meanwhile, waiting
//! only when none is left that it could build, and then reuses the first's; a run killed while
//! building leaves only its temporary files (the table's, and a pawn table's slices and frames)
//! and its unlocked lock file, which the next builder of that table removes or takes.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, anyhow, bail};

use crate::counted::{Counted, counted, one_of};
use crate::error::Error;
use crate::games::{Game, IndexSpace, Rules};
use crate::material::Material;
use crate::plan;
use crate::rulings::{self, Ruling};
use crate::shell;
use crate::solver::gpu::{DamagedExit, Gpu, GpuOptions, KernelTime};
use crate::solver::{Progress, Space, slices};
use crate::table::lock::TableLock;
use crate::table::{self, Encoding, Header, LoadedTable, Scratch, SlicedWriter, Table, TableSet};
use crate::value::Entry;
use crate::with_game;

/// Which solver builds tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// The rayon reference solver.
    Cpu,
    /// The wgpu solver; an error when there is no adapter or the game has no GPU rules.
    Gpu,
    /// The GPU when wgpu finds a hardware adapter and the game has GPU rules, else the CPU
    /// (a software driver such as llvmpipe is slower than the CPU solver on the same cores).
    Auto,
}

impl Backend {
    /// Every backend, in the order the command line lists them.
    pub const ALL: [Backend; 3] = [Backend::Gpu, Backend::Cpu, Backend::Auto];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
            Backend::Auto => "auto",
        }
    }

    /// The backend named `cpu`, `gpu` or `auto`.
    pub fn parse(text: &str) -> Result<Backend> {
        match Backend::ALL.into_iter().find(|b| b.name() == text) {
            Some(backend) => Ok(backend),
            None => bail!(
                "unknown backend '{text}' (expected {})",
                one_of(&Backend::ALL.map(Backend::name))
            ),
        }
    }
}

/// What ran a solve: the backend, and the solver in words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SolvedBy {
    /// [`Backend::Cpu`] or [`Backend::Gpu`], never `Auto`.
    pub backend: Backend,
    /// `CPU solver (2 threads)`, `CPU solver (2 threads, by pawn slices)` or
    /// `GPU solver on <adapter>`.
    pub words: String,
}

/// One solve: the entries and what ran them.
pub struct Solved {
    /// The entry of every state, in state order.
    pub entries: Vec<Entry>,
    /// The solver that ran it.
    pub solver: SolvedBy,
    /// The solve's wall time.
    pub wall: Duration,
    /// GPU kernel time from timestamp queries, where the adapter has them.
    pub kernel: Option<KernelTime>,
    /// Positions ruled lost by repetition rules (xiangqi's Asian rules), ordered by state.
    pub rulings: Vec<Ruling>,
    /// Rounds of rulings that ruled something.
    pub rounds: u16,
}

/// Where a solve left its table.
enum SolvedTo {
    /// Solved whole, in memory, not yet written.
    Memory(Solved),
    /// Solved a slice at a time and written.
    File { solver: SolvedBy, wall: Duration },
}

/// What became of a table a generator set out to make available.
enum Claimed {
    /// This process built it: with the table, when kept loaded.
    Built(Option<Box<LoadedTable>>),
    /// Its file was there and verifies: with the table, when kept loaded.
    Found(Option<Box<LoadedTable>>),
    /// Another process is building it.
    Busy,
}

/// How one table came to be available.
#[derive(Clone, Debug)]
pub struct Built {
    /// The table's material.
    pub material: Material,
    /// The table's file.
    pub path: PathBuf,
    /// Its number of states, both sides to move.
    pub states: u64,
    /// The solver and the solve's wall time; `None` when an existing file was verified and reused.
    pub solved: Option<(SolvedBy, Duration)>,
    /// The file's size in bytes.
    pub bytes: u64,
}

/// Generates and loads the tables of one game under one rule set, in a folder.
pub struct Generator<'p, G: Game> {
    dir: PathBuf,
    rules: G::Rules,
    tables: TableSet,
    progress: &'p dyn Progress,
    backend: Backend,
    gpu_options: GpuOptions,
    /// The GPU, opened on first use; the error ([`Error::NoGpu`] when no adapter) when it could
    /// not be.
    gpu: Option<Result<Gpu, Error>>,
    /// How new tables are written.
    encoding: Encoding,
    /// Whether to keep loaded only the tables a solve reads (see [`Generator::lean`]).
    lean: bool,
    /// The largest smaller table (its entries' bytes) loaded whole for a solve.
    whole_exit_bytes: u64,
    /// Materials whose file was built or verified by this generator.
    available: HashSet<Material>,
    /// Materials whose memory need was checked against what the machine has.
    memory_checked: HashSet<Material>,
    /// Tables made available so far, in order.
    pub built: Vec<Built>,
    /// Things a user should know about the run (for example a fallback to the CPU).
    pub notes: Vec<String>,
}

impl<'p, G: Game> Generator<'p, G> {
    /// A generator on the CPU solver.
    pub fn new(dir: &Path, rules: G::Rules, progress: &'p dyn Progress) -> Self {
        Generator {
            dir: dir.to_path_buf(),
            rules,
            tables: TableSet::default(),
            progress,
            backend: Backend::Cpu,
            gpu_options: GpuOptions::default(),
            gpu: None,
            encoding: Encoding::DEFAULT,
            lean: false,
            whole_exit_bytes: plan::WHOLE_EXIT_BYTES,
            available: HashSet::new(),
            memory_checked: HashSet::new(),
            built: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// Chooses the solver for the tables this generator builds.
    pub fn with_backend(mut self, backend: Backend, gpu_options: GpuOptions) -> Self {
        self.backend = backend;
        self.gpu_options = gpu_options;
        self
    }

    /// Chooses how new tables are written (compressed by default).
    pub fn with_encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    /// Reads smaller tables whose entries take more than `bytes` (see
    /// [`plan::WHOLE_EXIT_BYTES`], the default) from disk a block at a time, instead of loading
    /// them whole.
    pub fn with_whole_exit_bytes(mut self, bytes: u64) -> Self {
        self.whole_exit_bytes = bytes;
        self
    }

    /// Keeps in memory only the tables that the table being solved reads (its exits), reading
    /// the others again from disk when needed: the peak of a batch is then one solve and its
    /// exits, not every table made available so far.
    pub fn lean(mut self) -> Self {
        self.lean = true;
        self
    }

    /// The loaded tables.
    pub fn tables(&self) -> &TableSet {
        &self.tables
    }

    /// Unloads every table (they are read again from disk when needed).
    pub fn unload(&mut self) {
        self.tables.clear();
    }

    /// Makes the table of a canonical material available, generating what it needs first.
    pub fn ensure(&mut self, material: &Material) -> Result<&LoadedTable> {
        if self.tables.get(material).is_none() {
            self.ensure_file(material)?;
            if self.tables.get(material).is_none() {
                let table = self.open_loaded(material, true)?;
                self.tables.insert(*material, table);
            }
        }
        self.tables.require(material)
    }

    /// Makes every table that a material's exits reach available.
    pub fn ensure_smaller(&mut self, material: &Material) -> Result<()> {
        G::check_material(material)?;
        self.ensure_batch(&G::sub_materials(material))
    }

    /// Makes sure the file of a material exists and verifies, building it (after the tables its
    /// exits reach) when it is missing. Lean, only a table just solved stays loaded.
    pub fn ensure_file(&mut self, material: &Material) -> Result<()> {
        self.ensure_batch(std::slice::from_ref(material))
    }

    /// Makes the tables of a batch available: `materials` and every table their exits reach,
    /// each after the tables it reads. A table that another process sharing the folder is
    /// building is left for later while this one can build another, so that processes on one
    /// folder share a batch; this one waits only when each table it could build is another's.
    pub fn ensure_batch(&mut self, materials: &[Material]) -> Result<()> {
        let mut left = plan::dependency_order::<G>(materials)?;
        self.check_memory(&left)?;
        left.retain(|m| !self.available.contains(m));
        let missing: HashSet<Material> = left
            .iter()
            .filter(|m| !table_path::<G>(&self.dir, m, self.rules).exists())
            .copied()
            .collect();
        let mut by_another = 0;
        while !left.is_empty() {
            let before = left.len();
            let mut i = 0;
            while i < left.len() {
                let material = left[i];
                let reads_available = G::sub_materials(&material)
                    .iter()
                    .all(|sub| self.available.contains(sub));
                if !reads_available {
                    i += 1;
                    continue;
                }
                match self.load_or_solve(&material, false)? {
                    Claimed::Busy => i += 1,
                    claimed => {
                        by_another += usize::from(self.take(&material, claimed, &missing));
                        left.remove(i);
                    }
                }
            }
            if left.len() == before {
                // Every table this process could build is being built by another: wait for the
                // first, whose reads are all available, as the dependency order puts them first.
                let material = left.remove(0);
                self.progress.waiting(&material.to_string());
                let claimed = self.load_or_solve(&material, true)?;
                by_another += usize::from(self.take(&material, claimed, &missing));
            }
        }
        if by_another > 0 {
            self.notes.push(format!(
                "{} built meanwhile by another process sharing the folder (shown as reused)",
                counted(by_another, "table")
            ));
        }
        Ok(())
    }

    /// Notes a material's table available, and keeps it loaded when it came loaded; tells
    /// whether another process built it meanwhile (found, where it was `missing` at first), which
    /// the batch's progress then counts as done.
    fn take(&mut self, material: &Material, claimed: Claimed, missing: &HashSet<Material>) -> bool {
        let (table, by_another) = match claimed {
            Claimed::Built(table) => (table, false),
            Claimed::Found(table) => (table, missing.contains(material)),
            Claimed::Busy => return false,
        };
        if by_another {
            self.progress.built_elsewhere(&material.to_string());
        }
        if let Some(table) = table {
            self.tables.insert(*material, *table);
        }
        self.available.insert(*material);
        by_another
    }

    /// The missing tables of a batch (`materials` and the tables their exits reach), each with
    /// its states. Refuses, before any work, when one would need more memory than this process
    /// can count on: a batch stops at once rather than after its smaller tables are built.
    pub fn check_batch_memory(&mut self, materials: &[Material]) -> Result<Vec<(Material, u64)>> {
        let tables = plan::dependency_order::<G>(materials)?;
        self.check_memory(&tables)
    }

    /// Refuses, before any work, when a missing table among `tables` would need more memory than
    /// this process can count on ([`crate::memory`]); returns the missing tables not checked
    /// before, with their states.
    fn check_memory(&mut self, tables: &[Material]) -> Result<Vec<(Material, u64)>> {
        let mut missing = Vec::new();
        for &m in tables {
            if !self.memory_checked.insert(m) || table_path::<G>(&self.dir, &m, self.rules).exists() {
                continue;
            }
            missing.push((m, self.check_solve_memory(&m)?));
        }
        Ok(missing)
    }

    /// Refuses when solving `material` on the CPU would need more memory than this process can
    /// count on; returns its states.
    fn check_solve_memory(&self, material: &Material) -> Result<u64> {
        let index = G::index(material, self.rules)?;
        plan::check_memory(
            material,
            index.working_states(),
            plan::held_states(self.exit_states(material)?, self.whole_exit_bytes),
            self.opens_gpu_driver(),
        )?;
        Ok(index.states())
    }

    /// Whether this generator opens a GPU driver: one opened already (`verify` and `bench` open
    /// it first), or a backend that will: `gpu` always, `auto` where the machine has a GPU
    /// device ([`Gpu::absent_hardware`]).
    fn opens_gpu_driver(&self) -> bool {
        matches!(self.gpu, Some(Ok(_)))
            || match self.backend {
                Backend::Cpu => false,
                Backend::Gpu => true,
                Backend::Auto => Gpu::absent_hardware().is_none(),
            }
    }

    /// Refuses when solving `material` on the GPU would need more host memory than this process
    /// can count on.
    fn check_gpu_solve_memory(&self, material: &Material) -> Result<()> {
        let states = G::index(material, self.rules)?.states();
        plan::check_gpu_host_memory(material, states, self.exit_states(material)?.iter().sum())
    }

    /// The states of each smaller table `material`'s exits reach.
    fn exit_states(&self, material: &Material) -> Result<Vec<u64>> {
        G::sub_materials(material)
            .iter()
            .map(|sub| Ok(G::index(sub, self.rules)?.states()))
            .collect()
    }

    /// Builds the table of a material, or verifies its existing file; with it, the table when
    /// it was solved, or when it was read and this generator keeps what it reads. When another
    /// process is building it, waits for that one when `wait`, and is [`Claimed::Busy`] otherwise.
    fn load_or_solve(&mut self, material: &Material, wait: bool) -> Result<Claimed> {
        let spec = TableSpec::<G>::new(&self.dir, material, self.rules)?;
        if spec.path.exists() {
            return Ok(Claimed::Found(self.reuse(material, &spec)?.map(Box::new)));
        }
        let lock = if wait {
            TableLock::acquire(&spec.path)?
        } else {
            match TableLock::try_acquire(&spec.path)? {
                Some(lock) => lock,
                None => return Ok(Claimed::Busy),
            }
        };
        if spec.path.exists() {
            drop(lock);
            return Ok(Claimed::Found(self.reuse(material, &spec)?.map(Box::new)));
        }
        lock.remove_stale_temps()?;
        let TableSpec { index, header, path } = spec;
        let header = Header {
            encoding: self.encoding,
            ..header
        };
        let solved = match self.solve_or_slice(material, self.backend, &path, &header)? {
            SolvedTo::Memory(solved) => solved,
            SolvedTo::File { solver, wall } => {
                drop(lock);
                self.record(material, path, index.states(), Some((solver, wall)))?;
                return Ok(Claimed::Built(None));
            }
        };
        let header = Header {
            rulings: G::may_rule(material, self.rules).then(|| rulings::seal(&solved.rulings)),
            ..header
        };
        if header.rulings.is_some() {
            rulings::write(&rulings::rulings_path(&path), &header.material, &solved.rulings)?;
        }
        let header = table::write(&path, header, &solved.entries, self.progress)?;
        drop(lock);
        let Solved {
            entries, solver, wall, ..
        } = solved;
        let table = LoadedTable::solved(&path, header, entries);
        self.record(material, path, index.states(), Some((solver, wall)))?;
        Ok(Claimed::Built(Some(Box::new(table))))
    }

    /// Verifies an existing table, and loads it unless this generator is lean.
    fn reuse(&mut self, material: &Material, spec: &TableSpec<G>) -> Result<Option<LoadedTable>> {
        let table = if self.lean {
            Table::open(&spec.path, &spec.header)?.verify()?;
            None
        } else {
            Some(LoadedTable::open(&spec.path, &spec.header)?)
        };
        self.record(material, spec.path.clone(), spec.header.states(), None)?;
        Ok(table)
    }

    /// Loads the existing, verified file of a material.
    fn open_loaded(&self, material: &Material, whole: bool) -> Result<LoadedTable> {
        let spec = TableSpec::<G>::new(&self.dir, material, self.rules)?;
        if whole {
            LoadedTable::open(&spec.path, &spec.header)
        } else {
            LoadedTable::open_on_disk(&spec.path, &spec.header)
        }
    }

    /// Notes a table made available, once per material.
    fn record(
        &mut self,
        material: &Material,
        path: PathBuf,
        states: u64,
        solved: Option<(SolvedBy, Duration)>,
    ) -> Result<()> {
        if self.built.iter().all(|b| b.material != *material) {
            let bytes = std::fs::metadata(&path)?.len();
            self.built.push(Built {
                material: *material,
                path,
                states,
                solved,
                bytes,
            });
        }
        Ok(())
    }

    /// Loads the tables a material's exits read (made available before): whole, or read
    /// compressed when larger than [`Generator::whole_exit_bytes`]; lean, unloads every other
    /// table first.
    fn load_exits_of(&mut self, material: &Material) -> Result<()> {
        let exits = G::sub_materials(material);
        if self.lean {
            self.tables.retain(&exits);
        }
        for exit in exits {
            let whole = plan::loads_whole(G::index(&exit, self.rules)?.states(), self.whole_exit_bytes);
            if self.tables.get(&exit).is_some_and(|t| whole || !t.is_whole()) {
                continue;
            }
            let table = self.open_loaded(&exit, whole)?;
            self.tables.insert(exit, table);
        }
        Ok(())
    }

    /// Solves a material on the CPU and on the GPU, without writing it, its smaller tables built
    /// first: what `verify` and `bench` compare. Refuses, before any work, a machine without a
    /// GPU adapter, and a material the GPU solver does not take or that either solver lacks the
    /// memory for.
    pub fn solve_both(&mut self, material: &Material) -> Result<(Solved, Solved)> {
        opened(
            &mut self.gpu,
            ", which comparing the GPU solver with the CPU solver needs",
        )?;
        G::check_gpu_material(material, self.rules)?;
        self.check_solve_memory(material)?;
        self.check_gpu_solve_memory(material)?;
        self.ensure_smaller(material)?;
        Ok((self.solve(material, Backend::Cpu)?, self.solve(material, Backend::Gpu)?))
    }

    /// Solves a material whose smaller tables are available, without writing it.
    pub fn solve(&mut self, material: &Material, backend: Backend) -> Result<Solved> {
        let index = self.prepare(material)?;
        match self.try_gpu(material, &index, backend)? {
            Some(solved) => Ok(solved),
            None => self.solve_on_cpu(material, &index),
        }
    }

    /// Solves a material whose smaller tables are available: on the CPU, a table that the
    /// game cuts into slices is solved a slice at a time and written to `path` with `header`
    /// (only one slice in memory); any other is solved whole and returned.
    fn solve_or_slice(
        &mut self,
        material: &Material,
        backend: Backend,
        path: &Path,
        header: &Header,
    ) -> Result<SolvedTo> {
        let index = self.prepare(material)?;
        if let Some(solved) = self.try_gpu(material, &index, backend)? {
            return Ok(SolvedTo::Memory(solved));
        }
        let start = Instant::now();
        let space = G::space(&index, self.rules, &self.tables)?;
        let Some(sliced) = space.sliced() else {
            return self.solve_on_cpu(material, &index).map(SolvedTo::Memory);
        };
        // A compressed table's blocks are compressed as its slices are solved, which the solve's
        // time then includes.
        let wall = if header.encoding == Encoding::Raw {
            let mut scratch = Scratch::beside(path, index.states())?;
            slices::solve(sliced, &mut scratch, self.progress)?;
            self.check_reached(material)?;
            let wall = start.elapsed();
            table::write_from(path, header.clone(), &scratch, self.progress)?;
            wall
        } else {
            let mut writer = SlicedWriter::create(path, header.clone(), sliced.outside())?;
            slices::solve(sliced, &mut writer, self.progress)?;
            self.check_reached(material)?;
            let wall = start.elapsed();
            writer.finish()?;
            wall
        };
        Ok(SolvedTo::File {
            solver: SolvedBy {
                backend: Backend::Cpu,
                words: format!("CPU solver ({}, by pawn slices)", threads()),
            },
            wall,
        })
    }

    /// The index of a material about to be solved, its smaller tables loaded and its progress
    /// begun.
    fn prepare(&mut self, material: &Material) -> Result<G::Index> {
        let index = G::index(material, self.rules)?;
        self.load_exits_of(material)?;
        self.progress.table(&material.to_string());
        Ok(index)
    }

    /// The GPU solve of a material, when `backend` takes the GPU: `None` when it is the CPU's
    /// (asked for, or chosen by `auto`, with a note saying why).
    fn try_gpu(&mut self, material: &Material, index: &G::Index, backend: Backend) -> Result<Option<Solved>> {
        if backend == Backend::Cpu {
            return Ok(None);
        }
        let found = match Gpu::absent_hardware().filter(|_| backend == Backend::Auto) {
            Some(reason) => Err(anyhow!(reason)),
            None => self.solve_on_gpu(material, index, backend),
        };
        match found {
            Ok(solved) => Ok(Some(solved)),
            Err(e) if backend == Backend::Auto => {
                let note = format!("auto backend chose the CPU solver: {e:#}");
                if !self.notes.contains(&note) {
                    self.notes.push(note);
                }
                Ok(None)
            }
            Err(e) => Err(e),
        }
    }

    /// The CPU solve of a whole material, its smaller tables loaded.
    fn solve_on_cpu(&self, material: &Material, index: &G::Index) -> Result<Solved> {
        let start = Instant::now();
        let solution = G::solve_cpu(index, self.rules, &self.tables, self.progress)?;
        self.check_reached(material)?;
        let solver = SolvedBy {
            backend: Backend::Cpu,
            words: format!("CPU solver ({})", threads()),
        };
        Ok(Solved {
            entries: solution.entries,
            solver,
            wall: start.elapsed(),
            kernel: None,
            rulings: solution.rulings,
            rounds: solution.rounds,
        })
    }

    /// Fails when a solve of `material` read, in a smaller table, what no solver writes there
    /// ([`LoadedTable::reached_value`]), so that its table is not written.
    fn check_reached(&self, material: &Material) -> Result<()> {
        self.smaller_tables(material)
            .into_iter()
            .try_for_each(LoadedTable::check_reached)
    }

    /// The smaller tables loaded for a solve of `material`.
    fn smaller_tables(&self, material: &Material) -> Vec<&LoadedTable> {
        G::sub_materials(material)
            .iter()
            .filter_map(|sub| self.tables.get(sub))
            .collect()
    }

    /// A GPU solve of `material` that read what no solver writes in a smaller table
    /// ([`DamagedExit`]) fails naming the file: the one holding a DTM beyond the longest a move
    /// may reach, else (a legal position marked broken, which only the moves tell) the one that
    /// the CPU solver finds, solving the material again.
    fn name_damaged_exit(&self, material: &Material, index: &G::Index, error: anyhow::Error) -> anyhow::Error {
        if !error.is::<DamagedExit>() {
            return error;
        }
        let smaller = self.smaller_tables(material);
        if let Some(damaged) = smaller.iter().find_map(|table| table.check_dtms().err()) {
            return damaged;
        }
        match self.solve_on_cpu(material, index) {
            Err(named) => named,
            Ok(_) => anyhow!("{error}, where the CPU solver finds none: generate {material} with --backend cpu"),
        }
    }

    fn solve_on_gpu(&mut self, material: &Material, index: &G::Index, backend: Backend) -> Result<Solved> {
        self.check_gpu_solve_memory(material)?;
        let gpu = opened(&mut self.gpu, ", or generate with --backend cpu")?;
        if backend == Backend::Auto && gpu.is_software() {
            bail!(
                "the only adapter, {}, is a software driver (use --backend gpu to run it anyway)",
                gpu.description()
            );
        }
        // After the adapter is known: the rules of a pawn table pack its smaller tables' entries,
        // hundreds of megabytes that a fallback to the CPU solver would not need.
        let rules = G::gpu_rules(index, self.rules, &self.tables)?;
        let start = Instant::now();
        let solver = SolvedBy {
            backend: Backend::Gpu,
            words: format!("GPU solver on {}", gpu.description()),
        };
        let solution = gpu.solve(rules.as_ref(), &self.gpu_options, self.progress);
        let solution = solution.map_err(|error| self.name_damaged_exit(material, index, error))?;
        Ok(Solved {
            entries: solution.entries,
            solver,
            wall: start.elapsed(),
            kernel: solution.kernel_time,
            rulings: solution.rulings,
            rounds: solution.rounds,
        })
    }
}

/// The GPU of `slot`, opened the first time; where there is no adapter, the error's fix ends
/// with `fix` (what the command could do instead).
fn opened<'g>(slot: &'g mut Option<Result<Gpu, Error>>, fix: &str) -> Result<&'g Gpu> {
    match slot.get_or_insert_with(|| Gpu::open().map_err(Error::from)) {
        Ok(gpu) => Ok(gpu),
        Err(Error::NoGpu { reason }) => Err(Error::NoGpu {
            reason: format!("{reason}{fix}"),
        }
        .into()),
        Err(e) => Err(e.clone().into()),
    }
}

/// The CPU solver's worker threads, for the summary.
fn threads() -> Counted {
    counted(rayon::current_num_threads(), "thread")
}

/// Where the table of a canonical material lives.
pub fn table_path<G: Game>(dir: &Path, material: &Material, rules: G::Rules) -> PathBuf {
    table::table_path(dir, G::ID, material, &rules.options())
}

/// The header a table of this material must carry (checksum left 0, encoding the default).
pub fn expected_header<G: Game>(material: &Material, rules: G::Rules, index: &G::Index) -> Header {
    let per_side = index.states() / 2;
    Header {
        game: G::ID,
        rules: rules.option_strings(),
        material: material.to_string(),
        metric: "dtm".to_string(),
        index_version: G::INDEX_VERSION,
        states_per_side: [per_side, per_side],
        checksum: 0,
        index_checksum: 0,
        encoding: Encoding::DEFAULT,
        rulings: None,
    }
}

/// The table of a canonical material under one rule set in one folder, as this build reads and
/// writes it: its index, the header its file must carry and the file's path, which generation,
/// planning and probing each need before they touch the file.
pub struct TableSpec<G: Game> {
    /// The material's index space.
    pub index: G::Index,
    /// The header the file must carry ([`expected_header`]).
    pub header: Header,
    /// Where the file is, or is to be written ([`table_path`]).
    pub path: PathBuf,
}

impl<G: Game> TableSpec<G> {
    /// The table of `material` in `dir` under `rules`; an error when the game has no index for
    /// the material.
    pub fn new(dir: &Path, material: &Material, rules: G::Rules) -> Result<Self> {
        let index = G::index(material, rules)?;
        Ok(TableSpec {
            header: expected_header::<G>(material, rules, &index),
            path: table_path::<G>(dir, material, rules),
            index,
        })
    }

    /// The table of `material` as [`TableSpec::new`] gives it, which must be in `dir`: an error
    /// naming the command that builds it when it is missing.
    fn existing(dir: &Path, material: &Material, rules: G::Rules) -> Result<Self> {
        G::check_material(material)?;
        let spec = TableSpec::new(dir, material, rules)?;
        if !spec.path.exists() {
            return Err(missing_table::<G>(dir, material, rules));
        }
        Ok(spec)
    }
}

/// The error for a table of a canonical material that is not in `dir`, naming the command that
/// builds it.
pub fn missing_table<G: Game>(dir: &Path, material: &Material, rules: G::Rules) -> anyhow::Error {
    Error::MissingTable {
        material: *material,
        path: table_path::<G>(dir, material, rules),
        command: generate_command::<G>(dir, material, rules),
        needed_by: None,
    }
    .into()
}

/// The command line that builds the table of a canonical material in `dir`, with the smaller
/// tables it reads.
pub fn generate_command<G: Game>(dir: &Path, material: &Material, rules: G::Rules) -> String {
    format!(
        "egtb generate {} {material}{} {}",
        G::ID,
        rules.flags(),
        shell::tables_option(dir)
    )
}

/// Fails unless a table file found in the folder `dir` is the table its place there names
/// (not another table's under its name), as this build writes it (game, material, rules,
/// metric, index version and state count), so that a file of an older build, say, is refused
/// where it is listed, served or converted, as where it is read.
pub fn check_found(table: &Table, dir: &Path) -> Result<()> {
    table.check_place(dir)?;
    let h = &table.header;
    with_game!(h.game, G => {
        let rules = G::rules(&h.rules)?;
        let material = Material::parse(G::ID, &h.material)?;
        G::check_material(&material)?;
        let index = G::index(&material, rules)?;
        table.check_header(&expected_header::<G>(&material, rules, &index))
    })
}

/// Opens the existing table of a canonical material for probing, with a clear error naming the
/// command that builds it when it is missing.
pub fn open_table<G: Game>(dir: &Path, material: &Material, rules: G::Rules) -> Result<(G::Index, Table)> {
    let spec = TableSpec::<G>::existing(dir, material, rules)?;
    let table = Table::open(&spec.path, &spec.header)?;
    Ok((spec.index, table))
}

/// Opens the existing table of a canonical material as [`open_table`] does, its header checked
/// but not its entries: for a pass over every entry ([`Table::map_reduce`]), which checks them
/// as it reads them, so that a raw table is not read twice.
pub fn open_table_for_pass<G: Game>(dir: &Path, material: &Material, rules: G::Rules) -> Result<(G::Index, Table)> {
    let spec = TableSpec::<G>::existing(dir, material, rules)?;
    let table = Table::open_unchecked(&spec.path)?;
    table.check_header(&spec.header)?;
    Ok((spec.index, table))
}
