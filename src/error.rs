//! The failures a program using the library must tell apart. The library's functions return
//! `anyhow::Result`; where one of these failures arises, the error inside is an [`Error`], so
//! that `err.downcast_ref::<egtb::Error>()` finds it (through any context added on the way), or
//! `egtb::Error::from(err)` turns any error into one, the rest into [`Error::Other`].

use std::fmt;
use std::io::ErrorKind;
use std::path::PathBuf;

use crate::counted::grouped;
use crate::material::Material;

/// A failure of the library, by kind.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Error {
    /// The table of `material` that the request needs has not been built; `command` builds it.
    MissingTable {
        /// The material of the missing table.
        material: Material,
        /// Where its file should be.
        path: PathBuf,
        /// The command line that builds it (with `needed_by`, that material's table and every
        /// table it reads).
        command: String,
        /// The material of the position asked about, when play from it reaches this table of
        /// another material (`command` then builds that material, and every table it reads).
        needed_by: Option<Material>,
    },
    /// A table file that exists but cannot be trusted: damaged (its size, a block or a checksum
    /// wrong), another table's, or written by a build whose index differs.
    CorruptTable {
        /// The file.
        path: PathBuf,
        /// The message: what is wrong with the file, and the fix.
        reason: String,
    },
    /// A position that is no legal position of the game, or one its tables do not hold (too
    /// many pieces), or text that is no position.
    IllegalPosition {
        /// Why the position was refused.
        reason: String,
    },
    /// A material that names no table of the game: text that is no material, or counts the game
    /// cannot have or egtb does not build (a side without its king, too many pieces).
    BadMaterial {
        /// Why the material was refused.
        reason: String,
    },
    /// Rule options that the game does not have, or a value its option does not take.
    BadRules {
        /// Why the options were refused.
        reason: String,
    },
    /// A command line that parses but cannot be run as given: it asks for nothing (no material
    /// named), gives an option its command or game does not take or a value no option takes, or
    /// names a game's folder as the tables folder. A usage error, as a mistyped one is (exit
    /// status 2); only the command line makes one.
    Usage {
        /// What is wrong, and the fix.
        reason: String,
    },
    /// No GPU adapter could be opened.
    NoGpu {
        /// Why no adapter could be opened.
        reason: String,
    },
    /// Any other failure, as its message.
    Other(String),
}

impl Error {
    /// A usage error: what is wrong with the command line, and the fix.
    pub fn usage(reason: impl Into<String>) -> anyhow::Error {
        Error::Usage { reason: reason.into() }.into()
    }

    /// Marks a failure to read the command line's own words (its rule options, say) as a usage
    /// error, with its message.
    pub fn as_usage(err: anyhow::Error) -> anyhow::Error {
        Error::usage(format!("{err:#}"))
    }

    /// A missing table's error naming `command` as the one that builds it (a whole batch's, where
    /// one run should build every table missing); any other error as it is.
    pub fn built_by(err: anyhow::Error, command: String) -> anyhow::Error {
        match err.downcast::<Error>() {
            Ok(Error::MissingTable {
                material,
                path,
                needed_by,
                ..
            }) => Error::MissingTable {
                material,
                path,
                command,
                needed_by,
            }
            .into(),
            Ok(other) => other.into(),
            Err(err) => err,
        }
    }

    /// Marks the failure to read a position (bad text or an illegal position).
    pub fn illegal_position(err: anyhow::Error) -> anyhow::Error {
        Error::IllegalPosition {
            reason: format!("{err:#}"),
        }
        .into()
    }

    /// Marks the failure to read a material, or a material without tables.
    pub fn bad_material(err: anyhow::Error) -> anyhow::Error {
        Error::BadMaterial {
            reason: format!("{err:#}"),
        }
        .into()
    }

    /// Marks rule options that the game does not take.
    pub fn bad_rules(err: anyhow::Error) -> anyhow::Error {
        Error::BadRules {
            reason: format!("{err:#}"),
        }
        .into()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::MissingTable {
                material,
                path,
                command,
                needed_by: Some(root),
            } => write!(
                f,
                "table {material}, which play from {root} reaches, not found at {}; build it and every \
                 other table {root} reads with: {command}",
                path.display()
            ),
            Error::MissingTable {
                material,
                path,
                command,
                needed_by: None,
            } => write!(
                f,
                "table {material} not found at {}; build it with: {command}",
                path.display()
            ),
            Error::CorruptTable { reason, .. }
            | Error::IllegalPosition { reason }
            | Error::BadMaterial { reason }
            | Error::BadRules { reason }
            | Error::Usage { reason }
            | Error::NoGpu { reason }
            | Error::Other(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for Error {}

impl From<anyhow::Error> for Error {
    /// The typed failure inside `err`, or [`Error::Other`] with its message.
    fn from(err: anyhow::Error) -> Error {
        match err.downcast::<Error>() {
            Ok(typed) => typed,
            Err(err) => Error::Other(format!("{err:#}")),
        }
    }
}

/// `message` as one line, the way errors are shown: control characters (a newline or a terminal
/// escape inside a position or a material given on the command line, say) written as escapes,
/// and the middle of a line longer than [`LONGEST_LINE`] characters left out (an input of a
/// million characters echoed in its error), keeping its start and the fix at its end.
pub fn one_line(message: &str) -> String {
    let mut line = String::with_capacity(message.len());
    for c in message.chars() {
        match c.is_control() {
            true => line.extend(c.escape_debug()),
            false => line.push(c),
        }
    }
    let chars = line.chars().count();
    if chars <= LONGEST_LINE {
        return line;
    }
    let (head, tail) = (LONGEST_LINE * 2 / 3, LONGEST_LINE / 3);
    let start: String = line.chars().take(head).collect();
    let end: String = line.chars().skip(chars - tail).collect();
    format!(
        "{start} ... ({} characters left out) ... {end}",
        grouped((chars - head - tail) as u64)
    )
}

/// The most characters of an error line shown whole.
pub const LONGEST_LINE: usize = 1_500;

/// An error with its causes (`{:#}`), as [`one_line`], followed by the fix where the cause
/// names none: a full disk says so, and how to go on.
pub fn error_line(err: &anyhow::Error) -> String {
    let disk_full = err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| matches!(io.kind(), ErrorKind::StorageFull | ErrorKind::QuotaExceeded))
    });
    let hint = match disk_full {
        true => "; free space on that disk, or pass --tables a folder on a larger one",
        false => "",
    };
    one_line(&format!("{err:#}{hint}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_escapes_control_characters_only() {
        assert_eq!(
            one_line("material 'KQ\nvK'\t\u{1b}[31m é"),
            "material 'KQ\\nvK'\\t\\u{1b}[31m é"
        );
    }

    #[test]
    fn a_long_line_keeps_its_start_and_end() {
        let message = format!("position '{}': rank 1 has 9 squares; the fix", "8/".repeat(5_000));
        let line = one_line(&message);
        assert!(line.chars().count() < LONGEST_LINE + 100, "{line}");
        assert!(
            line.starts_with("position '8/8/") && line.ends_with("has 9 squares; the fix"),
            "{line}"
        );
        assert!(line.contains(" ... (8,542 characters left out) ... "), "{line}");
        assert_eq!(one_line("short"), "short");
    }

    #[test]
    fn a_full_disk_names_the_fix() {
        let full = anyhow::Error::from(std::io::Error::from(ErrorKind::StorageFull))
            .context("cannot write table tables/chess/KQvKR.egtb");
        let line = error_line(&full);
        assert!(
            line.starts_with("cannot write table tables/chess/KQvKR.egtb: "),
            "{line}"
        );
        assert!(
            line.ends_with("; free space on that disk, or pass --tables a folder on a larger one"),
            "{line}"
        );
        let denied = anyhow::Error::from(std::io::Error::from(ErrorKind::PermissionDenied));
        assert!(!error_line(&denied).contains("free space"));
    }
}
