//! Table files: a readable header, then the 16-bit entries, written atomically, verified on load.
//!
//! Layout: a text header of `key=value` lines padded with newlines to [`HEADER_BYTES`] (so the
//! entries are page aligned and the file can be mapped), then `states` little-endian u16 entries
//! (see [`crate::value`]). The header's checksum is the CRC-32 of the entry bytes.

use std::collections::HashMap;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};
use memmap2::Mmap;

use crate::material::{GameId, Material};
use crate::value::{Entry, Value};

#[cfg(not(target_endian = "little"))]
compile_error!("table files store little-endian entries and are mapped as they are");

/// First line of every table file.
const MAGIC: &str = "EGTB table";
/// Version of the file layout.
pub const FORMAT_VERSION: u32 = 1;
/// Bytes before the first entry.
pub const HEADER_BYTES: usize = 4096;
/// File name extension of a table.
pub const EXTENSION: &str = "egtb";

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub game: GameId,
    /// Rule options, `key=value`, in the game's fixed order.
    pub rules: Vec<(String, String)>,
    /// The canonical material name.
    pub material: String,
    /// The distance metric (`dtm`).
    pub metric: String,
    /// Version of the game's index scheme: a table built under another cannot be read.
    pub index_version: u32,
    /// Slots per side to move (first side, second side).
    pub states_per_side: [u64; 2],
    /// CRC-32 of the entry bytes.
    pub checksum: u32,
}

impl Header {
    /// Total entries.
    pub fn states(&self) -> u64 {
        self.states_per_side[0] + self.states_per_side[1]
    }

    fn render(&self) -> String {
        let rules: Vec<String> = self.rules.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let text = format!(
            "{MAGIC}\nformat={FORMAT_VERSION}\ngame={}\nrules={}\nmaterial={}\nmetric={}\nindex={}\nentry_bytes=2\nstates={},{}\nchecksum={:08x}\n",
            self.game,
            rules.join(","),
            self.material,
            self.metric,
            self.index_version,
            self.states_per_side[0],
            self.states_per_side[1],
            self.checksum,
        );
        assert!(text.len() < HEADER_BYTES, "table header too long");
        text
    }

    fn parse(bytes: &[u8]) -> Result<Header> {
        let text = std::str::from_utf8(bytes).context("header is not text")?;
        let mut lines = text.lines();
        if lines.next() != Some(MAGIC) {
            bail!("not an egtb table (bad magic)");
        }
        let fields: HashMap<&str, &str> = lines.filter_map(|l| l.split_once('=')).collect();
        let field = |key: &str| {
            fields
                .get(key)
                .copied()
                .with_context(|| format!("header lacks '{key}'"))
        };
        let format: u32 = field("format")?.parse().context("bad format version")?;
        if format != FORMAT_VERSION {
            bail!("table format version {format}, this egtb reads version {FORMAT_VERSION}");
        }
        if field("entry_bytes")? != "2" {
            bail!("unsupported entry width {}", field("entry_bytes")?);
        }
        let rules = field("rules")?;
        let rules = rules
            .split(',')
            .filter(|r| !r.is_empty())
            .map(|r| {
                r.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .context("bad rules field")
            })
            .collect::<Result<_>>()?;
        let (a, b) = field("states")?.split_once(',').context("bad states field")?;
        Ok(Header {
            game: GameId::parse(field("game")?)?,
            rules,
            material: field("material")?.to_string(),
            metric: field("metric")?.to_string(),
            index_version: field("index")?.parse().context("bad index version")?,
            states_per_side: [
                a.parse().context("bad states field")?,
                b.parse().context("bad states field")?,
            ],
            checksum: u32::from_str_radix(field("checksum")?, 16).context("bad checksum field")?,
        })
    }
}

/// Where a table lives: `<dir>/<game>/<material>[.<key>-<value>...].egtb`.
pub fn table_path(dir: &Path, game: GameId, material: &Material, rules: &[(&str, &str)]) -> PathBuf {
    let mut name = material.to_string();
    for (key, value) in rules {
        name.push_str(&format!(".{key}-{value}"));
    }
    dir.join(game.name()).join(format!("{name}.{EXTENSION}"))
}

/// CRC-32 of entries as stored.
pub fn checksum(entries: &[Entry]) -> u32 {
    crc32fast::hash(bytemuck::cast_slice(entries))
}

/// Writes a table atomically: a temporary file in the same folder, synced, then renamed, so an
/// interrupted run never leaves a file that looks whole.
pub fn write(path: &Path, mut header: Header, entries: &[Entry]) -> Result<()> {
    if header.states() != entries.len() as u64 {
        bail!(
            "table {} has {} entries, its header says {}",
            path.display(),
            entries.len(),
            header.states()
        );
    }
    header.checksum = checksum(entries);
    let dir = path.parent().context("table path has no folder")?;
    fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let tmp = path.with_extension(format!("{EXTENSION}.tmp{}", std::process::id()));
    let result = (|| -> Result<()> {
        let mut out = BufWriter::with_capacity(1 << 20, File::create(&tmp)?);
        let mut head = header.render().into_bytes();
        head.resize(HEADER_BYTES, b'\n');
        out.write_all(&head)?;
        out.write_all(bytemuck::cast_slice(entries))?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        fs::rename(&tmp, path)?;
        Ok(())
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.with_context(|| format!("cannot write table {}", path.display()))
}

/// A table file, mapped and verified.
pub struct Table {
    pub header: Header,
    pub path: PathBuf,
    map: Mmap,
}

impl Table {
    /// Opens a table, checking its header against what the caller expects and its checksum.
    pub fn open(path: &Path, expect: &Header) -> Result<Table> {
        let table = Table::open_unchecked(path)?;
        let h = &table.header;
        let mismatch = |what: &str, found: String, wanted: String| -> Result<Table> {
            bail!("table {} is for {what} {found}, expected {wanted}", path.display())
        };
        if h.game != expect.game {
            return mismatch("game", h.game.to_string(), expect.game.to_string());
        }
        if h.material != expect.material {
            return mismatch("material", h.material.clone(), expect.material.clone());
        }
        if h.rules != expect.rules {
            return mismatch("rules", format!("{:?}", h.rules), format!("{:?}", expect.rules));
        }
        if h.metric != expect.metric || h.index_version != expect.index_version {
            return mismatch(
                "index scheme",
                h.index_version.to_string(),
                expect.index_version.to_string(),
            );
        }
        if h.states_per_side != expect.states_per_side {
            bail!(
                "table {} has {} entries, its material has {}",
                path.display(),
                h.states(),
                expect.states()
            );
        }
        table.verify()?;
        Ok(table)
    }

    /// Opens and maps a table, reading only its header (for listing).
    pub fn open_unchecked(path: &Path) -> Result<Table> {
        let file = File::open(path).with_context(|| format!("cannot open table {}", path.display()))?;
        // SAFETY: tables are written once by rename and never modified in place.
        let map = unsafe { Mmap::map(&file) }.with_context(|| format!("cannot map table {}", path.display()))?;
        if map.len() < HEADER_BYTES {
            bail!("table {} is truncated (no complete header)", path.display());
        }
        let header =
            Header::parse(&map[..HEADER_BYTES]).with_context(|| format!("table {} is corrupt", path.display()))?;
        let want = HEADER_BYTES as u64 + 2 * header.states();
        if map.len() as u64 != want {
            bail!(
                "table {} is truncated or padded: {} bytes, expected {want}",
                path.display(),
                map.len()
            );
        }
        Ok(Table {
            header,
            path: path.to_path_buf(),
            map,
        })
    }

    /// Checks the entries against the header's checksum.
    pub fn verify(&self) -> Result<()> {
        if checksum(self.entries()) != self.header.checksum {
            bail!(
                "table {} is corrupt (checksum mismatch); delete it and generate it again",
                self.path.display()
            );
        }
        Ok(())
    }

    /// All entries.
    pub fn entries(&self) -> &[Entry] {
        bytemuck::cast_slice(&self.map[HEADER_BYTES..])
    }

    /// The entry of one state.
    pub fn entry(&self, state: u64) -> Entry {
        self.entries()[state as usize]
    }

    /// The value of one state, `None` for a broken slot.
    pub fn value(&self, state: u64) -> Option<Value> {
        Value::from_entry(self.entry(state))
    }

    /// Size of the file in bytes.
    pub fn file_bytes(&self) -> u64 {
        self.map.len() as u64
    }
}

/// The solved tables of one game and rule set, by canonical material.
#[derive(Default)]
pub struct TableSet {
    tables: HashMap<Material, Table>,
}

impl TableSet {
    pub fn insert(&mut self, material: Material, table: Table) {
        self.tables.insert(material, table);
    }

    pub fn get(&self, material: &Material) -> Option<&Table> {
        self.tables.get(material)
    }

    /// The table of a canonical material, which must have been solved already.
    pub fn require(&self, material: &Material) -> Result<&Table> {
        self.get(material)
            .with_context(|| format!("table {material} is not loaded"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header() -> Header {
        Header {
            game: GameId::Chess,
            rules: vec![],
            material: "KQvK".into(),
            metric: "dtm".into(),
            index_version: 1,
            states_per_side: [3, 2],
            checksum: 0,
        }
    }

    #[test]
    fn round_trips_and_detects_corruption_and_truncation() {
        let dir = std::env::temp_dir().join(format!("egtb-table-test-{}", std::process::id()));
        let path = dir.join("chess").join("KQvK.egtb");
        write(&path, header(), &[1, 2, 0, 0xFFFF, 7]).unwrap();
        let table = Table::open(&path, &header()).unwrap();
        assert_eq!(table.entries(), [1, 2, 0, 0xFFFF, 7]);
        assert_eq!(table.value(1), Some(Value::Win(1)));
        drop(table);

        let mut bytes = fs::read(&path).unwrap();
        bytes[HEADER_BYTES + 3] ^= 1;
        fs::write(&path, &bytes).unwrap();
        let err = Table::open(&path, &header()).err().unwrap().to_string();
        assert!(err.contains("corrupt"), "{err}");

        fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let err = Table::open(&path, &header()).err().unwrap().to_string();
        assert!(err.contains("truncated"), "{err}");

        let mut other = header();
        other.material = "KRvK".into();
        assert!(Table::open(&path, &other).is_err());
        fs::remove_dir_all(dir).unwrap();
    }
}
