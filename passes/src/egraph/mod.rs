//! The e-graph bridge, analysis and extraction used by the equality-saturation
//! optimizer (the runner is `crate::saturate`).
//!
//! A function's body, then each region inside it as a scope of its own
//! ([`regions`]: captured values are leaves, captured constants fold; an `If`
//! whose condition folds to a constant is replaced by its taken branch), is translated into an `egg` e-graph
//! ([`bridge::import`]), rewritten by the rules of a [`RuleSet`](crate::rules::RuleSet) until
//! saturation or a limit, and extracted back by a target cost model
//! ([`extract`], then improved by the true cost of the emitted program, in
//! which shared work counts once: [`rooted`] re-extraction, then [`refine`]'s
//! local search). Constant folding, CSE and dead-code elimination fall out of
//! the representation: constants fold in the analysis, equal nodes are one
//! node, and only what the results need is extracted.
//!
//! Determinism: egg runs with its `deterministic` feature; limits count nodes,
//! iterations and matches, never time (a time limit exists only as a safety
//! net and is reported when hit); extraction breaks ties by node order.

pub mod analysis;
pub mod bridge;
pub mod extract;
pub mod lang;
pub mod refine;
pub mod regions;
mod report;
pub mod rooted;
mod target;

pub use report::{EgraphReport, FuncReport, Limits, RuleStats};

use analysis::EG;
use egg::Id;
use lang::ENode;

/// What a target tells the optimizer: whether it runs a node natively, and
/// the cost of a node (used by extraction).
pub trait TargetInfo: Sync + Send {
    /// Target name for reports.
    fn name(&self) -> &str;
    /// `Ok` if the target runs `node` (in class `class`) natively, else why not.
    fn supports(&self, eg: &EG, class: Id, node: &ENode) -> Result<(), String>;
    /// Estimated cost of running `node` once (including CPU fallback penalties).
    fn cost(&self, eg: &EG, class: Id, node: &ENode) -> f64;
    /// On-chip (scratchpad) memory in bytes, if the target declares it.
    fn onchip_bytes(&self) -> Option<u64> {
        None
    }
    /// Whose integer arithmetic the device computes.
    fn arithmetic(&self) -> edgec_numeric::fixed::Arithmetic {
        edgec_numeric::fixed::Arithmetic::Single
    }
}

/// Adapts a [`TargetInfo`] to the extractor's cost model.
pub struct TargetCost<'a>(pub &'a dyn TargetInfo);

impl extract::CostModel for TargetCost<'_> {
    /// Static values (computed from constants only) are built once, when the
    /// model is compiled or constructed: they cost nothing per inference.
    fn node_cost(&self, eg: &EG, class: Id, node: &ENode) -> f64 {
        match node {
            ENode::Op { .. } if eg[class].data.is_static => 0.0,
            ENode::Op { .. } | ENode::Opaque { .. } => self.0.cost(eg, class, node),
            _ => 0.0,
        }
    }
}
