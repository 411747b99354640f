//! Block-quantized 4/8-bit weights: `MatMulNBits` and
//! `GatherBlockQuantized`. Weights are `uint8` bytes holding `8 / bits`
//! values each (low bits first), in blocks along the reduction axis, each
//! block with a float scale and an unsigned zero point (packed like the
//! data; default `2^(bits-1)`). `W = (q - zp) * scale`.
//!
//! `MatMulNBits` at `accuracy_level` < 4 multiplies by the dequantized
//! weights in float (folded when they are initializers), as ORT does. At 4
//! ORT quantizes A too — per row and block, symmetric int8 with
//! `scale = max|a| / 127`, rounded half to even — and sums
//! `float(int32 block dot) * a_scale * b_scale` over blocks; the lowering
//! emits exactly those steps.

use super::{cast, dtype, int_attr, op, op1, transpose, Ins};
use crate::frontend::onnx::node::{NResult, NodeCx, NodeError};
use ir::interp::{Data, Tensor};
use ir::{Attr, Attrs, DType, Opcode, Value};

/// Split each byte of `x` (uint8) into `8 / bits` values, low bits first,
/// along a new last axis, flattened into the previous one; reshaped to `dims`.
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

/// A block-quantized table of `rows` rows and `blocks` blocks of `block`.
pub(super) struct Blocks {
    /// Unpacked values, uint8 `[rows, blocks, block]`.
    pub(super) q: Value,
    /// Zero points `[rows, blocks, 1]`: unpacked uint8, float, or `None`
    /// for the default `2^(bits-1)`.
    pub(super) zp: Option<Value>,
    /// Scales `[rows, blocks, 1]`.
    pub(super) scales: Value,
    pub(super) bits: i64,
}

/// Unpack `data` and its zero points into [`Blocks`].
pub(super) fn blocks(
    cx: &mut NodeCx<'_, '_, '_>,
    data: Value,
    scales: Value,
    zp: Option<Value>,
    bits: i64,
    shape: [i64; 3],
) -> NResult<Blocks> {
    let [rows, blocks, _] = shape;
    let q = unpack(cx, data, bits, &shape)?;
    let zp = match zp {
        Some(z) if dtype(cx, z) == DType::U8 => {
            let per_row = (blocks * bits + 7) / 8 * (8 / bits);
            let z = unpack(cx, z, bits, &[rows, per_row])?;
            let (st, en, ax) =
                (cx.const_i64s(&[0], "starts"), cx.const_i64s(&[blocks], "ends"), cx.const_i64s(&[1], "axes"));
            let z = op1(cx, Opcode::Slice, &[z, st, en, ax])?;
            Some(super::reshape(cx, z, &[rows, blocks, 1])?)
        }
        Some(z) => Some(super::reshape(cx, z, &[rows, blocks, 1])?),
        None => None,
    };
    let scales = super::reshape(cx, scales, &[rows, blocks, 1])?;
    Ok(Blocks { q, zp, scales, bits })
}

/// `(q - zp) * scale` in f32, `[rows, blocks * block]`.
pub(super) fn dequantized(cx: &mut NodeCx<'_, '_, '_>, b: &Blocks, rows: i64, cols: i64) -> NResult<Value> {
    let qf = cast(cx, b.q, DType::F32)?;
    let zp = match b.zp {
        Some(z) if dtype(cx, z) == DType::F32 => z,
        Some(z) => cast(cx, z, DType::F32)?,
        None => super::f32_const(cx, (1i64 << (b.bits - 1)) as f32, "zero_point"),
    };
    let centered = op1(cx, Opcode::Sub, &[qf, zp])?;
    let s = if dtype(cx, b.scales) == DType::F32 { b.scales } else { cast(cx, b.scales, DType::F32)? };
    let w = op1(cx, Opcode::Mul, &[centered, s])?;
    super::reshape(cx, w, &[rows, cols])
}

/// `[0, k)` of the last axis when `k` is shorter than `x`'s `len`.
fn first_cols(cx: &mut NodeCx<'_, '_, '_>, x: Value, k: i64, len: i64) -> NResult<Value> {
    if k == len {
        return Ok(x);
    }
    let (st, en, ax) = (cx.const_i64s(&[0], "starts"), cx.const_i64s(&[k], "ends"), cx.const_i64s(&[-1], "axes"));
    op1(cx, Opcode::Slice, &[x, st, en, ax])
}

/// `MatMulNBits(A, B, scales, zero_points?, g_idx?, bias?)`.
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
    let nb = (k + block - 1) / block;
    let bl = blocks(cx, b, scales, ins.opt(3), bits, [n, nb, block])?;
    let mut y = if int_attr(cx, "accuracy_level", 0) >= 4 {
        int8_matmul(cx, a, &bl, [n, nb, block], k)?
    } else {
        let w = dequantized(cx, &bl, n, nb * block)?;
        let w = first_cols(cx, w, k, nb * block)?;
        let wt = transpose(cx, w, &[1, 0])?;
        let wt = if dtype(cx, a) != DType::F32 { cast(cx, wt, dtype(cx, a))? } else { wt };
        op1(cx, Opcode::MatMul, &[a, wt])?
    };
    if let Some(bias) = ins.opt(5) {
        y = op1(cx, Opcode::Add, &[y, bias])?;
    }
    cx.bind(&[y]);
    Ok(())
}

/// `B - zp` as int8 `[n, blocks, block]` (in range: 4/8-bit values minus a
/// zero point of the same width; 8-bit needs `|q - zp| <= 127`, as ORT's
/// int8 kernels assume).
fn centered_i8(cx: &mut NodeCx<'_, '_, '_>, b: &Blocks) -> NResult<Value> {
    let q = cast(cx, b.q, DType::I32)?;
    let zp = match b.zp {
        Some(z) if dtype(cx, z) == DType::U8 => cast(cx, z, DType::I32)?,
        Some(_) => return Err("accuracy_level 4 with float zero points is not supported".into()),
        None => cx.constant(&Tensor::new(vec![], Data::I32(vec![1 << (b.bits - 1)])), "zero_point"),
    };
    let c = op1(cx, Opcode::Sub, &[q, zp])?;
    cast(cx, c, DType::I8)
}

/// ORT's `accuracy_level` 4 product of `a` `[..., K]` and the blocks.
fn int8_matmul(cx: &mut NodeCx<'_, '_, '_>, a: Value, b: &Blocks, shape: [i64; 3], k: i64) -> NResult<Value> {
    let [n, nb, block] = shape;
    if dtype(cx, a) != DType::F32 {
        return Err("accuracy_level 4 needs float32 A".into());
    }
    let mut a2 = super::reshape(cx, a, &[-1, k])?;
    if nb * block != k {
        let pads = cx.const_i64s(&[0, 0, 0, nb * block - k], "pads");
        a2 = op1(cx, Opcode::Pad, &[a2, pads])?;
    }
    let a3 = super::reshape(cx, a2, &[-1, nb, block])?;
    let abs = op1(cx, Opcode::Abs, &[a3])?;
    let last = cx.const_i64s(&[-1], "axes");
    let keep = Attrs::new().with("keepdims", Attr::Int(1));
    let amax = op(cx, Opcode::ReduceMax, vec![Some(abs), Some(last)], keep)?;
    let (c127, one, zero) =
        (super::f32_const(cx, 127.0, "range"), super::f32_const(cx, 1.0, "one"), super::f32_const(cx, 0.0, "zero"));
    let a_scale = op1(cx, Opcode::Div, &[amax, c127])?;
    let is_zero = op1(cx, Opcode::Equal, &[a_scale, zero])?;
    let inv = op1(cx, Opcode::Div, &[one, a_scale])?;
    let recip = op1(cx, Opcode::Where, &[is_zero, zero, inv])?;
    let scaled = op1(cx, Opcode::Mul, &[a3, recip])?;
    let rounded = op1(cx, Opcode::Round, &[scaled])?;
    let aq = cast(cx, rounded, DType::I8)?;
    let at = transpose(cx, aq, &[1, 0, 2])?;
    let bc = centered_i8(cx, b)?;
    let bt = transpose(cx, bc, &[1, 2, 0])?;
    let dots = op(cx, Opcode::MatMulInteger, vec![Some(at), Some(bt)], Attrs::new())?;
    let df = cast(cx, dots, DType::F32)?;
    let as_t = transpose(cx, a_scale, &[1, 0, 2])?;
    let bs_t = transpose(cx, b.scales, &[1, 2, 0])?;
    let sc = op1(cx, Opcode::Mul, &[as_t, bs_t])?;
    let prod = op1(cx, Opcode::Mul, &[df, sc])?;
    let first = cx.const_i64s(&[0], "axes");
    let y = op(cx, Opcode::ReduceSum, vec![Some(prod), Some(first)], Attrs::new().with("keepdims", Attr::Int(0)))?;
    // Back to A's leading dims: shape(A)[:-1] ++ [N].
    let shape = op1(cx, Opcode::Shape, &[a])?;
    let (z, m1) = (cx.const_i64s(&[0], "starts"), cx.const_i64s(&[-1], "ends"));
    let lead = op1(cx, Opcode::Slice, &[shape, z, m1])?;
    let nn = cx.const_i64s(&[n], "n");
    let dims = op(cx, Opcode::Concat, vec![Some(lead), Some(nn)], Attrs::new().with("axis", Attr::Int(0)))?;
    op1(cx, Opcode::Reshape, &[y, dims])
}
