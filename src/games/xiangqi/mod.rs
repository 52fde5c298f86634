//! Xiangqi (Chinese chess) endgames: each side one king, any advisors and elephants (at most two
//! each), at most two attacking pieces (rooks, cannons, horses, pawns). A side with no legal move
//! loses; under the default rules a repetition is a draw.
//!
//! Here: the rules options and [`Position`]. Then [`board`] (squares, geometry, the working
//! board), [`index`] (the index space), [`moves`] (moves, un-moves, check), [`space`] (the
//! solver's view with its exits), [`notation`] (FEN, WXF and ICCS), [`asian`] (the Asian
//! repetition rules), [`gpu`] (the data of the WGSL twin, `shaders/games/xiangqi.wgsl`, and under
//! `--rules asian` `shaders/games/xiangqi_asian.wgsl`).

pub mod asian;
pub mod board;
pub mod gpu;
pub mod index;
pub mod moves;
pub mod notation;
pub mod space;

use anyhow::{Result, bail};

pub use self::board::Kind;
use self::board::{Board, NONE, SQUARES, geometry};
use self::index::{Layout, MAX_PIECES, Squares, XiangqiIndex};
use self::moves::{for_each_legal_move, in_check, kings_face};
use self::space::XiangqiSpace;
use crate::error::Error;
use crate::games::{Clocks, Game, RuleOption, Rules, in_listing_order};
use crate::material::{GameId, Material, Side, materials_within};
use crate::solver::gpu::GpuRules;
use crate::solver::rounds::{RuledSolution, solve_in_rounds};
use crate::solver::{Progress, cpu};
use crate::table::TableSet;
use crate::value::Value;

/// Most attacking pieces (R, C, N, P) per side that egtb builds tables for.
pub const MAX_ATTACKERS: usize = 2;

/// What a position that neither side can force to a result is worth.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Repetition {
    /// Endless play is a draw (the retrograde solver's leftover states).
    #[default]
    Draw,
    /// The Asian rules: perpetual check and perpetual chase lose (see [`asian`]).
    Asian,
}

/// Xiangqi rule options: `rules=draw` or `rules=asian`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct XiangqiRules {
    /// What a repeated position is worth: a draw, or the Asian rulings (option `rules`).
    pub repetition: Repetition,
}

impl Rules for XiangqiRules {
    const OPTIONS: &'static [RuleOption] = &[RuleOption {
        name: "rules",
        values: &["draw", "asian"],
    }];

    fn set(&mut self, name: &str, value: &str) {
        match (name, value) {
            ("rules", "draw") => self.repetition = Repetition::Draw,
            ("rules", "asian") => self.repetition = Repetition::Asian,
            _ => {}
        }
    }

    fn options(&self) -> Vec<(&'static str, &'static str)> {
        match self.repetition {
            Repetition::Draw => vec![("rules", "draw")],
            Repetition::Asian => vec![("rules", "asian")],
        }
    }
}

/// A piece: its side and kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Piece {
    /// The side the piece belongs to.
    pub side: Side,
    /// What kind of piece it is.
    pub kind: Kind,
}

/// A move from one square to another (captures included).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the piece leaves.
    pub from: u8,
    /// The square the piece goes to.
    pub to: u8,
}

/// A position: what stands on each square and who is to move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    /// The piece on each square, `None` where empty (squares as in [`board`]).
    pub cells: [Option<Piece>; SQUARES],
    /// The side to move.
    pub side_to_move: Side,
}

impl Position {
    /// The squares of the pieces in the order of `layout`, which must fit the position's
    /// material.
    pub fn squares(&self, layout: &Layout) -> Squares {
        let mut squares = [NONE; MAX_PIECES];
        let mut next = [[0usize; 7]; 2];
        for group in &layout.groups {
            next[group.side][group.kind.index()] = group.first;
        }
        for (s, cell) in self.cells.iter().enumerate() {
            if let Some(piece) = cell {
                let number = &mut next[piece.side.index()][piece.kind.index()];
                squares[*number] = s as u8;
                *number += 1;
            }
        }
        squares
    }

    /// The position with pieces of `layout` on `squares`, `side_to_move` (0 red) to move.
    pub fn from_squares(layout: &Layout, squares: &Squares, side_to_move: usize) -> Position {
        let mut cells = [None; SQUARES];
        for piece in 0..layout.pieces {
            cells[usize::from(squares[piece])] = Some(Piece {
                side: Side::BOTH[usize::from(layout.side[piece])],
                kind: layout.kind[piece],
            });
        }
        Position {
            cells,
            side_to_move: Side::BOTH[side_to_move],
        }
    }

    /// The pieces on the board.
    pub fn material(&self) -> Material {
        let mut material = Material::empty(GameId::Xiangqi);
        for piece in self.cells.iter().flatten() {
            material.counts[piece.side.index()][piece.kind.index()] += 1;
        }
        material
    }

    /// Runs `f` on a working board of the position (its material must be supported).
    fn with_board<R>(&self, f: impl FnOnce(&mut Board) -> R) -> R {
        let layout = Layout::new(&self.material()).expect("a legal position has a layout");
        let squares = self.squares(&layout);
        let mut board = Board::new(&layout, squares).expect("cells never overlap");
        f(&mut board)
    }

    /// Checks the material, that every piece stands on one of its points and that the side not
    /// to move is not in check.
    pub fn check_legal(&self) -> Result<()> {
        let material = self.material();
        material.check_one_king_a_side(Kind::King.index())?;
        Xiangqi::check_supported(&material)?;
        let g = geometry();
        for (s, cell) in self.cells.iter().enumerate() {
            if let Some(piece) = cell
                && !g.allowed(piece.side.index(), piece.kind, s as u8)
            {
                bail!(
                    "a {} {} cannot stand on {}{}",
                    GameId::Xiangqi.side_name(piece.side),
                    format!("{:?}", piece.kind).to_lowercase(),
                    char::from(b'a' + board::file(s as u8)),
                    board::rank(s as u8)
                );
            }
        }
        if self.with_board(|board| kings_face(board)) {
            bail!("the kings face each other on one file with nothing between them");
        }
        let waiting = self.side_to_move.other();
        if self.with_board(|board| in_check(board, waiting.index())) {
            let name = GameId::Xiangqi.side_name(waiting);
            bail!("{name} is in check but it is not {name}'s move");
        }
        Ok(())
    }
}

/// The game `xiangqi`.
pub struct Xiangqi;

impl Game for Xiangqi {
    const ID: GameId = GameId::Xiangqi;
    const INDEX_VERSION: u32 = 1;
    const MOST_PIECES: usize = MAX_PIECES;
    type Rules = XiangqiRules;
    type Position = Position;
    type Move = Move;
    type Index = XiangqiIndex;
    type Space<'t> = XiangqiSpace<'t>;

    fn check_counts(material: &Material) -> Result<()> {
        if material.game != GameId::Xiangqi {
            bail!("material {material} is not a xiangqi material");
        }
        if let Err(kings) = material.check_one_king_a_side(Kind::King.index()) {
            bail!("material {material}: {kings}");
        }
        for side in Side::BOTH {
            let count = |kind: Kind| usize::from(material.count(side, kind.index()));
            if count(Kind::Advisor) > 2 || count(Kind::Elephant) > 2 {
                bail!("material {material}: at most two advisors and two elephants per side");
            }
            if Kind::attackers(&material.counts[side.index()]) > MAX_ATTACKERS {
                bail!("material {material}: at most {MAX_ATTACKERS} rooks, cannons, horses and pawns in all a side");
            }
        }
        Ok(())
    }

    fn sub_materials(material: &Material) -> Vec<Material> {
        material.captures(|kind| kind != Kind::King.index())
    }

    fn materials(pieces: usize) -> Vec<Material> {
        let mut max = [2u8; 7];
        max[Kind::King.index()] = 1;
        in_listing_order(materials_within(GameId::Xiangqi, &max, pieces, |counts| {
            counts[Kind::King.index()] == 1 && Kind::attackers(counts) <= MAX_ATTACKERS
        }))
    }

    fn index(material: &Material, _rules: XiangqiRules) -> Result<XiangqiIndex> {
        Xiangqi::check_material(material)?;
        XiangqiIndex::new(material)
    }

    fn space<'t>(index: &'t XiangqiIndex, _rules: XiangqiRules, tables: &'t TableSet) -> Result<XiangqiSpace<'t>> {
        XiangqiSpace::new(index, tables)
    }

    fn solve_cpu(
        index: &XiangqiIndex,
        rules: XiangqiRules,
        tables: &TableSet,
        progress: &dyn Progress,
    ) -> Result<RuledSolution> {
        let space = XiangqiSpace::new(index, tables)?;
        if Self::may_rule(&index.material, rules) {
            let mut rounds = asian::Rounds::new(&space, index);
            return solve_in_rounds(&space, progress, |entries| rounds.rulings(entries));
        }
        Ok(RuledSolution::plain(cpu::solve(&space, progress)))
    }

    fn may_rule(material: &Material, rules: XiangqiRules) -> bool {
        rules.repetition == Repetition::Asian && asian::rules_apply(material)
    }

    fn rule_bytes_per_state(material: &Material, rules: XiangqiRules) -> u64 {
        if Self::may_rule(material, rules) {
            asian::GRAPH_BYTES_PER_STATE
        } else {
            0
        }
    }

    fn check_gpu_counts(material: &Material) -> Result<()> {
        gpu::check_material(material)
    }

    fn gpu_rules<'t>(
        index: &'t XiangqiIndex,
        rules: XiangqiRules,
        tables: &'t TableSet,
    ) -> Result<Box<dyn GpuRules + 't>> {
        let rules_gpu = gpu::XiangqiGpu::new(index, tables)?;
        if Self::may_rule(&index.material, rules) {
            return Ok(Box::new(rules_gpu.under_asian_rules()));
        }
        Ok(Box::new(rules_gpu))
    }

    fn parse_position_with_clocks(text: &str) -> Result<(Position, Clocks)> {
        notation::parse_fen(text).map_err(Error::illegal_position)
    }

    fn check_position(position: &Position) -> Result<()> {
        position.check_legal().map_err(Error::illegal_position)
    }

    fn format_position_with_clocks(position: &Position, clocks: Clocks) -> String {
        notation::format_fen(position, clocks)
    }

    fn resets_clock(position: &Position, mv: Move) -> bool {
        position.cells[usize::from(mv.to)].is_some()
    }

    fn material_of(position: &Position) -> Material {
        position.material()
    }

    fn side_to_move(position: &Position) -> Side {
        position.side_to_move
    }

    fn flip(position: &Position) -> Position {
        let g = geometry();
        let mut cells = [None; SQUARES];
        for (s, cell) in position.cells.iter().enumerate() {
            cells[usize::from(g.flip[s])] = cell.map(|piece| Piece {
                side: piece.side.other(),
                kind: piece.kind,
            });
        }
        Position {
            cells,
            side_to_move: position.side_to_move.other(),
        }
    }

    fn legal_moves(position: &Position, _rules: XiangqiRules) -> Vec<Move> {
        let mut moves = Vec::new();
        position.with_board(|board| {
            let start = board.squares;
            for_each_legal_move(board, position.side_to_move.index(), |board, piece, _| {
                moves.push(Move {
                    from: start[piece],
                    to: board.squares[piece],
                });
            });
        });
        moves
    }

    fn play(position: &Position, mv: Move) -> Position {
        let mut next = position.clone();
        next.cells[usize::from(mv.to)] = next.cells[usize::from(mv.from)].take();
        next.side_to_move = position.side_to_move.other();
        next
    }

    fn game_over(position: &Position, rules: XiangqiRules) -> Option<Value> {
        Xiangqi::legal_moves(position, rules).is_empty().then_some(Value::LOST)
    }

    fn in_check(position: &Position) -> bool {
        position.with_board(|board| in_check(board, position.side_to_move.index()))
    }

    fn move_names(position: &Position, mv: Move) -> (String, String) {
        (notation::wxf(position, mv), notation::iccs(mv))
    }

    fn moves_named(position: &Position, text: &str, _rules: XiangqiRules) -> Vec<Move> {
        notation::moves_named(position, text)
    }
}
