//! `egtb list`: the tables in the folder, their size, and whether they verify.

use std::path::Path;

use anyhow::Result;
use serde_json::json;

use super::Env;
use crate::material::GameId;
use crate::table::{EXTENSION, Table};

/// One table file found in the folder.
struct Listed {
    file: String,
    bytes: u64,
    /// The header's material and rules, when the header could be read.
    about: Option<(String, String, u64)>,
    /// `Ok` when the file verifies, else why not.
    check: Result<(), String>,
}

/// Prints every table file under the folder, with its material, size and verification.
pub fn run(env: &Env) -> Result<()> {
    let mut listed = Vec::new();
    for game in GameId::ALL {
        let dir = env.tables.join(game.name());
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
            .collect();
        paths.sort();
        listed.extend(paths.iter().map(|p| inspect(&env.tables, p)));
    }
    if env.json {
        let out: Vec<_> = listed
            .iter()
            .map(|l| {
                json!({
                    "file": l.file,
                    "bytes": l.bytes,
                    "material": l.about.as_ref().map(|a| &a.0),
                    "rules": l.about.as_ref().map(|a| &a.1),
                    "states": l.about.as_ref().map(|a| a.2),
                    "ok": l.check.is_ok(),
                    "error": l.check.as_ref().err(),
                })
            })
            .collect();
        println!("{}", serde_json::Value::Array(out));
        return Ok(());
    }
    if listed.is_empty() {
        println!(
            "No tables in {} (build some with: egtb generate chess KQvK).",
            env.tables.display()
        );
    }
    for l in &listed {
        let status = match &l.check {
            Ok(()) => "ok".to_string(),
            Err(e) => format!("BAD: {e}"),
        };
        let states = l.about.as_ref().map_or(String::new(), |a| format!("{} states", a.2));
        println!(
            "{:<44} {:>10.1} MiB  {:>18}  {status}",
            l.file,
            l.bytes as f64 / (1 << 20) as f64,
            states
        );
    }
    Ok(())
}

fn inspect(root: &Path, path: &Path) -> Listed {
    let file = path.strip_prefix(root).unwrap_or(path).display().to_string();
    let bytes = std::fs::metadata(path).map_or(0, |m| m.len());
    match Table::open_unchecked(path) {
        Ok(table) => {
            let h = &table.header;
            let rules: Vec<String> = h.rules.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let about = Some((h.material.clone(), rules.join(","), h.states()));
            let check = table.verify().map_err(|e| e.to_string());
            Listed {
                file,
                bytes,
                about,
                check,
            }
        }
        Err(e) => Listed {
            file,
            bytes,
            about: None,
            check: Err(format!("{e:#}")),
        },
    }
}
