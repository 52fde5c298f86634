//! A game's data on the GPU, the bindings of group 1: each buffer of [`GpuRules::data`] is one
//! binding under its own name; each of [`GpuRules::split_data`] (the smaller tables' entries,
//! which may exceed one binding) is cut into chunks of a power of two words that fit the split
//! size, binding `NAME_c` for chunk `c`, and read through the generated accessor `NAME_word(i)`,
//! which picks the chunk with a `switch` because WGSL cannot index bindings. Chunks grow past a
//! split forced small when the bindings the device has left would not hold them all.

use std::fmt::Write;

use anyhow::Result;

use super::GpuRules;
use super::device::Gpu;

/// The uploaded data of one solve.
pub(super) struct GameData {
    /// The bindings of group 1, in order, by their WGSL names.
    pub bindings: Vec<(String, wgpu::Buffer)>,
    /// The accessors of the split buffers.
    pub wgsl: String,
}

impl GameData {
    /// Uploads `rules`' data, the split buffers in chunks of at most `split_bytes` bytes, or
    /// larger where `free_bindings` bindings would not hold them all.
    pub fn upload(gpu: &Gpu, rules: &dyn GpuRules, split_bytes: u64, free_bindings: u32) -> Result<GameData> {
        let mut bindings = rules
            .data()
            .into_iter()
            .map(|d| Ok((d.name.to_string(), gpu.upload(d.name, &d.words)?)))
            .collect::<Result<Vec<_>>>()?;
        let split = rules.split_data();
        let left = (free_bindings as usize).saturating_sub(bindings.len());
        let per_buffer = (left / split.len().max(1)).max(1) as u64;
        let mut wgsl = String::new();
        for data in split {
            let shift = chunk_shift(split_bytes).max(shift_for(data.words.len() as u64, per_buffer));
            let chunks: Vec<&[u32]> = if data.words.is_empty() {
                vec![&[]]
            } else {
                data.words.chunks(1 << shift).collect()
            };
            for (c, words) in chunks.iter().enumerate() {
                let name = format!("{}_{c}", data.name);
                let buffer = gpu.upload(&name, words)?;
                bindings.push((name, buffer));
            }
            wgsl.push_str(&accessor(data.name, shift, chunks.len()));
        }
        Ok(GameData { bindings, wgsl })
    }
}

/// log2 of the words of a chunk: the largest power of two of words whose bytes fit
/// `split_bytes` (one word at least; WGSL shifts by less than 32).
fn chunk_shift(split_bytes: u64) -> u32 {
    let words = (split_bytes / 4).max(1);
    (63 - words.leading_zeros()).min(31)
}

/// log2 of the fewest words a chunk needs so that `words` fit `chunks` chunks.
fn shift_for(words: u64, chunks: u64) -> u32 {
    words
        .div_ceil(chunks)
        .max(1)
        .next_power_of_two()
        .trailing_zeros()
        .min(31)
}

/// `fn NAME_word(i: u32) -> u32`: word `i` of a buffer cut into `chunks` chunks of `2^shift`
/// words.
fn accessor(name: &str, shift: u32, chunks: usize) -> String {
    let mask = (1u64 << shift) - 1;
    let mut s = format!("fn {name}_word(i: u32) -> u32 {{\n    switch i >> {shift}u {{\n");
    for c in 0..chunks {
        let _ = writeln!(s, "        case {c}u: {{ return {name}_{c}[i & {mask}u]; }}");
    }
    s.push_str("        default: { return 0u; }\n    }\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_the_largest_power_of_two_words_that_fit_the_split() {
        assert_eq!(chunk_shift(1), 0);
        assert_eq!(chunk_shift(4_000_000), 19);
        assert_eq!(chunk_shift(128 << 20), 25);
        assert_eq!(chunk_shift(u64::MAX), 31);
    }

    #[test]
    fn chunks_grow_until_the_free_bindings_hold_them() {
        assert_eq!(shift_for(0, 4), 0);
        assert_eq!(shift_for(16, 4), 2);
        assert_eq!(shift_for(17, 4), 3);
        assert_eq!(shift_for(1 << 30, 1), 30);
    }

    #[test]
    fn the_accessor_picks_the_chunk_by_the_high_bits() {
        let wgsl = accessor("exits", 3, 2);
        assert!(wgsl.starts_with("fn exits_word(i: u32) -> u32 {\n    switch i >> 3u {"));
        assert!(wgsl.contains("case 0u: { return exits_0[i & 7u]; }"));
        assert!(wgsl.contains("case 1u: { return exits_1[i & 7u]; }"));
        assert!(!wgsl.contains("exits_2"));
    }
}
