//! Progress bars for long work (indicatif), drawn on stderr only when it is a terminal.

use std::sync::Mutex;

use indicatif::{ProgressBar, ProgressState, ProgressStyle};

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
            ProgressStyle::with_template("{msg:>22} [{bar:30}] {percent:>3}% {rate:>10} ETA {eta}")
                .expect("valid template")
                .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
                    let _ = write!(w, "{}", rate(state.per_sec()));
                })
                .progress_chars("=> "),
        );
        Bar {
            bar,
            table: Mutex::new(String::new()),
        }
    }

    /// Runs `print` with the bar hidden, so that lines printed meanwhile stay whole.
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        self.bar.suspend(print)
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        self.bar.finish_and_clear();
    }
}

/// A rate of states a second in a few characters: `950/s`, `12.5 k/s`, `9.4 M/s`.
fn rate(per_sec: f64) -> String {
    match per_sec {
        r if r >= 1e6 => format!("{:.1} M/s", r / 1e6),
        r if r >= 1e3 => format!("{:.1} k/s", r / 1e3),
        r => format!("{r:.0}/s"),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_read_in_a_few_characters() {
        assert_eq!(rate(950.4), "950/s");
        assert_eq!(rate(12_549.0), "12.5 k/s");
        assert_eq!(rate(9_071_153.756_531_173), "9.1 M/s");
    }
}
