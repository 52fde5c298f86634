//! The temporary files of tables being written: named beside their table so that a crashed
//! run's are found and removed as stale, and recorded so that an interrupted run removes its own.

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result};

use super::EXTENSION;

/// A temporary file of this process beside table `path` (`kind` is empty for the file the
/// table is written to before it is renamed into place), its folder created if need be. Each
/// is named like the table followed by `.tmp`, so a crashed run's are removed as stale.
pub(crate) fn temp_path(path: &Path, kind: &str) -> Result<PathBuf> {
    let dir = path.parent().context("table path has no folder")?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    Ok(temporary(path.with_extension(format!(
        "{EXTENSION}.tmp{kind}{}",
        std::process::id()
    ))))
}

/// Every temporary file name this process has used, for [`remove_temporary_files`]. Each holds
/// the process id, so that no other process's file is ever among them.
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// `path`, recorded as a temporary file of this process.
fn temporary(path: PathBuf) -> PathBuf {
    let mut names = TEMPORARY.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    names.push(path.clone());
    path
}

/// Removes the temporary files this process still has (those of tables being written, which
/// are otherwise removed when they are done or renamed into place): what an interrupted run
/// must not leave behind. Returns how many it removed.
pub fn remove_temporary_files() -> usize {
    let names = TEMPORARY.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    names.iter().filter(|path| fs::remove_file(path).is_ok()).count()
}

/// A temporary file of this process beside a table (see [`temp_path`]), open to read and write,
/// removed when dropped: the working files of a table being written.
pub(super) struct TempFile {
    pub(super) path: PathBuf,
    pub(super) file: File,
}

impl TempFile {
    /// Creates the temporary file of kind `kind` beside table `table`.
    pub(super) fn beside(table: &Path, kind: &str) -> Result<TempFile> {
        let path = temp_path(table, kind)?;
        let file = fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok(TempFile { path, file })
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}
