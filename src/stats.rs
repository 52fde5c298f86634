//! Table statistics by the counting convention of docs/counting.md: every legal position on the
//! full board (each slot weighted by the symmetric images it stands for), each side to move apart.
//! A table on disk is read a block at a time, so that the statistics of a table larger than
//! memory (a 6-piece table's 13 GB of entries) take little of it.

use anyhow::Result;

use crate::games::IndexSpace;
use crate::table::{Table, map_reduce_entries};
use crate::value::{Entry, Value};

/// Counts for one side to move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideStats {
    /// Legal positions, each slot weighted by the symmetric images it stands for.
    pub legal: u64,
    /// Of those, positions the side to move wins.
    pub win: u64,
    /// Of those, drawn positions.
    pub draw: u64,
    /// Of those, positions the side to move loses.
    pub loss: u64,
    /// The longest DTM among decisive positions.
    pub longest: Option<Longest>,
}

/// The longest DTM of one side to move: the figure published statistics of a table give with
/// the number of positions that reach it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Longest {
    /// The DTM in plies.
    pub dtm: u16,
    /// Full-board positions with this DTM (each slot weighted like the other counts).
    pub positions: u64,
    /// The first state with this DTM (decoded by the table's index: an example position).
    pub state: u64,
}

impl Longest {
    /// The longest of two, positions of equal DTM added up.
    fn max(self, other: Longest) -> Longest {
        match self.dtm.cmp(&other.dtm) {
            std::cmp::Ordering::Greater => self,
            std::cmp::Ordering::Less => other,
            std::cmp::Ordering::Equal => Longest {
                positions: self.positions + other.positions,
                state: self.state.min(other.state),
                ..self
            },
        }
    }
}

impl SideStats {
    fn add(mut self, other: SideStats) -> SideStats {
        self.legal += other.legal;
        self.win += other.win;
        self.draw += other.draw;
        self.loss += other.loss;
        self.longest = match (self.longest, other.longest) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        };
        self
    }
}

/// Statistics of a solved table in memory, first side to move then second.
pub fn table_stats<I: IndexSpace + ?Sized>(index: &I, entries: &[Entry]) -> [SideStats; 2] {
    map_reduce_entries(entries, |first, run| run_stats(index, first, run), no_stats, add_sides)
}

/// [`table_stats`] of a table on disk, read a block at a time and checked as it is read: the
/// memory it takes does not grow with the table.
pub fn file_stats<I: IndexSpace + ?Sized>(index: &I, table: &Table) -> Result<[SideStats; 2]> {
    table.map_reduce(|first, run| run_stats(index, first, run), no_stats, add_sides)
}

/// The statistics of no position.
fn no_stats() -> [SideStats; 2] {
    [SideStats::default(); 2]
}

/// The statistics of two runs together.
fn add_sides(a: [SideStats; 2], b: [SideStats; 2]) -> [SideStats; 2] {
    [a[0].add(b[0]), a[1].add(b[1])]
}

/// The statistics of a run of entries, the first of them the state `first`.
fn run_stats<I: IndexSpace + ?Sized>(index: &I, first: u64, run: &[Entry]) -> [SideStats; 2] {
    let mut acc = no_stats();
    for (state, &entry) in (first..).zip(run) {
        let Some(value) = Value::from_entry(entry) else {
            continue;
        };
        let weight = u64::from(index.weight(state));
        // A slot of weight 0 stands for no position of its own (a chess position with an en
        // passant right, which is counted without it): it is never the longest example.
        if weight == 0 {
            continue;
        }
        let s = &mut acc[index.side_to_move(state).index()];
        s.legal += weight;
        match value {
            Value::Win(_) => s.win += weight,
            Value::Loss(_) => s.loss += weight,
            Value::Draw => s.draw += weight,
        }
        if let Some(dtm) = value.dtm() {
            let this = Longest {
                dtm,
                positions: weight,
                state,
            };
            s.longest = Some(s.longest.map_or(this, |longest| longest.max(this)));
        }
    }
    acc
}

/// Full-board positions by DTM, first side to move then second: `counts[side][plies]` wins (odd
/// plies) or losses (even plies, 0 the positions already mated), up to the side's longest DTM.
pub type DtmCounts = [Vec<u64>; 2];

/// [`file_stats`] and the [`DtmCounts`] of a table on disk, in one pass over it.
pub fn file_stats_by_dtm<I: IndexSpace + ?Sized>(index: &I, table: &Table) -> Result<([SideStats; 2], DtmCounts)> {
    table.map_reduce(
        |first, run| (run_stats(index, first, run), run_dtm_counts(index, first, run)),
        || (no_stats(), DtmCounts::default()),
        |(stats, mut counts), (more_stats, more_counts)| {
            for (sum, row) in counts.iter_mut().zip(more_counts) {
                for (dtm, positions) in row.into_iter().enumerate() {
                    add_at(sum, dtm, positions);
                }
            }
            (add_sides(stats, more_stats), counts)
        },
    )
}

/// The [`DtmCounts`] of a run of entries, the first of them the state `first`.
fn run_dtm_counts<I: IndexSpace + ?Sized>(index: &I, first: u64, run: &[Entry]) -> DtmCounts {
    let mut counts = DtmCounts::default();
    for (state, &entry) in (first..).zip(run) {
        let Some(dtm) = Value::from_entry(entry).and_then(Value::dtm) else {
            continue;
        };
        let weight = u64::from(index.weight(state));
        if weight > 0 {
            add_at(&mut counts[index.side_to_move(state).index()], usize::from(dtm), weight);
        }
    }
    counts
}

/// Adds `positions` to `row[dtm]`, growing the row as needed.
fn add_at(row: &mut Vec<u64>, dtm: usize, positions: u64) {
    if row.len() <= dtm {
        row.resize(dtm + 1, 0);
    }
    row[dtm] += positions;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use crate::games::chess::Chess;
    use crate::material::{GameId, Material};
    use crate::value::DRAW;

    #[test]
    fn a_slot_of_weight_0_counts_for_nothing_not_even_as_the_longest() {
        let material = Material::parse(GameId::Chess, "KPvKP").unwrap();
        let index = Chess::index(&material, Default::default()).unwrap();
        let mut entries = vec![DRAW; index.states() as usize];
        // A win in 3 plies in white's first legal slot, a longer one in the first en passant slot.
        let legal = (0..index.per_side()).find(|&s| index.weight(s) > 0).unwrap();
        let en_passant = 2 * index.per_side();
        assert_eq!(index.weight(en_passant), 0);
        entries[legal as usize] = Value::Win(3).entry();
        entries[en_passant as usize] = Value::Win(41).entry();
        let [white, _] = table_stats(&index, &entries);
        assert_eq!(white.longest.map(|l| (l.dtm, l.state)), Some((3, legal)));
        assert_eq!(white.win, u64::from(index.weight(legal)));
        let [white_by_dtm, _] = run_dtm_counts(&index, 0, &entries);
        assert_eq!(white_by_dtm.len(), 4, "{white_by_dtm:?}");
    }
}
