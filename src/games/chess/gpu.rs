//! Chess on the GPU: the data and prelude of `shaders/games/chess.wgsl`, the WGSL twin of
//! [`super::index`], [`super::moves`] and [`super::space`].
//!
//! Three u32 buffers, all computed here from the Rust tables:
//! - `chess_geo`: [`Geometry::gpu_words`] as it is, then `beyond[a][b]` (the squares behind `b`
//!   seen from `a` along their common line), which stops a slider at its blockers, then the
//!   pawn attacks of each side;
//! - `chess_tables`: the [`IndexTables`] concatenated (king pairs, `king_canonical`, the unrank
//!   tables of one, two and three men, then the king pairs and `pawn_king_canonical` of
//!   materials with pawns);
//! - `chess_exits`: the entries of every distinct smaller table, two per word; split data (see
//!   [`GpuRules::split_data`]), since the promotions of a 5-piece pawn table reach 5-piece tables
//!   of hundreds of megabytes together, more than a binding holds on many devices.
//!
//! The generated prelude specialises the shader to one material: the men's sides and kinds, this
//! table's index descriptor, its en passant layout and every exit of a capture, a promotion or
//! both (with its smaller table's descriptor) are WGSL constants, so that every loop over the men
//! has a constant trip count, the compiler unrolls it and keeps placements in registers, and a
//! capture reads nothing but the smaller table's entry. Every offset into the buffers is a
//! constant of the prelude too, so the layouts are written down once, here.

use std::borrow::Cow;
use std::fmt::Write;

use anyhow::{Result, bail};

use super::board::{
    DIAGONAL, Geometry, Kind, MAX_MEN, MIRROR, Men, PAWN_SQUARES, RANK_MIRROR, SYMMETRIES, TRANSPOSE, geometry,
};
use super::index::{ChessIndex, Group, IndexTables, index_tables};
use super::space::exit_route;
use crate::games::exit_entries::ExitEntries;
use crate::games::{IndexSpace, check_gpu_states};
use crate::material::{Material, Side};
use crate::solver::gpu::{GpuData, GpuRules};
use crate::table::TableSet;

/// The chess rules module, joined after the prelude.
const CHESS_WGSL: &str = include_str!("../../../shaders/games/chess.wgsl");

/// The most men the GPU twin holds: `shaders/games/chess.wgsl` keeps a placement's men in a
/// `vec3<u32>`, so materials of six pieces are solved on the CPU.
const GPU_MEN: usize = 3;
const _: () = assert!(GPU_MEN <= MAX_MEN);
/// Marks "no man" (a king moves, or nothing is captured).
const NO_MAN: u32 = u32::MAX;

/// The table that a capture, a promotion or both lead to, as the WGSL `Exit` spells it.
struct Exit {
    /// Its case in the WGSL `exit_of` (see [`exit_key`]).
    key: u32,
    /// The smaller material is stored with colours swapped (see `Game::flip`).
    flip: bool,
    /// The word of `chess_exits` its entries start at.
    offset: u32,
    /// Per man, its place among the smaller material's men ([`NO_MAN`] for the victim).
    order: [u32; GPU_MEN],
    index: String,
}

/// The case of an exit in the WGSL `exit_of`, as `exit_key` computes it there: the victim
/// (3: none), the promoting pawn (3: none) and the kind it becomes (0: none).
fn exit_key(victim: Option<usize>, promoter: Option<usize>, kind: Option<Kind>) -> u32 {
    let code = |man: Option<usize>| man.map_or(3, |m| m as u32);
    code(victim) + 4 * code(promoter) + 16 * kind.map_or(0, |k| k.index() as u32)
}

/// What a move that leaves the table does: the man it captures, the pawn it promotes and the
/// kind that pawn becomes.
type ExitCase = (Option<usize>, Option<(usize, Kind)>);

/// Every case a move of `men` may make: captures of any man, promotions of any pawn, and
/// promotions that capture a man other than a pawn.
fn exit_cases(men: &Men) -> Vec<ExitCase> {
    let mut cases: Vec<ExitCase> = (0..men.count).map(|v| (Some(v), None)).collect();
    for pawn in (0..men.count).filter(|&m| men.kind[m] == Kind::Pawn) {
        for kind in Kind::PROMOTIONS {
            cases.push((None, Some((pawn, kind))));
            for victim in 0..men.count {
                if men.side[victim] != men.side[pawn] && men.kind[victim] != Kind::Pawn {
                    cases.push((Some(victim), Some((pawn, kind))));
                }
            }
        }
    }
    cases
}

/// One chess material's GPU rules, with the smaller tables its captures and promotions reach.
pub struct ChessGpu {
    states: u64,
    prelude: String,
    geo: Vec<u32>,
    tables: Vec<u32>,
    exit_entries: Vec<u32>,
}

/// Checks that the GPU rules take `material`: at most `GPU_MEN` men besides the kings.
pub fn check_material(material: &Material) -> Result<()> {
    let pieces = material.pieces();
    if pieces > GPU_MEN + 2 {
        bail!(
            "the GPU solver takes chess materials of up to {} pieces, {material} has {pieces} (use --backend cpu)",
            GPU_MEN + 2
        );
    }
    Ok(())
}

impl ChessGpu {
    /// The GPU rules of `index`'s material; `tables` must hold every table its captures and
    /// promotions reach.
    pub fn new(index: &ChessIndex, tables: &TableSet) -> Result<ChessGpu> {
        check_gpu_states(index.material(), index.states())?;
        check_material(index.material())?;
        let men = index.men();
        let mut exit_entries = ExitEntries::default();
        let mut exits = Vec::new();
        for (victim, promotion) in exit_cases(men) {
            let (canonical, flip, place) = exit_route(men, victim, promotion);
            let sub = ChessIndex::new(&canonical);
            let offset = exit_entries.offset(&canonical, tables)?;
            // At most GPU_MEN men (checked above).
            let order = std::array::from_fn(|m| place[m].map_or(NO_MAN, |p| p as u32));
            exits.push(Exit {
                key: exit_key(victim, promotion.map(|(p, _)| p), promotion.map(|(_, k)| k)),
                flip,
                offset,
                order,
                index: index_wgsl(&sub),
            });
        }
        let geo = geo_words(geometry());
        let prelude = prelude(index, &exits, max_successors(geometry(), men));
        Ok(ChessGpu {
            states: index.states(),
            prelude,
            geo,
            tables: table_words(index_tables()),
            exit_entries: exit_entries.into_words(),
        })
    }
}

/// The WGSL `Index` of a chess index: men, the king pair's weight, slots per side, then per man
/// its group's first man, the group's length and the group's weight, then a bit per pawn.
fn index_wgsl(index: &ChessIndex) -> String {
    let men = index.men();
    let per_man = |field: fn(&Group) -> usize| {
        let words: Vec<u32> = (0..GPU_MEN)
            .map(|man| {
                if man < men.count {
                    field(index.group_of(man)) as u32
                } else {
                    0
                }
            })
            .collect();
        vec3(&words)
    };
    let pawn_men = (0..men.count)
        .filter(|&m| men.kind[m] == Kind::Pawn)
        .fold(0, |bits, m| bits | 1 << m);
    format!(
        "Index({}u, {}u, {}u, {}, {}, {}, {pawn_men}u)",
        men.count,
        index.pair_multiplier(),
        index.per_side(),
        per_man(|g| g.first),
        per_man(|g| g.len),
        per_man(|g| g.multiplier as usize),
    )
}

/// `beyond[a * 64 + b]`: the squares behind `b` seen from `a` when both lie on one ray, else
/// empty. A slider's attacks are its pattern less the squares beyond each blocker in it: one
/// lookup per blocker, where walking the rays costs one per direction.
fn beyond(geo: &Geometry) -> Vec<u64> {
    let mut beyond = vec![0; 64 * 64];
    for rays in &geo.ray {
        for a in 0..64 {
            let mut line = rays[a];
            while line != 0 {
                let b = line.trailing_zeros() as usize;
                line &= line - 1;
                beyond[a * 64 + b] = rays[b];
            }
        }
    }
    beyond
}

/// The words of `chess_geo`: the geometry's own, then [`beyond`], then the pawn attacks of
/// each side.
fn geo_words(geo: &Geometry) -> Vec<u32> {
    let mut words = geo.gpu_words();
    let boards = beyond(geo)
        .into_iter()
        .chain(geo.pawn_attacks.iter().flatten().copied());
    words.extend(boards.flat_map(|b| [b as u32, (b >> 32) as u32]));
    words
}

/// Where each table starts in `chess_tables`.
struct TableOffsets {
    king_pairs: usize,
    king_canonical: usize,
    /// Per group size k (1..=3), the start of its unrank table.
    unrank: [usize; GPU_MEN],
    pawn_king_pairs: usize,
    pawn_king_canonical: usize,
}

fn table_offsets(t: &IndexTables) -> TableOffsets {
    let king_pairs = 0;
    let king_canonical = king_pairs + t.king_pairs.len();
    let mut next = king_canonical + t.king_canonical.len();
    let unrank = std::array::from_fn(|k| {
        let at = next;
        next += t.unrank(k + 1).len();
        at
    });
    let pawn_king_pairs = next;
    let pawn_king_canonical = pawn_king_pairs + t.pawn_king_pairs.len();
    TableOffsets {
        king_pairs,
        king_canonical,
        unrank,
        pawn_king_pairs,
        pawn_king_canonical,
    }
}

fn table_words(t: &IndexTables) -> Vec<u32> {
    let mut words = Vec::new();
    words.extend(&t.king_pairs);
    words.extend(&t.king_canonical);
    for k in 1..=GPU_MEN {
        words.extend(t.unrank(k));
    }
    words.extend(&t.pawn_king_pairs);
    words.extend(&t.pawn_king_canonical);
    words
}

/// The most successors one state can push: the moves (or un-moves) of one side, each of its men
/// to every square of its widest pattern (a pawn to two) and its king likewise, each un-move
/// also reaching the en passant states of its parent (one per enemy pawn).
fn max_successors(geo: &Geometry, men: &Men) -> u32 {
    let widest = |kind: Kind| {
        if kind == Kind::Pawn {
            return 2;
        }
        geo.pattern[kind.index()]
            .iter()
            .map(|b| b.count_ones())
            .max()
            .unwrap_or(0)
    };
    Side::BOTH
        .into_iter()
        .map(|side| {
            let men_moves: u32 = men.of(side).map(|m| widest(men.kind[m])).sum();
            let enemy_pawns = men.of(side.other()).filter(|&m| men.kind[m] == Kind::Pawn).count() as u32;
            (men_moves + widest(Kind::King)) * (1 + enemy_pawns)
        })
        .max()
        .unwrap_or(0)
}

/// A bit per sliding kind, which the shader stops at the blockers in their pattern.
const SLIDERS: usize = 1 << Kind::Queen as usize | 1 << Kind::Rook as usize | 1 << Kind::Bishop as usize;

/// The WGSL `vec3<u32>` of three words.
fn vec3(words: &[u32]) -> String {
    format!("vec3<u32>({}u, {}u, {}u)", words[0], words[1], words[2])
}

/// The prelude: the data layouts, the material of `index`, its en passant layout and its
/// `exits` as WGSL constants.
fn prelude(index: &ChessIndex, exits: &[Exit], max_successors: u32) -> String {
    let geo = geometry();
    let t = table_offsets(index_tables());
    let geo_pattern = SYMMETRIES * 64;
    let geo_ray = geo_pattern + 2 * 64 * geo.pattern.len();
    let geo_between = geo_ray + 2 * 64 * geo.ray.len();
    let geo_beyond = geo_between + 2 * 64 * 64;
    let geo_pawn_attacks = geo_beyond + 2 * 64 * 64;
    let men = index.men();
    let men_side = (0..men.count).fold(0, |bits, m| bits | men.side[m].index() << m);
    let men_kind = (0..men.count).fold(0, |bits, m| bits | men.kind[m].index() << (4 * m));
    let constants = [
        ("GAME_MAX_SUCCESSORS", max_successors as usize),
        ("MEN", men.count),
        ("MEN_SIDE", men_side),
        ("MEN_KIND", men_kind),
        ("KING", Kind::King.index()),
        ("SLIDERS", SLIDERS),
        ("TRANSPOSE", TRANSPOSE),
        ("COLOUR_FLIP", RANK_MIRROR),
        ("GEO_SYMMETRY", 0),
        ("GEO_PATTERN", geo_pattern),
        ("GEO_BETWEEN", geo_between),
        ("GEO_BEYOND", geo_beyond),
        ("TAB_KING_PAIRS", t.king_pairs),
        ("TAB_KING_CANONICAL", t.king_canonical),
        ("GEO_PAWN_ATTACKS", geo_pawn_attacks),
        ("TAB_PAWN_KING_PAIRS", t.pawn_king_pairs),
        ("TAB_PAWN_KING_CANONICAL", t.pawn_king_canonical),
        ("PAWN", Kind::Pawn.index()),
        ("MIRROR", MIRROR),
        ("EP_PER_SIDE", index.ep_per_side() as usize),
    ];
    let mut s = String::new();
    for (name, value) in constants {
        let _ = writeln!(s, "const {name}: u32 = {value}u;");
    }
    let _ = writeln!(s, "const NO_MAN: u32 = {NO_MAN}u;");
    let _ = writeln!(
        s,
        "const DIAGONAL: vec2<u32> = vec2<u32>({}u, {}u);",
        DIAGONAL as u32,
        DIAGONAL >> 32
    );
    let ep_man = Side::BOTH.map(|side| index.ep_man(side).map_or(NO_MAN, |m| m as u32));
    let ep_len = Side::BOTH.map(|side| index.ep_len(side));
    let _ = writeln!(
        s,
        "const EP_MAN: vec2<u32> = vec2<u32>({}u, {}u);",
        ep_man[0], ep_man[1]
    );
    let _ = writeln!(
        s,
        "const EP_LEN: vec2<u32> = vec2<u32>({}u, {}u);",
        ep_len[0], ep_len[1]
    );
    let _ = writeln!(
        s,
        "const PAWN_SQUARES: vec2<u32> = vec2<u32>({}u, {}u);",
        PAWN_SQUARES as u32,
        PAWN_SQUARES >> 32
    );
    let _ = writeln!(
        s,
        "const TAB_UNRANK: vec3<u32> = {};",
        vec3(&t.unrank.map(|o| o as u32))
    );
    let _ = writeln!(s, "const THIS: Index = {};", index_wgsl(index));
    // A function, not an array: a constant key (an unrolled loop's) selects its case.
    let _ = writeln!(s, "fn exit_of(key: u32) -> Exit {{\n    switch key {{");
    for exit in exits {
        let _ = writeln!(
            s,
            "        case {}u: {{ return Exit({}, {}u, {}, {}); }}",
            exit.key,
            exit.flip,
            exit.offset,
            vec3(&exit.order),
            exit.index
        );
    }
    let _ = writeln!(
        s,
        "        default: {{ return Exit(false, 0u, vec3<u32>(NO_MAN), THIS); }}\n    }}\n}}"
    );
    s
}

impl GpuRules for ChessGpu {
    fn states(&self) -> u64 {
        self.states
    }

    fn wgsl(&self) -> String {
        format!("{}{CHESS_WGSL}", self.prelude)
    }

    fn data(&self) -> Vec<GpuData<'_>> {
        vec![
            GpuData {
                name: "chess_geo",
                words: Cow::Borrowed(&self.geo),
            },
            GpuData {
                name: "chess_tables",
                words: Cow::Borrowed(&self.tables),
            },
        ]
    }

    fn split_data(&self) -> Vec<GpuData<'_>> {
        vec![GpuData::new("chess_exits", &self.exit_entries)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::chess::board::rank_mirrored;
    use crate::material::GameId;

    /// The kinds whose pattern holds a whole ray of two squares or more are the sliders, and
    /// the colour flip is the rank mirror.
    #[test]
    fn the_slider_and_colour_flip_constants_match_the_geometry() {
        let geo = geometry();
        let slides = |kind: Kind| {
            (0..64).any(|sq| {
                geo.ray.iter().any(|rays| {
                    let line = rays[sq];
                    line.count_ones() >= 2 && line & !geo.pattern[kind.index()][sq] == 0
                })
            })
        };
        // A pawn's attacks depend on its side: it has no pattern, and does not slide.
        let sliders = Kind::ALL
            .into_iter()
            .filter(|&k| k != Kind::Pawn && slides(k))
            .fold(0, |b, k| b | 1 << k.index());
        assert_eq!(sliders, SLIDERS);
        assert!((0..64).all(|sq| geo.symmetry[RANK_MIRROR][sq] == rank_mirrored(sq as u8)));
    }

    #[test]
    fn the_prelude_offsets_cover_the_geometry_words() {
        let index = ChessIndex::new(&Material::parse(GameId::Chess, "KQvKR").unwrap());
        let prelude = prelude(&index, &[], 1);
        let beyond = prelude
            .lines()
            .find_map(|l| l.strip_prefix("const GEO_BEYOND: u32 = "))
            .and_then(|v| v.trim_end_matches("u;").parse::<usize>().ok())
            .unwrap();
        assert_eq!(beyond + 2 * 64 * 64 + 2 * 2 * 64, geo_words(geometry()).len());
    }

    #[test]
    fn beyond_a_blocker_lies_the_rest_of_its_ray() {
        let beyond = beyond(geometry());
        // Seen from a1, beyond c3 lie d4 .. h8; knight and king steps off a line have nothing.
        assert_eq!(beyond[18], DIAGONAL & !0x4_0201);
        assert_eq!(beyond[17], 0);
        assert_eq!(beyond[8], 0x0101_0101_0101_0000);
    }
}
