//! Generation of tables in dependency order: a table's exits reach smaller tables, which are
//! generated first (or reused after verification), each once; and the choice of solver.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use crate::games::{Game, IndexSpace, Rules};
use crate::material::Material;
use crate::rulings;
use crate::solver::Progress;
use crate::solver::gpu::{Gpu, GpuOptions, KernelTime};
use crate::solver::rounds::Ruling;
use crate::table::{self, Header, Table, TableSet};
use crate::value::Entry;

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
    pub fn parse(text: &str) -> Result<Backend> {
        match text {
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu),
            "auto" => Ok(Backend::Auto),
            _ => bail!("unknown backend '{text}' (expected gpu, cpu or auto)"),
        }
    }
}

/// One solve: the entries and what ran them.
pub struct Solved {
    pub entries: Vec<Entry>,
    /// The solver in words: `CPU solver (2 threads)` or `GPU solver on <adapter>`.
    pub solver: String,
    pub wall: Duration,
    /// GPU kernel time from timestamp queries, where the adapter has them.
    pub kernel: Option<KernelTime>,
    /// Positions ruled lost by repetition rules (xiangqi's Asian rules), ordered by state.
    pub rulings: Vec<Ruling>,
    /// Rounds of rulings that ruled something.
    pub rounds: u16,
}

/// How one table came to be available.
#[derive(Clone, Debug)]
pub struct Built {
    pub material: Material,
    pub path: PathBuf,
    pub states: u64,
    /// The solver and the solve's wall time; `None` when an existing file was verified and reused.
    pub solved: Option<(String, Duration)>,
}

/// Generates and loads the tables of one game under one rule set, in a folder.
pub struct Generator<'p, G: Game> {
    dir: PathBuf,
    rules: G::Rules,
    tables: TableSet,
    progress: &'p dyn Progress,
    backend: Backend,
    gpu_options: GpuOptions,
    /// The GPU, opened on first use; the error when it could not be.
    gpu: Option<Result<Gpu, String>>,
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

    /// The loaded tables.
    pub fn tables(&self) -> &TableSet {
        &self.tables
    }

    /// Makes the table of a canonical material available, generating what it needs first.
    pub fn ensure(&mut self, material: &Material) -> Result<&Table> {
        if self.tables.get(material).is_none() {
            self.ensure_smaller(material)?;
            let table = self.load_or_solve(material)?;
            self.tables.insert(*material, table);
        }
        self.tables.require(material)
    }

    /// Makes every table that a material's exits reach available.
    pub fn ensure_smaller(&mut self, material: &Material) -> Result<()> {
        G::check_material(material)?;
        for sub in G::sub_materials(material) {
            self.ensure(&sub)?;
        }
        Ok(())
    }

    fn load_or_solve(&mut self, material: &Material) -> Result<Table> {
        let index = G::index(material, self.rules)?;
        let expect = expected_header::<G>(material, self.rules, &index);
        let path = table_path::<G>(&self.dir, material, self.rules);
        if path.exists() {
            let table = Table::open(&path, &expect)?;
            self.built.push(Built {
                material: *material,
                path,
                states: index.states(),
                solved: None,
            });
            return Ok(table);
        }
        let solved = self.solve(material, self.backend)?;
        if !solved.rulings.is_empty() {
            rulings::write(&rulings::rulings_path(&path), &expect.material, &solved.rulings)?;
        }
        table::write(&path, expect.clone(), &solved.entries)?;
        let Solved {
            entries, solver, wall, ..
        } = solved;
        // Free the working copy before mapping the file, so the two never add to the peak.
        drop(entries);
        let table = Table::open(&path, &expect)?;
        self.built.push(Built {
            material: *material,
            path,
            states: index.states(),
            solved: Some((solver, wall)),
        });
        Ok(table)
    }

    /// Solves a material whose smaller tables are available, without writing it.
    pub fn solve(&mut self, material: &Material, backend: Backend) -> Result<Solved> {
        let index = G::index(material, self.rules)?;
        self.progress.table(&material.to_string());
        if backend != Backend::Cpu {
            match self.solve_on_gpu(&index, backend) {
                Ok(solved) => return Ok(solved),
                Err(e) if backend == Backend::Auto => {
                    let note = format!("auto backend chose the CPU solver: {e:#}");
                    if !self.notes.contains(&note) {
                        self.notes.push(note);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        let start = Instant::now();
        let solution = G::solve_cpu(&index, self.rules, &self.tables, self.progress)?;
        let solver = format!("CPU solver ({} threads)", rayon::current_num_threads());
        Ok(Solved {
            entries: solution.entries,
            solver,
            wall: start.elapsed(),
            kernel: None,
            rulings: solution.rulings,
            rounds: solution.rounds,
        })
    }

    fn solve_on_gpu(&mut self, index: &G::Index, backend: Backend) -> Result<Solved> {
        let Some(rules) = G::gpu_rules(index, self.rules, &self.tables)? else {
            bail!("{} has no GPU rules module yet", G::ID);
        };
        let gpu = match self
            .gpu
            .get_or_insert_with(|| Gpu::open().map_err(|e| format!("{e:#}")))
        {
            Ok(gpu) => gpu,
            Err(e) => bail!("{e}"),
        };
        if backend == Backend::Auto && gpu.is_software() {
            bail!(
                "the only adapter, {}, is a software driver (use --backend gpu to run it anyway)",
                gpu.description()
            );
        }
        let start = Instant::now();
        let solution = gpu.solve(rules.as_ref(), &self.gpu_options, self.progress)?;
        let solver = format!("GPU solver on {}", gpu.description());
        Ok(Solved {
            entries: solution.entries,
            solver,
            wall: start.elapsed(),
            kernel: solution.kernel_time,
            rulings: Vec::new(),
            rounds: 0,
        })
    }
}

/// Where the table of a canonical material lives.
pub fn table_path<G: Game>(dir: &Path, material: &Material, rules: G::Rules) -> PathBuf {
    table::table_path(dir, G::ID, material, &rules.options())
}

/// The header a table of this material must carry (checksum left 0).
pub fn expected_header<G: Game>(material: &Material, rules: G::Rules, index: &G::Index) -> Header {
    let per_side = index.states() / 2;
    Header {
        game: G::ID,
        rules: rules
            .options()
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        material: material.to_string(),
        metric: "dtm".to_string(),
        index_version: G::INDEX_VERSION,
        states_per_side: [per_side, per_side],
        checksum: 0,
    }
}

/// Opens the existing table of a canonical material, with a clear error naming the command that
/// builds it when it is missing.
pub fn open_table<G: Game>(dir: &Path, material: &Material, rules: G::Rules) -> Result<(G::Index, Table)> {
    G::check_material(material)?;
    let index = G::index(material, rules)?;
    let path = table_path::<G>(dir, material, rules);
    if !path.exists() {
        let options: String = rules.options().iter().map(|(k, v)| format!(" --{k} {v}")).collect();
        bail!(
            "table {material} not found at {}; build it with: egtb generate {} {material}{options} --tables {}",
            path.display(),
            G::ID,
            dir.display()
        );
    }
    let table = Table::open(&path, &expected_header::<G>(material, rules, &index))?;
    Ok((index, table))
}
