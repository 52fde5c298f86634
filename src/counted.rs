//! A number with its noun, for messages people read: "1 ply", "2 plies", "1 thread".

use std::fmt;

/// `n` followed by `one` when it is 1, else by `many`.
///
/// ```
/// use egtb::counted::counted;
///
/// assert_eq!(counted(1, "ply", "plies").to_string(), "1 ply");
/// assert_eq!(counted(0, "ply", "plies").to_string(), "0 plies");
/// assert_eq!(format!("CPU solver ({})", counted(2, "thread", "threads")), "CPU solver (2 threads)");
/// ```
pub fn counted(n: u64, one: &'static str, many: &'static str) -> Counted {
    Counted { n, one, many }
}

/// A number of plies: "1 ply", "7 plies".
pub fn plies(n: u16) -> Counted {
    counted(u64::from(n), "ply", "plies")
}

/// A number and its noun, shown by [`fmt::Display`] (see [`counted`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    n: u64,
    one: &'static str,
    many: &'static str,
}

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let noun = if self.n == 1 { self.one } else { self.many };
        write!(f, "{} {noun}", self.n)
    }
}
