//! Integer matrix products: dynamic quantization of the float operand (as
//! `DynamicQuantizeLinear`: uint8, asymmetric, range widened to include 0),
//! `MatMulInteger` accumulation in int32, then one float scaling, exactly the
//! steps of onnxruntime's kernels. Block-quantized weights (`MatMulNBits`)
//! are in `nbits.rs`.

use super::{cast, dtype, float_attr, int_attr, op, op1, op_n, quantize, transpose, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx};
use ir::{Attrs, DType, Opcode, Value};

/// `float(acc) * (a_scale * b_scale)`, plus `bias` if present.
fn scale_acc(
    cx: &mut NodeCx<'_, '_, '_>,
    acc: Value,
    a_scale: Value,
    b_scale: Value,
    bias: Option<Value>,
) -> NResult<Value> {
    let f = cast(cx, acc, DType::F32)?;
    let mult = op1(cx, Opcode::Mul, &[a_scale, b_scale])?;
    let y = op1(cx, Opcode::Mul, &[f, mult])?;
    match bias {
        Some(b) => op1(cx, Opcode::Add, &[y, b]),
        None => Ok(y),
    }
}

/// `DynamicQuantizeMatMul(A, B, b_scale, b_zero_point?, bias?)`.
pub(super) fn dynamic_quantize_matmul(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let a = ins.req(0, "A")?;
    let b = ins.req(1, "B")?;
    let b_scale = ins.req(2, "b_scale")?;
    let q = op_n(cx, Opcode::DynamicQuantizeLinear, vec![Some(a)], Attrs::new(), 3)?;
    let (aq, a_scale, a_zp) = (q[0], q[1], q[2]);
    let acc = op(cx, Opcode::MatMulInteger, vec![Some(aq), Some(b), Some(a_zp), ins.opt(3)], Attrs::new())?;
    let y = scale_acc(cx, acc, a_scale, b_scale, ins.opt(4))?;
    cx.bind(&[y]);
    Ok(())
}

/// `MatMulIntegerToFloat(A, B, a_scale, b_scale, a_zero_point?, b_zero_point?, bias?)`.
pub(super) fn matmul_integer_to_float(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (a, b) = (ins.req(0, "A")?, ins.req(1, "B")?);
    let (a_scale, b_scale) = (ins.req(2, "a_scale")?, ins.req(3, "b_scale")?);
    let acc = op(cx, Opcode::MatMulInteger, vec![Some(a), Some(b), ins.opt(4), ins.opt(5)], Attrs::new())?;
    let y = scale_acc(cx, acc, a_scale, b_scale, ins.opt(6))?;
    cx.bind(&[y]);
    Ok(())
}

/// `QGemm(A, As, Az, B, Bs, Bz, C?, Ys?, Yz?)`: int32 `A'·B' + C`, scaled by
/// `alpha·As·Bs`; requantized with `(Ys, Yz)` when given, else float.
pub(super) fn qgemm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (mut a, a_scale, a_zp) = (ins.req(0, "A")?, ins.req(1, "a_scale")?, ins.req(2, "a_zero_point")?);
    let (mut b, b_scale, b_zp) = (ins.req(3, "B")?, ins.req(4, "b_scale")?, ins.req(5, "b_zero_point")?);
    if int_attr(cx, "transA", 0) != 0 {
        a = transpose(cx, a, &[1, 0])?;
    }
    if int_attr(cx, "transB", 0) != 0 {
        b = transpose(cx, b, &[1, 0])?;
    }
    let mut acc = op(cx, Opcode::MatMulInteger, vec![Some(a), Some(b), Some(a_zp), Some(b_zp)], Attrs::new())?;
    if let Some(c) = ins.opt(6) {
        acc = op1(cx, Opcode::Add, &[acc, c])?;
    }
    let alpha = float_attr(cx, "alpha", 1.0);
    let mut scale = op1(cx, Opcode::Mul, &[a_scale, b_scale])?;
    if alpha != 1.0 {
        let al = super::f32_const(cx, alpha, "alpha");
        scale = op1(cx, Opcode::Mul, &[scale, al])?;
    }
    let f = cast(cx, acc, DType::F32)?;
    let y = match ins.opt(7) {
        // Requantize as MLAS does: round(acc * (scale / y_scale)) + y_zp.
        Some(y_scale) => {
            let m = op1(cx, Opcode::Div, &[scale, y_scale])?;
            let v = op1(cx, Opcode::Mul, &[f, m])?;
            let one = super::f32_const(cx, 1.0, "one");
            let zp = match ins.opt(8) {
                Some(z) => z,
                None => cx.scalar(dtype(cx, ins.req(0, "A")?), 0.0, "y_zero_point")?,
            };
            quantize(cx, v, one, zp)?
        }
        None => op1(cx, Opcode::Mul, &[f, scale])?,
    };
    cx.bind(&[y]);
    Ok(())
}
