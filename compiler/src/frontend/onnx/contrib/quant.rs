//! `QLinear*` ops. onnxruntime computes these in float between a dequantize
//! and a requantize (through MLAS float kernels or 256-entry lookup tables
//! built in float), so each lowers to `DequantizeLinear` → the float op →
//! `QuantizeLinear`. ORT's own rounding (ratios folded into one multiplier,
//! tables) can land on the other side of a .5 tie: outputs then differ by
//! one quantization unit, never more.

use super::{copy_attrs, dequantize, dtype, float_attr, int_attr, nhwc_perms, op, op1, quantize, rank, transpose};
use super::{zero_point, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx};
use ir::{Attr, Attrs, Opcode, Value};

/// Dequantize input triple `(x, scale, zp)` at `i, i+1, i+2`.
fn dq_at(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, i: usize, name: &str) -> NResult<Value> {
    let x = ins.req(i, name)?;
    let scale = ins.req(i + 1, &format!("{name}_scale"))?;
    dequantize(cx, x, scale, ins.opt(i + 2))
}

/// Requantize `y` with `(scale, zp)` at `i, i+1`; a missing zero point is a
/// zero of `like`'s (quantized) type.
fn q_at(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, y: Value, i: usize, like: Value) -> NResult<Value> {
    let scale = ins.req(i, "y_scale")?;
    let dt = dtype(cx, like);
    let zp = zero_point(cx, ins.opt(i + 1), dt)?;
    quantize(cx, y, scale, zp)
}

/// `QLinearAdd` / `QLinearMul`: `(A, As, Az, B, Bs, Bz, Cs, Cz)`.
pub(super) fn binary(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let a = dq_at(cx, ins, 0, "A")?;
    let b = dq_at(cx, ins, 3, "B")?;
    let opcode = if op_type == "QLinearAdd" { Opcode::Add } else { Opcode::Mul };
    let c = op1(cx, opcode, &[a, b])?;
    let like = ins.req(0, "A")?;
    let y = q_at(cx, ins, c, 6, like)?;
    cx.bind(&[y]);
    Ok(())
}

/// `QLinearSigmoid` / `QLinearLeakyRelu`: `(X, Xs, Xz, Ys, Yz)`.
pub(super) fn unary(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let x = dq_at(cx, ins, 0, "X")?;
    let f = if op_type == "QLinearSigmoid" {
        op1(cx, Opcode::Sigmoid, &[x])?
    } else {
        let alpha = float_attr(cx, "alpha", 0.01);
        op(cx, Opcode::LeakyRelu, vec![Some(x)], Attrs::new().with("alpha", Attr::Float(alpha)))?
    };
    let like = ins.req(0, "X")?;
    let y = q_at(cx, ins, f, 3, like)?;
    cx.bind(&[y]);
    Ok(())
}

/// `QLinearGlobalAveragePool` / `QLinearAveragePool`: `(X, Xs, Xz, Ys, Yz)`,
/// channels-last inputs transposed around the channels-first pool.
pub(super) fn avg_pool(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let raw = ins.req(0, "X")?;
    let mut x = dq_at(cx, ins, 0, "X")?;
    let channels_last = int_attr(cx, "channels_last", 0) != 0;
    let r = rank(cx, raw, "X")?;
    if r < 3 {
        return Err("pooling needs an input of rank 3 or more".into());
    }
    let (first, last) = nhwc_perms(r);
    if channels_last {
        x = transpose(cx, x, &first)?;
    }
    let mut y = if op_type == "QLinearGlobalAveragePool" {
        op1(cx, Opcode::GlobalAveragePool, &[x])?
    } else {
        let names = ["auto_pad", "ceil_mode", "count_include_pad", "kernel_shape", "pads", "strides", "dilations"];
        let attrs = copy_attrs(cx, &names, Attrs::new());
        op(cx, Opcode::AveragePool, vec![Some(x)], attrs)?
    };
    if channels_last {
        y = transpose(cx, y, &last)?;
    }
    let y = q_at(cx, ins, y, 3, raw)?;
    cx.bind(&[y]);
    Ok(())
}

/// `QLinearConcat(Ys, Yz, X0, X0s, X0z, X1, ...)`.
pub(super) fn concat(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    if ins.len() < 5 || !(ins.len() - 2).is_multiple_of(3) {
        return Err(format!("QLinearConcat takes 2 + 3k inputs, got {}", ins.len()).into());
    }
    let axis = cx.attr("axis").map(|a| a.i).ok_or("QLinearConcat needs `axis`")?;
    let mut parts = Vec::new();
    for i in (2..ins.len()).step_by(3) {
        parts.push(Some(dq_at(cx, ins, i, "X")?));
    }
    let c = op(cx, Opcode::Concat, parts, Attrs::new().with("axis", Attr::Int(axis)))?;
    let scale = ins.req(0, "Y_scale")?;
    let zp = ins.req(1, "Y_zero_point")?;
    let y = quantize(cx, c, scale, zp)?;
    cx.bind(&[y]);
    Ok(())
}

/// `QLinearSoftmax(X, Xs, Xz, Ys, Yz)`; `opset` < 13 flattens at `axis`.
pub(super) fn softmax(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let raw = ins.req(0, "X")?;
    let x = dq_at(cx, ins, 0, "X")?;
    let axis = int_attr(cx, "axis", -1);
    let opset = cx.attr("opset").map(|a| a.i).ok_or("QLinearSoftmax needs `opset`")?;
    let r = rank(cx, raw, "X")? as i64;
    let last = axis == -1 || axis == r - 1;
    let s = if opset >= 13 || last {
        op(cx, Opcode::Softmax, vec![Some(x)], Attrs::new().with("axis", Attr::Int(axis)))?
    } else {
        let shape = op1(cx, Opcode::Shape, &[x])?;
        let flat = op(cx, Opcode::Flatten, vec![Some(x)], Attrs::new().with("axis", Attr::Int(axis)))?;
        let sm = op(cx, Opcode::Softmax, vec![Some(flat)], Attrs::new().with("axis", Attr::Int(1)))?;
        op1(cx, Opcode::Reshape, &[sm, shape])?
    };
    let y = q_at(cx, ins, s, 3, raw)?;
    cx.bind(&[y]);
    Ok(())
}

/// `QLinearConv` (com.microsoft): the standard op, with `channels_last`
/// inputs and outputs transposed around it.
pub(super) fn conv(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let mut x = ins.req(0, "x")?;
    let channels_last = int_attr(cx, "channels_last", 0) != 0;
    let r = rank(cx, x, "x")?;
    let (first, last) = nhwc_perms(r);
    if channels_last {
        x = transpose(cx, x, &first)?;
    }
    let mut operands = vec![Some(x)];
    for i in 1..9 {
        operands.push(ins.opt(i));
    }
    let names = ["auto_pad", "dilations", "group", "kernel_shape", "pads", "strides"];
    let attrs = copy_attrs(cx, &names, Attrs::new());
    let mut y = op(cx, Opcode::QLinearConv, operands, attrs)?;
    if channels_last {
        y = transpose(cx, y, &last)?;
    }
    cx.bind(&[y]);
    Ok(())
}

/// `QLinearWhere(cond, X, Xs, Xz, Y, Ys, Yz, Zs, Zz)`.
pub(super) fn select(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let cond = ins.req(0, "condition")?;
    let x = dq_at(cx, ins, 1, "X")?;
    let y = dq_at(cx, ins, 4, "Y")?;
    let w = op1(cx, Opcode::Where, &[cond, x, y])?;
    let scale = ins.req(7, "z_scale")?;
    let zp = ins.req(8, "z_zero_point")?;
    let z = quantize(cx, w, scale, zp)?;
    cx.bind(&[z]);
    Ok(())
}

/// `QuantizeLinear` / `DequantizeLinear` (com.microsoft, also 16-bit): the
/// standard ops with the same `axis` attribute.
pub(super) fn q_dq(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, op_type: &str) -> NResult<()> {
    let opcode = if op_type == "QuantizeLinear" { Opcode::QuantizeLinear } else { Opcode::DequantizeLinear };
    let operands = vec![Some(ins.req(0, "x")?), Some(ins.req(1, "scale")?), ins.opt(2)];
    cx.emit_with(opcode, operands, &[], Attrs::new())
}
