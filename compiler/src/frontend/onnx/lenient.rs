//! Input forms the ONNX spec text does not list but onnxruntime's CPU
//! kernels accept, and exporters write: rewritten on import into the form
//! the op table defines, so every later stage sees one form. Each rule
//! names what onnxruntime does.

use super::node::{NodeCx, NodeError};
use ir::{Attrs, Opcode, Value};

type NResult<T> = Result<T, NodeError>;

/// The forms handled (listed in the conformance report).
pub const FORMS: &[(&str, &str)] = &[(
    "STFT",
    "a real signal of rank 2 `[batch, length]` (onnxruntime reads it as `[batch, length, 1]`): unsqueezed on import",
)];

/// Apply the lenient-form rule for this node, if one applies; `Ok(Some(()))`
/// means the node was fully imported by the rule.
pub(super) fn lenient(cx: &mut NodeCx<'_, '_, '_>, inputs: &[Option<Value>]) -> NResult<Option<()>> {
    let x = inputs.first().copied().flatten();
    match cx.node.op_type.as_str() {
        "STFT" if x.is_some_and(|x| cx.ty(x).rank() == Some(2)) => {
            let axes = cx.const_i64s(&[2], "signal_axes");
            let x3 = cx.emit_tmp(Opcode::Unsqueeze, vec![x, Some(axes)], Attrs::new())?;
            let mut operands = inputs.to_vec();
            operands[0] = Some(x3);
            let opcode = Opcode::from_name("onnx.STFT").ok_or(NodeError::Unsupported("STFT".into()))?;
            cx.emit_with(opcode, operands, &[], Attrs::new())?;
            Ok(Some(()))
        }
        _ => Ok(None),
    }
}
