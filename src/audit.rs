//! Auditing a table on disk against the rules, independently of how it was built: every
//! position's value must follow from its legal moves, generated forwards and played, and the
//! values the table and its smaller tables give the positions they lead to. A win must have a
//! move to a loss one ply shorter and none to a shorter one, a loss must have every move lead
//! to a win and its longest one ply shorter, a draw must have a drawing move and no winning one,
//! a position without moves must hold what the rules give it, and a slot that is no legal
//! position must be marked broken. Under repetition rules a position the rules ruled lost is
//! accepted when its rulings file names it.
//!
//! The solvers find values backwards, from un-moves and HP counters; the audit reads them
//! forwards, with the move generator `query` uses. An audit of every slot that finds nothing
//! proves the table exact, given its smaller tables: by induction on the distance, every win or
//! loss stored is one in exactly that many plies (its chain of best moves ends in a position the
//! rules end), every position that is won or lost is stored so, and what is stored as a draw is
//! therefore drawn.

use std::collections::HashMap;
use std::fmt;
use std::ops::Range;
use std::path::Path;

use anyhow::Result;
use rayon::prelude::*;

use crate::games::{Game, IndexSpace};
use crate::generate::{open_table, open_table_for_pass};
use crate::material::Material;
use crate::rulings::{self, Ruling};
use crate::solver::Progress;
use crate::table::LoadedTable;
use crate::value::Value;

/// Faults kept with their positions (the first ones by state); the rest are only counted.
pub const SHOWN_FAULTS: usize = 10;

/// Samples audited between two progress updates.
const CHUNK: u64 = 1 << 14;

/// What an audit of one table found.
#[derive(Clone, Debug, Default)]
pub struct Audit {
    /// The table's states.
    pub states: u64,
    /// The slots looked at (every one, or every k-th).
    pub audited: u64,
    /// Of those, slots that are legal positions.
    pub positions: u64,
    /// Of those, positions lost by a ruling of the repetition rules rather than by their moves.
    pub ruled: u64,
    /// Slots whose entry disagrees with the rules.
    pub faults: u64,
    /// The first faults by state, at most [`SHOWN_FAULTS`].
    pub first_faults: Vec<Fault>,
}

impl Audit {
    /// Whether every slot looked at agrees with the rules.
    pub fn is_consistent(&self) -> bool {
        self.faults == 0
    }

    fn fault(&mut self, fault: Fault) {
        self.faults += 1;
        if self.first_faults.len() < SHOWN_FAULTS {
            self.first_faults.push(fault);
        }
    }

    fn add(mut self, other: Audit) -> Audit {
        self.audited += other.audited;
        self.positions += other.positions;
        self.ruled += other.ruled;
        self.faults += other.faults;
        self.first_faults.extend(other.first_faults);
        self.first_faults.sort_by_key(|f| f.state);
        self.first_faults.truncate(SHOWN_FAULTS);
        self
    }
}

/// What the rules say about one slot's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Check {
    /// The slot is no legal position and is marked broken.
    NoPosition,
    /// The position's value follows from its moves.
    Agrees,
    /// The position is lost by a ruling of the repetition rules, which its rulings file names.
    Ruled,
    /// The entry disagrees with the rules.
    Fault(Fault),
}

/// A slot whose entry disagrees with the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The slot.
    pub state: u64,
    /// The position in the game's notation, when the slot is one.
    pub position: Option<String>,
    /// What is wrong (in words, its `Display`).
    pub what: Wrong,
}

/// What is wrong with a slot's entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Wrong {
    /// A slot that is no legal position holds a value instead of being marked broken.
    NotAPosition {
        /// The value it holds.
        stored: Value,
    },
    /// A legal position is marked broken.
    MarkedBroken,
    /// The position has no legal move, yet the rules do not end the game there.
    NoMoveNoEnd,
    /// A move leads to a material that no table among the exits holds.
    ExitMissing {
        /// The position the move leads to.
        to: String,
        /// Its material.
        material: Material,
    },
    /// A move leads to a position that its material's table marks broken.
    ExitBroken {
        /// The position the move leads to.
        to: String,
        /// Its material.
        material: Material,
    },
    /// The entry is not the value the position's moves give.
    WrongValue {
        /// The value the entry holds.
        stored: Value,
        /// The value the moves give.
        found: Value,
    },
}

impl Wrong {
    /// The fault's name for programs (`audit --json`).
    pub fn key(&self) -> &'static str {
        match self {
            Wrong::NotAPosition { .. } => "not_a_position",
            Wrong::MarkedBroken => "marked_broken",
            Wrong::NoMoveNoEnd => "no_move_no_end",
            Wrong::ExitMissing { .. } => "exit_missing",
            Wrong::ExitBroken { .. } => "exit_broken",
            Wrong::WrongValue { .. } => "wrong_value",
        }
    }
}

impl fmt::Display for Wrong {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wrong::NotAPosition { stored } => write!(f, "holds {stored} but is no legal position"),
            Wrong::MarkedBroken => write!(f, "is a legal position marked broken"),
            Wrong::NoMoveNoEnd => write!(f, "has no legal move, yet the rules do not end the game"),
            Wrong::ExitMissing { to, material } => {
                write!(
                    f,
                    "has a move to {to}, of {material}, which no table among its exits holds"
                )
            }
            Wrong::ExitBroken { to, material } => {
                write!(f, "has a move to {to}, which the table of {material} marks broken")
            }
            Wrong::WrongValue { stored, found } => write!(f, "holds {stored}, its moves give {found}"),
        }
    }
}

/// The table of a canonical material and the smaller tables its exits read, open for an audit.
pub struct Auditor<G: Game> {
    material: Material,
    rules: G::Rules,
    index: G::Index,
    table: LoadedTable,
    exits: HashMap<Material, (G::Index, LoadedTable)>,
    rulings: Vec<Ruling>,
}

impl<G: Game> Auditor<G> {
    /// Checks that the tables of `materials` and the smaller tables their exits read are all
    /// there, their headers whole, before a batch spends hours on the first of them.
    pub fn check_present(dir: &Path, materials: &[Material], rules: G::Rules) -> Result<()> {
        for material in materials {
            open_table_for_pass::<G>(dir, material, rules)?;
            for exit in G::sub_materials(material) {
                open_table_for_pass::<G>(dir, &exit, rules)?;
            }
        }
        Ok(())
    }

    /// Opens and verifies the table of a canonical material in `dir` (loaded whole) and the
    /// tables its exits lead into (read from disk a block at a time), with clear errors for any
    /// that is missing or damaged.
    pub fn open(dir: &Path, material: &Material, rules: G::Rules) -> Result<Auditor<G>> {
        let (index, table) = open_table::<G>(dir, material, rules)?;
        let (table, rulings) = table.load_with_rulings()?;
        let mut exits = HashMap::new();
        for exit in G::sub_materials(material) {
            let (index, table) = open_table::<G>(dir, &exit, rules)?;
            exits.insert(exit, (index, table.load_on_disk()?));
        }
        Ok(Auditor {
            material: *material,
            rules,
            index,
            table,
            exits,
            rulings,
        })
    }

    /// Audits every `every`-th slot (1: all of them), in parallel, reporting an `audit` phase
    /// counted in slots.
    pub fn run(&self, every: u64, progress: &dyn Progress) -> Audit {
        let every = every.max(1);
        let states = self.index.states();
        let samples = states.div_ceil(every);
        progress.phase("audit", samples);
        let chunks = samples.div_ceil(CHUNK);
        let audit = (0..chunks)
            .into_par_iter()
            .map(|chunk| {
                let samples = chunk * CHUNK..((chunk + 1) * CHUNK).min(samples);
                let audit = self.audit_range(samples.clone(), every);
                progress.advance(samples.end - samples.start);
                audit
            })
            .reduce(Audit::default, Audit::add);
        Audit { states, ..audit }
    }

    /// Audits the slots `sample * every` for the samples in `samples`.
    fn audit_range(&self, samples: Range<u64>, every: u64) -> Audit {
        let mut audit = Audit::default();
        for state in samples.map(|sample| sample * every) {
            audit.audited += 1;
            match self.check(state) {
                Check::NoPosition => {}
                Check::Agrees => audit.positions += 1,
                Check::Ruled => {
                    audit.positions += 1;
                    audit.ruled += 1;
                }
                Check::Fault(fault) => {
                    audit.positions += u64::from(fault.position.is_some());
                    audit.fault(fault);
                }
            }
        }
        audit
    }

    /// Checks one slot's entry against the rules.
    pub fn check(&self, state: u64) -> Check {
        let entry = self.table.entry(state);
        let fault = |position: Option<String>, what: Wrong| Check::Fault(Fault { state, position, what });
        let Some(position) = self.index.decode(state) else {
            return match Value::from_entry(entry) {
                Some(stored) => fault(None, Wrong::NotAPosition { stored }),
                None => Check::NoPosition,
            };
        };
        let fen = || Some(G::format_position(&position));
        let Some(stored) = Value::from_entry(entry) else {
            return fault(fen(), Wrong::MarkedBroken);
        };
        match self.value_from_moves(&position) {
            Err(what) => fault(fen(), what),
            Ok(found) if found == stored => Check::Agrees,
            Ok(_) if stored == Value::LOST && rulings::find(&self.rulings, state).is_some() => Check::Ruled,
            Ok(found) => fault(fen(), Wrong::WrongValue { stored, found }),
        }
    }

    /// The value a position's moves give it, or what keeps them from giving one.
    fn value_from_moves(&self, position: &G::Position) -> Result<Value, Wrong> {
        let moves = G::legal_moves(position, self.rules);
        if moves.is_empty() {
            return G::game_over(position, self.rules).ok_or(Wrong::NoMoveNoEnd);
        }
        let mut best: Option<Value> = None;
        for mv in moves {
            let child = G::play(position, mv);
            let value = Value::parent_of(self.child_value(&child)?);
            if best.is_none_or(|b| value.preference() > b.preference()) {
                best = Some(value);
            }
        }
        Ok(best.expect("a move was valued"))
    }

    /// The value of a position a move leads to, from this table, a smaller one, or (where no
    /// table holds its material) the rules.
    fn child_value(&self, child: &G::Position) -> Result<Value, Wrong> {
        let (material, oriented) = G::oriented(child);
        let entry = if material == self.material {
            self.table.entry(self.index.locate(&oriented))
        } else if let Some((index, table)) = self.exits.get(&material) {
            table.entry(index.locate(&oriented))
        } else {
            return G::game_over(child, self.rules).ok_or_else(|| Wrong::ExitMissing {
                to: G::format_position(child),
                material,
            });
        };
        Value::from_entry(entry).ok_or_else(|| Wrong::ExitBroken {
            to: G::format_position(child),
            material,
        })
    }
}
