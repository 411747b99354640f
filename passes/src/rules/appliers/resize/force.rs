//! The target view of the explicit `resize-to-conv` pass: the pipeline's
//! target (or plain op counting without one), except that `onnx.Resize` and
//! `onnx.Upsample` are unsupported and priced out. The `resize` rules fire on
//! `!target_supports(root)`, so under this view they fire on every Resize, and
//! extraction keeps a Resize only where its rule declined.

use crate::egraph::analysis::EG;
use crate::egraph::extract::{CostModel, OpCount};
use crate::egraph::lang::ENode;
use crate::egraph::TargetInfo;
use egg::Id;
use ir::Opcode;
use std::sync::Arc;

/// Extra cost of a Resize/Upsample node under [`ForceResizeToConv`]: far above
/// any conv form, so extraction always prefers one when it exists.
pub const RESIZE_PENALTY: f64 = 1e9;

/// The ops the pass lowers.
const LOWERED: [Opcode; 2] = [Opcode::Resize, Opcode::Upsample];

fn lowered(node: &ENode) -> bool {
    matches!(node, ENode::Op { op, .. } if LOWERED.contains(op))
}

/// A target that wraps another one (or none) and rejects Resize/Upsample.
struct ForceResizeToConv {
    inner: Option<Arc<dyn TargetInfo>>,
    name: String,
}

impl TargetInfo for ForceResizeToConv {
    fn name(&self) -> &str {
        &self.name
    }
    fn supports(&self, eg: &EG, class: Id, node: &ENode) -> Result<(), String> {
        if lowered(node) {
            return Err("the resize-to-conv pass lowers Resize/Upsample to upsample + conv".into());
        }
        self.inner.as_ref().map_or(Ok(()), |t| t.supports(eg, class, node))
    }
    fn cost(&self, eg: &EG, class: Id, node: &ENode) -> f64 {
        let base = match &self.inner {
            Some(t) => t.cost(eg, class, node),
            None => OpCount.node_cost(eg, class, node),
        };
        if lowered(node) {
            base + RESIZE_PENALTY
        } else {
            base
        }
    }
    fn onchip_bytes(&self) -> Option<u64> {
        self.inner.as_ref().and_then(|t| t.onchip_bytes())
    }
}

/// `target` wrapped so that Resize/Upsample are unsupported (see the module docs).
pub fn lower_resize_target(target: Option<Arc<dyn TargetInfo>>) -> Arc<dyn TargetInfo> {
    let name =
        target.as_ref().map_or_else(|| "resize-to-conv".to_owned(), |t| format!("{} (resize-to-conv)", t.name()));
    Arc::new(ForceResizeToConv { inner: target, name })
}
