//! Progress bars for long work (indicatif), drawn on stderr only when it is a terminal.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressStyle};

use crate::solver::Progress;

/// A progress bar that shows the table, the phase, the rate and the time left.
pub struct Bar {
    bar: ProgressBar,
    table: Mutex<String>,
}

impl Bar {
    pub fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{msg:>22} [{bar:30}] {percent:>3}% {per_sec:>14} ETA {eta}")
                .expect("valid template")
                .progress_chars("=> "),
        );
        Bar {
            bar,
            table: Mutex::new(String::new()),
        }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

impl Default for Bar {
    fn default() -> Self {
        Bar::new()
    }
}

impl Progress for Bar {
    fn table(&self, name: &str) {
        *self.table.lock().expect("progress lock") = name.to_string();
    }

    fn phase(&self, name: &str, total: u64) {
        let table = self.table.lock().expect("progress lock").clone();
        self.bar.reset();
        self.bar.set_length(total);
        self.bar.set_message(format!("{table} {name}"));
    }

    fn advance(&self, done: u64) {
        self.bar.inc(done);
    }
}

/// The peak resident memory of this process in bytes, where the system tells it.
pub fn peak_memory() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
