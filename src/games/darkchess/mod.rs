//! Chinese dark chess, revealed endgames (docs/rules.md): a 4x8 board, every piece steps one
//! square orthogonally, captures go by rank, the cannon jumps (or steps, by option), a side with no
//! pieces loses and a side with no move loses (or draws, by option).
//!
//! Here: the rules options and [`Position`]. Then [`board`] (squares, geometry, the bitboard
//! working board), [`index`] (the index space), [`moves`] (moves; un-moves are steps back),
//! [`space`] (the solver's view with its exits), [`notation`] (positions and moves as text),
//! [`gpu`] (the data of the WGSL twin, `shaders/games/darkchess.wgsl`).
//!
//! Everything a GPU twin of these rules needs is plain data computed here once:
//! [`board::GEOMETRY`] (steps, rays, symmetry maps), [`crate::games::binomial`],
//! [`index::SquareSets::of`] (colex unranking, anchor representatives, canonicalising
//! symmetries, stabilizers), [`moves::CaptureRules`] (who takes whom) and
//! [`index::DarkIndex::groups`] (radices, strides).

pub mod board;
pub mod gpu;
pub mod index;
pub mod moves;
pub mod notation;
pub mod space;

use anyhow::{Result, bail};

pub use self::board::Board;
use self::board::{KINDS, LETTERS, MAX_COUNTS};
use self::index::{DarkIndex, MAX_PIECES};
use self::moves::CaptureRules;
use self::space::DarkSpace;
use crate::error::Error;
use crate::games::{Clocks, Game, RuleOption, Rules, in_listing_order};
use crate::material::{GameId, Material, Side, materials_within};
use crate::solver::gpu::GpuRules;
use crate::table::TableSet;
use crate::value::Value;

/// How the cannon captures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Cannon {
    /// By jumping over exactly one piece, at any distance, any victim.
    #[default]
    Jump,
    /// Adjacent, like the others, only a cannon or a soldier.
    Step,
}

/// What a side with pieces but no legal move gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Stalemate {
    /// The side to move loses.
    #[default]
    Loss,
    /// The game is drawn.
    Draw,
}

/// The dark chess rule options.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DarkChessRules {
    /// How the cannon captures (option `cannon`).
    pub cannon: Cannon,
    /// What a side with pieces but no legal move gets (option `stalemate`).
    pub stalemate: Stalemate,
}

impl DarkChessRules {
    /// Stepping cannons and drawn stalemates: the rules of the other dark chess generator whose
    /// published figures the tests reproduce.
    pub const STEP_DRAW: DarkChessRules = DarkChessRules {
        cannon: Cannon::Step,
        stalemate: Stalemate::Draw,
    };

    /// The value of a position whose side to move has pieces but no legal move.
    pub fn no_move_value(self) -> Value {
        match self.stalemate {
            Stalemate::Loss => Value::LOST,
            Stalemate::Draw => Value::Draw,
        }
    }
}

impl Rules for DarkChessRules {
    const OPTIONS: &'static [RuleOption] = &[
        RuleOption {
            name: "cannon",
            values: &["jump", "step"],
        },
        RuleOption {
            name: "stalemate",
            values: &["loss", "draw"],
        },
    ];

    fn set(&mut self, name: &str, value: &str) {
        match (name, value) {
            ("cannon", "jump") => self.cannon = Cannon::Jump,
            ("cannon", "step") => self.cannon = Cannon::Step,
            ("stalemate", "loss") => self.stalemate = Stalemate::Loss,
            ("stalemate", "draw") => self.stalemate = Stalemate::Draw,
            _ => {}
        }
    }

    fn options(&self) -> Vec<(&'static str, &'static str)> {
        let cannon = match self.cannon {
            Cannon::Jump => "jump",
            Cannon::Step => "step",
        };
        let stalemate = match self.stalemate {
            Stalemate::Loss => "loss",
            Stalemate::Draw => "draw",
        };
        vec![("cannon", cannon), ("stalemate", stalemate)]
    }
}

/// A move from one square to another (a capture when the target holds an enemy piece).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the piece leaves (`rank * 8 + file`).
    pub from: u8,
    /// The square the piece goes to.
    pub to: u8,
}

/// A position of a table: the board and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The pieces on the board.
    pub board: Board,
    /// The side to move.
    pub side_to_move: Side,
}

impl Position {
    /// Checks that no two pieces share a square (text cannot put them there; positions built in
    /// code can), that no side has more pieces of a kind than the game allows, and that the side
    /// not to move has pieces (a side whose last piece is taken has lost, with the move: the
    /// game's last position).
    pub fn check_legal(&self) -> Result<()> {
        let masks = &self.board.masks;
        let mut seen = 0;
        for mask in masks.iter().flatten() {
            if seen & mask != 0 {
                let square = (seen & mask).trailing_zeros() as usize;
                bail!("two pieces stand on {}", board::square_name(square));
            }
            seen |= mask;
        }
        check_set(&self.material())?;
        if seen == 0 {
            bail!("the board is empty");
        }
        let waiting = self.side_to_move.other();
        if self.board.side_mask(waiting) == 0 {
            bail!(
                "{} has no pieces but is not to move (a side whose last piece is taken has lost, with the move)",
                GameId::DarkChess.side_name(waiting)
            );
        }
        Ok(())
    }

    /// The pieces on the board.
    pub fn material(&self) -> Material {
        let mut material = Material::empty(GameId::DarkChess);
        for side in Side::BOTH {
            for kind in 0..KINDS {
                material.counts[side.index()][kind] = self.board.masks[side.index()][kind].count_ones() as u8;
            }
        }
        material
    }
}

/// Fails unless each side has at most the pieces of each kind that a set holds.
fn check_set(material: &Material) -> Result<()> {
    for side in Side::BOTH {
        if let Some(kind) = (0..KINDS).find(|&k| material.count(side, k) > MAX_COUNTS[k]) {
            bail!(
                "material {material}: {} has more than {} '{}'",
                GameId::DarkChess.side_name(side),
                MAX_COUNTS[kind],
                LETTERS[kind] as char
            );
        }
    }
    Ok(())
}

/// Chinese dark chess with all pieces revealed.
pub struct DarkChess;

impl Game for DarkChess {
    const ID: GameId = GameId::DarkChess;
    const INDEX_VERSION: u32 = 1;
    const MOST_PIECES: usize = MAX_PIECES;
    type Rules = DarkChessRules;
    type Position = Position;
    type Move = Move;
    type Index = DarkIndex;
    type Space<'t> = DarkSpace<'t>;

    fn check_counts(material: &Material) -> Result<()> {
        if material.game != GameId::DarkChess {
            bail!("material {material} is not a darkchess material");
        }
        for side in Side::BOTH {
            if material.side_pieces(side) == 0 {
                bail!("material {material}: each side needs at least one piece");
            }
            if material.counts[side.index()][KINDS..].iter().any(|&c| c > 0) {
                bail!("material {material} has pieces dark chess does not know");
            }
        }
        check_set(material)?;
        if material.pieces() > MAX_PIECES {
            bail!(
                "material {material} has {} pieces; dark chess tables support at most {MAX_PIECES}",
                material.pieces()
            );
        }
        Ok(())
    }

    fn sub_materials(material: &Material) -> Vec<Material> {
        material
            .captures(|_| true)
            .into_iter()
            .filter(|m| Side::BOTH.iter().all(|&side| m.side_pieces(side) > 0))
            .collect()
    }

    fn materials(pieces: usize) -> Vec<Material> {
        in_listing_order(materials_within(GameId::DarkChess, &MAX_COUNTS, pieces, |counts| {
            counts.iter().any(|&n| n > 0)
        }))
    }

    fn index(material: &Material, _rules: DarkChessRules) -> Result<DarkIndex> {
        Self::check_material(material)?;
        DarkIndex::new(material)
    }

    fn space<'t>(index: &'t DarkIndex, rules: DarkChessRules, tables: &'t TableSet) -> Result<DarkSpace<'t>> {
        DarkSpace::new(index, rules, tables)
    }

    fn gpu_rules<'t>(
        index: &'t DarkIndex,
        rules: DarkChessRules,
        tables: &'t TableSet,
    ) -> Result<Box<dyn GpuRules + 't>> {
        Ok(Box::new(gpu::DarkGpu::new(index, rules, tables)?))
    }

    /// The dark chess notation has no clocks.
    fn parse_position_with_clocks(text: &str) -> Result<(Position, Clocks)> {
        let position = notation::parse_position(text).map_err(Error::illegal_position)?;
        Ok((position, Clocks::START))
    }

    fn check_position(position: &Position) -> Result<()> {
        position.check_legal().map_err(Error::illegal_position)
    }

    fn format_position_with_clocks(position: &Position, _clocks: Clocks) -> String {
        notation::format_position(position)
    }

    fn resets_clock(position: &Position, mv: Move) -> bool {
        position.board.piece_at(usize::from(mv.to)).is_some()
    }

    fn material_of(position: &Position) -> Material {
        position.material()
    }

    fn side_to_move(position: &Position) -> Side {
        position.side_to_move
    }

    fn flip(position: &Position) -> Position {
        Position {
            board: position.board.swapped(),
            side_to_move: position.side_to_move.other(),
        }
    }

    fn legal_moves(position: &Position, rules: DarkChessRules) -> Vec<Move> {
        moves::legal_moves(&position.board, position.side_to_move, &CaptureRules::new(rules))
    }

    fn play(position: &Position, mv: Move) -> Position {
        Position {
            board: moves::play(&position.board, position.side_to_move, mv),
            side_to_move: position.side_to_move.other(),
        }
    }

    fn game_over(position: &Position, rules: DarkChessRules) -> Option<Value> {
        if position.board.side_mask(position.side_to_move) == 0 {
            Some(Value::LOST)
        } else if Self::legal_moves(position, rules).is_empty() {
            Some(rules.no_move_value())
        } else {
            None
        }
    }

    fn in_check(_position: &Position) -> bool {
        false
    }

    fn move_names(_position: &Position, mv: Move) -> (String, String) {
        let name = notation::move_name(mv);
        (name.clone(), name)
    }

    fn moves_named(position: &Position, text: &str, rules: DarkChessRules) -> Vec<Move> {
        notation::moves_named(position, text, rules)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn rule_options_parse_in_order_and_reject_unknowns() {
        let step_draw = DarkChess::rules(&options(&[("stalemate", "draw"), ("cannon", "step")]));
        assert_eq!(step_draw.unwrap(), DarkChessRules::STEP_DRAW);
        assert_eq!(
            DarkChessRules::default().options(),
            [("cannon", "jump"), ("stalemate", "loss")]
        );
        for bad in [[("cannon", "fly")], [("stalemate", "win")], [("flip", "yes")]] {
            let err = DarkChess::rules(&options(&bad)).unwrap_err().to_string();
            assert!(err.contains(bad[0].0) || err.contains(bad[0].1), "{err}");
        }
    }

    #[test]
    fn materials_are_every_canonical_split_smaller_first() {
        // Side vectors with 1, 2, 3 pieces: 7; C(7,2) + 6 pairs = 27; C(9,3) multisets less the
        // 7 with two kings and the 5 triples of a kind limited to two = 72. Ordered pairs of at
        // most 4 pieces: 7*7 + 2*7*27 + 2*7*72 + 27*27 = 2164, of which 7 + 27 = 34 are
        // symmetric, so (2164 + 34) / 2 materials.
        let all = DarkChess::materials(4);
        assert_eq!(all.len(), (2164 + 34) / 2);
        assert_eq!(DarkChess::materials(2).len(), 7 * 8 / 2);
        for (i, m) in all.iter().enumerate() {
            assert!(m.is_canonical(), "{m}");
            DarkChess::check_material(m).unwrap();
            assert!(i == 0 || all[i - 1].pieces() <= m.pieces());
            for sub in DarkChess::sub_materials(m) {
                assert!(all[..i].contains(&sub), "{sub} of {m}");
            }
        }
        let kpk = Material::parse(GameId::DarkChess, "KPvK").unwrap();
        let mut subs: Vec<String> = DarkChess::sub_materials(&kpk).iter().map(|m| m.to_string()).collect();
        subs.sort();
        // The red soldier or the red king taken; taking the black king ends the game instead.
        assert_eq!(subs, ["KvK", "KvP"]);
    }

    #[test]
    fn unsupported_materials_are_rejected_in_one_line() {
        for name in ["KKvK", "PPPPPPvK", "KvAAA"] {
            let m = Material::parse(GameId::DarkChess, name).unwrap();
            let err = DarkChess::check_material(&m).unwrap_err().to_string();
            assert!(!err.contains('\n'), "{err}");
        }
        // A set's counts in the same words for a material and a position's pieces.
        let three = Material::parse(GameId::DarkChess, "KvAAA").unwrap();
        let expected = "material KvAAA: black has more than 2 'A'";
        assert_eq!(DarkChess::check_material(&three).unwrap_err().to_string(), expected);
        let position = DarkChess::parse_position("aaa5/8/8/3K4 r").unwrap_err();
        assert!(format!("{position:#}").ends_with(expected), "{position:#}");
        let chess = Material::parse(GameId::Chess, "KQvK").unwrap();
        assert!(DarkChess::check_material(&chess).is_err());
        let lone = Material::parse(GameId::DarkChess, "KAv").unwrap();
        assert!(DarkChess::index(&lone, DarkChessRules::default()).is_err());
    }
}
