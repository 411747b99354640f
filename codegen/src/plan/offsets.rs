//! Offset assignment: best fit, largest buffers first, per storage class.

use super::{Class, Plan};
use std::collections::BTreeMap;

/// Placement orders tried per class; the smallest arena wins (ties: the first).
const ORDERS: usize = 3;

/// Assign every buffer's offset and compute the arena sizes and lower bounds.
pub fn assign(p: &mut Plan) {
    let mut by_class: BTreeMap<Class, Vec<usize>> = BTreeMap::new();
    for (i, b) in p.buffers.iter().enumerate() {
        by_class.entry(b.class).or_default().push(i);
    }
    for (class, ids) in by_class {
        let mut best: Option<(usize, Vec<usize>)> = None;
        for order in 0..ORDERS {
            let mut ids = ids.clone();
            let b = &p.buffers;
            match order {
                // Largest first (the classic greedy-by-size).
                0 => ids.sort_by_key(|&i| (std::cmp::Reverse(b[i].len), b[i].def, i)),
                // Longest-lived first, then largest.
                1 => ids.sort_by_key(|&i| (std::cmp::Reverse(b[i].last - b[i].def), std::cmp::Reverse(b[i].len), i)),
                // Largest size × lifetime first.
                _ => ids.sort_by_key(|&i| (std::cmp::Reverse(b[i].len * (1 + b[i].last - b[i].def)), i)),
            }
            let (size, offsets) = place(p, &ids);
            if best.as_ref().is_none_or(|(s, _)| size < *s) {
                best = Some((size, offsets));
            }
        }
        let (size, offsets) = best.unwrap_or_default();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        for (&i, off) in sorted.iter().zip(offsets) {
            p.buffers[i].offset = off;
        }
        p.arena.insert(class, size);
        p.lower_bound.insert(class, lower_bound(p, class));
    }
}

/// Place the buffers `order` in that order; returns the arena size and the
/// offsets in the order of `ids` as sorted by buffer index.
fn place(p: &Plan, order: &[usize]) -> (usize, Vec<usize>) {
    let mut trial = p.buffers.clone();
    let mut placed: Vec<usize> = Vec::new();
    let mut size = 0;
    for &i in order {
        let off = best_fit(&trial, &placed, i);
        trial[i].offset = off;
        size = size.max(off + trial[i].len);
        placed.push(i);
    }
    let mut ids: Vec<usize> = order.to_vec();
    ids.sort_unstable();
    (size, ids.iter().map(|&i| trial[i].offset).collect())
}

fn overlaps_in_time(a: &super::Buffer, b: &super::Buffer) -> bool {
    a.def <= b.last && b.def <= a.last
}

/// The offset of the smallest gap that holds buffer `i` among the placed
/// buffers live at the same time (the end of them if no gap fits).
fn best_fit(buffers: &[super::Buffer], placed: &[usize], i: usize) -> usize {
    let me = &buffers[i];
    let mut busy: Vec<(usize, usize)> = placed
        .iter()
        .map(|&j| &buffers[j])
        .filter(|b| overlaps_in_time(b, me))
        .map(|b| (b.offset, b.offset + b.len))
        .collect();
    busy.sort_unstable();
    let mut best: Option<(usize, usize)> = None; // (gap, offset)
    let mut end = 0;
    for (lo, hi) in busy {
        if lo > end && lo - end >= me.len && best.is_none_or(|(g, _)| lo - end < g) {
            best = Some((lo - end, end));
        }
        end = end.max(hi);
    }
    best.map_or(end, |(_, off)| off)
}

/// The most elements of `class` live at one program point.
fn lower_bound(p: &Plan, class: Class) -> usize {
    let mut events: BTreeMap<usize, i64> = BTreeMap::new();
    for b in p.buffers.iter().filter(|b| b.class == class) {
        *events.entry(b.def).or_default() += b.len as i64;
        *events.entry(b.last + 1).or_default() -= b.len as i64;
    }
    let (mut live, mut peak) = (0i64, 0i64);
    for (_, d) in events {
        live += d;
        peak = peak.max(live);
    }
    peak as usize
}
