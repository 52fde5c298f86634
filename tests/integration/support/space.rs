//! What the tests of every game's solver view share: a state's node with its children, its
//! parents, and the check that the two directions agree (retro-consistency).

use std::collections::BTreeSet;

use egtb::solver::{Node, Space, Successors};

/// Distinct states as a set, checked to hold no repeat (the solver counts on that).
fn as_set(successors: &mut Successors, what: &str, state: u64) -> BTreeSet<u64> {
    let distinct = successors.distinct();
    let set: BTreeSet<u64> = distinct.iter().copied().collect();
    assert_eq!(set.len(), distinct.len(), "{what} of {state} repeat");
    set
}

/// What `expand` says about a state, and its in-table children.
pub fn expansion(space: &dyn Space, state: u64) -> (Node, BTreeSet<u64>) {
    let mut children = Successors::default();
    let node = space.expand(state, &mut children);
    (node, as_set(&mut children, "children", state))
}

/// The in-table parents of a legal state.
pub fn parents(space: &dyn Space, state: u64) -> BTreeSet<u64> {
    let mut parents = Successors::default();
    space.parents(state, &mut parents);
    as_set(&mut parents, "parents", state)
}

/// Checks, around a legal state with these children and parents, that every child lists it
/// among its parents and every parent among its children. Returns the edges checked.
pub fn assert_retro_consistent(
    space: &dyn Space,
    state: u64,
    children: &BTreeSet<u64>,
    parents: &BTreeSet<u64>,
) -> usize {
    for &child in children {
        assert!(
            self::parents(space, child).contains(&state),
            "{state} -> {child} has no un-move back"
        );
    }
    for &parent in parents {
        let (node, back) = expansion(space, parent);
        assert!(matches!(node, Node::Inner(_)), "parent {parent} of {state} has no move");
        assert!(back.contains(&state), "un-move {state} -> {parent} has no move back");
    }
    children.len() + parents.len()
}
