//! `DynamicQuantizeLSTM`: placeholder until the unrolled lowering lands.

use super::Ins;
use crate::frontend::onnx::convert::{NResult, NodeCx};

/// Not yet lowered.
pub(super) fn dynamic_quantize_lstm(_cx: &mut NodeCx<'_, '_, '_>, _ins: &Ins<'_>) -> NResult<()> {
    Err("DynamicQuantizeLSTM is not supported yet".into())
}
