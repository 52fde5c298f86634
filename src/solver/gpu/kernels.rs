//! The compute pipelines of one solve: the WGSL program (generated prelude, generic kernels, the
//! game's rules module), its bind groups and the dispatch grid.

use std::fmt::Write;

use anyhow::{Result, bail};

use super::GpuRules;
use super::buffers::{BLOCK_SHIFT, FIRST_CHUNK_BINDING, Layout, StateBuffers};
use super::device::Gpu;
use super::game_data::GameData;
use crate::solver::working::{DUE, EXIT_LOSS, HP, UNRESOLVED};
use crate::value::{BROKEN, DRAW, MAX_REACHED_DTM, Value};

/// What both modules share.
const COMMON_WGSL: &str = include_str!("../../../shaders/solver/common.wgsl");
/// The kernels that expand states, joined with a prelude, common.wgsl and a game's rules module.
const SOLVER_WGSL: &str = include_str!("../../../shaders/solver/solver.wgsl");
/// The layer sweep, joined with a prelude of plain (not atomic) chunks and common.wgsl.
const SELECT_WGSL: &str = include_str!("../../../shaders/solver/select.wgsl");
/// Threads per workgroup.
pub(super) const WORKGROUP: u64 = 256;

/// How the layer sweep spreads over threads (see shaders/solver/select.wgsl).
struct SweepShape {
    /// Vectors of eight entries a thread reads in a row, a divisor of a block's.
    run: u32,
    /// The threads, each taking every `threads`-th run; more on a table so large that a
    /// thread would take too many runs (see [`SweepShape::threads_for`]).
    threads: u64,
}

impl SweepShape {
    /// The shape that suits `gpu`, with a run of `run` vectors if given.
    fn new(gpu: &Gpu, run: Option<u32>) -> Result<SweepShape> {
        let block_vectors = 1 << (BLOCK_SHIFT - 3);
        if let Some(run) = run.filter(|&r| !(r.is_power_of_two() && r <= block_vectors)) {
            bail!("a sweep run of {run} vectors is not a power of two up to {block_vectors}");
        }
        let mut shape = if gpu.is_software() {
            // A software driver runs a workgroup at a time on each CPU thread, its lanes loading
            // one by one: a thread takes a whole block, whose flag it then checks once, and
            // there are few workgroups (KQvKR's sweeps on llvmpipe took half as long again
            // with a run of one vector, and twice as long with 2^20 threads).
            SweepShape {
                run: block_vectors,
                threads: 1 << 14,
            }
        } else {
            // Neighbouring threads read neighbouring vectors: contiguous loads. A few times
            // the threads a large GPU runs at once.
            SweepShape {
                run: 1,
                threads: 1 << 20,
            }
        };
        shape.run = run.unwrap_or(shape.run);
        Ok(shape)
    }

    /// The threads that sweep `vectors` vectors: the shape's, or more where a thread would
    /// otherwise take more than [`MAX_RUNS_PER_THREAD`] runs; never more than the runs.
    fn threads_for(&self, vectors: u64) -> u64 {
        let runs = vectors.div_ceil(u64::from(self.run));
        self.threads.max(runs.div_ceil(MAX_RUNS_PER_THREAD)).min(runs)
    }
}

/// The most runs a sweep thread takes. A software driver silently ends the loops of a thread
/// that has iterated too often (llvmpipe: 65,535 iterations of all its loops together); a run
/// of a block takes up to 17 iterations a vector (the vector, and two loops over its eight
/// entries where states join the layer), so a thread stays below 64 * 16 * 17 = 17,408
/// iterations on any table. Every other kernel runs a thread per state, entry word or queued
/// state.
const MAX_RUNS_PER_THREAD: u64 = 64;
// The initialisation gathers a workgroup's active blocks in the bits of one word.
const _: () = assert!(WORKGROUP.is_multiple_of(1 << BLOCK_SHIFT) && WORKGROUP <= 32 << BLOCK_SHIFT);
/// Control header words: the current layer, the latest layer an exit resolves a state at (the
/// CPU solver's `last_due`), the stop flag, error bits, the sweeps done, the first state of the
/// window of the per-state kernels (written by the host before each of their submissions), the
/// states whose loss is still to be placed (see `place` in shaders/solver/solver.wgsl), the broken
/// states the initialisation has met (modulo 2^32); then the states found in each layer.
pub(super) const CTRL_LAYER: usize = 0;
const CTRL_LAST_DUE: usize = 1;
pub(super) const CTRL_DONE: usize = 2;
pub(super) const CTRL_ERROR: usize = 3;
pub(super) const CTRL_SWEEP: usize = 4;
pub(super) const CTRL_WINDOW: usize = 5;
const CTRL_TO_PLACE: usize = 6;
pub(super) const CTRL_BROKEN: usize = 7;
pub(super) const CTRL_FOUND: u64 = 8;
/// The tag of a final entry whose parents are still to be updated (see shaders/solver/common.wgsl).
/// It takes bit 14 of an entry, so DTMs on the GPU stay below 2^14 - 2 plies (the CPU's below
/// 2^15 - 2): far beyond any table this program builds.
const FRESH: u32 = 0x4000;
/// The last layer the GPU may sweep: its propagation writes DTM `MAX_LAYER + 1`, entry
/// `MAX_LAYER + 2`, which must stay below the tag.
const MAX_LAYER: u32 = FRESH - 3;
/// Words of the control buffer.
pub(super) const CONTROL_WORDS: u64 = CTRL_FOUND + MAX_LAYER as u64 + 2;

/// The error bit of an exit read from a smaller table that holds what no solver writes there
/// (see [`crate::table::LoadedTable::reached_value`]): a damaged file, which the caller names.
pub(super) const ERROR_EXIT: u32 = 16;
/// What [`ERROR_EXIT`] means.
pub(super) const DAMAGED_EXIT: &str = "a position that a move reaches in a smaller table holds \
                                       what no solver writes there";

/// Error bits a kernel raises, their WGSL names and what they mean.
pub(super) const KERNEL_ERRORS: [(u32, &str, &str); 5] = [
    (
        1,
        "ERROR_SUCCESSORS",
        "a state has more successors than the game's GAME_MAX_SUCCESSORS",
    ),
    (2, "ERROR_HP", "a state has more than 255 distinct children"),
    (4, "ERROR_DTM", "a DTM beyond the longest the GPU solver handles"),
    (8, "ERROR_FRESH", "a resolved state was never swept (a solver bug)"),
    (ERROR_EXIT, "ERROR_EXIT", DAMAGED_EXIT),
];

/// Pipelines and bind groups, ready to dispatch.
pub(super) struct Kernels {
    pub initialise: wgpu::ComputePipeline,
    pub select: wgpu::ComputePipeline,
    pub place: wgpu::ComputePipeline,
    pub propagate: wgpu::ComputePipeline,
    pub advance: wgpu::ComputePipeline,
    pub finalise: wgpu::ComputePipeline,
    pub solver_group: wgpu::BindGroup,
    pub game_group: wgpu::BindGroup,
    /// Workgroups (x, y) covering one thread per state of a window.
    pub state_grid: (u32, u32),
    /// Workgroups (x, y) covering one thread per entry word of a window.
    pub word_grid: (u32, u32),
    /// Workgroups (x, y) of the layer sweep: a thread per run of vectors, up to a
    /// [`SweepShape`]'s threads.
    pub sweep_grid: (u32, u32),
    /// Sizes the propagation kernel's grid to the layer's queue, and the placing kernel's to
    /// the same queue, or to nothing in a layer with no state to place.
    pub plan: wgpu::ComputePipeline,
    plan_group: wgpu::BindGroup,
    /// The grids of the propagation kernel (bytes 0 to 11) and of the placing kernel (12 to
    /// 23), for indirect dispatches.
    pub propagation_grid: wgpu::Buffer,
}

impl Kernels {
    /// Builds the program for `rules` over `states`, whose data are already uploaded in `data`;
    /// the per-state kernels cover windows of `window_states` states (a multiple of 256).
    pub fn new(
        gpu: &Gpu,
        rules: &dyn GpuRules,
        states: &StateBuffers,
        control: &wgpu::Buffer,
        data: &GameData,
        sweep_run: Option<u32>,
        window_states: u64,
    ) -> Result<Kernels> {
        let layout = states.layout;
        let data_bindings = data.bindings.len() as u32;
        // The propagation planner binds the grid buffer besides the solver's and the game's.
        let storage_bindings = FIRST_CHUNK_BINDING + layout.chunks + data_bindings + 1;
        gpu.check_storage_bindings(
            &format!("the table, in bindings of at most {} bytes,", states.max_chunk_bytes()),
            storage_bindings,
            (layout.chunks + FIRST_CHUNK_BINDING).max(data_bindings),
        )?;
        let limits = &gpu.limits;
        let module = |label: &str, source: String| {
            gpu.checked(&format!("the {label} WGSL program"), || {
                gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                    label: Some(label),
                    source: wgpu::ShaderSource::Wgsl(source.into()),
                })
            })
        };
        let max_dim = limits.max_compute_workgroups_per_dimension;
        let sweep_shape = SweepShape::new(gpu, sweep_run)?;
        let prelude = |access| prelude(layout, states.queue_capacity, max_dim, window_states, access);
        let data_names = data.bindings.iter().map(|(name, _)| name.as_str());
        let mut solver_source = solver_program(prelude(Access::Atomic), rules, data_names);
        solver_source.push_str(&data.wgsl);
        let solver = module("solver", solver_source)?;
        let sweep = module("layer sweep", select_program(prelude(Access::Plain), &sweep_shape))?;
        let solver_layout = bind_layout(gpu, "egtb solver", FIRST_CHUNK_BINDING + layout.chunks, false);
        let game_layout = bind_layout(gpu, "egtb game data", data_bindings, true);
        let plan_layout = bind_layout(gpu, "egtb propagation grid", 1, false);
        let pipeline_layout = |groups: &[Option<&wgpu::BindGroupLayout>]| {
            gpu.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("egtb solver"),
                bind_group_layouts: groups,
                immediate_size: 0,
            })
        };
        // The grid buffer is group 2, which only the plan kernel's layout has: every pass sets
        // the group, but the other kernels' layouts stop at group 1, so wgpu never counts the
        // buffer as bound for storage in the dispatch that reads it as its indirect grid.
        let kernel_layout = pipeline_layout(&[Some(&solver_layout), Some(&game_layout)]);
        let plan_pipeline_layout = pipeline_layout(&[Some(&solver_layout), Some(&game_layout), Some(&plan_layout)]);
        let pipeline = |module, layout, entry| gpu.pipeline(module, layout, entry);
        let solver_buffers: Vec<&wgpu::Buffer> = [control, &states.queue, &states.active]
            .into_iter()
            .chain(&states.chunks)
            .collect();
        let game_buffers: Vec<&wgpu::Buffer> = data.bindings.iter().map(|(_, b)| b).collect();
        let propagation_grid = gpu.buffer(
            "the propagation grid",
            24,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::INDIRECT,
        )?;
        let [initialise, place, propagate] =
            gpu.pipelines(&solver, &kernel_layout, ["initialise", "place", "propagate"]);
        Ok(Kernels {
            initialise: initialise?,
            select: pipeline(&sweep, &kernel_layout, "select_layer")?,
            place: place?,
            propagate: propagate?,
            advance: pipeline(&solver, &kernel_layout, "advance")?,
            finalise: pipeline(&solver, &kernel_layout, "finalise")?,
            solver_group: bind_group(gpu, &solver_layout, &solver_buffers)?,
            game_group: bind_group(gpu, &game_layout, &game_buffers)?,
            state_grid: grid(window_states, max_dim)?,
            word_grid: grid(window_states / 2, max_dim)?,
            sweep_grid: grid(sweep_shape.threads_for(layout.vectors()), max_dim)?,
            plan: pipeline(&solver, &plan_pipeline_layout, "plan_propagation")?,
            plan_group: bind_group(gpu, &plan_layout, &[&propagation_grid])?,
            propagation_grid,
        })
    }

    /// Binds every group on `pass`.
    pub fn bind(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_bind_group(0, &self.solver_group, &[]);
        pass.set_bind_group(1, &self.game_group, &[]);
        pass.set_bind_group(2, &self.plan_group, &[]);
    }
}

/// How a module sees the chunks and the control words: as atomics (the kernels that update
/// states concurrently) or as plain words (the sweep, whose threads own their words).
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Access {
    Atomic,
    Plain,
}

/// Constants, the solver's bindings and the chunk accessors.
pub(super) fn prelude(
    layout: Layout,
    queue_capacity: u32,
    max_groups: u32,
    window_states: u64,
    access: Access,
) -> String {
    let mut source = String::new();
    let constants = [
        ("WINDOW_STATES", window_states.min(u64::from(u32::MAX))),
        ("WORKGROUP", WORKGROUP),
        ("CTRL_LAYER", CTRL_LAYER as u64),
        ("CTRL_LAST_DUE", CTRL_LAST_DUE as u64),
        ("CTRL_DONE", CTRL_DONE as u64),
        ("CTRL_ERROR", CTRL_ERROR as u64),
        ("CTRL_SWEEP", CTRL_SWEEP as u64),
        ("CTRL_WINDOW", CTRL_WINDOW as u64),
        ("CTRL_TO_PLACE", CTRL_TO_PLACE as u64),
        ("CTRL_BROKEN", CTRL_BROKEN as u64),
        ("CTRL_FOUND", CTRL_FOUND),
        ("QUEUE_CAPACITY", u64::from(queue_capacity)),
        ("MAX_GROUPS", u64::from(max_groups)),
        ("DRAW", u64::from(DRAW)),
        ("LOST", u64::from(Value::LOST.entry())),
        ("BROKEN", u64::from(BROKEN)),
        ("UNRESOLVED", u64::from(UNRESOLVED)),
        ("EXIT_LOSS", u64::from(EXIT_LOSS)),
        ("HP", u64::from(HP)),
        ("DUE", u64::from(DUE)),
        ("FRESH", u64::from(FRESH)),
        ("MAX_LAYER", u64::from(MAX_LAYER)),
        ("MAX_REACHED_ENTRY", u64::from(MAX_REACHED_DTM + 1)),
    ];
    for (name, value) in constants {
        let _ = writeln!(source, "const {name}: u32 = {value}u;");
    }
    for (bit, name, _) in KERNEL_ERRORS {
        let _ = writeln!(source, "const {name}: u32 = {bit}u;");
    }
    let word = match access {
        Access::Atomic => "atomic<u32>",
        Access::Plain => "u32",
    };
    let _ = writeln!(
        source,
        "@group(0) @binding(0) var<storage, read_write> control: array<{word}>;\n\
         @group(0) @binding(1) var<storage, read_write> queue: array<atomic<u32>>;\n\
         @group(0) @binding(2) var<storage, read_write> active_blocks: array<atomic<u32>>;"
    );
    source.push_str(&layout.wgsl(access == Access::Atomic));
    source
}

/// The program of the kernels that expand states: a prelude of atomic chunks, the game's data
/// bindings (`data_names`, in binding order), common.wgsl, solver.wgsl, the game's rules.
pub(super) fn solver_program<'n>(
    mut source: String,
    rules: &dyn GpuRules,
    data_names: impl IntoIterator<Item = &'n str>,
) -> String {
    for (binding, name) in data_names.into_iter().enumerate() {
        let _ = writeln!(
            source,
            "@group(1) @binding({binding}) var<storage, read> {name}: array<u32>;"
        );
    }
    source.push_str(COMMON_WGSL);
    source.push_str(SOLVER_WGSL);
    source.push_str(&rules.wgsl());
    source
}

/// The program of the layer sweep: a prelude of plain chunks, the sweep's shape, common.wgsl,
/// select.wgsl.
fn select_program(mut source: String, shape: &SweepShape) -> String {
    let _ = writeln!(source, "const SWEEP_RUN: u32 = {}u;", shape.run);
    source.push_str(COMMON_WGSL);
    source.push_str(SELECT_WGSL);
    source
}

pub(super) fn bind_layout(gpu: &Gpu, label: &str, count: u32, read_only: bool) -> wgpu::BindGroupLayout {
    let entries: Vec<wgpu::BindGroupLayoutEntry> = (0..count)
        .map(|binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    gpu.device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some(label),
        entries: &entries,
    })
}

pub(super) fn bind_group(
    gpu: &Gpu,
    layout: &wgpu::BindGroupLayout,
    buffers: &[&wgpu::Buffer],
) -> Result<wgpu::BindGroup> {
    let entries: Vec<wgpu::BindGroupEntry> = buffers
        .iter()
        .enumerate()
        .map(|(binding, buffer)| wgpu::BindGroupEntry {
            binding: binding as u32,
            resource: buffer.as_entire_binding(),
        })
        .collect();
    gpu.checked("the solver's bind groups", || {
        gpu.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout,
            entries: &entries,
        })
    })
}

/// A 2D grid of workgroups with at least `threads` threads, each side within `max_dim`.
pub(super) fn grid(threads: u64, max_dim: u32) -> Result<(u32, u32)> {
    let groups = threads.div_ceil(WORKGROUP).max(1);
    let x = groups.min(u64::from(max_dim));
    let y = groups.div_ceil(x);
    if y > u64::from(max_dim) {
        bail!("{threads} threads exceed the GPU's dispatch limits");
    }
    Ok((x as u32, y as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_cover_every_thread_within_the_dimension_limit() {
        assert_eq!(grid(1, 65535).unwrap(), (1, 1));
        assert_eq!(grid(256 * 65535 + 1, 65535).unwrap(), (65535, 2));
        let (x, y) = grid(u64::from(u32::MAX), 65535).unwrap();
        assert!(u64::from(x) * u64::from(y) * WORKGROUP >= u64::from(u32::MAX));
        assert!(grid(1 << 50, 65535).is_err());
    }

    #[test]
    fn no_sweep_thread_takes_more_than_its_share_of_runs() {
        for shape in [
            SweepShape {
                run: 16,
                threads: 1 << 14,
            },
            SweepShape {
                run: 1,
                threads: 1 << 20,
            },
        ] {
            for states in [8u64, 1 << 20, 327_854_016, 3_100_000_000, u64::from(u32::MAX)] {
                let vectors = states.div_ceil(8);
                let runs = vectors.div_ceil(u64::from(shape.run));
                let threads = shape.threads_for(vectors);
                assert!(threads >= 1 && threads <= runs, "{states} states: {threads} threads");
                assert!(runs.div_ceil(threads) <= MAX_RUNS_PER_THREAD, "{states} states");
            }
        }
    }
}
