// The rule passes of one round of rulings (the GPU twin of the passes in
// src/games/xiangqi/asian.rs; driven by src/solver/gpu/rounds.rs): a greatest fixed point of
// marks on the draws of a solved table.
// Every live state (a draw) starts with its candidate marks; then, until a pass removes nothing,
// each live state works out its answers from the marks of the states its moves reach, and each
// marked state keeps only the marks that the answers of the states its moves reach support.
// Marks only ever go, so the result is the greatest fixed point whatever order threads run in.
//
// Joined after the solver program (prelude, game data, common.wgsl, solver.wgsl, the game's rules
// module) and before the game's rule module, which defines:
//   fn game_rule_candidates(state: u32) -> u32;         // the marks a live state starts with
//   fn game_rule_answers(state: u32) -> u32;            // a live state's answers (reads rule_marks)
//   fn game_rule_keep(state: u32, marks: u32) -> u32;   // the marks a marked state keeps (reads
//                                                       // rule_answers)
// Both game_rule_candidates and game_rule_keep call rule_want(child) for every live state their
// moves reach: the next answer pass works out the answers of those states only. A pruning pass
// reads the answers of the states that the moves of the states still marked reach, which those
// states wanted in the pass before (or in the candidates pass).
// Entries, marks and answers are 16 bits a state, two states a word, cut into chunks as the
// solver cuts its working words: their bindings (group 3, from binding 2) and the accessors of
// their words (rule_entry_word, rule_mark_load/or/and, rule_answer_load/or/and) are generated
// before this module (src/solver/gpu/rounds.rs), as are the control words' numbers
// (RULE_CHANGED, RULE_STABLE).

// RULE_CHANGED: a pass removed a mark; RULE_STABLE: the last pass removed none (the passes
// recorded after it return at once).
@group(3) @binding(0) var<storage, read_write> rule_control: array<atomic<u32>>;

// A bit per state: its answers are wanted by the next answer pass.
@group(3) @binding(1) var<storage, read_write> rule_wanted: array<atomic<u32>>;

fn half_shift(state: u32) -> u32 {
    return 16u * (state & 1u);
}

// Whether a state is still a draw.
fn rule_live(state: u32) -> bool {
    return ((rule_entry_word(state >> 1u) >> half_shift(state)) & 0xFFFFu) == DRAW;
}

fn rule_marks(state: u32) -> u32 {
    return (rule_mark_load(state >> 1u) >> half_shift(state)) & 0xFFFFu;
}

fn rule_answers(state: u32) -> u32 {
    return (rule_answer_load(state >> 1u) >> half_shift(state)) & 0xFFFFu;
}

fn rule_want(state: u32) {
    atomicOr(&rule_wanted[state >> 5u], 1u << (state & 31u));
}

// Whether the answers of `state` are wanted, clearing the want.
fn rule_take_want(state: u32) -> bool {
    let bit = 1u << (state & 31u);
    return (atomicAnd(&rule_wanted[state >> 5u], ~bit) & bit) != 0u;
}

fn rule_stable() -> bool {
    return atomicLoad(&rule_control[RULE_STABLE]) != 0u;
}

// The candidates of every live state, into zeroed marks.
@compute @workgroup_size(WORKGROUP)
fn rule_candidates(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let state = thread_index(wg, groups, local);
    if state < STATES && rule_live(state) {
        let found = game_rule_candidates(state);
        if found != 0u {
            rule_mark_or(state >> 1u, found << half_shift(state));
        }
    }
}

// The answers of every wanted live state, replacing the last pass's (only this thread writes its
// half).
@compute @workgroup_size(WORKGROUP)
fn rule_answer(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let state = thread_index(wg, groups, local);
    if rule_stable() || state >= STATES || !rule_take_want(state) {
        return;
    }
    let found = game_rule_answers(state);
    let shift = half_shift(state);
    rule_answer_and(state >> 1u, ~(0xFFFFu << shift));
    rule_answer_or(state >> 1u, found << shift);
}

// Removes the marks that the answers no longer support.
@compute @workgroup_size(WORKGROUP)
fn rule_prune(
    @builtin(workgroup_id) wg: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_index) local: u32,
) {
    let state = thread_index(wg, groups, local);
    if rule_stable() || state >= STATES {
        return;
    }
    let held = rule_marks(state);
    if held == 0u {
        return;
    }
    let kept = game_rule_keep(state, held) & held;
    if kept != held {
        rule_mark_and(state >> 1u, ~((held & ~kept) << half_shift(state)));
        atomicStore(&rule_control[RULE_CHANGED], 1u);
    }
}

// One thread after each pruning pass: stable once a pass removed nothing.
@compute @workgroup_size(1)
fn rule_settle() {
    if rule_stable() {
        return;
    }
    if atomicExchange(&rule_control[RULE_CHANGED], 0u) == 0u {
        atomicStore(&rule_control[RULE_STABLE], 1u);
    }
}
