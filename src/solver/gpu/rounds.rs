//! Rounds of rulings on the GPU: the twin of [`crate::solver::rounds`], with the same entries and
//! the same rulings.
//!
//! Each round solves the table with the states ruled so far as terminal losses (the game's
//! `game_expand` wrapped by `shaders/solver/ruled.wgsl`), then runs the rule passes of
//! `shaders/solver/rounds.wgsl` and the game's rule module on the solved entries: the candidate
//! marks of every draw, then passes of answers and pruning until one removes nothing. The states
//! left marked are the round's rulings; a round that rules nothing ends the solve. The solver's
//! program is compiled once: each round rewrites only the ruled states, the entries of its solve
//! go to the rule passes on the GPU, and the host reads back one control word every few passes
//! and the marks; the entries come back once, at the end. The rule passes bind the game data
//! where the solver uploaded it, so that the game's tables (the smaller tables' entries among
//! them) are on the GPU once. The passes' per-state buffers (entries, marks, answers) are cut
//! into chunks as the solver cuts its working words, so a table the solver splits over several
//! storage bindings is split the same way here.

use std::fmt::Write;

use anyhow::{Result, anyhow, bail};

use super::buffers::{Layout, read_chunks, write_chunk_switch};
use super::device::Gpu;
use super::kernels::{Access, bind_group, bind_layout, grid, prelude, solver_program};
use super::{GpuData, GpuOptions, GpuRules, GpuSolution, KernelTime, Solver};
use crate::rulings::{Reason, Ruling};
use crate::solver::Progress;

/// The generic rule passes, joined after the solver program and before the game's rule module.
const ROUNDS_WGSL: &str = include_str!("../../../shaders/solver/rounds.wgsl");
/// The expansion of a round's solve, joined after the game's rules module.
const RULED_WGSL: &str = include_str!("../../../shaders/solver/ruled.wgsl");
/// The game data of the ruled states, a bit per state, as [`RULED_WGSL`] reads it.
const RULED_STATES: &str = "ruled_states";
/// The game's expansion, and its name under [`RULED_WGSL`]'s wrapper.
const EXPAND: &str = "fn game_expand(";
const UNRULED_EXPAND: &str = "fn unruled_game_expand(";
/// Words of the rule passes' control buffer (see rounds.wgsl): two used, the buffer kept at
/// 16 bytes.
const RULE_CONTROL_WORDS: u64 = 4;
/// The control words: a pass removed a mark; the last pass removed none.
const RULE_CHANGED: usize = 0;
const RULE_STABLE: usize = 1;
/// Answer and pruning passes recorded per submission between two reads of the control word.
const PASSES_PER_SUBMISSION: u32 = 8;

/// A game's rules that rule on repetitions, in rounds.
pub trait GpuRounds {
    /// The rule module: `game_rule_candidates`, `game_rule_answers` and `game_rule_keep` (see the
    /// header of `shaders/solver/rounds.wgsl`), joined after the game's rules module.
    fn rule_wgsl(&self) -> String;
    /// Why a state left with `marks` (not zero) is ruled lost.
    fn reason(&self, marks: u32) -> Reason;
}

/// A game's rules with the states of `ruled` (a bit per state) made terminal losses.
struct RuledRules<'a> {
    rules: &'a dyn GpuRules,
    ruled: &'a [u32],
}

impl GpuRules for RuledRules<'_> {
    fn states(&self) -> u64 {
        self.rules.states()
    }

    fn wgsl(&self) -> String {
        let module = self.rules.wgsl().replacen(EXPAND, UNRULED_EXPAND, 1);
        format!("{module}{RULED_WGSL}")
    }

    fn data(&self) -> Vec<GpuData<'_>> {
        let mut data = self.rules.data();
        data.push(GpuData::new(RULED_STATES, self.ruled));
        data
    }

    fn split_data(&self) -> Vec<GpuData<'_>> {
        self.rules.split_data()
    }
}

/// Solves `rules` in rounds of rulings (see the module's header).
pub(super) fn solve_in_rounds(
    gpu: &Gpu,
    rules: &dyn GpuRules,
    rounds: &dyn GpuRounds,
    options: &GpuOptions,
    progress: &dyn Progress,
) -> Result<GpuSolution> {
    if rules.wgsl().matches(EXPAND).count() != 1 {
        bail!("a rules module solved in rounds must define `game_expand` exactly once");
    }
    let states = rules.states();
    let mut ruled = vec![0u32; states.div_ceil(32) as usize];
    if states == 0 {
        return gpu.solve(&RuledRules { rules, ruled: &ruled }, options, progress);
    }
    // One program for every round: only the ruled states change, rewritten in place.
    let solver = Solver::new(gpu, &RuledRules { rules, ruled: &ruled }, options)?;
    let ruled_buffer = solver
        .data(RULED_STATES)
        .ok_or_else(|| anyhow!("the ruled states are missing from the game data"))?;
    let (mut layers, mut kernel_time) = solver.run(progress)?;
    let passes = RulePasses::new(&solver, rules, rounds)?;
    let mut rulings = Vec::new();
    let mut order = 0u16;
    loop {
        let found = passes.run(&solver, options.timeout)?;
        if found.is_empty() {
            break;
        }
        order += 1;
        for (state, marks) in found {
            ruled[(state / 32) as usize] |= 1 << (state % 32);
            rulings.push(Ruling {
                state,
                order,
                reason: rounds.reason(marks),
            });
        }
        gpu.queue.write_buffer(ruled_buffer, 0, bytemuck::cast_slice(&ruled));
        let (more_layers, more_time) = solver.run(progress)?;
        layers += more_layers;
        kernel_time = kernel_time.zip(more_time).map(|(a, b)| add(a, b));
    }
    rulings.sort_by_key(|r| r.state);
    Ok(GpuSolution {
        entries: solver.read_entries()?,
        kernel_time,
        layers,
        rulings,
        rounds: order,
    })
}

/// The rule passes' own bindings in group 3 before their chunks: the control words and the
/// wanted answers (see rounds.wgsl).
const FIRST_RULE_CHUNK_BINDING: u32 = 2;

/// The per-state buffers of the rule passes, each cut into the chunks of `layout`: their
/// bindings and the accessors of their words that rounds.wgsl calls. One chunk keeps the plain
/// names (`rule_entries`, `rule_mark_words`, `rule_answer_words`), which the tests' probes use.
fn rule_chunks_wgsl(layout: Layout) -> String {
    let chunks = layout.chunks;
    let name = |base: &str, c: u32| {
        if chunks == 1 {
            base.to_string()
        } else {
            format!("{base}_{c}")
        }
    };
    let word_shift = layout.shift - 1;
    let mut s = String::new();
    let _ = writeln!(s, "const RULE_CHANGED: u32 = {RULE_CHANGED}u;");
    let _ = writeln!(s, "const RULE_STABLE: u32 = {RULE_STABLE}u;");
    let _ = writeln!(s, "const RULE_WORD_SHIFT: u32 = {word_shift}u;");
    let _ = writeln!(s, "const RULE_WORD_MASK: u32 = {}u;", (1u64 << word_shift) - 1);
    let buffers = [
        ("rule_entries", "u32"),
        ("rule_mark_words", "atomic<u32>"),
        ("rule_answer_words", "atomic<u32>"),
    ];
    for (b, (base, word)) in buffers.iter().enumerate() {
        for c in 0..chunks {
            let binding = FIRST_RULE_CHUNK_BINDING + b as u32 * chunks + c;
            let _ = writeln!(
                s,
                "@group(3) @binding({binding}) var<storage, read_write> {}: array<{word}>;",
                name(base, c)
            );
        }
    }
    let accessors = [
        (
            "rule_entry_word(w: u32) -> u32",
            "rule_entries",
            "return {}[w & RULE_WORD_MASK];",
        ),
        (
            "rule_mark_load(w: u32) -> u32",
            "rule_mark_words",
            "return atomicLoad(&{}[w & RULE_WORD_MASK]);",
        ),
        (
            "rule_mark_or(w: u32, v: u32)",
            "rule_mark_words",
            "atomicOr(&{}[w & RULE_WORD_MASK], v);",
        ),
        (
            "rule_mark_and(w: u32, v: u32)",
            "rule_mark_words",
            "atomicAnd(&{}[w & RULE_WORD_MASK], v);",
        ),
        (
            "rule_answer_load(w: u32) -> u32",
            "rule_answer_words",
            "return atomicLoad(&{}[w & RULE_WORD_MASK]);",
        ),
        (
            "rule_answer_or(w: u32, v: u32)",
            "rule_answer_words",
            "atomicOr(&{}[w & RULE_WORD_MASK], v);",
        ),
        (
            "rule_answer_and(w: u32, v: u32)",
            "rule_answer_words",
            "atomicAnd(&{}[w & RULE_WORD_MASK], v);",
        ),
    ];
    for (signature, base, body) in accessors {
        write_chunk_switch(&mut s, signature, "w >> RULE_WORD_SHIFT", chunks, |c| {
            body.replace("{}", &name(base, c))
        });
    }
    s
}

/// The kernel time of two solves.
fn add(mut a: KernelTime, b: KernelTime) -> KernelTime {
    a.initialise += b.initialise;
    a.sweeps.extend(b.sweeps);
    a.propagation += b.propagation;
    a
}

/// The program of the rule passes: the solver program (so that the game's functions find
/// everything they call) with the game data `data_names` (the names of [`GpuRules::data`], bound
/// in group 1 in this order), the rule buffers cut into the chunks of `rule_layout`, rounds.wgsl,
/// the game's rule module and `extra`.
fn rule_module(
    gpu: &Gpu,
    rules: &dyn GpuRules,
    rounds: &dyn GpuRounds,
    data_names: &[&str],
    rule_layout: Layout,
    extra: &str,
) -> Result<wgpu::ShaderModule> {
    // The rule passes run a thread per state in one dispatch: no windows.
    let states = u32::try_from(rules.states())
        .map_err(|_| anyhow::anyhow!("the GPU's rule passes take up to 2^32 - 1 states (use --backend cpu)"))?;
    // The solver program's prelude declares the table's chunks in group 0, which no rule pass
    // binds, so any cut of the table's states does; the rule buffers are cut by `rule_layout`
    // (the solver's cut, or the probe's one chunk).
    let prelude_layout = Layout::new(states, gpu.max_binding_bytes())?;
    let max_dim = gpu.limits.max_compute_workgroups_per_dimension;
    let mut source = solver_program(
        prelude(prelude_layout, 1, max_dim, rules.states(), Access::Atomic),
        rules,
        data_names.iter().copied(),
    );
    source.push_str(&rule_chunks_wgsl(rule_layout));
    source.push_str(ROUNDS_WGSL);
    source.push_str(&rounds.rule_wgsl());
    source.push_str(extra);
    let module = gpu.checked("the rule passes' WGSL program", || {
        gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("egtb rule passes"),
            source: wgpu::ShaderSource::Wgsl(source.into()),
        })
    })?;
    Ok(module)
}

/// The layouts of the rule passes: the game data (group 1) and the rule buffers (group 3: the
/// control words, the wanted answers, then the chunks of entries, marks and answers); groups 0
/// and 2 are the solver's, which no rule pass uses.
struct RuleLayouts {
    game: wgpu::BindGroupLayout,
    rule: wgpu::BindGroupLayout,
    pipeline: wgpu::PipelineLayout,
}

impl RuleLayouts {
    fn new(gpu: &Gpu, game_buffers: usize, chunks: u32) -> RuleLayouts {
        let game = bind_layout(gpu, "egtb game data", game_buffers as u32, true);
        let rule = bind_layout(gpu, "egtb rule passes", FIRST_RULE_CHUNK_BINDING + 3 * chunks, false);
        let pipeline = gpu.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("egtb rule passes"),
            bind_group_layouts: &[None, Some(&game), None, Some(&rule)],
            immediate_size: 0,
        });
        RuleLayouts { game, rule, pipeline }
    }

    fn pipeline(&self, gpu: &Gpu, module: &wgpu::ShaderModule, entry: &str) -> Result<wgpu::ComputePipeline> {
        gpu.pipeline(module, &self.pipeline, entry)
    }
}

/// The rule passes of one material: pipelines and buffers, reused every round.
struct RulePasses<'g> {
    gpu: &'g Gpu,
    candidates: wgpu::ComputePipeline,
    answer: wgpu::ComputePipeline,
    prune: wgpu::ComputePipeline,
    settle: wgpu::ComputePipeline,
    game_group: wgpu::BindGroup,
    rule_group: wgpu::BindGroup,
    /// How the states are cut into chunks, as the solver cuts them.
    layout: Layout,
    /// The solved entries, two to a word, a buffer per chunk.
    entries: Vec<wgpu::Buffer>,
    /// Marks and answers, two to a word, a buffer per chunk.
    marks: Vec<wgpu::Buffer>,
    answers: Vec<wgpu::Buffer>,
    control: wgpu::Buffer,
    /// A bit per state whose answers the next answer pass works out.
    wanted: wgpu::Buffer,
    control_readback: wgpu::Buffer,
    /// Workgroups covering one thread per state.
    state_grid: (u32, u32),
}

impl<'g> RulePasses<'g> {
    /// The rule passes over the entries `solver` solves, on its GPU, binding the game data it
    /// uploaded (its buffers of [`GpuRules::data`]; the ruled states and the split buffers it
    /// holds besides are for its own kernels).
    fn new(solver: &Solver<'g>, rules: &dyn GpuRules, rounds: &dyn GpuRounds) -> Result<RulePasses<'g>> {
        let gpu = solver.gpu;
        let states = rules.states();
        let layout = solver.layout();
        let data_names: Vec<&str> = rules.data().iter().map(|d| d.name).collect();
        let game_buffers = data_names
            .iter()
            .map(|&name| {
                solver
                    .data(name)
                    .ok_or_else(|| anyhow!("the game data '{name}' is missing from the solver"))
            })
            .collect::<Result<Vec<_>>>()?;
        let module = rule_module(gpu, rules, rounds, &data_names, layout, "")?;
        let bindings = FIRST_RULE_CHUNK_BINDING + 3 * layout.chunks;
        gpu.check_storage_bindings(
            "the GPU's rule passes for this table",
            bindings + game_buffers.len() as u32,
            bindings.max(game_buffers.len() as u32),
        )?;
        let layouts = RuleLayouts::new(gpu, game_buffers.len(), layout.chunks);
        let chunked = |what: &str, usage: wgpu::BufferUsages| {
            (0..layout.chunks)
                .map(|c| {
                    gpu.buffer(
                        &format!("{what} (chunk {c})"),
                        layout.chunk_bytes(c),
                        wgpu::BufferUsages::STORAGE | usage,
                    )
                })
                .collect::<Result<Vec<_>>>()
        };
        let entries = chunked("the rule passes' entries", wgpu::BufferUsages::COPY_DST)?;
        // Cleared each round, so COPY_DST.
        let marks = chunked(
            "the rule marks",
            wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        )?;
        let answers = chunked("the rule answers", wgpu::BufferUsages::COPY_DST)?;
        let wanted = gpu.buffer(
            "the wanted answers",
            4 * states.div_ceil(32),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?;
        let control = gpu.buffer(
            "the rule control words",
            4 * RULE_CONTROL_WORDS,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        )?;
        let readback = |what: &str, bytes: u64| {
            gpu.buffer(what, bytes, wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST)
        };
        let rule_buffers: Vec<&wgpu::Buffer> = [&control, &wanted]
            .into_iter()
            .chain(&entries)
            .chain(&marks)
            .chain(&answers)
            .collect();
        let [candidates, answer, prune] = gpu.pipelines(
            &module,
            &layouts.pipeline,
            ["rule_candidates", "rule_answer", "rule_prune"],
        );
        Ok(RulePasses {
            gpu,
            candidates: candidates?,
            answer: answer?,
            prune: prune?,
            settle: layouts.pipeline(gpu, &module, "rule_settle")?,
            game_group: bind_group(gpu, &layouts.game, &game_buffers)?,
            rule_group: bind_group(gpu, &layouts.rule, &rule_buffers)?,
            control_readback: readback("the rule control readback", 4 * RULE_CONTROL_WORDS)?,
            layout,
            entries,
            marks,
            answers,
            control,
            wanted,
            state_grid: grid(states, gpu.limits.max_compute_workgroups_per_dimension)?,
        })
    }

    /// The states that stay marked on the draws of the entries `solver` solved last (copied on
    /// the GPU), with their marks, by state.
    fn run(&self, solver: &Solver, timeout: std::time::Duration) -> Result<Vec<(u64, u32)>> {
        let gpu = self.gpu;
        let mut encoder = self.encoder();
        solver.copy_entries(&mut encoder, &self.entries);
        for buffer in self.marks.iter().chain(&self.answers) {
            encoder.clear_buffer(buffer, 0, None);
        }
        encoder.clear_buffer(&self.control, 0, None);
        encoder.clear_buffer(&self.wanted, 0, None);
        self.pass(&mut encoder, |pass| {
            pass.set_pipeline(&self.candidates);
            pass.dispatch_workgroups(self.state_grid.0, self.state_grid.1, 1);
        });
        loop {
            self.pass(&mut encoder, |pass| {
                for _ in 0..PASSES_PER_SUBMISSION {
                    pass.set_pipeline(&self.answer);
                    pass.dispatch_workgroups(self.state_grid.0, self.state_grid.1, 1);
                    pass.set_pipeline(&self.prune);
                    pass.dispatch_workgroups(self.state_grid.0, self.state_grid.1, 1);
                    pass.set_pipeline(&self.settle);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            });
            encoder.copy_buffer_to_buffer(&self.control, 0, &self.control_readback, 0, 4 * RULE_CONTROL_WORDS);
            gpu.submit_and_map(encoder.finish(), &self.control_readback, timeout)?;
            let stable = {
                let view = self.control_readback.get_mapped_range(..)?;
                bytemuck::cast_slice::<u8, u32>(&view)[RULE_STABLE] != 0
            };
            self.control_readback.unmap();
            encoder = self.encoder();
            if stable {
                break;
            }
        }
        let marks = read_chunks(gpu, self.layout, &self.marks, timeout)?;
        let found = marks
            .iter()
            .enumerate()
            .filter(|&(_, &m)| m != 0)
            .map(|(state, &m)| (state as u64, u32::from(m)))
            .collect();
        Ok(found)
    }

    fn encoder(&self) -> wgpu::CommandEncoder {
        self.gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default())
    }

    /// Records one compute pass with the rule passes' groups bound.
    fn pass(&self, encoder: &mut wgpu::CommandEncoder, record: impl FnOnce(&mut wgpu::ComputePass<'_>)) {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("egtb rule passes"),
            timestamp_writes: None,
        });
        pass.set_bind_group(1, &self.game_group, &[]);
        pass.set_bind_group(3, &self.rule_group, &[]);
        record(&mut pass);
    }
}

/// Runs `kernel`, an entry point of `extra` (WGSL joined after the rule module of `rules`), on
/// `threads` threads, with `input` as `rule_entries`; returns the `output_words` words it writes
/// to `rule_mark_words`. The tests that hold the rule module's functions equal to their
/// Rust twins run through it.
#[cfg(test)]
pub(crate) fn probe(
    gpu: &Gpu,
    rules: &dyn GpuRules,
    extra: &str,
    kernel: &str,
    threads: u64,
    input: &[u32],
    output_words: usize,
) -> Result<Vec<u32>> {
    let Some(rounds) = rules.rounds() else {
        bail!("the rules have no rounds to probe");
    };
    // One chunk, as large as the chunk accessors address.
    let one_chunk = Layout::new(1 << 31, u64::MAX)?;
    let data = rules.data();
    let data_names: Vec<&str> = data.iter().map(|d| d.name).collect();
    let module = rule_module(gpu, rules, rounds, &data_names, one_chunk, extra)?;
    // No solver holds the game data here: the probe uploads its own.
    let game_buffers = data
        .iter()
        .map(|d| gpu.upload(d.name, &d.words))
        .collect::<Result<Vec<_>>>()?;
    let layouts = RuleLayouts::new(gpu, game_buffers.len(), one_chunk.chunks);
    let pipeline = layouts.pipeline(gpu, &module, kernel)?;
    let input_buffer = gpu.upload("the probe's input", input)?;
    let output_bytes = 4 * output_words.max(1) as u64;
    let storage = |what: &str, bytes: u64, usage: wgpu::BufferUsages| {
        gpu.buffer(what, bytes, wgpu::BufferUsages::STORAGE | usage)
    };
    let output = storage("the probe's output", output_bytes, wgpu::BufferUsages::COPY_SRC)?;
    let unused = [0, 1, 2].map(|_| storage("an unused rule buffer", 16, wgpu::BufferUsages::empty()));
    let [answers, control, wanted] = unused;
    let (answers, control, wanted) = (answers?, control?, wanted?);
    let readback = gpu.buffer(
        "the probe's readback",
        output_bytes,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    )?;
    let game_group = bind_group(gpu, &layouts.game, &game_buffers.iter().collect::<Vec<_>>())?;
    let rule_group = bind_group(
        gpu,
        &layouts.rule,
        &[&control, &wanted, &input_buffer, &output, &answers],
    )?;
    let (x, y) = grid(threads, gpu.limits.max_compute_workgroups_per_dimension)?;
    let mut encoder = gpu
        .device
        .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
    {
        let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor::default());
        pass.set_bind_group(1, &game_group, &[]);
        pass.set_bind_group(3, &rule_group, &[]);
        pass.set_pipeline(&pipeline);
        pass.dispatch_workgroups(x, y, 1);
    }
    encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, output_bytes);
    gpu.submit_and_map(encoder.finish(), &readback, std::time::Duration::from_secs(600))?;
    let words = bytemuck::cast_slice::<u8, u32>(&readback.get_mapped_range(..)?)[..output_words].to_vec();
    readback.unmap();
    Ok(words)
}
