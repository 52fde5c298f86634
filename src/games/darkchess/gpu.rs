//! Dark chess on the GPU: the data and prelude of `shaders/games/darkchess.wgsl`, the WGSL twin of
//! [`super::index`], [`super::moves`] and [`super::space`].
//!
//! Four u32 buffers, all computed here from the Rust tables:
//! - `dark_geo`: [`GEOMETRY`]'s steps, rays (by direction), then the binomials of
//!   [`BINOMIAL`] for `n <= 32`, `k <= 5` (`C(n, k)` at `k * 33 + n`);
//! - `dark_sets`: a directory of `SET_TABLES` word offsets per group size `k` (1 to 5, at
//!   `(k - 1) * SET_TABLES`), then the [`SquareSets::of`] tables of every size the material or
//!   its captures use (unused sizes point at offset 0);
//! - `dark_material`: per group the index descriptor of `IX_WORDS` words of the smaller table
//!   that capturing one of its pieces leads to, then per group the capture exit (last piece,
//!   colour swap, the word its entries start at, and for each group of the smaller table the
//!   group of this table it comes from);
//! - `dark_exit_entries`: the entries of every distinct smaller table, two per word, each table
//!   from a word of its own.
//!
//! The rule options become constants of the prelude (`CANNON_JUMPS`, `NO_MOVE_ENTRY`), and every
//! offset into the buffers is one too, so the layouts are written down once, here. So are this
//! table's own descriptor (`THIS_*`, with per group the groups it captures by stepping), which
//! the shader reads in loops over the groups that run to the constant `GROUPS` (on llvmpipe
//! they unroll and every group's descriptor folds to a constant), and the directory of
//! `dark_sets` (`SET_DIRECTORY`), which saves a buffer load per square-set lookup.

use std::borrow::Cow;
use std::fmt::Write;

use anyhow::{Result, bail};

use super::DarkChessRules;
use super::board::{CANNON, GEOMETRY, MAX_GROUP, SQUARES};
use super::index::{DarkIndex, MAX_GROUPS, SquareSets};
use super::moves::CaptureRules;
use super::space::capture_route;
use crate::games::binomial::BINOMIAL;
use crate::games::exit_entries::ExitEntries;
use crate::games::{IndexSpace, check_gpu_states};
use crate::material::Side;
use crate::solver::gpu::{GpuData, GpuRules};
use crate::table::TableSet;

/// The dark chess rules module, joined after the prelude.
const DARK_WGSL: &str = include_str!("../../../shaders/games/darkchess.wgsl");

/// Tables per group size in `dark_sets`: by colex rank, canon, representatives, stabilizers.
const SET_TABLES: usize = 4;
const SET_BY_COLEX: usize = 0;
const SET_CANON: usize = 1;
const SET_REPS: usize = 2;
const SET_STABILIZER: usize = 3;

/// Words of one index descriptor (of a smaller table): groups, slots per side, then per group
/// its count and stride.
const IX_WORDS: usize = 2 + 2 * MAX_GROUPS;
const IX_GROUPS: usize = 0;
const IX_PER_SIDE: usize = 1;
const IX_COUNT: usize = 2;
const IX_STRIDE: usize = IX_COUNT + MAX_GROUPS;
/// Words of one capture exit: last piece taken, colour swap, the word its entries start at, then
/// per group of the smaller table its group in this table.
const EXIT_WORDS: usize = 3 + MAX_GROUPS;
const EXIT_LOST: usize = 0;
const EXIT_SWAP: usize = 1;
const EXIT_OFFSET: usize = 2;
const EXIT_SOURCE: usize = 3;

/// Where the parts of `dark_material` start.
const IX_BASE: usize = 0;
const EXIT_BASE: usize = IX_BASE + MAX_GROUPS * IX_WORDS;

/// Where the parts of `dark_geo` start.
const GEO_STEPS: usize = 0;
const GEO_RAYS: usize = GEO_STEPS + SQUARES;
const GEO_BINOMIAL: usize = GEO_RAYS + 4 * SQUARES;

/// One dark chess material's GPU rules, with the smaller tables its captures reach.
pub struct DarkGpu {
    states: u64,
    prelude: String,
    geometry: Vec<u32>,
    sets: Vec<u32>,
    material: Vec<u32>,
    exit_entries: Vec<u32>,
}

impl DarkGpu {
    /// The GPU rules of `index`'s material under `rules`; `tables` must hold every table its
    /// captures reach.
    pub fn new(index: &DarkIndex, rules: DarkChessRules, tables: &TableSet) -> Result<DarkGpu> {
        check_gpu_states(index.material(), index.states())?;
        let groups = index.groups();
        let mut material = vec![0u32; EXIT_BASE + MAX_GROUPS * EXIT_WORDS];
        let mut set_sizes = [false; MAX_GROUP + 1];
        let mut mark = |index: &DarkIndex| index.groups().iter().for_each(|g| set_sizes[g.count] = true);
        mark(index);
        let mut exit_entries = ExitEntries::default();
        for (victim, group) in groups.iter().enumerate() {
            let exit = EXIT_BASE + victim * EXIT_WORDS;
            let Some((canonical, swap)) = capture_route(index.material(), group.side, group.kind) else {
                material[exit + EXIT_LOST] = 1;
                continue;
            };
            let sub = DarkIndex::new(&canonical)?;
            mark(&sub);
            write_descriptor(&mut material, victim, &sub);
            let offset = exit_entries.offset(&canonical, tables)?;
            material[exit + EXIT_SWAP] = u32::from(swap);
            material[exit + EXIT_OFFSET] = offset;
            for (i, g) in sub.groups().iter().enumerate() {
                let side = if swap { g.side.other() } else { g.side };
                let Some(source) = groups.iter().position(|h| h.side == side && h.kind == g.kind) else {
                    bail!("{canonical} has a group {} lacks", index.material());
                };
                material[exit + EXIT_SOURCE + i] = source as u32;
            }
        }
        // Children and parents are steps of one side's pieces; captures push nothing.
        let pieces = Side::BOTH
            .map(|side| index.material().side_pieces(side) as u32)
            .into_iter()
            .max()
            .unwrap_or(0);
        let widest_step = GEOMETRY.steps.iter().map(|s| s.count_ones()).max().unwrap_or(0);
        let sets = set_words(&set_sizes);
        Ok(DarkGpu {
            states: index.states(),
            prelude: prelude(rules, index, &sets[..MAX_GROUP * SET_TABLES], pieces * widest_step),
            geometry: geometry_words(),
            sets,
            material,
            exit_entries: exit_entries.into_words(),
        })
    }
}

/// Writes the descriptor of `index` as descriptor number `at` (see [`IX_WORDS`]).
fn write_descriptor(material: &mut [u32], at: usize, index: &DarkIndex) {
    let words = &mut material[IX_BASE + at * IX_WORDS..IX_BASE + (at + 1) * IX_WORDS];
    let groups = index.groups();
    words[IX_GROUPS] = groups.len() as u32;
    words[IX_PER_SIDE] = index.per_side() as u32;
    for (j, g) in groups.iter().enumerate() {
        words[IX_COUNT + j] = g.count as u32;
        words[IX_STRIDE + j] = g.stride as u32;
    }
}

/// `dark_geo`: steps, rays, binomials (see the module doc). The symmetry maps are bit
/// operations in the shader (see `the_shaders_symmetry_formulas_flip_bits_of_the_square`).
fn geometry_words() -> Vec<u32> {
    let mut words = Vec::with_capacity(GEO_BINOMIAL + (MAX_GROUP + 1) * (SQUARES + 1));
    words.extend(&GEOMETRY.steps);
    GEOMETRY.rays.iter().for_each(|r| words.extend(r));
    BINOMIAL[..=MAX_GROUP].iter().for_each(|c| words.extend(&c[..=SQUARES]));
    words
}

/// `dark_sets`: the directory, then the tables of the group sizes marked in `sizes`.
fn set_words(sizes: &[bool; MAX_GROUP + 1]) -> Vec<u32> {
    let mut words = vec![0u32; MAX_GROUP * SET_TABLES];
    for k in (1..=MAX_GROUP).filter(|&k| sizes[k]) {
        let sets = SquareSets::of(k);
        let tables = [
            (SET_BY_COLEX, &sets.by_colex),
            (SET_CANON, &sets.canon),
            (SET_REPS, &sets.reps),
            (SET_STABILIZER, &sets.stabilizer),
        ];
        for (table, data) in tables {
            words[(k - 1) * SET_TABLES + table] = words.len() as u32;
            words.extend(data);
        }
    }
    words
}

/// The WGSL constants of the rules and the data layouts.
fn prelude(rules: DarkChessRules, index: &DarkIndex, set_directory: &[u32], max_successors: u32) -> String {
    let groups = index.groups();
    let adjacent = CaptureRules::new(rules).adjacent;
    let constants = [
        ("GAME_MAX_SUCCESSORS", max_successors as usize),
        ("SQUARES", SQUARES),
        ("CANNON", CANNON),
        ("CANNON_JUMPS", usize::from(CaptureRules::new(rules).cannon_jumps)),
        ("NO_MOVE_ENTRY", usize::from(rules.no_move_value().entry())),
        ("GEO_STEPS", GEO_STEPS),
        ("GEO_RAYS", GEO_RAYS),
        ("GEO_BINOMIAL", GEO_BINOMIAL),
        ("SET_TABLES", SET_TABLES),
        ("SET_BY_COLEX", SET_BY_COLEX),
        ("SET_CANON", SET_CANON),
        ("SET_REPS", SET_REPS),
        ("SET_STABILIZER", SET_STABILIZER),
        ("IX_BASE", IX_BASE),
        ("IX_WORDS", IX_WORDS),
        ("IX_GROUPS", IX_GROUPS),
        ("IX_PER_SIDE", IX_PER_SIDE),
        ("IX_COUNT", IX_COUNT),
        ("IX_STRIDE", IX_STRIDE),
        ("EXIT_BASE", EXIT_BASE),
        ("EXIT_WORDS", EXIT_WORDS),
        ("EXIT_LOST", EXIT_LOST),
        ("EXIT_SWAP", EXIT_SWAP),
        ("EXIT_OFFSET", EXIT_OFFSET),
        ("EXIT_SOURCE", EXIT_SOURCE),
        ("GROUPS", groups.len()),
        ("THIS_PER_SIDE", index.per_side() as usize),
        ("THIS_FIRST_SINGLE", index.first_single()),
    ];
    let mut s = String::new();
    for (name, value) in constants {
        let _ = writeln!(s, "const {name}: u32 = {value}u;");
    }
    let directory: Vec<String> = set_directory.iter().map(|v| format!("{v}u")).collect();
    let _ = writeln!(
        s,
        "const SET_DIRECTORY: array<u32, {}> = array<u32, {0}>({});",
        directory.len(),
        directory.join(", ")
    );
    // Per group: the groups (a bit each) of the other side it captures by stepping.
    let prey = groups.iter().map(|g| {
        groups
            .iter()
            .enumerate()
            .filter(|(_, v)| v.side != g.side && (adjacent[g.kind] >> v.kind) & 1 == 1)
            .map(|(v, _)| 1usize << v)
            .sum()
    });
    let per_group: [(&str, Vec<usize>); 6] = [
        ("THIS_SIDE", groups.iter().map(|g| g.side.index()).collect()),
        ("THIS_KIND", groups.iter().map(|g| g.kind).collect()),
        ("THIS_COUNT", groups.iter().map(|g| g.count).collect()),
        ("THIS_RADIX", groups.iter().map(|g| g.radix as usize).collect()),
        ("THIS_STRIDE", groups.iter().map(|g| g.stride as usize).collect()),
        ("THIS_PREY", prey.collect()),
    ];
    for (name, values) in per_group {
        let values: Vec<String> = values.iter().map(|v| format!("{v}u")).collect();
        let _ = writeln!(
            s,
            "const {name}: array<u32, GROUPS> = array<u32, GROUPS>({});",
            values.join(", ")
        );
    }
    s
}

impl GpuRules for DarkGpu {
    fn states(&self) -> u64 {
        self.states
    }

    fn wgsl(&self) -> String {
        format!("{}{DARK_WGSL}", self.prelude)
    }

    fn data(&self) -> Vec<GpuData<'_>> {
        vec![
            GpuData {
                name: "dark_geo",
                words: Cow::Borrowed(&self.geometry),
            },
            GpuData {
                name: "dark_sets",
                words: Cow::Borrowed(&self.sets),
            },
            GpuData {
                name: "dark_material",
                words: Cow::Borrowed(&self.material),
            },
            GpuData {
                name: "dark_exit_entries",
                words: Cow::Borrowed(&self.exit_entries),
            },
        ]
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::{GEOMETRY, SQUARES, SYMMETRIES};

    /// The formulas of the shader's `symmetry` and `transform`, copied here from the WGSL by
    /// hand (`select` written as `if`): a check of the formulas against the symmetry maps, not of
    /// the WGSL text, which only the GPU solver's tables test. `transform` is checked apart from
    /// [`board::transform`](super::super::board::transform), whose bit operations differ.
    #[test]
    fn the_shaders_symmetry_formulas_flip_bits_of_the_square() {
        for g in 0..SYMMETRIES {
            let flip = if g & 1 != 0 { 7 } else { 0 } | if g & 2 != 0 { 24 } else { 0 };
            for s in 0..SQUARES {
                assert_eq!(GEOMETRY.symmetry[g][s], (s ^ flip) as u32);
            }
            for mask in [0x0000_0001u32, 0x8000_0000, 0x0123_4567, 0xF0F0_1234, 0x00FF_8001] {
                let ranks = mask.swap_bytes();
                let image = if g & 2 != 0 { ranks } else { mask };
                let swapped = if g & 2 != 0 { mask } else { ranks };
                let image = if g & 1 != 0 { swapped.reverse_bits() } else { image };
                let expected = (0..SQUARES)
                    .filter(|&s| (mask >> s) & 1 == 1)
                    .fold(0u32, |acc, s| acc | 1 << GEOMETRY.symmetry[g][s]);
                assert_eq!(image, expected, "symmetry {g} of {mask:#x}");
            }
        }
    }
}
