//! `egtb compress` and `egtb decompress`: rewrite tables in place in the other encoding.

use std::path::PathBuf;

use anyhow::{Result, bail};
use serde_json::json;

use super::Env;
use crate::counted::{bytes, counted};
use crate::error::error_line;
use crate::games::Game;
use crate::generate::{check_found, missing_table, table_path};
use crate::material::GameId;
use crate::progress::Bar;
use crate::table::{Encoding, Table, convert, table_files};
use crate::with_game;

/// `egtb compress` or `decompress` (`command`): converts every table in the folder, `game`'s, or
/// the named materials' to `encoding`.
pub fn run(env: &Env, command: &str, encoding: Encoding, game: Option<&str>, materials: &[String]) -> Result<()> {
    let game = game.map(GameId::parse).transpose()?;
    // A folder that is not there is a mistyped one: converting nothing in it is no success.
    if !env.tables.exists() {
        bail!(
            "no tables folder at {}: give the folder that holds the tables with --tables",
            env.tables.display()
        );
    }
    let files = match game {
        None => {
            env.refuse_options(command)?;
            table_files(&env.tables)?
        }
        Some(game) => with_game!(game, G => files::<G>(env, materials)?),
    };
    convert_files(env, encoding, &files, game)
}

/// The tables of game `G` to convert: the named materials' under the command line's rules, or
/// every table of the game in the folder built under the rule options given.
fn files<G: Game>(env: &Env, materials: &[String]) -> Result<Vec<PathBuf>> {
    let rules = env.rules::<G>()?;
    if materials.is_empty() {
        let folder = env.tables.join(G::ID.name());
        // A file whose header cannot be read is kept, so that its conversion says why.
        let chosen = |path: &PathBuf| match Table::open_unchecked(path) {
            Ok(table) => env.options.iter().all(|o| table.header.rules.contains(o)),
            Err(_) => true,
        };
        return Ok(table_files(&env.tables)?
            .into_iter()
            .filter(|p| p.parent() == Some(folder.as_path()) && chosen(p))
            .collect());
    }
    materials
        .iter()
        .map(|name| {
            let material = G::parse_material(name)?.0;
            let path = table_path::<G>(&env.tables, &material, rules);
            if !path.exists() {
                return Err(missing_table::<G>(&env.tables, &material, rules));
            }
            Ok(path)
        })
        .collect()
}

/// Converts the tables to `encoding`, printing each one's size before and after, with a progress
/// bar while each is written; `game`: the game whose tables these are, if one was named.
fn convert_files(env: &Env, encoding: Encoding, files: &[PathBuf], game: Option<GameId>) -> Result<()> {
    let name = |path: &PathBuf| path.strip_prefix(&env.tables).unwrap_or(path).display().to_string();
    let width = files.iter().map(|p| name(p).len()).max().unwrap_or(0);
    let mut rows = Vec::new();
    let (mut before, mut after, mut unchanged) = (0, 0, 0);
    let bar = Bar::new();
    // A table that cannot be converted gets its error in its place; the others are converted.
    let mut failed = Vec::new();
    for path in files {
        let file = name(path);
        // A table under another's name or of another build is refused here, as `list` and every
        // read refuse it.
        let converted = match Table::open_unchecked(path)
            .and_then(|table| check_found(&table, &env.tables))
            .and_then(|()| convert(path, encoding, &bar))
        {
            Ok(converted) => converted,
            // One table asked for: its error is the command's.
            Err(e) if files.len() == 1 => {
                bar.finish();
                return Err(e);
            }
            Err(e) => {
                let error = error_line(&e);
                if !env.json {
                    bar.suspend(|| println!("{file:<width$}  error: {error}"));
                }
                rows.push(json!({ "path": path.display().to_string(), "error": error }));
                failed.push(file);
                continue;
            }
        };
        before += converted.before;
        after += converted.after;
        let rewritten = converted.from != converted.to;
        unchanged += usize::from(!rewritten);
        if !env.json {
            let (from, to) = (converted.from.label(), converted.to.label());
            bar.suspend(|| match rewritten {
                true => println!(
                    "{file:<width$}  {from:<7} {:>10} -> {to:<7} {:>10}",
                    bytes(converted.before),
                    bytes(converted.after)
                ),
                false => println!(
                    "{file:<width$}  {from:<7} {:>10}    left as it is (verified)",
                    bytes(converted.before)
                ),
            });
        }
        rows.push(json!({
            "path": path.display().to_string(),
            "from": converted.from.label(),
            "to": converted.to.label(),
            "rewritten": rewritten,
            "bytes_before": converted.before,
            "bytes_after": converted.after,
        }));
    }
    bar.finish();
    let converted = files.len() - failed.len();
    if env.json {
        let out = json!({ "tables": rows, "bytes_before": before, "bytes_after": after });
        println!("{out}");
    } else if files.is_empty() {
        let which = game.map_or(String::new(), |game| format!("{game} "));
        let under: Vec<String> = env.options.iter().map(|(k, v)| format!("--{k} {v}")).collect();
        let under = match under.is_empty() {
            true => String::new(),
            false => format!(" built under {}", under.join(" ")),
        };
        println!("No {which}tables{under} in {}.", env.tables.display());
    } else if converted == 0 {
        // Every table failed, each error printed: the closing error says so.
    } else if unchanged == converted {
        println!(
            "{}, {}: all left as they were (verified)",
            counted(converted, "table"),
            bytes(before)
        );
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
            "{}: {} -> {} ({ratio}{left})",
            counted(converted, "table"),
            bytes(before),
            bytes(after)
        );
    }
    if !failed.is_empty() {
        /// Files named in the error; every one is in the output.
        const NAMED: usize = 5;
        let more = if failed.len() > NAMED { ", ..." } else { "" };
        bail!(
            "{} of {} could not be converted ({}{more}); each error is printed in its place",
            failed.len(),
            counted(files.len(), "table"),
            failed[..failed.len().min(NAMED)].join(", ")
        );
    }
    Ok(())
}
