//! The dark chess index and the solver's view of it, against brute force: every slot of several
//! materials decodes and locates consistently, symmetric images share a slot, weights add up to
//! the full-board count, and the children, exits and parents the solver sees are exactly what
//! the legal moves (through the `Game` API) produce.

use std::collections::BTreeSet;

use egtb::games::darkchess::Position;
use egtb::games::darkchess::board::SYMMETRIES;
use egtb::games::darkchess::{DarkChess, DarkChessRules};
use egtb::games::{Game, IndexSpace};
use egtb::material::{Material, Side};
use egtb::solver::{Exits, Node};

use crate::support::Rng;
use crate::support::darkchess::{JUMP, build, material, moves_by_kind};
use crate::support::space::{assert_retro_consistent, expansion, parents};

/// Full-board placements of a material for one side to move: 32! / ((32 - n)! * prod count!).
fn placements(m: &Material) -> u64 {
    let mut total: u64 = 1;
    let mut free = 32;
    for side in Side::BOTH {
        for kind in 0..7 {
            for i in 1..=u64::from(m.count(side, kind)) {
                total = total * free / i;
                free -= 1;
            }
        }
    }
    total
}

#[test]
fn slots_round_trip_images_share_a_slot_and_weights_count_the_board() {
    for name in ["KvK", "KPvK", "AAvPP", "EEvEE", "KvPPPPP", "CCPvPP", "KAvKA", "RRvNNC"] {
        let m = material(name);
        let index = DarkChess::index(&m, JUMP).unwrap();
        let mut weights = [0u64; 2];
        let mut legal = 0u64;
        for state in 0..index.states() {
            let weight = index.weight(state);
            let Some(position) = index.decode(state) else {
                assert_eq!(weight, 0, "{name} {state}");
                continue;
            };
            legal += 1;
            assert_eq!(DarkChess::material_of(&position), m, "{name} {state}");
            assert_eq!(index.side_to_move(state), position.side_to_move);
            let mut images = BTreeSet::new();
            for g in 0..SYMMETRIES {
                let image = Position {
                    board: position.board.transformed(g),
                    ..position
                };
                assert_eq!(index.locate(&image), state, "{name} {state} g={g}");
                images.insert(image.board.masks);
            }
            assert_eq!(weight as usize, images.len(), "{name} {state}");
            weights[position.side_to_move.index()] += u64::from(weight);
        }
        assert!(legal > 0);
        assert_eq!(weights, [placements(&m); 2], "{name}");
    }
}

/// Checks every slot of a material: the solver's children, exits and terminal verdicts against
/// the legal moves, and its parents against the children inverted (retro-consistency).
/// Returns how many positions have no move.
fn check_against_brute_force(name: &str, rules: DarkChessRules) -> usize {
    let (generator, _dir) = build(name, rules);
    let m = material(name);
    let index = DarkChess::index(&m, rules).unwrap();
    let space = DarkChess::space(&index, rules, generator.tables()).unwrap();
    let n = index.states() as usize;
    let mut inverse: Vec<Vec<u64>> = vec![Vec::new(); n];
    let mut terminal = 0;
    for state in 0..n as u64 {
        let (node, found) = expansion(&space, state);
        let Some(position) = index.decode(state) else {
            assert_eq!(node, Node::Broken, "{name} {state}");
            continue;
        };
        let by_kind = moves_by_kind(generator.tables(), rules, &index, &position);
        let children: BTreeSet<u64> = by_kind.children.into_iter().collect();
        let mut exits = Exits::default();
        by_kind.exits.into_iter().for_each(|value| exits.add(value));
        let expected = if by_kind.moves == 0 {
            terminal += 1;
            Node::Terminal(rules.no_move_value())
        } else {
            Node::Inner(exits)
        };
        assert_eq!(node, expected, "{name} {}", DarkChess::format_position(&position));
        assert_eq!(found, children, "{name} {}", DarkChess::format_position(&position));
        for c in children {
            inverse[c as usize].push(state);
        }
    }
    for state in 0..n as u64 {
        if index.decode(state).is_none() {
            continue;
        }
        let expected: BTreeSet<u64> = inverse[state as usize].iter().copied().collect();
        assert_eq!(parents(&space, state), expected, "{name} {state}: parents");
    }
    terminal
}

#[test]
fn cannons_and_kings_agree_with_brute_force_under_default_rules() {
    for name in ["KvK", "KCvK", "CCvK", "KCvCP"] {
        check_against_brute_force(name, JUMP);
    }
    assert!(check_against_brute_force("EEvP", JUMP) > 0);
}

#[test]
fn symmetric_anchors_agree_with_brute_force() {
    check_against_brute_force("AAvPP", JUMP);
    check_against_brute_force("PPvPP", DarkChessRules::STEP_DRAW);
    check_against_brute_force("CCvEE", JUMP);
}

#[test]
fn stepping_cannons_and_drawn_stalemates_agree_with_brute_force() {
    for name in ["KPvK", "KCvKP"] {
        check_against_brute_force(name, DarkChessRules::STEP_DRAW);
    }
    // Two elephants can wall a soldier into a corner: positions without a move exist.
    assert!(check_against_brute_force("EEvP", DarkChessRules::STEP_DRAW) > 0);
}

/// Random legal states of larger materials: every child lists the state among its parents and
/// every parent lists it among its children.
#[test]
fn random_states_are_retro_consistent() {
    for (name, rules) in [
        ("AAvPPP", JUMP),
        ("CCvKPP", DarkChessRules::STEP_DRAW),
        ("KCPvKA", JUMP),
    ] {
        let (generator, _dir) = build(name, rules);
        let m = material(name);
        let index = DarkChess::index(&m, rules).unwrap();
        let space = DarkChess::space(&index, rules, generator.tables()).unwrap();
        let mut rng = Rng::new(1);
        let mut checked = 0;
        while checked < 3000 {
            let state = rng.below(index.states());
            let (node, children) = expansion(&space, state);
            if !matches!(node, Node::Inner(_)) {
                continue;
            }
            checked += 1;
            assert_retro_consistent(&space, state, &children, &parents(&space, state));
        }
    }
}
