//! The entries of the smaller tables a material's captures reach, packed for a GPU rules module:
//! each table once, two 16-bit entries per `u32` word, found by its offset in entries.

use anyhow::{Result, bail};

use crate::material::Material;
use crate::table::TableSet;

/// The smaller tables' entries, gathered while a game's `gpu.rs` lays out its capture exits.
#[derive(Default)]
pub struct ExitEntries {
    entries: Vec<u16>,
    placed: Vec<(Material, u32)>,
}

impl ExitEntries {
    /// Where the entries of `material`'s table start (in entries, not words), appending them
    /// from `tables` the first time. Offsets and the states added to them stay below the total,
    /// which must fit a `u32`.
    pub fn offset(&mut self, material: &Material, tables: &TableSet) -> Result<u32> {
        if let Some(&(_, offset)) = self.placed.iter().find(|(m, _)| m == material) {
            return Ok(offset);
        }
        let offset = self.entries.len() as u32;
        self.entries.extend_from_slice(&tables.require(material)?.entries());
        if u32::try_from(self.entries.len()).is_err() {
            bail!("the tables captures reach are too large for the GPU (at {material})");
        }
        self.placed.push((*material, offset));
        Ok(offset)
    }

    /// The entries two per word, the first in the low half.
    pub fn into_words(self) -> Vec<u32> {
        self.entries
            .chunks(2)
            .map(|pair| u32::from(pair[0]) | u32::from(*pair.get(1).unwrap_or(&0)) << 16)
            .collect()
    }
}
