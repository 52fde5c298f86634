//! Pawnless chess on the GPU: the data and prelude of `shaders/chess.wgsl`, the WGSL twin of
//! [`super::index`] and [`super::moves`].
//!
//! Four u32 buffers, all computed here from the Rust tables:
//! - `chess_geo`: [`Geometry::gpu_words`] as it is;
//! - `chess_tables`: the [`IndexTables`] concatenated (king pairs, pair numbers, pair
//!   symmetries, binomials, then per group size k the word offset of its unrank table, then
//!   the unrank tables);
//! - `chess_material`: index descriptors of [`IX_WORDS`] words (this table first, then one per
//!   man: the smaller table that capturing it leads to), the men's sides and kinds, and per man
//!   the capture exit (colour flip, entry offset, where each surviving man goes);
//! - `chess_exit_entries`: the entries of every distinct smaller table, two per word.
//!
//! Every offset into them is a WGSL constant of the generated prelude, so the layouts are written
//! down once, here.

use std::borrow::Cow;
use std::fmt::Write;

use anyhow::{Result, bail};

use super::board::{Geometry, Kind, MAX_MEN, Men, SYMMETRIES, TRANSPOSE, geometry};
use super::index::{ChessIndex, IndexTables, NONE, index_tables};
use crate::games::IndexSpace;
use crate::material::{Material, Side};
use crate::solver::gpu::{GpuData, GpuRules};
use crate::table::TableSet;

/// The chess rules module, joined after the prelude.
const CHESS_WGSL: &str = include_str!("../../../shaders/chess.wgsl");

/// Words of one index descriptor: men, slots per king pair, slots per side, then per man its
/// group's first man, the group's length and the group's multiplier.
const IX_WORDS: usize = 3 + 3 * MAX_MEN;
const IX_MEN: usize = 0;
const IX_PER_PAIR: usize = 1;
const IX_PER_SIDE: usize = 2;
const IX_GROUP_FIRST: usize = 3;
const IX_GROUP_LEN: usize = IX_GROUP_FIRST + MAX_MEN;
const IX_MULTIPLIER: usize = IX_GROUP_LEN + MAX_MEN;
/// Words of one capture exit: flip, entry offset, then per man its place in the smaller table.
const EXIT_WORDS: usize = 2 + MAX_MEN;
const EXIT_FLIP: usize = 0;
const EXIT_OFFSET: usize = 1;
const EXIT_ORDER: usize = 2;
/// `shaders/chess.wgsl` holds the men of a placement in a `vec3<u32>`.
const _: () = assert!(MAX_MEN == 3, "shaders/chess.wgsl holds three men");
/// Marks "no man" (a king moves, or nothing is captured).
const NO_MAN: u32 = u32::MAX;

/// One chess material's GPU rules, with the smaller tables its captures reach.
pub struct ChessGpu {
    states: u64,
    prelude: String,
    tables: Vec<u32>,
    material: Vec<u32>,
    exit_entries: Vec<u32>,
}

impl ChessGpu {
    /// The GPU rules of `index`'s material; `tables` must hold every table its captures reach.
    pub fn new(index: &ChessIndex, tables: &TableSet) -> Result<ChessGpu> {
        if index.states() > u64::from(u32::MAX) {
            bail!("{} has too many states for the GPU", index.material());
        }
        let men = index.men();
        let mut material = descriptor(index);
        let mut exit_entries: Vec<u16> = Vec::new();
        let mut placed: Vec<(Material, u32)> = Vec::new();
        let mut exits = Vec::with_capacity(men.count * EXIT_WORDS);
        for victim in 0..men.count {
            let smaller = index.material().without(men.side[victim], men.kind[victim].index());
            let (canonical, flip) = smaller.canonical();
            let sub = ChessIndex::new(&canonical)?;
            material.extend(descriptor(&sub));
            let offset = match placed.iter().find(|(m, _)| *m == canonical) {
                Some(&(_, offset)) => offset,
                None => {
                    let offset = u32::try_from(exit_entries.len())?;
                    exit_entries.extend_from_slice(tables.require(&canonical)?.entries());
                    placed.push((canonical, offset));
                    offset
                }
            };
            exits.extend([u32::from(flip), offset]);
            let sub_men = sub.men();
            let mut taken = [false; MAX_MEN];
            for man in 0..MAX_MEN {
                if man >= men.count || man == victim {
                    exits.push(NO_MAN);
                    continue;
                }
                let side = if flip { men.side[man].other() } else { men.side[man] };
                let Some(place) = (0..sub_men.count)
                    .find(|&p| !taken[p] && sub_men.side[p] == side && sub_men.kind[p] == men.kind[man])
                else {
                    bail!("{canonical} lacks a man of {}", index.material());
                };
                taken[place] = true;
                exits.push(place as u32);
            }
        }
        material.resize((1 + MAX_MEN) * IX_WORDS, 0);
        let men_side = material.len();
        material.extend((0..MAX_MEN).map(|m| men.side[m].index() as u32));
        let men_kind = material.len();
        material.extend((0..MAX_MEN).map(|m| men.kind[m].index() as u32));
        let exit_base = material.len();
        material.extend(exits);
        let tables = table_words(index_tables());
        let prelude = prelude(men_side, men_kind, exit_base, max_successors(geometry(), men));
        Ok(ChessGpu {
            states: index.states(),
            prelude,
            tables,
            material,
            exit_entries: exit_entries
                .chunks(2)
                .map(|pair| u32::from(pair[0]) | u32::from(*pair.get(1).unwrap_or(&0)) << 16)
                .collect(),
        })
    }
}

/// The descriptor of one index (see [`IX_WORDS`]).
fn descriptor(index: &ChessIndex) -> Vec<u32> {
    let men = index.men();
    let mut words = vec![0u32; IX_WORDS];
    words[IX_MEN] = men.count as u32;
    words[IX_PER_SIDE] = index.per_side() as u32;
    words[IX_PER_PAIR] = (index.per_side() / super::index::KING_PAIRS as u64) as u32;
    for man in 0..men.count {
        let group = index.group_of(man);
        words[IX_GROUP_FIRST + man] = group.first as u32;
        words[IX_GROUP_LEN + man] = group.len as u32;
        words[IX_MULTIPLIER + man] = group.multiplier as u32;
    }
    words
}

/// Where each table starts in `chess_tables`.
struct TableOffsets {
    king_pairs: usize,
    king_pair_index: usize,
    king_symmetry: usize,
    binomial: usize,
    unrank: usize,
}

/// The index tables as the WGSL twin reads them: the CPU's one-lookup `king_canonical` split
/// into the pair number of a pair already in the table and the symmetry bringing any pair there,
/// plus `binomial[n * 4 + k] = C(n, k)` for the combinadic ranks.
struct GpuIndexTables {
    king_pair_index: Vec<u32>,
    king_symmetry: Vec<u32>,
    binomial: Vec<u32>,
}

fn gpu_index_tables(t: &IndexTables) -> GpuIndexTables {
    let split = |v: u32| (v & 0xFFFF, v >> 16 & 7);
    let king_pair_index = t
        .king_canonical
        .iter()
        .map(|&v| match split(v) {
            (pair, 0) if v != NONE => pair,
            _ => NONE,
        })
        .collect();
    let king_symmetry = t
        .king_canonical
        .iter()
        .map(|&v| if v == NONE { NONE } else { split(v).1 })
        .collect();
    let binomial = (0..64u32)
        .flat_map(|n| (0..4u32).map(move |k| (0..k).fold(1, |c, i| c * (n - i) / (i + 1))))
        .collect();
    GpuIndexTables {
        king_pair_index,
        king_symmetry,
        binomial,
    }
}

fn table_offsets(t: &IndexTables) -> TableOffsets {
    let g = gpu_index_tables(t);
    let king_pairs = 0;
    let king_pair_index = king_pairs + t.king_pairs.len();
    let king_symmetry = king_pair_index + g.king_pair_index.len();
    let binomial = king_symmetry + g.king_symmetry.len();
    let unrank = binomial + g.binomial.len();
    TableOffsets {
        king_pairs,
        king_pair_index,
        king_symmetry,
        binomial,
        unrank,
    }
}

fn table_words(t: &IndexTables) -> Vec<u32> {
    let offsets = table_offsets(t);
    let g = gpu_index_tables(t);
    let mut words = Vec::new();
    words.extend(&t.king_pairs);
    words.extend(&g.king_pair_index);
    words.extend(&g.king_symmetry);
    words.extend(&g.binomial);
    let mut next = offsets.unrank + MAX_MEN;
    for unrank in &t.unrank {
        words.push(next as u32);
        next += unrank.len();
    }
    for unrank in &t.unrank {
        words.extend(unrank);
    }
    words
}

/// The most successors one state can push: the moves (or un-moves) of one side, each of its men
/// and its king moving to every square of its widest pattern.
fn max_successors(geo: &Geometry, men: &Men) -> u32 {
    let widest = |kind: Kind| {
        geo.pattern[kind.index()]
            .iter()
            .map(|b| b.count_ones())
            .max()
            .unwrap_or(0)
    };
    Side::BOTH
        .into_iter()
        .map(|side| {
            let men_moves: u32 = (0..men.count)
                .filter(|&m| men.side[m] == side)
                .map(|m| widest(men.kind[m]))
                .sum();
            men_moves + widest(Kind::King)
        })
        .max()
        .unwrap_or(0)
}

/// A bit per kind whose pattern holds whole rays of two squares or more: the sliders, which the
/// shader stops at the nearest blocker along each ray of their pattern.
fn sliders(geo: &Geometry) -> usize {
    Kind::ALL
        .into_iter()
        .filter(|kind| {
            (0..64).any(|sq| {
                geo.ray.iter().any(|rays| {
                    let line = rays[sq];
                    line.count_ones() >= 2 && line & !geo.pattern[kind.index()][sq] == 0
                })
            })
        })
        .fold(0, |bits, kind| bits | 1 << kind.index())
}

/// The board symmetry that mirrors the ranks (a1 <-> a8), which swapping colours applies.
fn colour_flip(geo: &Geometry) -> usize {
    (0..SYMMETRIES)
        .find(|&s| (0..64).all(|sq| usize::from(geo.symmetry[s][sq]) == sq ^ 56))
        .expect("the rank mirror is a board symmetry")
}

/// The WGSL constants of the data layouts.
fn prelude(men_side: usize, men_kind: usize, exit_base: usize, max_successors: u32) -> String {
    let geo = geometry();
    let t = table_offsets(index_tables());
    let geo_pattern = SYMMETRIES * 64;
    let geo_ray = geo_pattern + 2 * 64 * geo.pattern.len();
    let geo_between = geo_ray + 2 * 64 * geo.ray.len();
    let constants = [
        ("GAME_MAX_SUCCESSORS", max_successors as usize),
        ("KING", Kind::King.index()),
        ("SLIDERS", sliders(geo)),
        ("DIRECTIONS", geo.ray.len()),
        ("TRANSPOSE", TRANSPOSE),
        ("COLOUR_FLIP", colour_flip(geo)),
        ("GEO_SYMMETRY", 0),
        ("GEO_PATTERN", geo_pattern),
        ("GEO_RAY", geo_ray),
        ("GEO_BETWEEN", geo_between),
        ("TAB_KING_PAIRS", t.king_pairs),
        ("TAB_KING_PAIR_INDEX", t.king_pair_index),
        ("TAB_KING_SYMMETRY", t.king_symmetry),
        ("TAB_BINOMIAL", t.binomial),
        ("TAB_UNRANK", t.unrank),
        ("IX_WORDS", IX_WORDS),
        ("IX_MEN", IX_MEN),
        ("IX_PER_PAIR", IX_PER_PAIR),
        ("IX_PER_SIDE", IX_PER_SIDE),
        ("IX_GROUP_FIRST", IX_GROUP_FIRST),
        ("IX_GROUP_LEN", IX_GROUP_LEN),
        ("IX_MULTIPLIER", IX_MULTIPLIER),
        ("MEN_SIDE", men_side),
        ("MEN_KIND", men_kind),
        ("EXIT_BASE", exit_base),
        ("EXIT_WORDS", EXIT_WORDS),
        ("EXIT_FLIP", EXIT_FLIP),
        ("EXIT_OFFSET", EXIT_OFFSET),
        ("EXIT_ORDER", EXIT_ORDER),
    ];
    let mut s = String::new();
    for (name, value) in constants {
        let _ = writeln!(s, "const {name}: u32 = {value}u;");
    }
    let _ = writeln!(s, "const NO_MAN: u32 = {NO_MAN}u;");
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
                words: Cow::Owned(geometry().gpu_words()),
            },
            GpuData {
                name: "chess_tables",
                words: Cow::Borrowed(&self.tables),
            },
            GpuData {
                name: "chess_material",
                words: Cow::Borrowed(&self.material),
            },
            GpuData {
                name: "chess_exit_entries",
                words: Cow::Borrowed(&self.exit_entries),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queens_rooks_and_bishops_slide() {
        let expected = [Kind::Queen, Kind::Rook, Kind::Bishop]
            .iter()
            .fold(0, |b, k| b | 1 << k.index());
        assert_eq!(sliders(geometry()), expected);
        assert_eq!(colour_flip(geometry()), 2);
    }

    #[test]
    fn the_prelude_offsets_cover_the_geometry_words() {
        let prelude = prelude(0, 0, 0, 1);
        let between = prelude
            .lines()
            .find_map(|l| l.strip_prefix("const GEO_BETWEEN: u32 = "))
            .and_then(|v| v.trim_end_matches("u;").parse::<usize>().ok())
            .unwrap();
        assert_eq!(between + 2 * 64 * 64, geometry().gpu_words().len());
    }
}
