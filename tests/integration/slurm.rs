//! `egtb plan --slurm` against a real Slurm: a single-node cluster (munged, slurmctld, slurmd)
//! started in a temporary folder builds a batch whose tables equal a plain `egtb generate`'s,
//! stops only the jobs that depend on a failed one, and finishes after a killed job when the
//! plan is run again. With `EGTB_REQUIRE_SLURM=1` a missing Slurm is a failure, else a skip.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::support::{PORTS, TempDir, egtb_command, find_program, free_ports, required, succeeded, temp_dir};

const DAEMONS: [&str; 3] = ["munged", "slurmctld", "slurmd"];
const CLIENTS: [&str; 4] = ["sbatch", "squeue", "sinfo", "scancel"];

/// Where one program is.
fn program(name: &str) -> Option<PathBuf> {
    find_program(&[name])
}

/// A single-node Slurm cluster of this machine, its state in a temporary folder; the daemons
/// (and any job left) are stopped when it is dropped, the folder removed unless a test failed.
struct Cluster {
    /// Removed once the daemons are stopped (kept when a test fails, for its logs).
    dir: TempDir,
    conf: PathBuf,
    daemons: Vec<Child>,
}

impl Cluster {
    /// Starts the cluster, or `None` (with a note) when Slurm is not installed or this is not
    /// root, unless `EGTB_REQUIRE_SLURM=1` makes that a failure.
    fn start(name: &str) -> Option<Cluster> {
        let missing: Vec<&str> = DAEMONS
            .iter()
            .chain(&CLIENTS)
            .copied()
            .filter(|p| program(p).is_none())
            .collect();
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let why = if !missing.is_empty() {
            format!("Slurm programs missing: {}", missing.join(" "))
        } else if !root {
            "not root (slurmd runs jobs as root here)".to_string()
        } else {
            String::new()
        };
        if !why.is_empty() {
            if required("EGTB_REQUIRE_SLURM") {
                panic!("EGTB_REQUIRE_SLURM=1 but {why} (apt-get install slurm-wlm munge)");
            }
            eprintln!("note: Slurm test skipped: {why}");
            return None;
        }
        let dir = temp_dir(&format!("slurm-{name}"));
        for sub in ["munge", "state", "spool", "log"] {
            std::fs::create_dir_all(dir.join(sub)).unwrap();
        }
        // munged wants the folders of its socket open to all (the key file stays private).
        set_mode(&dir, 0o755);
        set_mode(&dir.join("munge"), 0o755);
        let mut cluster = Cluster {
            conf: dir.join("slurm.conf"),
            dir,
            daemons: Vec::new(),
        };
        cluster.start_munge();
        // The ports written into the configuration stay ours until the daemons listen on them.
        let ports = PORTS.blocking_lock();
        cluster.write_conf();
        for (daemon, log) in [("slurmctld", "slurmctld.out"), ("slurmd", "slurmd.out")] {
            let child = cluster.daemon(daemon, &["-D"], log);
            cluster.daemons.push(child);
        }
        cluster.wait_for_idle_node();
        drop(ports);
        Some(cluster)
    }

    /// munged with its own key and socket, in the foreground.
    fn start_munge(&mut self) {
        let munge = self.dir.join("munge");
        let mut key = vec![0u8; 1024];
        std::fs::File::open("/dev/urandom")
            .unwrap()
            .read_exact(&mut key)
            .unwrap();
        let key_file = munge.join("munge.key");
        std::fs::write(&key_file, key).unwrap();
        set_mode(&key_file, 0o600);
        let socket = munge.join("socket");
        let args = [
            "--foreground".to_string(),
            format!("--socket={}", socket.display()),
            format!("--key-file={}", key_file.display()),
            format!("--pid-file={}", munge.join("pid").display()),
            format!("--log-file={}", munge.join("log").display()),
            format!("--seed-file={}", munge.join("seed").display()),
        ];
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut child = self.daemon("munged", &args, "munged.out");
        self.wait_until("munged's socket", || {
            let exited = child.try_wait().unwrap();
            assert!(exited.is_none(), "munged exited; log in {}", self.dir.display());
            socket.exists()
        });
        self.daemons.push(child);
    }

    fn write_conf(&self) {
        let host = String::from_utf8(Command::new("hostname").arg("-s").output().unwrap().stdout)
            .unwrap()
            .trim()
            .to_string();
        let mem_mib = std::fs::read_to_string("/proc/meminfo")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("MemTotal:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(2048, |kib| kib / 1024 * 3 / 4);
        let d = self.dir.display();
        let [ctld, slurmd] = free_ports();
        let conf = format!(
            "ClusterName=egtbtest\n\
             SlurmctldHost={host}\n\
             SlurmctldPort={ctld}\n\
             SlurmdPort={slurmd}\n\
             SlurmUser=root\n\
             SlurmdUser=root\n\
             AuthType=auth/munge\n\
             CredType=cred/munge\n\
             AuthInfo=socket={d}/munge/socket\n\
             StateSaveLocation={d}/state\n\
             SlurmdSpoolDir={d}/spool\n\
             SlurmctldPidFile={d}/slurmctld.pid\n\
             SlurmdPidFile={d}/slurmd.pid\n\
             SlurmctldLogFile={d}/log/slurmctld.log\n\
             SlurmdLogFile={d}/log/slurmd.log\n\
             ProctrackType=proctrack/linuxproc\n\
             TaskPlugin=task/none\n\
             JobAcctGatherType=jobacct_gather/none\n\
             AccountingStorageType=accounting_storage/none\n\
             SelectType=select/cons_tres\n\
             SelectTypeParameters=CR_CPU_Memory\n\
             SlurmdParameters=config_overrides\n\
             MpiDefault=none\n\
             ReturnToService=2\n\
             NodeName={host} CPUs=2 RealMemory={mem_mib} State=UNKNOWN\n\
             PartitionName=egtb Nodes={host} Default=YES MaxTime=INFINITE State=UP\n",
        );
        std::fs::write(&self.conf, conf).unwrap();
    }

    fn daemon(&self, name: &str, args: &[&str], log: &str) -> Child {
        let out = std::fs::File::create(self.dir.join("log").join(log)).unwrap();
        Command::new(program(name).unwrap())
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .stdin(Stdio::null())
            .stdout(out.try_clone().unwrap())
            .stderr(out)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {name}: {e}"))
    }

    /// A Slurm client command against this cluster; its stdout.
    fn client(&self, name: &str, args: &[&str]) -> String {
        let out = Command::new(program(name).unwrap())
            .args(args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{name} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn wait_until(&self, what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < Duration::from_secs(240),
                "timed out waiting for {what}; logs in {}",
                self.dir.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn wait_for_idle_node(&self) {
        self.wait_until("the node to be idle", || {
            Command::new(program("sinfo").unwrap())
                .args(["-h", "-o", "%t"])
                .env("SLURM_CONF", &self.conf)
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "idle")
        });
    }

    /// The jobs in the queue: (id, name, state).
    fn queue(&self) -> Vec<(String, String, String)> {
        self.client("squeue", &["-h", "-o", "%i %j %T"])
            .lines()
            .filter_map(|l| {
                let mut words = l.split_whitespace().map(str::to_string);
                Some((words.next()?, words.next()?, words.next()?))
            })
            .collect()
    }

    fn wait_for_empty_queue(&self) {
        self.wait_until("the queue to empty", || self.queue().is_empty());
    }

    /// Runs `egtb` with this cluster's configuration.
    fn egtb(&self, tables: &Path, args: &[&str]) -> Output {
        egtb_command(tables, args)
            .env("SLURM_CONF", &self.conf)
            .output()
            .expect("egtb runs")
    }

    /// Runs `egtb` with this cluster's configuration, checks that it succeeded; its stdout.
    fn succeeds(&self, tables: &Path, args: &[&str]) -> String {
        succeeded(self.egtb(tables, args), args)
    }

    /// `egtb plan ... --slurm --submit --json`: the materials of the jobs submitted.
    fn submit(&self, tables: &Path, args: &[&str]) -> Vec<String> {
        let mut all = vec!["plan"];
        all.extend_from_slice(args);
        all.extend(["--slurm", "--submit", "--mem-from-estimate", "--json"]);
        let out = self.succeeds(tables, &all);
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        json["jobs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|j| j["material"].as_str().unwrap().to_string())
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        // Jobs first (their processes are not the daemons' children), then the daemons.
        let _ = Command::new(program("scancel").unwrap())
            .args(["--user=root", "--quiet"])
            .env("SLURM_CONF", &self.conf)
            .status();
        let start = Instant::now();
        while start.elapsed() < Duration::from_secs(10)
            && Command::new(program("squeue").unwrap())
                .args(["-h"])
                .env("SLURM_CONF", &self.conf)
                .output()
                .is_ok_and(|o| o.status.success() && !o.stdout.is_empty())
        {
            std::thread::sleep(Duration::from_millis(100));
        }
        for daemon in self.daemons.iter_mut().rev() {
            let _ = daemon.kill();
            let _ = daemon.wait();
        }
        if std::thread::panicking() {
            eprintln!("Slurm cluster logs kept in {}", self.dir.display());
        }
    }
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Every table file under a tables folder, its path below the folder and its bytes, in the
/// order `egtb::table::table_files` lists them.
fn tables_with_bytes(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let files = egtb::table::table_files(dir).unwrap().into_iter();
    files
        .map(|path| {
            let name = path.strip_prefix(dir).unwrap().display().to_string();
            (name, std::fs::read(&path).unwrap())
        })
        .collect()
}

/// Every table in the folder verifies (`egtb list --json`), and the folder holds exactly the
/// tables of `reference`, byte for byte.
fn assert_same_tables(cluster: &Cluster, tables: &Path, reference: &Path) {
    let listed: serde_json::Value = serde_json::from_str(&cluster.succeeds(tables, &["list", "--json"])).unwrap();
    for table in listed["tables"].as_array().unwrap() {
        assert_eq!(table["ok"], true, "{table}");
    }
    let ours = tables_with_bytes(tables);
    let theirs = tables_with_bytes(reference);
    let names = |files: &[(String, Vec<u8>)]| files.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&ours), names(&theirs));
    for ((name, a), (_, b)) in ours.iter().zip(&theirs) {
        assert!(a == b, "{name} differs from the one built by egtb generate");
    }
}

/// A batch of two games: every table built once, by its own job, equal to a plain
/// `egtb generate`'s; planning it again submits nothing.
fn batch_equals_plain_generate(cluster: &Cluster) {
    let tables = temp_dir("slurm-tables-batch");
    let reference = temp_dir("slurm-tables-batch-reference");
    let mut jobs = cluster.submit(&tables, &["chess", "KRvKN", "--pieces", "3"]);
    jobs.extend(cluster.submit(&tables, &["xiangqi", "KRvK"]));
    assert_eq!(
        jobs,
        ["KvK", "KNvK", "KRvK", "KRvKN", "KQvK", "KBvK", "KPvK", "KvK", "KRvK"]
    );
    cluster.succeeds(&reference, &["generate", "chess", "KRvKN", "--pieces", "3"]);
    cluster.succeeds(&reference, &["generate", "xiangqi", "KRvK"]);
    cluster.wait_for_empty_queue();
    assert_same_tables(cluster, &tables, &reference);
    assert!(cluster.submit(&tables, &["chess", "KRvKN", "--pieces", "3"]).is_empty());
}

/// A failed job stops only the jobs that depend on it; the plan refuses a table file it cannot
/// use; once that is fixed the rerun submits only what is missing; a job cancelled while it
/// runs leaves no table, and the rerun finishes the batch.
fn failures_and_kills_are_resumed(cluster: &Cluster) {
    let tables = temp_dir("slurm-tables-resume");
    let reference = temp_dir("slurm-tables-resume-reference");
    let plan = ["plan", "chess", "KRRRvK", "--cpus-per-job", "2"];
    let script = cluster.succeeds(&tables, &[&plan[..], &["--slurm", "--mem-from-estimate"]].concat());
    // Something that is no table where KRRvK belongs makes its job fail.
    let obstacle = tables.join("chess").join("KRRvK.egtb");
    std::fs::create_dir_all(obstacle.join("not-a-table")).unwrap();
    let script_file = tables.join("batch.sh");
    std::fs::write(&script_file, script).unwrap();
    let out = Command::new("bash")
        .arg(&script_file)
        .env("SLURM_CONF", &cluster.conf)
        .output()
        .unwrap();
    assert_eq!(succeeded(out, &["bash", "batch.sh"]).lines().count(), 4);
    cluster.wait_for_empty_queue();
    let chess = tables.join("chess");
    assert!(chess.join("KvK.egtb").is_file() && chess.join("KRvK.egtb").is_file());
    assert!(!chess.join("KRRRvK.egtb").exists(), "the job after the failed one ran");
    let refused = cluster.egtb(&tables, &[&plan[..], &["--slurm"]].concat());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.starts_with("egtb: error: "),
        "{stderr}"
    );
    assert!(
        stderr.contains("KRRvK.egtb") && stderr.trim_end().lines().count() == 1,
        "{stderr}"
    );

    std::fs::remove_dir_all(&obstacle).unwrap();
    let jobs = cluster.submit(&tables, &["chess", "KRRRvK", "--cpus-per-job", "2"]);
    assert_eq!(jobs, ["KRRvK", "KRRRvK"]);
    let running = || {
        cluster
            .queue()
            .into_iter()
            .find(|(_, name, state)| name == "egtb-chess-KRRRvK" && state == "RUNNING")
    };
    cluster.wait_until("KRRRvK's job to run", || running().is_some());
    std::thread::sleep(Duration::from_secs(1));
    let (id, ..) = running().expect("KRRRvK's job still runs a second later");
    cluster.client("scancel", &[&id]);
    cluster.wait_for_empty_queue();
    assert!(!chess.join("KRRRvK.egtb").exists(), "a cancelled job left a table");

    assert_eq!(
        cluster.submit(&tables, &["chess", "KRRRvK", "--cpus-per-job", "2"]),
        ["KRRRvK"]
    );
    cluster.succeeds(&reference, &["generate", "chess", "KRRRvK"]);
    cluster.wait_for_empty_queue();
    assert_same_tables(cluster, &tables, &reference);
}

/// Both scenarios on one cluster, one after the other (one cluster at a time on the machine).
#[test]
fn a_plan_submitted_to_slurm_builds_resumes_and_survives_failures() {
    let Some(cluster) = Cluster::start("plan") else { return };
    batch_equals_plain_generate(&cluster);
    failures_and_kills_are_resumed(&cluster);
}
