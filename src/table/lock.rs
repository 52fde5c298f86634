//! One advisory lock per table, so that processes sharing a tables folder never build or convert
//! the same table at once: an exclusive `flock`-style lock on the file `<table>.lock`, released
//! when the holder ends, however it ends.
//!
//! The holder deletes the lock file before letting go. A process that was waiting on the deleted
//! file then finds that the file it locked is no longer the one at that path and starts again, so
//! only the holder of the file at the path holds the lock. A run that is killed or interrupted
//! leaves its lock file, empty and unlocked: the next run takes it as its own.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

/// The held lock of one table; dropping it releases the lock.
pub struct TableLock {
    _file: File,
    table: PathBuf,
    path: PathBuf,
}

impl TableLock {
    /// Takes the lock of the table at `table`, waiting while another process holds it.
    pub fn acquire(table: &Path) -> Result<TableLock> {
        let claim = Self::claim(table, true)?;
        Ok(claim.expect("a waiting claim always gets the lock"))
    }

    /// Takes the lock of the table at `table` if no other process holds it; `None` when one does.
    pub fn try_acquire(table: &Path) -> Result<Option<TableLock>> {
        Self::claim(table, false)
    }

    /// Whether a process holds the lock of the table at `table` now, true only for that moment:
    /// a look that creates no file but takes a free lock for an instant, so that a builder
    /// claiming the table just then finds it busy and waits that instant for it.
    pub fn is_held(table: &Path) -> bool {
        let Ok(file) = File::open(lock_path(table)) else {
            return false;
        };
        matches!(file.try_lock(), Err(TryLockError::WouldBlock))
    }

    /// Takes the lock, waiting for it when `wait`, or giving up at once when another process
    /// holds it.
    fn claim(table: &Path, wait: bool) -> Result<Option<TableLock>> {
        let dir = table.parent().context("table path has no folder")?;
        fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        let path = lock_path(table);
        loop {
            let file = OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
                .with_context(|| format!("cannot open lock file {}", path.display()))?;
            match file.try_lock() {
                Ok(()) => {}
                Err(TryLockError::WouldBlock) if !wait => return Ok(None),
                Err(TryLockError::WouldBlock) => {
                    file.lock().with_context(|| format!("cannot lock {}", path.display()))?;
                }
                Err(TryLockError::Error(e)) => {
                    return Err(e).with_context(|| format!("cannot lock {}", path.display()));
                }
            }
            if still_at(&file, &path) {
                let lock = TableLock {
                    _file: file,
                    table: table.to_path_buf(),
                    path,
                };
                return Ok(Some(lock));
            }
        }
    }

    /// Deletes the temporary files an interrupted writer of this table left behind: with the
    /// lock held, no other process is writing one.
    pub fn remove_stale_temps(&self) -> Result<()> {
        let (Some(dir), Some(name)) = (self.table.parent(), self.table.file_name()) else {
            return Ok(());
        };
        let prefix = format!("{}.tmp", name.to_string_lossy());
        let Ok(listing) = fs::read_dir(dir) else { return Ok(()) };
        for entry in listing.filter_map(|e| e.ok()) {
            // Only files: a writer leaves nothing else, and a folder of that name is not ours.
            let file = entry.file_type().is_ok_and(|t| t.is_file());
            if file && entry.file_name().to_string_lossy().starts_with(&prefix) {
                fs::remove_file(entry.path())
                    .with_context(|| format!("cannot remove stale {}", entry.path().display()))?;
            }
        }
        Ok(())
    }
}

impl Drop for TableLock {
    fn drop(&mut self) {
        // Still holding the lock: nobody else holds this file's.
        let _ = fs::remove_file(&self.path);
    }
}

/// Whether the locked file is the one at `path` (and not one its holder deleted meanwhile).
fn still_at(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(locked), Ok(current)) => locked.dev() == current.dev() && locked.ino() == current.ino(),
        _ => false,
    }
}

/// The lock file of a table.
fn lock_path(table: &Path) -> PathBuf {
    let mut name = table.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Linux only: it watches the waiting thread's state under `/proc`.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_second_holder_waits_for_the_first_and_stale_temps_go() {
        use std::sync::Arc;
        use std::sync::atomic::{AtomicBool, Ordering};

        let dir = std::env::temp_dir().join(format!("egtb-lock-test-{}", std::process::id()));
        let table = dir.join("chess").join("KQvK.egtb");
        let first = TableLock::acquire(&table).unwrap();
        assert!(
            TableLock::try_acquire(&table).unwrap().is_none(),
            "held: no second claim"
        );
        assert!(TableLock::is_held(&table));
        fs::write(dir.join("chess").join("KQvK.egtb.tmp999"), b"partial").unwrap();
        fs::write(dir.join("chess").join("KQvKR.egtb.tmp999"), b"another table's").unwrap();
        let released = Arc::new(AtomicBool::new(false));
        let (tid_sender, tid) = std::sync::mpsc::channel();
        let waiter = std::thread::spawn({
            let (table, released) = (table.clone(), Arc::clone(&released));
            move || {
                // "PID/task/TID": the thread's own entry under /proc.
                tid_sender.send(fs::read_link("/proc/thread-self").unwrap()).unwrap();
                let _lock = TableLock::acquire(&table).unwrap();
                released.load(Ordering::SeqCst)
            }
        });
        // The waiter asleep: blocked on the lock, the only place it sleeps.
        let stat = Path::new("/proc").join(tid.recv().unwrap()).join("stat");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        while !sleeping(&stat) {
            let waits = !waiter.is_finished() && std::time::Instant::now() < deadline;
            assert!(waits, "the second holder never waits");
            std::thread::yield_now();
        }
        first.remove_stale_temps().unwrap();
        released.store(true, Ordering::SeqCst);
        drop(first);
        assert!(
            waiter.join().unwrap(),
            "the second holder got the lock only after the first let go"
        );
        assert!(!TableLock::is_held(&table), "let go, and its lock file gone");
        assert!(
            TableLock::try_acquire(&table).unwrap().is_some(),
            "free again: claimed at once"
        );
        assert!(!dir.join("chess").join("KQvK.egtb.tmp999").exists());
        assert!(!lock_path(&table).exists(), "the last holder deletes the lock file");
        assert!(dir.join("chess").join("KQvKR.egtb.tmp999").exists());
        fs::remove_dir_all(dir).unwrap();
    }

    /// Whether the thread whose `/proc` stat file is `stat` is asleep (state `S`, the field
    /// after its name in parentheses); false once it has ended.
    #[cfg(target_os = "linux")]
    fn sleeping(stat: &Path) -> bool {
        let Ok(text) = fs::read_to_string(stat) else {
            return false;
        };
        let after_name = &text[text.rfind(')').unwrap() + 1..];
        after_name.split_whitespace().next() == Some("S")
    }

    #[test]
    fn holders_exclude_each_other_while_lock_files_come_and_go() {
        use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

        let dir = std::env::temp_dir().join(format!("egtb-lock-race-{}", std::process::id()));
        let table = dir.join("chess").join("KQvK.egtb");
        let (inside, turns) = (AtomicBool::new(false), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for _ in 0..4 {
                scope.spawn(|| {
                    for _ in 0..50 {
                        let _lock = TableLock::acquire(&table).unwrap();
                        assert!(!inside.swap(true, Ordering::SeqCst), "two holders at once");
                        std::thread::yield_now();
                        turns.fetch_add(1, Ordering::SeqCst);
                        inside.store(false, Ordering::SeqCst);
                    }
                });
            }
        });
        assert_eq!(turns.load(Ordering::SeqCst), 200);
        fs::remove_dir_all(dir).unwrap();
    }
}
