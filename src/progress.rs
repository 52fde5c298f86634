//! Progress of long work on stderr: bars (indicatif) on a terminal, else a plain line now and
//! then, so that a log file or a batch job's output shows how far a long run has come.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use indicatif::{HumanDuration, MultiProgress, ProgressBar, ProgressState, ProgressStyle};

use crate::settings;
use crate::solver::Progress;

/// A progress bar that shows the table, the phase, the rate and the time left; in a batch of
/// tables, a second bar under it shows the batch's share done, by states, and its time left
/// (the table under way counted done at the batch's pace so far).
pub struct Bar {
    bars: MultiProgress,
    bar: ProgressBar,
    table: Mutex<String>,
    batch: Mutex<Option<Batch>>,
    log: Option<Log>,
}

/// Where stderr is not a terminal: a plain line at most every `every`.
struct Log {
    every: Duration,
    last: Mutex<Instant>,
}

/// The seconds between plain progress lines when stderr is not a terminal, unless
/// `EGTB_PROGRESS_EVERY` says otherwise (0 turns them off).
const LOG_EVERY_SECONDS: f64 = 30.0;

/// The tables of a batch still to build, and how far it has come.
struct Batch {
    bar: ProgressBar,
    /// States per table name.
    states: HashMap<String, u64>,
    /// Tables started here or built by another process.
    started: usize,
    /// How fast this process builds the batch's tables, which the bar's position, rate and time
    /// left read; it holds the table being built, counted done in part at that pace meanwhile
    /// and in full when the next one starts.
    pace: Arc<Pace>,
}

impl Batch {
    /// Counts the table being built as done.
    fn finish_current(&mut self) {
        self.pace.finish_current(self.bar.elapsed());
        self.show_pace();
    }

    /// Moves the bar to the states done and the share of the table under way that the pace so
    /// far gives it, so that a long table moves the bar while it is built.
    fn show_pace(&self) {
        self.bar.set_position(self.pace.position(self.bar.elapsed()));
    }

    /// Begins the next table.
    fn start(&mut self, name: &str) {
        self.finish_current();
        self.count_started();
        self.pace.started(self.states.get(name).copied().unwrap_or(0));
    }

    /// Counts one more table started (or done elsewhere) in the bar's message.
    fn count_started(&mut self) {
        self.started += 1;
        self.bar
            .set_message(format!("batch: {} of {} tables", self.started, self.states.len()));
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

/// The batch bar's look: its rate and time left from the pace of the tables built so far, since
/// the states done grow only when a table is done, too seldom for a recent rate to mean anything.
fn batch_style(pace: &Arc<Pace>) -> ProgressStyle {
    let (for_rate, for_eta) = (Arc::clone(pace), Arc::clone(pace));
    style()
        .with_key("rate", move |_: &ProgressState, w: &mut dyn std::fmt::Write| {
            let _ = match for_rate.rate() {
                Some(per_sec) => write!(w, "{}", rate(per_sec)),
                None => write!(w, "-"),
            };
        })
        .with_key("eta", move |state: &ProgressState, w: &mut dyn std::fmt::Write| {
            let left = state.len().and_then(|total| for_eta.left(total, state.elapsed()));
            let _ = match left {
                Some(left) => write!(w, "{:#}", HumanDuration(left)),
                None => write!(w, "-"),
            };
        })
}

/// How fast a batch goes: the states of the tables this process built and the batch's time when
/// the last of them was done, the states of the table under way, and the states counted done in
/// all. Tables that another process built count as done but not in the pace, lest they make it
/// look faster than it is.
#[derive(Default)]
struct Pace {
    solved_states: AtomicU64,
    solved_by_nanos: AtomicU64,
    current_states: AtomicU64,
    done_states: AtomicU64,
}

impl Pace {
    /// Counts the table under way done at the batch's time `elapsed`.
    fn finish_current(&self, elapsed: Duration) {
        let states = self.current_states.swap(0, Ordering::Relaxed);
        if states > 0 {
            self.solved_states.fetch_add(states, Ordering::Relaxed);
            self.done_states.fetch_add(states, Ordering::Relaxed);
            let nanos = u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX);
            self.solved_by_nanos.store(nanos, Ordering::Relaxed);
        }
    }

    /// Counts a table of `states` that another process built as done.
    fn built_elsewhere(&self, states: u64) {
        self.done_states.fetch_add(states, Ordering::Relaxed);
    }

    /// The states to show done at `elapsed`: those of the tables done, and of the table under
    /// way as many as the pace so far has built in its time, at most all of them (none before a
    /// table is done). Never less than at an earlier time.
    fn position(&self, elapsed: Duration) -> u64 {
        let done = self.done_states.load(Ordering::Relaxed);
        let current = self.current_states.load(Ordering::Relaxed);
        let Some(per_sec) = self.rate() else { return done };
        done + ((self.taken(elapsed) * per_sec) as u64).min(current)
    }

    /// Seconds the table under way has taken at the batch's time `elapsed`: since the last table
    /// done here.
    fn taken(&self, elapsed: Duration) -> f64 {
        let solved_by = Duration::from_nanos(self.solved_by_nanos.load(Ordering::Relaxed));
        elapsed.saturating_sub(solved_by).as_secs_f64()
    }

    /// A table of `states` begins.
    fn started(&self, states: u64) {
        self.current_states.store(states, Ordering::Relaxed);
    }

    /// States a second over the tables built so far: none before the first is done.
    fn rate(&self) -> Option<f64> {
        let states = self.solved_states.load(Ordering::Relaxed);
        let nanos = self.solved_by_nanos.load(Ordering::Relaxed);
        (states > 0 && nanos > 0).then(|| states as f64 * 1e9 / nanos as f64)
    }

    /// The time left at `elapsed` of a batch of `total` states: what the table under way has
    /// still to take at the pace so far, then the tables after it at that pace. A table
    /// under way that has taken longer than the pace allows (tables differ in speed: a batch's
    /// first, small ones set a pace its larger ones miss) counts as about to end, so the time
    /// left is that of the tables after it. None before a table is done, and for the last table
    /// once it is past its time: there is nothing left to estimate from.
    fn left(&self, total: u64, elapsed: Duration) -> Option<Duration> {
        let per_sec = self.rate()?;
        let done = self.done_states.load(Ordering::Relaxed);
        let not_done = total.saturating_sub(done);
        let current = self.current_states.load(Ordering::Relaxed).min(not_done);
        let current_left = current as f64 / per_sec - self.taken(elapsed);
        let after = (not_done - current) as f64 / per_sec;
        (current_left >= 0.0 || after > 0.0).then(|| Duration::from_secs_f64(current_left.max(0.0) + after))
    }
}

impl Bar {
    /// A bar with no table yet and no batch bar.
    pub fn new() -> Bar {
        let bars = MultiProgress::new();
        let bar = bars.add(ProgressBar::new(0));
        bar.set_style(style());
        let every = match settings::var("EGTB_PROGRESS_EVERY") {
            None => LOG_EVERY_SECONDS,
            Some(text) => text.trim().parse::<f64>().unwrap_or_else(|_| {
                static WARNED: std::sync::Once = std::sync::Once::new();
                WARNED.call_once(|| {
                    eprintln!(
                        "egtb: warning: EGTB_PROGRESS_EVERY={text} is not a number of seconds; \
                         progress lines every {LOG_EVERY_SECONDS} s"
                    )
                });
                LOG_EVERY_SECONDS
            }),
        };
        // 0 or less turns the lines off, and so does an interval too long to be a duration.
        let every = Duration::try_from_secs_f64(every).ok().filter(|every| !every.is_zero());
        let log = every.filter(|_| !std::io::stderr().is_terminal()).map(|every| Log {
            every,
            last: Mutex::new(Instant::now()),
        });
        Bar {
            bars,
            bar,
            table: Mutex::new(String::new()),
            batch: Mutex::new(None),
            log,
        }
    }

    /// Prints the bars' state as one plain line, when stderr is not a terminal and the last
    /// line is old enough.
    fn log(&self) {
        let Some(log) = &self.log else { return };
        // A worker that finds another printing goes on with its work.
        let Ok(mut last) = log.last.try_lock() else { return };
        if last.elapsed() < log.every {
            return;
        }
        *last = Instant::now();
        let bar = &self.bar;
        let mut line = format!("egtb: {}", line_of(bar, Some(bar.per_sec()), Some(bar.eta())));
        if let Ok(batch) = self.batch.try_lock()
            && let Some(batch) = batch.as_ref()
        {
            let bar = &batch.bar;
            let left = bar.length().and_then(|total| batch.pace.left(total, bar.elapsed()));
            line += &format!("; {}", line_of(bar, batch.pace.rate(), left));
        }
        eprintln!("{line}");
    }

    /// Shows a batch's bar for the tables about to be built (name and states each), when
    /// there is more than one.
    pub fn batch(&self, tables: impl IntoIterator<Item = (String, u64)>) {
        let states: HashMap<String, u64> = tables.into_iter().collect();
        if states.len() < 2 {
            return;
        }
        let pace = Arc::new(Pace::default());
        let bar = self.bars.add(ProgressBar::new(states.values().sum()));
        bar.set_style(batch_style(&pace));
        bar.set_message(format!("batch: 0 of {} tables", states.len()));
        *self.batch.lock().expect("progress lock") = Some(Batch {
            bar,
            states,
            started: 0,
            pace,
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

/// A bar as words: `KRPvKR layers at 45%, 9.4 M/s, 1 minute left` (the rate and the time left,
/// when known).
fn line_of(bar: &ProgressBar, per_sec: Option<f64>, eta: Option<Duration>) -> String {
    let percent = match bar.length() {
        Some(total) if total > 0 => format!(" at {}%", bar.position().saturating_mul(100) / total),
        _ => String::new(),
    };
    let per_sec = per_sec.map_or(String::new(), |per_sec| format!(", {}", rate(per_sec)));
    let left = eta.map_or(String::new(), |eta| format!(", {} left", HumanDuration(eta)));
    format!("{}{percent}{per_sec}{left}", bar.message())
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
            batch.start(name);
        }
    }

    fn built_elsewhere(&self, name: &str) {
        if let Some(batch) = self.batch.lock().expect("progress lock").as_mut()
            && let Some(&states) = batch.states.get(name)
        {
            batch.pace.built_elsewhere(states);
            batch.show_pace();
            batch.count_started();
        }
    }

    /// Says so on the table's bar, and at once in the plain lines where stderr is no terminal.
    fn waiting(&self, name: &str) {
        let message = format!("{name}: waiting for the process that builds it");
        self.bar.reset();
        self.bar.set_length(0);
        self.bar.set_message(message.clone());
        if self.log.is_some() {
            eprintln!("egtb: {message}");
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
        // A worker that finds the batch locked leaves its bar to the next update.
        if let Ok(batch) = self.batch.try_lock()
            && let Some(batch) = batch.as_ref()
        {
            batch.show_pace();
        }
        self.log();
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

    /// A bar with a batch of two tables: KvK (924 states), then KQvK (57,288).
    fn kings_then_queen() -> Bar {
        let bar = Bar::new();
        bar.batch([("KvK".to_string(), 924), ("KQvK".to_string(), 57_288)]);
        bar
    }

    /// The batch bar's position, length and message.
    fn shown(bar: &Bar) -> (u64, Option<u64>, String) {
        let batch = bar.batch.lock().unwrap();
        let batch = batch.as_ref().unwrap();
        (batch.bar.position(), batch.bar.length(), batch.bar.message())
    }

    #[test]
    fn a_batch_counts_each_table_by_its_states_in_full_once_the_next_starts() {
        let bar = kings_then_queen();
        assert_eq!(shown(&bar), (0, Some(58_212), "batch: 0 of 2 tables".into()));
        bar.table("KvK");
        bar.phase("moves", 924);
        bar.advance(924);
        // No table done yet, so no pace to count the first one's share by.
        assert_eq!(shown(&bar), (0, Some(58_212), "batch: 1 of 2 tables".into()));
        bar.table("KQvK");
        let (position, length, message) = shown(&bar);
        // KvK done, and of KQvK what the pace gives it since.
        assert!((924..=58_212).contains(&position), "{position}");
        assert_eq!((length, message.as_str()), (Some(58_212), "batch: 2 of 2 tables"));
        bar.finish();
        assert_eq!(shown(&bar).0, 58_212);
    }

    #[test]
    fn work_on_a_table_moves_the_batch_bar_at_the_pace_so_far() {
        let bar = kings_then_queen();
        bar.table("KvK");
        bar.table("KQvK");
        let before = shown(&bar).0;
        assert!(before < 58_212, "{before}");
        // A pace so fast that KQvK counts as done at once, which the next update shows.
        {
            let batch = bar.batch.lock().unwrap();
            let pace = &batch.as_ref().unwrap().pace;
            pace.solved_states.store(u64::from(u32::MAX), Ordering::Relaxed);
            pace.solved_by_nanos.store(1, Ordering::Relaxed);
        }
        assert_eq!(shown(&bar).0, before);
        bar.phase("layers", 100);
        bar.advance(1);
        assert_eq!(shown(&bar).0, 58_212);
    }

    #[test]
    fn a_table_built_by_another_process_counts_as_done_at_once() {
        let bar = kings_then_queen();
        bar.table("KvK");
        bar.built_elsewhere("KQvK");
        // KvK counts once the next table starts.
        assert_eq!(shown(&bar), (57_288, Some(58_212), "batch: 2 of 2 tables".into()));
        bar.built_elsewhere("KRvK");
        let not_in_the_batch = shown(&bar);
        assert_eq!(not_in_the_batch, (57_288, Some(58_212), "batch: 2 of 2 tables".into()));
    }

    #[test]
    fn a_wait_for_another_process_shows_on_the_table_bar() {
        let bar = Bar::new();
        bar.table("KRvK");
        bar.phase("layers", 100);
        bar.advance(40);
        bar.waiting("KQvKR");
        assert_eq!(bar.bar.message(), "KQvKR: waiting for the process that builds it");
        assert_eq!((bar.bar.position(), bar.bar.length()), (0, Some(0)));
    }

    #[test]
    fn one_table_has_no_batch_bar() {
        let bar = Bar::new();
        bar.batch([("KQvK".to_string(), 57_288)]);
        assert!(bar.batch.lock().unwrap().is_none());
    }

    #[test]
    fn a_batch_has_its_time_left_from_the_pace_of_its_tables_so_far() {
        let minute = Duration::from_secs(60);
        let pace = Pace::default();
        pace.started(100);
        assert_eq!((pace.rate(), pace.left(1_000, minute)), (None, None));
        assert_eq!(pace.position(minute), 0);
        // The first 100 states took a minute; the next table has 600, then 300 remain.
        pace.finish_current(minute);
        pace.started(600);
        assert_eq!(pace.rate(), Some(100.0 / 60.0));
        assert_eq!(pace.left(1_000, minute), Some(9 * minute));
        assert_eq!(pace.position(minute), 100);
        // Counting down while the table under way takes its time, and counting its states done
        // at that pace; once it takes longer than the pace allows, the tables after it.
        assert_eq!(pace.left(1_000, 3 * minute), Some(7 * minute));
        assert_eq!(pace.position(3 * minute), 300);
        assert_eq!(pace.left(1_000, 8 * minute), Some(3 * minute));
        assert_eq!(pace.position(8 * minute), 700);
        // 700 states in 7 minutes: the last 300 take 3 more.
        pace.finish_current(7 * minute);
        pace.started(300);
        assert_eq!(pace.left(1_000, 7 * minute), Some(3 * minute));
        assert_eq!(pace.left(1_000, 10 * minute), Some(Duration::ZERO));
        // The last table past its time: unknown, and all its states shown done.
        assert_eq!(pace.left(1_000, 11 * minute), None);
        assert_eq!(pace.position(11 * minute), 1_000);
    }

    #[test]
    fn a_table_built_elsewhere_does_not_speed_up_the_pace() {
        let bar = Bar::new();
        bar.batch([
            ("KvK".to_string(), 924),
            ("KQvK".to_string(), 57_288),
            ("KRvK".to_string(), 57_288),
        ]);
        bar.table("KvK");
        bar.built_elsewhere("KQvK");
        bar.table("KRvK");
        let batch = bar.batch.lock().unwrap();
        let pace = &batch.as_ref().unwrap().pace;
        assert_eq!(pace.solved_states.load(Ordering::Relaxed), 924);
        assert_eq!(pace.current_states.load(Ordering::Relaxed), 57_288);
    }

    #[test]
    fn rates_read_in_a_few_characters() {
        assert_eq!(rate(950.4), "950/s");
        assert_eq!(rate(12_549.0), "12.5 k/s");
        assert_eq!(rate(9_071_153.756_531_173), "9.1 M/s");
    }
}
