//! What the integration tests share: fresh table folders, the egtb binary, and the comparison
//! of a GPU-solved table with the CPU solver's.

pub mod darkchess;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicUsize, Ordering};

use egtb::games::Game;
use egtb::generate::Generator;
use egtb::material::Material;
use egtb::solver::Silent;
use egtb::solver::gpu::{Gpu, GpuOptions};

/// A fresh, empty folder for one test's tables, named after the test and unique in this run.
pub fn temp_dir(name: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "egtb-test-{name}-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

/// Runs the egtb binary on a tables folder (`EGTB_TABLES` unset).
pub fn egtb(tables: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_egtb"))
        .arg("--tables")
        .arg(tables)
        .args(args)
        .env_remove("EGTB_TABLES")
        .output()
        .expect("egtb runs")
}

/// Runs the egtb binary, checks that it succeeded and returns its stdout.
pub fn succeeds(tables: &Path, args: &[&str]) -> String {
    let out = egtb(tables, args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
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
    std::fs::remove_dir_all(&dir).unwrap();
    Some(all)
}
