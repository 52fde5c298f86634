//! Values of positions of any material, read from solved tables the way a query reads them: the
//! table of the canonical material, colours swapped where the material needs it.

use std::collections::HashMap;

use egtb::games::{Game, IndexSpace};
use egtb::material::Material;
use egtb::table::TableSet;
use egtb::value::Value;

/// Looks up positions in `tables`, building each material's index once.
pub struct Lookup<'t, G: Game> {
    tables: &'t TableSet,
    rules: G::Rules,
    indices: HashMap<Material, G::Index>,
}

impl<'t, G: Game> Lookup<'t, G> {
    pub fn new(tables: &'t TableSet, rules: G::Rules) -> Lookup<'t, G> {
        Lookup {
            tables,
            rules,
            indices: HashMap::new(),
        }
    }

    /// The value of a legal position for its side to move, as its table holds it.
    pub fn value(&mut self, position: &G::Position) -> Value {
        let (material, position) = G::oriented(position);
        let rules = self.rules;
        let index = self
            .indices
            .entry(material)
            .or_insert_with(|| G::index(&material, rules).unwrap());
        let state = index.locate(&position);
        let table = self.tables.require(&material).unwrap();
        table.value(state).expect("a legal position has a value")
    }
}
