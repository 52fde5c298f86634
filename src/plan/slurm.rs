//! A plan as Slurm jobs: a bash script that calls `sbatch` once per table still to build, each
//! job after the jobs of the tables it reads (`afterok`), so a failed job stops only the jobs
//! that depend on it; each job runs `egtb generate <game> <material>`, which reuses the tables
//! already built.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use super::{Plan, PlannedTable, Presence};
use crate::counted::counted;
use crate::generate::Backend;
use crate::shell::quote;

/// What every job asks of the cluster, and where things are.
#[derive(Clone, Debug)]
pub struct JobOptions {
    /// The egtb executable the jobs run (an absolute path every node can read).
    pub egtb: PathBuf,
    /// Folder of the jobs' output logs (created by the script).
    pub logs: PathBuf,
    /// The Slurm partition (`--partition`), the cluster's default when `None`.
    pub partition: Option<String>,
    /// CPUs per job; the solver runs as many threads.
    pub cpus_per_job: u32,
    /// GPUs per job (`--gres=gpu:N`), none when `None`.
    pub gpus_per_job: Option<u32>,
    /// Ask for each job's estimated peak memory (`--mem`).
    pub mem_from_estimate: bool,
    /// The solver choice passed to `egtb generate --backend`, its default when `None`.
    pub backend: Option<String>,
}

/// One submitted job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Submitted {
    /// The material name of the job's table.
    pub material: String,
    /// The job id Slurm gave it.
    pub job_id: String,
}

/// The shell variable holding a table's job id.
fn job_var(material: &str) -> String {
    format!("job_{material}")
}

fn path_text(path: &Path) -> Result<&str> {
    path.to_str()
        .with_context(|| format!("path {} is not UTF-8", path.display()))
}

/// The memory a job asks for: the CPU solver's peak, or where the job has a GPU that its solver
/// may use on the table, the larger of that and the GPU solve's host memory (which falls back
/// to the CPU solver, under `auto`, when the job has too little for it).
fn job_bytes(table: &PlannedTable, options: &JobOptions) -> u64 {
    let gpu = options.gpus_per_job.is_some() && options.backend.as_deref() != Some(Backend::Cpu.name());
    match table.gpu_host_bytes.filter(|_| gpu) {
        Some(gpu_bytes) => table.peak_bytes.max(gpu_bytes),
        None => table.peak_bytes,
    }
}

/// The submission script of the tables still to build. A table already present is left out,
/// and so is a dependency on it. Fails when a table's file is there but cannot be used (it
/// must be deleted first).
pub fn script(plan: &Plan, options: &JobOptions) -> Result<String> {
    for table in &plan.tables {
        if let Presence::Bad(why) = &table.presence {
            bail!("{why}");
        }
    }
    let tables = std::path::absolute(&plan.dir)?;
    let logs = std::path::absolute(&options.logs)?;
    let egtb = path_text(&options.egtb)?;
    let to_build: Vec<_> = plan.to_build().collect();
    let present = plan.tables.len() - to_build.len();
    let mut out = String::new();
    writeln!(out, "#!/usr/bin/env bash")?;
    writeln!(
        out,
        "# egtb plan: one Slurm job per {} table still to build ({} of {}; {present} present and reused),",
        plan.game,
        to_build.len(),
        plan.tables.len()
    )?;
    writeln!(
        out,
        "# each after the jobs of the tables it reads. Tables in {}.",
        tables.display()
    )?;
    writeln!(out, "# Prints one line per job: the material and the job id.")?;
    writeln!(out, "set -euo pipefail")?;
    writeln!(out, "mkdir -p {}", quote(path_text(&logs)?))?;
    let log_pattern = logs.join("%x-%j.out");
    for table in &to_build {
        let name = table.material.to_string();
        let mut generate = vec![
            egtb.to_string(),
            "generate".to_string(),
            plan.game.name().to_string(),
            name.clone(),
            "--tables".to_string(),
            path_text(&tables)?.to_string(),
            "--threads".to_string(),
            options.cpus_per_job.to_string(),
        ];
        generate.extend(plan.rule_args());
        if let Some(backend) = &options.backend {
            generate.extend(["--backend".to_string(), backend.clone()]);
        }
        let command: Vec<String> = generate.iter().map(|w| quote(w)).collect();
        // `--option=value` words, the value quoted as a shell word where it needs to be.
        let mut args = vec![
            "--parsable".to_string(),
            format!("--job-name={}", quote(&format!("egtb-{}-{name}", plan.game))),
            format!("--cpus-per-task={}", options.cpus_per_job),
        ];
        if options.mem_from_estimate {
            args.push(format!("--mem={}M", job_bytes(table, options).div_ceil(1 << 20)));
        }
        if let Some(gpus) = options.gpus_per_job {
            args.push(format!("--gres=gpu:{gpus}"));
        }
        if let Some(partition) = &options.partition {
            args.push(format!("--partition={}", quote(partition)));
        }
        // The ids of the jobs of the tables it reads that are in this batch, expanded by bash.
        let waits: Vec<String> = table
            .reads
            .iter()
            .filter(|m| to_build.iter().any(|t| t.material == **m))
            .map(|m| format!("${}", job_var(&m.to_string())))
            .collect();
        if !waits.is_empty() {
            args.push(format!("--dependency=afterok:{}", waits.join(":")));
        }
        args.push("--kill-on-invalid-dep=yes".to_string());
        args.push(format!("--output={}", quote(path_text(&log_pattern)?)));
        args.push(format!("--wrap={}", quote(&command.join(" "))));
        let var = job_var(&name);
        // The job's peak: on a GPU node, the larger of the CPU solve's and the GPU solve's host
        // memory, as `--mem` asks for.
        writeln!(
            out,
            "\n# {name}: {}, peak about {:.1} MiB",
            counted(table.states, "state"),
            job_bytes(table, options) as f64 / (1 << 20) as f64
        )?;
        writeln!(out, "{var}=$(sbatch {})", args.join(" "))?;
        // `--parsable` prints `id` or `id;cluster`.
        writeln!(out, "{var}=${{{var}%%;*}}")?;
        writeln!(out, "echo \"{name} ${var}\"")?;
    }
    Ok(out)
}

/// Writes the script to `path` and runs it, returning the jobs it submitted.
pub fn submit(script: &str, path: &Path) -> Result<Vec<Submitted>> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(path, script).with_context(|| format!("cannot write {}", path.display()))?;
    let output = Command::new("bash")
        .arg(path)
        .output()
        .context("cannot run bash to submit the jobs")?;
    let submitted: Vec<Submitted> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(material, id)| Submitted {
            material: material.to_string(),
            job_id: id.to_string(),
        })
        .collect();
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let why = stderr.lines().rfind(|l| !l.trim().is_empty()).unwrap_or("no message");
        let ids: Vec<&str> = submitted.iter().map(|s| s.job_id.as_str()).collect();
        let done = match ids.is_empty() {
            true => "before any job was submitted".to_string(),
            false => format!("after {} ({})", counted(ids.len(), "job"), ids.join(" ")),
        };
        bail!("submitting {} failed {done}: {why}", path.display());
    }
    Ok(submitted)
}
