//! Table files: a readable header page, then the 16-bit entries (see [`crate::value`]), raw or
//! compressed in zstd blocks; written atomically, verified before use.
//!
//! Raw layout: the header padded to [`HEADER_BYTES`] (so entries are page aligned), then
//! `states` little-endian u16 entries. Compressed layout (the default): the header,
//! then a block index and the blocks (see `src/table/blocks.rs`). Either way the header's checksum is the
//! CRC-32 of the entries as little-endian bytes.
//!
//! A [`Table`] is a file opened for probing: a compressed one decompresses only the block a probe
//! needs (with a small cache); passes over every entry (statistics, conversions) read it a block
//! at a time. A [`LoadedTable`] has every entry in memory or, for a large table, every block
//! verified and each read (and decompressed) when a thread first needs it: it is what the solvers
//! read the exits of a larger table from. Files are read, never mapped, so a table truncated or
//! overwritten in place by another program gives an error rather than a bus error.

mod blocks;
mod cache;
mod convert;
mod header;
pub mod lock;
mod scratch;
mod sliced;
#[cfg(test)]
pub(crate) mod synthetic;
mod temp;

use std::borrow::Cow;
use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{self, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context, Result, bail};
use rayon::prelude::*;

use self::blocks::{BlockReader, Blocks};
pub use self::convert::{Converted, convert};
pub use self::header::{
    BLOCK_ENTRIES, Encoding, FORMAT_VERSION, HEADER_BYTES, Header, LEVELS, Layout, NewerFormat, Seal,
};
pub use self::scratch::Scratch;
pub use self::sliced::SlicedWriter;
use self::temp::TempFile;
pub use self::temp::remove_temporary_files;
pub(crate) use self::temp::{temp_path, write_then_rename};
use crate::error::Error;
use crate::material::{GameId, Material};
use crate::memory;
use crate::rulings::{self, Ruling};
use crate::solver::Progress;
use crate::value::{BROKEN, DRAW, Entry, MAX_DTM, MAX_REACHED_DTM, Value};

#[cfg(not(target_endian = "little"))]
compile_error!("table files store little-endian entries and are read as they are");

/// File name extension of a table.
pub const EXTENSION: &str = "egtb";

/// Where a table lives: `<dir>/<game>/<material>[.<key>-<value>...].egtb`.
pub fn table_path(dir: &Path, game: GameId, material: &Material, rules: &[(&str, &str)]) -> PathBuf {
    path_of(dir, game, &material.to_string(), rules.iter().copied())
}

/// [`table_path`] from the names a header holds.
fn path_of<'a>(dir: &Path, game: GameId, material: &str, rules: impl Iterator<Item = (&'a str, &'a str)>) -> PathBuf {
    let mut name = material.to_string();
    for (key, value) in rules {
        name.push_str(&format!(".{key}-{value}"));
    }
    dir.join(game.name()).join(format!("{name}.{EXTENSION}"))
}

/// The folder `--tables` should name when `dir` is itself a game's folder holding table files
/// (`--tables tables/chess` for `--tables tables`, an easy slip: only egtb writes tables, and
/// always into a game's folder); `None` otherwise, and for a tables folder of that name.
pub fn folder_above_game_folder(dir: &Path) -> Option<PathBuf> {
    let is_game = |name: Option<&std::ffi::OsStr>| GameId::ALL.iter().any(|g| name == Some(g.name().as_ref()));
    let mut listing = fs::read_dir(dir).ok()?;
    let holds_tables = listing.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == EXTENSION)));
    if !holds_tables || table_files(dir).is_ok_and(|files| !files.is_empty()) {
        return None;
    }
    // The folder as typed where it names a game (a link named so included), else as resolved
    // (`.`, `..`, or a link under another name).
    if is_game(dir.file_name()) {
        let parent = dir.parent()?;
        return Some(if parent.as_os_str().is_empty() {
            PathBuf::from(".")
        } else {
            parent.to_path_buf()
        });
    }
    let real = dir.canonicalize().ok()?;
    is_game(real.file_name()).then(|| real.parent().map(Path::to_path_buf))?
}

/// The table files under a folder, every game's, sorted by game then name. A game's folder that
/// is absent holds none; one that cannot be read is an error, not an empty listing.
pub fn table_files(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for game in GameId::ALL {
        let folder = dir.join(game.name());
        let listing = match fs::read_dir(&folder) {
            Ok(listing) => listing,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => bail!("cannot read the folder {}: {e}", folder.display()),
        };
        let mut paths: Vec<PathBuf> = listing
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == EXTENSION))
            .collect();
        paths.sort();
        files.extend(paths);
    }
    Ok(files)
}

/// CRC-32 of entries as stored.
pub fn checksum(entries: &[Entry]) -> u32 {
    crc32fast::hash(bytemuck::cast_slice(entries))
}

/// Entries to write, handed over a run at a time: a table's entries in memory, or on disk.
pub trait EntrySource: Sync {
    /// Number of entries.
    fn entry_count(&self) -> u64;
    /// The entries of `range`, borrowed or read into `buffer`.
    fn run<'a>(&'a self, range: Range<u64>, buffer: &'a mut Vec<Entry>) -> Result<&'a [Entry]>;
}

impl EntrySource for [Entry] {
    fn entry_count(&self) -> u64 {
        <[Entry]>::len(self) as u64
    }

    fn run<'a>(&'a self, range: Range<u64>, _: &'a mut Vec<Entry>) -> Result<&'a [Entry]> {
        Ok(&self[range.start as usize..range.end as usize])
    }
}

/// A table on disk handed over a run at a time, a compressed table's blocks decompressed as the
/// runs need them, each checked against its own CRC: what a conversion reads, so that rewriting
/// a table takes a few blocks of memory a thread rather than its entries. The caller verifies the
/// whole first ([`Table::verify`]).
impl EntrySource for Table {
    fn entry_count(&self) -> u64 {
        self.header.states()
    }

    fn run<'a>(&'a self, range: Range<u64>, buffer: &'a mut Vec<Entry>) -> Result<&'a [Entry]> {
        buffer.resize((range.end - range.start) as usize, 0);
        match &self.body {
            Body::Raw { .. } => self.read_raw(range.start, buffer)?,
            Body::Zstd(reader) => reader
                .read_run(&self.file, range, buffer)
                .map_err(damaged_by(&self.path))?,
        }
        Ok(buffer)
    }
}

/// Entries written or compressed at a time.
const WRITE_RUN: u64 = 1 << 22;

/// Writes a table in the header's encoding, atomically: a temporary file in the same folder,
/// synced, then renamed, so an interrupted run never leaves a file that looks whole. The header's
/// checksum is computed here; the header written is returned. `progress` gets a `write` phase
/// counted in states.
pub fn write(path: &Path, header: Header, entries: &[Entry], progress: &dyn Progress) -> Result<Header> {
    write_from(path, header, entries, progress)
}

/// [`write()`] from entries handed over a run at a time.
pub fn write_from(
    path: &Path,
    mut header: Header,
    entries: &(impl EntrySource + ?Sized),
    progress: &dyn Progress,
) -> Result<Header> {
    if header.states() != entries.entry_count() {
        bail!(
            "table {} has {} entries, its header says {}",
            path.display(),
            entries.entry_count(),
            header.states()
        );
    }
    progress.phase("write", header.states());
    write_atomically(path, |file| {
        let mut hasher = crc32fast::Hasher::new();
        match header.encoding {
            Encoding::Raw => {
                let mut out = BufWriter::with_capacity(1 << 20, file);
                let mut buffer = Vec::new();
                for start in (0..header.states()).step_by(WRITE_RUN as usize) {
                    let run = entries.run(start..(start + WRITE_RUN).min(header.states()), &mut buffer)?;
                    hasher.update(bytemuck::cast_slice(run));
                    out.write_all(bytemuck::cast_slice(run))?;
                    progress.advance(run.len() as u64);
                }
                out.flush()?;
            }
            Encoding::Zstd {
                block_entries, level, ..
            } => {
                let blocks = Blocks::new(header.states(), block_entries);
                let level = blocks.level(level);
                header.index_checksum = blocks::write(file, entries, blocks, level, &mut hasher, progress)?;
            }
        }
        header.checksum = hasher.finalize();
        Ok(header)
    })
}

/// Writes a table atomically: `fill` writes what follows the header page into a temporary file
/// beside `path` (positioned after that page) and returns the header; the header then goes over
/// the first page, the file is synced and renamed to `path`, so that only a whole table ever
/// carries the table's name, and an interrupted run leaves only the temporary file.
fn write_atomically(path: &Path, fill: impl FnOnce(&mut File) -> Result<Header>) -> Result<Header> {
    let written = write_then_rename(temp_path(path, "")?, path, |file| {
        file.seek(SeekFrom::Start(HEADER_BYTES as u64))?;
        let header = fill(file)?;
        file.seek(SeekFrom::Start(0))?;
        file.write_all(&header.render())?;
        Ok(header)
    });
    written.with_context(|| format!("cannot write table {}", path.display()))
}

/// How a table file's entries are reached.
enum Body {
    /// Raw entries after the header page; `verified` once their checksum was checked.
    Raw {
        verified: bool,
    },
    Zstd(BlockReader),
}

/// A table file, open, its header read and its layout checked; entries read on demand with
/// positioned reads, not through a map, so that a file truncated or overwritten in place while
/// it is open (a server's tables copied over) gives an error rather than a bus error. Shared
/// between threads by servers (`Send + Sync`).
pub struct Table {
    /// The header read from the file.
    pub header: Header,
    /// The file's path.
    pub path: PathBuf,
    file: File,
    /// The file's size in bytes when it was opened.
    len: u64,
    body: Body,
}

/// What to do with a table file that cannot be used as it is.
const REBUILD: &str = "delete it and generate it again";

/// A table file that cannot be used as it is: an [`Error::CorruptTable`] whose message is
/// `message`, so that a program can tell it from other failures.
fn untrusted(path: &Path, message: String) -> anyhow::Error {
    Error::CorruptTable {
        path: path.to_path_buf(),
        reason: message,
    }
    .into()
}

/// The one error for a table whose bytes cannot be trusted, `cause` saying what is wrong,
/// its message naming the fix.
pub(crate) fn damaged(path: &Path, cause: impl std::fmt::Display) -> anyhow::Error {
    untrusted(path, format!("table {} is damaged; {REBUILD}: {cause}", path.display()))
}

/// [`damaged`] for a failure met reading the table: `result.map_err(damaged_by(path))`.
pub(crate) fn damaged_by(path: &Path) -> impl FnOnce(anyhow::Error) -> anyhow::Error + '_ {
    move |cause| damaged(path, format_args!("{cause:#}"))
}

impl Table {
    /// Opens a table for probing, checking its header against what the caller expects. A raw
    /// table's checksum is checked now; a compressed table's blocks when they are read.
    pub fn open(path: &Path, expect: &Header) -> Result<Table> {
        let mut table = Table::open_unchecked(path)?;
        table.check_header(expect)?;
        if let Body::Raw { .. } = table.body {
            table.verify_raw()?;
            table.body = Body::Raw { verified: true };
        }
        Ok(table)
    }

    /// Opens a table and reads its header and layout, without comparing them to an expectation
    /// nor checking its entries (for listing and converting).
    pub fn open_unchecked(path: &Path) -> Result<Table> {
        // Looked at before it is opened: opening a named pipe would wait for a writer.
        let kind = fs::metadata(path).with_context(|| format!("cannot open table {}", path.display()))?;
        if !kind.is_file() {
            bail!("table {} is not a file", path.display());
        }
        let file = File::open(path).with_context(|| format!("cannot open table {}", path.display()))?;
        let metadata = file
            .metadata()
            .with_context(|| format!("cannot read table {}", path.display()))?;
        let len = metadata.len();
        if len < HEADER_BYTES as u64 {
            return Err(damaged(path, "truncated (no complete header)"));
        }
        let header = blocks::read_at(&file, 0..HEADER_BYTES as u64)
            .and_then(|bytes| Header::parse(&bytes))
            .map_err(|e| match e.downcast_ref::<NewerFormat>() {
                Some(NewerFormat(format)) => untrusted(
                    path,
                    format!(
                        "table {} was written by a newer egtb (format version {format}, this one reads up to {FORMAT_VERSION}): read it with that one, or delete it and generate it again",
                        path.display()
                    ),
                ),
                None => damaged(path, format_args!("{e:#}")),
            })?;
        let body = match header.encoding {
            Encoding::Raw => {
                let want = HEADER_BYTES as u64 + 2 * header.states();
                if len != want {
                    return Err(damaged(
                        path,
                        format_args!("truncated or padded ({len} bytes, expected {want})"),
                    ));
                }
                Body::Raw { verified: false }
            }
            Encoding::Zstd {
                block_entries, layout, ..
            } => {
                let blocks = Blocks::new(header.states(), block_entries);
                let reader =
                    BlockReader::open(&file, len, blocks, layout, header.index_checksum).map_err(damaged_by(path))?;
                Body::Zstd(reader)
            }
        };
        Ok(Table {
            header,
            path: path.to_path_buf(),
            file,
            len,
            body,
        })
    }

    /// Fails unless the header is the expected one (checksum and encoding aside): a file of
    /// another table, or of an older build, is as unusable as a damaged one.
    pub fn check_header(&self, expect: &Header) -> Result<()> {
        let (h, path) = (&self.header, self.path.display());
        let mismatch = |what: &str, found: &dyn std::fmt::Display, wanted: &dyn std::fmt::Display| {
            Err(untrusted(
                &self.path,
                format!("table {path} is for {what} {found}, expected {wanted}; {REBUILD}"),
            ))
        };
        if h.game != expect.game {
            return mismatch("game", &h.game, &expect.game);
        }
        if h.material != expect.material {
            return mismatch("material", &h.material, &expect.material);
        }
        if h.rules != expect.rules {
            return mismatch("rules", &h.rules_text(), &expect.rules_text());
        }
        if h.metric != expect.metric {
            return mismatch("metric", &h.metric, &expect.metric);
        }
        if h.index_version != expect.index_version {
            return Err(untrusted(
                &self.path,
                format!(
                    "table {path} was built under index scheme version {}, this egtb reads version {}; {REBUILD}",
                    h.index_version, expect.index_version
                ),
            ));
        }
        if h.states_per_side != expect.states_per_side {
            return Err(untrusted(
                &self.path,
                format!(
                    "table {path} has {} entries, its material has {}; {REBUILD}",
                    h.states(),
                    expect.states()
                ),
            ));
        }
        Ok(())
    }

    /// Checks every entry against the header's checksum (a compressed table: every block; a raw
    /// one not already checked when it was opened), and the rulings file beside the table
    /// against the header's seal.
    pub fn verify(&self) -> Result<()> {
        match &self.body {
            Body::Raw { verified: true } => {}
            Body::Raw { verified: false } => self.verify_raw()?,
            Body::Zstd(reader) => reader
                .verify(&self.file, self.header.checksum)
                .map_err(damaged_by(&self.path))?,
        }
        self.verify_rulings()
    }

    /// Fails unless the rulings file the header seals is beside the table, whole.
    fn verify_rulings(&self) -> Result<()> {
        rulings::of(&self.path, &self.header).map(drop)
    }

    fn verify_raw(&self) -> Result<()> {
        let whole = self.map_reduce_raw(|_, _| (), || (), |(), ()| ())?;
        self.check_raw(whole.0)
    }

    /// Fails unless `hasher` holds the header's checksum, for a raw table read whole.
    fn check_raw(&self, hasher: crc32fast::Hasher) -> Result<()> {
        if hasher.finalize() != self.header.checksum {
            return Err(damaged(&self.path, "corrupt (checksum mismatch)"));
        }
        Ok(())
    }

    /// How the entries fall into blocks: a compressed table's as written, a raw table's in runs
    /// of [`BLOCK_ENTRIES`], as passes over it read them.
    fn blocks(&self) -> Blocks {
        match &self.body {
            Body::Raw { .. } => Blocks::new(self.header.states(), BLOCK_ENTRIES),
            Body::Zstd(reader) => reader.blocks,
        }
    }

    /// Reads the raw entries from state `first` on into `out`.
    fn read_raw(&self, first: u64, out: &mut [Entry]) -> Result<()> {
        read_raw(&self.file, first, out).map_err(damaged_by(&self.path))
    }

    /// [`Table::map_reduce`] over a raw table's entries, read a run at a time in parallel,
    /// with the CRC-32 of the whole (the runs' hashes combined in order).
    fn map_reduce_raw<T: Send>(
        &self,
        map: impl Fn(u64, &[Entry]) -> T + Sync + Send,
        identity: impl Fn() -> T + Sync + Send,
        reduce: impl Fn(T, T) -> T + Sync + Send,
    ) -> Result<(crc32fast::Hasher, T)> {
        let blocks = self.blocks();
        (0..blocks.count())
            .into_par_iter()
            .map_init(
                || vec![0; blocks.block_entries as usize],
                |buffer, block| {
                    let first = blocks.states_of(block).start;
                    let entries = &mut buffer[..blocks.len_of(block)];
                    self.read_raw(first, entries)?;
                    let mut hasher = crc32fast::Hasher::new();
                    hasher.update(bytemuck::cast_slice(entries));
                    Ok((hasher, map(first, entries)))
                },
            )
            .try_reduce(
                || (crc32fast::Hasher::new(), identity()),
                |(mut hasher, a), (next, b)| {
                    hasher.combine(&next);
                    Ok((hasher, reduce(a, b)))
                },
            )
    }

    /// A pass over every entry in little memory, whatever the table's size (statistics of tables
    /// larger than memory): `map` gets runs of entries with the state of their first, in parallel
    /// (a compressed table's blocks decompressed one a thread, each checked as it is read, and
    /// the whole checked at the end), and `reduce` joins the results (`identity` its neutral
    /// value).
    pub fn map_reduce<T: Send>(
        &self,
        map: impl Fn(u64, &[Entry]) -> T + Sync + Send,
        identity: impl Fn() -> T + Sync + Send,
        reduce: impl Fn(T, T) -> T + Sync + Send,
    ) -> Result<T> {
        match &self.body {
            Body::Raw { .. } => {
                let (hasher, result) = self.map_reduce_raw(map, identity, reduce)?;
                self.check_raw(hasher)?;
                Ok(result)
            }
            Body::Zstd(reader) => reader
                .map_reduce(&self.file, self.header.checksum, map, identity, reduce)
                .map_err(damaged_by(&self.path)),
        }
    }

    /// The entry of one state, decompressing its block if the table is compressed.
    pub fn entry(&self, state: u64) -> Result<Entry> {
        if state >= self.header.states() {
            bail!(
                "state {state} is outside table {} ({} states)",
                self.path.display(),
                self.header.states()
            );
        }
        match &self.body {
            Body::Raw { .. } => {
                let mut entry = [0];
                self.read_raw(state, &mut entry)?;
                Ok(entry[0])
            }
            Body::Zstd(reader) => reader.entry(&self.file, state).map_err(damaged_by(&self.path)),
        }
    }

    /// The value of one state, `None` for a broken slot; an error naming the file for an entry
    /// beyond the longest DTM a solver writes, which only a file altered with its checksum mended
    /// holds.
    pub fn value(&self, state: u64) -> Result<Option<Value>> {
        match self.entry(state)? {
            entry if entry > MAX_DTM + 1 && entry != BROKEN => Err(damaged(
                &self.path,
                format_args!("state {state} holds {entry:#06x}, beyond the longest DTM, {MAX_DTM} plies"),
            )),
            entry => Ok(Value::from_entry(entry)),
        }
    }

    /// Fails when the header is another table's than the file's place in `dir` names (a file
    /// renamed or copied under another name), saying which table it holds.
    pub fn check_place(&self, dir: &Path) -> Result<()> {
        let h = &self.header;
        let rules = h.rules.iter().map(|(k, v)| (k.as_str(), v.as_str()));
        let place = path_of(dir, h.game, &h.material, rules);
        if place != self.path {
            let under = match h.rules.is_empty() {
                true => String::new(),
                false => format!(" under {}", h.rules_text()),
            };
            bail!(
                "holds the {} table {}{under}: move it to its place, {}, or {REBUILD}",
                h.game,
                h.material,
                place.display()
            );
        }
        Ok(())
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.len
    }

    /// Every entry in memory (2 bytes a state), all verified.
    pub fn load(self) -> Result<LoadedTable> {
        Ok(self.load_with_rulings()?.0)
    }

    /// [`Table::load`], with the rulings that the rulings file beside the table holds (read once
    /// to verify them and kept, for a reader that needs them: an audit).
    pub fn load_with_rulings(self) -> Result<(LoadedTable, Vec<Ruling>)> {
        let states = usize::try_from(self.header.states())
            .with_context(|| format!("table {} does not fit in this machine's memory", self.path.display()))?;
        memory::ensure_available(
            self.header.states() * size_of::<Entry>() as u64,
            &format!("loading table {}", self.path.display()),
        )?;
        let mut entries = memory::try_filled_vec(states, 0)
            .with_context(|| format!("not enough memory to load table {}", self.path.display()))?;
        match &self.body {
            Body::Raw { verified } => {
                let blocks = self.blocks();
                entries
                    .par_chunks_mut(blocks.block_entries as usize)
                    .enumerate()
                    .try_for_each(|(block, out)| self.read_raw(blocks.states_of(block as u64).start, out))?;
                if !verified && checksum(&entries) != self.header.checksum {
                    return Err(damaged(&self.path, "corrupt (checksum mismatch)"));
                }
            }
            Body::Zstd(reader) => reader
                .decompress_all(&self.file, &mut entries, self.header.checksum)
                .map_err(damaged_by(&self.path))?,
        }
        let rulings = rulings::of(&self.path, &self.header)?;
        let table = LoadedTable {
            header: self.header,
            path: self.path,
            entries: Resident::Owned(entries),
            damage_reached: AtomicBool::new(false),
        };
        Ok((table, rulings))
    }

    /// The table verified and kept on disk, as [`LoadedTable::open_on_disk`] loads it.
    pub fn load_on_disk(self) -> Result<LoadedTable> {
        self.verify()?;
        let blocks = self.blocks();
        Ok(LoadedTable {
            header: self.header,
            path: self.path,
            entries: Resident::OnDisk {
                file: self.file,
                body: self.body,
                blocks,
                id: cache::next_table_id(),
            },
            damage_reached: AtomicBool::new(false),
        })
    }
}

/// Reads the raw entries of a raw table file from state `first` on into `out`.
fn read_raw(file: &File, first: u64, out: &mut [Entry]) -> Result<()> {
    let start = HEADER_BYTES as u64 + 2 * first;
    let bytes = blocks::read_at(file, start..start + 2 * out.len() as u64)?;
    out.copy_from_slice(bytemuck::cast_slice(&bytes));
    Ok(())
}

impl Body {
    /// Reads block `block` of `blocks` from `file` into `out` (exactly its length), a
    /// compressed one decompressed and checked against its CRC.
    fn read_block(&self, file: &File, blocks: Blocks, block: u64, out: &mut [Entry]) -> Result<()> {
        match self {
            Body::Raw { .. } => read_raw(file, blocks.states_of(block).start, out),
            Body::Zstd(reader) => reader.decompress_into(file, block, out),
        }
    }
}

/// Where a loaded table's entries are.
enum Resident {
    /// Every entry in memory.
    Owned(Vec<Entry>),
    /// A large table, every block verified, kept on disk: each thread reads the blocks it needs
    /// (a compressed table's decompressed) into its own small cache, under the table's `id`
    /// (see [`cache::thread_entry`]). The file is read, not mapped: its pages stay in the page
    /// cache instead of counting as this process's memory.
    OnDisk {
        file: File,
        body: Body,
        blocks: Blocks,
        id: u64,
    },
}

/// A table with every entry at hand and verified: what the solvers read exits from.
pub struct LoadedTable {
    /// The header read from the file.
    pub header: Header,
    /// The file's path.
    pub path: PathBuf,
    entries: Resident,
    /// Whether a solve reached an entry no solver writes there ([`LoadedTable::reached_value`]).
    damage_reached: AtomicBool,
}

impl LoadedTable {
    /// Opens a table, checks its header against what the caller expects, and loads and verifies
    /// every entry.
    pub fn open(path: &Path, expect: &Header) -> Result<LoadedTable> {
        let table = Table::open_unchecked(path)?;
        table.check_header(expect)?;
        table.load()
    }

    /// Opens a table as [`LoadedTable::open`] does, but keeps it on disk (verified now, read a
    /// block at a time as threads need it): for large tables whose entries would take more
    /// memory than their reads are worth.
    pub fn open_on_disk(path: &Path, expect: &Header) -> Result<LoadedTable> {
        let table = Table::open_unchecked(path)?;
        table.check_header(expect)?;
        table.load_on_disk()
    }

    /// A table just solved and written with `header`, kept in memory as it is instead of being
    /// read back.
    pub fn solved(path: &Path, header: Header, entries: Vec<Entry>) -> LoadedTable {
        LoadedTable {
            header,
            path: path.to_path_buf(),
            entries: Resident::Owned(entries),
            damage_reached: AtomicBool::new(false),
        }
    }

    /// Whether every entry is in memory, rather than read from disk.
    pub fn is_whole(&self) -> bool {
        matches!(self.entries, Resident::Owned(_))
    }

    /// All entries (a table kept on disk is read whole for the call).
    #[inline]
    pub fn entries(&self) -> Cow<'_, [Entry]> {
        match &self.entries {
            Resident::Owned(entries) => Cow::Borrowed(entries),
            Resident::OnDisk { file, body, blocks, .. } => {
                let mut entries = vec![0; self.header.states() as usize];
                entries
                    .par_chunks_mut(blocks.block_entries as usize)
                    .enumerate()
                    .for_each(|(block, out)| read_verified(&self.path, file, body, *blocks, block as u64, out));
                Cow::Owned(entries)
            }
        }
    }

    /// The entry of one state.
    ///
    /// # Panics
    /// If `state` is outside the table, or if a table kept on disk was changed in place after
    /// it was verified (tables are replaced by renaming, so only another program does that):
    /// the solvers read entries in their innermost loops, where a `Result` would cost.
    #[inline]
    pub fn entry(&self, state: u64) -> Entry {
        // Loading checked that the state count fits in usize.
        match &self.entries {
            Resident::Owned(entries) => entries[state as usize],
            Resident::OnDisk { file, body, blocks, id } => {
                let (block, at) = blocks.locate(state);
                let len = blocks.len_of(block);
                cache::thread_entry(*id, block, at, len, |out| {
                    read_verified(&self.path, file, body, *blocks, block, out)
                })
            }
        }
    }

    /// The value of one state, `None` for a broken slot; panics as [`LoadedTable::entry`] does.
    pub fn value(&self, state: u64) -> Option<Value> {
        Value::from_entry(self.entry(state))
    }

    /// The value of a legal position that a move of the table being solved reaches, read in the
    /// solvers' innermost loops. An entry that no solver writes there (a broken slot, or a DTM
    /// beyond [`MAX_REACHED_DTM`]) is one that only a file altered with its checksum mended
    /// holds: it is noted and read as a draw, so that the solve goes on and then fails naming
    /// the file ([`LoadedTable::check_reached`]) instead of stopping the program.
    #[inline]
    pub fn reached_value(&self, state: u64) -> Value {
        match self.entry(state) {
            DRAW => Value::Draw,
            entry if entry <= MAX_REACHED_DTM + 1 => Value::of_dtm(entry - 1),
            _ => self.note_damage_reached(),
        }
    }

    /// Notes that a solve reached what no solver writes, and reads it as a draw (out of line:
    /// a file that loads holds it only when altered).
    #[cold]
    #[inline(never)]
    fn note_damage_reached(&self) -> Value {
        self.damage_reached.store(true, Ordering::Relaxed);
        Value::Draw
    }

    /// Fails, naming the file, when a solve reached an entry that no solver writes there.
    pub fn check_reached(&self) -> Result<()> {
        match self.damage_reached.load(Ordering::Relaxed) {
            true => Err(self.unwritten_reached()),
            false => Ok(()),
        }
    }

    /// Fails, naming the file, when an entry is a DTM beyond [`MAX_REACHED_DTM`], which no solver
    /// writes: how a solve that read the entries raw (the GPU's) finds the file it met damage in.
    /// A legal position marked broken is told only by its moves.
    pub fn check_dtms(&self) -> Result<()> {
        let beyond = |entries: &[Entry]| entries.iter().any(|&e| e != BROKEN && e > MAX_REACHED_DTM + 1);
        // A table kept on disk is read a block at a time, not whole.
        let damaged = match &self.entries {
            Resident::Owned(entries) => beyond(entries),
            Resident::OnDisk { file, body, blocks, .. } => (0..blocks.count())
                .into_par_iter()
                .map_init(
                    || vec![0; blocks.block_entries as usize],
                    |buffer, block| {
                        let out = &mut buffer[..blocks.len_of(block)];
                        read_verified(&self.path, file, body, *blocks, block, out);
                        beyond(out)
                    },
                )
                .any(|found| found),
        };
        match damaged {
            true => Err(self.unwritten_reached()),
            false => Ok(()),
        }
    }

    fn unwritten_reached(&self) -> anyhow::Error {
        damaged(
            &self.path,
            format_args!(
                "a position that a move reaches holds what no solver writes there (a legal \
                 position marked as none, or a DTM over {MAX_REACHED_DTM} plies)"
            ),
        )
    }
}

/// [`Table::map_reduce`] over entries in memory: `map` gets runs of them, as long as a compressed
/// table's blocks, with the state of their first, in parallel.
pub fn map_reduce_entries<T: Send>(
    entries: &[Entry],
    map: impl Fn(u64, &[Entry]) -> T + Sync + Send,
    identity: impl Fn() -> T + Sync + Send,
    reduce: impl Fn(T, T) -> T + Sync + Send,
) -> T {
    let run = BLOCK_ENTRIES as usize;
    entries
        .par_chunks(run)
        .enumerate()
        .map(|(i, chunk)| map((i * run) as u64, chunk))
        .reduce(identity, reduce)
}

/// Reads a block of the table at `path`, whose every block was verified when it was loaded:
/// tables are replaced only by renaming, never modified in place, so it reads (and decompresses)
/// again, and a failure means that another program changed the file under the solve.
fn read_verified(path: &Path, file: &File, body: &Body, blocks: Blocks, block: u64, out: &mut [Entry]) {
    if let Err(e) = body.read_block(file, blocks, block, out) {
        panic!(
            "table {} can no longer be read, was it changed while in use? {e:#}",
            path.display()
        );
    }
}

/// The loaded tables of one game and rule set, by canonical material.
#[derive(Default)]
pub struct TableSet {
    tables: HashMap<Material, LoadedTable>,
}

impl TableSet {
    /// Keeps `table` as the table of `material`, replacing any other.
    pub fn insert(&mut self, material: Material, table: LoadedTable) {
        self.tables.insert(material, table);
    }

    /// The table of `material`, if loaded.
    pub fn get(&self, material: &Material) -> Option<&LoadedTable> {
        self.tables.get(material)
    }

    /// The table of a canonical material, which must have been solved already.
    pub fn require(&self, material: &Material) -> Result<&LoadedTable> {
        self.get(material)
            .with_context(|| format!("table {material} is not loaded"))
    }

    /// Keeps only the tables of the given materials.
    pub fn retain(&mut self, keep: &[Material]) {
        self.tables.retain(|m, _| keep.contains(m));
    }

    /// Unloads every table.
    pub fn clear(&mut self) {
        self.tables.clear();
    }
}

#[cfg(test)]
mod tests;
