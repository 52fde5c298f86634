//! Caches of decompressed blocks: a small least-recently-used one per table, shared by the
//! threads probing it ([`BlockCache`]), and one per thread for the solvers' reads of the exits
//! they keep compressed ([`thread_entry`]), which a lock would slow down.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::value::Entry;

/// Decompressed blocks most recently used first; a probe that hits holds the lock only to look up.
pub struct BlockCache {
    blocks: Mutex<VecDeque<(u64, Arc<[Entry]>)>>,
    capacity: usize,
}

impl BlockCache {
    pub fn new(capacity: usize) -> BlockCache {
        BlockCache {
            blocks: Mutex::new(VecDeque::with_capacity(capacity)),
            capacity,
        }
    }

    /// The block, if cached, now marked most recently used.
    pub fn get(&self, block: u64) -> Option<Arc<[Entry]>> {
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        let at = blocks.iter().position(|(b, _)| *b == block)?;
        let hit = blocks.remove(at)?;
        let entries = Arc::clone(&hit.1);
        blocks.push_front(hit);
        Some(entries)
    }

    /// Caches a block, dropping the least recently used one when full.
    pub fn insert(&self, block: u64, entries: Arc<[Entry]>) {
        let mut blocks = self.blocks.lock().unwrap_or_else(|e| e.into_inner());
        if blocks.iter().any(|(b, _)| *b == block) {
            return;
        }
        blocks.push_front((block, entries));
        blocks.truncate(self.capacity);
    }
}

/// Blocks each thread keeps for the exits read compressed (8 MiB of 64 Ki-entry blocks): enough
/// for the few regions of each smaller table that a run of consecutive states reaches.
const THREAD_BLOCKS: usize = 64;

/// A number no other compressed table read through [`thread_entry`] has, so that a thread's
/// cache never serves one table's block for another's.
pub fn next_table_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// A thread's decompressed blocks, most recently used first: (table id, block, entries).
type ThreadBlocks = Vec<(u64, u64, Box<[Entry]>)>;

thread_local! {
    static BLOCKS: RefCell<ThreadBlocks> = const { RefCell::new(Vec::new()) };
}

/// Entry `at` of block `block` of table `table`, from this thread's cache, or decompressed by
/// `fill` (which writes the block's `len` entries) into the cache first.
pub fn thread_entry(table: u64, block: u64, at: usize, len: usize, fill: impl FnOnce(&mut [Entry])) -> Entry {
    BLOCKS.with_borrow_mut(|blocks| {
        if let Some(i) = blocks.iter().position(|&(t, b, _)| t == table && b == block) {
            blocks[..=i].rotate_right(1);
            return blocks[0].2[at];
        }
        let mut entries = if blocks.len() == THREAD_BLOCKS {
            blocks.pop().map(|(_, _, e)| e).unwrap_or_default()
        } else {
            Box::default()
        };
        if entries.len() != len {
            entries = vec![0; len].into_boxed_slice();
        }
        fill(&mut entries);
        blocks.insert(0, (table, block, entries));
        blocks[0].2[at]
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_thread_keeps_its_recent_blocks_apart_by_table() {
        let (a, b) = (next_table_id(), next_table_id());
        let fills = std::cell::Cell::new(0);
        let fill = |value: Entry| {
            let fills = &fills;
            move |out: &mut [Entry]| {
                fills.set(fills.get() + 1);
                out.fill(value);
            }
        };
        assert_eq!(thread_entry(a, 0, 1, 4, fill(10)), 10);
        assert_eq!(thread_entry(b, 0, 1, 4, fill(20)), 20);
        assert_eq!(thread_entry(a, 0, 3, 4, fill(99)), 10);
        assert_eq!(fills.get(), 2);
        for block in 1..=THREAD_BLOCKS as u64 {
            thread_entry(b, block, 0, 4, fill(30));
        }
        assert_eq!(thread_entry(a, 0, 0, 4, fill(40)), 40, "the oldest block was dropped");
    }

    #[test]
    fn keeps_the_most_recently_used_blocks() {
        let cache = BlockCache::new(2);
        cache.insert(1, Arc::from(vec![1]));
        cache.insert(2, Arc::from(vec![2]));
        assert_eq!(cache.get(1).as_deref(), Some(&[1][..]));
        cache.insert(3, Arc::from(vec![3]));
        assert!(cache.get(2).is_none(), "block 2 was the least recently used");
        assert_eq!(cache.get(1).as_deref(), Some(&[1][..]));
        assert_eq!(cache.get(3).as_deref(), Some(&[3][..]));
    }
}
