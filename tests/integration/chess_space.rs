//! The solver's view of chess materials: children and exits against position-level moves,
//! un-moves against a brute force over the positions that move into a state, and
//! retro-consistency (P is a parent of C exactly when C is a child of P).

use std::collections::{BTreeMap, BTreeSet};

use egtb::games::chess::Chess;
use egtb::games::{Game, IndexSpace};
use egtb::material::Material;

use crate::support::Rng;
use crate::support::chess::{check_state, generator, index, material, random_position};
use crate::support::space::parents;

/// Materials checked, with states sampled from each.
const MATERIALS: [&str; 9] = [
    "KQvK", "KRvKB", "KBNvK", "KQvKR", "KRRvKR", "KQRvKB", "KQvKNN", "KBBvKN", "KQvKQ",
];
const SAMPLES: usize = 400;

#[test]
fn space_agrees_with_positions_and_is_retro_consistent() {
    let subs: BTreeSet<Material> = MATERIALS
        .iter()
        .flat_map(|name| Chess::sub_materials(&material(name)))
        .collect();
    let sub_names: Vec<String> = subs.iter().map(|m| m.to_string()).collect();
    let names: Vec<&str> = sub_names.iter().map(String::as_str).collect();
    let (generator, _dir) = generator("space", &names);
    let tables = generator.tables();
    let mut rng = Rng::new(7);
    for name in MATERIALS {
        let m = material(name);
        let index = index(&m);
        let space = Chess::space(&index, Default::default(), tables).unwrap();
        let mut checked_edges = 0;
        for _ in 0..SAMPLES {
            let position = random_position(&mut rng, &m);
            checked_edges += check_state(&space, &index, tables, index.locate(&position));
        }
        assert!(checked_edges > SAMPLES * 5, "{name}: {checked_edges} edges");
    }
}

#[test]
fn every_unmove_of_kqvk_matches_the_inverted_move_graph() {
    let m = material("KQvK");
    let index = index(&m);
    let (generator, _dir) = generator("kqvk-unmoves", &["KvK"]);
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
    for &state in &legal {
        let found = parents(&space, state);
        assert_eq!(found, inverted.remove(&state).unwrap_or_default(), "{state}");
    }
}
