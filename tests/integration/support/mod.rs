//! What the integration tests share: fresh table folders, the egtb binary, programs and ports
//! of the machine, a seeded random source, a loopback load generator for the server, and the
//! comparison of a GPU-solved table with the CPU solver's.

pub mod api_check;
pub mod chess;
pub mod darkchess;
pub mod load;
mod lookup;
mod rng;
pub mod served;
pub mod space;
mod temp;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc::Receiver;

use egtb::games::Game;
use egtb::generate::Generator;
use egtb::material::Material;
use egtb::solver::Silent;
use egtb::solver::gpu::{Gpu, GpuOptions};

pub use lookup::Lookup;
pub use rng::Rng;
pub use temp::{TempDir, temp_dir};

/// The materials of the tables of a command's `--json` summary (generate, plan, audit), in its
/// order.
pub fn materials(summary: &serde_json::Value) -> Vec<String> {
    let tables = summary["tables"].as_array().unwrap();
    tables
        .iter()
        .map(|t| t["material"].as_str().unwrap().to_string())
        .collect()
}

/// The egtb binary on a tables folder (`EGTB_TABLES` unset), its output piped, to be run; the
/// plain progress lines a piped stderr gets are off, so that stderr holds only errors.
pub fn egtb_command(tables: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_egtb"));
    command
        .arg("--tables")
        .arg(tables)
        .args(args)
        .env_remove("EGTB_TABLES")
        .env("EGTB_PROGRESS_EVERY", "0")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Runs the egtb binary on a tables folder with `input` on its standard input.
pub fn egtb_reading(tables: &Path, args: &[&str], input: impl AsRef<[u8]>) -> Output {
    let mut child = egtb_command(tables, args)
        .stdin(Stdio::piped())
        .spawn()
        .expect("egtb runs");
    // A command refused before it reads its input closes the pipe: the refusal is what is tested.
    if let Err(e) = child.stdin.take().unwrap().write_all(input.as_ref()) {
        assert_eq!(e.kind(), std::io::ErrorKind::BrokenPipe, "{args:?}: {e}");
    }
    child.wait_with_output().expect("egtb runs")
}

/// The lines a process prints on `out` (its stdout or stderr), read on a thread of their own so
/// that a wait for one can end.
pub fn lines_of(out: impl Read + Send + 'static) -> Receiver<String> {
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    lines
}

/// Runs the egtb binary on a tables folder (`EGTB_TABLES` unset).
pub fn egtb(tables: &Path, args: &[&str]) -> Output {
    egtb_command(tables, args).output().expect("egtb runs")
}

/// Runs the egtb binary, checks that it succeeded and returns its stdout.
pub fn succeeds(tables: &Path, args: &[&str]) -> String {
    succeeded(egtb(tables, args), args)
}

/// Checks that a run of egtb with `args` succeeded and returns its stdout.
pub fn succeeded(out: Output, args: &[&str]) -> String {
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

/// Runs a command that must fail and returns its one error line.
pub fn fails(tables: &Path, args: &[&str]) -> String {
    failed(egtb(tables, args), args)
}

/// Checks that a run of egtb with `args` failed with one error line, and returns it.
pub fn failed(out: Output, args: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} succeeded");
    assert!(!stderr.contains("panicked"), "{args:?} panicked: {stderr}");
    assert_eq!(
        stderr.trim_end().lines().count(),
        1,
        "{args:?} printed more than one line: {stderr}"
    );
    assert!(stderr.starts_with("egtb: error: "), "{stderr}");
    stderr
}

/// Whether the environment variable is `1`: CI sets `EGTB_REQUIRE_SLURM`, `EGTB_REQUIRE_BROWSER`
/// and `EGTB_REQUIRE_GPU` so that a test fails where it would otherwise skip itself.
pub fn required(variable: &str) -> bool {
    std::env::var_os(variable).is_some_and(|v| v == "1")
}

/// Where the first of these programs is: on the PATH or in the system folders daemons live in.
pub fn find_program(names: &[&str]) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let dirs: Vec<PathBuf> = std::env::split_paths(&path)
        .chain(["/usr/sbin", "/sbin", "/usr/local/sbin"].map(PathBuf::from))
        .collect();
    names
        .iter()
        .flat_map(|name| dirs.iter().map(move |dir| dir.join(name)))
        .find(|p| p.is_file())
}

/// Held from choosing a free port until something listens on it: the tests run as threads of
/// one process, and two of them must not pick the same port in that moment.
pub static PORTS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// `N` distinct ports that nothing listens on now. Call it holding [`PORTS`], and hold that until
/// the ports are listened on: the system may give the same ports to the next caller.
pub fn free_ports<const N: usize>() -> [u16; N] {
    let listeners = [(); N].map(|_| std::net::TcpListener::bind("0.0.0.0:0").expect("a free port"));
    listeners.map(|l| l.local_addr().expect("a bound socket's address").port())
}

/// A child process, killed and waited for when dropped: a failing test leaves no process behind.
pub struct KillOnDrop(pub Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Builds each material on the CPU (with what it needs), solves it again on the GPU from the
/// same smaller tables, and checks that both are equal byte for byte. Returns each material's
/// entries, for checks of what the comparison covered; `None` when the machine has no GPU
/// (`EGTB_REQUIRE_GPU=1` makes that a failure).
pub fn gpu_equals_cpu<G: Game>(materials: &[&str], rules: G::Rules, options: &GpuOptions) -> Option<Vec<Vec<u16>>> {
    let gpu = Gpu::open_unless_absent().unwrap()?;
    let dir = temp_dir(&format!("gpu-{}", G::ID));
    let mut generator = Generator::<G>::new(&dir, rules, &Silent);
    let mut all = Vec::new();
    for name in materials {
        let material = Material::parse(G::ID, name).unwrap().canonical().0;
        let cpu = generator.ensure(&material).unwrap().entries().to_vec();
        let index = G::index(&material, rules).unwrap();
        let gpu_rules = G::gpu_rules(&index, rules, generator.tables()).unwrap();
        let solution = gpu.solve(gpu_rules.as_ref(), options, &Silent).unwrap();
        assert_eq!(solution.entries.len(), cpu.len(), "{name}");
        let differing = cpu.iter().zip(&solution.entries).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{name}: {differing} entries differ");
        eprintln!(
            "{name}: {} states, {} layers, kernels {:?}",
            cpu.len(),
            solution.layers,
            solution.kernel_time
        );
        all.push(cpu);
    }
    Some(all)
}
