//! A number with its noun, for messages people read: "1 ply", "2 plies", "1 thread".

use std::fmt;

/// `n` followed by `noun`, with an `s` unless `n` is 1.
///
/// ```
/// use egtb::counted::{counted, plies};
///
/// assert_eq!(counted(1, "table").to_string(), "1 table");
/// assert_eq!(format!("CPU solver ({})", counted(2, "thread")), "CPU solver (2 threads)");
/// assert_eq!(plies(1).to_string(), "1 ply");
/// assert_eq!(plies(0).to_string(), "0 plies");
/// ```
pub fn counted(n: usize, noun: &'static str) -> Counted {
    Counted {
        n,
        one: noun,
        many: None,
    }
}

/// A number of plies: "1 ply", "7 plies".
pub fn plies(n: u16) -> Counted {
    Counted {
        n: usize::from(n),
        one: "ply",
        many: Some("plies"),
    }
}

/// A number and its noun, shown by [`fmt::Display`] (see [`counted`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Counted {
    n: usize,
    one: &'static str,
    /// The plural when it is not `one` with an `s`.
    many: Option<&'static str>,
}

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.n, self.many) {
            (1, _) => write!(f, "1 {}", self.one),
            (n, Some(many)) => write!(f, "{n} {many}"),
            (n, None) => write!(f, "{n} {}s", self.one),
        }
    }
}
