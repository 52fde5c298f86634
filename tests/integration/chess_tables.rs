//! Solved chess tables against published statistics (the figures of `docs/reference.md`).

use egtb::games::chess::Chess;
use egtb::games::chess::index::ChessIndex;
use egtb::games::{Game, IndexSpace};
use egtb::material::Side;
use egtb::probe::Prober;
use egtb::stats::{SideStats, table_stats};
use egtb::value::Value;

use crate::support::Lookup;
use crate::support::chess::{assert_longest, generator, index, material};

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
    let mut lookup = Lookup::<Chess>::new(generator.tables(), Default::default());
    for name in materials {
        let index = index(&material(name));
        let mut checked = [0u32; 3];
        for state in (0..index.states()).step_by(101) {
            let Some(position) = index.decode(state) else {
                continue;
            };
            let value = lookup.value(&position);
            let moves = Chess::legal_moves(&position, Default::default());
            let best = moves
                .iter()
                .map(|&mv| Value::parent_of(lookup.value(&Chess::play(&position, mv))))
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

/// Positions of 3 and 4 pieces published with the mate distances of another program's DTM tables
/// (`docs/reference.md`): hand-picked positions with and without an en passant right (the
/// capture can turn a loss into a draw), and the longest mates of many materials. A distance is in
/// moves: `n` > 0, the side to move mates in `n` (DTM 2n - 1 plies); `n` < 0, it is mated in
/// -n (DTM -2n); 0, a draw. Each is looked up as `egtb query` looks it up.
#[test]
fn positions_published_with_their_mate_distances_have_them() {
    let published: [(&str, i16); 48] = [
        ("1k1K4/8/8/pP6/8/8/8/8 w - a6", 0),
        ("4k3/8/8/2p5/8/6P1/6K1/8 w - c6", 0),
        ("7K/k7/8/Pp6/8/8/8/8 w - -", -15),
        ("7K/k7/8/Pp6/8/8/8/8 w - b6", 0),
        ("8/8/8/8/pP6/8/K7/7k b - -", -15),
        ("8/8/8/8/8/1p6/K7/7k w - -", 0),
        ("8/8/8/8/pP6/8/K7/7k b - b3", 0),
        ("8/7k/8/8/3p4/1K6/2P5/8 b - -", -19),
        ("8/8/8/1k6/8/8/K5P1/8 w - -", 28),
        ("8/8/8/8/8/2k5/1R6/K7 w - -", 16),
        ("8/8/8/5k2/8/8/1Q6/K7 w - -", 10),
        ("8/8/8/8/8/2k3P1/6P1/K7 w - -", 32),
        ("8/8/8/8/8/4N3/3N4/K1k5 w - -", 1),
        ("8/7N/8/8/8/5k2/7P/K7 w - -", 27),
        ("8/3P4/KBk5/8/8/8/8/8 w - -", 31),
        ("8/8/7N/8/8/8/8/K1k1B3 w - -", 33),
        ("8/8/8/8/7B/8/3k4/K2B4 w - -", 19),
        ("8/8/1R6/2kP4/8/8/8/K7 w - -", 16),
        ("8/8/8/8/3N4/3k4/2R5/K7 w - -", 16),
        ("8/8/8/8/3B4/3k4/2R5/K7 w - -", 16),
        ("8/8/8/8/8/3k4/2R5/KR6 w - -", 7),
        ("8/8/8/3k4/8/4P3/8/K1Q5 w - -", 10),
        ("8/8/5k2/8/8/8/8/KN4Q1 w - -", 9),
        ("8/5B2/5k2/8/8/8/8/KQ6 w - -", 8),
        ("8/8/8/8/3k4/2R5/8/K6Q w - -", 6),
        ("1Q6/Q7/8/8/8/5k2/8/K7 w - -", 4),
        ("2K5/k7/7p/8/8/8/6P1/8 w - -", 33),
        ("8/8/8/k7/8/n7/K5P1/8 w - -", 29),
        ("8/8/8/k7/8/b7/K5P1/8 w - -", 29),
        ("8/5k2/2PK4/5r2/8/8/8/8 w - -", 43),
        ("8/8/8/k7/8/q7/K5P1/8 w - -", 29),
        ("8/8/8/8/p7/8/N7/k1K5 w - -", 7),
        ("8/8/8/8/8/8/n1K5/k1N5 w - -", 1),
        ("8/8/8/8/8/8/b7/k1K1N3 w - -", 1),
        ("8/8/8/8/8/8/r2N4/k1K5 w - -", 1),
        ("8/8/8/8/8/8/p7/k1K1B3 w - -", 1),
        ("8/8/8/8/8/8/n1K5/k1B5 w - -", 1),
        ("8/8/8/8/8/8/b7/k1K1B3 w - -", 1),
        ("8/8/K7/3p4/8/3k4/4R3/8 w - -", 26),
        ("8/2R5/8/8/7k/3K4/8/4n3 w - -", 40),
        ("8/8/8/8/8/2R5/8/3K1bk1 w - -", 29),
        ("8/8/8/8/8/1R6/6r1/K1k5 w - -", 19),
        ("8/8/8/8/8/1R6/6q1/K1k5 w - -", 19),
        ("3Q4/3K4/8/8/8/3k4/3p4/8 w - -", 28),
        ("8/8/8/8/8/2k5/2n5/KQ6 w - -", 21),
        ("8/6Q1/8/4b3/3k4/8/8/K7 w - -", 17),
        ("8/8/8/8/2r5/8/2k5/K6Q w - -", 35),
        ("8/8/8/8/8/8/8/qk1K2Q1 w - -", 13),
    ];
    let positions: Vec<_> = published
        .iter()
        .map(|&(fen, moves)| (fen, Chess::parse_position(fen).unwrap(), moves))
        .collect();
    let mut names: Vec<String> = positions
        .iter()
        .map(|(_, position, _)| Chess::material_of(position).canonical().0.to_string())
        .collect();
    names.sort();
    names.dedup();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let (_generator, dir) = generator("published-mates", &names);
    let mut prober = Prober::<Chess>::new(&dir, Default::default());
    for (fen, position, moves) in &positions {
        let expected = match *moves {
            0 => Value::Draw,
            n if n > 0 => Value::Win(2 * n.unsigned_abs() - 1),
            n => Value::Loss(2 * n.unsigned_abs()),
        };
        assert_eq!(prober.value(position).unwrap(), expected, "{fen}");
    }
}
