//! A compressed table written while it is solved a slice at a time: a block whose states have
//! all been solved is compressed and its frame appended to a temporary file of frames at once,
//! so the solved entries never wait uncompressed on disk, and the solver reads them back a block
//! at a time. Only the blocks that two slices share until both are solved, and those of the
//! states outside every slice (valued last), wait raw in a [`Scratch`] file, which stays sparse.
//! Once every block is written, the frames are copied into the table in block order, so the file
//! is the one that compressing the whole table writes.

use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use super::blocks::{self, Blocks, FrameSink, Layout, Row};
use super::cache::{next_table_id, thread_entry};
use super::{Encoding, Header, Scratch, TempFile};
use crate::solver::slices::SolvedStore;
use crate::value::Entry;

/// Blocks compressed in parallel per worker thread before their frames are written: enough to
/// keep the threads busy, few enough that the frames waiting add little to the peak memory. A
/// setting apart from a whole table's batch (`blocks.rs`): here blocks come complete in bursts,
/// as slices are solved.
const SLICE_BATCH_BLOCKS_PER_THREAD: usize = 16;

/// A compressed table being written as its slices are solved; [`SlicedWriter::finish`] names it.
pub struct SlicedWriter {
    path: PathBuf,
    /// The frames, in the order the blocks were completed.
    frames: TempFile,
    header: Header,
    blocks: Blocks,
    /// The zstd level of the frames.
    level: i32,
    /// Per block, where its frame lies, once written.
    rows: Vec<Option<Row>>,
    /// Per block, how many of its states were stored (blocks of `outside` are not counted).
    stored: Vec<u32>,
    /// The blocks that hold states outside every slice: written when the table is finished.
    outside: Range<u64>,
    /// The entries of blocks not yet complete.
    waiting: Scratch,
    /// Where the next frame goes in `frames`.
    end: u64,
    /// Names the frames in the threads' block caches (a frame never changes once written).
    id: u64,
}

impl SlicedWriter {
    /// Starts writing the table of `header` to `path` (renamed into place by
    /// [`SlicedWriter::finish`]); `outside` are the states in no slice.
    pub fn create(path: &Path, header: Header, outside: Range<u64>) -> Result<SlicedWriter> {
        let Encoding::Zstd {
            block_entries, level, ..
        } = header.encoding
        else {
            bail!("a table written slice by slice is compressed");
        };
        let blocks = Blocks::new(header.states(), block_entries);
        let frames = TempFile::beside(path, "-frames")?;
        let waiting = Scratch::beside(path, header.states())?;
        let count = usize::try_from(blocks.count())?;
        let outside = if outside.is_empty() {
            0..0
        } else {
            blocks.locate(outside.start).0..blocks.locate(outside.end - 1).0 + 1
        };
        Ok(SlicedWriter {
            path: path.to_path_buf(),
            frames,
            header,
            blocks,
            level: blocks.level(level),
            rows: vec![None; count],
            stored: vec![0; count],
            outside,
            waiting,
            end: 0,
            id: next_table_id(),
        })
    }

    /// Compresses `complete` blocks, each from `entries` (states `first..`) where it lies
    /// inside them, else from the waiting file, and appends their frames.
    fn write_blocks(&mut self, complete: &[u64], first: u64, entries: &[Entry]) -> Result<()> {
        let (blocks, level, waiting) = (self.blocks, self.level, &self.waiting);
        let inside = first..first + entries.len() as u64;
        // A block not whole in `entries` waited raw in the waiting file.
        let waited = |states: &Range<u64>| states.start < inside.start || inside.end < states.end;
        let frames = complete
            .par_iter()
            .map_init(Vec::new, |buffer, &block| {
                let states = blocks.states_of(block);
                if waited(&states) {
                    buffer.resize(blocks.len_of(block), 0);
                    waiting.read(states.start, buffer)?;
                    blocks::compress_here(buffer, level)
                } else {
                    let at = (states.start - first) as usize;
                    blocks::compress_here(&entries[at..at + blocks.len_of(block)], level)
                }
            })
            .collect::<Result<Vec<_>>>()?;
        for (&block, (frame, crc)) in complete.iter().zip(&frames) {
            let length = u32::try_from(frame.len()).context("a compressed block over 4 GiB")?;
            self.frames
                .file
                .write_all_at(frame, self.end)
                .with_context(|| format!("cannot write {}", self.frames.path.display()))?;
            self.rows[block as usize] = Some(Row {
                offset: self.end,
                length,
                crc: *crc,
            });
            self.end += u64::from(length);
            // Its entries are read from the frame from now on: a block that waited raw gives
            // its space back, so the disk holds only the blocks still waiting.
            let states = blocks.states_of(block);
            if waited(&states) {
                self.waiting.release(states);
            }
        }
        Ok(())
    }

    /// Writes the blocks still waiting, then the table: the header, the index and the frames
    /// in block order, renamed into place once whole; returns the header written.
    pub fn finish(mut self) -> Result<Header> {
        let left: Vec<u64> = (0..self.blocks.count())
            .filter(|&b| self.rows[b as usize].is_none())
            .collect();
        for batch in left.chunks(SLICE_BATCH_BLOCKS_PER_THREAD * rayon::current_num_threads()) {
            self.write_blocks(batch, 0, &[])?;
        }
        super::write_atomically(&self.path, |file| {
            let mut sink = FrameSink::new(file, self.blocks)?;
            let mut frame = Vec::new();
            for row in &self.rows {
                let row = row.expect("every block written");
                frame.resize(row.length as usize, 0);
                self.frames.file.read_exact_at(&mut frame, row.offset)?;
                sink.push(&frame, row.crc)?;
            }
            let rows = sink.finish()?;
            let mut hasher = crc32fast::Hasher::new();
            blocks::combine_rows(&mut hasher, self.blocks, &rows);
            let mut header = self.header.clone();
            header.checksum = hasher.finalize();
            header.index_checksum = blocks::write_index(file, &rows)?;
            Ok(header)
        })
    }

    /// Reads the frame of a written block and decompresses it into `out`.
    fn read_frame(&self, block: u64, row: Row, out: &mut [Entry]) -> Result<()> {
        let mut frame = vec![0; row.length as usize];
        self.frames.file.read_exact_at(&mut frame, row.offset)?;
        blocks::decompress_frame(&frame, Layout::Marked, row.crc, block, out)
    }
}

impl SolvedStore for SlicedWriter {
    fn store(&mut self, first: u64, entries: &[Entry]) -> Result<()> {
        let states = first..first + entries.len() as u64;
        if states.is_empty() {
            return Ok(());
        }
        let (first_block, _) = self.blocks.locate(states.start);
        let (last_block, _) = self.blocks.locate(states.end - 1);
        let mut complete = Vec::new();
        for block in first_block..=last_block {
            let all = self.blocks.states_of(block);
            let part = all.start.max(states.start)..all.end.min(states.end);
            let outside = self.outside.contains(&block);
            if outside || part != all {
                let at = (part.start - first) as usize;
                self.waiting
                    .store(part.start, &entries[at..at + (part.end - part.start) as usize])?;
            }
            if !outside {
                let stored = &mut self.stored[block as usize];
                *stored += (part.end - part.start) as u32;
                if *stored as usize == self.blocks.len_of(block) {
                    complete.push(block);
                }
            }
        }
        for batch in complete.chunks(SLICE_BATCH_BLOCKS_PER_THREAD * rayon::current_num_threads()) {
            self.write_blocks(batch, first, entries)?;
        }
        Ok(())
    }

    fn entry(&self, state: u64) -> Entry {
        let (block, at) = self.blocks.locate(state);
        let Some(row) = self.rows[block as usize] else {
            return self.waiting.entry(state);
        };
        thread_entry(self.id, block, at, self.blocks.len_of(block), |out| {
            if let Err(e) = self.read_frame(block, row, out) {
                panic!(
                    "the frames of the table being written, {}, can no longer be read: {e:#}",
                    self.frames.path.display()
                );
            }
        })
    }
}
