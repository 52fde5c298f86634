//! Reading values out of solved tables: a position's value, every move's outcome, the best line.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock, RwLock};

use anyhow::{Result, bail};

use crate::Error;
use crate::games::ending::{Ending, ending};
use crate::games::{Game, IndexSpace};
use crate::generate::{generate_command, open_table, table_path};
use crate::material::{Material, Side};
use crate::rulings::{self, Ruling, rulings_path};
use crate::table::{Table, damaged};
use crate::value::Value;

/// A material's index space, its open table and the rulings beside it.
pub struct OpenTable<G: Game> {
    /// The material's index space.
    pub index: G::Index,
    /// Its table.
    pub table: Table,
    /// The rulings file, read and checked against the table's seal when first needed.
    rulings: OnceLock<Vec<Ruling>>,
}

impl<G: Game> OpenTable<G> {
    /// The existing table of a canonical material in `dir`; a table whose rulings file is
    /// missing is refused at once.
    fn open(dir: &Path, material: &Material, rules: G::Rules) -> Result<OpenTable<G>> {
        let (index, table) = open_table::<G>(dir, material, rules)?;
        rulings::check_present(&table.path, &table.header)?;
        Ok(OpenTable {
            index,
            table,
            rulings: OnceLock::new(),
        })
    }

    /// The table's rulings (none for most tables), read once for every prober sharing it.
    pub fn rulings(&self) -> Result<&[Ruling]> {
        if self.rulings.get().is_none() {
            // Two threads may both read the file; the first to finish keeps its copy.
            let _ = self.rulings.set(rulings::of(&self.table.path, &self.table.header)?);
        }
        Ok(self.rulings.get().expect("the rulings were just set"))
    }
}

/// The tables of one game in a folder, opened (headers read and verified) once and shared by
/// every prober on any thread: a server answers each request with its own [`Prober`] over one
/// cache. Each request looks at the file again: a missing table is looked for, and a table whose
/// file changed (generated again, converted, copied over) is opened again, so a running server
/// answers from the tables as they are on disk.
pub struct TableCache<G: Game> {
    dir: PathBuf,
    open: RwLock<HashMap<PathBuf, Opened<G>>>,
}

/// A table opened from one version of its file.
struct Opened<G: Game> {
    stamp: FileStamp,
    table: Arc<OpenTable<G>>,
}

/// What tells one version of a file from another: a file renamed over it or written in place
/// changes at least one of these.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileStamp {
    device: u64,
    inode: u64,
    len: u64,
    modified: (i64, i64),
}

impl FileStamp {
    /// The stamp of the file at `path`, `None` when there is none.
    fn of(path: &Path) -> Option<FileStamp> {
        let meta = std::fs::metadata(path).ok()?;
        Some(FileStamp {
            device: meta.dev(),
            inode: meta.ino(),
            len: meta.len(),
            modified: (meta.mtime(), meta.mtime_nsec()),
        })
    }
}

impl<G: Game> TableCache<G> {
    /// A cache of the tables in `dir`, none opened yet.
    pub fn new(dir: &Path) -> Self {
        TableCache {
            dir: dir.to_path_buf(),
            open: RwLock::new(HashMap::new()),
        }
    }

    /// The table of a canonical material under `rules`, opened on first use and again when its
    /// file has changed since.
    pub fn get(&self, material: &Material, rules: G::Rules) -> Result<Arc<OpenTable<G>>> {
        let path = table_path::<G>(&self.dir, material, rules);
        let stamp = FileStamp::of(&path);
        if let Some(opened) = self.open.read().unwrap_or_else(|e| e.into_inner()).get(&path)
            && Some(opened.stamp) == stamp
        {
            return Ok(Arc::clone(&opened.table));
        }
        let table = Arc::new(OpenTable::open(&self.dir, material, rules)?);
        if let Some(stamp) = stamp {
            let mut open = self.open.write().unwrap_or_else(|e| e.into_inner());
            let opened = Opened {
                stamp,
                table: Arc::clone(&table),
            };
            open.insert(path, opened);
        }
        Ok(table)
    }
}

/// Opens the tables of one game and rule set on demand and reads positions' values.
pub struct Prober<G: Game> {
    rules: G::Rules,
    cache: Arc<TableCache<G>>,
    open: HashMap<Material, Arc<OpenTable<G>>>,
}

/// The ruling a result rests on: the position where the losing side can only continue a
/// forbidden perpetual, who loses there, and the ruling.
#[derive(Clone, Debug)]
pub struct RuledEnd<P> {
    /// The position where the ruling applies.
    pub position: P,
    /// The side to move there, who loses.
    pub loser: Side,
    /// The ruling of that position.
    pub ruling: Ruling,
}

/// How the game ended at `at` (a probed position, or the end of its best line) as a JSON key:
/// `ruling` where the ruling its result rests on ends it, else [`Ending::key`], or `None` while
/// the game goes on.
pub fn ending_key<G: Game>(
    ruled: Option<&RuledEnd<G::Position>>,
    at: &G::Position,
    rules: G::Rules,
) -> Option<&'static str> {
    match ruled {
        Some(end) if end.position == *at => Some("ruling"),
        _ => ending::<G>(at, rules).map(Ending::key),
    }
}

/// A legal move with what it leads to, from the mover's point of view.
#[derive(Clone, Debug)]
pub struct MoveValue<M> {
    /// The move.
    pub mv: M,
    /// The readable notation (SAN, WXF, coordinates).
    pub name: String,
    /// The coordinate notation (UCI, ICCS, coordinates).
    pub coords: String,
    /// The mover's value when playing this move (1 + the child's DTM, outcome reversed).
    pub value: Value,
}

impl<M> MoveValue<M> {
    /// The coordinates where they say more than the name; empty where the name is the
    /// coordinates (dark chess).
    pub fn other_coords(&self) -> &str {
        if self.coords == self.name { "" } else { &self.coords }
    }

    /// The name, with the coordinates in brackets where they differ: `Ra5+ (a1a5)`, `b2b3`.
    pub fn label(&self) -> String {
        match self.other_coords() {
            "" => self.name.clone(),
            coords => format!("{} ({coords})", self.name),
        }
    }
}

impl<G: Game> Prober<G> {
    /// A prober over the tables in `dir`, with a cache of its own.
    pub fn new(dir: &Path, rules: G::Rules) -> Self {
        Prober::shared(Arc::new(TableCache::new(dir)), rules)
    }

    /// A prober reading through a cache of tables shared with other probers.
    pub fn shared(cache: Arc<TableCache<G>>, rules: G::Rules) -> Self {
        Prober {
            rules,
            cache,
            open: HashMap::new(),
        }
    }

    /// The rules the prober reads tables of.
    pub fn rules(&self) -> G::Rules {
        self.rules
    }

    fn table(&mut self, material: &Material) -> Result<&OpenTable<G>> {
        if !self.open.contains_key(material) {
            let opened = self.cache.get(material, self.rules)?;
            self.open.insert(*material, opened);
        }
        Ok(&*self.open[material])
    }

    /// A random legal position of the canonical `material` with `side` to move whose value
    /// `wanted` accepts (for example every win), or `None` when the table holds none; a position
    /// where the game goes on, to be played (not mated, stalemated or lost by a ruling). `seed`
    /// chooses it: a slot drawn at random until one matches, every slot equally likely; for a
    /// value so rare that a few hundred draws miss it, the first match after a random slot.
    pub fn random_position(
        &mut self,
        material: &Material,
        side: Side,
        wanted: impl Fn(Value) -> bool,
        seed: u64,
    ) -> Result<Option<G::Position>> {
        /// Random slots drawn before looking through the slots in order.
        const DRAWS: u32 = 512;
        let rules = self.rules;
        let OpenTable { index, table, .. } = self.table(material)?;
        let slots = index.per_side();
        let mut random = SplitMix64(seed);
        let matching = |slot: u64| -> Result<Option<G::Position>> {
            let state = index.state(side, slot);
            Ok(match table.value(state)? {
                Some(value) if wanted(value) && value != Value::LOST => {
                    index.decode(state).filter(|p| G::game_over(p, rules).is_none())
                }
                _ => None,
            })
        };
        for _ in 0..DRAWS {
            if let Some(position) = matching(random.next() % slots)? {
                return Ok(Some(position));
            }
        }
        let start = random.next() % slots;
        for step in 0..slots {
            if let Some(position) = matching((start + step) % slots)? {
                return Ok(Some(position));
            }
        }
        Ok(None)
    }

    /// The value of a position for the side to move; a position that is not legal (one built
    /// in code, say) is an [`Error::IllegalPosition`].
    pub fn value(&mut self, position: &G::Position) -> Result<Value> {
        G::check_position(position)?;
        self.value_of(position)
    }

    /// [`Prober::value`] of a position known to be legal.
    fn value_of(&mut self, position: &G::Position) -> Result<Value> {
        if let Some(value) = G::game_over(position, self.rules) {
            return Ok(value);
        }
        let (material, position) = G::oriented(position);
        let OpenTable { index, table, .. } = self.table(&material)?;
        let state = index.locate(&position);
        match table.value(state)? {
            Some(value) => Ok(value),
            None => bail!(
                "table {} marks this legal position as broken (slot {state})",
                table.path.display()
            ),
        }
    }

    /// The ruling that decided a position itself (it is lost at DTM 0 although it has legal
    /// moves), read from the rulings file beside its table.
    pub fn ruling(&mut self, position: &G::Position) -> Result<Option<Ruling>> {
        G::check_position(position)?;
        if G::game_over(position, self.rules).is_some() || self.value_of(position)? != Value::LOST {
            return Ok(None);
        }
        let (material, position) = G::oriented(position);
        let open = self.table(&material)?;
        let state = open.index.locate(&position);
        let table_path = &open.table.path;
        match rulings::find(open.rulings()?, state) {
            Some(ruling) => Ok(Some(ruling)),
            None => Err(damaged(
                table_path,
                format_args!(
                    "its rulings file {} has no ruling for a lost position with legal moves",
                    rulings_path(table_path).display()
                ),
            )),
        }
    }

    /// The ruling that the best-play line from a position ends in, when its result rests on one.
    pub fn ruled_end(&mut self, position: &G::Position) -> Result<Option<RuledEnd<G::Position>>> {
        if !G::may_rule(&G::material_of(position), self.rules) {
            return Ok(None);
        }
        let line = self.line(position)?;
        self.ruled_end_of_line(position, &line)
    }

    /// [`Prober::ruled_end`] for a caller that holds the position's best-play line already
    /// ([`Prober::line`]): the line is not played a second time.
    pub fn ruled_end_of_line(
        &mut self,
        position: &G::Position,
        line: &[(MoveValue<G::Move>, Value)],
    ) -> Result<Option<RuledEnd<G::Position>>> {
        if !G::may_rule(&G::material_of(position), self.rules) {
            return Ok(None);
        }
        let end = line
            .iter()
            .fold(position.clone(), |at, (step, _)| G::play(&at, step.mv));
        Ok(self.ruling(&end)?.map(|ruling| RuledEnd {
            loser: G::side_to_move(&end),
            position: end,
            ruling,
        }))
    }

    /// Every legal move with its value for the mover, best first (quickest win, then draws,
    /// then the slowest loss); ties keep the game's move order.
    pub fn moves(&mut self, position: &G::Position) -> Result<Vec<MoveValue<G::Move>>> {
        G::check_position(position)?;
        self.moves_of(position).map_err(|e| self.needed_by(e, position))
    }

    /// [`Prober::moves`] of a position known to be legal.
    fn moves_of(&mut self, position: &G::Position) -> Result<Vec<MoveValue<G::Move>>> {
        let mut moves = Vec::new();
        for mv in G::legal_moves(position, self.rules) {
            let child = G::play(position, mv);
            let (name, coords) = G::move_names(position, mv);
            let value = Value::parent_of(self.value_of(&child)?);
            moves.push(MoveValue {
                mv,
                name,
                coords,
                value,
            });
        }
        moves.sort_by_key(|m| std::cmp::Reverse(m.value.preference()));
        Ok(moves)
    }

    /// A table of another material missing for play from `position` (its moves, or its best
    /// line): the error names the position's material too, and the command that builds it with
    /// every table it reads (rather than one missing table after another).
    fn needed_by(&self, error: anyhow::Error, position: &G::Position) -> anyhow::Error {
        let (root, _) = G::oriented(position);
        match error.downcast::<Error>() {
            Ok(Error::MissingTable {
                material,
                path,
                needed_by: None,
                ..
            }) if material != root => Error::MissingTable {
                material,
                path,
                command: generate_command::<G>(&self.cache.dir, &root, self.rules),
                needed_by: Some(root),
            }
            .into(),
            Ok(other) => other.into(),
            Err(error) => error,
        }
    }

    /// The best-play line from a decisive position to the end of the game: the winner takes the
    /// quickest win, the loser the slowest loss. Each step is the move and the value of the
    /// position it leaves, for the side then to move. Empty for a draw or a finished game.
    pub fn line(&mut self, position: &G::Position) -> Result<Vec<(MoveValue<G::Move>, Value)>> {
        G::check_position(position)?;
        self.line_of(position).map_err(|e| self.needed_by(e, position))
    }

    /// [`Prober::line`] of a position known to be legal.
    fn line_of(&mut self, position: &G::Position) -> Result<Vec<(MoveValue<G::Move>, Value)>> {
        let mut line = Vec::new();
        let mut position = position.clone();
        let mut value = self.value_of(&position)?;
        while value.dtm().is_some_and(|d| d > 0) {
            let Some(best) = self.moves_of(&position)?.into_iter().next() else {
                break;
            };
            if best.value != value {
                bail!(
                    "table inconsistency: best move {} gives {} but the position is {value}",
                    best.name,
                    best.value
                );
            }
            position = G::play(&position, best.mv);
            value = self.value_of(&position)?;
            line.push((best, value));
        }
        Ok(line)
    }
}

/// The SplitMix64 sequence: fast, well mixed random numbers from any seed, for choosing
/// positions (nothing here needs a cryptographic generator).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::games::xiangqi::Xiangqi;
    use crate::generate::expected_header;
    use crate::material::GameId;
    use crate::table::synthetic::write_uniform_blocks;
    use crate::table::{Encoding, Header};

    /// Writes a synthetic compressed xiangqi table into a fresh folder `dir`, blocks of
    /// `block_entries` states each holding one value, `value(block)`; returns the material and
    /// its index.
    fn synthetic_table(
        dir: &Path,
        material: &str,
        block_entries: u32,
        value: impl Fn(u64) -> Value,
    ) -> (Material, <Xiangqi as Game>::Index) {
        let _ = std::fs::remove_dir_all(dir);
        let rules = Default::default();
        let material = Material::parse(GameId::Xiangqi, material).unwrap();
        let index = Xiangqi::index(&material, rules).unwrap();
        let header = Header {
            encoding: Encoding::zstd(block_entries),
            ..expected_header::<Xiangqi>(&material, rules, &index)
        };
        let path = table_path::<Xiangqi>(dir, &material, rules);
        write_uniform_blocks(&path, header, |block| value(block).entry());
        (material, index)
    }

    /// What the prober says of `position`, which must be refused as illegal before any table is
    /// looked for (the folder has none).
    fn refused<G: Game>(position: &G::Position) -> String {
        let mut prober = Prober::<G>::new(Path::new("/nonexistent"), Default::default());
        assert!(prober.moves(position).is_err() && prober.line(position).is_err());
        assert!(prober.ruling(position).is_err());
        let err = prober.value(position).unwrap_err();
        assert!(
            matches!(err.downcast_ref(), Some(Error::IllegalPosition { .. })),
            "{err:#}"
        );
        format!("{err:#}")
    }

    #[test]
    fn positions_built_in_code_are_checked_as_parsed_ones_are() {
        use crate::games::chess::Chess;
        use crate::games::darkchess::DarkChess;
        use crate::games::xiangqi::{Kind, Piece};
        let rook = Xiangqi::parse_position("3k5/9/9/9/9/9/9/9/9/4K3R w").unwrap();
        let mut rooks = rook.clone();
        for square in 9..15 {
            rooks.cells[square] = Some(Piece {
                side: Side::First,
                kind: Kind::Rook,
            });
        }
        assert!(refused::<Xiangqi>(&rooks).contains("at most 2 rooks"));
        let mut empty = rook.clone();
        empty.cells = [None; 90];
        assert!(refused::<Xiangqi>(&empty).contains("exactly one king"));
        let mut advisor = rook;
        advisor.cells[40] = Some(Piece {
            side: Side::First,
            kind: Kind::Advisor,
        });
        assert!(refused::<Xiangqi>(&advisor).contains("cannot stand on"));

        let mut stacked = DarkChess::parse_position("k7/8/8/6PK w").unwrap();
        stacked.board.masks[0][0] |= stacked.board.masks[1][0];
        assert!(refused::<DarkChess>(&stacked).contains("two pieces stand on a4"));

        let kings = Chess::parse_position("4k3/8/8/8/4P3/8/8/4K3 b").unwrap();
        assert!(refused::<Chess>(&kings.with_en_passant(63)).contains("en passant"));
    }

    #[test]
    fn random_positions_are_found_however_rare() {
        // A synthetic table whose states are all won but for one block of 1,024 lost ones: a few
        // hundred random draws almost always miss it, and the search goes on slot by slot.
        let dir = std::env::temp_dir().join(format!("egtb-probe-random-{}", std::process::id()));
        let block_entries: u32 = 1 << 10;
        let (won, lost) = (Value::Win(1), Value::Loss(2));
        // Block 100 (states 102,400 to 103,423) lies in the first side's half.
        let rare = 100;
        let (material, index) = synthetic_table(
            &dir,
            "KRCvK",
            block_entries,
            |block| if block == rare { lost } else { won },
        );
        assert!(index.per_side() > (rare + 1) * u64::from(block_entries));
        let mut prober = Prober::<Xiangqi>::new(&dir, Default::default());
        for seed in 0..4 {
            let found = prober.random_position(&material, Side::First, |v| v == lost, seed);
            let state = index.locate(&found.unwrap().expect("the block holds legal positions"));
            assert_eq!(state / u64::from(block_entries), rare, "seed {seed}");
            let found = prober.random_position(&material, Side::Second, |v| v == won, seed);
            let state = index.locate(&found.unwrap().expect("won positions abound"));
            assert_eq!(index.side_to_move(state), Side::Second, "seed {seed}");
        }
        let none = prober.random_position(&material, Side::Second, |v| v == lost, 0);
        assert!(none.unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn tables_changed_on_disk_are_read_as_they_are_now_and_never_crash_a_reader() {
        let dir = std::env::temp_dir().join(format!("egtb-probe-changed-{}", std::process::id()));
        let (won, lost) = (Value::Win(1), Value::Loss(2));
        let block_entries: u32 = 1 << 10;
        let (material, index) = synthetic_table(&dir, "KRvK", block_entries, |_| won);
        let rules = Default::default();
        let path = table_path::<Xiangqi>(&dir, &material, rules);
        let won_bytes = std::fs::read(&path).unwrap();
        synthetic_table(&dir, "KRvK", block_entries, |_| lost);
        let lost_bytes = std::fs::read(&path).unwrap();
        let cache = Arc::new(TableCache::<Xiangqi>::new(&dir));
        // A position in the first block, and one half the table away.
        let far = index.per_side() - 1;
        let [near, far] = [0, far].map(|from| {
            (from..index.states())
                .filter_map(|state| index.decode(state))
                .find(|p| Xiangqi::game_over(p, rules).is_none())
                .expect("a legal position")
        });
        let value_now = |position| Prober::shared(Arc::clone(&cache), rules).value(position);
        assert_eq!(value_now(&near).unwrap(), lost);
        // Written in place, then renamed over: each request reads the file as it is now.
        std::fs::write(&path, &won_bytes).unwrap();
        assert_eq!(value_now(&near).unwrap(), won);
        let replacement = dir.join("replacement");
        std::fs::write(&replacement, &lost_bytes).unwrap();
        std::fs::rename(&replacement, &path).unwrap();
        assert_eq!(value_now(&near).unwrap(), lost);
        // Truncated in place under a prober that holds it open: an error, not a bus error.
        let mut holder = Prober::shared(Arc::clone(&cache), rules);
        assert_eq!(holder.value(&near).unwrap(), lost);
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .set_len(lost_bytes.len() as u64 / 2)
            .unwrap();
        let err = format!("{:#}", holder.value(&far).unwrap_err());
        assert!(err.contains("is damaged") && err.contains("truncated"), "{err}");
        let err = format!("{:#}", value_now(&near).unwrap_err());
        assert!(err.contains("is damaged") && err.contains("truncated"), "{err}");
        std::fs::write(&path, &won_bytes).unwrap();
        assert_eq!(value_now(&far).unwrap(), won);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn probes_reach_states_beyond_u32() {
        // KRCvKRC has about 7.1 billion states. A synthetic compressed table: the blocks from
        // state 2^32 on hold a loss, the others a win, so a probe that wrapped its state number
        // would read the wrong value.
        let dir = std::env::temp_dir().join(format!("egtb-probe-big-{}", std::process::id()));
        let block_entries: u32 = 1 << 24;
        let far_from = (1u64 << 32) / u64::from(block_entries);
        let (near, far) = (Value::Win(3), Value::Loss(4));
        let (_, index) = synthetic_table(&dir, "KRCvKRC", block_entries, |block| {
            if block >= far_from { far } else { near }
        });
        let states = index.states();
        assert!(states > 1 << 32);
        let rules = Default::default();
        let mut prober = Prober::<Xiangqi>::new(&dir, rules);
        let mut beyond = 0;
        for from in [1 << 31, (1 << 32) - 5000, (1 << 32) + 12_345, states / 4 * 3] {
            let position = (from..states)
                .filter_map(|state| index.decode(state))
                .find(|p| Xiangqi::game_over(p, rules).is_none())
                .expect("a legal position follows");
            let state = index.locate(&position);
            let expected = if state >= 1 << 32 { far } else { near };
            beyond += usize::from(state >= 1 << 32);
            assert_eq!(prober.value(&position).unwrap(), expected, "state {state}");
        }
        assert!(beyond >= 2, "{beyond} positions beyond 2^32");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
