//! The GPU solver against the CPU solver on explicit random graphs, and its failures.

use std::borrow::Cow;

use super::*;
use crate::games::Game;
use crate::games::chess::Chess;
use crate::games::darkchess::DarkChess;
use crate::games::xiangqi::Xiangqi;
use crate::generate::Generator;
use crate::material::Material;
use crate::solver::test_graph::{Graph, Recorded};
use crate::solver::{Silent, cpu};
use crate::value::{BROKEN, DRAW, Value};

/// A graph's GPU rules: CSR arrays of children, parents and exit entries. Every second child and
/// parent is pushed a second time as a mapped successor, so the kernel's deduplication must
/// drop it for the counts to match the CPU's.
struct GraphRules<'a> {
    graph: &'a Graph,
    /// The capacity declared to the kernels (a test lowers it to provoke an overflow).
    max_successors: u32,
}

impl<'a> GraphRules<'a> {
    fn new(graph: &'a Graph) -> GraphRules<'a> {
        let widest = graph
            .children
            .iter()
            .chain(&graph.parents)
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        GraphRules {
            graph,
            max_successors: (2 * widest).max(1) as u32,
        }
    }
}

/// Offsets and concatenated items of per-state lists.
fn csr<T>(lists: &[Vec<T>], word: impl Fn(&T) -> u32) -> (Vec<u32>, Vec<u32>) {
    let mut starts = vec![0u32];
    let mut items = Vec::new();
    for list in lists {
        items.extend(list.iter().map(&word));
        starts.push(items.len() as u32);
    }
    (starts, items)
}

impl GpuRules for GraphRules<'_> {
    fn states(&self) -> u64 {
        self.graph.children.len() as u64
    }

    fn wgsl(&self) -> String {
        format!(
            "const GAME_MAX_SUCCESSORS: u32 = {}u;\nconst NO_MOVE: u32 = {}u;\n{}",
            self.max_successors,
            self.graph.no_move.entry(),
            GRAPH_WGSL
        )
    }

    fn data(&self) -> Vec<GpuData<'_>> {
        let (child_start, child) = csr(&self.graph.children, |&c| c as u32);
        let (parent_start, parent) = csr(&self.graph.parents, |&p| p as u32);
        let (exit_start, exit) = csr(&self.graph.exits, |v| u32::from(v.entry()));
        [
            ("graph_child_start", child_start),
            ("graph_child", child),
            ("graph_parent_start", parent_start),
            ("graph_parent", parent),
            ("graph_exit_start", exit_start),
            ("graph_exit", exit),
        ]
        .into_iter()
        .map(|(name, words)| GpuData {
            name,
            words: Cow::Owned(words),
        })
        .collect()
    }
}

const GRAPH_WGSL: &str = r#"
fn push_list(out: ptr<function, Successors>, first: u32, end: u32, from_parents: bool) {
    for (var i = first; i < end; i += 1u) {
        let state = select(graph_child[i], graph_parent[i], from_parents);
        succ_push_plain(out, state);
        if ((i - first) & 1u) == 1u {
            succ_push_mapped(out, state);
        }
    }
}

fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    let first = graph_child_start[state];
    let end = graph_child_start[state + 1u];
    let exits = graph_exit_start[state];
    let exits_end = graph_exit_start[state + 1u];
    if first == end && exits == exits_end {
        return node_terminal(NO_MOVE);
    }
    var node = node_inner();
    push_list(out, first, end, false);
    for (var i = exits; i < exits_end; i += 1u) {
        node_add_exit(&node, graph_exit[i]);
    }
    return node;
}

fn game_parents(state: u32, out: ptr<function, Successors>) {
    push_list(out, graph_parent_start[state], graph_parent_start[state + 1u], true);
}
"#;

fn graphs() -> impl Iterator<Item = (u64, Graph)> {
    (0..12u64).map(|seed| {
        let no_move = if seed % 2 == 0 { Value::LOST } else { Value::Draw };
        (seed, Graph::random(300 + seed as usize * 151, seed, no_move))
    })
}

#[test]
fn random_graphs_match_the_cpu_solver_byte_for_byte() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    eprintln!("GPU: {}", gpu.description());
    for (seed, graph) in graphs() {
        let expected = cpu::solve(&graph, &Silent);
        assert_eq!(expected, graph.reference(), "seed {seed}: CPU");
        let solution = gpu
            .solve(&GraphRules::new(&graph), &GpuOptions::default(), &Silent)
            .unwrap();
        assert_eq!(solution.entries, expected, "seed {seed}");
        assert!(solution.layers > 1, "seed {seed}");
        assert_eq!(solution.kernel_time.is_some(), gpu.timestamps);
        if let Some(time) = &solution.kernel_time {
            assert!(
                time.sweeps.len() >= solution.layers as usize,
                "seed {seed}: a sweep a layer at least"
            );
        }
    }
}

#[test]
fn graphs_split_over_many_bindings_match_the_cpu_solver() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    for (seed, graph) in graphs().step_by(3) {
        let states = graph.children.len() as u64;
        // About seven chunks, few layers per submission for many round trips, sweep runs of
        // every length.
        let options = GpuOptions {
            split_bytes: Some(3 * states / 6),
            layers_per_submission: 1 + seed as u32 % 3,
            sweep_run: Some(1 << (seed % 5)),
            ..GpuOptions::default()
        };
        let solution = gpu.solve(&GraphRules::new(&graph), &options, &Silent).unwrap();
        assert_eq!(solution.entries, cpu::solve(&graph, &Silent), "seed {seed}");
    }
}

#[test]
fn graphs_cut_into_many_windows_match_the_cpu_solver() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    for (seed, graph) in graphs().step_by(2) {
        let options = GpuOptions {
            window_states: Some(1 + seed * 100),
            ..GpuOptions::default()
        };
        let windows = Windows::new(graph.children.len() as u64, options.window_states);
        assert!(windows.iter().count() > 1, "seed {seed}");
        let solution = gpu.solve(&GraphRules::new(&graph), &options, &Silent).unwrap();
        assert_eq!(solution.entries, cpu::solve(&graph, &Silent), "seed {seed}");
    }
}

/// Solves each material on the CPU (with what it needs), then on the GPU from the same smaller
/// tables with the per-state kernels cut into windows of `window` states, and compares.
fn game_in_windows_equals_cpu<G: Game>(materials: &[&str], rules: G::Rules, window: u64) {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("egtb-gpu-windows-{}-{}", G::ID, std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut generator = Generator::<G>::new(&dir, rules, &Silent);
    let options = GpuOptions {
        window_states: Some(window),
        ..GpuOptions::default()
    };
    for name in materials {
        let material = Material::parse(G::ID, name).unwrap().canonical().0;
        let cpu = generator.ensure(&material).unwrap().entries().to_vec();
        let windows = Windows::new(cpu.len() as u64, Some(window)).iter().count();
        assert!(windows > 4, "{name}: {windows} windows");
        let index = G::index(&material, rules).unwrap();
        let gpu_rules = G::gpu_rules(&index, rules, generator.tables()).unwrap();
        let solution = gpu.solve(gpu_rules.as_ref(), &options, &Silent).unwrap();
        assert_eq!(solution.entries.len(), cpu.len(), "{name}");
        let differing = cpu.iter().zip(&solution.entries).filter(|(a, b)| a != b).count();
        assert_eq!(differing, 0, "{name}: {differing} entries differ");
        assert!(
            cpu.iter().any(|&e| e != DRAW && e != BROKEN),
            "{name} has decisive entries"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn chess_in_many_windows_matches_the_cpu() {
    game_in_windows_equals_cpu::<Chess>(&["KQvK", "KPvK"], Default::default(), 1 << 12);
}

#[test]
fn xiangqi_in_many_windows_matches_the_cpu() {
    game_in_windows_equals_cpu::<Xiangqi>(&["KRvKA"], Default::default(), 1 << 12);
}

#[test]
fn dark_chess_in_many_windows_matches_the_cpu() {
    game_in_windows_equals_cpu::<DarkChess>(&["KCvP"], Default::default(), 1 << 8);
}

#[test]
fn windows_cover_every_state_once_beyond_u32() {
    for (total, requested) in [
        (1000, Some(1)),
        (1000, Some(300)),
        (1000, None),
        ((1 << 33) + 7, Some(1 << 31)),
    ] {
        let windows = Windows::new(total, requested);
        assert_eq!(windows.states % WINDOW_ALIGN, 0);
        let mut next = 0;
        for window in windows.iter() {
            assert_eq!(window.start, next);
            assert!(window.end - window.start <= windows.states);
            next = window.end;
        }
        assert_eq!(next, total);
    }
    assert_eq!(Windows::new(1000, None).iter().count(), 1);
    assert_eq!(
        Windows::new(u64::from(u32::MAX), Some(u64::MAX)).states,
        MAX_WINDOW_STATES
    );
}

#[test]
fn layers_overflowing_a_small_queue_match_the_cpu_solver() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    for (seed, graph) in graphs().skip(1).step_by(3) {
        // One layer a submission at most: a layer that overflows its queue spans submissions.
        let options = GpuOptions {
            queue_capacity: Some(1 + seed as u32),
            layers_per_submission: 1 + (seed % 2) as u32,
            ..GpuOptions::default()
        };
        let recorded = Recorded::default();
        let solution = gpu.solve(&GraphRules::new(&graph), &options, &recorded).unwrap();
        let expected = cpu::solve(&graph, &Silent);
        assert_eq!(solution.entries, expected, "seed {seed}");
        let decisive = expected.iter().filter(|&&e| e != DRAW).count() as u64;
        let layers = recorded.phases().into_iter().find(|phase| phase.0 == "layers");
        assert_eq!(
            layers.map(|phase| phase.2),
            Some(decisive),
            "seed {seed}: states counted once"
        );
        if let Some(time) = &solution.kernel_time {
            assert!(
                time.sweeps.len() > solution.layers as usize,
                "seed {seed}: layers swept again"
            );
        }
    }
}

/// Solves `rules` on the GPU expecting a failure whose message contains `expected`.
fn fails_with(rules: &dyn GpuRules, options: GpuOptions, expected: &str) {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let error = gpu.solve(rules, &options, &Silent).unwrap_err();
    assert!(error.to_string().contains(expected), "{error}");
}

#[test]
fn a_sweep_run_that_does_not_divide_a_block_is_an_error() {
    let graph = Graph::random(500, 3, Value::LOST);
    let options = GpuOptions {
        sweep_run: Some(3),
        ..GpuOptions::default()
    };
    fails_with(&GraphRules::new(&graph), options, "sweep run");
}

#[test]
fn too_many_successors_is_an_error() {
    let graph = Graph::random(500, 3, Value::LOST);
    let mut rules = GraphRules::new(&graph);
    rules.max_successors = 1;
    fails_with(&rules, GpuOptions::default(), "GAME_MAX_SUCCESSORS");
}

#[test]
fn a_split_needing_too_many_bindings_is_an_error() {
    let graph = Graph::random(20_000, 5, Value::LOST);
    let options = GpuOptions {
        split_bytes: Some(48),
        ..GpuOptions::default()
    };
    fails_with(&GraphRules::new(&graph), options, "storage bindings");
}

/// Rules whose WGSL does not compile.
struct Broken;

impl GpuRules for Broken {
    fn states(&self) -> u64 {
        10
    }
    fn wgsl(&self) -> String {
        "const GAME_MAX_SUCCESSORS: u32 = 4u;\nfn game_expand(state: u32, out: ptr<function, Successors>) -> Node { return 1u; }\n"
            .to_string()
    }
    fn data(&self) -> Vec<GpuData<'_>> {
        Vec::new()
    }
}

#[test]
fn invalid_rules_wgsl_is_an_error() {
    fails_with(&Broken, GpuOptions::default(), "WGSL");
}

#[test]
fn a_submission_past_its_timeout_is_an_error() {
    let graph = Graph::random(200_000, 7, Value::LOST);
    let options = GpuOptions {
        timeout: Duration::ZERO,
        ..GpuOptions::default()
    };
    fails_with(&GraphRules::new(&graph), options, "did not finish");
}

/// A graph defined in WGSL, too large for explicit lists: groups of 64 states, each a terminal
/// loss, a win into it, and 62 losses into the win; the last state also has an exit into a win,
/// so its loss waits to be placed (PENDING) behind a layer of millions of queued losses.
struct Fans {
    states: u32,
}

const FAN: u32 = 64;

impl GpuRules for Fans {
    fn states(&self) -> u64 {
        u64::from(self.states)
    }

    fn wgsl(&self) -> String {
        format!(
            "const GAME_MAX_SUCCESSORS: u32 = {FAN}u;\nconst FAN: u32 = {FAN}u;\nconst EXIT_WIN: u32 = {}u;\n{FANS_WGSL}",
            Value::Win(1).entry()
        )
    }

    fn data(&self) -> Vec<GpuData<'_>> {
        Vec::new()
    }
}

const FANS_WGSL: &str = r#"
fn game_expand(state: u32, out: ptr<function, Successors>) -> Node {
    let first = state - state % FAN;
    if state == first {
        return node_terminal(LOST);
    }
    var node = node_inner();
    if state == first + 1u {
        succ_push_plain(out, first);
        return node;
    }
    succ_push_plain(out, first + 1u);
    if state == STATES - 1u {
        node_add_exit(&node, EXIT_WIN);
    }
    return node;
}

fn game_parents(state: u32, out: ptr<function, Successors>) {
    let first = state - state % FAN;
    if state == first {
        succ_push_plain(out, first + 1u);
    } else if state == first + 1u {
        for (var s = first + 2u; s < first + FAN; s += 1u) {
            succ_push_plain(out, s);
        }
    }
}
"#;

#[test]
fn a_loss_placed_behind_millions_of_queued_states_is_placed_in_its_layer() {
    let Some(gpu) = Gpu::open_unless_absent().unwrap() else {
        return;
    };
    let states = FAN * (1 << 18);
    let options = GpuOptions {
        queue_capacity: Some(states),
        ..GpuOptions::default()
    };
    let solution = gpu.solve(&Fans { states }, &options, &Silent).unwrap();
    let expected = |s: u32| match s % FAN {
        0 => Value::LOST,
        1 => Value::Win(1),
        _ => Value::Loss(2),
    };
    let wrong: Vec<u32> = (0..states)
        .filter(|&s| solution.entries[s as usize] != expected(s).entry())
        .take(5)
        .collect();
    assert!(wrong.is_empty(), "states {wrong:?}");
}
