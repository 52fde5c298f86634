//! Solved dark chess tables against a definition-level solver: values found by plain fixed-point
//! iteration over the positions, their legal moves (through the `Game` API) and the exits' values,
//! layer by layer, with no HP counters and no un-moves.

use crate::support::darkchess::{JUMP, MovesByKind, build, material, moves_by_kind};
use egtb::games::darkchess::{DarkChess, DarkChessRules};
use egtb::games::{Game, IndexSpace};
use egtb::value::Value;

/// Longest DTM the definition-level solver looks for.
const HORIZON: u16 = 300;

/// The value of every slot by the definition (broken slots `None`), layer by layer: a position
/// wins at `d` when its best losing child has DTM `d - 1`, loses at `d` when every child wins
/// and the slowest has DTM `d - 1`; what is left is drawn.
fn by_definition(name: &str, rules: DarkChessRules) -> (Vec<Option<Value>>, Vec<Option<Value>>) {
    let (generator, _dir) = build(name, rules);
    let m = material(name);
    let index = DarkChess::index(&m, rules).unwrap();
    let table = generator.tables().require(&m).unwrap();
    let n = index.states();
    // Per legal slot: the known values of its exits and the slots of its in-table children.
    let mut nodes = Vec::new();
    for state in 0..n {
        let Some(position) = index.decode(state) else {
            continue;
        };
        let MovesByKind { moves, children, exits } = moves_by_kind(generator.tables(), rules, &index, &position);
        let terminal = (moves == 0).then(|| DarkChess::game_over(&position, rules).unwrap());
        nodes.push((state, exits, children, terminal));
    }
    let mut value: Vec<Option<Value>> = vec![None; n as usize];
    for d in 0..=HORIZON {
        let snapshot = value.clone();
        for (state, exits, children, terminal) in &nodes {
            if snapshot[*state as usize].is_some() {
                continue;
            }
            if let Some(end) = terminal {
                value[*state as usize] = Some(*end);
                continue;
            }
            let known: Vec<Option<Value>> = exits
                .iter()
                .map(|&v| Some(v))
                .chain(children.iter().map(|&c| snapshot[c as usize]))
                .collect();
            let quickest_win = known
                .iter()
                .filter_map(|v| match v {
                    Some(Value::Loss(l)) => Some(l + 1),
                    _ => None,
                })
                .min();
            let all_win = known.iter().all(|v| matches!(v, Some(Value::Win(_))));
            let slowest_loss = known
                .iter()
                .filter_map(|v| v.and_then(|v| v.dtm()))
                .max()
                .map(|w| w + 1);
            if quickest_win == Some(d) {
                value[*state as usize] = Some(Value::Win(d));
            } else if quickest_win.is_none() && all_win && slowest_loss == Some(d) {
                value[*state as usize] = Some(Value::Loss(d));
            }
        }
    }
    let reference = (0..n as usize)
        .map(|s| index.decode(s as u64).map(|_| value[s].unwrap_or(Value::Draw)))
        .collect();
    let solved = (0..n).map(|s| Value::from_entry(table.entry(s))).collect();
    (reference, solved)
}

#[test]
fn solved_tables_match_the_definition() {
    for (name, rules) in [
        ("KCvK", JUMP),
        ("CvPP", JUMP),
        ("EEvP", JUMP),
        ("KPvK", DarkChessRules::STEP_DRAW),
        ("EEvP", DarkChessRules::STEP_DRAW),
        ("KAvN", DarkChessRules::STEP_DRAW),
    ] {
        let (reference, solved) = by_definition(name, rules);
        let decisive = reference
            .iter()
            .filter(|v| matches!(v, Some(Value::Win(_) | Value::Loss(_))))
            .count();
        assert!(decisive > 0, "{name}");
        for (state, (r, s)) in reference.iter().zip(&solved).enumerate() {
            assert_eq!(r, s, "{name} {rules:?} state {state}");
        }
    }
}
