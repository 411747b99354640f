//! [`TargetInfo`] for data-driven target profiles: an e-node is turned into
//! an [`OpQuery`] from its class's facts.

use super::analysis::{EAnalysis, EG};
use super::lang::ENode;
use super::TargetInfo;
use crate::target::{OpQuery, Support, TargetProfile};
use egg::Id;
use ir::TensorType;

fn with_query<R>(eg: &EG, class: Id, node: &ENode, f: impl FnOnce(&OpQuery) -> R) -> Option<R> {
    let ENode::Op { op, args, .. } = node else { return None };
    let (a, operands) = args.split_last()?;
    let attrs = EAnalysis::attrs_of(eg, *a)?;
    let inputs: Vec<Option<&TensorType>> = operands.iter().map(|&c| eg[c].data.ty()).collect();
    let outputs = &eg[class].data.tys;
    let consts: Vec<bool> = operands.iter().map(|&c| eg[c].data.konst.is_some() || eg[c].data.is_static).collect();
    Some(f(&OpQuery { opcode: *op, attrs, inputs: &inputs, outputs, consts: &consts }))
}

impl TargetInfo for TargetProfile {
    fn name(&self) -> &str {
        &self.name
    }
    fn supports(&self, eg: &EG, class: Id, node: &ENode) -> Result<(), String> {
        match with_query(eg, class, node, |q| self.support(q)) {
            Some(Support::No(why)) => Err(why),
            _ => Ok(()),
        }
    }
    fn cost(&self, eg: &EG, class: Id, node: &ENode) -> f64 {
        match node {
            // Opaque ops (control flow) run on the fallback device: a fixed cost.
            ENode::Opaque { .. } => 1e4,
            _ => with_query(eg, class, node, |q| self.cost_ns(q)).unwrap_or(0.0),
        }
    }
    fn onchip_bytes(&self) -> Option<u64> {
        self.onchip_bytes
    }
    fn arithmetic(&self) -> edgec_numeric::fixed::Arithmetic {
        self.arithmetic
    }
}
