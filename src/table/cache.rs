//! A small least-recently-used cache of decompressed blocks, shared by the threads probing one
//! table.

use std::collections::VecDeque;
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

#[cfg(test)]
mod tests {
    use super::*;

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
