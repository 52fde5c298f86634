//! Numbers for people: digits grouped by thousands ("3,551,856 states"), a count with its noun
//! ("1 ply", "2 plies", "1 thread"), sizes in the unit that suits them ("20.4 KiB"), and the
//! names an error expects ("gpu, cpu or auto").

use std::fmt;

/// `n` (its digits grouped, see [`grouped`]) followed by `noun`, with an `s` unless `n` is 1.
///
/// ```
/// use egtb::counted::{counted, plies};
///
/// let tables = ["KQvK"];
/// assert_eq!(counted(tables.len(), "table").to_string(), "1 table");
/// let threads: usize = 2;
/// assert_eq!(format!("CPU solver ({})", counted(threads, "thread")), "CPU solver (2 threads)");
/// let positions: u64 = 1204;
/// assert_eq!(counted(positions, "position").to_string(), "1,204 positions");
/// assert_eq!(plies(1).to_string(), "1 ply");
/// assert_eq!(plies(0).to_string(), "0 plies");
/// ```
pub fn counted(n: impl Count, noun: &'static str) -> Counted {
    Counted {
        n: n.get(),
        one: noun,
        many: None,
    }
}

/// A number of things: any of the unsigned integer types that counts come in.
pub trait Count: Copy {
    /// The number.
    fn get(self) -> u64;
}

impl Count for usize {
    fn get(self) -> u64 {
        // Lossless: no supported target has a usize wider than 64 bits.
        self as u64
    }
}

impl Count for u64 {
    fn get(self) -> u64 {
        self
    }
}

impl Count for u16 {
    fn get(self) -> u64 {
        u64::from(self)
    }
}

/// A number of plies: "1 ply", "7 plies".
pub fn plies(n: u16) -> Counted {
    Counted {
        n: u64::from(n),
        one: "ply",
        many: Some("plies"),
    }
}

/// `n` with its digits grouped by thousands, for tables and summaries that people read (the
/// `--json` forms print plain numbers). Widths and alignment apply to the whole.
///
/// ```
/// use egtb::counted::grouped;
///
/// assert_eq!(grouped(999).to_string(), "999");
/// assert_eq!(grouped(3_551_856).to_string(), "3,551,856");
/// assert_eq!(format!("[{:>8}]", grouped(57_288)), "[  57,288]");
/// ```
pub fn grouped(n: u64) -> Grouped {
    Grouped(n)
}

/// `count` things in `seconds` as a whole number a second, its digits grouped (a time of 0
/// counts as a nanosecond, so that the rate stays finite).
///
/// ```
/// use egtb::counted::per_second;
///
/// assert_eq!(per_second(3_551_856, 0.58).to_string(), "6,123,890");
/// ```
pub fn per_second(count: u64, seconds: f64) -> Grouped {
    grouped((count as f64 / seconds.max(1e-9)).round() as u64)
}

/// `names` as a list to choose from, for errors that say what they expected.
///
/// ```
/// use egtb::counted::one_of;
///
/// assert_eq!(one_of(&["chess", "xiangqi", "darkchess"]), "chess, xiangqi or darkchess");
/// assert_eq!(one_of(&["draw", "asian"]), "draw or asian");
/// ```
pub fn one_of(names: &[&str]) -> String {
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// A number shown with its digits grouped by thousands (see [`grouped`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grouped(u64);

impl fmt::Display for Grouped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        let mut text = String::with_capacity(digits.len() + digits.len() / 3);
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                text.push(',');
            }
            text.push(digit);
        }
        f.pad(&text)
    }
}

/// A size of `n` bytes in bytes, KiB, MiB or GiB, whichever keeps it below 1024, with one
/// decimal. Widths and alignment apply to the whole.
///
/// ```
/// use egtb::counted::bytes;
///
/// assert_eq!(bytes(924).to_string(), "924 B");
/// assert_eq!(bytes(20_890).to_string(), "20.4 KiB");
/// assert_eq!(bytes(1_363_148).to_string(), "1.3 MiB");
/// assert_eq!(format!("[{:>9}]", bytes(7_666_499_584)), "[  7.1 GiB]");
/// assert_eq!(bytes((1 << 20) - 1).to_string(), "1.0 MiB");
/// ```
pub fn bytes(n: u64) -> Bytes {
    Bytes(n)
}

/// A size shown in the unit that suits it (see [`bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 < 1024 {
            return f.pad(&format!("{} B", self.0));
        }
        let (mut size, mut unit) = (self.0 as f64 / 1024.0, "KiB");
        for larger in ["MiB", "GiB", "TiB"] {
            // A size that one decimal would round up to 1024 takes the next unit.
            if size < 1023.95 {
                break;
            }
            (size, unit) = (size / 1024.0, larger);
        }
        f.pad(&format!("{size:.1} {unit}"))
    }
}

/// A number and its noun, shown by [`fmt::Display`] (see [`counted`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    n: u64,
    one: &'static str,
    /// The plural when it is not `one` with an `s`.
    many: Option<&'static str>,
}

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.n, self.many) {
            (1, _) => write!(f, "1 {}", self.one),
            (n, Some(many)) => write!(f, "{} {many}", grouped(n)),
            (n, None) => write!(f, "{} {}s", grouped(n), self.one),
        }
    }
}
