//! Rulings: the positions that rules on repetitions (xiangqi's Asian rules) decide lost although
//! the plain solve leaves them drawn, why ([`Reason`]), and the file beside a table that records
//! them: for every ruled position its state, the round ("order") of the ruling and the reason.
//! The table's entries hold such a position as lost at DTM 0, like a mate; this file says why. It
//! is written atomically before its table, so a table never looks whole without it, and the
//! table's header seals it (its count and checksum, [`Seal`]), so that a rulings file lost or
//! damaged later makes the table fail its verification rather than lose its rulings.
//!
//! Layout: text lines `EGTB rulings`, `material=<name>`, `count=<n>`, `checksum=<crc32 of the
//! lines that follow>`, then one line `<state> <order> <reason code>` per ruling, states
//! ascending.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::table::{self, EXTENSION, Header, Seal, damaged, damaged_by};

/// Why a position was ruled lost for the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Reason {
    /// It can only go on checking perpetually.
    PerpetualCheck,
    /// It can only go on chasing one piece perpetually.
    PerpetualChase,
}

impl Reason {
    /// The reason in words ("perpetual check").
    pub fn name(self) -> &'static str {
        match self {
            Reason::PerpetualCheck => "perpetual check",
            Reason::PerpetualChase => "perpetual chase",
        }
    }

    /// The reason as a JSON key ("perpetual_check").
    pub fn key(self) -> &'static str {
        match self {
            Reason::PerpetualCheck => "perpetual_check",
            Reason::PerpetualChase => "perpetual_chase",
        }
    }

    /// The reason's code in files.
    pub fn code(self) -> u8 {
        match self {
            Reason::PerpetualCheck => 1,
            Reason::PerpetualChase => 2,
        }
    }

    /// The reason of a code, `None` for an unknown one.
    pub fn from_code(code: u8) -> Option<Reason> {
        match code {
            1 => Some(Reason::PerpetualCheck),
            2 => Some(Reason::PerpetualChase),
            _ => None,
        }
    }
}

/// A position lost for the side to move by a ruling: its state, the round that ruled it
/// (the first is 1) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ruling {
    /// The ruled state.
    pub state: u64,
    /// The round that ruled it (the first is 1).
    pub order: u16,
    /// Why it was ruled lost.
    pub reason: Reason,
}

const MAGIC: &str = "EGTB rulings";

/// The rulings file of a table file.
pub fn rulings_path(table: &Path) -> PathBuf {
    table.with_extension("rulings")
}

/// The rulings recorded beside the table file `table` with `header` (xiangqi under the Asian
/// rules), checked against the header's seal. A table whose header has no seal (one written
/// before tables sealed their rulings) takes the rulings file beside it when there is one.
pub fn of(table: &Path, header: &Header) -> Result<Vec<Ruling>> {
    sealed(table, header).map_err(damaged_by(table))
}

/// Fails unless the rulings file that `header` seals is beside the table file `table`: what
/// opening a table for probing checks (the file itself is read when an answer needs it).
pub fn check_present(table: &Path, header: &Header) -> Result<()> {
    let path = rulings_path(table);
    match header.rulings {
        Some(Seal { count, .. }) if count > 0 && !path.exists() => Err(damaged(
            table,
            format_args!("its rulings file {} is missing", path.display()),
        )),
        _ => Ok(()),
    }
}

fn sealed(table: &Path, header: &Header) -> Result<Vec<Ruling>> {
    let path = rulings_path(table);
    let rulings = match header.rulings {
        Some(Seal { count: 0, .. }) => return Ok(Vec::new()),
        Some(_) if !path.exists() => bail!("its rulings file {} is missing", path.display()),
        None if !path.exists() => return Ok(Vec::new()),
        _ => read(&path, &header.material)?,
    };
    if let Some(seal) = header.rulings
        && seal != self::seal(&rulings)
    {
        bail!(
            "its rulings file {} belongs to another build of the table",
            path.display()
        );
    }
    Ok(rulings)
}

/// The seal of a table's rulings: their count and the checksum of their lines.
pub fn seal(rulings: &[Ruling]) -> Seal {
    Seal {
        count: rulings.len() as u64,
        checksum: crc32fast::hash(body(rulings).as_bytes()),
    }
}

/// One line a ruling.
fn body(rulings: &[Ruling]) -> String {
    rulings
        .iter()
        .map(|r| format!("{} {} {}\n", r.state, r.order, r.reason.code()))
        .collect()
}

/// Writes the rulings of a table atomically; with no ruling, removes a rulings file left from
/// an earlier build instead.
pub fn write(path: &Path, material: &str, rulings: &[Ruling]) -> Result<()> {
    if rulings.is_empty() {
        return match fs::remove_file(path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                Err(e).with_context(|| format!("cannot remove {}", path.display()))
            }
            _ => Ok(()),
        };
    }
    let body = body(rulings);
    let text = format!(
        "{MAGIC}\nmaterial={material}\ncount={}\nchecksum={:08x}\n{body}",
        rulings.len(),
        crc32fast::hash(body.as_bytes())
    );
    // Named like the table's own temporary files, so that one a killed run leaves is removed as
    // stale with them when the table is next built.
    let tmp = table::temp_path(&path.with_extension(EXTENSION), "rulings")?;
    let written = table::write_then_rename(tmp, path, |file| Ok(file.write_all(text.as_bytes())?));
    written.with_context(|| format!("cannot write rulings {}", path.display()))
}

/// Reads and verifies the rulings of a table of `material`.
fn read(path: &Path, material: &str) -> Result<Vec<Ruling>> {
    let text = fs::read_to_string(path).with_context(|| format!("cannot read its rulings file {}", path.display()))?;
    parse(&text, material).with_context(|| format!("its rulings file {} is corrupt", path.display()))
}

fn parse(text: &str, material: &str) -> Result<Vec<Ruling>> {
    let mut header = text.splitn(5, '\n');
    if header.next() != Some(MAGIC) {
        bail!("bad magic");
    }
    let mut next = |key: &str| -> Result<String> {
        let line = header.next().context("truncated header")?;
        match line.split_once('=') {
            Some((k, v)) if k == key => Ok(v.to_string()),
            _ => bail!("header lacks '{key}'"),
        }
    };
    if next("material")? != material {
        bail!("rulings of another material");
    }
    let count: usize = next("count")?.parse().context("bad count")?;
    let checksum = u32::from_str_radix(&next("checksum")?, 16).context("bad checksum")?;
    let body = header.next().unwrap_or("");
    if crc32fast::hash(body.as_bytes()) != checksum {
        bail!("checksum mismatch");
    }
    let rulings = body
        .lines()
        .map(|line| {
            let mut words = line.split(' ');
            let mut word = || words.next().context("short line");
            let state = word()?.parse().context("bad state")?;
            let order = word()?.parse().context("bad order")?;
            let reason = Reason::from_code(word()?.parse().context("bad reason")?).context("bad reason")?;
            Ok(Ruling { state, order, reason })
        })
        .collect::<Result<Vec<_>>>()?;
    if rulings.len() != count {
        bail!("{} rulings, the header says {count}", rulings.len());
    }
    Ok(rulings)
}

/// The ruling of a state in rulings ordered by state.
pub fn find(rulings: &[Ruling], state: u64) -> Option<Ruling> {
    rulings
        .binary_search_by_key(&state, |r| r.state)
        .ok()
        .map(|i| rulings[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_corruption() {
        let rulings = [
            Ruling {
                state: 3,
                order: 1,
                reason: Reason::PerpetualCheck,
            },
            Ruling {
                state: 90,
                order: 2,
                reason: Reason::PerpetualChase,
            },
        ];
        let dir = std::env::temp_dir().join(format!("egtb-rulings-test-{}", std::process::id()));
        let path = dir.join("KRvKN.rules-asian.rulings");
        write(&path, "KRvKN", &rulings).unwrap();
        assert_eq!(read(&path, "KRvKN").unwrap(), rulings);
        assert_eq!(find(&rulings, 90).map(|r| r.order), Some(2));
        assert_eq!(find(&rulings, 4), None);
        assert!(read(&path, "KRvKC").is_err());
        let text = fs::read_to_string(&path).unwrap().replace("90 2", "91 2");
        fs::write(&path, text).unwrap();
        assert!(read(&path, "KRvKN").is_err());
        fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn a_killed_writers_temporary_file_goes_with_its_tables_stale_ones() {
        let dir = std::env::temp_dir().join(format!("egtb-rulings-stale-{}", std::process::id()));
        let table = dir.join("KRvKN.rules-asian.egtb");
        let tmp = table::temp_path(&table, "rulings").unwrap();
        fs::create_dir_all(&dir).unwrap();
        fs::write(&tmp, "partial").unwrap();
        let lock = crate::table::lock::TableLock::acquire(&table).unwrap();
        lock.remove_stale_temps().unwrap();
        assert!(!tmp.exists(), "{} left", tmp.display());
        drop(lock);
        fs::remove_dir_all(dir).unwrap();
    }
}
