//! Rewriting a table in the other encoding (`egtb compress`, `egtb decompress`).

use std::fs;
use std::path::Path;

use anyhow::{Context, Result};

use super::lock::TableLock;
use super::{Encoding, Header, Table, write_from};
use crate::solver::Progress;

/// What converting one table did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Converted {
    /// The encoding it had.
    pub from: Encoding,
    /// The encoding it has.
    pub to: Encoding,
    /// The file's size before, in bytes.
    pub before: u64,
    /// The file's size after, in bytes.
    pub after: u64,
}

/// Rewrites a table in another encoding, in place and atomically, holding the table's lock (a
/// table already in that encoding is left as it is, see [`Encoding::fulfils`]). The entries are
/// verified first, then read a run at a time, so that the memory a conversion takes does not
/// grow with the table.
pub fn convert(path: &Path, encoding: Encoding, progress: &dyn Progress) -> Result<Converted> {
    let lock = TableLock::acquire(path)?;
    lock.remove_stale_temps()?;
    let table = Table::open_unchecked(path)?;
    let (from, before) = (table.header.encoding, table.file_bytes());
    if from.fulfils(encoding) {
        table.verify()?;
        return Ok(Converted {
            from,
            to: from,
            before,
            after: before,
        });
    }
    let header = Header {
        encoding,
        index_checksum: 0,
        ..table.header.clone()
    };
    progress.table(&header.material);
    // A damaged table is refused before anything is written (a pass that keeps a block a
    // thread); the blocks are checked again as the conversion reads them.
    table.verify()?;
    write_from(path, header, &table, progress)?;
    drop(table);
    let after = fs::metadata(path)
        .with_context(|| format!("cannot read {}", path.display()))?
        .len();
    Ok(Converted {
        from,
        to: encoding,
        before,
        after,
    })
}
