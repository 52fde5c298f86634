// The solve of a round of rulings (src/solver/rounds.rs `Ruled`): the states ruled so far are
// terminal losses. Joined after the game's rules module, whose `game_expand` is renamed
// `unruled_game_expand`; `ruled_states` holds a bit per state.

fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    if ((ruled_states[state >> 5u] >> (state & 31u)) & 1u) != 0u {
        return node_terminal(LOST);
    }
    return unruled_game_expand(state, out);
}
