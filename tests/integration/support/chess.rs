//! What the chess tests share: materials, random legal positions and their symmetric images,
//! solved tables, shakmaty as an independent oracle, and what the solver's view of a position
//! must be, worked out from position-level moves.

use std::collections::BTreeSet;

use egtb::games::chess::board::{Kind, Square, apply_symmetry};
use egtb::games::chess::index::ChessIndex;
use egtb::games::chess::{Chess, Piece, Position};
use egtb::games::{Game, IndexSpace};
use egtb::generate::Generator;
use egtb::material::{GameId, Material, Side};
use egtb::solver::{Exits, Node, Silent, Space};
use egtb::stats::SideStats;
use egtb::table::TableSet;
use egtb::value::Value;
use shakmaty::fen::Fen;
use shakmaty::{CastlingMode, PositionError};

use super::space::{assert_retro_consistent, expansion, parents};
use super::{Lookup, Rng, TempDir, temp_dir};

/// A chess material from its name, sides as written.
pub fn material(name: &str) -> Material {
    Material::parse(GameId::Chess, name).unwrap()
}

/// The index of a material under the default rules.
pub fn index(material: &Material) -> ChessIndex {
    Chess::index(material, Default::default()).unwrap()
}

/// Whether either side has a pawn.
pub fn has_pawns(material: &Material) -> bool {
    let pawn = Kind::Pawn.index();
    material.count(Side::First, pawn) + material.count(Side::Second, pawn) > 0
}

/// A generator in a fresh folder that has solved `names` (and what they need), with the folder.
pub fn generator(test: &str, names: &[&str]) -> (Generator<'static, Chess>, TempDir) {
    let dir = temp_dir(&format!("chess-{test}"));
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &Silent);
    for name in names {
        generator.ensure(&material(name)).unwrap();
    }
    (generator, dir)
}

/// The pieces of a material, kings first.
fn pieces(material: &Material) -> Vec<Piece> {
    let mut out = Vec::new();
    for side in Side::BOTH {
        for kind in Kind::ALL {
            for _ in 0..material.count(side, kind.index()) {
                out.push(Piece { side, kind });
            }
        }
    }
    out
}

/// A random legal position of a material (sides as written) with a random side to move.
pub fn random_position(rng: &mut Rng, material: &Material) -> Position {
    let pieces = pieces(material);
    loop {
        let mut board = [None; 64];
        let mut ok = true;
        for &piece in &pieces {
            let sq = rng.below(64) as usize;
            ok &= board[sq].is_none();
            board[sq] = Some(piece);
        }
        let side_to_move = if rng.below(2) == 0 { Side::First } else { Side::Second };
        if ok && let Ok(position) = Position::new(board, side_to_move) {
            return position;
        }
    }
}

/// The image of a position under one of the 8 symmetries of the board.
pub fn image(position: &Position, sym: usize) -> Position {
    let mut board = [None; 64];
    for sq in 0..64u8 {
        board[apply_symmetry(sym, sq) as usize] = position.piece_at(sq);
    }
    Position::new(board, position.side_to_move()).unwrap()
}

/// The position with every en passant right it may have, itself first.
pub fn with_rights(position: &Position) -> Vec<Position> {
    let mut out = vec![position.clone()];
    if has_pawns(&position.material()) {
        out.extend((0..64u8).filter_map(|target| position.with_legal_en_passant(target).ok()));
    }
    out
}

/// The position in shakmaty, an independent implementation of the rules.
pub fn oracle(position: &Position) -> shakmaty::Chess {
    let fen: Fen = Chess::format_position(position).parse().unwrap();
    fen.into_position(CastlingMode::Standard)
        .or_else(PositionError::ignore_impossible_check)
        .unwrap()
}

/// Checks one side's longest mate against the statistics published with another program's DTM
/// tables: its DTM in plies (`stats`), how many positions up to symmetry have it (one slot each
/// in egtb's index), and that the published `examples` (FENs) are among them.
pub fn assert_longest(
    index: &ChessIndex,
    entries: &[u16],
    side: Side,
    stats: &SideStats,
    dtm: u16,
    classes: usize,
    examples: &[&str],
) {
    assert_eq!(stats.longest.map(|l| l.dtm), Some(dtm), "{side:?}'s longest DTM");
    let value = Value::of_dtm(dtm);
    let slots = (0..index.states())
        .filter(|&s| index.side_to_move(s) == side && Value::from_entry(entries[s as usize]) == Some(value))
        .count();
    assert_eq!(slots, classes, "{side:?}'s positions up to symmetry with DTM {dtm}");
    for example in examples {
        let state = index.locate(&Chess::parse_position(example).unwrap());
        assert_eq!(index.side_to_move(state), side, "{example}");
        assert_eq!(Value::from_entry(entries[state as usize]), Some(value), "{example}");
    }
}

/// What `expand` must say about a position, from position-level moves: the node and the distinct
/// in-table children.
fn expected_expansion(index: &ChessIndex, tables: &TableSet, position: &Position) -> (Node, BTreeSet<u64>) {
    let moves = Chess::legal_moves(position, Default::default());
    if moves.is_empty() {
        let value = Chess::game_over(position, Default::default()).unwrap();
        return (Node::Terminal(value), BTreeSet::new());
    }
    let mut exits = Exits::default();
    let mut children = BTreeSet::new();
    let mut lookup = Lookup::<Chess>::new(tables, Default::default());
    for mv in moves {
        let after = Chess::play(position, mv);
        if after.material() == position.material() {
            children.insert(index.locate(&after));
        } else {
            exits.add(lookup.value(&after));
        }
    }
    (Node::Inner(exits), children)
}

/// The parents of a state by brute force: every legal position of the material (with each en
/// passant right it may have), one piece away from the state's position with the other side to
/// move, that has a move into it.
fn brute_force_parents(index: &ChessIndex, position: &Position) -> BTreeSet<u64> {
    let mut parents = BTreeSet::new();
    for from in 0..64u8 {
        let Some(piece) = position.piece_at(from) else {
            continue;
        };
        for to in (0..64u8).filter(|&sq| position.piece_at(sq).is_none()) {
            let mut board: [_; 64] = std::array::from_fn(|sq| position.piece_at(sq as Square));
            board[from as usize] = None;
            board[to as usize] = Some(piece);
            let Ok(parent) = Position::new(board, position.side_to_move().other()) else {
                continue;
            };
            for parent in with_rights(&parent) {
                let reaches = Chess::legal_moves(&parent, Default::default())
                    .into_iter()
                    .any(|mv| Chess::play(&parent, mv) == *position);
                if reaches {
                    parents.insert(index.locate(&parent));
                }
            }
        }
    }
    parents
}

/// Checks the solver's view of a legal state against position-level moves: its node and
/// children against [`expected_expansion`], its parents against [`brute_force_parents`], and
/// retro-consistency around it. Returns the edges checked.
pub fn check_state(space: &dyn Space, index: &ChessIndex, tables: &TableSet, state: u64) -> usize {
    let position = index.decode(state).unwrap();
    let fen = Chess::format_position(&position);
    let (node, children) = expansion(space, state);
    assert_eq!(
        (node, children.clone()),
        expected_expansion(index, tables, &position),
        "expand {fen}"
    );
    let parents = parents(space, state);
    assert_eq!(parents, brute_force_parents(index, &position), "parents {fen}");
    assert_retro_consistent(space, state, &children, &parents)
}
