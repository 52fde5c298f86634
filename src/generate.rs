//! Generation of tables in dependency order: a table's exits reach smaller tables, which are
//! generated first (or reused after verification), each once.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{Result, bail};

use crate::games::{Game, IndexSpace, Rules};
use crate::material::Material;
use crate::solver::{Progress, cpu};
use crate::table::{self, Header, Table, TableSet};
use crate::value::Entry;

/// How one table came to be available.
#[derive(Clone, Debug)]
pub struct Built {
    pub material: Material,
    pub path: PathBuf,
    pub states: u64,
    /// `None` when an existing file was verified and reused.
    pub solve_time: Option<Duration>,
}

/// Generates and loads the tables of one game under one rule set, in a folder.
pub struct Generator<'p, G: Game> {
    dir: PathBuf,
    rules: G::Rules,
    tables: TableSet,
    progress: &'p dyn Progress,
    /// Tables made available so far, in order.
    pub built: Vec<Built>,
}

impl<'p, G: Game> Generator<'p, G> {
    pub fn new(dir: &Path, rules: G::Rules, progress: &'p dyn Progress) -> Self {
        Generator {
            dir: dir.to_path_buf(),
            rules,
            tables: TableSet::default(),
            progress,
            built: Vec::new(),
        }
    }

    /// The loaded tables.
    pub fn tables(&self) -> &TableSet {
        &self.tables
    }

    /// Makes the table of a canonical material available, generating what it needs first.
    pub fn ensure(&mut self, material: &Material) -> Result<&Table> {
        if self.tables.get(material).is_none() {
            G::check_material(material)?;
            for sub in G::sub_materials(material) {
                self.ensure(&sub)?;
            }
            let table = self.load_or_solve(material)?;
            self.tables.insert(*material, table);
        }
        self.tables.require(material)
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
                solve_time: None,
            });
            return Ok(table);
        }
        self.progress.table(&material.to_string());
        let start = Instant::now();
        let entries = self.solve(&index)?;
        let solve_time = start.elapsed();
        table::write(&path, expect.clone(), &entries)?;
        // Free the working copy before mapping the file, so the two never add to the peak.
        drop(entries);
        let table = Table::open(&path, &expect)?;
        self.built.push(Built {
            material: *material,
            path,
            states: index.states(),
            solve_time: Some(solve_time),
        });
        Ok(table)
    }

    fn solve(&self, index: &G::Index) -> Result<Vec<Entry>> {
        let space = G::space(index, self.rules, &self.tables)?;
        Ok(cpu::solve(&space, self.progress))
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
