//! Extraction refinement by true DAG cost.
//!
//! The amortized costs of [`super::extract`] approximate sharing: a fused node
//! that reads several operands computed from one shared upstream (attention
//! reads Q, K and V of the same hidden state) is charged for that upstream
//! more than once, while a chain that reaches it through one operand is not,
//! so the chain can look cheaper even when its own costs are higher. This pass
//! starts from that choice and improves it by local search on the exact cost
//! of what would be emitted: the sum of own costs over the classes reachable
//! from the roots, each counted once.
//!
//! Invariants: the choice graph over *all* classes (reachable or not) stays
//! acyclic: the greedy choice is (its costs strictly increase towards the
//! roots), and a switch of class `c` to node `b` is committed only if `c` is
//! not reachable from `b`'s children. A switch is committed only if it lowers
//! the total, so the search terminates; classes and nodes are visited in a
//! fixed order, so it is deterministic.

use super::analysis::EG;
use super::extract::OwnCosts;
use egg::{Id, Language};
use std::collections::{HashMap, HashSet};

/// Upper bound on improvement rounds (each round visits every live class).
pub const MAX_ROUNDS: usize = 8;

struct State<'a> {
    eg: &'a EG,
    own: &'a OwnCosts,
    choice: HashMap<Id, usize>,
    rc: HashMap<Id, u32>,
}

impl State<'_> {
    fn children(&self, c: Id, node: usize) -> Vec<Id> {
        self.eg[c].nodes[node].children().iter().map(|&k| self.eg.find(k)).collect()
    }

    /// Add one reference to each class of `roots`; returns the own cost of the
    /// classes that became live.
    fn incref(&mut self, roots: &[Id]) -> f64 {
        let mut added = 0.0;
        let mut stack = roots.to_vec();
        while let Some(c) = stack.pop() {
            let rc = self.rc.entry(c).or_default();
            *rc += 1;
            if *rc == 1 {
                let n = self.choice[&c];
                added += self.own[&(c, n)];
                stack.extend(self.children(c, n));
            }
        }
        added
    }

    /// Remove one reference from each class of `roots`; returns the own cost
    /// of the classes that died.
    fn decref(&mut self, roots: &[Id]) -> f64 {
        let mut removed = 0.0;
        let mut stack = roots.to_vec();
        while let Some(c) = stack.pop() {
            let rc = self.rc.get_mut(&c).expect("decref of a dead class");
            *rc -= 1;
            if *rc == 0 {
                let n = self.choice[&c];
                removed += self.own[&(c, n)];
                stack.extend(self.children(c, n));
            }
        }
        removed
    }

    /// True if `target` is reachable from `from` through chosen nodes.
    fn reaches(&self, from: &[Id], target: Id) -> bool {
        let mut seen = HashSet::new();
        let mut stack = from.to_vec();
        while let Some(c) = stack.pop() {
            if c == target {
                return true;
            }
            if seen.insert(c) {
                stack.extend(self.children(c, self.choice[&c]));
            }
        }
        false
    }

    /// Try switching class `c` to node `b`; keeps the switch if it lowers the total.
    fn try_switch(&mut self, c: Id, b: usize) -> bool {
        let a = self.choice[&c];
        let (new_kids, old_kids) = (self.children(c, b), self.children(c, a));
        if new_kids.iter().any(|k| !self.choice.contains_key(k)) {
            return false;
        }
        let own_delta = self.own[&(c, b)] - self.own[&(c, a)];
        let added = self.incref(&new_kids);
        let removed = self.decref(&old_kids);
        let delta = own_delta + added - removed;
        let tolerance = 1e-9 * (added + removed).max(1.0);
        if delta < -tolerance && !self.reaches(&new_kids, c) {
            self.choice.insert(c, b);
            return true;
        }
        self.incref(&old_kids);
        self.decref(&new_kids);
        false
    }
}

/// Improve `choice` (class → chosen node index) for the given roots; returns
/// how many switches were made.
pub fn refine(eg: &EG, own: &OwnCosts, choice: &mut HashMap<Id, usize>, roots: &[Id]) -> usize {
    let mut st = State { eg, own, choice: std::mem::take(choice), rc: HashMap::new() };
    let roots: Vec<Id> = roots.iter().map(|&r| eg.find(r)).collect();
    st.incref(&roots);
    let mut switches = 0;
    for _ in 0..MAX_ROUNDS {
        let mut live: Vec<Id> = st.rc.iter().filter(|(_, &n)| n > 0).map(|(&c, _)| c).collect();
        live.sort();
        let mut changed = false;
        for c in live {
            if st.rc.get(&c).copied().unwrap_or(0) == 0 || eg[c].nodes.len() < 2 {
                continue;
            }
            for b in 0..eg[c].nodes.len() {
                if b != st.choice[&c] && st.try_switch(c, b) {
                    switches += 1;
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    *choice = st.choice;
    switches
}
