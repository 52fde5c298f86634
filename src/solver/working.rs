//! The solver's working word: one 16 bits a state while solving, for the CPU and GPU solvers.
//!
//! A word below [`UNRESOLVED`] is a final entry (see [`crate::value`]), [`BROKEN`] a broken slot.
//! An unresolved state holds either its HP counter or the layer its exits resolve it at:
//! - `UNRESOLVED | hp`, with [`EXIT_LOSS`] set when every exit wins for the opponent: then, once
//!   the HP counter reaches 0, the state is lost after the slowest of its children, exits
//!   included, and the solver expands it again to learn how slow its exits are (after the
//!   layer, in state order);
//! - `DUE | t`: resolved at DTM `t` unless a move does better: a win through an exit into a lost
//!   child (odd `t`, which no HP counter can change: the exit saves the state from losing), or a
//!   loss whose HP counter has reached 0 and whose slowest exit is slower than its moves (even
//!   `t`).
//!
//! So the working memory is the table itself, 2 bytes a state.

use crate::value::{BROKEN, Entry};

/// Tag of an unresolved state's word: its HP counter is in the low byte.
pub const UNRESOLVED: Entry = 0x8000;
/// Flag of an unresolved word: the exits are all wins for the opponent (its loss waits for its
/// slowest exit).
pub const EXIT_LOSS: Entry = 0x0100;
/// Mask of the HP counter in an unresolved word.
pub const HP: Entry = 0x00FF;
/// Tag of a state due at the layer in its low bits (see the module's notes).
pub const DUE: Entry = 0xC000;
/// The latest layer a `DUE` word can name (the next value would be [`BROKEN`]).
pub const MAX_DUE: u16 = BROKEN - DUE - 1;

/// Whether a working word is an unresolved state (tagged, not broken).
pub fn is_unresolved(word: Entry) -> bool {
    word >= UNRESOLVED && word != BROKEN
}

/// Whether a working word is a state due at a layer.
pub fn is_due(word: Entry) -> bool {
    word & DUE == DUE && word != BROKEN
}

/// The working word of an unresolved inner state at the start: its due layer if its exits give
/// one, else its HP counter (`None`: more than 255 distinct children).
pub fn initial(hp: usize, exit_win: Option<u16>, exit_loss: Option<u16>) -> Option<Entry> {
    let due = |t: u16| (t <= MAX_DUE).then_some(DUE | t);
    match (exit_win, exit_loss) {
        (Some(t), _) => due(t),
        (None, Some(t)) if hp == 0 => due(t),
        (None, loss) => {
            let hp = u8::try_from(hp).ok().filter(|_| loss.is_none_or(|t| t <= MAX_DUE))?;
            Some(UNRESOLVED | if loss.is_some() { EXIT_LOSS } else { 0 } | Entry::from(hp))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn working_words_never_meet_final_entries_or_each_other() {
        let hp = initial(255, None, Some(40)).unwrap();
        assert!(is_unresolved(hp) && !is_due(hp) && hp & HP == 255 && hp & EXIT_LOSS != 0);
        let due = initial(3, Some(MAX_DUE), None).unwrap();
        assert!(is_unresolved(due) && is_due(due) && due != BROKEN);
        assert_eq!(initial(0, None, Some(8)), Some(DUE | 8));
        assert_eq!(initial(256, None, None), None);
        assert_eq!(initial(1, Some(MAX_DUE + 1), None), None);
        assert!(!is_unresolved(BROKEN) && !is_due(BROKEN) && !is_unresolved(UNRESOLVED - 1));
    }
}
