//! `egtb list`: the tables in the folder, their encoding and size, whether they verify, and the
//! totals; it fails when a table does not verify.

use std::path::Path;

use anyhow::{Result, bail};
use serde_json::json;

use super::Env;
use crate::counted::{bytes, counted};
use crate::error::error_line;
use crate::generate::check_found;
use crate::material::GameId;
use crate::report::options_json;
use crate::shell::tables_option;
use crate::table::{Table, table_files};

/// One table file found in the folder.
struct Listed {
    /// The file's path, as found under the folder given.
    path: String,
    /// Its name within the folder, as the text shows it.
    file: String,
    bytes: u64,
    /// What the header says, when it could be read.
    about: Option<About>,
    /// `Ok` when the file verifies, else why not.
    check: Result<(), String>,
}

/// What a table's header says of it.
struct About {
    game: GameId,
    material: String,
    rules: Vec<(String, String)>,
    states: u64,
    encoding: String,
}

/// Prints every table file under the folder, with its material, encoding, size and verification.
pub fn run(env: &Env) -> Result<()> {
    env.takes_no_rules("list shows every table, under whichever rules it was built")?;
    let listed: Vec<Listed> = table_files(&env.tables)?
        .iter()
        .map(|p| inspect(&env.tables, p))
        .collect();
    if env.json {
        let tables: Vec<_> = listed
            .iter()
            .map(|l| {
                json!({
                    "path": l.path,
                    "bytes": l.bytes,
                    "game": l.about.as_ref().map(|a| a.game.name()),
                    "material": l.about.as_ref().map(|a| &a.material),
                    "rules": l.about.as_ref().map(|a| options_json(&a.rules)),
                    "states": l.about.as_ref().map(|a| a.states),
                    "encoding": l.about.as_ref().map(|a| &a.encoding),
                    "ok": l.check.is_ok(),
                    "error": l.check.as_ref().err(),
                })
            })
            .collect();
        let totals = Totals::of(&listed);
        let out = json!({
            "tables_dir": env.tables.display().to_string(),
            "exists": env.tables.exists(),
            "tables": tables,
            "total": { "tables": listed.len(), "bytes": totals.bytes, "states": totals.states, "bad": totals.bad },
        });
        println!("{out}");
        return verified(&listed);
    }
    if listed.is_empty() {
        let absent = if env.tables.exists() {
            ""
        } else {
            ": the folder does not exist"
        };
        println!(
            "No tables in {}{absent} (build some with: egtb generate chess KQvK {}).",
            env.tables.display(),
            tables_option(&env.tables)
        );
    }
    let width = listed.iter().map(|l| l.file.len()).max().unwrap_or(0);
    for l in &listed {
        let status = match &l.check {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("BAD: {e}"),
        };
        let (states, encoding) = l.about.as_ref().map_or((String::new(), ""), |a| {
            (counted(a.states, "state").to_string(), a.encoding.as_str())
        });
        println!(
            "{:<width$}  {:>10} {encoding:<7} {:>18}  {status}",
            l.file,
            bytes(l.bytes),
            states
        );
    }
    if !listed.is_empty() {
        println!("{}", total(&listed));
    }
    verified(&listed)
}

/// Fails, once everything is listed, when a table does not verify, naming the files (at most a
/// few), so that a script can tell a folder it can trust.
fn verified(listed: &[Listed]) -> Result<()> {
    /// Files named in the error; every one is in the listing.
    const NAMED: usize = 5;
    let bad: Vec<&str> = listed
        .iter()
        .filter(|l| l.check.is_err())
        .map(|l| l.file.as_str())
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let more = if bad.len() > NAMED { ", ..." } else { "" };
    let (does, fix) = if bad.len() == 1 {
        ("does", "its fix")
    } else {
        ("do", "the fix of each")
    };
    bail!(
        "{} of {} {does} not verify ({}{more}); the listing gives {fix}",
        bad.len(),
        counted(listed.len(), "table"),
        bad[..bad.len().min(NAMED)].join(", "),
    )
}

/// The tables' size on disk and states in all, and how many fail to verify.
struct Totals {
    bytes: u64,
    states: u64,
    bad: usize,
}

impl Totals {
    fn of(listed: &[Listed]) -> Totals {
        Totals {
            bytes: listed.iter().map(|l| l.bytes).sum(),
            states: listed.iter().filter_map(|l| l.about.as_ref()).map(|a| a.states).sum(),
            bad: listed.iter().filter(|l| l.check.is_err()).count(),
        }
    }
}

/// The closing line: how many tables, their size and states, and how many fail to verify.
fn total(listed: &[Listed]) -> String {
    let totals = Totals::of(listed);
    let verdict = match totals.bad {
        0 => "all verify".to_string(),
        bad => format!("{bad} BAD"),
    };
    format!(
        "{}, {}, {}: {verdict}",
        counted(listed.len(), "table"),
        bytes(totals.bytes),
        counted(totals.states, "state")
    )
}

fn inspect(root: &Path, path: &Path) -> Listed {
    let file = path.strip_prefix(root).unwrap_or(path).display().to_string();
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    match Table::open_unchecked(path) {
        Ok(table) => {
            let h = &table.header;
            let about = Some(About {
                game: h.game,
                material: h.material.clone(),
                rules: h.rules.clone(),
                states: h.states(),
                encoding: h.encoding.label(),
            });
            let check = check_found(&table, root)
                .and_then(|()| table.verify())
                .map_err(|e| error_line(&e));
            Listed {
                path: path.display().to_string(),
                file,
                bytes: table.file_bytes(),
                about,
                check,
            }
        }
        Err(e) => Listed {
            path: path.display().to_string(),
            file,
            bytes,
            about: None,
            check: Err(error_line(&e)),
        },
    }
}
