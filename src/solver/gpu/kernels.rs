//! The compute pipelines of one solve: the WGSL program (generated prelude, generic kernels, the
//! game's rules module), its bind groups and the dispatch grid.

use std::fmt::Write;

use anyhow::{Result, bail};

use super::GpuRules;
use super::buffers::{Layout, StateBuffers};
use super::device::Gpu;

/// The generic kernels, joined with a prelude and a game's rules module.
const SOLVER_WGSL: &str = include_str!("../../../shaders/solver.wgsl");
/// Threads per workgroup (WORKGROUP in the shader).
const WORKGROUP: u64 = 256;
/// Words of the control buffer: a header of 8, then states found per layer for every DTM.
pub(super) const CONTROL_WORDS: u64 = 8 + crate::value::MAX_DTM as u64 + 2;
/// Header word indices (CTRL_* in the shader).
pub(super) const CTRL_LAYER: usize = 0;
pub(super) const CTRL_DONE: usize = 2;
pub(super) const CTRL_ERROR: usize = 3;
pub(super) const CTRL_FOUND: u64 = 8;

/// Error bits a kernel raises (ERROR_* in the shader), with what they mean.
pub(super) const KERNEL_ERRORS: [(u32, &str); 3] = [
    (1, "a state has more successors than the game's GAME_MAX_SUCCESSORS"),
    (2, "a state has more than 255 distinct children"),
    (4, "a DTM beyond the longest an entry can hold"),
];

/// Pipelines and bind groups, ready to dispatch.
pub(super) struct Kernels {
    pub initialise: wgpu::ComputePipeline,
    pub sweep: wgpu::ComputePipeline,
    pub advance: wgpu::ComputePipeline,
    pub finalise: wgpu::ComputePipeline,
    pub solver_group: wgpu::BindGroup,
    pub game_group: wgpu::BindGroup,
    /// Workgroups (x, y) covering one thread per state.
    pub state_grid: (u32, u32),
    /// Workgroups (x, y) covering one thread per entry word.
    pub word_grid: (u32, u32),
}

impl Kernels {
    /// Builds the program for `rules` over `states`, whose data are already uploaded in `data`.
    pub fn new(
        gpu: &Gpu,
        rules: &dyn GpuRules,
        states: &StateBuffers,
        control: &wgpu::Buffer,
        data: &[(String, wgpu::Buffer)],
    ) -> Result<Kernels> {
        let layout = states.layout;
        let storage_bindings = 1 + layout.chunks + data.len() as u32;
        let limits = &gpu.limits;
        if storage_bindings > limits.max_storage_buffers_per_shader_stage
            || layout.chunks + 1 > limits.max_bindings_per_bind_group
        {
            bail!(
                "table too large for this GPU: it needs {storage_bindings} storage bindings, the \
                 device allows {} (raise the split size?)",
                limits.max_storage_buffers_per_shader_stage
            );
        }
        let source = program(layout, rules, data);
        let module = gpu.checked("the solver's WGSL program", || {
            gpu.device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("egtb solver"),
                source: wgpu::ShaderSource::Wgsl(source.into()),
            })
        })?;
        let solver_layout = bind_layout(gpu, "egtb solver", 1 + layout.chunks, false);
        let game_layout = bind_layout(gpu, "egtb game data", data.len() as u32, true);
        let pipeline_layout = gpu.device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("egtb solver"),
            bind_group_layouts: &[Some(&solver_layout), Some(&game_layout)],
            immediate_size: 0,
        });
        let pipeline = |entry: &str| {
            gpu.checked(&format!("the '{entry}' kernel"), || {
                gpu.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(entry),
                    layout: Some(&pipeline_layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                })
            })
        };
        let solver_buffers: Vec<&wgpu::Buffer> = std::iter::once(control).chain(&states.chunks).collect();
        let game_buffers: Vec<&wgpu::Buffer> = data.iter().map(|(_, b)| b).collect();
        let max_dim = limits.max_compute_workgroups_per_dimension;
        Ok(Kernels {
            initialise: pipeline("initialise")?,
            sweep: pipeline("sweep")?,
            advance: pipeline("advance")?,
            finalise: pipeline("finalise")?,
            solver_group: bind_group(gpu, &solver_layout, &solver_buffers)?,
            game_group: bind_group(gpu, &game_layout, &game_buffers)?,
            state_grid: grid(u64::from(layout.states), max_dim)?,
            word_grid: grid(u64::from(layout.states).div_ceil(2), max_dim)?,
        })
    }

    /// Binds both groups on `pass`.
    pub fn bind(&self, pass: &mut wgpu::ComputePass<'_>) {
        pass.set_bind_group(0, &self.solver_group, &[]);
        pass.set_bind_group(1, &self.game_group, &[]);
    }
}

/// The whole WGSL program: constants, bindings and accessors, the kernels, the game's rules.
fn program(layout: Layout, rules: &dyn GpuRules, data: &[(String, wgpu::Buffer)]) -> String {
    let mut source = layout.wgsl();
    for (binding, (name, _)) in data.iter().enumerate() {
        let _ = writeln!(
            source,
            "@group(1) @binding({binding}) var<storage, read> {name}: array<u32>;"
        );
    }
    source.push_str(SOLVER_WGSL);
    source.push_str(&rules.wgsl());
    source
}

fn bind_layout(gpu: &Gpu, label: &str, count: u32, read_only: bool) -> wgpu::BindGroupLayout {
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

fn bind_group(gpu: &Gpu, layout: &wgpu::BindGroupLayout, buffers: &[&wgpu::Buffer]) -> Result<wgpu::BindGroup> {
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
fn grid(threads: u64, max_dim: u32) -> Result<(u32, u32)> {
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
}
