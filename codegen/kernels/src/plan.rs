//! Memory planning: placing buffers with known live ranges in one arena per
//! storage class. The compiler plans static models with [`assign`] when it
//! generates them; a model with symbolic dims plans at run time, once per
//! distinct set of buffer sizes ([`PlanCache`]), with the same function.
//! Shared infrastructure: it plans the whole model, not one op family.
//!
//! Invariants of an assignment: two buffers of one class whose live ranges
//! (`def..=last`, schedule steps) overlap never overlap in memory; each
//! class's arena is at least the most elements live at one step.

/// A buffer to place: its storage class (an index below the class count)
/// and its live range in schedule steps.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Live {
    /// Storage class index.
    pub class: u8,
    /// First step the buffer is live (its definition).
    pub def: u32,
    /// Last step it is read.
    pub last: u32,
}

impl Live {
    /// A buffer of `class` live from `def` to `last`.
    pub const fn new(class: u8, def: u32, last: u32) -> Live {
        Live { class, def, last }
    }
    fn overlaps(&self, o: &Live) -> bool {
        self.def <= o.last && o.def <= self.last
    }
}

/// Placement orders tried per class; the smallest arena wins (ties: the first).
const ORDERS: usize = 3;

/// Offsets (in elements of each buffer's class) for `bufs` of lengths
/// `lens`, and the arena size of each of `classes` classes: best fit, each
/// class placed in three greedy orders (largest first, longest-lived first,
/// largest size × lifetime first), the smallest arena kept.
pub fn assign(bufs: &[Live], lens: &[usize], classes: usize) -> (Vec<usize>, Vec<usize>) {
    assert_eq!(bufs.len(), lens.len(), "one length per buffer");
    let mut offsets = vec![0; bufs.len()];
    let mut arena = vec![0; classes];
    for (class, size) in arena.iter_mut().enumerate() {
        let ids: Vec<usize> = (0..bufs.len()).filter(|&i| bufs[i].class as usize == class).collect();
        if ids.is_empty() {
            continue;
        }
        let mut best: Option<(usize, Vec<usize>)> = None;
        for order in 0..ORDERS {
            let mut ids = ids.clone();
            let span = |i: usize| (bufs[i].last - bufs[i].def) as usize;
            match order {
                0 => ids.sort_by_key(|&i| (std::cmp::Reverse(lens[i]), bufs[i].def, i)),
                1 => ids.sort_by_key(|&i| (std::cmp::Reverse(span(i)), std::cmp::Reverse(lens[i]), i)),
                _ => ids.sort_by_key(|&i| (std::cmp::Reverse(lens[i] * (1 + span(i))), i)),
            }
            let (s, offs) = place(bufs, lens, &ids);
            if best.as_ref().is_none_or(|(b, _)| s < *b) {
                best = Some((s, offs));
            }
        }
        let (s, offs) = best.unwrap_or_default();
        for (&i, off) in ids.iter().zip(offs) {
            offsets[i] = off;
        }
        *size = s;
    }
    (offsets, arena)
}

/// Place `order` in that order; the arena size and the offsets of the
/// buffers of `order` sorted by index.
fn place(bufs: &[Live], lens: &[usize], order: &[usize]) -> (usize, Vec<usize>) {
    let mut offset = vec![0usize; bufs.len()];
    let mut placed: Vec<usize> = Vec::with_capacity(order.len());
    let mut size = 0;
    for &i in order {
        let off = best_fit(bufs, lens, &offset, &placed, i);
        offset[i] = off;
        size = size.max(off + lens[i]);
        placed.push(i);
    }
    let mut ids = order.to_vec();
    ids.sort_unstable();
    (size, ids.iter().map(|&i| offset[i]).collect())
}

/// The offset of the smallest gap that holds buffer `i` among the placed
/// buffers live at the same time (the end of them if no gap fits).
fn best_fit(bufs: &[Live], lens: &[usize], offset: &[usize], placed: &[usize], i: usize) -> usize {
    let mut busy: Vec<(usize, usize)> =
        placed.iter().filter(|&&j| bufs[j].overlaps(&bufs[i])).map(|&j| (offset[j], offset[j] + lens[j])).collect();
    busy.sort_unstable();
    let mut best: Option<(usize, usize)> = None; // (gap, offset)
    let mut end = 0;
    for (lo, hi) in busy {
        if lo > end && lo - end >= lens[i] && best.is_none_or(|(g, _)| lo - end < g) {
            best = Some((lo - end, end));
        }
        end = end.max(hi);
    }
    best.map_or(end, |(_, off)| off)
}

/// The most elements of `class` live at one step.
pub fn lower_bound(bufs: &[Live], lens: &[usize], class: u8) -> usize {
    let mut events: Vec<(u32, i64)> = Vec::new();
    for (b, &n) in bufs.iter().zip(lens).filter(|(b, _)| b.class == class) {
        events.push((b.def, n as i64));
        events.push((b.last + 1, -(n as i64)));
    }
    events.sort_unstable_by_key(|e| e.0);
    let (mut live, mut peak, mut k) = (0i64, 0i64, 0);
    while k < events.len() {
        let step = events[k].0;
        while k < events.len() && events[k].0 == step {
            live += events[k].1;
            k += 1;
        }
        peak = peak.max(live);
    }
    peak as usize
}

/// Plans of a model with symbolic dims, one per distinct set of buffer
/// lengths seen so far: the first run with new sizes plans (and allocates
/// the cache entry); a repeated set of sizes only looks its plan up.
#[derive(Clone, Debug, Default)]
pub struct PlanCache {
    entries: Vec<Entry>,
}

#[derive(Clone, Debug)]
struct Entry {
    lens: Vec<usize>,
    offsets: Vec<usize>,
    arena: Vec<usize>,
}

impl PlanCache {
    /// An empty cache.
    pub fn new() -> PlanCache {
        PlanCache::default()
    }
    /// The index of the plan for `lens` (computed now if new).
    pub fn plan(&mut self, bufs: &[Live], lens: &[usize], classes: usize) -> usize {
        if let Some(i) = self.entries.iter().position(|e| e.lens == lens) {
            return i;
        }
        let (offsets, arena) = assign(bufs, lens, classes);
        self.entries.push(Entry { lens: lens.to_vec(), offsets, arena });
        self.entries.len() - 1
    }
    /// Offsets of plan `i`.
    pub fn offsets(&self, i: usize) -> &[usize] {
        &self.entries[i].offsets
    }
    /// Arena elements of `class` that plan `i` needs.
    pub fn arena(&self, i: usize, class: usize) -> usize {
        self.entries[i].arena[class]
    }
    /// Number of plans made so far.
    pub fn len(&self) -> usize {
        self.entries.len()
    }
    /// True before the first plan.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(bufs: &[Live], lens: &[usize], classes: usize) {
        let (off, arena) = assign(bufs, lens, classes);
        for i in 0..bufs.len() {
            assert!(off[i] + lens[i] <= arena[bufs[i].class as usize]);
            for j in 0..i {
                let (a, b) = (&bufs[i], &bufs[j]);
                if a.class == b.class && a.overlaps(b) && lens[i] > 0 && lens[j] > 0 {
                    assert!(off[i] + lens[i] <= off[j] || off[j] + lens[j] <= off[i], "{i} and {j} overlap");
                }
            }
        }
        for (c, &size) in arena.iter().enumerate().take(classes) {
            assert!(size >= lower_bound(bufs, lens, c as u8));
        }
    }

    #[test]
    fn chains_reuse_memory_and_never_overlap() {
        // A chain a -> b -> c -> d: each buffer dies when the next is written.
        let bufs: Vec<Live> = (0..4).map(|i| Live::new(0, i, i + 1)).collect();
        let (_, arena) = assign(&bufs, &[100, 50, 100, 50], 1);
        assert_eq!(arena[0], 150);
        check(&bufs, &[100, 50, 100, 50], 1);
    }

    #[test]
    fn random_live_ranges_are_valid() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s % m
        };
        for _ in 0..200 {
            let n = 1 + next(40) as usize;
            let bufs: Vec<Live> = (0..n)
                .map(|_| {
                    let d = next(30) as u32;
                    Live::new(next(3) as u8, d, d + next(10) as u32)
                })
                .collect();
            let lens: Vec<usize> = (0..n).map(|_| next(1000) as usize).collect();
            check(&bufs, &lens, 3);
        }
    }

    #[test]
    fn the_cache_plans_each_size_set_once() {
        let bufs = [Live::new(0, 0, 1), Live::new(0, 1, 2)];
        let mut c = PlanCache::new();
        let a = c.plan(&bufs, &[10, 20], 1);
        let b = c.plan(&bufs, &[30, 20], 1);
        assert_eq!((a, b, c.plan(&bufs, &[10, 20], 1), c.len()), (0, 1, 0, 2));
        assert_eq!(c.arena(1, 0), 50);
    }
}
