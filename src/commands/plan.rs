//! `egtb plan`: the tables a batch needs in dependency order, or the batch as Slurm jobs.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::{Context, Result, bail};
use clap::builder::PossibleValuesParser;
use serde_json::json;

use super::{Env, above_zero, requested_materials};
use crate::counted::{counted, grouped};
use crate::games::Game;
use crate::generate::Backend;
use crate::plan::slurm::{self, JobOptions};
use crate::plan::{Plan, PlannedTable, Presence};
use crate::report::options_json;

/// What to plan.
#[derive(Clone, Debug)]
pub struct Request {
    /// Material names; empty with `pieces` for a whole set.
    pub materials: Vec<String>,
    /// Every supported material with at most this many pieces.
    pub pieces: Option<usize>,
    /// Write (or submit) Slurm jobs instead of printing the plan.
    pub slurm: Option<SlurmRequest>,
}

/// The Slurm options of `egtb plan --slurm`, as the command line takes them.
#[derive(Clone, Debug, clap::Args)]
pub struct SlurmRequest {
    /// Slurm partition of the jobs.
    #[arg(long, requires = "slurm")]
    pub partition: Option<String>,
    /// CPUs per job (the solver runs as many threads).
    #[arg(long, requires = "slurm", default_value_t = 1, value_parser = above_zero::<u32>)]
    pub cpus_per_job: u32,
    /// GPUs per job (--gres=gpu:N).
    #[arg(long, requires = "slurm", value_parser = above_zero::<u32>)]
    pub gpus_per_job: Option<u32>,
    /// Ask for each job's estimated peak memory (--mem; with --gpus-per-job, the larger of the
    /// CPU solver's and the GPU solve's host memory, unless --backend cpu).
    #[arg(long, requires = "slurm")]
    pub mem_from_estimate: bool,
    /// Folder of the jobs' logs (default: slurm-logs in the tables folder).
    #[arg(long, requires = "slurm")]
    pub logs: Option<PathBuf>,
    /// The jobs' solver (egtb generate's default when not given).
    #[arg(long, requires = "slurm", value_parser = PossibleValuesParser::new(Backend::ALL.map(Backend::name)))]
    pub backend: Option<String>,
    /// Run the script (sbatch) and print the job ids instead of printing it.
    #[arg(long, requires = "slurm")]
    pub submit: bool,
}

/// Prints the plan, or its Slurm script, or submits the script and prints the job ids.
pub fn run<G: Game>(env: &Env, request: &Request) -> Result<()> {
    let rules = env.rules::<G>()?;
    let materials = requested_materials::<G>(&request.materials, request.pieces, "plan")?;
    let dir = std::path::absolute(&env.tables)?;
    let plan = Plan::new::<G>(&dir, rules, &materials)?;
    match &request.slurm {
        None => print_plan(env, &plan),
        Some(slurm) => run_slurm(env, &plan, slurm),
    }
}

fn print_plan(env: &Env, plan: &Plan) -> Result<()> {
    if env.json {
        let tables: Vec<_> = plan
            .tables
            .iter()
            .map(|t| {
                json!({
                    "material": t.material.to_string(),
                    "pieces": t.material.pieces(),
                    "states": t.states,
                    "working_states": t.working_states,
                    "peak_bytes": t.peak_bytes,
                    "gpu_host_bytes": t.gpu_host_bytes,
                    "reads": t.reads.iter().map(|m| m.to_string()).collect::<Vec<_>>(),
                    "path": t.path.display().to_string(),
                    "status": t.presence.word(),
                    "error": match &t.presence { Presence::Bad(why) => Some(why), _ => None },
                })
            })
            .collect();
        let out = json!({
            "game": plan.game.name(),
            "rules": options_json(&plan.rules),
            "tables_dir": plan.dir.display().to_string(),
            "tables": tables,
        });
        println!("{out}");
        return usable(plan);
    }
    let rules: Vec<String> = plan.rules.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let rules = match rules.is_empty() {
        true => String::new(),
        false => format!(" ({})", rules.join(", ")),
    };
    println!(
        "Plan for {}{rules}: {} in dependency order, in {}",
        plan.game,
        counted(plan.tables.len(), "table"),
        plan.dir.display()
    );
    // Columns as wide as their widest entry (xiangqi's largest materials have 20-digit counts).
    let widest = |len: fn(&PlannedTable) -> usize, least| plan.tables.iter().map(len).fold(least, usize::max);
    let name = widest(|t| t.material.to_string().len() + 2, 16);
    let states = widest(|t| grouped(t.states).to_string().len() + 2, 16);
    let peak = widest(|t| format!("{:.1}", mib(t.peak_bytes)).len() + 2, 12);
    let gpu = widest(|t| gpu_column(t).len() + 2, 14);
    println!(
        "{:<name$}{:>7}{:>states$}{:>peak$}{:>gpu$}  {:<9}reads",
        "table", "pieces", "states", "peak MiB", "GPU host MiB", "status"
    );
    for t in &plan.tables {
        let reads: Vec<String> = t.reads.iter().map(|m| m.to_string()).collect();
        println!(
            "{:<name$}{:>7}{:>states$}{:>peak$.1}{:>gpu$}  {:<9}{}",
            t.material.to_string(),
            t.material.pieces(),
            grouped(t.states),
            mib(t.peak_bytes),
            gpu_column(t),
            t.presence.word(),
            if reads.is_empty() {
                "-".to_string()
            } else {
                reads.join(" ")
            }
        );
    }
    for t in &plan.tables {
        if let Presence::Bad(why) = &t.presence {
            println!("bad: {why}");
        }
    }
    let build: Vec<_> = plan.to_build().collect();
    let present = plan.tables.len() - build.len();
    let gpu_peak = match build.iter().filter_map(|t| t.gpu_host_bytes).max() {
        Some(bytes) => format!(
            " (the GPU solver, on the tables it takes: {:.1} MiB of host memory)",
            mib(bytes)
        ),
        None => String::new(),
    };
    match build.iter().map(|t| t.peak_bytes).max() {
        Some(peak) => println!(
            "To build: {}{}, {}, largest peak {:.1} MiB{gpu_peak}; {present} present.",
            counted(build.len(), "table"),
            match build.iter().filter(|t| t.presence == Presence::Building).count() {
                0 => String::new(),
                building => format!(" ({building} being built by another process now)"),
            },
            counted(build.iter().map(|t| t.states).sum::<u64>(), "state"),
            mib(peak),
        ),
        None => println!("Nothing to build: all {} present.", counted(present, "table")),
    }
    usable(plan)
}

/// A table's GPU host memory in MiB, or "-" where the GPU solver does not take it.
fn gpu_column(table: &PlannedTable) -> String {
    table
        .gpu_host_bytes
        .map_or("-".to_string(), |bytes| format!("{:.1}", mib(bytes)))
}

/// Fails, once the plan is printed, when a table's file is there but cannot be used: generate
/// stops at it until it is deleted, so the plan cannot run as it stands.
fn usable(plan: &Plan) -> Result<()> {
    let bad: Vec<String> = plan
        .tables
        .iter()
        .filter(|t| matches!(t.presence, Presence::Bad(_)))
        .map(|t| t.material.to_string())
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let (does, it) = if bad.len() == 1 { ("does", "it") } else { ("do", "them") };
    bail!(
        "{} of {} {does} not verify ({}): delete {it} and plan again",
        bad.len(),
        counted(plan.tables.len(), "table"),
        bad.join(", ")
    )
}

fn run_slurm(env: &Env, plan: &Plan, request: &SlurmRequest) -> Result<()> {
    let logs = request.logs.clone().unwrap_or_else(|| plan.dir.join("slurm-logs"));
    let options = JobOptions {
        egtb: std::env::current_exe().context("cannot find the egtb executable")?,
        logs: std::path::absolute(&logs)?,
        partition: request.partition.clone(),
        cpus_per_job: request.cpus_per_job,
        gpus_per_job: request.gpus_per_job,
        mem_from_estimate: request.mem_from_estimate,
        backend: request.backend.clone(),
    };
    let script = slurm::script(plan, &options)?;
    if !request.submit {
        if env.json {
            println!("{}", json!({ "script": script }));
        } else {
            print!("{script}");
        }
        return Ok(());
    }
    let to_build = plan.to_build().count();
    if to_build == 0 {
        if env.json {
            println!("{}", json!({ "jobs": [] }));
        } else {
            println!(
                "Nothing to submit: every table of the plan ({}) is present and verifies.",
                counted(plan.tables.len(), "table")
            );
        }
        return Ok(());
    }
    let stamp = SystemTime::now().duration_since(UNIX_EPOCH)?.as_millis();
    let path = options.logs.join(format!("submit-{}-{stamp}.sh", plan.game));
    let jobs = slurm::submit(&script, &path)?;
    if env.json {
        let jobs: Vec<_> = jobs
            .iter()
            .map(|j| json!({ "material": j.material, "job_id": j.job_id }))
            .collect();
        println!("{}", json!({ "script": path.display().to_string(), "jobs": jobs }));
    } else {
        for job in &jobs {
            println!("{:<16}{}", job.material, job.job_id);
        }
        println!(
            "Submitted {} ({} present and reused); script {}, logs in {}.",
            counted(jobs.len(), "job"),
            counted(plan.tables.len() - to_build, "table"),
            path.display(),
            options.logs.display()
        );
    }
    Ok(())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1 << 20) as f64
}
