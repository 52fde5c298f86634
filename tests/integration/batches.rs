//! Batches: `--pieces N` builds every table of its plan, under its rules; batches that share a
//! folder or get killed build each table once, by one process at a time; a killed batch leaves no
//! table that loads and is wrong, and running it again finishes it.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use egtb::games::xiangqi::asian::rules_apply;
use egtb::material::{GameId, Material};
use egtb::table::lock::TableLock;
use serde_json::Value;

use crate::support::{Rng, egtb, egtb_command, lines_of, materials, temp_dir};

/// The `--json` summary of a finished generate.
fn summary(output: std::process::Output) -> Value {
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON summary")
}

/// Random moments that differ from run to run: seeded by the clock, or by `EGTB_TEST_SEED` to
/// choose the moments of a run again (each run prints its seed).
fn seeded_by_clock() -> Rng {
    let seed = std::env::var("EGTB_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            let nanos = SystemTime::now()
                .duration_since(SystemTime::UNIX_EPOCH)
                .unwrap()
                .subsec_nanos();
            u64::from(nanos)
        });
    eprintln!("moments seeded with EGTB_TEST_SEED={seed}");
    Rng::new(seed)
}

/// Every table file in the folder verifies (`egtb list`), and how many there are.
fn all_verify(tables: &Path) -> usize {
    let list: Value = summary(egtb(tables, &["list", "--json"]));
    let list = list["tables"].as_array().unwrap();
    for table in list {
        assert_eq!(table["ok"], true, "{table}");
    }
    list.len()
}

/// Files in the chess folder that are not tables.
fn leftovers(tables: &Path) -> Vec<String> {
    fs::read_dir(tables.join("chess"))
        .map(|listing| {
            listing
                .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
                .filter(|name| !name.ends_with(".egtb"))
                .collect()
        })
        .unwrap_or_default()
}

/// Files in the chess folder that are neither tables nor lock files: temporary files of tables
/// being written. (A lock file stays where a kill fell between a table's rename and its lock's
/// release; it is empty and harmless.)
fn temporary_files(tables: &Path) -> Vec<String> {
    leftovers(tables)
        .into_iter()
        .filter(|f| !f.ends_with(".lock"))
        .collect()
}

/// Whether every table of a `--json` plan or generate summary has `field` equal to `value`.
fn every_table(summary: &Value, field: &str, value: Value) -> bool {
    summary["tables"].as_array().unwrap().iter().all(|t| t[field] == value)
}

/// `--pieces 4` under the Asian rules builds the tables its plan lists, in the plan's order, each
/// under those rules (named so, with no `draw` table made or read), rulings only where both sides
/// can attack; run again, it reuses them all.
#[test]
fn a_pieces_batch_builds_every_table_of_its_plan_under_its_rules() {
    let dir = temp_dir("batch-pieces");
    let asian = ["--json", "--rules", "asian"];
    let plan = summary(egtb(
        &dir,
        &[&asian[..], &["plan", "xiangqi", "--pieces", "4"]].concat(),
    ));
    let planned = materials(&plan);
    assert!(every_table(&plan, "status", "missing".into()), "{plan}");
    let batch = [
        &asian[..],
        &["generate", "xiangqi", "--pieces", "4", "--backend", "cpu"],
    ]
    .concat();
    let out = summary(egtb(&dir, &batch));
    assert_eq!(materials(&out), planned);
    assert!(every_table(&out, "reused", false.into()), "{out}");
    let mut files: Vec<String> = fs::read_dir(dir.join("xiangqi"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .collect();
    files.sort();
    let mut expected = Vec::new();
    for name in &planned {
        expected.push(format!("{name}.rules-asian.egtb"));
        let ruled = dir.join("xiangqi").join(format!("{name}.rules-asian.rulings"));
        if ruled.exists() {
            let material = Material::parse(GameId::Xiangqi, name).unwrap();
            assert!(rules_apply(&material), "{name}: rulings where one side cannot attack");
            expected.push(format!("{name}.rules-asian.rulings"));
        }
    }
    expected.sort();
    assert_eq!(files, expected);
    assert!(files.contains(&"KRvKN.rules-asian.rulings".to_string()), "{files:?}");
    assert_eq!(all_verify(&dir), planned.len());
    let again = summary(egtb(&dir, &batch));
    assert!(every_table(&again, "reused", true.into()), "{again}");
}

#[test]
fn two_processes_on_one_folder_build_each_table_once() {
    let dir = temp_dir("batch-shared");
    let first = egtb_command(
        &dir,
        &["generate", "chess", "KQvKR", "KRvKN", "--json", "--threads", "1"],
    )
    .spawn()
    .unwrap();
    let second = egtb_command(
        &dir,
        &["generate", "chess", "KRvKN", "KQvKR", "--json", "--threads", "1"],
    )
    .spawn()
    .unwrap();
    let runs = [first, second].map(|child| summary(child.wait_with_output().unwrap()));
    let mut builders: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (run, out) in runs.iter().enumerate() {
        for table in out["tables"].as_array().unwrap() {
            let entry = builders
                .entry(table["material"].as_str().unwrap().to_string())
                .or_default();
            if table["reused"] == false {
                entry.push(run);
            }
        }
    }
    assert_eq!(builders.len(), 6, "{builders:?}");
    for (material, built_by) in &builders {
        assert_eq!(built_by.len(), 1, "{material} built by runs {built_by:?}");
    }
    assert_eq!(all_verify(&dir), 6);
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

/// While another process holds a table's lock, a batch builds the tables that do not need that
/// one, and waits for it only when nothing else is left; then it builds it.
#[test]
fn a_batch_builds_other_tables_while_another_process_holds_one() {
    let dir = temp_dir("batch-busy");
    let held = dir.join("chess").join("KQvKR.egtb");
    let lock = TableLock::try_acquire(&held)
        .unwrap()
        .expect("nobody holds the table yet");
    let batch = ["generate", "chess", "KQvKR", "KRvKN", "--json", "--threads", "1"];
    // Plain progress lines (stderr is no terminal), none of them periodic within the test.
    let mut child = egtb_command(&dir, &batch)
        .env("EGTB_PROGRESS_EVERY", "3600")
        .spawn()
        .unwrap();
    let lines = lines_of(child.stderr.take().unwrap());
    let next_line = || {
        lines
            .recv_timeout(Duration::from_secs(120))
            .expect("the batch says it waits")
    };
    while next_line() != "egtb: KQvKR: waiting for the process that builds it" {}
    assert!(
        dir.join("chess").join("KRvKN.egtb").exists(),
        "KRvKN was built while KQvKR was locked"
    );
    assert!(!held.exists());
    drop(lock);
    let out = summary(child.wait_with_output().unwrap());
    assert_eq!(materials(&out), ["KvK", "KRvK", "KQvK", "KNvK", "KRvKN", "KQvKR"]);
    assert!(every_table(&out, "reused", false.into()), "{out}");
    assert_eq!(all_verify(&dir), 6);
    assert!(leftovers(&dir).is_empty(), "{:?}", leftovers(&dir));
}

#[test]
fn a_batch_killed_at_random_moments_finishes_when_run_again() {
    let dir = temp_dir("batch-killed");
    let batch = ["generate", "chess", "KQvKR", "KRvKN", "--json", "--threads", "1"];
    // How long the whole batch takes here, to kill within it.
    let timing = temp_dir("batch-timing");
    let start = Instant::now();
    summary(egtb(&timing, &batch));
    let whole = start.elapsed();
    drop(timing);
    let mut rng = seeded_by_clock();
    for round in 0..2 {
        // Within the first half of a whole batch: each round has work left to interrupt.
        let moment = whole.mul_f64(0.5 * rng.below(1 << 24) as f64 / f64::from(1u32 << 24));
        let mut child = egtb_command(&dir, &batch).spawn().unwrap();
        std::thread::sleep(moment);
        // SIGKILL: the process gets no chance to clean up.
        child.kill().unwrap();
        child.wait().unwrap();
        let present = all_verify(&dir);
        eprintln!("round {round}: killed after {moment:.2?}, {present} tables there and verifying");
    }
    let out = summary(egtb(&dir, &batch));
    let tables = out["tables"].as_array().unwrap();
    assert_eq!(tables.len(), 6, "{out}");
    assert_eq!(all_verify(&dir), 6);
    // A temporary file is removed by the next builder of its table.
    let temporary = temporary_files(&dir);
    assert!(temporary.is_empty(), "{temporary:?}");
    let again = summary(egtb(&dir, &batch));
    assert!(every_table(&again, "reused", true.into()), "{again}");
}

/// A table with pawns is written while its slices are solved: killed at random moments of that,
/// it leaves no table that loads, and built again it is the table an uninterrupted run writes.
#[test]
fn a_pawn_table_killed_while_its_slices_are_solved_is_built_again_whole() {
    let dir = temp_dir("pawns-killed");
    let generate = ["generate", "chess", "KPvKP", "--json", "--threads", "1"];
    summary(egtb(&dir, &generate));
    let path = dir.join("chess").join("KPvKP.egtb");
    let whole = fs::read(&path).unwrap();
    fs::remove_file(&path).unwrap();
    // How long KPvKP alone takes here, its smaller tables there.
    let start = Instant::now();
    summary(egtb(&dir, &generate));
    let alone = start.elapsed();
    let mut rng = seeded_by_clock();
    for round in 0..2 {
        fs::remove_file(&path).unwrap();
        let start = Instant::now();
        let mut child = egtb_command(&dir, &generate).spawn().unwrap();
        // Killed once the slices are being written (its temporary files there), within the
        // time the rest of the run took alone.
        let writing = |name: &String| name.starts_with("KPvKP.egtb.tmp");
        while !leftovers(&dir).iter().any(writing) && start.elapsed() < alone {
            std::thread::sleep(Duration::from_millis(1));
        }
        let seen = start.elapsed();
        let left = alone.saturating_sub(seen);
        let moment = left.mul_f64(0.9 * rng.below(1 << 24) as f64 / f64::from(1u32 << 24));
        std::thread::sleep(moment);
        child.kill().unwrap();
        child.wait().unwrap();
        eprintln!(
            "round {round}: writing after {seen:.2?}, killed after {:.2?} of {alone:.2?}, the table {}",
            start.elapsed(),
            if path.exists() { "whole" } else { "not there" }
        );
        all_verify(&dir);
        if path.exists() {
            // The kill fell after the rename.
            assert_eq!(fs::read(&path).unwrap(), whole);
        }
        summary(egtb(&dir, &generate));
        assert_eq!(fs::read(&path).unwrap(), whole, "round {round}");
        let temporary = temporary_files(&dir);
        assert!(temporary.is_empty(), "{temporary:?}");
    }
}

/// Ctrl-C (SIGINT) or SIGTERM while a pawn table's slices are solved, its temporary files on
/// disk: the run ends in one line with the signal's exit status, and leaves no temporary file
/// behind, only the finished tables; run again, it finishes.
#[test]
fn an_interrupted_run_removes_its_temporary_files() {
    let dir = temp_dir("interrupted");
    let generate = ["generate", "chess", "KPvKP", "--json", "--threads", "1"];
    summary(egtb(&dir, &generate));
    let path = dir.join("chess").join("KPvKP.egtb");
    let whole = fs::read(&path).unwrap();
    for (signal, status) in [(libc::SIGINT, 130), (libc::SIGTERM, 143)] {
        fs::remove_file(&path).unwrap();
        let child = egtb_command(&dir, &generate).spawn().unwrap();
        let writing = |name: &String| name.starts_with("KPvKP.egtb.tmp");
        let start = Instant::now();
        while !leftovers(&dir).iter().any(writing) {
            assert!(start.elapsed() < Duration::from_secs(60), "no temporary file seen");
            std::thread::sleep(Duration::from_millis(1));
        }
        // SAFETY: a signal to the child this test started, which has not been waited for.
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(status), "{stderr}");
        assert!(
            stderr.trim_start().starts_with("egtb: interrupted; removed ") && stderr.trim().lines().count() == 1,
            "{stderr}"
        );
        let temporary = temporary_files(&dir);
        assert!(temporary.is_empty(), "{temporary:?}");
        all_verify(&dir);
        summary(egtb(&dir, &generate));
        assert_eq!(fs::read(&path).unwrap(), whole);
    }
}
