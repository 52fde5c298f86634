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

/// The temporary files this process has now, for [`remove_temporary_files`]: each name is
/// forgotten once its file is renamed or removed, so that an interrupted run never removes a
/// file of that name that is no longer its own.
static TEMPORARY: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

/// The names, whether or not a thread panicked holding them.
fn registry() -> std::sync::MutexGuard<'static, Vec<PathBuf>> {
    TEMPORARY.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// `path`, recorded as a temporary file of this process.
fn temporary(path: PathBuf) -> PathBuf {
    registry().push(path.clone());
    path
}

/// Forgets a temporary file that has been renamed or removed.
fn forget(path: &Path) {
    registry().retain(|p| p != path);
}

/// Writes a file by way of the temporary file `tmp` (from [`temp_path`]): `fill` writes it, it
/// is synced and renamed to `path`, so that only a whole file ever carries that name; on an
/// error the temporary file is removed.
pub(crate) fn write_then_rename<T>(tmp: PathBuf, path: &Path, fill: impl FnOnce(&mut File) -> Result<T>) -> Result<T> {
    let result = (|| -> Result<T> {
        let mut file = File::create(&tmp)?;
        let filled = fill(&mut file)?;
        file.sync_all()?;
        fs::rename(&tmp, path)?;
        Ok(filled)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    forget(&tmp);
    result
}

/// Removes the temporary files this process still has (those of tables being written, which
/// are otherwise removed when they are done or renamed into place): what an interrupted run
/// must not leave behind. Returns how many it removed.
pub fn remove_temporary_files() -> usize {
    registry().iter().filter(|path| fs::remove_file(path).is_ok()).count()
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
        forget(&self.path);
    }
}
