//! Solving a table a slice at a time.
//!
//! Some tables fall into slices that moves leave only forwards: a chess pawn never moves back,
//! so the positions of one placement of the pawns reach other placements only by pawn moves,
//! and those placements are further advanced. Solved from the furthest advanced, each slice
//! sees its moves into other slices as exits into positions already solved, like captures into
//! smaller tables, and its entries are exact DTM, the same as a solve of the whole table. Only
//! the slices being solved are in memory: the others wait in a [`SolvedStore`].

use std::ops::Range;

use anyhow::Result;

use rayon::prelude::*;

use super::{Progress, Silent, Space, Successors, cpu};
use crate::value::{BROKEN, Entry};

/// States solved at once per worker thread: slices of one level are solved together up to
/// [`group_states`] (a larger slice alone), so that more threads get more work between the
/// synchronisations of a layer.
const GROUP_STATES_PER_THREAD: u64 = 1 << 23;

/// Most states solved at once by `threads` worker threads (counted as at least 2).
pub fn group_states(threads: usize) -> u64 {
    GROUP_STATES_PER_THREAD * threads.max(2) as u64
}

/// A table cut into slices that moves leave only for slices of a higher level.
pub trait Sliced: Sync {
    /// Every slice: the ranges of states it covers and its level. A move that leaves a slice
    /// leads into a slice of a higher level, or out of the table.
    fn slices(&self) -> Vec<Slice>;

    /// The space of the states of `ranges` (whole slices of one level), in a numbering of its
    /// own. Its moves into other slices are exits, whose entries `solved` gives.
    fn slice_space<'a>(
        &'a self,
        ranges: &'a [Range<u64>],
        solved: &'a (dyn Fn(u64) -> Entry + Sync),
    ) -> Box<dyn Space + 'a>;

    /// Hands `sink` the entries of each of `ranges` in the table's order (the range's number
    /// among them, its entries), from `entries`, those of [`Sliced::slice_space`]'s space of
    /// `ranges` in its own numbering.
    fn table_entries(
        &self,
        ranges: &[Range<u64>],
        entries: &[Entry],
        sink: &mut dyn FnMut(usize, &[Entry]) -> Result<()>,
    ) -> Result<()>;

    /// The states in no slice (chess: positions with an en passant right); those not valued by
    /// [`Sliced::value_after`] are broken.
    fn outside(&self) -> Range<u64>;

    /// The states outside every slice whose moves lead only into the slices of `ranges` (whole
    /// slices of one level), into slices of higher levels, or out of the table, in increasing
    /// order: once those slices are solved, each is valued by one look at its moves.
    fn states_after(&self, ranges: &[Range<u64>]) -> Vec<u64>;

    /// The entry of one of [`Sliced::states_after`], the entries of the states its moves reach
    /// given by `solved` (`children` is a scratch set).
    fn value_after(&self, state: u64, solved: &(dyn Fn(u64) -> Entry + Sync), children: &mut Successors) -> Entry;
}

/// One slice of a [`Sliced`] table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slice {
    /// The ranges of states the slice covers.
    pub ranges: Vec<Range<u64>>,
    /// The states of its space (see [`Sliced::slice_space`]), which the groups solved at once
    /// are sized by.
    pub states: u64,
    /// Moves out of the slice lead to higher levels: the highest is solved first.
    pub level: u32,
}

/// Where a sliced solve keeps the entries of the slices it has solved.
pub trait SolvedStore: Sync {
    /// Keeps the entries of states `first..first + entries.len()`.
    fn store(&mut self, first: u64, entries: &[Entry]) -> Result<()>;
    /// The entry of a state stored before.
    fn entry(&self, state: u64) -> Entry;
}

/// Solves every slice of `table`, the highest level first, into `store`.
pub fn solve(table: &dyn Sliced, store: &mut dyn SolvedStore, progress: &dyn Progress) -> Result<()> {
    let groups = groups(table.slices(), group_states(rayon::current_num_threads()));
    let outside = table.outside();
    let total = groups
        .iter()
        .flat_map(|(ranges, _)| ranges)
        .map(|r| r.end - r.start)
        .sum::<u64>()
        + (outside.end - outside.start);
    progress.phase("slices", total);
    let broken = vec![BROKEN; OUTSIDE_RUN as usize];
    for start in outside.clone().step_by(OUTSIDE_RUN as usize) {
        store.store(start, &broken[..(outside.end - start).min(OUTSIDE_RUN) as usize])?;
    }
    for (ranges, _) in &groups {
        let entries = {
            let solved = lookup(store);
            let space = table.slice_space(ranges, &solved);
            cpu::solve(&*space, &Silent)
        };
        table.table_entries(ranges, &entries, &mut |i, range_entries| {
            store.store(ranges[i].start, range_entries)
        })?;
        drop(entries);
        progress.advance(ranges.iter().map(|r| r.end - r.start).sum());
        let after = table.states_after(ranges);
        let values: Vec<Entry> = {
            let solved = lookup(store);
            after
                .par_iter()
                .map_init(Successors::default, |children, &state| {
                    table.value_after(state, &solved, children)
                })
                .collect()
        };
        // Runs of consecutive states, one write each.
        let mut first = 0;
        for i in 1..=after.len() {
            if i == after.len() || after[i] != after[i - 1] + 1 {
                store.store(after[first], &values[first..i])?;
                first = i;
            }
        }
    }
    progress.advance(outside.end - outside.start);
    Ok(())
}

/// The entries stored so far, as the spaces of the slices read them.
fn lookup(store: &dyn SolvedStore) -> impl Fn(u64) -> Entry + Sync + '_ {
    |state| store.entry(state)
}

/// States outside the slices written broken at a time, before the slices are solved.
const OUTSIDE_RUN: u64 = 1 << 20;

/// The slices in solve order (highest level first), gathered into groups of one level of at
/// most `budget` states of their spaces (or one slice), each as its ranges in increasing order.
fn groups(mut slices: Vec<Slice>, budget: u64) -> Vec<(Vec<Range<u64>>, u64)> {
    slices.sort_by(|a, b| b.level.cmp(&a.level).then(a.ranges[0].start.cmp(&b.ranges[0].start)));
    let mut groups: Vec<(Vec<Range<u64>>, u64)> = Vec::new();
    let mut level = None;
    for slice in slices {
        match groups.last_mut() {
            Some((ranges, states)) if level == Some(slice.level) && *states + slice.states <= budget => {
                ranges.extend(slice.ranges);
                *states += slice.states;
            }
            _ => {
                level = Some(slice.level);
                groups.push((slice.ranges, slice.states));
            }
        }
    }
    for (ranges, _) in &mut groups {
        ranges.sort_by_key(|r| r.start);
    }
    groups
}

/// The most states of a group of `slices` that [`solve`] solves at once with `threads` worker
/// threads: the working memory of a sliced solve.
pub fn largest_group(slices: Vec<Slice>, threads: usize) -> u64 {
    groups(slices, group_states(threads))
        .into_iter()
        .map(|(_, states)| states)
        .max()
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_keep_levels_apart_and_stay_within_the_budget() {
        let slice = |start: u64, len: u64, level| Slice {
            ranges: vec![start..start + len, 1000 + start..1000 + start + len],
            states: 2 * len,
            level,
        };
        let slices = vec![slice(0, 10, 1), slice(10, 10, 2), slice(20, 10, 1), slice(30, 10, 2)];
        assert_eq!(
            groups(slices.clone(), 100),
            [
                (vec![10..20, 30..40, 1010..1020, 1030..1040], 40),
                (vec![0..10, 20..30, 1000..1010, 1020..1030], 40)
            ]
        );
        assert_eq!(largest_group(slices, 1), 40);
        let large = vec![slice(0, 50, 0), slice(50, 50, 0), slice(100, 50, 0)];
        assert_eq!(
            groups(large.clone(), 100).len(),
            3,
            "slices of the whole budget are solved apart"
        );
        assert_eq!(groups(large, 200).len(), 2, "two slices to a group");
        assert_eq!(group_states(16), 8 * group_states(1));
    }
}
