//! What the dark chess tests share: rule sets, materials, positions, building and probing.

use egtb::games::darkchess::Position;
use egtb::games::darkchess::index::DarkIndex;
use egtb::games::darkchess::{Cannon, DarkChess, DarkChessRules, Stalemate};
use egtb::games::{Game, IndexSpace};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;
use egtb::table::TableSet;
use egtb::value::Value;

use super::{Lookup, TempDir, temp_dir};

/// The default rules, named: jumping cannons, a side with no move loses.
pub const JUMP: DarkChessRules = DarkChessRules {
    cannon: Cannon::Jump,
    stalemate: Stalemate::Loss,
};

/// A canonical dark chess material from its name.
pub fn material(name: &str) -> Material {
    Material::parse(GameId::DarkChess, name)
        .expect("material name")
        .canonical()
        .0
}

/// Builds a material's table (and its smaller tables) in a fresh folder, kept while the folder
/// is.
pub fn build(name: &str, rules: DarkChessRules) -> (Generator<'static, DarkChess>, TempDir) {
    let dir = temp_dir(name);
    let mut generator = Generator::new(&dir, rules, &Silent);
    generator.ensure(&material(name)).expect("table builds");
    (generator, dir)
}

/// The value of a position for its side to move, from the tables (built on demand).
pub fn probe(generator: &mut Generator<'_, DarkChess>, rules: DarkChessRules, position: &Position) -> Value {
    if let Some(value) = DarkChess::game_over(position, rules) {
        return value;
    }
    let (canonical, _) = DarkChess::material_of(position).canonical();
    generator.ensure(&canonical).expect("table builds");
    probe_in(generator.tables(), rules, position)
}

/// The value of a position for its side to move, from solved tables: a side to move without
/// pieces has lost, anything else is looked up (sides swapped when the material needs it).
pub fn probe_in(tables: &TableSet, rules: DarkChessRules, position: &Position) -> Value {
    if position.board.side_mask(position.side_to_move) == 0 {
        return Value::LOST;
    }
    Lookup::<DarkChess>::new(tables, rules).value(position)
}

/// A position's legal moves by where they lead, worked out from the moves themselves: the slots
/// of those that stay in `index`'s table (in move order, repeats kept) and the values of those
/// that leave it, read from solved tables.
pub struct MovesByKind {
    /// How many legal moves the position has.
    pub moves: usize,
    pub children: Vec<u64>,
    pub exits: Vec<Value>,
}

/// The [`MovesByKind`] of a legal position of `index`'s material.
pub fn moves_by_kind(tables: &TableSet, rules: DarkChessRules, index: &DarkIndex, position: &Position) -> MovesByKind {
    let moves = DarkChess::legal_moves(position, rules);
    let (mut children, mut exits) = (Vec::new(), Vec::new());
    for mv in &moves {
        let after = DarkChess::play(position, *mv);
        if DarkChess::material_of(&after) == *index.material() {
            children.push(index.locate(&after));
        } else {
            exits.push(probe_in(tables, rules, &after));
        }
    }
    MovesByKind {
        moves: moves.len(),
        children,
        exits,
    }
}

/// Parses a position.
pub fn position(text: &str) -> Position {
    DarkChess::parse_position(text).expect("position")
}
