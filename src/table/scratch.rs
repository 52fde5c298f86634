//! Entries of a table solved a slice at a time that wait raw on disk: all of a raw table's until
//! it is written, a compressed one's blocks until they are complete (see `sliced.rs`). A sparse
//! temporary file beside the table (named like the table's other temporary files, so a crashed
//! run's scratch is removed as stale by the next one), read back through each thread's small
//! cache of blocks.

use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;

use anyhow::{Context, Result};

use super::blocks::Blocks;
use super::cache::{next_table_id, thread_entry};
use super::{EntrySource, TempFile};
use crate::solver::slices::SolvedStore;
use crate::value::Entry;

/// Entries a thread reads from the file at once.
const READ_ENTRIES: u32 = 1 << 16;

/// Raw entries in a temporary file, removed when dropped.
pub struct Scratch {
    temp: TempFile,
    /// The states, in the blocks threads read.
    blocks: Blocks,
    /// Names the entries as they are now in the threads' caches: a store changes it, so that
    /// no thread reads a block cached before the store.
    id: u64,
}

impl Scratch {
    /// A scratch file of `states` entries beside table `table` (`<table>.tmp-slices<pid>`).
    pub fn beside(table: &Path, states: u64) -> Result<Scratch> {
        let temp = TempFile::beside(table, "-slices")?;
        temp.file
            .set_len(2 * states)
            .with_context(|| format!("cannot size {}", temp.path.display()))?;
        Ok(Scratch {
            temp,
            blocks: Blocks::new(states, READ_ENTRIES),
            id: next_table_id(),
        })
    }

    /// Gives back the disk space of states `states`, which are no longer read (a block
    /// compressed after waiting here), by punching a hole: they read as 0 afterwards. Where the
    /// file system cannot punch holes, they stay as stored until the file is removed.
    pub fn release(&self, states: Range<u64>) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            let (Ok(offset), Ok(len)) = (
                i64::try_from(2 * states.start),
                i64::try_from(2 * (states.end - states.start)),
            ) else {
                return;
            };
            // SAFETY: fallocate changes only the allocation of this open file within the range.
            unsafe {
                libc::fallocate(
                    self.temp.file.as_raw_fd(),
                    libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                    offset,
                    len,
                )
            };
        }
        #[cfg(not(target_os = "linux"))]
        let _ = states;
    }

    /// Reads the entries of states `first..first + out.len()`.
    pub fn read(&self, first: u64, out: &mut [Entry]) -> Result<()> {
        self.temp
            .file
            .read_exact_at(bytemuck::cast_slice_mut(out), 2 * first)
            .with_context(|| format!("cannot read {}", self.temp.path.display()))
    }
}

impl SolvedStore for Scratch {
    fn store(&mut self, first: u64, entries: &[Entry]) -> Result<()> {
        self.temp
            .file
            .write_all_at(bytemuck::cast_slice(entries), 2 * first)
            .with_context(|| format!("cannot write {}", self.temp.path.display()))?;
        self.id = next_table_id();
        Ok(())
    }

    fn entry(&self, state: u64) -> Entry {
        let (block, at) = self.blocks.locate(state);
        let first = self.blocks.states_of(block).start;
        thread_entry(self.id, block, at, self.blocks.len_of(block), |out| {
            if let Err(e) = self.read(first, out) {
                panic!("the scratch file of a table being solved can no longer be read: {e:#}");
            }
        })
    }
}

impl EntrySource for Scratch {
    fn entry_count(&self) -> u64 {
        self.blocks.states
    }

    fn run<'a>(&'a self, range: Range<u64>, buffer: &'a mut Vec<Entry>) -> Result<&'a [Entry]> {
        buffer.resize((range.end - range.start) as usize, 0);
        self.read(range.start, buffer)?;
        Ok(buffer)
    }
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    #[test]
    fn entries_stored_are_read_back_and_the_file_is_removed() {
        let dir = std::env::temp_dir().join(format!("egtb-scratch-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let table = dir.join("t.egtb");
        let path = super::super::temp_path(&table, "-slices").unwrap();
        let states = 3 * u64::from(READ_ENTRIES) + 5;
        let mut scratch = Scratch::beside(&table, states).unwrap();
        let entries: Vec<Entry> = (0..states).map(|s| (s * 7 % 65_521) as Entry).collect();
        let (low, high) = entries.split_at(READ_ENTRIES as usize + 3);
        scratch.store(low.len() as u64, high).unwrap();
        // A block read before the rest is stored is not served from the cache afterwards.
        assert_eq!(scratch.entry(0), 0);
        scratch.store(0, low).unwrap();
        for state in (0..states).step_by(997).chain([states - 1]) {
            assert_eq!(scratch.entry(state), entries[state as usize], "{state}");
        }
        let mut back = vec![0; 10];
        scratch.read(states - 10, &mut back).unwrap();
        assert_eq!(back, entries[entries.len() - 10..]);
        drop(scratch);
        assert!(!path.exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_released_block_gives_its_space_back_and_leaves_the_others_as_stored() {
        use std::os::unix::fs::MetadataExt;

        let dir = std::env::temp_dir().join(format!("egtb-scratch-release-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let block = u64::from(READ_ENTRIES);
        let states = 4 * block;
        let mut scratch = Scratch::beside(&dir.join("t.egtb"), states).unwrap();
        let entries: Vec<Entry> = (0..states).map(|s| (s % 65_521 + 1) as Entry).collect();
        scratch.store(0, &entries).unwrap();
        let allocated = || {
            scratch.temp.file.sync_all().unwrap();
            // In 512-byte units, as stat counts them.
            scratch.temp.file.metadata().unwrap().blocks()
        };
        let before = allocated();
        scratch.release(block..2 * block);
        assert!(allocated() + 2 * block / 512 <= before, "{before} -> {}", allocated());
        let mut back = vec![0; states as usize];
        scratch.read(0, &mut back).unwrap();
        for (state, (&read, &stored)) in back.iter().zip(&entries).enumerate() {
            let released = (block..2 * block).contains(&(state as u64));
            assert_eq!(read, if released { 0 } else { stored }, "{state}");
        }
        drop(scratch);
        fs::remove_dir_all(&dir).unwrap();
    }
}
