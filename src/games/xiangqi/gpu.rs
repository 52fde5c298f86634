//! Xiangqi on the GPU: the data and prelude of `shaders/games/xiangqi.wgsl`, the WGSL twin of
//! [`super::index`], [`super::moves`] and [`super::space`]; and, under `--rules asian`, of
//! `shaders/games/xiangqi_asian.wgsl`, the twin of [`super::asian`].
//!
//! Three u32 buffers, all computed here from the Rust tables:
//! - `xq_geo`: the [`Geometry`] arrays as named sections (see `geo_sections`), one word per
//!   entry unless said otherwise;
//! - `xq_material`: index descriptors of `IX_WORDS` words (this table first, then per piece the
//!   smaller table that capturing it leads to; zeros for the kings), and per piece its capture
//!   exit (colour flip, the word its entries start at, which piece of this table is each piece of
//!   the smaller table);
//! - `xq_exit_entries`: the entries of every distinct smaller table, two per word, each table
//!   from a word of its own.
//!
//! Every offset into them is a WGSL constant of the generated prelude, so the layouts are written
//! down once, here. The prelude also holds what the hot paths would otherwise load per state
//! (each load is a gather of one load per lane on SIMD-per-thread drivers): each piece's kind and
//! group, and this table's groups (`fn this_group`).

use std::borrow::Cow;
use std::fmt::Write;
use std::sync::OnceLock;

use anyhow::{Context, Result, bail};

use super::board::{FILES, Geometry, Kind, NONE, SQUARES, geometry};
use super::index::{Layout, MAX_PIECES, XiangqiIndex};
use super::space::ExitMap;
use crate::games::binomial::binomial;
use crate::games::exit_entries::ExitEntries;
use crate::games::{IndexSpace, check_gpu_states};
use crate::material::Material;
use crate::rulings::Reason;
use crate::solver::gpu::{GpuData, GpuRounds, GpuRules};
use crate::table::TableSet;

/// The xiangqi rules module, joined after the prelude.
const XIANGQI_WGSL: &str = include_str!("../../../shaders/games/xiangqi.wgsl");
/// The Asian rules' rule module (see [`super::asian`]), joined after the rule passes.
const XIANGQI_ASIAN_WGSL: &str = include_str!("../../../shaders/games/xiangqi_asian.wgsl");
/// The mark of a position whose side to move may be checking perpetually; bit `j` below it marks
/// a chase of piece `j` (see xiangqi_asian.wgsl).
const MARK_CHECK: u32 = 1 << 15;
const _: () = assert!(GPU_PIECES <= 15);

/// Entries per square of a leaper table (the horse's eight moves at most).
const LEAP_WIDTH: usize = 8;
/// Rays per square and squares per ray (a file has ten points).
const DIRECTIONS: usize = 4;
const RAY_WIDTH: usize = 9;
/// The squares of file 0, the words of the shader's `file_mask` (which shifts them to the other
/// files): a rook's, cannon's or king's attack is computed from square numbers, not looked up.
const FILE_ZERO: u128 = {
    let mut bits = 0u128;
    let mut square = 0;
    while square < SQUARES {
        bits |= 1 << square;
        square += FILES;
    }
    bits
};

/// Words of one group in an index descriptor.
const G_WORDS: usize = 7;
const G_FIRST: usize = 0;
const G_COUNT: usize = 1;
const G_RADIX: usize = 2;
const G_STRIDE: usize = 3;
/// Offsets in `xq_geo` of the group's point numbers by square, of the same through the mirror,
/// and of its squares by point number.
const G_POINTS: usize = 4;
const G_MIRRORED: usize = 5;
const G_SQUARES: usize = 6;
/// Words of one index descriptor: group count, slots per side, then the groups.
const IX_GROUPS: usize = 0;
const IX_PER_SIDE: usize = 1;
const IX_GROUP: usize = 2;
const IX_WORDS: usize = IX_GROUP + MAX_PIECES * G_WORDS;
/// Words of one capture exit: flip, the word its entries start at, then per piece of the smaller
/// table the piece of this table that it is.
const EXIT_WORDS: usize = 2 + MAX_PIECES;
const EXIT_FLIP: usize = 0;
const EXIT_OFFSET: usize = 1;
const EXIT_ORDER: usize = 2;

/// The most pieces the shader's placement holds (three vectors of four squares).
const GPU_PIECES: usize = 12;

/// `value(piece)` of the eight pieces from `first`, four bits each: the shader's `piece_kind` and
/// `piece_group` read constants rather than buffer loads.
fn piece_nibbles(layout: &Layout, first: usize, value: impl Fn(usize) -> usize) -> usize {
    (first..layout.pieces.min(first + 8))
        .map(|piece| value(piece) << (4 * (piece - first)))
        .sum()
}

/// `fn this_group(g: u32) -> Group`: this table's group descriptors (the words of `this`, a
/// descriptor) as constants, so that the hot paths read none of them from `xq_material`.
fn this_group_wgsl(prelude: &mut String, this: &[u32], groups: usize) {
    let _ = writeln!(prelude, "fn this_group(g: u32) -> Group {{\n    switch g {{");
    for g in 0..groups {
        let words = &this[IX_GROUP + g * G_WORDS..IX_GROUP + (g + 1) * G_WORDS];
        let fields = words.iter().map(|w| format!("{w}u")).collect::<Vec<_>>().join(", ");
        let case = if g + 1 == groups {
            "default".to_string()
        } else {
            format!("case {g}u")
        };
        let _ = writeln!(
            prelude,
            "        {case}: {{\n            return Group({fields});\n        }}"
        );
    }
    let _ = writeln!(prelude, "    }}\n}}");
}

/// One xiangqi material's GPU rules, with the smaller tables its captures reach.
pub struct XiangqiGpu {
    states: u64,
    prelude: String,
    material: Vec<u32>,
    exit_entries: Vec<u32>,
    /// Solved under the Asian rules, in rounds of rulings.
    asian: bool,
}

/// Checks that the GPU rules take `material`: at most `GPU_PIECES` pieces.
pub fn check_material(material: &Material) -> Result<()> {
    let pieces = material.pieces();
    if pieces > GPU_PIECES {
        bail!(
            "the GPU solver takes xiangqi materials of up to {GPU_PIECES} pieces, {material} has {pieces} (use --backend cpu)"
        );
    }
    Ok(())
}

impl XiangqiGpu {
    /// The GPU rules of `index`'s material; `tables` must hold every table its captures reach.
    pub fn new(index: &XiangqiIndex, tables: &TableSet) -> Result<XiangqiGpu> {
        check_gpu_states(&index.material, index.states())?;
        check_material(&index.material)?;
        let g = geometry();
        let offsets = &geo_words().offsets;
        let layout = &index.layout;
        let pieces = layout.pieces;

        let this = descriptor(index, offsets)?;
        let mut material = this.clone();
        let mut exits = Vec::with_capacity(pieces * EXIT_WORDS);
        let mut exit_entries = ExitEntries::default();
        for victim in 0..pieces {
            if victim == layout.king(usize::from(layout.side[victim])) {
                material.extend(std::iter::repeat_n(0, IX_WORDS));
                exits.extend(std::iter::repeat_n(0, EXIT_WORDS));
                continue;
            }
            let map = ExitMap::new(index, victim)?;
            material.extend(descriptor(&map.index, offsets)?);
            let offset = exit_entries.offset(&map.index.material, tables)?;
            exits.extend([u32::from(map.flip), offset]);
            exits.extend(map.order.iter().map(|&piece| u32::from(piece)));
        }
        let exit_base = material.len();
        material.extend(exits);

        let mut prelude = String::new();
        let kind = |piece: usize| layout.kind[piece].index();
        let group = |piece: usize| usize::from(layout.group_of[piece]);
        let constants = [
            ("GAME_MAX_SUCCESSORS", max_successors(g, layout)),
            ("PIECES", pieces),
            (
                "SIDE_PIECES",
                layout.sides.iter().map(|&(start, end)| end - start).max().unwrap_or(0),
            ),
            ("MARK_CHECK", MARK_CHECK as usize),
            ("PIECE_KINDS_LOW", piece_nibbles(layout, 0, kind)),
            ("PIECE_KINDS_HIGH", piece_nibbles(layout, 8, kind)),
            (
                "KINDS_PRESENT",
                (0..pieces).fold(0, |bits, piece| bits | 1 << layout.kind[piece].index()),
            ),
            ("PIECE_GROUPS_LOW", piece_nibbles(layout, 0, group)),
            ("PIECE_GROUPS_HIGH", piece_nibbles(layout, 8, group)),
            ("BLACK_START", layout.sides[1].0),
            ("RED_ATTACKERS_END", layout.attackers_end[0]),
            ("BLACK_ATTACKERS_END", layout.attackers_end[1]),
            ("PER_SIDE", index.per_side as usize),
            ("GROUPS", layout.groups.len()),
            ("SQUARES", SQUARES),
            ("KINDS", Kind::ALL.len()),
            ("KING", Kind::King.index()),
            ("ROOK", Kind::Rook.index()),
            ("CANNON", Kind::Cannon.index()),
            ("HORSE", Kind::Horse.index()),
            ("PAWN", Kind::Pawn.index()),
            ("NONE", usize::from(NONE)),
            ("LEAP_WIDTH", LEAP_WIDTH),
            ("DIRECTIONS", DIRECTIONS),
            ("RAY_WIDTH", RAY_WIDTH),
            ("FILES", FILES),
            ("FILE_ZERO_0", FILE_ZERO as u32 as usize),
            ("FILE_ZERO_1", (FILE_ZERO >> 32) as u32 as usize),
            ("FILE_ZERO_2", (FILE_ZERO >> 64) as u32 as usize),
            ("G_WORDS", G_WORDS),
            ("G_FIRST", G_FIRST),
            ("G_COUNT", G_COUNT),
            ("G_RADIX", G_RADIX),
            ("G_STRIDE", G_STRIDE),
            ("G_POINTS", G_POINTS),
            ("G_MIRRORED", G_MIRRORED),
            ("G_SQUARES", G_SQUARES),
            ("IX_WORDS", IX_WORDS),
            ("IX_GROUPS", IX_GROUPS),
            ("IX_PER_SIDE", IX_PER_SIDE),
            ("IX_GROUP", IX_GROUP),
            ("MAT_EXITS", exit_base),
            ("EXIT_WORDS", EXIT_WORDS),
            ("EXIT_FLIP", EXIT_FLIP),
            ("EXIT_OFFSET", EXIT_OFFSET),
            ("EXIT_ORDER", EXIT_ORDER),
        ];
        for (name, value) in constants.into_iter().chain(offsets.iter().copied()) {
            let _ = writeln!(prelude, "const {name}: u32 = {value}u;");
        }
        this_group_wgsl(&mut prelude, &this, layout.groups.len());
        Ok(XiangqiGpu {
            states: index.states(),
            prelude,
            material,
            exit_entries: exit_entries.into_words(),
            asian: false,
        })
    }

    /// The same rules solved under the Asian rules on perpetual check and chase, in rounds.
    pub fn under_asian_rules(self) -> XiangqiGpu {
        XiangqiGpu { asian: true, ..self }
    }
}

/// A named section of `xq_geo`; its offset becomes the WGSL constant of that name.
type Section = (&'static str, Vec<u32>);

/// `xq_geo` and the offset of each section, computed once for every material.
struct GeoWords {
    words: Vec<u32>,
    offsets: Vec<(&'static str, usize)>,
}

fn geo_words() -> &'static GeoWords {
    static GEO_WORDS: OnceLock<GeoWords> = OnceLock::new();
    GEO_WORDS.get_or_init(|| {
        let sections = geo_sections(geometry());
        let offsets = section_offsets(&sections);
        GeoWords {
            words: sections.into_iter().flat_map(|(_, words)| words).collect(),
            offsets,
        }
    })
}

/// The geometry as `xq_geo` holds it:
/// - `GEO_POINTS`, `GEO_MIRRORED`, `GEO_POINT_SQUARES`: `points`, `mirrored_points` and
///   `point_squares`, at `((side * 7 + kind) * 90 + square)`;
/// - `GEO_RED_KING`, `GEO_RED_KING_MIRRORED`, `GEO_RED_KING_SQUARES`: the reduced red king's;
/// - `GEO_PAIR_BASE` (`binomial(n, 2)`), `GEO_PAIR_UNRANK` (`low | high << 8`);
/// - `GEO_MIRROR`, `GEO_FLIP`: the symmetry maps;
/// - `GEO_LEAP_TO`, `GEO_LEAP_FROM`: per side, kind and square, [`LEAP_WIDTH`] words
///   `square | block << 8` (block: the elephant's eye or the horse's leg, else [`NONE`]) for the
///   leaping kinds (king, advisor, elephant, horse, pawn): where a piece moves to, and where it
///   moves here from;
/// - `GEO_RAYS`: at `(square * DIRECTIONS + direction) * RAY_WIDTH`, as `rays`;
/// - `GEO_HORSE_LEG`: `horse_leg_for`;
/// - `GEO_SENSITIVE`: per square, the three words of its `sensitive` bitboard.
fn geo_sections(g: &Geometry) -> Vec<Section> {
    let words = |bytes: &[u8]| bytes.iter().map(|&b| u32::from(b)).collect::<Vec<u32>>();
    let per_kind = |table: &[[[u8; SQUARES]; 7]; 2]| words(table.as_flattened().as_flattened());
    let leaps = |sources: bool| {
        let mut out = Vec::with_capacity(2 * 7 * SQUARES * LEAP_WIDTH);
        for side in 0..2 {
            for kind in Kind::ALL {
                for s in 0..SQUARES {
                    let moves: Vec<(u8, u8)> = match (kind, sources) {
                        (Kind::King, _) => g.king_steps[s].iter().map(|&t| (t, NONE)).collect(),
                        (Kind::Advisor, _) => g.advisor_steps[s].iter().map(|&t| (t, NONE)).collect(),
                        (Kind::Elephant, _) => g.elephant_to[s].iter().copied().zip(g.elephant_eye[s]).collect(),
                        (Kind::Horse, false) => g.horse_to[s].iter().copied().zip(g.horse_leg[s]).collect(),
                        (Kind::Horse, true) => g.horse_from[s].iter().copied().zip(g.horse_from_leg[s]).collect(),
                        (Kind::Pawn, false) => g.pawn_to[side][s].iter().map(|&t| (t, NONE)).collect(),
                        (Kind::Pawn, true) => g.pawn_from[side][s].iter().map(|&t| (t, NONE)).collect(),
                        (Kind::Rook | Kind::Cannon, _) => Vec::new(),
                    };
                    let mut entries = [u32::from(NONE) | u32::from(NONE) << 8; LEAP_WIDTH];
                    for (entry, (to, block)) in entries.iter_mut().zip(moves.into_iter().filter(|m| m.0 != NONE)) {
                        *entry = u32::from(to) | u32::from(block) << 8;
                    }
                    out.extend(entries);
                }
            }
        }
        out
    };
    let rays: &[[[u8; RAY_WIDTH]; DIRECTIONS]; SQUARES] = &g.rays;
    vec![
        ("GEO_POINTS", per_kind(&g.points)),
        ("GEO_MIRRORED", per_kind(&g.mirrored_points)),
        ("GEO_POINT_SQUARES", per_kind(&g.point_squares)),
        ("GEO_RED_KING", words(&g.red_king_reduced)),
        ("GEO_RED_KING_MIRRORED", words(&g.red_king_reduced_mirrored)),
        ("GEO_RED_KING_SQUARES", words(&g.red_king_squares)),
        ("GEO_PAIR_BASE", (0..=SQUARES as u32).map(|n| binomial(n, 2)).collect()),
        (
            "GEO_PAIR_UNRANK",
            g.pair_unrank
                .iter()
                .map(|&[low, high]| u32::from(low) | u32::from(high) << 8)
                .collect(),
        ),
        ("GEO_MIRROR", words(&g.mirror)),
        ("GEO_FLIP", words(&g.flip)),
        ("GEO_LEAP_TO", leaps(false)),
        ("GEO_LEAP_FROM", leaps(true)),
        ("GEO_RAYS", words(rays.as_flattened().as_flattened())),
        ("GEO_HORSE_LEG", words(&g.horse_leg_for)),
        (
            "GEO_SENSITIVE",
            g.sensitive
                .iter()
                .flat_map(|&bits| [bits as u32, (bits >> 32) as u32, (bits >> 64) as u32])
                .collect(),
        ),
    ]
}

/// The word offset of each section.
fn section_offsets(sections: &[Section]) -> Vec<(&'static str, usize)> {
    let mut at = 0;
    sections
        .iter()
        .map(|(name, words)| {
            let offset = at;
            at += words.len();
            (*name, offset)
        })
        .collect()
}

/// The descriptor of one index (see [`IX_WORDS`]).
fn descriptor(index: &XiangqiIndex, offsets: &[(&'static str, usize)]) -> Result<Vec<u32>> {
    let offset = |name: &str| -> Result<usize> {
        let found = offsets.iter().find(|(n, _)| *n == name);
        found
            .map(|&(_, o)| o)
            .with_context(|| format!("the xiangqi geometry has no section {name}"))
    };
    let mut words = vec![0u32; IX_WORDS];
    words[IX_GROUPS] = index.layout.groups.len() as u32;
    words[IX_PER_SIDE] = u32::try_from(index.per_side)?;
    for (n, group) in index.layout.groups.iter().enumerate() {
        let at = IX_GROUP + n * G_WORDS;
        // The red king's group uses the reduced points (see `Layout::new`).
        let (points, mirrored, squares) = if group.side == 0 && group.kind == Kind::King {
            (
                offset("GEO_RED_KING")?,
                offset("GEO_RED_KING_MIRRORED")?,
                offset("GEO_RED_KING_SQUARES")?,
            )
        } else {
            let kind_table = (group.side * 7 + group.kind.index()) * SQUARES;
            (
                offset("GEO_POINTS")? + kind_table,
                offset("GEO_MIRRORED")? + kind_table,
                offset("GEO_POINT_SQUARES")? + kind_table,
            )
        };
        words[at + G_FIRST] = group.first as u32;
        words[at + G_COUNT] = group.count as u32;
        words[at + G_RADIX] = u32::try_from(group.radix)?;
        words[at + G_STRIDE] = u32::try_from(group.stride)?;
        words[at + G_POINTS] = points as u32;
        words[at + G_MIRRORED] = mirrored as u32;
        words[at + G_SQUARES] = squares as u32;
    }
    Ok(words)
}

/// The most successors one state can push: per side, every piece moving to (or from) every
/// square of its widest pattern; the larger side.
fn max_successors(g: &Geometry, layout: &Layout) -> usize {
    let widest = |side: usize, kind: Kind| -> usize {
        let count = |list: &[u8]| list.iter().filter(|&&s| s != NONE).count();
        (0..SQUARES)
            .map(|s| match kind {
                Kind::Rook | Kind::Cannon => g.rays[s].iter().map(|ray| count(ray)).sum(),
                Kind::King => count(&g.king_steps[s]),
                Kind::Advisor => count(&g.advisor_steps[s]),
                Kind::Elephant => count(&g.elephant_to[s]),
                Kind::Horse => count(&g.horse_to[s]).max(count(&g.horse_from[s])),
                Kind::Pawn => count(&g.pawn_to[side][s]).max(count(&g.pawn_from[side][s])),
            })
            .max()
            .unwrap_or(0)
    };
    let side_total = |side: usize| -> usize {
        let (start, end) = layout.sides[side];
        (start..end).map(|piece| widest(side, layout.kind[piece])).sum()
    };
    side_total(0).max(side_total(1)).max(1)
}

impl GpuRules for XiangqiGpu {
    fn states(&self) -> u64 {
        self.states
    }

    fn wgsl(&self) -> String {
        format!("{}{XIANGQI_WGSL}", self.prelude)
    }

    fn data(&self) -> Vec<GpuData<'_>> {
        vec![
            GpuData {
                name: "xq_geo",
                words: Cow::Borrowed(&geo_words().words),
            },
            GpuData {
                name: "xq_material",
                words: Cow::Borrowed(&self.material),
            },
            GpuData {
                name: "xq_exit_entries",
                words: Cow::Borrowed(&self.exit_entries),
            },
        ]
    }

    fn rounds(&self) -> Option<&dyn GpuRounds> {
        self.asian.then_some(self as &dyn GpuRounds)
    }
}

impl GpuRounds for XiangqiGpu {
    fn rule_wgsl(&self) -> String {
        XIANGQI_ASIAN_WGSL.to_string()
    }

    fn reason(&self, marks: u32) -> Reason {
        if marks & MARK_CHECK != 0 {
            Reason::PerpetualCheck
        } else {
            Reason::PerpetualChase
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::asian::{candidates, reach, threats};
    use super::super::moves::for_each_legal_move;
    use super::super::space::XiangqiSpace;
    use super::*;
    use crate::games::Game;
    use crate::games::xiangqi::Xiangqi;
    use crate::generate::Generator;
    use crate::material::{GameId, Material};
    use crate::solver::Silent;
    use crate::solver::gpu::{Gpu, probe};

    #[test]
    fn a_descriptor_needs_every_geometry_section_it_points_at() {
        let material = Material::parse(GameId::Xiangqi, "KRvKA").unwrap();
        let index = Xiangqi::index(&material, Default::default()).unwrap();
        assert!(descriptor(&index, &geo_words().offsets).is_ok());
        let err = descriptor(&index, &[]).unwrap_err();
        assert_eq!(format!("{err:#}"), "the xiangqi geometry has no section GEO_RED_KING");
    }

    /// Moves a probed state may have (a legal position has far fewer).
    const PROBE_MOVES: usize = 64;
    /// Words per probed state: the move count, then per move its squares and check
    /// (`from | to << 8 | check << 16`) and its three words of chases.
    const PROBE_WIDTH: usize = 1 + 4 * PROBE_MOVES;

    /// For each state of `rule_entries`: every legal move with what xiangqi_asian.wgsl's
    /// `move_threats` makes of it, into `rule_mark_words`.
    const PROBE_WGSL: &str = "
const PROBE_MOVES: u32 = 64u;
const PROBE_WIDTH: u32 = 1u + 4u * PROBE_MOVES;

@compute @workgroup_size(WORKGROUP)
fn probe_threats(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let i = thread_index(wg, groups, local);
    if i >= arrayLength(&rule_entries) || !decode(rule_entries[i]) {
        return;
    }
    let at = i * PROBE_WIDTH;
    let mover = cur_side;
    let before = reach_of(mover);
    var n = 0u;
    for (var piece = side_start(mover); piece < side_end(mover); piece += 1u) {
        let origin = square_of(piece);
        var left = targets(piece);
        while !bb_empty(left) {
            let to = bb_pop(&left);
            let victim = make(piece, to);
            if !in_check(mover) {
                let t = move_threats(mover, before);
                if n < PROBE_MOVES {
                    let w = at + 1u + 4u * n;
                    atomicStore(&rule_mark_words[w], origin | (to << 8u) | (select(0u, 1u, t.check) << 16u));
                    atomicStore(&rule_mark_words[w + 1u], t.chases.x);
                    atomicStore(&rule_mark_words[w + 2u], t.chases.y);
                    atomicStore(&rule_mark_words[w + 3u], t.chases.z);
                }
                n += 1u;
            }
            unmake(piece, origin, victim);
        }
    }
    atomicStore(&rule_mark_words[at], n);
}
";

    /// Every legal move of a state as the probe writes it, sorted: [from | to << 8 | check << 16,
    /// chases (three words)].
    fn rust_threats(index: &XiangqiIndex, state: u64) -> Vec<[u32; 4]> {
        let mut decoded = index.decode_state(state).expect("a legal state");
        let mover = decoded.side_to_move;
        let before = reach(&mut decoded.board, mover);
        let start = decoded.board.squares;
        let mut moves = Vec::new();
        for_each_legal_move(&mut decoded.board, mover, |board, piece, _| {
            let t = threats(&mut board.clone(), mover, &before);
            let squares = u32::from(start[piece]) | u32::from(board.squares[piece]) << 8;
            let c = t.chases;
            moves.push([
                squares | u32::from(t.check) << 16,
                c as u32,
                (c >> 32) as u32,
                (c >> 64) as u32,
            ]);
        });
        moves.sort_unstable();
        moves
    }

    #[test]
    fn the_wgsl_threats_of_every_move_equal_the_rust_ones_on_random_positions() {
        let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
            return;
        };
        let dir = std::env::temp_dir().join(format!("egtb-xiangqi-threats-{}", std::process::id()));
        let mut generator = Generator::<Xiangqi>::new(&dir, Default::default(), &Silent);
        let (mut checks, mut chases) = (0, 0);
        for name in ["KRvKR", "KCvKRA", "KNvKCE", "KRvKNP"] {
            let material = Material::parse(GameId::Xiangqi, name).unwrap().canonical().0;
            generator.ensure_smaller(&material).unwrap();
            let index = Xiangqi::index(&material, Default::default()).unwrap();
            let rules = XiangqiGpu::new(&index, generator.tables()).unwrap().under_asian_rules();
            // A fixed stride through the states: every side to move, slots all over the board.
            let states: Vec<u32> = (0..index.states())
                .step_by((index.states() / 3000) as usize | 1)
                .filter(|&s| index.decode_state(s).is_some())
                .map(|s| s as u32)
                .collect();
            let out = probe(
                &gpu,
                &rules,
                PROBE_WGSL,
                "probe_threats",
                states.len() as u64,
                &states,
                states.len() * PROBE_WIDTH,
            )
            .unwrap();
            for (i, &state) in states.iter().enumerate() {
                let record = &out[i * PROBE_WIDTH..(i + 1) * PROBE_WIDTH];
                let n = record[0] as usize;
                assert!(n <= PROBE_MOVES, "{name} state {state}: {n} moves");
                let mut gpu_moves: Vec<[u32; 4]> = record[1..1 + 4 * n]
                    .chunks(4)
                    .map(|m| [m[0], m[1], m[2], m[3]])
                    .collect();
                gpu_moves.sort_unstable();
                let rust_moves = rust_threats(&index, u64::from(state));
                assert_eq!(gpu_moves, rust_moves, "{name} state {state}");
                checks += rust_moves.iter().filter(|m| m[0] >> 16 != 0).count();
                chases += rust_moves.iter().filter(|m| m[1..] != [0; 3]).count();
            }
        }
        assert!(checks > 100 && chases > 100, "{checks} checks, {chases} chases");
        std::fs::remove_dir_all(dir).unwrap();
    }

    /// For every state: its candidate marks (none unless it is a draw), into `rule_mark_words`.
    const CANDIDATES_WGSL: &str = "
@compute @workgroup_size(WORKGROUP)
fn probe_candidates(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let state = thread_index(wg, groups, local);
    if state < STATES && rule_live(state) {
        atomicStore(&rule_mark_words[state], game_rule_candidates(state));
    }
}
";

    #[test]
    fn the_wgsl_candidate_marks_equal_the_rust_ones_on_every_draw() {
        let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
            return;
        };
        let dir = std::env::temp_dir().join(format!("egtb-xiangqi-candidates-{}", std::process::id()));
        let mut generator = Generator::<Xiangqi>::new(&dir, Default::default(), &Silent);
        let (mut checks, mut chases) = (0, 0);
        for name in ["KRvKN", "KNvKP", "KRvKP", "KNvKN"] {
            let material = Material::parse(GameId::Xiangqi, name).unwrap().canonical().0;
            let entries = generator.ensure(&material).unwrap().entries().to_vec();
            let index = Xiangqi::index(&material, Default::default()).unwrap();
            let space = XiangqiSpace::new(&index, generator.tables()).unwrap();
            let mut expected = vec![0u32; entries.len()];
            for (state, check, chased) in candidates(&space, &index, &entries) {
                let decoded = index.decode_state(state).unwrap();
                let opponent = index.layout.sides[1 - decoded.side_to_move];
                let chased_pieces = (opponent.0..opponent.1).filter(|&j| chased >> decoded.board.squares[j] & 1 == 1);
                expected[state as usize] = chased_pieces.fold(if check { MARK_CHECK } else { 0 }, |m, j| m | 1 << j);
                checks += usize::from(check);
                chases += usize::from(chased != 0);
            }
            let words: Vec<u32> = entries
                .chunks(2)
                .map(|pair| u32::from(pair[0]) | pair.get(1).map_or(0, |&e| u32::from(e) << 16))
                .collect();
            let rules = XiangqiGpu::new(&index, generator.tables()).unwrap().under_asian_rules();
            let states = index.states();
            let out = probe(
                &gpu,
                &rules,
                CANDIDATES_WGSL,
                "probe_candidates",
                states,
                &words,
                states as usize,
            )
            .unwrap();
            let differing = (0..entries.len())
                .filter(|&s| out[s] != expected[s])
                .collect::<Vec<_>>();
            assert!(
                differing.is_empty(),
                "{name}: {} states differ, first {:?}",
                differing.len(),
                differing.first()
            );
        }
        assert!(
            checks > 1000 && chases > 50,
            "{checks} check candidates, {chases} chase candidates"
        );
        std::fs::remove_dir_all(dir).unwrap();
    }
}
