//! `egtb serve`: a local web application over the tables (a board for every game, analysis,
//! play against the table, statistics) and the JSON API it is built on.
//!
//! Inside, private: `api` (the answers, as JSON), `router` (routes and HTTP statuses) and
//! `assets` (the page compiled into the binary). Only starting a server, and reading the host
//! names it may answer besides its own, is public.

mod api;
mod assets;
mod router;

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use tokio::net::TcpListener;

use self::api::Api;
pub use self::router::allowed_host;

/// The port `egtb serve` listens on unless told otherwise.
pub const DEFAULT_PORT: u16 = 8080;

/// Where and what to serve.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// The tables folder.
    pub tables: PathBuf,
    /// The IP address to listen on.
    pub bind: IpAddr,
    /// 0 asks the system for any free port.
    pub port: u16,
    /// Rule options given on the command line, the defaults of every request.
    pub defaults: Vec<(String, String)>,
    /// Host names a server on a loopback address answers besides its loopback names (a
    /// proxy's public name); a server on another address answers every name.
    pub allowed_hosts: Vec<String>,
}

/// Binds the address and starts serving on the current tokio runtime; returns the address
/// actually bound (with the port the system chose for port 0).
pub async fn spawn(options: &ServeOptions) -> Result<SocketAddr> {
    let api = Api::new(&options.tables, options.defaults.clone())?;
    let address = format!("{}:{}", options.bind, options.port);
    let listener = match TcpListener::bind((options.bind, options.port)).await {
        Ok(listener) => listener,
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => bail!(
            "cannot listen on {address}: another program holds the port; choose another with \
             --port N, or --port 0 for any free one"
        ),
        Err(e) => return Err(e).with_context(|| format!("cannot listen on {address}")),
    };
    let addr = listener.local_addr()?;
    let hosts = match options.bind.is_loopback() {
        true => router::Hosts::Loopback(options.allowed_hosts.clone()),
        false => router::Hosts::Any,
    };
    let app = router::router(Arc::new(api), hosts);
    tokio::spawn(async move {
        if let Err(e) = axum::serve(listener, app).await {
            eprintln!("egtb: error: server stopped: {e}");
        }
    });
    Ok(addr)
}

/// The page's address for a bound socket.
pub fn url(addr: SocketAddr) -> String {
    match addr.ip() {
        IpAddr::V6(ip) => format!("http://[{ip}]:{}/", addr.port()),
        IpAddr::V4(ip) => format!("http://{ip}:{}/", addr.port()),
    }
}

/// Serves until the process is stopped; `ready` is told the address bound once requests are
/// answered there.
pub fn run(options: &ServeOptions, ready: impl FnOnce(SocketAddr) -> Result<()>) -> Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the server's runtime")?;
    runtime.block_on(async {
        ready(spawn(options).await?)?;
        std::future::pending::<Result<()>>().await
    })
}
