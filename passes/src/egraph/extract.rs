//! Cost-based extraction: one chosen e-node per e-class.
//!
//! The cost of choosing node `n` is `own(n) + max(Σ cost(c)/uses(c), max cost(c))`
//! over its children `c`, where `uses(c)` counts the e-nodes that reference `c`.
//! Dividing by uses amortizes shared subgraphs (a plain tree cost doubles at
//! every residual connection and loses all precision in deep models); the
//! `max` term keeps the cost of a node strictly above each child's, since every
//! op has a positive own cost, so the chosen nodes can never form a cycle.
//! Ties keep the first node in the class's (sorted) node order: extraction is
//! deterministic.

use super::analysis::EG;
use super::lang::ENode;
use egg::Id;
use std::collections::HashMap;

/// Smallest own cost of any op, so chosen paths strictly increase in cost.
pub const MIN_OP_COST: f64 = 1e-3;

/// Upper bound on extraction rounds.
pub const MAX_ROUNDS: usize = 1000;

/// Tie-breaking cost of each operand an op reads.
pub const OPERAND_COST: f64 = 1e-4;

/// Own cost of one e-node (its children are costed separately).
pub trait CostModel {
    /// Cost of computing `node`, a member of class `class`, once.
    fn node_cost(&self, eg: &EG, class: Id, node: &ENode) -> f64;
}

/// Counts ops, weighting fused ops as one: the model used without a target.
pub struct OpCount;

impl CostModel for OpCount {
    fn node_cost(&self, _eg: &EG, _class: Id, node: &ENode) -> f64 {
        match node {
            ENode::Op { op, .. } if *op == ir::Opcode::CoreConst => 0.0,
            ENode::Op { .. } | ENode::Opaque { .. } => 1.0,
            _ => 0.0,
        }
    }
}

/// The own cost of `node` in class `class`: the model's cost plus
/// [`OPERAND_COST`] per operand read (among otherwise equal nodes, fewer
/// operands win), at least [`MIN_OP_COST`] for ops.
pub fn own_cost(eg: &EG, model: &dyn CostModel, class: Id, node: &ENode) -> f64 {
    let reads = node.operands().iter().filter(|&&c| !super::analysis::is_absent(eg, c)).count();
    let c = model.node_cost(eg, class, node) + OPERAND_COST * reads as f64;
    let floor = if egg::Language::is_leaf(node) || matches!(node, ENode::Proj { .. }) { 0.0 } else { MIN_OP_COST };
    c.max(floor)
}

/// The chosen node and its cost for every class that has a finite cost.
pub fn extract(eg: &EG, model: &dyn CostModel) -> HashMap<Id, (f64, ENode)> {
    let mut ids: Vec<Id> = eg.classes().map(|c| c.id).collect();
    ids.sort();
    let mut uses: HashMap<Id, f64> = HashMap::new();
    for &id in &ids {
        for n in &eg[id].nodes {
            for &c in egg::Language::children(n) {
                *uses.entry(eg.find(c)).or_default() += 1.0;
            }
        }
    }
    let own: HashMap<(Id, usize), f64> = ids
        .iter()
        .flat_map(|&id| eg[id].nodes.iter().enumerate().map(move |(i, n)| ((id, i), n)))
        .map(|((id, i), n)| ((id, i), own_cost(eg, model, id, n)))
        .collect();
    let mut best: HashMap<Id, (f64, ENode)> = HashMap::new();
    // Each round can only lower costs along acyclic choices; the cap is a
    // deterministic safety net that never binds on real graphs.
    for _ in 0..MAX_ROUNDS {
        let mut changed = false;
        for &id in &ids {
            for (i, n) in eg[id].nodes.iter().enumerate() {
                let Some(c) = node_total(eg, n, own[&(id, i)], &best, &uses) else { continue };
                // Strictly cheaper only: costs never reach a cycle (see the module
                // doc), so strict improvement terminates, and a relative margin
                // would swallow the operand tie-breaker on large totals.
                let better = match best.get(&id) {
                    None => true,
                    Some((old, _)) => c < *old,
                };
                if better {
                    best.insert(id, (c, n.clone()));
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    best
}

fn node_total(eg: &EG, n: &ENode, own: f64, best: &HashMap<Id, (f64, ENode)>, uses: &HashMap<Id, f64>) -> Option<f64> {
    let mut sum = 0.0;
    let mut max: f64 = 0.0;
    for &c in egg::Language::children(n) {
        let c = eg.find(c);
        let (cost, _) = best.get(&c)?;
        sum += cost / uses.get(&c).copied().unwrap_or(1.0).max(1.0);
        max = max.max(*cost);
    }
    Some(own + sum.max(max))
}
