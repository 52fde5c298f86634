//! Larger xiangqi tables build, and every sampled position's value is what its children's
//! values make it (read through the public API: decode, legal moves, play, orient, locate).

use std::time::Instant;

use egtb::games::xiangqi::{Xiangqi, XiangqiRules};
use egtb::games::{Game, IndexSpace};
use egtb::generate::Generator;
use egtb::material::{GameId, Material};
use egtb::solver::Silent;
use egtb::value::Value;

use crate::support::{Lookup, temp_dir};

/// Builds `name` and checks up to `samples` of its legal positions against their children.
fn consistent(name: &str, samples: u64) {
    let dir = temp_dir(name);
    let material = Material::parse(GameId::Xiangqi, name).unwrap();
    let rules = XiangqiRules::default();
    let mut generator = Generator::<Xiangqi>::new(&dir, rules, &Silent);
    let start = Instant::now();
    generator.ensure(&material).unwrap();
    eprintln!("{name}: built with its sub-tables in {:.2?}", start.elapsed());
    let index = Xiangqi::index(&material, rules).unwrap();
    let mut lookup = Lookup::<Xiangqi>::new(generator.tables(), rules);
    let mut seen = [0u64; 3];
    for state in (0..index.states()).step_by((index.states() / samples + 1) as usize) {
        let Some(position) = index.decode(state) else {
            continue;
        };
        let value = lookup.value(&position);
        let best = Xiangqi::legal_moves(&position, rules)
            .into_iter()
            .map(|mv| Value::parent_of(lookup.value(&Xiangqi::play(&position, mv))))
            .max_by_key(|v| v.preference())
            .unwrap_or(Value::LOST);
        assert_eq!(value, best, "{name}: {}", Xiangqi::format_position(&position));
        seen[match value {
            Value::Win(_) => 0,
            Value::Draw => 1,
            Value::Loss(_) => 2,
        }] += 1;
    }
    eprintln!("{name}: checked win/draw/loss {seen:?}");
    assert!(seen.iter().sum::<u64>() > samples / 4);
}

#[test]
fn krvkaaee_values_follow_from_their_moves() {
    consistent("KRvKAAEE", 60_000);
}

#[test]
fn knvkaa_values_follow_from_their_moves() {
    consistent("KNvKAA", 60_000);
}

#[test]
fn kcvka_values_follow_from_their_moves() {
    consistent("KCvKA", 60_000);
}

#[test]
fn kppvkae_values_follow_from_their_moves() {
    consistent("KPPvKAE", 60_000);
}

#[test]
fn black_attackers_flip_into_canonical_tables() {
    consistent("KRvKN", 60_000);
    consistent("KPvKP", 60_000);
    consistent("KCvKP", 60_000);
    consistent("KNvKPA", 60_000);
}
