//! The solver's view of chess materials: children and exits against position-level moves,
//! un-moves against a brute force over the positions that move into a state, and
//! retro-consistency (P is a parent of C exactly when C is a child of P).

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{Rng, generator, material, random_position};
use egtb::games::chess::index::ChessIndex;
use egtb::games::chess::{Chess, Position};
use egtb::games::{Game, IndexSpace};
use egtb::material::Material;
use egtb::solver::{Exits, Node, Space, Successors};
use egtb::table::TableSet;
use egtb::value::Value;

/// Materials checked, with states sampled from each.
const MATERIALS: [&str; 9] = [
    "KQvK", "KRvKB", "KBNvK", "KQvKR", "KRRvKR", "KQRvKB", "KQvKNN", "KBBvKN", "KQvKQ",
];
const SAMPLES: usize = 400;

fn index(material: &Material) -> ChessIndex {
    Chess::index(material, Default::default()).unwrap()
}

fn distinct(successors: &mut Successors) -> BTreeSet<u64> {
    successors.distinct().iter().copied().collect()
}

/// The value of a position after a capture, looked up the way a user's query would.
fn lookup(tables: &TableSet, position: &Position) -> Value {
    let (canonical, flip) = position.material().canonical();
    let position = if flip { Chess::flip(position) } else { position.clone() };
    let state = index(&canonical).locate(&position);
    tables.require(&canonical).unwrap().value(state).unwrap()
}

/// What `expand` must say about a state, from position-level moves.
fn expected_expansion(index: &ChessIndex, tables: &TableSet, position: &Position) -> (Node, BTreeSet<u64>) {
    let moves = Chess::legal_moves(position, Default::default());
    if moves.is_empty() {
        let value = Chess::game_over(position, Default::default()).unwrap();
        return (Node::Terminal(value), BTreeSet::new());
    }
    let mut exits = Exits::default();
    let mut children = BTreeSet::new();
    for mv in moves {
        let after = Chess::play(position, mv);
        if after.material() == position.material() {
            children.insert(index.locate(&after));
        } else {
            exits.add(lookup(tables, &after));
        }
    }
    (Node::Inner(exits), children)
}

/// The parents of a state by brute force: every legal position of the material, one piece away
/// from the state's position with the other side to move, that has a move into it.
fn brute_force_parents(index: &ChessIndex, position: &Position) -> BTreeSet<u64> {
    let mut parents = BTreeSet::new();
    for from in 0..64u8 {
        let Some(piece) = position.piece_at(from) else {
            continue;
        };
        for to in (0..64u8).filter(|&sq| position.piece_at(sq).is_none()) {
            let mut board: [_; 64] = std::array::from_fn(|sq| position.piece_at(sq as u8));
            board[from as usize] = None;
            board[to as usize] = Some(piece);
            let Ok(parent) = Position::new(board, position.turn().other()) else {
                continue;
            };
            let reaches = Chess::legal_moves(&parent, Default::default())
                .into_iter()
                .any(|mv| Chess::play(&parent, mv) == *position);
            if reaches {
                parents.insert(index.locate(&parent));
            }
        }
    }
    parents
}

#[test]
fn space_agrees_with_positions_and_is_retro_consistent() {
    let subs: BTreeSet<Material> = MATERIALS
        .iter()
        .flat_map(|name| Chess::sub_materials(&material(name)))
        .collect();
    let sub_names: Vec<String> = subs.iter().map(|m| m.to_string()).collect();
    let names: Vec<&str> = sub_names.iter().map(String::as_str).collect();
    let (generator, dir) = generator("space", &names);
    let tables = generator.tables();
    let mut rng = Rng::new(7);
    for name in MATERIALS {
        let m = material(name);
        let index = index(&m);
        let space = Chess::space(&index, Default::default(), tables).unwrap();
        let (mut children, mut parents, mut back) = Default::default();
        let mut checked_edges = 0;
        for _ in 0..SAMPLES {
            let position = random_position(&mut rng, &m);
            let state = index.locate(&position);
            let canonical = index.decode(state).unwrap();
            let fen = Chess::format_position(&canonical);

            Successors::clear(&mut children);
            let node = space.expand(state, &mut children);
            let kids = distinct(&mut children);
            assert_eq!(
                (node, kids.clone()),
                expected_expansion(&index, tables, &canonical),
                "expand {fen}"
            );

            Successors::clear(&mut parents);
            space.parents(state, &mut parents);
            let dads = distinct(&mut parents);
            assert_eq!(dads, brute_force_parents(&index, &canonical), "parents {fen}");

            for &child in &kids {
                Successors::clear(&mut back);
                space.parents(child, &mut back);
                assert!(back.distinct().contains(&state), "child {child} of {fen}");
                checked_edges += 1;
            }
            for &parent in &dads {
                Successors::clear(&mut back);
                assert!(matches!(space.expand(parent, &mut back), Node::Inner(_)));
                assert!(back.distinct().contains(&state), "parent {parent} of {fen}");
                checked_edges += 1;
            }
        }
        assert!(checked_edges > SAMPLES * 5, "{name}: {checked_edges} edges");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn every_unmove_of_kqvk_matches_the_inverted_move_graph() {
    let m = material("KQvK");
    let index = index(&m);
    let (generator, dir) = generator("kqvk-unmoves", &["KvK"]);
    let space = Chess::space(&index, Default::default(), generator.tables()).unwrap();
    let mut inverted: BTreeMap<u64, BTreeSet<u64>> = BTreeMap::new();
    let legal: Vec<u64> = (0..index.states()).filter(|&s| index.decode(s).is_some()).collect();
    for &state in &legal {
        let position = index.decode(state).unwrap();
        for mv in Chess::legal_moves(&position, Default::default()) {
            let after = Chess::play(&position, mv);
            if after.material() == m {
                inverted.entry(index.locate(&after)).or_default().insert(state);
            }
        }
    }
    let mut parents = Successors::default();
    for &state in &legal {
        parents.clear();
        space.parents(state, &mut parents);
        let found = distinct(&mut parents);
        assert_eq!(found, inverted.remove(&state).unwrap_or_default(), "{state}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
