//! The GPU solver (wgpu + WGSL): the CPU solver's algorithm, with byte-identical results.
//!
//! A game takes part through [`GpuRules`]: a WGSL rules module and the u32 data buffers it reads.
//! The module is joined with the generic kernels of `shaders/solver.wgsl` (see its header for the
//! functions a module defines and the helpers it may call). A layer is two kernels: a sweep over
//! all entries (`shaders/select.wgsl`, plain loads at the width of memory) selects the layer's
//! states into a queue, then a kernel works through the queue, resolving parents with every
//! thread busy. Everything stays on the GPU between layers: each submission runs several layers,
//! a one-thread kernel between two layers decides whether to go on (or to sweep a layer again
//! whose queue overflowed), and the host only reads back a few control words to report progress.

mod buffers;
mod device;
mod kernels;

use std::borrow::Cow;
use std::time::Duration;

use anyhow::{Result, bail};

pub use device::Gpu;

use super::Progress;
use crate::value::Entry;
use buffers::{Layout, StateBuffers};
use kernels::{CONTROL_WORDS, CTRL_DONE, CTRL_ERROR, CTRL_FOUND, CTRL_LAYER, KERNEL_ERRORS, Kernels};

/// Most states a GPU table may have: thread indices of the 2D grid must stay below 2^32.
/// Larger tables need a block split, which the GPU solver does not do yet.
pub const MAX_GPU_STATES: u64 = u32::MAX as u64 - (256 << 16);

/// A named u32 buffer that a rules module reads as `var<storage, read> NAME: array<u32>`.
pub struct GpuData<'a> {
    /// A WGSL identifier, unique among the game's buffers.
    pub name: &'static str,
    pub words: Cow<'a, [u32]>,
}

/// One material's space as the GPU kernels see it.
pub trait GpuRules {
    /// Number of states, as [`crate::solver::Space::states`].
    fn states(&self) -> u64;
    /// The WGSL rules module: `GAME_MAX_SUCCESSORS`, `game_expand` and `game_parents` (see the
    /// header of `shaders/solver.wgsl`), reading the buffers of [`GpuRules::data`] by name.
    fn wgsl(&self) -> String;
    /// The data buffers the module reads.
    fn data(&self) -> Vec<GpuData<'_>>;
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
    /// Layers run per submission between two reads of the control words.
    pub layers_per_submission: u32,
    /// The longest wait for one submission before giving up.
    pub timeout: Duration,
}

impl Default for GpuOptions {
    fn default() -> Self {
        GpuOptions {
            split_bytes: None,
            queue_capacity: None,
            layers_per_submission: 16,
            timeout: Duration::from_secs(600),
        }
    }
}

/// A solved table and what the solve took.
#[derive(Clone, Debug)]
pub struct GpuSolution {
    pub entries: Vec<Entry>,
    /// Time spent in the kernels, measured by timestamp queries when the device has them.
    pub kernel_time: Option<KernelTime>,
    /// Layers swept.
    pub layers: u32,
}

/// Kernel time by phase: expanding every state, then the layers (with the final draw marking).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct KernelTime {
    pub initialise: Duration,
    pub layers: Duration,
}

impl KernelTime {
    pub fn total(&self) -> Duration {
        self.initialise + self.layers
    }
}

/// Opens the GPU and solves one space (see [`Gpu::solve`] to reuse a device).
pub fn solve(rules: &dyn GpuRules, options: &GpuOptions, progress: &dyn Progress) -> Result<GpuSolution> {
    Gpu::open()?.solve(rules, options, progress)
}

/// Header words of the control buffer read back after each submission.
const HEADER_WORDS: u64 = CTRL_FOUND;
/// Bytes of resolved timestamps at the start of the readback buffer.
const TIMESTAMP_BYTES: u64 = 16;

impl Gpu {
    /// Solves `rules` on this GPU; the entries equal [`crate::solver::cpu::solve`]'s.
    pub fn solve(&self, rules: &dyn GpuRules, options: &GpuOptions, progress: &dyn Progress) -> Result<GpuSolution> {
        let states = rules.states();
        if states > MAX_GPU_STATES {
            bail!("{states} states are more than the GPU solver handles ({MAX_GPU_STATES})");
        }
        if states == 0 {
            return Ok(GpuSolution {
                entries: Vec::new(),
                kernel_time: Some(KernelTime::default()),
                layers: 0,
            });
        }
        let split = options.split_bytes.unwrap_or(self.max_binding_bytes());
        let layout = Layout::new(states as u32, split.min(self.max_binding_bytes()))?;
        let queue = options.queue_capacity.unwrap_or(layout.states.div_ceil(4));
        let buffers = StateBuffers::new(self, layout, queue)?;
        let control = self.storage("the control buffer", CONTROL_WORDS * 4)?;
        let data = rules
            .data()
            .into_iter()
            .map(|d| Ok((d.name.to_string(), self.upload(d.name, &d.words)?)))
            .collect::<Result<Vec<_>>>()?;
        let kernels = Kernels::new(self, rules, &buffers, &control, &data)?;
        let layers_per_submission = options.layers_per_submission.max(1);
        let mut run = Submissions::new(self, &control, layers_per_submission, options.timeout)?;

        progress.phase("moves", states);
        let head = run.pass(&kernels, 0, |pass| {
            pass.set_pipeline(&kernels.initialise);
            dispatch(pass, kernels.state_grid);
        })?;
        progress.advance(states);
        let initialise_time = run.kernel_time.take();
        run.kernel_time = initialise_time.map(|_| Duration::ZERO);

        progress.phase("layers", states);
        let mut layer = head.control[CTRL_LAYER];
        let layers = loop {
            let batch = run.pass(&kernels, layer, |pass| {
                for _ in 0..layers_per_submission {
                    pass.set_pipeline(&kernels.select);
                    dispatch(pass, kernels.sweep_grid);
                    pass.set_pipeline(&kernels.plan);
                    pass.dispatch_workgroups(1, 1, 1);
                    pass.set_pipeline(&kernels.propagate);
                    pass.dispatch_workgroups_indirect(&kernels.propagation_grid, 0);
                    pass.set_pipeline(&kernels.advance);
                    pass.dispatch_workgroups(1, 1, 1);
                }
            })?;
            progress.advance(batch.found.iter().map(|&f| u64::from(f)).sum());
            layer = batch.control[CTRL_LAYER];
            if batch.control[CTRL_DONE] != 0 {
                break layer + 1;
            }
        };

        run.pass(&kernels, layer, |pass| {
            pass.set_pipeline(&kernels.finalise);
            dispatch(pass, kernels.word_grid);
        })?;
        let entries = buffers.read_entries(self, options.timeout)?;
        Ok(GpuSolution {
            entries,
            kernel_time: initialise_time
                .zip(run.kernel_time)
                .map(|(initialise, layers)| KernelTime { initialise, layers }),
            layers,
        })
    }

    /// A zeroed read-write storage buffer.
    fn storage(&self, what: &str, bytes: u64) -> Result<wgpu::Buffer> {
        self.checked(what, || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(what),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        })
    }

    /// A read-only storage buffer holding `words` (at least one word: bindings cannot be empty).
    fn upload(&self, name: &str, words: &[u32]) -> Result<wgpu::Buffer> {
        let bytes = 4 * words.len().max(1) as u64;
        if bytes > self.max_binding_bytes() {
            bail!(
                "game data '{name}' ({bytes} bytes) exceeds the GPU's binding limit of {} bytes",
                self.max_binding_bytes()
            );
        }
        let buffer = self.checked(&format!("game data '{name}'"), || {
            self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(name),
                size: bytes,
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        if !words.is_empty() {
            self.queue.write_buffer(&buffer, 0, bytemuck::cast_slice(words));
        }
        Ok(buffer)
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

/// Submits passes one at a time, reads back the control words after each and sums the kernel
/// time.
struct Submissions<'g> {
    gpu: &'g Gpu,
    control: &'g wgpu::Buffer,
    readback: wgpu::Buffer,
    timer: Option<(wgpu::QuerySet, wgpu::Buffer)>,
    found_words: u64,
    timeout: Duration,
    kernel_time: Option<Duration>,
}

impl<'g> Submissions<'g> {
    fn new(
        gpu: &'g Gpu,
        control: &'g wgpu::Buffer,
        layers_per_submission: u32,
        timeout: Duration,
    ) -> Result<Submissions<'g>> {
        let found_words = u64::from(layers_per_submission) + 1;
        let readback = gpu.checked("the control readback buffer", || {
            gpu.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("egtb control readback"),
                size: TIMESTAMP_BYTES + 4 * (HEADER_WORDS + found_words),
                usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        })?;
        let timer = if gpu.timestamps {
            let queries = gpu.device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("egtb kernel time"),
                ty: wgpu::QueryType::Timestamp,
                count: 2,
            });
            let resolved = gpu.checked("the timestamp buffer", || {
                gpu.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("egtb timestamps"),
                    size: TIMESTAMP_BYTES,
                    usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                    mapped_at_creation: false,
                })
            })?;
            Some((queries, resolved))
        } else {
            None
        };
        Ok(Submissions {
            gpu,
            control,
            readback,
            kernel_time: timer.as_ref().map(|_| Duration::ZERO),
            timer,
            found_words,
            timeout,
        })
    }

    /// Runs one compute pass recorded by `record`, then reads back the control header and the
    /// states found in layers `layer..`.
    fn pass(
        &mut self,
        kernels: &Kernels,
        layer: u32,
        record: impl FnOnce(&mut wgpu::ComputePass<'_>),
    ) -> Result<Readback> {
        let gpu = self.gpu;
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        {
            let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                label: Some("egtb solver"),
                timestamp_writes: self
                    .timer
                    .as_ref()
                    .map(|(queries, _)| wgpu::ComputePassTimestampWrites {
                        query_set: queries,
                        beginning_of_pass_write_index: Some(0),
                        end_of_pass_write_index: Some(1),
                    }),
            });
            kernels.bind(&mut pass);
            record(&mut pass);
        }
        if let Some((queries, resolved)) = &self.timer {
            encoder.resolve_query_set(queries, 0..2, resolved, 0);
            encoder.copy_buffer_to_buffer(resolved, 0, &self.readback, 0, TIMESTAMP_BYTES);
        }
        let found_from = CTRL_FOUND + u64::from(layer);
        let found_words = self.found_words.min(CONTROL_WORDS - found_from);
        let header_at = TIMESTAMP_BYTES;
        let found_at = header_at + 4 * HEADER_WORDS;
        encoder.copy_buffer_to_buffer(self.control, 0, &self.readback, header_at, 4 * HEADER_WORDS);
        encoder.copy_buffer_to_buffer(self.control, 4 * found_from, &self.readback, found_at, 4 * found_words);
        gpu.submit_and_map(encoder.finish(), &self.readback, self.timeout)?;
        let result = {
            let view = self.readback.get_mapped_range(..)?;
            let words: &[u32] = bytemuck::cast_slice(&view);
            if let Some(total) = &mut self.kernel_time {
                let stamp = |at: usize| u64::from_le_bytes(view[at..at + 8].try_into().unwrap());
                let ticks = stamp(8).saturating_sub(stamp(0)) as f64;
                let period_ns = f64::from(gpu.queue.get_timestamp_period());
                *total += Duration::from_secs_f64(ticks * period_ns * 1e-9);
            }
            let header = (TIMESTAMP_BYTES / 4) as usize;
            let mut control = [0; HEADER_WORDS as usize];
            control.copy_from_slice(&words[header..header + HEADER_WORDS as usize]);
            let found_start = header + HEADER_WORDS as usize;
            Readback {
                control,
                found: words[found_start..found_start + found_words as usize].to_vec(),
            }
        };
        self.readback.unmap();
        let errors = result.control[CTRL_ERROR];
        if let Some((_, _, what)) = KERNEL_ERRORS.iter().find(|(bit, _, _)| errors & bit != 0) {
            bail!("GPU solver failed: {what}");
        }
        Ok(result)
    }
}

#[cfg(test)]
mod tests;
