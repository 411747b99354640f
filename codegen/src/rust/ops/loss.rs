//! Training losses: NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss
//! (`k::loss`, f32; its optional log-probabilities result computed
//! by its own block). Shapes are static; the target's class indices stay
//! run-time values, checked by the kernels.

use super::{f32_only, index_operand, udims, used};
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a loss; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::NegativeLogLikelihoodLoss | Opcode::SoftmaxCrossEntropyLoss => loss(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn loss(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    f32_only(cx)?;
    index_operand(cx, 1, "the target")?;
    let xs = cx.in_static(0);
    if xs.len() < 2 {
        return Err(format!("{}: the input {xs:?} needs rank >= 2 ([N, C, d...])", cx.op.opcode.name()));
    }
    let red = match op.attrs.str("reduction").unwrap_or("mean") {
        "none" => "None",
        "sum" => "Sum",
        "mean" => "Mean",
        r => return Err(format!("{}: reduction `{r}` is not supported", cx.op.opcode.name())),
    };
    let ignore = op.attrs.int("ignore_index").map_or("None".to_string(), |i| format!("Some({i})"));
    let sce = op.opcode == Opcode::SoftmaxCrossEntropyLoss;
    if sce && used(cx, 1) {
        let out = cx.begin(1);
        let x = cx.input(0)?;
        cx.line(format!("k::loss::log_softmax_classes({}, {x}, {out});", udims(&xs)));
    }
    let out = cx.begin(0);
    let (x, t) = (cx.input(0)?, cx.input(1)?);
    let w = match op.operand(2) {
        Some(_) => format!("Some({})", cx.input(2)?),
        None => "None".into(),
    };
    cx.line(format!(
        "let p = k::loss::Loss {{ shape: {}, weight: {w}, ignore_index: {ignore}, reduction: k::loss::Reduction::{red} }};",
        udims(&xs)
    ));
    if sce {
        cx.scratch(format!("k::loss::softmax_cross_entropy_scratch_len({})", udims(&xs)));
        cx.line(format!("k::loss::softmax_cross_entropy(&p, {x}, {t}, {out}, &mut self.scratch);"));
    } else {
        cx.line(format!("k::loss::nll_loss(&p, {x}, {t}, {out});"));
    }
    Ok(())
}
