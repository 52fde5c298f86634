//! Compressed tables of any size written without their entries in memory, for tests of states
//! beyond 2^32: each block holds one value, and the blocks of one value and length share one
//! frame (an index may point several rows at one frame).

use std::collections::HashMap;
use std::fs;
use std::path::Path;

use super::blocks::{Blocks, Row, compress};
use super::header::{Encoding, Header};
use crate::value::Entry;

/// Writes a compressed table whose block `b` holds `value_of(b)` in every entry; returns the
/// header written (its checksums computed).
pub fn write_uniform_blocks(path: &Path, mut header: Header, value_of: impl Fn(u64) -> Entry) -> Header {
    let Encoding::Zstd {
        block_entries, layout, ..
    } = header.encoding
    else {
        panic!("uniform blocks are compressed");
    };
    let blocks = Blocks::new(header.states(), block_entries);
    let mut compressor = zstd::bulk::Compressor::new(1).unwrap();
    let mut frames: Vec<u8> = Vec::new();
    let mut rows: HashMap<(Entry, usize), Row> = HashMap::new();
    let mut index = Vec::new();
    let mut whole = crc32fast::Hasher::new();
    for block in 0..blocks.count() {
        let len = blocks.len_of(block);
        let row = *rows.entry((value_of(block), len)).or_insert_with(|| {
            let (frame, crc) = compress(&mut compressor, layout, &vec![value_of(block); len]).unwrap();
            let row = Row {
                offset: blocks.index_end() + frames.len() as u64,
                length: frame.len() as u32,
                crc,
            };
            frames.extend_from_slice(&frame);
            row
        });
        index.extend_from_slice(&row.encode());
        whole.combine(&crc32fast::Hasher::new_with_initial_len(row.crc, 2 * len as u64));
    }
    header.checksum = whole.finalize();
    header.index_checksum = crc32fast::hash(&index);
    let mut bytes = header.render();
    bytes.extend_from_slice(&index);
    bytes.extend_from_slice(&frames);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, &bytes).unwrap();
    header
}
