//! The tables the tests of `egtb serve` and `egtb play` share, built once a run, the positions of
//! xiangqi's Asian rules they look at, and servers started on them for the API's tests and the
//! page's.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use egtb::games::chess::Chess;
use egtb::games::xiangqi::{Repetition, Xiangqi, XiangqiRules};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::serve::ServeOptions;
use egtb::solver::Silent;

use super::{PORTS, api_check};

/// The tables: [`api_check::MATERIALS`], chess KPvK and xiangqi KRvKN under the Asian rules. A
/// static is never dropped, so they live in cargo's scratch folder for integration tests, a
/// folder a run (named after its process), whose stale ones the next run removes, rather than in
/// a temporary folder that nothing would remove.
pub fn tables() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let scratch = Path::new(env!("CARGO_TARGET_TMPDIR"));
        remove_stale_tables(scratch);
        let dir = scratch.join(format!("{SERVED}{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("the serve tests' tables folder");
        api_check::generate(&dir);
        // A pawn's table, for the choice of a promotion.
        api_check::generate_one::<Chess>(&dir, "KPvK");
        // A table under the Asian rules, with positions lost by perpetual check.
        let (krvkn, _) = Material::parse(GameId::Xiangqi, "KRvKN").unwrap().canonical();
        Generator::<Xiangqi>::new(&dir, ASIAN, &Silent).ensure(&krvkn).unwrap();
        dir
    })
}

/// The start of the name of a run's tables folder, before its process id.
const SERVED: &str = "serve-tables-";

/// Removes the tables folders of runs that have ended; a run going on beside this one keeps its.
fn remove_stale_tables(scratch: &Path) {
    let Ok(listing) = std::fs::read_dir(scratch) else {
        return;
    };
    for entry in listing.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name.strip_prefix(SERVED).and_then(|p| p.parse::<libc::pid_t>().ok()) else {
            continue;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        if unsafe { libc::kill(pid, 0) } != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The Asian rules of xiangqi.
pub const ASIAN: XiangqiRules = XiangqiRules {
    repetition: Repetition::Asian,
};

/// A KRvKN position where black, to move, can only go on checking: lost by the Asian rules.
pub const PERPETUAL_CHECK: &str = "9/9/4k4/9/9/9/9/3n5/9/R2K5 b - - 0 1";
/// Red to move wins by reaching [`PERPETUAL_CHECK`].
pub const BEFORE_PERPETUAL_CHECK: &str = "9/9/4k4/9/9/9/9/3n5/9/1R1K5 w - - 0 1";

/// Starts a server on a free loopback port of the current runtime.
pub async fn start() -> SocketAddr {
    start_with(&[]).await.unwrap()
}

/// Starts a server whose requests default to the rule options `defaults`.
pub async fn start_with(defaults: &[(&str, &str)]) -> anyhow::Result<SocketAddr> {
    start_on(tables(), defaults).await
}

/// Starts a server on the tables in `dir`.
pub async fn start_on(dir: &Path, defaults: &[(&str, &str)]) -> anyhow::Result<SocketAddr> {
    let options = ServeOptions {
        tables: dir.to_path_buf(),
        bind: "127.0.0.1".parse().unwrap(),
        port: 0,
        defaults: defaults.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect(),
        allowed_hosts: Vec::new(),
    };
    let _ports = PORTS.lock().await;
    egtb::serve::spawn(&options).await
}
