//! The GPU solver (wgpu + WGSL): the CPU solver's algorithm, with byte-identical results.
//!
//! A game takes part through [`GpuRules`]: a WGSL rules module and the u32 data buffers it reads.
//! The module is joined with the generic kernels of `shaders/solver/solver.wgsl` (see its header for the
//! functions a module defines and the helpers it may call). A layer is a sweep over the blocks
//! flagged active (`shaders/solver/select.wgsl`, plain loads at the width of memory) that selects
//! the layer's states into a queue, then a kernel that works through the queue, resolving parents
//! with every thread busy (after a kernel, run only in layers that have some, that places the
//! pending losses the queue holds). Everything stays on the GPU between layers: each submission runs several layers,
//! a one-thread kernel between two layers decides whether to go on (or to sweep a layer again
//! whose queue overflowed), and the host only reads back a few control words to report progress.
//! The kernels that run a thread per state (expanding every state first) or per entry word
//! (marking the draws last) go over windows of the index, a submission each, so that no thread number overflows 32 bits
//! and no dispatch runs for long on a large table.

mod buffers;
mod device;
mod game_data;
mod kernels;
mod rounds;

use std::borrow::Cow;
use std::time::Duration;

use anyhow::{Result, bail};

pub use device::Gpu;
pub use rounds::GpuRounds;
#[cfg(test)]
pub(crate) use rounds::probe;

use super::Progress;
use crate::rulings::Ruling;
use crate::value::Entry;
use buffers::{Layout, StateBuffers};
use game_data::GameData;
use kernels::{
    CONTROL_WORDS, CTRL_BROKEN, CTRL_DONE, CTRL_ERROR, CTRL_FOUND, CTRL_LAYER, CTRL_SWEEP, CTRL_WINDOW, DAMAGED_EXIT,
    ERROR_EXIT, KERNEL_ERRORS, Kernels,
};

/// Most states a GPU table may have: the WGSL rules modules number states in 32 bits. The
/// kernels that run a thread per state go over windows of the index (see
/// [`GpuOptions::window_states`]), so no thread number overflows below this.
pub const MAX_GPU_STATES: u64 = u32::MAX as u64;

/// States per window of the kernels that run a thread per state, by default: one dispatch covers
/// every table up to 64 Mi states, and a larger one is cut into dispatches of bounded length.
pub const DEFAULT_WINDOW_STATES: u64 = 1 << 26;

/// A GPU solve that read, in a smaller table, what no solver writes where a move reaches it: a
/// file altered with its checksum mended, which the caller, knowing the files, names.
#[derive(Debug)]
pub struct DamagedExit;

impl std::fmt::Display for DamagedExit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(DAMAGED_EXIT)
    }
}

impl std::error::Error for DamagedExit {}

/// A named u32 buffer that a rules module reads as `var<storage, read> NAME: array<u32>`.
pub struct GpuData<'a> {
    /// A WGSL identifier, unique among the game's buffers.
    pub name: &'static str,
    /// The buffer's words.
    pub words: Cow<'a, [u32]>,
}

impl<'a> GpuData<'a> {
    /// The buffer `name`, borrowing or owning its words (`&Vec<u32>`, `&[u32]` or `Vec<u32>`);
    /// the solver uploads it once, read-only.
    pub fn new(name: &'static str, words: impl Into<Cow<'a, [u32]>>) -> GpuData<'a> {
        GpuData {
            name,
            words: words.into(),
        }
    }
}

/// One material's space as the GPU kernels see it.
pub trait GpuRules {
    /// Number of states, as [`crate::solver::Space::states`].
    fn states(&self) -> u64;
    /// The WGSL rules module: `GAME_MAX_SUCCESSORS`, `game_expand` and `game_parents` (see the
    /// header of `shaders/solver/solver.wgsl`), reading the buffers of [`GpuRules::data`] by name.
    fn wgsl(&self) -> String;
    /// The data buffers the module reads, a binding each.
    fn data(&self) -> Vec<GpuData<'_>>;
    /// Data that may exceed one binding (the smaller tables' entries): the solver cuts each
    /// buffer over as many bindings as the split size needs, and the module reads word `i` of
    /// buffer `NAME` with `NAME_word(i)`. The plain solve reads them; the rule passes of
    /// [`GpuRounds`] take [`GpuRules::data`] only.
    fn split_data(&self) -> Vec<GpuData<'_>> {
        Vec::new()
    }
    /// The rules that rule on repetitions, in rounds (see [`GpuRounds`]); `None`: a plain solve.
    fn rounds(&self) -> Option<&dyn GpuRounds> {
        None
    }
}

/// Settings of a GPU solve.
#[derive(Clone, Debug)]
pub struct GpuOptions {
    /// The most bytes of working memory bound at one binding; `None`: the device's limit.
    /// Tests set it tiny to exercise tables split over many bindings.
    pub split_bytes: Option<u64>,
    /// States a layer may queue for the propagation kernel; `None`: a quarter of the states.
    /// A layer larger than that is swept again after its queue is worked off.
    pub queue_capacity: Option<u32>,
    /// Vectors of eight entries a sweep thread reads in a row (1, 2, 4, 8 or 16); `None`: what
    /// suits the device (1 on a GPU, 16 on a software driver). Tests run every length.
    pub sweep_run: Option<u32>,
    /// States a dispatch of the kernels that run a thread per state (the initialisation and
    /// the final draw marking) covers: a window of the index, whose first state the kernels
    /// read from the control words, each window its own submission. Rounded up to a multiple
    /// of 256; `None`: [`DEFAULT_WINDOW_STATES`]. Tests set it small to cut tables into many
    /// windows.
    pub window_states: Option<u64>,
    /// Layers run per submission between two reads of the control words.
    pub layers_per_submission: u32,
    /// The longest wait for one submission before giving up.
    pub timeout: Duration,
}

impl GpuOptions {
    /// The most bytes one storage binding may hold: the split asked for, within the device's
    /// limit.
    pub(super) fn binding_bytes(&self, gpu: &Gpu) -> u64 {
        let limit = gpu.max_binding_bytes();
        self.split_bytes.unwrap_or(limit).min(limit)
    }
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            split_bytes: None,
            queue_capacity: None,
            sweep_run: None,
            window_states: None,
            layers_per_submission: 16,
            timeout: Duration::from_secs(600),
        }
    }
}

/// A solved table and what the solve took.
#[derive(Clone, Debug)]
pub struct GpuSolution {
    /// The entry of every state, in state order.
    pub entries: Vec<Entry>,
    /// Time spent in the kernels, measured by timestamp queries when the device has them.
    pub kernel_time: Option<KernelTime>,
    /// Layers swept (in every round's solve).
    pub layers: u32,
    /// Positions ruled lost by repetition rules, ordered by state.
    pub rulings: Vec<Ruling>,
    /// Rounds of rulings that ruled something.
    pub rounds: u16,
}

/// Kernel time by phase: expanding every state, then the layers: their sweeps, and the rest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelTime {
    /// The initialisation, which expands every state.
    pub initialise: Duration,
    /// Each layer sweep, in order (a layer whose queue overflowed is swept more than once).
    pub sweeps: Vec<Duration>,
    /// Every other pass: the propagation of each layer (sizing its grid, resolving the parents,
    /// advancing the layer), the final draw marking, and the sweeps recorded after the last
    /// layer, which find the solve done and return at once.
    pub propagation: Duration,
}

impl KernelTime {
    /// All the sweeps together.
    pub fn sweeping(&self) -> Duration {
        self.sweeps.iter().sum()
    }

    /// The layers: sweeps and propagation.
    pub fn layers(&self) -> Duration {
        self.sweeping() + self.propagation
    }

    /// All the kernel time: initialisation and layers.
    pub fn total(&self) -> Duration {
        self.initialise + self.layers()
    }

    /// The slowest sweep; a sweep of every block reads about [`SWEEP_BYTES_PER_STATE`] bytes a
    /// state.
    pub fn slowest_sweep(&self) -> Option<Duration> {
        self.sweeps.iter().copied().max()
    }
}

/// Bytes a layer sweep reads per state of a block it visits: the state's 16-bit working word.
/// Besides, it reads a flag word per block of 128 states.
pub const SWEEP_BYTES_PER_STATE: u64 = 2;

/// Opens the GPU and solves one space (see [`Gpu::solve`] to reuse a device).
pub fn solve(rules: &dyn GpuRules, options: &GpuOptions, progress: &dyn Progress) -> Result<GpuSolution> {
    Gpu::open()?.solve(rules, options, progress)
}

/// Header words of the control buffer read back after each submission.
const HEADER_WORDS: u64 = CTRL_FOUND;

impl Gpu {
    /// Solves `rules` on this GPU, in rounds of rulings when the rules have them; the entries
    /// and rulings equal the CPU solver's.
    pub fn solve(&self, rules: &dyn GpuRules, options: &GpuOptions, progress: &dyn Progress) -> Result<GpuSolution> {
        if let Some(rounds) = rules.rounds() {
            return rounds::solve_in_rounds(self, rules, rounds, options, progress);
        }
        if rules.states() == 0 {
            return Ok(GpuSolution {
                entries: Vec::new(),
                kernel_time: self.timestamps.then(KernelTime::default),
                layers: 0,
                rulings: Vec::new(),
                rounds: 0,
            });
        }
        let solver = Solver::new(self, rules, options)?;
        let (layers, kernel_time) = solver.run(progress)?;
        Ok(GpuSolution {
            entries: solver.read_entries()?,
            kernel_time,
            layers,
            rulings: Vec::new(),
            rounds: 0,
        })
    }

    /// Makes `start` the first state of the window the next submission's per-state kernels
    /// cover (written before that submission runs).
    fn set_window(&self, control: &wgpu::Buffer, start: u64) {
        // Windows start below `MAX_GPU_STATES`.
        let word = start as u32;
        self.queue
            .write_buffer(control, 4 * CTRL_WINDOW as u64, bytemuck::bytes_of(&word));
    }

    /// A read-only storage buffer holding `words` (at least one word: bindings cannot be empty).
    fn upload(&self, name: &str, words: &[u32]) -> Result<wgpu::Buffer> {
        let bytes = 4 * words.len().max(1) as u64;
        if bytes > self.max_binding_bytes() {
            bail!(
                "game data '{name}' ({bytes} bytes) exceeds the GPU's storage binding limit of {} bytes; use --backend cpu",
                self.max_binding_bytes()
            );
        }
        let buffer = self.buffer(
            &format!("game data '{name}'"),
            bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?;
        if !words.is_empty() {
            self.queue.write_buffer(&buffer, 0, bytemuck::cast_slice(words));
        }
        Ok(buffer)
    }
}

/// The solver of one table on the GPU: its buffers, its uploaded data and its compiled kernels.
/// A solve in rounds runs it again with new data (see [`Solver::data`]) without compiling anew.
pub(super) struct Solver<'g> {
    gpu: &'g Gpu,
    buffers: StateBuffers,
    control: wgpu::Buffer,
    data: GameData,
    windows: Windows,
    kernels: Kernels,
    layers_per_submission: u32,
    timeout: Duration,
}

impl<'g> Solver<'g> {
    /// Uploads the data of `rules` (at least one state) and compiles its kernels.
    pub fn new(gpu: &'g Gpu, rules: &dyn GpuRules, options: &GpuOptions) -> Result<Solver<'g>> {
        let states = rules.states();
        if states > MAX_GPU_STATES {
            bail!(
                "{states} states are more than the GPU solver numbers in 32 bits ({MAX_GPU_STATES}); use --backend cpu"
            );
        }
        let split = options.binding_bytes(gpu);
        let layout = Layout::new(states as u32, split)?;
        let queue = options.queue_capacity.unwrap_or(layout.states.div_ceil(4));
        let buffers = StateBuffers::new(gpu, layout, queue)?;
        let control = gpu.buffer(
            "the control buffer",
            CONTROL_WORDS * 4,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
        )?;
        // The storage bindings a kernel may have less the solver's (and the propagation grid).
        let free_bindings = (gpu.limits.max_storage_buffers_per_shader_stage)
            .saturating_sub(buffers::FIRST_CHUNK_BINDING + layout.chunks + 1)
            .min(gpu.limits.max_bindings_per_bind_group);
        let data = GameData::upload(gpu, rules, split, free_bindings)?;
        let windows = Windows::new(states, options.window_states);
        let kernels = Kernels::new(gpu, rules, &buffers, &control, &data, options.sweep_run, windows.states)?;
        Ok(Solver {
            gpu,
            buffers,
            control,
            data,
            windows,
            kernels,
            layers_per_submission: options.layers_per_submission.max(1),
            timeout: options.timeout,
        })
    }

    /// The buffer of the game data named `name`: bound by the rule passes of a solve in rounds,
    /// or rewritten before the next run.
    pub fn data(&self, name: &str) -> Option<&wgpu::Buffer> {
        self.data.bindings.iter().find(|(n, _)| n == name).map(|(_, b)| b)
    }

    /// Solves the table from scratch: the layers swept, and the kernel time.
    pub fn run(&self, progress: &dyn Progress) -> Result<(u32, Option<KernelTime>)> {
        let gpu = self.gpu;
        let kernels = &self.kernels;
        let control = &self.control;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        for buffer in self
            .buffers
            .chunks
            .iter()
            .chain([&self.buffers.queue, &self.buffers.active, control])
        {
            encoder.clear_buffer(buffer, 0, None);
        }
        gpu.queue.submit([encoder.finish()]);
        let states = u64::from(self.buffers.layout.states);
        let layers_per_submission = self.layers_per_submission;
        let mut run = Submissions::new(gpu, control, layers_per_submission, self.timeout)?;

        progress.phase("moves", states);
        let (mut broken, mut broken_word) = (0, 0u32);
        for window in self.windows.iter() {
            gpu.set_window(control, window.start);
            let head = run.submit(kernels, 0, |passes| {
                passes.run(Phase::Initialise, |pass| {
                    pass.set_pipeline(&kernels.initialise);
                    dispatch(pass, kernels.state_grid);
                });
            })?;
            // A window has fewer than 2^32 states, so its count is the word's change.
            broken += u64::from(head.control[CTRL_BROKEN].wrapping_sub(broken_word));
            broken_word = head.control[CTRL_BROKEN];
            progress.advance(window.end - window.start);
        }

        // Every state but the broken ones is found at some layer, unless it is drawn.
        progress.phase("layers", states - broken);
        // The layer a submission starts at, and how many of its states the submission before
        // reported already (a layer whose queue overflowed goes on in the next submission).
        let (mut layer, mut reported) = (0, 0);
        let layers = loop {
            let batch = run.submit(kernels, layer, |passes| {
                for _ in 0..layers_per_submission {
                    passes.run(Phase::Sweep, |pass| {
                        pass.set_pipeline(&kernels.select);
                        dispatch(pass, kernels.sweep_grid);
                    });
                    passes.run(Phase::Propagation, |pass| {
                        pass.set_pipeline(&kernels.plan);
                        pass.dispatch_workgroups(1, 1, 1);
                        pass.set_pipeline(&kernels.place);
                        pass.dispatch_workgroups_indirect(&kernels.propagation_grid, 12);
                        pass.set_pipeline(&kernels.propagate);
                        pass.dispatch_workgroups_indirect(&kernels.propagation_grid, 0);
                        pass.set_pipeline(&kernels.advance);
                        pass.dispatch_workgroups(1, 1, 1);
                    });
                }
            })?;
            let found: u64 = batch.found.iter().map(|&f| u64::from(f)).sum();
            progress.advance(found - reported);
            let next = batch.control[CTRL_LAYER];
            reported = batch.found.get((next - layer) as usize).map_or(0, |&f| u64::from(f));
            layer = next;
            if batch.control[CTRL_DONE] != 0 {
                break layer + 1;
            }
        };

        for window in self.windows.iter() {
            gpu.set_window(control, window.start);
            run.submit(kernels, layer, |passes| {
                passes.run(Phase::Propagation, |pass| {
                    pass.set_pipeline(&kernels.finalise);
                    dispatch(pass, kernels.word_grid);
                });
            })?;
        }
        Ok((layers, run.kernel_time))
    }

    /// How the states are cut into chunks.
    fn layout(&self) -> Layout {
        self.buffers.layout
    }

    /// Records copies of the solved entries into `targets`, chunk `c` into `targets[c]`: buffers
    /// of this solver's [`Solver::layout`].
    pub fn copy_entries(&self, encoder: &mut wgpu::CommandEncoder, targets: &[wgpu::Buffer]) {
        let layout = self.buffers.layout;
        for (c, (chunk, target)) in self.buffers.chunks.iter().zip(targets).enumerate() {
            encoder.copy_buffer_to_buffer(chunk, 0, target, 0, 4 * layout.entry_words(c as u32));
        }
    }

    /// The solved entries, read back to the host.
    pub fn read_entries(&self) -> Result<Vec<Entry>> {
        self.buffers.read_entries(self.gpu, self.timeout)
    }
}

/// How the kernels that run a thread per state cut the index into windows.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Windows {
    /// States of the table.
    total: u64,
    /// States per window, a multiple of [`WINDOW_ALIGN`].
    states: u64,
}

/// Windows start on a workgroup's first state (and so on a block's and an entry word's).
const WINDOW_ALIGN: u64 = kernels::WORKGROUP;
/// The largest window: its grid of threads stays below 2^32 threads, so thread numbers fit.
const MAX_WINDOW_STATES: u64 = 1 << 31;

impl Windows {
    /// Windows of `requested` states (rounded up; at most the whole table, rounded), or of
    /// [`DEFAULT_WINDOW_STATES`].
    fn new(total: u64, requested: Option<u64>) -> Windows {
        let states = requested
            .unwrap_or(DEFAULT_WINDOW_STATES)
            .min(total)
            .max(1)
            .next_multiple_of(WINDOW_ALIGN)
            .min(MAX_WINDOW_STATES);
        Windows { total, states }
    }

    /// The states of each window, in order.
    fn iter(self) -> impl Iterator<Item = std::ops::Range<u64>> {
        (0..self.total)
            .step_by(self.states as usize)
            .map(move |start| start..(start + self.states).min(self.total))
    }
}

fn dispatch(pass: &mut wgpu::ComputePass<'_>, (x, y): (u32, u32)) {
    pass.dispatch_workgroups(x, y, 1);
}

/// What one submission read back: the control header and the states found per layer.
struct Readback {
    control: [u32; HEADER_WORDS as usize],
    found: Vec<u32>,
}

/// What a compute pass's time counts towards.
#[derive(Clone, Copy, PartialEq)]
enum Phase {
    Initialise,
    Sweep,
    Propagation,
}

/// The compute passes of one submission, each timed when the device has timestamps.
struct Passes<'a> {
    encoder: wgpu::CommandEncoder,
    kernels: &'a Kernels,
    queries: Option<&'a wgpu::QuerySet>,
    phases: Vec<Phase>,
}

impl Passes<'_> {
    /// Records one compute pass, with every bind group set, as `record` fills it.
    fn run(&mut self, phase: Phase, record: impl FnOnce(&mut wgpu::ComputePass<'_>)) {
        let at = 2 * self.phases.len() as u32;
        let mut pass = self.encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some("egtb solver"),
            timestamp_writes: self.queries.map(|query_set| wgpu::ComputePassTimestampWrites {
                query_set,
                beginning_of_pass_write_index: Some(at),
                end_of_pass_write_index: Some(at + 1),
            }),
        });
        self.kernels.bind(&mut pass);
        record(&mut pass);
        self.phases.push(phase);
    }
}

/// Submits the passes of a few layers at a time, reads back the control words after each
/// submission and adds up the kernel time of each phase.
struct Submissions<'g> {
    gpu: &'g Gpu,
    control: &'g wgpu::Buffer,
    readback: wgpu::Buffer,
    /// Two timestamps a pass, and the buffer they are resolved into.
    timer: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    max_passes: u32,
    found_words: u64,
    timeout: Duration,
    /// Sweeps the kernels had counted at the last readback.
    sweeps: u32,
    kernel_time: Option<KernelTime>,
}

impl<'g> Submissions<'g> {
    fn new(
        gpu: &'g Gpu,
        control: &'g wgpu::Buffer,
        layers_per_submission: u32,
        timeout: Duration,
    ) -> Result<Submissions<'g>> {
        // A sweep and a propagation pass a layer.
        let max_passes = 2 * layers_per_submission;
        let found_words = u64::from(layers_per_submission) + 1;
        let readback = gpu.buffer(
            "the control readback buffer",
            timestamp_bytes(max_passes) + 4 * (HEADER_WORDS + found_words),
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        )?;
        let timer = if gpu.timestamps {
            let queries = gpu.checked("the timestamp queries", || {
                gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                    label: Some("egtb kernel time"),
                    ty: wgpu::QueryType::Timestamp,
                    count: 2 * max_passes,
                })
            })?;
            let resolved = gpu.buffer(
                "the timestamp buffer",
                timestamp_bytes(max_passes),
                wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
            )?;
            Some((queries, resolved))
        } else {
            None
        };
        Ok(Submissions {
            gpu,
            control,
            readback,
            kernel_time: timer.as_ref().map(|_| KernelTime::default()),
            timer,
            max_passes,
            found_words,
            timeout,
            sweeps: 0,
        })
    }

    /// Runs the compute passes that `record` records (at most two a layer of a submission), then
    /// reads back the control header and the states found in layers `layer..`.
    fn submit(&mut self, kernels: &Kernels, layer: u32, record: impl FnOnce(&mut Passes<'_>)) -> Result<Readback> {
        let gpu = self.gpu;
        let mut passes = Passes {
            encoder: gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor::default()),
            kernels,
            queries: self.timer.as_ref().map(|(queries, _)| queries),
            phases: Vec::new(),
        };
        record(&mut passes);
        let Passes {
            mut encoder, phases, ..
        } = passes;
        let stamps = timestamp_bytes(phases.len() as u32);
        debug_assert!(phases.len() as u32 <= self.max_passes);
        if let Some((queries, resolved)) = &self.timer {
            encoder.resolve_query_set(queries, 0..2 * phases.len() as u32, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, &self.readback, 0, stamps);
        }
        let found_from = CTRL_FOUND + u64::from(layer);
        let found_words = self.found_words.min(CONTROL_WORDS - found_from);
        let header_at = timestamp_bytes(self.max_passes);
        let found_at = header_at + 4 * HEADER_WORDS;
        encoder.copy_buffer_to_buffer(self.control, 0, &self.readback, header_at, 4 * HEADER_WORDS);
        encoder.copy_buffer_to_buffer(self.control, 4 * found_from, &self.readback, found_at, 4 * found_words);
        gpu.submit_and_map(encoder.finish(), &self.readback, self.timeout)?;
        let result = {
            let view = self.readback.get_mapped_range(..)?;
            let words: &[u32] = bytemuck::cast_slice(&view);
            let header = (header_at / 4) as usize;
            let mut control = [0; HEADER_WORDS as usize];
            control.copy_from_slice(&words[header..header + HEADER_WORDS as usize]);
            let found_start = header + HEADER_WORDS as usize;
            if let Some(time) = &mut self.kernel_time {
                let stamp = |at: usize| u64::from_le_bytes(view[8 * at..8 * at + 8].try_into().unwrap());
                let period_ns = f64::from(gpu.queue.get_timestamp_period());
                // Sweeps recorded after the last layer find the solve done and do nothing.
                let mut sweeps = control[CTRL_SWEEP].saturating_sub(self.sweeps);
                for (k, phase) in phases.iter().enumerate() {
                    let ticks = stamp(2 * k + 1).saturating_sub(stamp(2 * k)) as f64;
                    let elapsed = Duration::from_secs_f64(ticks * period_ns * 1e-9);
                    match phase {
                        Phase::Initialise => time.initialise += elapsed,
                        Phase::Sweep if sweeps > 0 => {
                            time.sweeps.push(elapsed);
                            sweeps -= 1;
                        }
                        Phase::Sweep | Phase::Propagation => time.propagation += elapsed,
                    }
                }
            }
            self.sweeps = control[CTRL_SWEEP];
            Readback {
                control,
                found: words[found_start..found_start + found_words as usize].to_vec(),
            }
        };
        self.readback.unmap();
        let errors = result.control[CTRL_ERROR];
        // A damaged smaller table first: the other errors may follow from what it held.
        if errors & ERROR_EXIT != 0 {
            return Err(DamagedExit.into());
        }
        if let Some((_, _, what)) = KERNEL_ERRORS.iter().find(|(bit, _, _)| errors & bit != 0) {
            bail!("GPU solver failed: {what}");
        }
        Ok(result)
    }
}

/// Bytes of the resolved timestamps of `passes` passes.
fn timestamp_bytes(passes: u32) -> u64 {
    16 * u64::from(passes.max(1))
}

#[cfg(test)]
mod tests;
