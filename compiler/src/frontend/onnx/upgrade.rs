//! Opset upgrades: older ONNX forms rewritten into the newest signature the
//! `onnx.*` dialect uses. Each rule names the opsets it applies to.

use super::node::{NodeCx, NodeError};
use ir::{Attr, Attrs, Opcode, Value};

type NResult<T> = Result<T, NodeError>;

/// Reductions whose `axes` became an operand in opset 18 (ReduceSum: 13).
const REDUCTIONS: &[&str] = &[
    "ReduceMean",
    "ReduceMax",
    "ReduceMin",
    "ReduceProd",
    "ReduceL1",
    "ReduceL2",
    "ReduceSumSquare",
    "ReduceLogSum",
    "ReduceLogSumExp",
];

/// Apply the upgrade rule for this node, if one exists. `Ok(Some(()))` means
/// the node was fully imported by the rule.
pub(super) fn upgrade(cx: &mut NodeCx<'_, '_, '_>, inputs: &[Option<Value>]) -> NResult<Option<()>> {
    let v = cx.version();
    let op = cx.node.op_type.clone();
    let x = inputs.first().copied().flatten();
    match op.as_str() {
        "Squeeze" | "Unsqueeze" if v < 13 => {
            let axes = cx.ints_operand("axes");
            let opcode = if op == "Squeeze" { Opcode::Squeeze } else { Opcode::Unsqueeze };
            cx.emit_with(opcode, vec![x, axes], &["axes"], Attrs::new())?
        }
        "ReduceSum" if v < 13 => axes_attr_to_operand(cx, Opcode::ReduceSum, x)?,
        r if v < 18 && REDUCTIONS.contains(&r) => {
            let Some(opcode) = Opcode::from_name(&format!("onnx.{r}")) else { return Ok(None) };
            axes_attr_to_operand(cx, opcode, x)?
        }
        "Split" if v < 13 => {
            let split = if inputs.len() > 1 { inputs[1] } else { cx.ints_operand("split") };
            cx.emit_with(Opcode::Split, vec![x, split], &["split"], Attrs::new())?
        }
        "Clip" if v < 11 => {
            let dt = x.map(|x| cx.ty(x).dtype).ok_or("Clip has no input")?;
            let lo = cx.attr("min").map(|a| a.f as f64);
            let hi = cx.attr("max").map(|a| a.f as f64);
            let lo = lo.map(|l| cx.scalar(dt, l, "min")).transpose()?;
            let hi = hi.map(|h| cx.scalar(dt, h, "max")).transpose()?;
            cx.emit_with(Opcode::Clip, vec![x, lo, hi], &["min", "max"], Attrs::new())?
        }
        "Pad" if v < 11 => {
            let dt = x.map(|x| cx.ty(x).dtype).ok_or("Pad has no input")?;
            let pads = cx.ints_operand("pads").ok_or("Pad needs `pads`")?;
            let value = cx.attr("value").map(|a| a.f as f64).unwrap_or(0.0);
            let value = cx.scalar(dt, value, "value")?;
            cx.emit_with(Opcode::Pad, vec![x, Some(pads), Some(value)], &["pads", "value"], Attrs::new())?
        }
        "Slice" if v < 10 => {
            let starts = cx.ints_operand("starts");
            let ends = cx.ints_operand("ends");
            let axes = cx.ints_operand("axes");
            cx.emit_with(Opcode::Slice, vec![x, starts, ends, axes], &["starts", "ends", "axes"], Attrs::new())?
        }
        "Resize" if v < 11 => {
            let scales = inputs.get(1).copied().flatten();
            let extra = Attrs::new().with("coordinate_transformation_mode", Attr::Str("asymmetric".into()));
            let extra = nearest_floor(cx, extra);
            cx.emit_with(Opcode::Resize, vec![x, None, scales, None], &[], extra)?
        }
        "Upsample" => upsample(cx, inputs)?,
        "Softmax" | "LogSoftmax" | "Hardmax" if v < 13 => coerced_2d(cx, &op, x)?,
        "Dropout" if v < 12 => cx.emit_with(Opcode::Dropout, vec![x], &["ratio", "seed"], Attrs::new())?,
        "BatchNormalization" if v < 9 => {
            if cx.attr("spatial").is_some_and(|a| a.i == 0) {
                return Err("BatchNormalization with spatial=0 is not supported".to_string().into());
            }
            cx.emit_with(Opcode::BatchNormalization, inputs.to_vec(), &["spatial"], Attrs::new())?
        }
        "Cast" if v < 6 => {
            let to = cx.attr("to").map(|a| String::from_utf8_lossy(&a.s).into_owned()).unwrap_or_default();
            let dt = legacy_type_name(&to).ok_or_else(|| format!("Cast to unknown type \"{to}\""))?;
            cx.emit_with(Opcode::Cast, vec![x], &["to"], Attrs::new().with("to", Attr::Type(dt)))?
        }
        "Concat" if v < 4 && cx.attr("axis").is_none() => {
            cx.emit_with(Opcode::Concat, inputs.to_vec(), &[], Attrs::new().with("axis", Attr::Int(1)))?
        }
        "Add" | "Sub" | "Mul" | "Div" if v < 7 => legacy_broadcast(cx, &op, inputs)?,
        "PRelu" if v < 7 => legacy_prelu(cx, inputs)?,
        // DFT-17..19 take `axis` as an attribute defaulting to 1 (20+: an operand defaulting to -2).
        "DFT" if v < 20 && cx.attr("axis").is_none() => {
            let opcode = Opcode::from_name("onnx.DFT").ok_or(NodeError::Unsupported(op.clone()))?;
            cx.emit_with(opcode, inputs.to_vec(), &[], Attrs::new().with("axis", Attr::Int(1)))?
        }
        "Gemm" if v < 7 => cx.emit_with(Opcode::Gemm, inputs.to_vec(), &["broadcast"], Attrs::new())?,
        "Scatter" => {
            let opcode = Opcode::from_name("onnx.ScatterElements").ok_or(NodeError::Unsupported(op.clone()))?;
            cx.emit_with(opcode, inputs.to_vec(), &[], Attrs::new())?
        }
        _ => return Ok(None),
    }
    Ok(Some(()))
}

fn axes_attr_to_operand(cx: &mut NodeCx<'_, '_, '_>, opcode: Opcode, x: Option<Value>) -> NResult<()> {
    let axes = cx.ints_operand("axes");
    cx.emit_with(opcode, vec![x, axes], &["axes"], Attrs::new())
}

fn nearest_floor(cx: &NodeCx<'_, '_, '_>, extra: Attrs) -> Attrs {
    let nearest = cx.attr("mode").is_none_or(|a| a.s == b"nearest");
    if nearest {
        extra.with("nearest_mode", Attr::Str("floor".into()))
    } else {
        extra
    }
}

/// `Upsample` (opsets 7–9; `scales` attribute in 7, operand in 9) → `Resize`
/// with asymmetric coordinates and floor rounding, which is what it computed.
fn upsample(cx: &mut NodeCx<'_, '_, '_>, inputs: &[Option<Value>]) -> NResult<()> {
    let x = inputs.first().copied().flatten();
    let scales = match inputs.get(1).copied().flatten() {
        Some(s) => Some(s),
        None => {
            let vals = cx.attr("scales").map(|a| a.floats.clone()).ok_or("Upsample needs `scales`")?;
            let t = ir::interp::Tensor::new(vec![vals.len()], ir::interp::Data::F32(vals));
            Some(cx.constant(&t, "scales"))
        }
    };
    let mut extra = Attrs::new().with("coordinate_transformation_mode", Attr::Str("asymmetric".into()));
    extra = nearest_floor(cx, extra);
    // `linear` in opsets 7–9 (and `bilinear` in opset 1) interpolate linearly.
    if cx.attr("mode").is_some_and(|a| a.s == b"linear" || a.s == b"bilinear") {
        extra.set("mode", Attr::Str("linear".into()));
    }
    cx.emit_with(Opcode::Resize, vec![x, None, scales, None], &["scales", "mode", "height_scale", "width_scale"], extra)
}

/// Softmax-like ops before opset 13 flatten the input to 2-D at `axis`
/// (default 1), normalize each row, and restore the shape.
fn coerced_2d(cx: &mut NodeCx<'_, '_, '_>, op: &str, x: Option<Value>) -> NResult<()> {
    let opcode = Opcode::from_name(&format!("onnx.{op}")).ok_or(NodeError::Unsupported(op.into()))?;
    let axis = cx.attr("axis").map_or(1, |a| a.i);
    let rank = x.and_then(|x| cx.ty(x).rank());
    if rank == Some(2) && (axis == 1 || axis == -1) {
        return cx.emit_with(opcode, vec![x], &["axis"], Attrs::new().with("axis", Attr::Int(1)));
    }
    let shape = cx.emit_tmp(Opcode::Shape, vec![x], Attrs::new())?;
    let flat = cx.emit_tmp(Opcode::Flatten, vec![x], Attrs::new().with("axis", Attr::Int(axis)))?;
    let y = cx.emit_tmp(opcode, vec![Some(flat)], Attrs::new().with("axis", Attr::Int(1)))?;
    cx.emit_with(Opcode::Reshape, vec![Some(y), Some(shape)], &["axis"], Attrs::new())
}

/// Opsets < 7: `broadcast = 1` with `axis` aligns B's dims starting at `axis` of A.
fn legacy_broadcast(cx: &mut NodeCx<'_, '_, '_>, op: &str, inputs: &[Option<Value>]) -> NResult<()> {
    let opcode = Opcode::from_name(&format!("onnx.{op}")).ok_or(NodeError::Unsupported(op.into()))?;
    let (a, mut b) = (inputs.first().copied().flatten(), inputs.get(1).copied().flatten());
    if let (Some(axis), Some(av), Some(bv)) = (cx.attr("axis").map(|a| a.i), a, b) {
        let (ra, rb) = (cx.ty(av).rank(), cx.ty(bv).rank());
        if let (Some(ra), Some(rb)) = (ra, rb) {
            let axis = if axis < 0 { axis + ra as i64 } else { axis };
            let trailing = ra as i64 - axis - rb as i64;
            if trailing > 0 {
                let axes: Vec<i64> = (rb as i64..rb as i64 + trailing).collect();
                let axes = cx.const_i64s(&axes, "axes");
                b = Some(cx.emit_tmp(Opcode::Unsqueeze, vec![Some(bv), Some(axes)], Attrs::new())?);
            }
        }
    }
    cx.emit_with(opcode, vec![a, b], &["broadcast", "axis"], Attrs::new())
}

/// PRelu before opset 7: a 1-D slope holds one value per channel (axis 1);
/// reshape it to `[C, 1, ...]` so numpy broadcasting gives that meaning.
fn legacy_prelu(cx: &mut NodeCx<'_, '_, '_>, inputs: &[Option<Value>]) -> NResult<()> {
    let (x, mut slope) = (inputs.first().copied().flatten(), inputs.get(1).copied().flatten());
    if let (Some(xv), Some(sv)) = (x, slope) {
        let (rx, rs) = (cx.ty(xv).rank(), cx.ty(sv).rank());
        let per_channel = cx.ty(sv).shape.num_elements().is_some_and(|n| n > 1);
        if let (Some(rx), Some(1)) = (rx, rs) {
            if rx > 2 && per_channel {
                let axes: Vec<i64> = (1..rx as i64 - 1).collect();
                let axes = cx.const_i64s(&axes, "axes");
                slope = Some(cx.emit_tmp(Opcode::Unsqueeze, vec![Some(sv), Some(axes)], Attrs::new())?);
            }
        }
    }
    cx.emit_with(Opcode::PRelu, vec![x, slope], &[], Attrs::new())
}

/// Type names used by `Cast` before opset 6.
fn legacy_type_name(s: &str) -> Option<ir::DType> {
    use ir::DType::*;
    Some(match s {
        "FLOAT" => F32,
        "FLOAT16" => F16,
        "DOUBLE" => F64,
        "INT8" => I8,
        "UINT8" => U8,
        "INT16" => I16,
        "UINT16" => U16,
        "INT32" => I32,
        "UINT32" => U32,
        "INT64" => I64,
        "UINT64" => U64,
        "BOOL" => Bool,
        "STRING" => String,
        _ => return None,
    })
}
