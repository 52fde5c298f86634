//! `egtb compress` and `egtb decompress`: rewrite tables in place in the other encoding.

use std::path::PathBuf;

use anyhow::{Result, bail};
use serde_json::json;

use super::{Env, parse_material};
use crate::counted::counted;
use crate::games::Game;
use crate::generate::table_path;
use crate::progress::Bar;
use crate::table::{Encoding, convert, table_files};

/// The tables of game `G` to convert: the named materials' under the command line's rules, or
/// every table of the game in the folder.
pub fn files<G: Game>(env: &Env, materials: &[String]) -> Result<Vec<PathBuf>> {
    if materials.is_empty() {
        let folder = env.tables.join(G::ID.name());
        return Ok(table_files(&env.tables)
            .into_iter()
            .filter(|p| p.parent() == Some(folder.as_path()))
            .collect());
    }
    let rules = env.rules::<G>()?;
    materials
        .iter()
        .map(|name| {
            let path = table_path::<G>(&env.tables, &parse_material::<G>(name)?.0, rules);
            if !path.exists() {
                bail!("table {name} not found at {}", path.display());
            }
            Ok(path)
        })
        .collect()
}

/// Converts the tables to `encoding`, printing each one's size before and after, with a progress
/// bar while each is written.
pub fn run(env: &Env, encoding: Encoding, files: &[PathBuf]) -> Result<()> {
    let mib = |bytes: u64| bytes as f64 / (1 << 20) as f64;
    let mut rows = Vec::new();
    let (mut before, mut after, mut unchanged) = (0, 0, 0);
    let bar = Bar::new();
    for path in files {
        let converted = convert(path, encoding, &bar).inspect_err(|_| bar.finish())?;
        before += converted.before;
        after += converted.after;
        let file = path.strip_prefix(&env.tables).unwrap_or(path).display().to_string();
        let rewritten = converted.from != converted.to;
        unchanged += usize::from(!rewritten);
        if !env.json {
            let (from, to) = (converted.from.label(), converted.to.label());
            bar.suspend(|| match rewritten {
                true => println!(
                    "{file:<44} {from:<7} {:>10.1} MiB -> {to:<7} {:>10.1} MiB",
                    mib(converted.before),
                    mib(converted.after)
                ),
                false => println!(
                    "{file:<44} {from:<7} {:>10.1} MiB    left as it is (verified)",
                    mib(converted.before)
                ),
            });
        }
        rows.push(json!({
            "file": file,
            "from": converted.from.label(),
            "to": converted.to.label(),
            "rewritten": rewritten,
            "bytes_before": converted.before,
            "bytes_after": converted.after,
        }));
    }
    bar.finish();
    if env.json {
        let out = json!({ "tables": rows, "bytes_before": before, "bytes_after": after });
        println!("{out}");
    } else if files.is_empty() {
        println!("No tables in {}.", env.tables.display());
    } else {
        let ratio = if after <= before {
            format!("{:.2} times smaller", before as f64 / after.max(1) as f64)
        } else {
            format!("{:.2} times larger", after as f64 / before.max(1) as f64)
        };
        let left = match unchanged {
            0 => String::new(),
            1 => "; 1 left as it was".to_string(),
            n => format!("; {n} left as they were"),
        };
        println!(
            "{}: {:.1} MiB -> {:.1} MiB ({ratio}{left})",
            counted(files.len(), "table"),
            mib(before),
            mib(after)
        );
    }
    Ok(())
}
