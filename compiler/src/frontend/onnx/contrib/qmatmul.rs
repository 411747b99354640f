//! Integer matrix products: dynamic quantization of the float operand (as
//! `DynamicQuantizeLinear`: uint8, asymmetric, range widened to include 0),
//! `MatMulInteger` accumulation in int32, then one float scaling, exactly the
//! steps of onnxruntime's kernels. `MatMulNBits` dequantizes its packed
//! 4/8-bit weights (constant-folded when they are initializers) and
//! multiplies in float, as ORT does at `accuracy_level` 0.

use super::{cast, dtype, float_attr, int_attr, op, op1, op_n, quantize, transpose, Ins};
use crate::frontend::onnx::convert::{NResult, NodeCx, NodeError};
use ir::interp::{Data, Tensor};
use ir::{Attr, Attrs, DType, Opcode, Value};

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

/// Split each byte of `x` (uint8) into `8 / bits` values, low bits first,
/// along a new last axis, flattened into the previous one.
pub(super) fn unpack(cx: &mut NodeCx<'_, '_, '_>, x: Value, bits: i64, dims: &[i64]) -> NResult<Value> {
    if bits == 8 {
        return super::reshape(cx, x, dims);
    }
    let mask = cx.constant(&Tensor::new(vec![], Data::U8(vec![0x0f])), "mask");
    let four = cx.constant(&Tensor::new(vec![], Data::U8(vec![4])), "shift");
    let lo = op1(cx, Opcode::BitwiseAnd, &[x, mask])?;
    let right = Attrs::new().with("direction", Attr::Str("RIGHT".into()));
    let hi = op(cx, Opcode::BitShift, vec![Some(x), Some(four)], right)?;
    let axis = cx.const_i64s(&[-1], "axes");
    let lo = op1(cx, Opcode::Unsqueeze, &[lo, axis])?;
    let hi = op1(cx, Opcode::Unsqueeze, &[hi, axis])?;
    let both = op(cx, Opcode::Concat, vec![Some(lo), Some(hi)], Attrs::new().with("axis", Attr::Int(-1)))?;
    super::reshape(cx, both, dims)
}

/// `MatMulNBits(A, B, scales, zero_points?, g_idx?, bias?)` with 4- or 8-bit
/// blocks: `W[n, k] = (q[n, k] - zp[n, k / block]) * scale[n, k / block]`.
pub(super) fn matmul_nbits(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let (a, b, scales) = (ins.req(0, "A")?, ins.req(1, "B")?, ins.req(2, "scales")?);
    let get = |name: &str| cx.attr(name).map(|a| a.i).ok_or_else(|| format!("MatMulNBits needs `{name}`"));
    let (k, n, block) = (get("K")?, get("N")?, get("block_size")?);
    let bits = int_attr(cx, "bits", 4);
    if bits != 4 && bits != 8 {
        return Err(NodeError::Error(format!("MatMulNBits with bits = {bits} is not supported (4 or 8)")));
    }
    if ins.opt(4).is_some() {
        return Err("MatMulNBits with `g_idx` is not supported".into());
    }
    if !(1..=1 << 31).contains(&block) || !(1..=1 << 31).contains(&k) || !(1..=1 << 31).contains(&n) {
        return Err("MatMulNBits needs K, N and block_size in 1..=2^31".into());
    }
    let blocks = (k + block - 1) / block;
    let q = unpack(cx, b, bits, &[n, blocks, block])?;
    let qf = cast(cx, q, DType::F32)?;
    let zp = match ins.opt(3) {
        Some(z) if dtype(cx, z) == DType::U8 => {
            let per_row = (blocks * bits + 7) / 8 * (8 / bits);
            let z = unpack(cx, z, bits, &[n, per_row])?;
            let starts = cx.const_i64s(&[0], "starts");
            let ends = cx.const_i64s(&[blocks], "ends");
            let ax = cx.const_i64s(&[1], "axes");
            let z = op1(cx, Opcode::Slice, &[z, starts, ends, ax])?;
            let z = super::reshape(cx, z, &[n, blocks, 1])?;
            cast(cx, z, DType::F32)?
        }
        Some(z) => super::reshape(cx, z, &[n, blocks, 1])?,
        None => super::f32_const(cx, (1i64 << (bits - 1)) as f32, "zero_point"),
    };
    let centered = op1(cx, Opcode::Sub, &[qf, zp])?;
    let s = super::reshape(cx, scales, &[n, blocks, 1])?;
    let w = op1(cx, Opcode::Mul, &[centered, s])?;
    let w = super::reshape(cx, w, &[n, blocks * block])?;
    let w = if blocks * block != k {
        let (st, en, ax) = (cx.const_i64s(&[0], "starts"), cx.const_i64s(&[k], "ends"), cx.const_i64s(&[1], "axes"));
        op1(cx, Opcode::Slice, &[w, st, en, ax])?
    } else {
        w
    };
    let wt = transpose(cx, w, &[1, 0])?;
    let wt = if dtype(cx, a) != DType::F32 { cast(cx, wt, dtype(cx, a))? } else { wt };
    let mut y = op1(cx, Opcode::MatMul, &[a, wt])?;
    if let Some(bias) = ins.opt(5) {
        y = op1(cx, Opcode::Add, &[y, bias])?;
    }
    cx.bind(&[y]);
    Ok(())
}
