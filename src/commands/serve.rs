//! `egtb serve`: the board in the browser and the JSON API, over the tables in the folder.

use anyhow::{Context, Result};

use super::Env;
use crate::serve::{self, ServeOptions};

/// Serves until stopped; the command line's rule options are every request's defaults.
pub fn run(env: &Env, bind: &str, port: u16) -> Result<()> {
    let bind = bind
        .parse()
        .with_context(|| format!("--bind '{bind}' is no IP address (for example 127.0.0.1 or ::1)"))?;
    serve::run(&ServeOptions {
        tables: env.tables.clone(),
        bind,
        port,
        defaults: env.options.clone(),
    })
}
