use std::fs::OpenOptions;
use std::os::unix::fs::FileExt;

use super::blocks::{Row, compress};
use super::synthetic::write_uniform_blocks;
use super::*;
use crate::solver::Silent;
use crate::solver::slices::SolvedStore;
use crate::value::{BROKEN, DRAW};

fn header(encoding: Encoding, states_per_side: u64) -> Header {
    Header {
        game: GameId::Chess,
        rules: vec![],
        material: "KQvK".into(),
        metric: "dtm".into(),
        index_version: 1,
        states_per_side: [states_per_side; 2],
        checksum: 0,
        index_checksum: 0,
        encoding,
        rulings: None,
    }
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("egtb-table-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

/// Entries that look like a table's: runs of draws and broken slots, wins and losses.
fn sample(n: usize) -> Vec<Entry> {
    let mut x: u32 = 12345;
    (0..n)
        .map(|i| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            match (i / 300) % 3 {
                0 => 0,
                1 => u16::MAX,
                _ => (x >> 24) as Entry + 1,
            }
        })
        .collect()
}

/// A small block size, so that a small table has several blocks, the last one short.
const SMALL_BLOCKS: Encoding = Encoding::zstd(1 << 10);

fn error_of<T>(result: Result<T>) -> String {
    match result {
        Ok(_) => panic!("expected an error"),
        Err(e) => format!("{e:#}"),
    }
}

/// The message of a table refused as damaged, or of another table's: an error of that kind.
fn damage_of<T>(result: Result<T>) -> String {
    let message = error_of(result.inspect_err(|e| {
        assert!(
            matches!(e.downcast_ref(), Some(Error::CorruptTable { .. })),
            "not typed as a corrupt table: {e:#}"
        )
    }));
    assert!(message.contains("generate it again"), "{message}");
    message
}

#[test]
fn both_encodings_round_trip_and_probe() {
    let dir = folder("round-trip");
    let entries = sample(5000);
    for encoding in [Encoding::Raw, SMALL_BLOCKS, Encoding::DEFAULT] {
        let path = dir.join("chess").join("KQvK.egtb");
        write(&path, header(encoding, 2500), &entries, &Silent).unwrap();
        let table = Table::open(&path, &header(Encoding::DEFAULT, 2500)).unwrap();
        assert_eq!(table.header.encoding, encoding);
        assert_eq!(table.header.checksum, checksum(&entries));
        for state in [0, 1, 1023, 1024, 2047, 4999] {
            assert_eq!(table.entry(state).unwrap(), entries[state as usize]);
        }
        assert!(error_of(table.entry(5000)).contains("outside"));
        table.verify().unwrap();
        let loaded = LoadedTable::open(&path, &header(Encoding::Raw, 2500)).unwrap();
        assert_eq!(loaded.entries(), &entries[..]);
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_pass_over_every_entry_sees_each_once_at_its_state() {
    let dir = folder("map-reduce");
    let entries = sample(5000);
    // Each entry weighed by its state: a run handed over at the wrong state changes the sum.
    let weigh = |first: u64, run: &[Entry]| (first + 1..).zip(run).map(|(s, &e)| s * u64::from(e)).sum::<u64>();
    let expected = weigh(0, &entries);
    assert_eq!(map_reduce_entries(&entries, weigh, || 0, |a, b| a + b), expected);
    for encoding in [Encoding::Raw, SMALL_BLOCKS, Encoding::DEFAULT] {
        let path = dir.join("chess").join("KQvK.egtb");
        write(&path, header(encoding, 2500), &entries, &Silent).unwrap();
        let table = Table::open_unchecked(&path).unwrap();
        assert_eq!(
            table.map_reduce(weigh, || 0, |a, b| a + b).unwrap(),
            expected,
            "{encoding:?}"
        );
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn format_two_tables_of_byte_planes_still_open() {
    let dir = folder("planes");
    let path = dir.join("chess").join("KQvK.egtb");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let planes = Encoding::Zstd {
        block_entries: 1 << 10,
        layout: Layout::Planes,
        level: None,
    };
    let value_of = |block: u64| [BROKEN, DRAW, 7][block as usize % 3];
    write_uniform_blocks(&path, header(planes, 2500), value_of);
    assert!(fs::read(&path).unwrap().starts_with(b"EGTB table\nformat=2\n"));
    let table = Table::open(&path, &header(Encoding::DEFAULT, 2500)).unwrap();
    assert_eq!(table.header.encoding, planes);
    assert_eq!(planes.label(), "zstd-v2");
    for state in [0, 1023, 1024, 2048, 4999] {
        assert_eq!(table.entry(state).unwrap(), value_of(state / 1024));
    }
    table.verify().unwrap();
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn compressed_tables_are_smaller_and_convert_both_ways() {
    let dir = folder("convert");
    let path = dir.join("chess").join("KQvK.egtb");
    let entries = sample(200_000);
    write(&path, header(Encoding::Raw, 100_000), &entries, &Silent).unwrap();
    let converted = convert(&path, Encoding::DEFAULT, &Silent).unwrap();
    let (raw, compressed) = (converted.before, converted.after);
    assert_eq!(converted.from, Encoding::Raw);
    assert_eq!(raw, HEADER_BYTES as u64 + 400_000);
    assert!(compressed < raw / 2, "{compressed} bytes compressed, {raw} raw");
    let table = Table::open(&path, &header(Encoding::Raw, 100_000)).unwrap();
    assert_eq!(table.header.encoding, Encoding::DEFAULT);
    assert_eq!(table.load().unwrap().entries(), &entries[..]);
    let again = convert(&path, Encoding::DEFAULT, &Silent).unwrap();
    assert_eq!((again.before, again.after), (compressed, compressed));
    let back = convert(&path, Encoding::Raw, &Silent).unwrap();
    assert_eq!(
        (back.from, back.before, back.after),
        (Encoding::DEFAULT, compressed, raw)
    );
    let table = Table::open(&path, &header(Encoding::Raw, 100_000)).unwrap();
    assert_eq!(table.header.encoding, Encoding::Raw);
    assert_eq!(table.header.checksum, checksum(&entries));
    let leftovers: Vec<_> = fs::read_dir(dir.join("chess"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
        .filter(|name| name.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn conversions_between_block_sizes_read_every_entry_once_in_place() {
    // Runs that span many small blocks, runs inside one large block, and the whole table as
    // one raw run: each read a run at a time from the table before.
    let dir = folder("convert-blocks");
    let path = dir.join("chess").join("KQvK.egtb");
    let entries = sample(200_001);
    let odd = Header {
        states_per_side: [100_000, 100_001],
        ..header(SMALL_BLOCKS, 0)
    };
    write(&path, odd.clone(), &entries, &Silent).unwrap();
    for encoding in [Encoding::DEFAULT, SMALL_BLOCKS, Encoding::Raw, Encoding::zstd_at(5)] {
        assert_eq!(convert(&path, encoding, &Silent).unwrap().to, encoding);
        let table = Table::open(&path, &odd).unwrap();
        assert_eq!(table.header.checksum, checksum(&entries), "{encoding:?}");
        assert_eq!(table.load().unwrap().entries(), &entries[..], "{encoding:?}");
    }
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_table_rewritten_at_a_chosen_level_keeps_its_entries_and_that_level() {
    let dir = folder("level");
    let path = dir.join("chess").join("KQvK.egtb");
    let entries = sample(200_000);
    write(&path, header(Encoding::DEFAULT, 100_000), &entries, &Silent).unwrap();
    let standard = fs::read(&path).unwrap();
    let packed = convert(&path, Encoding::zstd_at(19), &Silent).unwrap();
    assert_eq!(packed.to, Encoding::zstd_at(19));
    assert!(packed.after < packed.before, "{packed:?}");
    let table = Table::open(&path, &header(Encoding::DEFAULT, 100_000)).unwrap();
    assert_eq!(table.header.encoding, Encoding::zstd_at(19));
    assert_eq!(table.header.checksum, checksum(&entries));
    assert_eq!(table.load().unwrap().entries(), &entries[..]);
    // Compressing without a level keeps the chosen one; naming it again changes nothing.
    let bytes = fs::read(&path).unwrap();
    for wanted in [Encoding::DEFAULT, Encoding::zstd_at(19)] {
        assert_eq!(convert(&path, wanted, &Silent).unwrap().to, Encoding::zstd_at(19));
        assert_eq!(fs::read(&path).unwrap(), bytes);
    }
    // At the level for the table's size, its blocks are those generation writes.
    convert(&path, Encoding::zstd_at(3), &Silent).unwrap();
    let again = fs::read(&path).unwrap();
    assert!(again[..HEADER_BYTES].windows(8).any(|w| w == b"\nlevel=3"));
    assert_eq!(again[HEADER_BYTES..], standard[HEADER_BYTES..]);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn raw_tables_detect_corruption_truncation_and_the_wrong_material() {
    let dir = folder("raw-damage");
    let path = dir.join("chess").join("KQvK.egtb");
    write(&path, header(Encoding::Raw, 3), &[1, 2, 0, 0xFFFF, 7, 9], &Silent).unwrap();
    let table = Table::open(&path, &header(Encoding::Raw, 3)).unwrap();
    assert_eq!(table.value(1).unwrap(), Some(Value::Win(1)));
    drop(table);
    let mut bytes = fs::read(&path).unwrap();
    bytes[HEADER_BYTES + 3] ^= 1;
    fs::write(&path, &bytes).unwrap();
    assert!(damage_of(Table::open(&path, &header(Encoding::Raw, 3))).contains("corrupt"));
    assert!(damage_of(LoadedTable::open(&path, &header(Encoding::Raw, 3))).contains("corrupt"));
    let unchecked = Table::open_unchecked(&path).unwrap();
    assert!(damage_of(unchecked.map_reduce(|_, run| run.len(), || 0, |a, b| a + b)).contains("corrupt"));
    drop(unchecked);
    fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    assert!(damage_of(Table::open(&path, &header(Encoding::Raw, 3))).contains("truncated"));
    fs::write(&path, &bytes[..100]).unwrap();
    assert!(damage_of(Table::open(&path, &header(Encoding::Raw, 3))).contains("truncated"));
    let mut other = header(Encoding::Raw, 3);
    other.material = "KRvK".into();
    write(&path, header(Encoding::Raw, 3), &[1, 2, 0, 0xFFFF, 7, 9], &Silent).unwrap();
    assert!(damage_of(Table::open(&path, &other)).contains("for material KQvK, expected KRvK"));
    let mut other = header(Encoding::Raw, 3);
    other.metric = "dtz".into();
    assert!(damage_of(Table::open(&path, &other)).contains("for metric dtm, expected dtz"));
    let mut other = header(Encoding::Raw, 3);
    other.index_version = 2;
    assert!(damage_of(Table::open(&path, &other)).contains("index scheme version 1"));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn compressed_tables_detect_every_damage_with_one_line() {
    let dir = folder("zstd-damage");
    let path = dir.join("chess").join("KQvK.egtb");
    let entries = sample(5000);
    let expect = header(SMALL_BLOCKS, 2500);
    write(&path, expect.clone(), &entries, &Silent).unwrap();
    let good = fs::read(&path).unwrap();
    let index_end = HEADER_BYTES + 16 * 5;
    let damaged = |bytes: &[u8]| {
        fs::write(&path, bytes).unwrap();
        let result = Table::open(&path, &expect).and_then(|t| {
            (0..5000).try_for_each(|s| t.entry(s).map(|_| ()))?;
            t.verify()?;
            t.load().map(|_| ())
        });
        let loaded = LoadedTable::open(&path, &expect).map(|_| ());
        let (err, load_err) = (damage_of(result), damage_of(loaded));
        assert!(!err.contains('\n') && !load_err.contains('\n'), "{err}\n{load_err}");
        err
    };
    // A flipped bit in the middle of every frame, then in the index's CRC, offset and length.
    let frames_start = index_end;
    for at in [frames_start + 10, good.len() - 5] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x10;
        let err = damaged(&bytes);
        assert!(err.contains("is damaged") && err.contains("corrupt (block"), "{err}");
    }
    for at in [
        HEADER_BYTES + 12,
        HEADER_BYTES + 16 + 1,
        HEADER_BYTES + 16 * 4 + 7,
        HEADER_BYTES + 8,
    ] {
        let mut bytes = good.clone();
        bytes[at] ^= 0x40;
        let err = damaged(&bytes);
        assert!(err.contains("the block index fails its checksum"), "{at}: {err}");
    }
    let err = damaged(&good[..good.len() - 1]);
    assert!(err.contains("truncated") && err.contains("(block 4 ends"), "{err}");
    let err = damaged(&good[..HEADER_BYTES + 20]);
    assert!(err.contains("truncated (the block index"), "{err}");
    let err = damaged(&good[..HEADER_BYTES - 1]);
    assert!(err.contains("truncated (no complete header)"), "{err}");
    let mut padded = good.clone();
    padded.push(0);
    assert!(damaged(&padded).contains("padded (1 byte after"));
    fs::write(&path, &good).unwrap();
    let table = Table::open_unchecked(&path).unwrap();
    let mut bad_header = good.clone();
    bad_header[..HEADER_BYTES].copy_from_slice(
        &Header {
            checksum: table.header.checksum ^ 1,
            ..table.header.clone()
        }
        .render(),
    );
    drop(table);
    assert!(damaged(&bad_header).contains("checksums disagree"));
    fs::write(&path, &good).unwrap();
    let table = Table::open_unchecked(&path).unwrap();
    let mut bad_header = good.clone();
    bad_header[..HEADER_BYTES].copy_from_slice(
        &Header {
            index_checksum: table.header.index_checksum ^ 1,
            ..table.header.clone()
        }
        .render(),
    );
    drop(table);
    assert!(damaged(&bad_header).contains("index fails its checksum"));
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn raw_tables_beyond_u32_states_probe_in_place() {
    // A sparse file: 2^32 + 16 states, 8 GiB long, nothing but two entries written.
    let dir = folder("raw-big");
    let path = dir.join("chess").join("KQvK.egtb");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let big = header(Encoding::Raw, (1 << 31) + 8);
    let states = big.states();
    assert!(states > 1 << 32);
    let file = OpenOptions::new()
        .create(true)
        .write(true)
        .truncate(true)
        .open(&path)
        .unwrap();
    file.write_all_at(&big.render(), 0).unwrap();
    file.set_len(HEADER_BYTES as u64 + 2 * states).unwrap();
    let far = (1u64 << 32) + 3;
    file.write_all_at(&7u16.to_le_bytes(), HEADER_BYTES as u64 + 2 * far)
        .unwrap();
    file.write_all_at(&9u16.to_le_bytes(), HEADER_BYTES as u64 + 2 * (states - 1))
        .unwrap();
    drop(file);
    let table = Table::open_unchecked(&path).unwrap();
    assert_eq!(table.header.states(), states);
    assert_eq!(table.entry(far).unwrap(), 7);
    assert_eq!(table.entry(far & 0xFFFF_FFFF).unwrap(), 0, "no wrap at 2^32");
    assert_eq!(table.entry(states - 1).unwrap(), 9);
    assert!(error_of(table.entry(states)).contains("outside"));
    drop(table);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn compressed_tables_beyond_u32_states_probe_one_block() {
    // 2^32 + 16 states in 2^16 + 1 blocks, the full blocks sharing one frame of sevens (the index
    // may point several rows at one frame), the short last block its own frame: a file of 1 MiB.
    let dir = folder("zstd-big");
    let path = dir.join("chess").join("KQvK.egtb");
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut big = header(Encoding::DEFAULT, (1 << 31) + 8);
    let blocks = Blocks::new(big.states(), BLOCK_ENTRIES);
    assert_eq!(blocks.count(), (1 << 16) + 1);
    let full: Vec<Entry> = vec![7; BLOCK_ENTRIES as usize];
    let last: Vec<Entry> = (0..16).collect();
    let mut compressor = zstd::bulk::Compressor::new(3).unwrap();
    let (full_frame, full_crc) = compress(&mut compressor, Layout::Marked, &full).unwrap();
    let (last_frame, last_crc) = compress(&mut compressor, Layout::Marked, &last).unwrap();
    let full_row = Row {
        offset: blocks.index_end(),
        length: full_frame.len() as u32,
        crc: full_crc,
    };
    let last_row = Row {
        offset: full_row.offset + u64::from(full_row.length),
        length: last_frame.len() as u32,
        crc: last_crc,
    };
    let mut whole = crc32fast::Hasher::new();
    let mut index = Vec::new();
    for block in 0..blocks.count() {
        let row = if block + 1 == blocks.count() {
            last_row
        } else {
            full_row
        };
        index.extend_from_slice(&row.encode());
        let bytes = 2 * blocks.len_of(block) as u64;
        whole.combine(&crc32fast::Hasher::new_with_initial_len(row.crc, bytes));
    }
    big.checksum = whole.finalize();
    big.index_checksum = crc32fast::hash(&index);
    let mut bytes = big.render();
    bytes.extend_from_slice(&index);
    bytes.extend_from_slice(&full_frame);
    bytes.extend_from_slice(&last_frame);
    fs::write(&path, &bytes).unwrap();
    let table = Table::open(&path, &big).unwrap();
    let states = big.states();
    assert_eq!(table.entry((1 << 32) - 1).unwrap(), 7);
    assert_eq!(table.entry(1 << 32).unwrap(), 0);
    assert_eq!(table.entry(states - 1).unwrap(), 15);
    assert_eq!(table.value(states - 2).unwrap(), Some(Value::Win(13)));
    drop(table);
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn tables_are_shared_between_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<Table>();
    shareable::<LoadedTable>();
    let dir = folder("threads");
    let path = dir.join("chess").join("KQvK.egtb");
    let entries = sample(50_000);
    write(&path, header(SMALL_BLOCKS, 25_000), &entries, &Silent).unwrap();
    let table = Table::open(&path, &header(SMALL_BLOCKS, 25_000)).unwrap();
    std::thread::scope(|scope| {
        for t in 0..4u64 {
            let (table, entries) = (&table, &entries);
            scope.spawn(move || {
                for i in 0..2000u64 {
                    let state = (i * 7919 + t * 104_729) % 50_000;
                    assert_eq!(table.entry(state).unwrap(), entries[state as usize]);
                }
            });
        }
    });
    fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_table_written_slice_by_slice_is_the_table_written_whole() {
    let dir = folder("sliced");
    let entries = sample(10_000);
    let path = dir.join("chess").join("KQvK.egtb");
    let whole = dir.join("chess").join("whole.egtb");
    let written = write(&whole, header(SMALL_BLOCKS, 5000), &entries, &Silent).unwrap();
    // Slices of odd lengths, out of order, sharing blocks; the last states outside every slice,
    // stored broken first and valued at the end.
    let outside = 9_300..10_000;
    let mut writer = SlicedWriter::create(&path, header(SMALL_BLOCKS, 5000), outside.clone()).unwrap();
    writer.store(outside.start, &vec![BROKEN; 700]).unwrap();
    for range in [4_000..9_300, 1_500..4_000, 0..1_500] {
        let (start, end) = (range.start as usize, range.end as usize);
        writer.store(range.start, &entries[start..end]).unwrap();
        for state in (range.start..9_300).step_by(7) {
            assert_eq!(writer.entry(state), entries[state as usize], "{state}");
        }
    }
    assert_eq!(writer.entry(9_500), BROKEN);
    writer.store(9_400, &entries[9_400..9_600]).unwrap();
    assert_eq!(writer.entry(9_500), entries[9_500]);
    writer.store(9_300, &entries[9_300..9_400]).unwrap();
    writer.store(9_600, &entries[9_600..]).unwrap();
    assert_eq!(writer.finish().unwrap(), written);
    assert_eq!(fs::read(&path).unwrap(), fs::read(&whole).unwrap());
    let left: Vec<_> = fs::read_dir(dir.join("chess"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(left.len(), 2, "only the two tables are left: {left:?}");
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_dtm_beyond_the_longest_a_move_may_reach_names_the_file_whole_or_on_disk() {
    let dir = folder("beyond");
    let path = dir.join("chess").join("KQvK.egtb");
    let mut entries = sample(5000);
    for (at, entry, damaged) in [(0, DRAW, false), (4321, MAX_REACHED_DTM + 2, true)] {
        entries[at] = entry;
        for encoding in [Encoding::Raw, SMALL_BLOCKS] {
            write(&path, header(encoding, 2500), &entries, &Silent).unwrap();
            let expect = header(Encoding::DEFAULT, 2500);
            for table in [
                LoadedTable::open(&path, &expect),
                LoadedTable::open_on_disk(&path, &expect),
            ] {
                let table = table.unwrap();
                match damaged {
                    true => assert!(damage_of(table.check_dtms()).contains("a move reaches")),
                    false => table.check_dtms().unwrap(),
                }
            }
        }
    }
    fs::remove_dir_all(dir).unwrap();
}
