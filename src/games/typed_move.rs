//! A move as a person types it: each game lists the spellings its notations allow, strictest
//! first, and the first spelling that names any legal move decides which moves the text names.

/// The moves that the first of `spellings` to name any names: one where the text names one
/// move, several where it leaves out what tells them apart, none where no spelling fits.
pub fn first_named<M: Copy>(moves: &[M], spellings: &[&dyn Fn(M) -> bool]) -> Vec<M> {
    spellings
        .iter()
        .map(|names| moves.iter().copied().filter(|&mv| names(mv)).collect::<Vec<M>>())
        .find(|named| !named.is_empty())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_spelling_that_names_a_move_decides() {
        let moves = [1, 2, 3, 4];
        let even = |m: i32| m % 2 == 0;
        let big = |m: i32| m > 2;
        let none = |_: i32| false;
        assert_eq!(first_named(&moves, &[&none, &big, &even]), vec![3, 4]);
        assert_eq!(first_named(&moves, &[&even, &big]), vec![2, 4]);
        assert_eq!(first_named(&moves, &[&none]), Vec::<i32>::new());
    }
}
