//! `egtb serve`: the board in the browser and the JSON API, over the tables in the folder.

use std::io::Write;

use anyhow::Result;
use serde_json::json;

use super::Env;
use crate::Error;
use crate::serve::{self, ServeOptions};
use crate::shell::tables_option;
use crate::table::table_files;

/// Serves until stopped; the command line's rule options are every request's defaults. The
/// address is printed once the server answers there (`--json`: `{"url": ..., "tables_dir": ...}`,
/// for a program that starts the server on any free port). `allowed_hosts`: host names a
/// loopback server answers besides its own.
pub fn run(env: &Env, bind: &str, port: u16, allowed_hosts: Vec<String>) -> Result<()> {
    env.check_options()?;
    // `localhost` is the one name taken: it names the loopback address wherever the server runs.
    let bind = match bind {
        "localhost" => std::net::Ipv4Addr::LOCALHOST.into(),
        _ => bind.parse::<std::net::IpAddr>().map_err(|_| {
            Error::usage(format!(
                "--bind '{bind}' is no IP address (for example 127.0.0.1, ::1 or localhost)"
            ))
        })?,
    };
    // Absolute, so that the commands the server and its page name to build a missing table
    // build it where the server reads, wherever they are run.
    let tables = std::path::absolute(&env.tables).unwrap_or_else(|_| env.tables.clone());
    let allowed_hosts = allowed_hosts
        .iter()
        .map(|name| serve::allowed_host(name).map_err(Error::as_usage))
        .collect::<Result<Vec<_>>>()?;
    if !allowed_hosts.is_empty() && !bind.is_loopback() && !env.json {
        println!("note: --allow-host has no effect on {bind}: a server bound there answers every name");
    }
    let options = ServeOptions {
        tables: tables.clone(),
        bind,
        port,
        defaults: env.options.clone(),
        allowed_hosts,
    };
    // A folder that cannot be read stops the server here, as it stops `egtb list`. One without
    // tables: the page would only name missing tables, so say so before the address.
    let files = table_files(&tables)?;
    if !env.json && files.is_empty() {
        println!(
            "note: {} holds no tables yet; build some with egtb generate (for example egtb \
             generate chess KQvK {}): they are read as they appear",
            tables.display(),
            tables_option(&tables)
        );
    }
    serve::run(&options, |addr| {
        let url = serve::url(addr);
        let tables = tables.display();
        match env.json {
            true => println!("{}", json!({ "url": url, "tables_dir": tables.to_string() })),
            false => println!("egtb: serving the tables in {tables} at {url}  (Ctrl-C stops)"),
        }
        std::io::stdout().flush()?;
        Ok(())
    })
}
