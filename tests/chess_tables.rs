//! Solved chess tables against published statistics (the figures of `docs/reference.md`).

mod common;

use common::temp_dir;
use egtb::games::chess::{Chess, Position};
use egtb::games::{Game, IndexSpace};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;
use egtb::stats::{SideStats, table_stats};
use egtb::table::TableSet;
use egtb::value::Value;

/// Solves a material (and what it needs) and returns its index, entries and statistics.
fn solve(name: &str) -> (<Chess as Game>::Index, Vec<u16>, [SideStats; 2]) {
    let dir = temp_dir(name);
    let material = Material::parse(GameId::Chess, name).unwrap();
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &Silent);
    let entries = generator.ensure(&material).unwrap().entries().to_vec();
    let index = Chess::index(&material, Default::default()).unwrap();
    let stats = table_stats(&index, &entries);
    std::fs::remove_dir_all(&dir).unwrap();
    (index, entries, stats)
}

/// Full-board positions whose value is `value`.
fn weighted_count(index: &impl IndexSpace, entries: &[u16], value: Value) -> u64 {
    entries
        .iter()
        .enumerate()
        .filter(|&(_, &e)| Value::from_entry(e) == Some(value))
        .map(|(s, _)| u64::from(index.weight(s as u64)))
        .sum()
}

fn wdl(s: &SideStats) -> (u64, u64, u64) {
    (s.win, s.draw, s.loss)
}

#[test]
fn kqvk_matches_published_statistics() {
    let (index, entries, [white, black]) = solve("KQvK");
    assert_eq!(wdl(&white), (144_508, 0, 0));
    assert_eq!(wdl(&black), (0, 23_048, 200_896));
    assert_eq!(white.longest.unwrap().0, 19);
    assert_eq!(black.longest.unwrap().0, 20);
    assert_eq!(weighted_count(&index, &entries, Value::Loss(0)), 364);
    assert_eq!(weighted_count(&index, &entries, Value::Win(19)), 8);
}

#[test]
fn krvk_matches_published_statistics() {
    let (index, entries, [white, black]) = solve("KRvK");
    assert_eq!(wdl(&white), (175_168, 0, 0));
    assert_eq!(wdl(&black), (0, 22_244, 201_700));
    assert_eq!(white.longest.unwrap().0, 31);
    assert_eq!(black.longest.unwrap().0, 32);
    assert_eq!(weighted_count(&index, &entries, Value::Loss(0)), 216);
}

#[test]
fn kbnvk_longest_win_is_65_plies() {
    let (_, _, [white, black]) = solve("KBNvK");
    assert_eq!(white.longest.unwrap().0, 65);
    assert_eq!(black.longest.unwrap().0, 66);
}

#[test]
fn kqvkr_longest_win_is_69_plies() {
    let (_, _, [white, _]) = solve("KQvKR");
    assert_eq!(white.longest.unwrap().0, 69);
}

/// The value of any position, looked up in its canonical table.
fn value_of(tables: &TableSet, position: &Position) -> Value {
    let (canonical, flip) = position.material().canonical();
    let position = if flip { Chess::flip(position) } else { position.clone() };
    let index = Chess::index(&canonical, Default::default()).unwrap();
    let state = index.locate(&position);
    tables.require(&canonical).unwrap().value(state).unwrap()
}

#[test]
fn every_value_is_the_best_over_the_moves() {
    let dir = temp_dir("best-move");
    let mut generator = Generator::<Chess>::new(&dir, Default::default(), &Silent);
    for name in ["KQvKR", "KBNvK", "KRvKN"] {
        let material = Material::parse(GameId::Chess, name).unwrap();
        generator.ensure(&material).unwrap();
        let index = Chess::index(&material, Default::default()).unwrap();
        let tables = generator.tables();
        let mut checked = [0u32; 3];
        for state in (0..index.states()).step_by(101) {
            let Some(position) = index.decode(state) else {
                continue;
            };
            let value = value_of(tables, &position);
            let moves = Chess::legal_moves(&position, Default::default());
            let best = moves
                .iter()
                .map(|&mv| Value::parent_of(value_of(tables, &Chess::play(&position, mv))))
                .max_by_key(|v| v.preference())
                .or_else(|| Chess::game_over(&position, Default::default()));
            assert_eq!(Some(value), best, "{name} {}", Chess::format_position(&position));
            checked[match value {
                Value::Win(_) => 0,
                Value::Draw => 1,
                Value::Loss(_) => 2,
            }] += 1;
        }
        assert!(checked.iter().all(|&c| c > 0), "{name}: {checked:?}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}
