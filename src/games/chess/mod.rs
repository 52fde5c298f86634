//! Western chess endgames: kings plus up to four queens, rooks, bishops, knights and pawns. A
//! legal position has one king a side, at most 6 pieces, no pawn on the first or last rank, the
//! side not to move not in check, and an en passant right only where a pawn can have just moved
//! two squares and can be captured; there is no castling.
//!
//! Here: the rules options, [`Position`] and its legality. Then [`board`] (squares, geometry, the
//! placement, attacks), [`index`] (the index space), [`moves`] (moves, un-moves, a position's
//! moves and en passant right), [`space`] (the solver's view with its exits; tables with pawns a
//! slice at a time in `pawn_slices.rs`), [`notation`] (FEN, SAN and UCI), [`gpu`] (the data of
//! the WGSL twin, `shaders/games/chess.wgsl`).

pub mod board;
pub mod gpu;
pub mod index;
pub mod moves;
pub mod notation;
// Private: it only adds the `Sliced` solving of `ChessSpace`.
mod pawn_slices;
pub mod space;

use anyhow::{Result, bail};

pub use self::board::{Kind, Square};
use self::board::{MAX_MEN, Men, PAWN_SQUARES, Placement, bit, geometry, rank_mirrored};
use self::index::{ChessIndex, MAX_PIECES};
use self::space::ChessSpace;
use crate::error::Error;
use crate::games::{Clocks, Game, RuleOption, Rules, in_listing_order};
use crate::material::{GameId, Material, Side, materials_within};
use crate::solver::gpu::GpuRules;
use crate::table::TableSet;
use crate::value::Value;

/// Chess tables have no rule options (no castling).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChessRules;

impl Rules for ChessRules {
    const OPTIONS: &'static [RuleOption] = &[];

    fn set(&mut self, _name: &str, _value: &str) {}

    fn options(&self) -> Vec<(&'static str, &'static str)> {
        Vec::new()
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

/// A move from one square to another (captures, en passant included), with the kind a pawn
/// promotes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The square the piece leaves.
    pub from: Square,
    /// The square the piece lands on (en passant: the square behind the captured pawn).
    pub to: Square,
    /// The kind a pawn promotes to, `None` for every other move.
    pub promotion: Option<Kind>,
}

/// A legal position with its side to move and en passant right. Its fields are private, unlike
/// the other games', so that an en passant right stays legal for it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    /// The piece on each square (a1 = 0, b1 = 1, ..., h8 = 63).
    board: [Option<Piece>; 64],
    /// Who moves next.
    side_to_move: Side,
    /// The square a pawn has just passed with a double step, when the side to move may capture
    /// it en passant.
    en_passant: Option<Square>,
}

impl Position {
    /// A position from its pieces, checked to be legal; each failure is one clear line.
    pub fn new(board: [Option<Piece>; 64], side_to_move: Side) -> Result<Position> {
        let position = Position {
            board,
            side_to_move,
            en_passant: None,
        };
        position.check_legal()?;
        Ok(position)
    }

    /// Checks what [`Position::new`] checks, and that an en passant right is one that
    /// [`Position::with_legal_en_passant`] gives.
    pub fn check_legal(&self) -> Result<()> {
        let (board, side_to_move) = (self.board, self.side_to_move);
        let material = self.material();
        material.check_one_king_a_side(Kind::King.index())?;
        Chess::check_supported(&material)?;
        if board
            .iter()
            .enumerate()
            .any(|(sq, p)| p.is_some_and(|p| p.kind == Kind::Pawn) && PAWN_SQUARES & bit(sq as Square) == 0)
        {
            bail!("a pawn stands on the first or last rank");
        }
        let (men, placement) = self.men_and_placement();
        let [wk, bk] = placement.kings();
        if board::kings_touch(wk, bk) {
            bail!("the kings stand on adjacent squares");
        }
        let waiting = side_to_move.other();
        if placement.in_check(geometry(), &men, waiting) {
            let name = GameId::Chess.side_name(waiting);
            bail!("{name} is in check but it is not {name}'s move");
        }
        if let Some(target) = self.en_passant {
            let without = Position {
                en_passant: None,
                ..self.clone()
            };
            without.with_legal_en_passant(target)?;
        }
        Ok(())
    }

    /// The piece on a square.
    pub fn piece_at(&self, sq: Square) -> Option<Piece> {
        self.board[sq as usize]
    }

    /// The side to move.
    pub fn side_to_move(&self) -> Side {
        self.side_to_move
    }

    /// The square behind a pawn that has just moved two squares, when the side to move may
    /// capture it en passant.
    pub fn en_passant(&self) -> Option<Square> {
        self.en_passant
    }

    /// The pieces on the board, sides as on the board.
    pub fn material(&self) -> Material {
        let mut material = Material::empty(GameId::Chess);
        for piece in self.board.iter().flatten() {
            material.counts[piece.side.index()][piece.kind.index()] += 1;
        }
        material
    }

    /// The men of the position in group order and where everything stands.
    pub fn men_and_placement(&self) -> (Men, Placement) {
        let men = Men::of_material(&self.material());
        let mut placement = Placement::default();
        let mut filled = [false; MAX_MEN];
        for (sq, piece) in self.board.iter().enumerate() {
            let Some(piece) = piece else { continue };
            if piece.kind == Kind::King {
                placement = placement.with_king(piece.side, sq as Square);
                continue;
            }
            let man = men
                .of(piece.side)
                .find(|&m| !filled[m] && men.kind[m] == piece.kind)
                .expect("every man of the material has a place");
            filled[man] = true;
            placement = placement.with_man(man, sq as Square);
        }
        (men, placement)
    }

    /// The position of a legal placement.
    pub fn from_placement(men: &Men, placement: Placement, side_to_move: Side) -> Position {
        let mut board = [None; 64];
        for side in Side::BOTH {
            board[placement.king(side) as usize] = Some(Piece { side, kind: Kind::King });
        }
        for m in 0..men.count {
            board[placement.man(m) as usize] = Some(Piece {
                side: men.side[m],
                kind: men.kind[m],
            });
        }
        Position {
            board,
            side_to_move,
            en_passant: None,
        }
    }

    /// Whether the side to move is in check.
    pub fn in_check(&self) -> bool {
        let (men, placement) = self.men_and_placement();
        placement.in_check(geometry(), &men, self.side_to_move)
    }

    /// The position with ranks mirrored, colours swapped and the other side to move (pawns then
    /// move the other way, so the position is the same game).
    pub fn flipped(&self) -> Position {
        let mut board = [None; 64];
        for (sq, piece) in self.board.iter().enumerate() {
            board[usize::from(rank_mirrored(sq as Square))] = piece.map(|p| Piece {
                side: p.side.other(),
                kind: p.kind,
            });
        }
        Position {
            board,
            side_to_move: self.side_to_move.other(),
            en_passant: self.en_passant.map(rank_mirrored),
        }
    }
}

/// Western chess.
pub struct Chess;

impl Game for Chess {
    const ID: GameId = GameId::Chess;
    const INDEX_VERSION: u32 = 3;
    const MOST_PIECES: usize = MAX_PIECES;
    type Rules = ChessRules;
    type Position = Position;
    type Move = Move;
    type Index = ChessIndex;
    type Space<'t> = ChessSpace<'t>;

    fn check_counts(material: &Material) -> Result<()> {
        if material.game != GameId::Chess {
            bail!("material {material} is not a chess material");
        }
        if let Err(kings) = material.check_one_king_a_side(Kind::King.index()) {
            bail!("material {material}: {kings}");
        }
        if material.pieces() > MAX_PIECES {
            bail!(
                "material {material} has {} pieces; chess tables support at most {MAX_PIECES}",
                material.pieces()
            );
        }
        Ok(())
    }

    /// Captures of any piece but a king, promotions of a pawn to Q, R, B or N, and both at once.
    fn sub_materials(material: &Material) -> Vec<Material> {
        let mut subs = material.captures(|kind| kind != Kind::King.index());
        for side in Side::BOTH {
            if material.count(side, Kind::Pawn.index()) == 0 {
                continue;
            }
            for kind in Kind::PROMOTIONS {
                let mut promoted = material.without(side, Kind::Pawn.index());
                promoted.counts[side.index()][kind.index()] += 1;
                subs.push(promoted.canonical().0);
                // A capture on the last rank takes a piece (never a pawn, never the king).
                for victim in Kind::PROMOTIONS {
                    if promoted.count(side.other(), victim.index()) > 0 {
                        subs.push(promoted.without(side.other(), victim.index()).canonical().0);
                    }
                }
            }
        }
        subs.sort();
        subs.dedup();
        subs
    }

    fn materials(pieces: usize) -> Vec<Material> {
        let mut max = [MAX_MEN as u8; Kind::ALL.len()];
        max[Kind::King.index()] = 1;
        let pieces = pieces.min(MAX_PIECES);
        in_listing_order(materials_within(GameId::Chess, &max, pieces, |counts| {
            counts[Kind::King.index()] == 1
        }))
    }

    fn index(material: &Material, _rules: ChessRules) -> Result<ChessIndex> {
        Self::check_material(material)?;
        Ok(ChessIndex::new(material))
    }

    fn space<'t>(index: &'t ChessIndex, _rules: ChessRules, tables: &'t TableSet) -> Result<ChessSpace<'t>> {
        ChessSpace::new(index, tables)
    }

    fn check_gpu_counts(material: &Material) -> Result<()> {
        gpu::check_material(material)
    }

    fn gpu_rules<'t>(
        index: &'t ChessIndex,
        _rules: ChessRules,
        tables: &'t TableSet,
    ) -> Result<Box<dyn GpuRules + 't>> {
        Ok(Box::new(gpu::ChessGpu::new(index, tables)?))
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
        let pawn = position.piece_at(mv.from).is_some_and(|p| p.kind == Kind::Pawn);
        pawn || position.piece_at(mv.to).is_some()
    }

    fn material_of(position: &Position) -> Material {
        position.material()
    }

    fn side_to_move(position: &Position) -> Side {
        position.side_to_move()
    }

    fn flip(position: &Position) -> Position {
        position.flipped()
    }

    fn legal_moves(position: &Position, _rules: ChessRules) -> Vec<Move> {
        position.legal_moves()
    }

    fn play(position: &Position, mv: Move) -> Position {
        position.play(mv)
    }

    fn game_over(position: &Position, _rules: ChessRules) -> Option<Value> {
        if !position.legal_moves().is_empty() {
            None
        } else if position.in_check() {
            Some(Value::LOST)
        } else {
            Some(Value::Draw)
        }
    }

    fn in_check(position: &Position) -> bool {
        position.in_check()
    }

    fn move_names(position: &Position, mv: Move) -> (String, String) {
        (notation::san(position, mv), notation::uci(mv))
    }

    fn moves_named(position: &Position, text: &str, _rules: ChessRules) -> Vec<Move> {
        notation::moves_named(position, text)
    }
}
