//! The solver's working memory on the GPU, split over as many storage bindings as it needs.
//!
//! Each state has a 16-bit working word (2 bytes, as on the CPU: see
//! [`crate::solver::working`]). States are cut into chunks of `2^shift` states; chunk `c` is one
//! buffer and binding `c + 3` (after the control words, the layer queue and the active blocks),
//! holding the words two to a u32 (state `2k` in the low half). A chunk never exceeds the split
//! size, so a table larger than one binding still fits; the generated WGSL accessors pick the
//! chunk with a `switch`, because WGSL cannot index bindings. The layer queue (a u32 a state, a
//! quarter of the states by default) adds a byte a state.

use std::fmt::Write;

use anyhow::{Result, bail};

use super::device::Gpu;
use crate::value::Entry;

/// Group-0 bindings before the chunks: the control words, the layer queue, the active blocks.
pub(super) const FIRST_CHUNK_BINDING: u32 = 3;
/// log2 of the states of a block, the unit the layer sweep skips when it holds no work.
pub(super) const BLOCK_SHIFT: u32 = 7;

/// The fewest states a chunk holds: its words then fill whole 16-byte vectors, which the layer
/// sweep reads.
const MIN_CHUNK_SHIFT: u32 = 4;

/// How the states are cut into chunks.
#[derive(Clone, Copy, Debug)]
pub(super) struct Layout {
    pub states: u32,
    /// log2 of the states per chunk.
    pub shift: u32,
    pub chunks: u32,
}

impl Layout {
    /// The layout of `states` states with chunks of at most `split_bytes` bytes.
    pub fn new(states: u32, split_bytes: u64) -> Result<Layout> {
        // Two bytes a state: the largest power of two of states whose chunk fits the split, at
        // most 2^31 (a chunk's states are numbered by a u32's low 31 bits).
        let fit = (split_bytes / 2).max(1);
        let shift = (63 - fit.leading_zeros()).clamp(MIN_CHUNK_SHIFT, 31);
        if 2u64 << shift > split_bytes {
            bail!(
                "GPU split size of {split_bytes} bytes is too small (at least {})",
                2u64 << MIN_CHUNK_SHIFT
            );
        }
        let per_chunk = 1u64 << shift;
        let chunks = u64::from(states).div_ceil(per_chunk).max(1);
        Ok(Layout {
            states,
            shift,
            chunks: chunks as u32,
        })
    }

    fn per_chunk(&self) -> u64 {
        1u64 << self.shift
    }

    /// Blocks of `2^BLOCK_SHIFT` states, which the sweep skips when they hold no work.
    fn blocks(&self) -> u64 {
        u64::from(self.states).div_ceil(1 << BLOCK_SHIFT)
    }

    /// Vectors of eight entries, the units of the layer sweep.
    pub fn vectors(&self) -> u64 {
        u64::from(self.states).div_ceil(8)
    }

    /// States held by chunk `c`.
    fn states_in(&self, c: u32) -> u64 {
        let first = u64::from(c) * self.per_chunk();
        (u64::from(self.states) - first).min(self.per_chunk())
    }

    /// Words of entries of chunk `c` (what the readback copies).
    pub fn entry_words(&self, c: u32) -> u64 {
        self.states_in(c).div_ceil(2)
    }

    /// Bytes of chunk `c`: its words, in whole 16-byte vectors.
    pub fn chunk_bytes(&self, c: u32) -> u64 {
        (4 * self.entry_words(c)).next_multiple_of(16)
    }

    /// WGSL constants, chunk bindings (group 0, from binding [`FIRST_CHUNK_BINDING`]) and the
    /// accessors the kernels use: with `atomic`, chunks of atomic words and every accessor; else
    /// chunks of plain 4-word vectors, with loads and stores of words and of vectors.
    pub fn wgsl(&self, atomic: bool) -> String {
        let mut s = String::new();
        let per_chunk = self.per_chunk();
        let _ = writeln!(s, "const STATES: u32 = {}u;", self.states);
        let _ = writeln!(s, "const CHUNK_SHIFT: u32 = {}u;", self.shift);
        let _ = writeln!(s, "const CHUNK_MASK: u32 = {}u;", per_chunk - 1);
        let _ = writeln!(s, "const BLOCK_SHIFT: u32 = {BLOCK_SHIFT}u;");
        let _ = writeln!(s, "const VECTORS: u32 = {}u;", self.vectors());
        let _ = writeln!(s, "const BLOCKS: u32 = {}u;", self.blocks());
        for c in 0..self.chunks {
            let _ = writeln!(
                s,
                "@group(0) @binding({}) var<storage, read_write> chunk_{c}: array<{}>;",
                c + FIRST_CHUNK_BINDING,
                if atomic { "atomic<u32>" } else { "vec4<u32>" }
            );
        }
        let plain = [
            ("chunk_load(c: u32, w: u32) -> u32", "return chunk_{}[w >> 2u][w & 3u];"),
            ("chunk_load4(c: u32, q: u32) -> vec4<u32>", "return chunk_{}[q];"),
            ("chunk_store4(c: u32, q: u32, v: vec4<u32>)", "chunk_{}[q] = v;"),
        ];
        let atomics = [
            ("chunk_load(c: u32, w: u32) -> u32", "return atomicLoad(&chunk_{}[w]);"),
            ("chunk_store(c: u32, w: u32, v: u32)", "atomicStore(&chunk_{}[w], v);"),
            ("chunk_or(c: u32, w: u32, v: u32)", "atomicOr(&chunk_{}[w], v);"),
            (
                "chunk_sub(c: u32, w: u32, v: u32) -> u32",
                "return atomicSub(&chunk_{}[w], v);",
            ),
            (
                "chunk_swap(c: u32, w: u32, old: u32, v: u32) -> bool",
                "return atomicCompareExchangeWeak(&chunk_{}[w], old, v).exchanged;",
            ),
        ];
        let accessors: &[(&str, &str)] = if atomic { &atomics } else { &plain };
        for (signature, body) in accessors {
            write_chunk_switch(&mut s, signature, "c", self.chunks, |c| {
                body.replace("{}", &c.to_string())
            });
        }
        s
    }
}

/// Writes the WGSL function `signature` that picks one of `chunks` bindings by `selector`: case
/// `c` runs `body(c)`, any other value returns a neutral result. WGSL cannot index bindings, so
/// every accessor of chunked buffers is such a `switch`.
pub(super) fn write_chunk_switch(
    s: &mut String,
    signature: &str,
    selector: &str,
    chunks: u32,
    body: impl Fn(u32) -> String,
) {
    let _ = writeln!(s, "fn {signature} {{\n    switch {selector} {{");
    for c in 0..chunks {
        let _ = writeln!(s, "        case {c}u: {{ {} }}", body(c));
    }
    let fallback = if signature.ends_with("vec4<u32>") {
        "return vec4<u32>();"
    } else if signature.ends_with("u32") {
        "return 0u;"
    } else if signature.ends_with("bool") {
        "return true;"
    } else {
        ""
    };
    let _ = writeln!(s, "        default: {{ {fallback} }}\n    }}\n}}");
}

/// The chunk buffers of one solve, and the queue of the states of a layer.
pub(super) struct StateBuffers {
    pub layout: Layout,
    pub chunks: Vec<wgpu::Buffer>,
    /// The number of states offered to the queue, then the states of the current layer waiting
    /// for their parents to be resolved.
    pub queue: wgpu::Buffer,
    pub queue_capacity: u32,
    /// Three arrays of a flag word per block of `2^BLOCK_SHIFT` states, used in turn by the
    /// sweeps (see shaders/solver/common.wgsl): a set flag marks a block that may hold a state for a
    /// later layer (a pending loss, a state due at an exit's layer, or one resolved whose parents
    /// wait).
    pub active: wgpu::Buffer,
}

impl StateBuffers {
    /// Allocates zeroed chunks and a queue of `queue_capacity` states (at least one); all of them
    /// can be cleared again for another solve.
    pub fn new(gpu: &Gpu, layout: Layout, queue_capacity: u32) -> Result<StateBuffers> {
        let chunks = (0..layout.chunks)
            .map(|c| {
                let size = layout.chunk_bytes(c);
                if size > gpu.max_binding_bytes() {
                    bail!(
                        "GPU chunk of {size} bytes exceeds the device's binding limit of {} bytes",
                        gpu.max_binding_bytes()
                    );
                }
                gpu.buffer(
                    "the solver's state buffers",
                    size,
                    wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC | wgpu::BufferUsages::COPY_DST,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        let most_queued = (gpu.max_binding_bytes() / 4 - 1).min(u64::from(u32::MAX)) as u32;
        let queue_capacity = queue_capacity.clamp(1, most_queued);
        let queue = gpu.buffer(
            "the layer queue",
            4 * (1 + u64::from(queue_capacity)),
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?;
        let active_bytes = 3 * 4 * layout.blocks();
        if active_bytes > gpu.max_binding_bytes() {
            bail!(
                "the GPU's storage binding limit of {} bytes is below the {active_bytes} bytes of this \
                 table's block flags; use --backend cpu",
                gpu.max_binding_bytes()
            );
        }
        let active = gpu.buffer(
            "the active blocks",
            active_bytes,
            wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
        )?;
        Ok(StateBuffers {
            layout,
            chunks,
            queue,
            queue_capacity,
            active,
        })
    }

    /// Bytes of the largest chunk.
    pub fn max_chunk_bytes(&self) -> u64 {
        self.layout.chunk_bytes(0)
    }

    /// Copies every entry back to the host, one chunk at a time through a staging buffer.
    pub fn read_entries(&self, gpu: &Gpu, timeout: std::time::Duration) -> Result<Vec<Entry>> {
        read_chunks(gpu, self.layout, &self.chunks, timeout)
    }
}

/// Copies back to the host the 16-bit words of every state held in `chunks`, buffers cut as
/// `layout` says (two states a word), one chunk at a time through a staging buffer.
pub(super) fn read_chunks(
    gpu: &Gpu,
    layout: Layout,
    chunks: &[wgpu::Buffer],
    timeout: std::time::Duration,
) -> Result<Vec<u16>> {
    let staging_bytes = 4 * layout.entry_words(0);
    let staging = gpu.buffer(
        "the readback buffer",
        staging_bytes,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    )?;
    let mut words = Vec::with_capacity(2 * (layout.entry_words(0) * u64::from(layout.chunks)) as usize);
    for (c, chunk) in chunks.iter().enumerate() {
        let bytes = 4 * layout.entry_words(c as u32);
        let mut encoder = gpu
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor::default());
        encoder.copy_buffer_to_buffer(chunk, 0, &staging, 0, bytes);
        gpu.submit_and_map(encoder.finish(), &staging, timeout)?;
        {
            let view = staging.get_mapped_range(..bytes)?;
            words.extend_from_slice(bytemuck::cast_slice::<u8, u16>(&view));
        }
        staging.unmap();
    }
    words.truncate(layout.states as usize);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_fit_the_split_and_cover_every_state() {
        let layout = Layout::new(1000, 100).unwrap();
        assert_eq!(layout.shift, 5);
        assert_eq!(layout.chunks, 32);
        assert!((0..layout.chunks).all(|c| layout.chunk_bytes(c) <= 100));
        let total: u64 = (0..layout.chunks).map(|c| layout.states_in(c)).sum();
        assert_eq!(total, 1000);
        assert!(Layout::new(10, 11).is_err());
        let whole = Layout::new(1000, 128 << 20).unwrap();
        assert_eq!(whole.chunks, 1);
        // A split beyond 4 GiB still cuts a table of more than 2^31 states into chunks.
        let large = Layout::new(3_000_000_000, 1 << 34).unwrap();
        assert_eq!((large.shift, large.chunks), (31, 2));
        let total: u64 = (0..large.chunks).map(|c| large.states_in(c)).sum();
        assert_eq!(total, 3_000_000_000);
    }
}
