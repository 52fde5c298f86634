//! Solved chess tables against published statistics (the figures of `docs/reference.md`).

use egtb::games::chess::Chess;
use egtb::games::chess::index::ChessIndex;
use egtb::games::{Game, IndexSpace};
use egtb::material::Side;
use egtb::stats::{SideStats, table_stats};
use egtb::value::Value;

use crate::support::chess::{assert_longest, generator, index, material, value_of};

/// Solves a material (and what it needs) and returns its index, entries and statistics.
fn solve(name: &str) -> (ChessIndex, Vec<u16>, [SideStats; 2]) {
    let (generator, _dir) = generator(name, &[name]);
    let entries = generator.tables().require(&material(name)).unwrap().entries().to_vec();
    let index = index(&material(name));
    let stats = table_stats(&index, &entries);
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
    assert_longest(
        &index,
        &entries,
        Side::First,
        &white,
        19,
        1,
        &["8/8/8/5k2/8/8/1Q6/K7 w"],
    );
    assert_longest(
        &index,
        &entries,
        Side::Second,
        &black,
        20,
        8,
        &["8/8/8/8/4k3/8/1Q6/K7 b"],
    );
    assert_eq!(weighted_count(&index, &entries, Value::Loss(0)), 364);
    assert_eq!(weighted_count(&index, &entries, Value::Win(19)), 8);
    assert_eq!(white.longest.unwrap().positions, 8);
}

#[test]
fn krvk_matches_published_statistics() {
    let (index, entries, [white, black]) = solve("KRvK");
    assert_eq!(wdl(&white), (175_168, 0, 0));
    assert_eq!(wdl(&black), (0, 22_244, 201_700));
    assert_longest(
        &index,
        &entries,
        Side::First,
        &white,
        31,
        121,
        &["8/8/8/8/8/2k5/1R6/K7 w"],
    );
    assert_longest(
        &index,
        &entries,
        Side::Second,
        &black,
        32,
        390,
        &["8/8/8/8/8/8/1Rk5/K7 b"],
    );
    assert_eq!(weighted_count(&index, &entries, Value::Loss(0)), 216);
}

#[test]
fn kbnvk_longest_win_is_65_plies() {
    let (index, entries, [white, black]) = solve("KBNvK");
    assert_longest(&index, &entries, Side::First, &white, 65, 138, &[]);
    assert_eq!(black.longest.unwrap().dtm, 66);
}

#[test]
fn kqvkr_longest_win_is_69_plies() {
    let (_, _, [white, _]) = solve("KQvKR");
    assert_eq!(white.longest.unwrap().dtm, 69);
}

#[test]
fn every_value_is_the_best_over_the_moves() {
    let materials = ["KQvKR", "KBNvK", "KRvKN"];
    let (generator, _dir) = generator("best-move", &materials);
    let tables = generator.tables();
    for name in materials {
        let index = index(&material(name));
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
}
