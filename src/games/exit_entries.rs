//! The entries of the smaller tables a material's captures reach, packed for a GPU rules module:
//! each table once, from a word of its own, two 16-bit entries per `u32` word (the first in the
//! low half), found by the word it starts at.
//!
//! Offsets are in words so that the exits of a 5-piece chess table with pawns on both sides
//! (up to 5 billion entries) stay addressable by a `u32`: entry `i` of a table at `offset` is
//! half `i % 2` of word `offset + i / 2`.

use anyhow::{Result, anyhow, bail};

use crate::material::Material;
use crate::table::TableSet;

/// The smaller tables' entries, gathered while a game's `gpu.rs` lays out its capture exits.
#[derive(Default)]
pub struct ExitEntries {
    words: Vec<u32>,
    placed: Vec<(Material, u32)>,
}

impl ExitEntries {
    /// The word the entries of `material`'s table start at, appending them from `tables` the
    /// first time. Every word, and every entry of a table, must be addressable by a `u32`.
    pub fn offset(&mut self, material: &Material, tables: &TableSet) -> Result<u32> {
        if let Some(&(_, offset)) = self.placed.iter().find(|(m, _)| m == material) {
            return Ok(offset);
        }
        let entries = tables.require(material)?.entries();
        let words = entries.len().div_ceil(2);
        let fits = |n: usize| u32::try_from(n).is_ok();
        if !fits(entries.len()) || !fits(self.words.len() + words) {
            bail!(
                "the smaller tables that captures reach are too large for the GPU (at {material}); use --backend cpu"
            );
        }
        // The words so far fit, as their end does.
        let offset = self.words.len() as u32;
        self.words.try_reserve(words).map_err(|_| {
            anyhow!(
                "not enough memory for the {:.1} GiB of smaller tables the GPU reads (at {material})",
                (self.words.len() + words) as f64 * 4.0 / f64::from(1 << 30)
            )
        })?;
        self.words.extend(
            entries
                .chunks(2)
                .map(|pair| u32::from(pair[0]) | u32::from(*pair.get(1).unwrap_or(&0)) << 16),
        );
        self.placed.push((*material, offset));
        Ok(offset)
    }

    /// The words of every table placed.
    pub fn into_words(self) -> Vec<u32> {
        self.words
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::material::GameId;
    use crate::table::{Encoding, Header, LoadedTable};

    fn table(material: &Material, entries: Vec<u16>) -> LoadedTable {
        let header = Header {
            game: GameId::Chess,
            rules: Vec::new(),
            material: material.to_string(),
            metric: "dtm".to_string(),
            index_version: 0,
            states_per_side: [entries.len() as u64, 0],
            checksum: 0,
            encoding: Encoding::DEFAULT,
            index_checksum: 0,
            rulings: None,
        };
        LoadedTable::solved(Path::new("unused"), header, entries)
    }

    #[test]
    fn each_table_starts_a_word_of_its_own_and_is_placed_once() {
        let (odd, even) = (
            Material::parse(GameId::Chess, "KQvK").unwrap(),
            Material::parse(GameId::Chess, "KRvK").unwrap(),
        );
        let mut tables = TableSet::default();
        tables.insert(odd, table(&odd, vec![1, 2, 3]));
        tables.insert(even, table(&even, vec![4, 5]));
        let mut exits = ExitEntries::default();
        assert_eq!(exits.offset(&odd, &tables).unwrap(), 0);
        assert_eq!(
            exits.offset(&even, &tables).unwrap(),
            2,
            "after the odd table's padded word"
        );
        assert_eq!(exits.offset(&odd, &tables).unwrap(), 0);
        assert_eq!(exits.into_words(), [1 | 2 << 16, 3, 4 | 5 << 16]);
    }
}
