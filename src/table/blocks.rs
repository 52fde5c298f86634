//! The compressed layout: the entries cut into blocks of a fixed count, each block compressed
//! apart (see [`Layout`]) and found through an index right after the header page. An index row per
//! block, little-endian:
//! the offset of the block's frames in the file (u64), their length (u32) and the CRC-32 of the
//! block's entries (u32). The header holds the CRC-32 of the index, checked on open, so a probe that decompresses
//! one block and checks its CRC reads content the header vouches for; reading every block also
//! checks that the blocks' CRCs combine into the header's checksum of all entries.

use std::cell::RefCell;
use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::sync::Arc;
use std::sync::mpsc::Receiver;

use anyhow::{Context, Result, anyhow, bail};
use rayon::prelude::*;

use super::EntrySource;
use super::cache::BlockCache;
use super::header::HEADER_BYTES;
use crate::counted::counted;
use crate::solver::Progress;
use crate::value::{BROKEN, DRAW, Entry};

thread_local! {
    /// A decompressor per thread, made once: making one costs more than many small frames.
    static DECOMPRESSOR: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
    /// A compressor per thread and its level, made once: making one costs more than compressing a block.
    static COMPRESSOR: RefCell<Option<(i32, zstd::bulk::Compressor<'static>)>> = const { RefCell::new(None) };
}

/// Bytes of one index row.
const ROW_BYTES: u64 = 16;
/// The zstd level large tables are written at. Tables are written once and read often, but
/// writing is a tenth of a table's generation at level 9: level 7 compresses in about three
/// quarters of that time for files 1.5 to 2.7% larger (KRPvKR, KRRvKR), where level 3 would
/// cost 12%.
const LEVEL: i32 = 7;
/// The zstd level of tables below [`SMALL_STATES`]: about a tenth larger than at [`LEVEL`], a few
/// MiB at most against the gigabytes of a set's large tables, and KQvKR's generation 7% faster.
const SMALL_LEVEL: i32 = 3;
/// Tables of fewer states (64 MiB raw) are small: written at [`SMALL_LEVEL`].
const SMALL_STATES: u64 = 1 << 25;
/// Blocks compressed in parallel per worker thread between two writes: enough to keep the threads
/// busy, few enough that the frames waiting to be written add little to a generation's peak.
const BATCH_BLOCKS_PER_THREAD: usize = 8;
/// Decompressed blocks kept per table for probing (1 MiB).
const CACHED_BLOCKS: usize = 8;

/// How a table's states fall into blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Blocks {
    pub states: u64,
    pub block_entries: u64,
}

impl Blocks {
    pub fn new(states: u64, block_entries: u32) -> Blocks {
        Blocks {
            states,
            block_entries: u64::from(block_entries),
        }
    }

    /// Number of blocks (the last one may be short).
    pub fn count(self) -> u64 {
        self.states.div_ceil(self.block_entries)
    }

    /// The block holding a state, and the state's place in that block.
    pub fn locate(self, state: u64) -> (u64, usize) {
        // The remainder is below `block_entries`, which a header limits to 2^24.
        (state / self.block_entries, (state % self.block_entries) as usize)
    }

    /// The states of a block.
    pub fn states_of(self, block: u64) -> Range<u64> {
        let start = block * self.block_entries;
        start..(start + self.block_entries).min(self.states)
    }

    /// Number of entries in a block.
    pub fn len_of(self, block: u64) -> usize {
        let range = self.states_of(block);
        // At most `block_entries`, which a header limits to 2^24.
        (range.end - range.start) as usize
    }

    /// The zstd level the table's blocks are compressed at: the `chosen` one, else one per
    /// table size, so that every way of writing a table writes the same file.
    pub fn level(self, chosen: Option<i32>) -> i32 {
        chosen.unwrap_or(if self.states < SMALL_STATES { SMALL_LEVEL } else { LEVEL })
    }

    /// File offset of the first byte after the index, where frames begin.
    pub fn index_end(self) -> u64 {
        HEADER_BYTES as u64 + self.count() * ROW_BYTES
    }
}

/// Where one block's frame lies and what its entries hash to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Row {
    pub offset: u64,
    pub length: u32,
    pub crc: u32,
}

impl Row {
    pub(super) fn encode(self) -> [u8; ROW_BYTES as usize] {
        let mut bytes = [0; ROW_BYTES as usize];
        bytes[..8].copy_from_slice(&self.offset.to_le_bytes());
        bytes[8..12].copy_from_slice(&self.length.to_le_bytes());
        bytes[12..].copy_from_slice(&self.crc.to_le_bytes());
        bytes
    }

    fn decode(bytes: &[u8]) -> Row {
        let word = |r: Range<usize>| bytes[r].iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
        Row {
            offset: word(0..8),
            length: word(8..12) as u32,
            crc: word(12..16) as u32,
        }
    }
}

/// How a block's entries lie in its frame before zstd compresses them.
///
/// Byte planes (the entries' low bytes, then their high bytes) compress about a tenth better than
/// interleaved entries. A quarter to a third of a chess table's slots are broken (men on one
/// square, the side not to move in check), in a pattern that breaks the runs of values around
/// them: with each broken slot holding the entry before it and a bit per entry marking them, in
/// a zstd frame of their own, the 5-piece tables take 12 to 21% less space, and compress faster.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// The byte planes, one zstd frame (format 2, read only).
    Planes,
    /// The byte planes with each broken slot holding the entry before it ([`DRAW`] for the
    /// first ones), one zstd frame, then a bit per entry, least significant first, set for a
    /// broken slot, a second frame (format 3, written).
    Marked,
}

impl Layout {
    /// Bytes of the frame's content for a block of `len` entries.
    fn content_bytes(self, len: usize) -> usize {
        match self {
            Layout::Planes => 2 * len,
            Layout::Marked => len.div_ceil(8) + 2 * len,
        }
    }

    /// A block's entries laid out for compression.
    fn lay_out(self, block: &[Entry]) -> Vec<u8> {
        let mut content = vec![0; self.content_bytes(block.len())];
        let (planes, marks) = content.split_at_mut(2 * block.len());
        let (low, high) = planes.split_at_mut(block.len());
        let mut last = DRAW;
        for (i, &entry) in block.iter().enumerate() {
            let kept = if entry == BROKEN && self == Layout::Marked {
                marks[i / 8] |= 1 << (i % 8);
                last
            } else {
                entry
            };
            [low[i], high[i]] = kept.to_le_bytes();
            last = kept;
        }
        content
    }

    /// The entries of a block from the content of its frame (exactly [`Layout::content_bytes`]).
    fn read_back(self, content: &[u8], out: &mut [Entry]) {
        let (planes, marks) = content.split_at(2 * out.len());
        let (low, high) = planes.split_at(out.len());
        if marks.is_empty() {
            for ((entry, &l), &h) in out.iter_mut().zip(low).zip(high) {
                *entry = Entry::from_le_bytes([l, h]);
            }
            return;
        }
        // `BROKEN` has every bit set: or-ing an entry with its mark bit spread over 16 bits
        // breaks a marked one.
        for (eight, ((&mark, low), high)) in out
            .chunks_mut(8)
            .zip(marks.iter().zip(low.chunks(8)).zip(high.chunks(8)))
        {
            for (bit, ((entry, &l), &h)) in eight.iter_mut().zip(low).zip(high).enumerate() {
                *entry = Entry::from_le_bytes([l, h]) | 0u16.wrapping_sub(u16::from(mark >> bit & 1));
            }
        }
    }
}

/// One block's frame, laid out as `layout`, and the CRC-32 of its entries.
pub(super) fn compress(
    compressor: &mut zstd::bulk::Compressor,
    layout: Layout,
    block: &[Entry],
) -> Result<(Vec<u8>, u32)> {
    let content = layout.lay_out(block);
    let (planes, marks) = content.split_at(2 * block.len());
    let mut frame = compressor.compress(planes).context("zstd cannot compress a block")?;
    if !marks.is_empty() {
        // The marks compress better in a zstd frame of their own; zstd reads the two frames
        // back as one.
        frame.extend(compressor.compress(marks).context("zstd cannot compress a block")?);
    }
    Ok((frame, crc32fast::hash(bytemuck::cast_slice(block))))
}

/// [`compress`] in the layout tables are written in, at `level`, with this thread's compressor.
pub(super) fn compress_here(block: &[Entry], level: i32) -> Result<(Vec<u8>, u32)> {
    COMPRESSOR.with_borrow_mut(|slot| {
        let (at, compressor) = match slot {
            Some(made) => made,
            None => slot.insert((
                level,
                zstd::bulk::Compressor::new(level).context("zstd cannot make a compressor")?,
            )),
        };
        if *at != level {
            compressor
                .set_compression_level(level)
                .context("zstd cannot set a compression level")?;
            *at = level;
        }
        compress(compressor, Layout::Marked, block)
    })
}

/// Writes the index and the frames of `entries` into `out`, after the header page (written by
/// the caller), and adds the entries to `hasher`; returns the index's CRC-32. The worker threads
/// read, hash and compress a batch of blocks while a writer thread writes the batch before, so
/// that no thread waits on the file; `progress` advances by the states of each batch.
pub fn write(
    out: &mut File,
    entries: &(impl EntrySource + ?Sized),
    blocks: Blocks,
    level: i32,
    hasher: &mut crc32fast::Hasher,
    progress: &dyn Progress,
) -> Result<u32> {
    let batch = (BATCH_BLOCKS_PER_THREAD * rayon::current_num_threads()) as u64;
    let frames_out = &mut *out;
    let rows = std::thread::scope(|scope| -> Result<Vec<Row>> {
        let (send, receive) = std::sync::mpsc::sync_channel::<Vec<(Vec<u8>, u32)>>(1);
        let writer = scope.spawn(move || write_frames(frames_out, blocks, receive));
        let mut compressed = Ok(());
        for first in (0..blocks.count()).step_by(batch as usize) {
            let frames = (first..(first + batch).min(blocks.count()))
                .into_par_iter()
                .map_init(Vec::new, |buffer, block| {
                    compress_here(entries.run(blocks.states_of(block), buffer)?, level)
                })
                .collect::<Result<Vec<_>>>();
            let frames = match frames {
                Ok(frames) => frames,
                Err(e) => {
                    compressed = Err(e);
                    break;
                }
            };
            // A failed send means the writer stopped on an error, which its join returns.
            if send.send(frames).is_err() {
                break;
            }
            let last = (first + batch).min(blocks.count()) - 1;
            progress.advance(blocks.states_of(last).end - blocks.states_of(first).start);
        }
        drop(send);
        let rows = writer
            .join()
            .map_err(|_| anyhow!("the thread writing a table's blocks panicked"))??;
        compressed.map(|()| rows)
    })?;
    combine_rows(hasher, blocks, &rows);
    write_index(out, &rows)
}

/// Writes the index of `rows` (one per block, in block order) after the header page; returns
/// its CRC-32.
pub(super) fn write_index(out: &mut File, rows: &[Row]) -> Result<u32> {
    let index: Vec<u8> = rows.iter().flat_map(|r| r.encode()).collect();
    out.seek(SeekFrom::Start(HEADER_BYTES as u64))?;
    out.write_all(&index)?;
    Ok(crc32fast::hash(&index))
}

/// Adds to `hasher` the entries of the blocks of `rows`, in order, from the blocks' own CRC-32s.
pub(super) fn combine_rows(hasher: &mut crc32fast::Hasher, blocks: Blocks, rows: &[Row]) {
    for (block, row) in rows.iter().enumerate() {
        let bytes = 2 * blocks.len_of(block as u64) as u64;
        hasher.combine(&crc32fast::Hasher::new_with_initial_len(row.crc, bytes));
    }
}

/// Writes the batches of frames received, in order, from the end of the index on; returns their
/// index rows.
fn write_frames(out: &mut File, blocks: Blocks, batches: Receiver<Vec<(Vec<u8>, u32)>>) -> Result<Vec<Row>> {
    let mut sink = FrameSink::new(out, blocks)?;
    for frames in batches {
        for (frame, crc) in frames {
            sink.push(&frame, crc)?;
        }
    }
    sink.finish()
}

/// Writes the frames of a table's blocks, in block order, from the end of the index on, keeping
/// their index rows.
pub(super) struct FrameSink<'a> {
    writer: BufWriter<&'a mut File>,
    offset: u64,
    rows: Vec<Row>,
}

impl<'a> FrameSink<'a> {
    pub(super) fn new(out: &'a mut File, blocks: Blocks) -> Result<FrameSink<'a>> {
        let offset = blocks.index_end();
        out.seek(SeekFrom::Start(offset))?;
        Ok(FrameSink {
            writer: BufWriter::with_capacity(1 << 20, out),
            offset,
            rows: Vec::with_capacity(usize::try_from(blocks.count())?),
        })
    }

    /// Writes the next block's frame, whose entries hash to `crc`.
    pub(super) fn push(&mut self, frame: &[u8], crc: u32) -> Result<()> {
        self.writer.write_all(frame)?;
        let length = u32::try_from(frame.len()).context("a compressed block over 4 GiB")?;
        self.rows.push(Row {
            offset: self.offset,
            length,
            crc,
        });
        self.offset += u64::from(length);
        Ok(())
    }

    /// The rows of the frames written, once they are all in the file.
    pub(super) fn finish(mut self) -> Result<Vec<Row>> {
        self.writer.flush()?;
        Ok(self.rows)
    }
}

/// The bytes of `range` of `file`, or an error calling the file truncated when it ends before
/// the range does.
pub(super) fn read_at(file: &File, range: Range<u64>) -> Result<Vec<u8>> {
    let mut bytes = vec![0; usize::try_from(range.end - range.start)?];
    file.read_exact_at(&mut bytes, range.start)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::UnexpectedEof => anyhow!("truncated (bytes {range:?} are past the end of the file)"),
            _ => anyhow!("cannot read bytes {range:?}: {e}"),
        })?;
    Ok(bytes)
}

/// Decompresses the frame of block `block`, laid out as `layout`, into `out` (exactly its length)
/// and checks the entries against the block's CRC-32 `crc`.
pub(super) fn decompress_frame(frame: &[u8], layout: Layout, crc: u32, block: u64, out: &mut [Entry]) -> Result<()> {
    let mut content = vec![0u8; layout.content_bytes(out.len())];
    let written = DECOMPRESSOR
        .with_borrow_mut(|decompressor| {
            if decompressor.is_none() {
                *decompressor = Some(zstd::bulk::Decompressor::new()?);
            }
            decompressor
                .as_mut()
                .map_or(Ok(0), |d| d.decompress_to_buffer(frame, &mut content))
        })
        .map_err(|e| anyhow!("corrupt (block {block} does not decompress: {e})"))?;
    if written != content.len() {
        bail!(
            "corrupt (block {block} holds {written} bytes, expected {})",
            content.len()
        );
    }
    layout.read_back(&content, out);
    let bytes: &[u8] = bytemuck::cast_slice(out);
    if crc32fast::hash(bytes) != crc {
        bail!("corrupt (block {block} fails its checksum)");
    }
    Ok(())
}

/// The index of a compressed table and its cache of decompressed blocks. It reads frames from
/// the file the caller keeps open, with positioned reads rather than a map: a file truncated
/// or overwritten in place while it is open then gives an error instead of a bus error.
pub struct BlockReader {
    pub blocks: Blocks,
    layout: Layout,
    rows: Vec<Row>,
    cache: BlockCache,
}

impl BlockReader {
    /// Reads and checks the index: its CRC-32, every frame inside the file (of `file_len`
    /// bytes), and the file ending with the last frame.
    pub fn open(
        file: &File,
        file_len: u64,
        blocks: Blocks,
        layout: Layout,
        index_checksum: u32,
    ) -> Result<BlockReader> {
        let index_end = blocks.index_end();
        if file_len < index_end {
            bail!("truncated (the block index ends at byte {index_end}, the file has {file_len})");
        }
        let index = read_at(file, HEADER_BYTES as u64..index_end)?;
        if crc32fast::hash(&index) != index_checksum {
            bail!("corrupt (the block index fails its checksum)");
        }
        let rows: Vec<Row> = index.chunks_exact(ROW_BYTES as usize).map(Row::decode).collect();
        let mut last_end = index_end;
        for (block, row) in rows.iter().enumerate() {
            let end = row.offset.checked_add(u64::from(row.length));
            if row.offset < index_end || row.length == 0 || end.is_none() {
                bail!("corrupt block index (block {block} at byte {})", row.offset);
            }
            let end = end.unwrap_or_default();
            if end > file_len {
                bail!("truncated (block {block} ends at byte {end}, the file has {file_len})");
            }
            last_end = last_end.max(end);
        }
        if last_end != file_len {
            bail!("padded ({} after the last block)", counted(file_len - last_end, "byte"));
        }
        Ok(BlockReader {
            blocks,
            layout,
            rows,
            cache: BlockCache::new(CACHED_BLOCKS),
        })
    }

    /// Checks that the blocks' CRCs combine into the checksum of all entries (once every block
    /// was checked against its own).
    fn check_whole(&self, checksum: u32) -> Result<()> {
        let mut combined = crc32fast::Hasher::new();
        combine_rows(&mut combined, self.blocks, &self.rows);
        if combined.finalize() != checksum {
            bail!("corrupt (the blocks' checksums disagree with the header's)");
        }
        Ok(())
    }

    /// Reads a block's frame from `file`, decompresses it into `out` (exactly its length) and
    /// checks its CRC.
    pub fn decompress_into(&self, file: &File, block: u64, out: &mut [Entry]) -> Result<()> {
        let frame = read_at(file, self.frame(block)).with_context(|| format!("block {block}"))?;
        decompress_frame(&frame, self.layout, self.rows[block as usize].crc, block, out)
    }

    /// Decompresses the entries of `range` into `out` (exactly its length), block by block,
    /// each block checked against its CRC: a whole block straight into `out`, part of one
    /// through the cache (the runs that share a block then decompress it once).
    pub fn read_run(&self, file: &File, range: Range<u64>, out: &mut [Entry]) -> Result<()> {
        let mut state = range.start;
        while state < range.end {
            let (block, at) = self.blocks.locate(state);
            let states = self.blocks.states_of(block);
            let end = states.end.min(range.end);
            let into = &mut out[(state - range.start) as usize..(end - range.start) as usize];
            if at == 0 && end == states.end {
                self.decompress_into(file, block, into)?;
            } else {
                into.copy_from_slice(&self.block(file, block)?[at..at + into.len()]);
            }
            state = end;
        }
        Ok(())
    }

    /// Where the frame of a block lies in the file.
    fn frame(&self, block: u64) -> Range<u64> {
        let row = self.rows[block as usize];
        row.offset..row.offset + u64::from(row.length)
    }

    /// A block's entries, from the cache or decompressed and then cached.
    pub fn block(&self, file: &File, block: u64) -> Result<Arc<[Entry]>> {
        if let Some(entries) = self.cache.get(block) {
            return Ok(entries);
        }
        let len = self.blocks.len_of(block);
        let mut entries = vec![0; len];
        self.decompress_into(file, block, &mut entries)?;
        let entries: Arc<[Entry]> = Arc::from(entries);
        self.cache.insert(block, Arc::clone(&entries));
        Ok(entries)
    }

    /// The entry of one state (below the table's state count).
    pub fn entry(&self, file: &File, state: u64) -> Result<Entry> {
        let (block, at) = self.blocks.locate(state);
        Ok(self.block(file, block)?[at])
    }

    /// Decompresses every block into `out`, which holds the whole table, in parallel, and checks
    /// the whole against the header's `checksum`.
    pub fn decompress_all(&self, file: &File, out: &mut [Entry], checksum: u32) -> Result<()> {
        let block_len = usize::try_from(self.blocks.block_entries)?;
        out.par_chunks_mut(block_len)
            .enumerate()
            .try_for_each(|(block, chunk)| self.decompress_into(file, block as u64, chunk))?;
        self.check_whole(checksum)
    }

    /// Decompresses and checks every block, in parallel, keeping one block per thread, and the
    /// whole against the header's `checksum`.
    pub fn verify(&self, file: &File, checksum: u32) -> Result<()> {
        self.map_reduce(file, checksum, |_, _| (), || (), |(), ()| ())
    }

    /// A pass over every entry in little memory: each block decompressed and checked in turn, in
    /// parallel, one block a thread, handed to `map` with its first state; the results joined by
    /// `reduce` (`identity` its neutral value); the whole checked against the header's
    /// `checksum`.
    pub fn map_reduce<T: Send>(
        &self,
        file: &File,
        checksum: u32,
        map: impl Fn(u64, &[Entry]) -> T + Sync,
        identity: impl Fn() -> T + Sync + Send,
        reduce: impl Fn(T, T) -> T + Sync + Send,
    ) -> Result<T> {
        let block_len = usize::try_from(self.blocks.block_entries)?;
        let result = (0..self.blocks.count())
            .into_par_iter()
            .map_init(
                || vec![0; block_len],
                |buffer, block| {
                    let len = self.blocks.len_of(block);
                    self.decompress_into(file, block, &mut buffer[..len])?;
                    anyhow::Ok(map(self.blocks.states_of(block).start, &buffer[..len]))
                },
            )
            .try_reduce(&identity, |a, b| Ok(reduce(a, b)))?;
        self.check_whole(checksum)?;
        Ok(result)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn geometry_holds_beyond_u32_states() {
        let states = (1u64 << 33) + 12_345;
        let blocks = Blocks::new(states, 1 << 16);
        assert_eq!(blocks.count(), (1 << 17) + 1);
        let state = (1u64 << 32) + 70_000;
        let (block, at) = blocks.locate(state);
        assert_eq!(block, (1 << 16) + 1);
        assert_eq!(blocks.states_of(block).start + at as u64, state);
        assert_eq!(blocks.len_of(blocks.count() - 1), 12_345);
        assert_eq!(blocks.index_end(), HEADER_BYTES as u64 + 16 * ((1 << 17) + 1));
    }

    #[test]
    fn both_layouts_give_every_entry_back_and_marked_planes_hold_no_broken_slot() {
        let block: Vec<Entry> = vec![BROKEN, BROKEN, 5, DRAW, BROKEN, 9, BROKEN, BROKEN, BROKEN, 12, BROKEN];
        for layout in [Layout::Planes, Layout::Marked] {
            let content = layout.lay_out(&block);
            assert_eq!(content.len(), layout.content_bytes(block.len()));
            let mut out = vec![0; block.len()];
            layout.read_back(&content, &mut out);
            assert_eq!(out, block, "{layout:?}");
        }
        let content = Layout::Marked.lay_out(&block);
        let n = block.len();
        assert_eq!(&content[..n], &[0, 0, 5, 0, 0, 9, 9, 9, 9, 12, 12]);
        assert!(content[n..2 * n].iter().all(|&high| high == 0));
        assert_eq!(&content[2 * n..], &[0b1101_0011, 0b0000_0101]);
    }

    #[test]
    fn rows_round_trip_offsets_beyond_u32() {
        let row = Row {
            offset: (1 << 40) + 3,
            length: u32::MAX,
            crc: 0x1234_5678,
        };
        assert_eq!(Row::decode(&row.encode()), row);
    }

    #[test]
    fn block_checksums_combine_into_the_whole_checksum() {
        let entries: Vec<Entry> = (0..10_000u32).map(|i| (i * 7 % 1000) as Entry).collect();
        let blocks = Blocks::new(entries.len() as u64, 1 << 10);
        let mut combined = crc32fast::Hasher::new();
        for block in 0..blocks.count() {
            let range = blocks.states_of(block);
            let part = &entries[range.start as usize..range.end as usize];
            let crc = crc32fast::hash(bytemuck::cast_slice(part));
            combined.combine(&crc32fast::Hasher::new_with_initial_len(crc, 2 * part.len() as u64));
        }
        assert_eq!(combined.finalize(), crc32fast::hash(bytemuck::cast_slice(&entries)));
    }
}
