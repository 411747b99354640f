//! Re-extraction by rooted DAG cost: the first refinement of the heuristic
//! choice (then [`super::refine`]'s local search improves on it).
//!
//! [`super::extract`] costs a node by its own cost plus an amortized estimate
//! of its children's. That estimate counts work shared through a common
//! ancestor once per path: a roll `Concat(x[k:], x[:k])` is charged `x`
//! twice, a fused attention reading Q, K and V (all sliced from one qkv
//! projection) is charged that projection almost three times, so an unfused
//! chain whose single path looks cheaper can win. The emitted program
//! computes every chosen class once, so the cost of a class is really the sum
//! of the own costs of the distinct classes it needs (its *rooted DAG cost*).
//!
//! [`refine`] starts from the heuristic choice and, pass by pass, moves each
//! class (in order of heuristic cost, then id, so children come first) to the
//! node of least rooted DAG cost, given the other classes' current choices.
//! Invariants: the returned choice is acyclic, every chosen node's children
//! have a choice, its total cost (the rooted DAG cost of all roots together)
//! is never above the heuristic choice's (otherwise that one is returned), and
//! the result is deterministic. The work is bounded by a count, not by time:
//! past [`MAX_SET_ELEMS`] set elements the heuristic choice is kept.

use super::analysis::EG;
use super::extract::OwnCosts;
use super::lang::ENode;
use egg::Id;
use std::collections::HashMap;

/// Upper bound on refinement passes over the classes.
pub const MAX_PASSES: usize = 16;

/// Upper bound on the elements of all rooted sets held at once; larger
/// e-graphs keep the heuristic choice.
pub const MAX_SET_ELEMS: usize = 20_000_000;

/// Relative margin a better node must win by (float sums are not associative).
const MARGIN: f64 = 1e-9;

/// The classes and current choices, by dense index (classes sorted by id).
struct Problem<'a> {
    eg: &'a EG,
    own: &'a OwnCosts,
    ids: Vec<Id>,
    index: HashMap<Id, u32>,
}

impl Problem<'_> {
    /// Dense indices of `n`'s children, or `None` if one has no choice.
    fn kids(&self, n: &ENode) -> Option<Vec<u32>> {
        egg::Language::children(n).iter().map(|&k| self.index.get(&self.eg.find(k)).copied()).collect()
    }

    /// Rooted sets of every class under `choice` (sorted, each containing the
    /// class itself), or `None` on a cycle or past the element budget.
    fn node(&self, c: u32, choice: &[usize]) -> &ENode {
        &self.eg[self.ids[c as usize]].nodes[choice[c as usize]]
    }

    fn sets(&self, choice: &[usize]) -> Option<Vec<Vec<u32>>> {
        let n = self.ids.len();
        let mut sets: Vec<Option<Vec<u32>>> = vec![None; n];
        let mut on_stack = vec![false; n];
        let mut total = 0usize;
        for start in 0..n as u32 {
            let mut stack: Vec<(u32, usize)> = vec![(start, 0)];
            while let Some(&(c, i)) = stack.last() {
                if i == 0 && sets[c as usize].is_some() {
                    stack.pop();
                    continue;
                }
                on_stack[c as usize] = true;
                let kids = self.kids(self.node(c, choice))?;
                if let Some(&k) = kids.get(i) {
                    stack.last_mut()?.1 += 1;
                    if on_stack[k as usize] {
                        return None;
                    }
                    if sets[k as usize].is_none() {
                        stack.push((k, 0));
                    }
                    continue;
                }
                let mut s: Vec<u32> = kids.iter().flat_map(|&k| sets[k as usize].iter().flatten().copied()).collect();
                s.push(c);
                s.sort_unstable();
                s.dedup();
                total += s.len();
                if total > MAX_SET_ELEMS {
                    return None;
                }
                sets[c as usize] = Some(s);
                on_stack[c as usize] = false;
                stack.pop();
            }
        }
        sets.into_iter().collect()
    }

    /// The summed own cost of the classes in `set` under `choice`.
    fn cost_of(&self, set: &[u32], choice: &[usize]) -> f64 {
        set.iter().map(|&x| self.own[&(self.ids[x as usize], choice[x as usize])]).sum()
    }

    /// Total cost of the program computing `roots` under `choice`.
    fn total(&self, roots: &[u32], choice: &[usize]) -> Option<f64> {
        let sets = self.sets(choice)?;
        let mut all: Vec<u32> = roots.iter().flat_map(|&r| sets[r as usize].iter().copied()).collect();
        all.sort_unstable();
        all.dedup();
        Some(self.cost_of(&all, choice))
    }
}

/// One pass: every class not blocked by an earlier change in this pass moves
/// to its node of least rooted DAG cost. Returns whether anything changed.
fn pass(p: &Problem<'_>, order: &[u32], choice: &mut [usize], sets: &[Vec<u32>]) -> bool {
    let mut changed = vec![false; p.ids.len()];
    let mut any = false;
    for &c in order {
        let id = p.ids[c as usize];
        let mut best: Option<(f64, usize)> = None;
        let mut current = None;
        for (i, n) in p.eg[id].nodes.iter().enumerate() {
            let Some(kids) = p.kids(n) else { continue };
            // Sets of children that contain a class changed in this pass are stale.
            let fresh = kids.iter().all(|&k| !sets[k as usize].iter().any(|&x| changed[x as usize]));
            if !fresh || kids.iter().any(|&k| sets[k as usize].binary_search(&c).is_ok()) {
                continue;
            }
            let mut s: Vec<u32> = kids.iter().flat_map(|&k| sets[k as usize].iter().copied()).collect();
            s.sort_unstable();
            s.dedup();
            let cost = p.cost_of(&s, choice) + p.own[&(id, i)];
            if i == choice[c as usize] {
                current = Some(cost);
            }
            if best.is_none_or(|(b, _)| cost < b) {
                best = Some((cost, i));
            }
        }
        let (Some(cur), Some((b, i))) = (current, best) else { continue };
        if b < cur - MARGIN * cur.abs().max(1.0) {
            choice[c as usize] = i;
            changed[c as usize] = true;
            any = true;
        }
    }
    any
}

/// The heuristic choice `best` (class → cost, node index) refined for
/// `roots` (see the module docs), as class → chosen node index.
pub fn refine(eg: &EG, own: &OwnCosts, roots: &[Id], best: &HashMap<Id, (f64, usize)>) -> HashMap<Id, usize> {
    let mut ids: Vec<Id> = best.keys().copied().collect();
    ids.sort();
    let index: HashMap<Id, u32> = ids.iter().enumerate().map(|(i, &c)| (c, i as u32)).collect();
    let mut order: Vec<u32> = (0..ids.len() as u32).collect();
    order.sort_by(|&a, &b| best[&ids[a as usize]].0.total_cmp(&best[&ids[b as usize]].0).then(a.cmp(&b)));
    let mut choice: Vec<usize> = ids.iter().map(|c| best[c].1).collect();
    let p = Problem { eg, own, ids, index };
    let fallback = || best.iter().map(|(&c, &(_, n))| (c, n)).collect();
    let Some(root_idx) = roots.iter().map(|&r| p.index.get(&eg.find(r)).copied()).collect::<Option<Vec<u32>>>() else {
        return fallback();
    };
    let Some(before) = p.total(&root_idx, &choice) else { return fallback() };
    let initial = choice.clone();
    for _ in 0..MAX_PASSES {
        let Some(sets) = p.sets(&choice) else { break };
        if !pass(&p, &order, &mut choice, &sets) {
            break;
        }
    }
    match p.total(&root_idx, &choice) {
        Some(after) if after <= before => {}
        _ => choice = initial,
    }
    p.ids.iter().copied().zip(choice).collect()
}
