//! Progress bars for long work (indicatif), drawn on stderr only when it is a terminal.

use std::collections::HashMap;
use std::sync::Mutex;

use indicatif::{MultiProgress, ProgressBar, ProgressState, ProgressStyle};

use crate::solver::Progress;

/// A progress bar that shows the table, the phase, the rate and the time left; in a batch of
/// tables, a second bar under it shows the batch's share done, by states, and its time left.
pub struct Bar {
    bars: MultiProgress,
    bar: ProgressBar,
    table: Mutex<String>,
    batch: Mutex<Option<Batch>>,
}

/// The tables of a batch still to build, and how far it has come.
struct Batch {
    bar: ProgressBar,
    /// States per table name.
    states: HashMap<String, u64>,
    /// The table being built, which counts as done when the next one starts.
    current: Option<String>,
    started: usize,
}

impl Batch {
    /// Counts the table being built as done.
    fn finish_current(&mut self) {
        if let Some(name) = self.current.take() {
            self.bar.inc(self.states.get(&name).copied().unwrap_or(0));
        }
    }
}

/// The look of both bars: message, bar, percent, rate in states a second, time left.
fn style() -> ProgressStyle {
    ProgressStyle::with_template("{msg:>22} [{bar:30}] {percent:>3}% {rate:>10} ETA {eta}")
        .expect("valid template")
        .with_key("rate", |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = write!(w, "{}", rate(state.per_sec()));
        })
        .progress_chars("=> ")
}

impl Bar {
    /// A bar with no table yet and no batch bar.
    pub fn new() -> Bar {
        let bars = MultiProgress::new();
        let bar = bars.add(ProgressBar::new(0));
        bar.set_style(style());
        Bar {
            bars,
            bar,
            table: Mutex::new(String::new()),
            batch: Mutex::new(None),
        }
    }

    /// Shows a batch's bar for the tables about to be built (name and states each), when
    /// there is more than one.
    pub fn batch(&self, tables: impl IntoIterator<Item = (String, u64)>) {
        let states: HashMap<String, u64> = tables.into_iter().collect();
        if states.len() < 2 {
            return;
        }
        let bar = self.bars.add(ProgressBar::new(states.values().sum()));
        bar.set_style(style());
        bar.set_message(format!("batch: 0 of {} tables", states.len()));
        *self.batch.lock().expect("progress lock") = Some(Batch {
            bar,
            states,
            current: None,
            started: 0,
        });
    }

    /// Runs `print` with the bars hidden, so that lines printed meanwhile stay whole.
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        self.bars.suspend(print)
    }

    /// Counts the last table of a batch as done and removes the bars from the terminal.
    pub fn finish(&self) {
        if let Some(batch) = self.batch.lock().expect("progress lock").as_mut() {
            batch.finish_current();
            batch.bar.finish_and_clear();
        }
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
        if let Some(batch) = self.batch.lock().expect("progress lock").as_mut() {
            batch.finish_current();
            batch.started += 1;
            batch
                .bar
                .set_message(format!("batch: {} of {} tables", batch.started, batch.states.len()));
            batch.current = Some(name.to_string());
        }
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
    fn a_batch_counts_each_table_by_its_states_once_the_next_starts() {
        let bar = Bar::new();
        bar.batch([("KvK".to_string(), 924), ("KQvK".to_string(), 57_288)]);
        let shown = |bar: &Bar| {
            let batch = bar.batch.lock().unwrap();
            let batch = batch.as_ref().unwrap();
            (batch.bar.position(), batch.bar.length(), batch.bar.message())
        };
        assert_eq!(shown(&bar), (0, Some(58_212), "batch: 0 of 2 tables".into()));
        bar.table("KvK");
        bar.phase("moves", 924);
        bar.advance(924);
        assert_eq!(shown(&bar), (0, Some(58_212), "batch: 1 of 2 tables".into()));
        bar.table("KQvK");
        assert_eq!(shown(&bar), (924, Some(58_212), "batch: 2 of 2 tables".into()));
        bar.finish();
        assert_eq!(shown(&bar).0, 58_212);
    }

    #[test]
    fn one_table_has_no_batch_bar() {
        let bar = Bar::new();
        bar.batch([("KQvK".to_string(), 57_288)]);
        assert!(bar.batch.lock().unwrap().is_none());
    }

    #[test]
    fn rates_read_in_a_few_characters() {
        assert_eq!(rate(950.4), "950/s");
        assert_eq!(rate(12_549.0), "12.5 k/s");
        assert_eq!(rate(9_071_153.756_531_173), "9.1 M/s");
    }
}
