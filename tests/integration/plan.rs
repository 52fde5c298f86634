//! The plan of a batch: every table after the tables it reads, none twice; present tables
//! recognised and left out of the Slurm script with the dependencies on them.

use std::path::{Path, PathBuf};

use egtb::counted::grouped;
use egtb::games::Game;
use egtb::games::chess::Chess;
use egtb::games::xiangqi::Xiangqi;
use egtb::games::xiangqi::asian::{GRAPH_BYTES_PER_STATE, rules_apply};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::plan::slurm::{JobOptions, script};
use egtb::plan::{
    GPU_DRIVER_BYTES, LOADED_BYTES_PER_STATE, Plan, Presence, estimate_gpu_host_bytes, estimate_peak_bytes,
};
use egtb::solver::Silent;
use egtb::table::lock::TableLock;

use crate::support::{egtb, egtb_command, failed, succeeded, succeeds, temp_dir};

fn options(dir: &Path) -> JobOptions {
    JobOptions {
        egtb: PathBuf::from("/opt/egtb/bin/egtb"),
        logs: dir.join("logs"),
        partition: Some("gpu".into()),
        cpus_per_job: 4,
        gpus_per_job: Some(1),
        mem_from_estimate: true,
        backend: None,
    }
}

/// Every table after the tables it reads, each once, and the requested ones all there.
fn assert_dependency_order(plan: &Plan, requested: &[Material]) {
    for (i, table) in plan.tables.iter().enumerate() {
        assert_eq!(plan.position(&table.material), Some(i), "{} twice", table.material);
        for read in &table.reads {
            let j = plan.position(read).unwrap_or_else(|| panic!("{read} missing"));
            assert!(j < i, "{} before {read}, which it reads", table.material);
        }
        assert!(table.working_states <= table.states, "{}", table.material);
        // The smaller tables loaded whole: those of at most 64 MiB of entries; the others are
        // read from disk.
        let loaded: u64 = table
            .reads
            .iter()
            .map(|read| plan.tables[plan.position(read).unwrap()].states)
            .filter(|&states| states * LOADED_BYTES_PER_STATE <= 64 << 20)
            .sum();
        assert_eq!(table.loaded_states, loaded, "{}", table.material);
        assert_eq!(
            table.peak_bytes,
            estimate_peak_bytes(table.working_states, loaded, table.rule_bytes)
        );
        // The GPU solve uploads every table it reads, whatever its size.
        let read: u64 = table
            .reads
            .iter()
            .map(|read| plan.tables[plan.position(read).unwrap()].states)
            .sum();
        if table.material.pieces() <= 5 {
            assert_eq!(table.gpu_host_bytes, Some(estimate_gpu_host_bytes(table.states, read)));
        }
    }
    for m in requested {
        assert!(plan.position(m).is_some(), "{m} not planned");
    }
}

#[test]
fn whole_sets_are_planned_in_dependency_order() {
    let dir = temp_dir("plan-order");
    let chess = Chess::materials(5);
    let plan = Plan::new::<Chess>(&dir, Default::default(), &chess).unwrap();
    assert_dependency_order(&plan, &chess);
    assert_eq!(plan.tables.len(), chess.len(), "the set reads only its own materials");
    // The pawnless part against the index formula: 462 king placements up to symmetry, both sides
    // to move, times C(62, k) placements of each group of k identical men.
    let pawnless: Vec<_> = plan
        .tables
        .iter()
        .filter(|t| t.material.counts.iter().all(|side| side[5] == 0))
        .collect();
    assert_eq!(pawnless.len(), 85);
    assert_eq!(pawnless.iter().map(|t| t.states).sum::<u64>(), 9_403_138_668);
    // Tables with pawns are solved a pawn slice at a time; the others whole.
    for table in &pawnless {
        assert_eq!(table.working_states, table.states, "{}", table.material);
    }
    let krpvkr = &plan.tables[plan
        .position(&Material::parse(GameId::Chess, "KRPvKR").unwrap())
        .unwrap()];
    assert!(krpvkr.working_states < krpvkr.states / 2, "{}", krpvkr.working_states);
    assert!(plan.tables.iter().all(|t| t.presence == Presence::Missing));
    let xiangqi = Xiangqi::materials(4);
    let plan = Plan::new::<Xiangqi>(&dir, Default::default(), &xiangqi).unwrap();
    assert_dependency_order(&plan, &xiangqi);
}

#[test]
fn present_tables_and_their_dependencies_are_left_out_of_the_script() {
    let dir = temp_dir("plan-present");
    let krvkn = Material::parse(GameId::Chess, "KRvKN").unwrap();
    let krvk = Material::parse(GameId::Chess, "KRvK").unwrap();
    Generator::<Chess>::new(&dir, Default::default(), &Silent)
        .ensure(&krvk)
        .unwrap();
    let plan = Plan::new::<Chess>(&dir, Default::default(), &[krvkn]).unwrap();
    let status: Vec<(String, &str)> = plan
        .tables
        .iter()
        .map(|t| (t.material.to_string(), t.presence.word()))
        .collect();
    assert_eq!(
        status,
        [
            ("KvK".to_string(), "present"),
            ("KNvK".to_string(), "missing"),
            ("KRvK".to_string(), "present"),
            ("KRvKN".to_string(), "missing")
        ]
    );
    let text = script(&plan, &options(&dir)).unwrap();
    let submits: Vec<&str> = text.lines().filter(|l| l.contains("sbatch")).collect();
    assert_eq!(submits.len(), 2, "{text}");
    assert!(submits[0].starts_with("job_KNvK=") && !submits[0].contains("--dependency"));
    assert!(submits[1].starts_with("job_KRvKN=") && submits[1].contains("--dependency=afterok:$job_KNvK "));
    for word in [
        "--cpus-per-task=4",
        "--gres=gpu:1",
        "--partition=gpu",
        "--kill-on-invalid-dep=yes",
        "--mem=",
        "--wrap='/opt/egtb/bin/egtb generate chess KRvKN --tables ",
        "--threads 4'",
    ] {
        assert!(submits[1].contains(word), "{word} missing: {}", submits[1]);
    }
}

#[test]
fn a_jobs_memory_covers_the_gpu_solve_where_its_solver_may_run_on_the_gpu() {
    let dir = temp_dir("plan-gpu-memory");
    // KRPvKR: solved a pawn slice at a time on the CPU; whole, with all it reads uploaded, on
    // the GPU. KQRvKBN: 6 pieces, which the GPU solver does not take.
    for (name, on_gpu) in [("KRPvKR", true), ("KQRvKBN", false)] {
        let material = Material::parse(GameId::Chess, name).unwrap();
        let plan = Plan::new::<Chess>(&dir, Default::default(), &[material]).unwrap();
        let table = &plan.tables[plan.position(&material).unwrap()];
        assert_eq!(table.gpu_host_bytes.is_some(), on_gpu, "{table:?}");
        let asked = |gpus: Option<u32>, backend: Option<&str>| {
            let options = JobOptions {
                gpus_per_job: gpus,
                backend: backend.map(String::from),
                ..options(&dir)
            };
            let text = script(&plan, &options).unwrap();
            let job = format!("job_{name}=");
            let submit = text.lines().find(|l| l.starts_with(&job)).unwrap().to_string();
            let mem = submit.split_whitespace().find_map(|w| w.strip_prefix("--mem="));
            mem.unwrap().trim_end_matches('M').parse::<u64>().unwrap()
        };
        let cpu = table.peak_bytes.div_ceil(1 << 20);
        let gpu = table.gpu_host_bytes.map_or(cpu, |bytes| bytes.div_ceil(1 << 20));
        if on_gpu {
            assert!(gpu > 4 * cpu, "{table:?}");
        }
        assert_eq!(asked(Some(1), None), gpu, "{name}: auto on a GPU job");
        assert_eq!(asked(Some(1), Some("gpu")), gpu, "{name}");
        assert_eq!(asked(Some(1), Some("cpu")), cpu, "{name}: the CPU solver on a GPU job");
        assert_eq!(asked(None, None), cpu, "{name}: no GPU");
    }
}

#[test]
fn a_table_that_does_not_verify_stops_the_script() {
    let dir = temp_dir("plan-bad");
    let krvk = Material::parse(GameId::Chess, "KRvK").unwrap();
    Generator::<Chess>::new(&dir, Default::default(), &Silent)
        .ensure(&krvk)
        .unwrap();
    let path = dir.join("chess").join("KRvK.egtb");
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let plan = Plan::new::<Chess>(&dir, Default::default(), &[krvk]).unwrap();
    assert!(matches!(plan.tables[1].presence, Presence::Bad(_)));
    let err = script(&plan, &options(&dir)).unwrap_err().to_string();
    assert!(err.contains("KRvK.egtb") && err.contains("delete"), "{err}");
    assert_eq!(err.matches("delete").count(), 1, "the fix named once: {err}");
    // The plan itself is printed, bad table and all, and fails as generate would.
    for json in [false, true] {
        let args = [&["plan", "chess", "KRvK"][..], if json { &["--json"] } else { &[] }].concat();
        let out = egtb(&dir, &args);
        let stdout = String::from_utf8(out.stdout.clone()).unwrap();
        assert!(stdout.contains("bad"), "{stdout}");
        let error = failed(out, &args);
        assert!(
            error.contains("1 of 2 tables does not verify (KRvK): delete it and plan again"),
            "{error}"
        );
    }
}

/// `egtb plan` from the command line: bad input in one line, the plan as JSON.
#[test]
fn the_command_reports_bad_input_in_one_line_and_prints_json() {
    let dir = temp_dir("plan-cli");
    for (args, needle) in [
        (&["plan", "chess"][..], "nothing to plan"),
        (&["plan", "chess", "KXvK"], "'X'"),
        (
            &["plan", "chess", "KRvK", "--slurm", "--cpus-per-job", "0"],
            "'0' is not a whole number above 0",
        ),
        (
            &["plan", "chess", "KRvK", "--slurm", "--gpus-per-job", "0"],
            "'0' is not a whole number above 0",
        ),
        (&["plan", "chess", "KRvK", "--slurm", "--backend", "tpu"], "backend"),
    ] {
        let out = egtb(&dir, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            stderr.starts_with("egtb: error: ") && stderr.contains(needle),
            "{args:?}: {stderr}"
        );
        assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    }
    let out = egtb(&dir, &["plan", "xiangqi", "KRvK", "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["rules"]["rules"], "draw");
    let tables = json["tables"].as_array().unwrap();
    let names: Vec<&str> = tables.iter().map(|t| t["material"].as_str().unwrap()).collect();
    assert_eq!(names, ["KvK", "KRvK"]);
    assert_eq!(tables[1]["reads"], serde_json::json!(["KvK"]));
    assert_eq!(tables[1]["status"], "missing");
    let script = String::from_utf8(egtb(&dir, &["plan", "xiangqi", "KRvK", "--slurm"]).stdout).unwrap();
    assert!(
        script.contains("generate xiangqi KRvK --tables ") && script.contains("--rules draw"),
        "{script}"
    );
    let text = succeeded(egtb(&dir, &["plan", "xiangqi", "KRvK"]), &[]);
    let states: u64 = tables.iter().map(|t| t["states"].as_u64().unwrap()).sum();
    let to_build = format!("To build: 2 tables, {} states, largest peak ", grouped(states));
    assert!(text.contains(&to_build), "{text}");
    succeeded(egtb(&dir, &["generate", "xiangqi", "KRvK"]), &[]);
    let text = succeeded(egtb(&dir, &["plan", "xiangqi", "KRvK"]), &[]);
    assert!(text.contains("Nothing to build: all 2 tables present."), "{text}");
}

/// A missing table whose lock another process holds is shown as being built, and as missing
/// again once the lock is let go.
#[test]
fn a_table_another_process_is_building_is_shown_so() {
    let dir = temp_dir("plan-building");
    let lock = TableLock::try_acquire(&dir.join("chess").join("KQvK.egtb"))
        .unwrap()
        .expect("nobody holds the table yet");
    let status = |dir: &Path| {
        let out = egtb(dir, &["plan", "chess", "KQvK", "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let tables = json["tables"].as_array().unwrap().clone();
        tables
            .iter()
            .map(|t| t["status"].as_str().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(status(&dir), ["missing", "building"]);
    let text = succeeded(egtb(&dir, &["plan", "chess", "KQvK"]), &[]);
    assert!(
        text.contains("To build: 2 tables (1 being built by another process now), "),
        "{text}"
    );
    drop(lock);
    assert_eq!(status(&dir), ["missing", "missing"]);
}

#[test]
fn generation_refuses_before_any_work_a_table_beyond_the_memory_limit() {
    let dir = temp_dir("plan-memory");
    let material = Material::parse(GameId::Chess, "KQvKR").unwrap();
    let plan = Plan::new::<Chess>(&dir, Default::default(), &[material]).unwrap();
    let table = &plan.tables[plan.position(&material).unwrap()];
    let read_states: u64 = table
        .reads
        .iter()
        .map(|m| plan.tables[plan.position(m).unwrap()].states)
        .sum();
    assert_eq!(table.peak_bytes, estimate_peak_bytes(table.states, read_states, 0));

    let generate = |backend: &str, limit: u64| {
        egtb_command(&dir, &["generate", "chess", "KQvKR", "--backend", backend])
            .env("EGTB_MAX_MEMORY", limit.to_string())
            .output()
            .unwrap()
    };
    // The plan allows for a GPU driver; a run on the CPU solver opens none.
    let refused = failed(generate("gpu", table.peak_bytes - 1), &["generate"]);
    assert!(
        refused.contains("generating KQvKR (")
            && refused.contains(", and 128.0 MiB for the program and a GPU driver) needs about"),
        "{refused}"
    );
    let cpu_peak = table.peak_bytes - GPU_DRIVER_BYTES;
    let refused = failed(generate("cpu", cpu_peak - 1), &["generate"]);
    assert!(
        refused.contains(", and 32.0 MiB for the program) needs about"),
        "{refused}"
    );
    assert!(refused.contains("EGTB_MAX_MEMORY"), "{refused}");
    let files: Vec<_> = std::fs::read_dir(dir.join("chess")).map_or(Vec::new(), |d| d.collect());
    assert!(files.is_empty(), "nothing is built before the check: {files:?}");
    succeeded(generate("cpu", cpu_peak), &["generate"]);
}

#[test]
fn plans_allow_for_the_asian_rulings_graph_that_generation_checks_later() {
    let dir = temp_dir("plan-asian-memory");
    let material = Material::parse(GameId::Xiangqi, "KRvKN").unwrap();
    let plan = |rules: &str| {
        let rules = Xiangqi::rules(&[("rules".into(), rules.into())]).unwrap();
        Plan::new::<Xiangqi>(&dir, rules, &[material]).unwrap()
    };
    let (draw, asian) = (plan("draw"), plan("asian"));
    assert_eq!(draw.tables.len(), asian.tables.len());
    for (d, a) in draw.tables.iter().zip(&asian.tables) {
        assert_eq!(d.material, a.material);
        // Only a material with an attacker a side can be ruled on, so only it builds the graph.
        let allowed = if rules_apply(&a.material) {
            GRAPH_BYTES_PER_STATE
        } else {
            0
        };
        assert_eq!((d.rule_bytes, a.rule_bytes), (0, allowed), "{}", a.material);
        assert_eq!(a.peak_bytes - d.peak_bytes, allowed * a.states, "{}", a.material);
    }
    assert!(
        asian.tables.iter().any(|t| t.rule_bytes == 0),
        "a material the rules leave alone"
    );

    // Generation checks the graph itself once the draws are known, not the allowance: KRvKN's
    // graph is small, so a limit below the plan's peak, above the solver's, is enough (the plan's
    // peak less the GPU driver's allowance, which a run on the CPU solver is not charged).
    let at = |plan: &Plan| plan.tables[plan.position(&material).unwrap()].peak_bytes - GPU_DRIVER_BYTES;
    let generate = |limit: u64| {
        egtb_command(
            &dir,
            &["generate", "xiangqi", "KRvKN", "--rules", "asian", "--backend", "cpu"],
        )
        .env("EGTB_MAX_MEMORY", limit.to_string())
        .output()
        .unwrap()
    };
    let refused = failed(generate(at(&draw) - 1), &["generate"]);
    assert!(refused.contains("generating KRvKN ("), "{refused}");
    succeeded(generate(at(&asian) - 1), &["generate"]);
}

/// The peak memory the plan of a chess material in `dir` estimates for it.
fn planned_peak(dir: &Path, material: &str) -> u64 {
    let material = Material::parse(GameId::Chess, material).unwrap();
    let plan = Plan::new::<Chess>(dir, Default::default(), &[material]).unwrap();
    plan.tables[plan.position(&material).unwrap()].peak_bytes
}

#[test]
fn a_batch_stops_before_its_first_table_when_a_later_one_is_beyond_the_memory_limit() {
    let dir = temp_dir("plan-batch-memory");
    let peak = planned_peak(&dir, "KQvKR");
    // KRvK fits; KQvKR, asked for after it, does not (on the CPU solver, which opens no GPU
    // driver and is not charged for one).
    let out = egtb_command(&dir, &["generate", "chess", "KRvK", "KQvKR", "--backend", "cpu"])
        .env("EGTB_MAX_MEMORY", (peak - GPU_DRIVER_BYTES - 1).to_string())
        .output()
        .unwrap();
    let refused = failed(out, &["generate"]);
    assert!(refused.contains("generating KQvKR ("), "{refused}");
    let files: Vec<_> = std::fs::read_dir(dir.join("chess")).map_or(Vec::new(), |d| d.collect());
    assert!(files.is_empty(), "no table of the batch is built: {files:?}");

    let beyond = failed(egtb(&dir, &["generate", "chess", "--pieces", "7"]), &["generate"]);
    assert!(beyond.contains("at most 6 pieces"), "{beyond}");
}

#[test]
fn verify_and_bench_refuse_a_material_beyond_the_memory_limit_or_the_gpu_before_any_work() {
    let dir = temp_dir("plan-verify-memory");
    let peak = planned_peak(&dir, "KQvKR");
    for command in ["verify", "bench"] {
        let out = egtb_command(&dir, &[command, "chess", "KQvKR"])
            .env("EGTB_MAX_MEMORY", (peak - 1).to_string())
            .output()
            .unwrap();
        let refused = failed(out, &[command]);
        assert!(refused.contains("generating KQvKR ("), "{command}: {refused}");
    }
    // Xiangqi KRCvKRC has over 7 billion states: more than the GPU solver numbers.
    let beyond = failed(egtb(&dir, &["verify", "xiangqi", "KRCvKRC"]), &["verify"]);
    assert!(
        beyond.contains("more than the GPU solver numbers in 32 bits (use --backend cpu)"),
        "{beyond}"
    );
    let files: Vec<_> = std::fs::read_dir(&*dir).map_or(Vec::new(), |d| d.collect());
    assert!(files.is_empty(), "nothing is built: {files:?}");

    // The GPU solver's host memory is more than the CPU solver's, which solves a pawn table a
    // slice at a time: the whole table read back and every smaller table uploaded.
    succeeds(
        &dir,
        &["generate", "chess", "KQvK", "KRvK", "KBvK", "KNvK", "--backend", "cpu"],
    );
    let cpu_peak = planned_peak(&dir, "KPvK");
    let on = |backend: &str| {
        egtb_command(&dir, &["generate", "chess", "KPvK", "--backend", backend])
            .env("EGTB_MAX_MEMORY", cpu_peak.to_string())
            .output()
            .unwrap()
    };
    let refused = failed(on("gpu"), &["generate"]);
    assert!(refused.contains("solving KPvK on the GPU ("), "{refused}");
    succeeded(on("cpu"), &["generate"]);
}
