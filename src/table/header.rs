//! The table header: a readable page of `key=value` lines that says what a file holds and how.

use std::collections::HashMap;

use anyhow::{Context, Result, bail};

pub use super::blocks::Layout;
use crate::material::GameId;

/// First line of every table file.
const MAGIC: &str = "EGTB table";
/// The latest version of the file layout: 3 marks the broken slots of a compressed block apart
/// from its entries ([`Layout::Marked`]). A file says the oldest version that reads it.
pub const FORMAT_VERSION: u32 = 3;
/// Version 1 files (raw entries, no `encoding` field) are still read.
const FIRST_FORMAT_VERSION: u32 = 1;
/// Version 2 names the encoding (raw, or zstd blocks of byte planes, [`Layout::Planes`]).
const ENCODING_FORMAT_VERSION: u32 = 2;
/// Bytes before the first entry (raw) or the block index (zstd): one page, so raw entries start
/// page aligned.
pub const HEADER_BYTES: usize = 4096;
/// Entries per compressed block: 128 KiB of entries, decompressed by one probe in about 0.1 ms.
pub const BLOCK_ENTRIES: u32 = 1 << 16;
/// Block sizes a reader accepts, so a corrupt header cannot ask for absurd buffers.
const BLOCK_ENTRIES_RANGE: std::ops::RangeInclusive<u32> = (1 << 8)..=(1 << 24);
/// The zstd levels a table may be written at.
pub const LEVELS: std::ops::RangeInclusive<i32> = 1..=22;

/// How the entries are stored after the header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Little-endian u16 entries, one per state, read as they are.
    Raw,
    /// Blocks of `block_entries` entries, each compressed apart in `layout`, found through an
    /// index; at a zstd `level` chosen by the user, or (`None`) at the level for the table's
    /// size that generation writes (3 below 2^25 states, else 7).
    Zstd {
        /// Entries per block.
        block_entries: u32,
        /// How each block's entries are arranged before compression.
        layout: Layout,
        /// The zstd level chosen, `None` for the default of the table's size.
        level: Option<i32>,
    },
}

impl Encoding {
    /// The encoding new tables are written in.
    pub const DEFAULT: Encoding = Encoding::zstd(BLOCK_ENTRIES);

    /// Compressed blocks of `block_entries` entries, in the layout new tables are written in.
    pub const fn zstd(block_entries: u32) -> Encoding {
        Encoding::Zstd {
            block_entries,
            layout: Layout::Marked,
            level: None,
        }
    }

    /// The default blocks compressed at zstd `level` (one of [`LEVELS`]): higher levels make
    /// smaller files, at more time to write them, and read back as fast.
    pub const fn zstd_at(level: i32) -> Encoding {
        Encoding::Zstd {
            block_entries: BLOCK_ENTRIES,
            layout: Layout::Marked,
            level: Some(level),
        }
    }

    /// Whether a table in this encoding is already in `wanted`, so that converting it would
    /// change nothing asked for: the same encoding, or compressed in the latest layout when
    /// `wanted` names no level (a table written at a chosen level keeps it).
    pub fn fulfils(self, wanted: Encoding) -> bool {
        match (self, wanted) {
            (
                Encoding::Zstd {
                    block_entries, layout, ..
                },
                Encoding::Zstd {
                    block_entries: wanted_entries,
                    layout: wanted_layout,
                    level: None,
                },
            ) => block_entries == wanted_entries && layout == wanted_layout,
            _ => self == wanted,
        }
    }

    /// `raw` or `zstd`, as the header names it.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Raw => "raw",
            Encoding::Zstd { .. } => "zstd",
        }
    }

    /// The name shown to users: [`Encoding::name`], `zstd-v2` for blocks of the format 2
    /// layout, which `egtb compress` rewrites, and `zstd-N` for blocks written at a chosen
    /// level N.
    pub fn label(self) -> String {
        match self {
            Encoding::Zstd {
                layout: Layout::Planes, ..
            } => "zstd-v2".into(),
            Encoding::Zstd { level: Some(level), .. } => format!("zstd-{level}"),
            _ => self.name().into(),
        }
    }
}

/// What a table says of the rulings file beside it, so that a rulings file lost or replaced is
/// found: how many rulings it holds and the CRC-32 of their lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seal {
    /// Rulings in the file (0: the table has no rulings file).
    pub count: u64,
    /// CRC-32 of the rulings' lines.
    pub checksum: u32,
}

/// A header of a format newer than this build reads: a table of a newer egtb, not a damaged one.
#[derive(Debug)]
pub struct NewerFormat(pub u32);

impl std::fmt::Display for NewerFormat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "table format version {}, this egtb reads versions {FIRST_FORMAT_VERSION} to {FORMAT_VERSION}",
            self.0
        )
    }
}

impl std::error::Error for NewerFormat {}

/// What a table file says about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The game the table is for.
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
    /// CRC-32 of the entries as little-endian bytes, whatever the encoding, so that converting a
    /// table keeps it and it always vouches for the content.
    pub checksum: u32,
    /// How the entries are stored after the header.
    pub encoding: Encoding,
    /// CRC-32 of the block index (zstd; 0 for raw), checked when the table is opened.
    pub index_checksum: u32,
    /// The seal of the rulings file beside the table, for tables built under rules that may
    /// rule on repetitions; `None` for other tables and for those written before the seal.
    pub rulings: Option<Seal>,
}

impl Header {
    /// Total entries.
    pub fn states(&self) -> u64 {
        self.states_per_side[0] + self.states_per_side[1]
    }

    /// The rule options as the header writes them: `cannon=jump,stalemate=loss`.
    pub fn rules_text(&self) -> String {
        let rules: Vec<String> = self.rules.iter().map(|(k, v)| format!("{k}={v}")).collect();
        rules.join(",")
    }

    /// The header page: the text, padded with newlines to [`HEADER_BYTES`].
    pub(super) fn render(&self) -> Vec<u8> {
        let format = match self.encoding {
            Encoding::Zstd {
                layout: Layout::Marked, ..
            } => FORMAT_VERSION,
            _ => ENCODING_FORMAT_VERSION,
        };
        let mut text = format!(
            "{MAGIC}\nformat={format}\ngame={}\nrules={}\nmaterial={}\nmetric={}\nindex={}\nentry_bytes=2\nstates={},{}\nchecksum={:08x}\nencoding={}\n",
            self.game,
            self.rules_text(),
            self.material,
            self.metric,
            self.index_version,
            self.states_per_side[0],
            self.states_per_side[1],
            self.checksum,
            self.encoding.name(),
        );
        if let Encoding::Zstd {
            block_entries, level, ..
        } = self.encoding
        {
            text.push_str(&format!(
                "block_entries={block_entries}\nindex_checksum={:08x}\n",
                self.index_checksum
            ));
            if let Some(level) = level {
                text.push_str(&format!("level={level}\n"));
            }
        }
        if let Some(Seal { count, checksum }) = self.rulings {
            text.push_str(&format!("rulings={count},{checksum:08x}\n"));
        }
        assert!(text.len() < HEADER_BYTES, "table header too long");
        let mut page = text.into_bytes();
        page.resize(HEADER_BYTES, b'\n');
        page
    }

    pub(super) fn parse(bytes: &[u8]) -> Result<Header> {
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
        if format > FORMAT_VERSION {
            return Err(NewerFormat(format).into());
        }
        if format < FIRST_FORMAT_VERSION {
            bail!("table format version {format}, this egtb reads versions {FIRST_FORMAT_VERSION} to {FORMAT_VERSION}");
        }
        if field("entry_bytes")? != "2" {
            bail!("unsupported entry width {}", field("entry_bytes")?);
        }
        let encoding = match (format, fields.get("encoding").copied()) {
            (FIRST_FORMAT_VERSION, _) | (_, Some("raw")) => Encoding::Raw,
            (_, Some("zstd")) => {
                let block_entries: u32 = field("block_entries")?.parse().context("bad block_entries field")?;
                if !BLOCK_ENTRIES_RANGE.contains(&block_entries) {
                    bail!("unsupported block size of {block_entries} entries");
                }
                let layout = if format == ENCODING_FORMAT_VERSION {
                    Layout::Planes
                } else {
                    Layout::Marked
                };
                let level = match fields.get("level") {
                    None => None,
                    Some(level) => match level.parse() {
                        Ok(level) if LEVELS.contains(&level) => Some(level),
                        _ => bail!("bad level field '{level}'"),
                    },
                };
                Encoding::Zstd {
                    block_entries,
                    layout,
                    level,
                }
            }
            (_, Some(other)) => bail!("unknown encoding '{other}'"),
            (_, None) => bail!("header lacks 'encoding'"),
        };
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
        let states_per_side: [u64; 2] = [
            a.parse().context("bad states field")?,
            b.parse().context("bad states field")?,
        ];
        // The raw layout's file length must fit in a u64.
        let total = states_per_side[0].checked_add(states_per_side[1]);
        let bytes = total.and_then(|t| t.checked_mul(2)?.checked_add(HEADER_BYTES as u64));
        if bytes.is_none() {
            bail!("bad states field (too many states)");
        }
        Ok(Header {
            game: GameId::parse(field("game")?)?,
            rules,
            material: field("material")?.to_string(),
            metric: field("metric")?.to_string(),
            index_version: field("index")?.parse().context("bad index version")?,
            states_per_side,
            checksum: u32::from_str_radix(field("checksum")?, 16).context("bad checksum field")?,
            encoding,
            index_checksum: match encoding {
                Encoding::Raw => 0,
                Encoding::Zstd { .. } => {
                    u32::from_str_radix(field("index_checksum")?, 16).context("bad index_checksum field")?
                }
            },
            rulings: match fields.get("rulings") {
                None => None,
                Some(seal) => Some(parse_seal(seal).with_context(|| format!("bad rulings field '{seal}'"))?),
            },
        })
    }
}

fn parse_seal(text: &str) -> Result<Seal> {
    let (count, checksum) = text.split_once(',').context("no comma")?;
    Ok(Seal {
        count: count.parse()?,
        checksum: u32::from_str_radix(checksum, 16)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(encoding: Encoding) -> Header {
        Header {
            game: GameId::DarkChess,
            rules: vec![("cannon".into(), "step".into()), ("stalemate".into(), "draw".into())],
            material: "KCvP".into(),
            metric: "dtm".into(),
            index_version: 3,
            states_per_side: [(1 << 32) + 5, (1 << 32) + 5],
            checksum: 0xdead_beef,
            encoding,
            index_checksum: if encoding == Encoding::Raw { 0 } else { 0x0123_4567 },
            rulings: (encoding == Encoding::DEFAULT).then_some(Seal {
                count: (1 << 32) + 7,
                checksum: 0x89ab_cdef,
            }),
        }
    }

    #[test]
    fn renders_and_parses_every_encoding_with_counts_beyond_u32() {
        let planes = Encoding::Zstd {
            block_entries: BLOCK_ENTRIES,
            layout: Layout::Planes,
            level: None,
        };
        for encoding in [Encoding::Raw, Encoding::DEFAULT, planes, Encoding::zstd_at(19)] {
            let page = header(encoding).render();
            assert_eq!(page.len(), HEADER_BYTES);
            let parsed = Header::parse(&page).unwrap();
            assert_eq!(parsed, header(encoding));
            assert_eq!(parsed.states(), (1 << 33) + 10);
        }
    }

    #[test]
    fn a_chosen_level_is_kept_and_an_unnamed_one_is_any() {
        let packed = Encoding::zstd_at(19);
        assert!(packed.fulfils(Encoding::DEFAULT));
        assert!(packed.fulfils(packed));
        assert!(!Encoding::DEFAULT.fulfils(packed));
        assert!(!packed.fulfils(Encoding::zstd_at(15)));
        assert!(!packed.fulfils(Encoding::Raw));
        assert!(!Encoding::Raw.fulfils(Encoding::DEFAULT));
        let planes = Encoding::Zstd {
            block_entries: BLOCK_ENTRIES,
            layout: Layout::Planes,
            level: Some(19),
        };
        assert!(!planes.fulfils(Encoding::DEFAULT));
        assert_eq!(packed.label(), "zstd-19");
        assert_eq!(Encoding::DEFAULT.label(), "zstd");
    }

    #[test]
    fn reads_version_one_as_raw() {
        let text = "EGTB table\nformat=1\ngame=chess\nrules=\nmaterial=KQvK\nmetric=dtm\nindex=1\nentry_bytes=2\nstates=3,3\nchecksum=0000000a\n";
        let parsed = Header::parse(text.as_bytes()).unwrap();
        assert_eq!(parsed.encoding, Encoding::Raw);
        assert_eq!(parsed.states(), 6);
        assert_eq!(parsed.checksum, 10);
    }

    #[test]
    fn rejects_bad_fields_with_a_reason() {
        let good = String::from_utf8(header(Encoding::DEFAULT).render()).unwrap();
        for (from, to, reason) in [
            ("format=3", "format=9", "format version 9"),
            ("encoding=zstd", "encoding=lzma", "unknown encoding"),
            ("block_entries=65536", "block_entries=3", "block size"),
            ("states=4294967301,", "states=18446744073709551615,", "too many states"),
            ("checksum=deadbeef", "checksum=xyz", "checksum"),
            ("index_checksum=01234567", "index_checksum=", "index_checksum"),
            ("index_checksum=01234567", "index_checksum=01234567\nlevel=23", "level"),
        ] {
            let bad = good.replace(from, to);
            let err = format!("{:#}", Header::parse(bad.as_bytes()).unwrap_err());
            assert!(err.contains(reason), "{from}: {err}");
        }
    }
}
