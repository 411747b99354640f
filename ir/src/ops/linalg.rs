//! Shape/type inference of matrix products and their kin: MatMul, Gemm,
//! `core.linear` (MatMul with a transposed-B option, a bias and an activation
//! epilogue), Einsum and Det.
//!
//! The helpers that infer a MatMul of given operand types and check a bias
//! broadcast ([`matmul_of`], [`swap_last_two`], [`broadcast_into`]) are shared
//! with `core.attention` (see [`super::attention`]), which is defined as two
//! matrix products around a softmax.

use super::elementwise::{broadcast_shapes, Activation};
use super::{broadcast_to, dims_or_unknown, expect_dtype, expect_same, same_type, shape, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Error if both contraction sizes are static and differ.
fn check_k(ka: Dim, kb: Dim, a: &TensorType, b: &TensorType, note: &str) -> Result<(), String> {
    match (ka, kb) {
        (Dim::Static(p), Dim::Static(q)) if p != q => {
            Err(format!("inner dimensions differ: A {a} has K = {p} but B {b} has K = {q}{note}"))
        }
        _ => Ok(()),
    }
}

/// MatMul with numpy semantics: `[..., M, K] @ [..., K, N] → [..., M, N]`, batch dims
/// broadcast. A 1-D A gets a 1 prepended and a 1-D B a 1 appended; both are removed
/// from the result again.
pub fn matmul(ctx: &InferCtx<'_>) -> InferResult {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(a, "A", DType::is_numeric, "a numeric type")?;
    expect_same(b, "B", a.dtype, "A")?;
    let (Some(ad), Some(bd)) = (a.dims(), b.dims()) else { return Ok(vec![TensorType::unranked(a.dtype)]) };
    let (ra, rb) = (ad.len(), bd.len());
    if ra == 0 || rb == 0 {
        return Err(format!("MatMul operands must have rank ≥ 1, found A {a} and B {b}"));
    }
    check_k(ad[ra - 1], bd[rb.saturating_sub(2)], a, b, "")?;
    let batch = |d: &[Dim]| Shape::from_dims(d[..d.len().saturating_sub(2)].iter().copied());
    let batch = broadcast_shapes(&batch(ad), &batch(bd)).map_err(|e| format!("batch dims of A {a} and B {b}: {e}"))?;
    let mut out = batch.dims().unwrap_or_default().to_vec();
    if ra >= 2 {
        out.push(ad[ra - 2]);
    }
    if rb >= 2 {
        out.push(bd[rb - 1]);
    }
    Ok(vec![TensorType::new(a.dtype, Shape::from_dims(out))])
}

/// Gemm: `op(A) [M, K] @ op(B) [K, N] → [M, N]` where `op` transposes if
/// `transA`/`transB` is set; the optional C must broadcast unidirectionally to `[M, N]`.
pub fn gemm(ctx: &InferCtx<'_>) -> InferResult {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(a, "A", DType::is_numeric, "a numeric type")?;
    expect_same(b, "B", a.dtype, "A")?;
    for (t, name) in [(a, "A"), (b, "B")] {
        if t.rank().is_some_and(|r| r != 2) {
            return Err(format!("Gemm operand {name} {t} must be 2-D"));
        }
    }
    let (ad, bd) = (dims_or_unknown(a, 2), dims_or_unknown(b, 2));
    let (m, ka) = if ctx.int("transA", 0) != 0 { (ad[1], ad[0]) } else { (ad[0], ad[1]) };
    let (kb, n) = if ctx.int("transB", 0) != 0 { (bd[1], bd[0]) } else { (bd[0], bd[1]) };
    check_k(ka, kb, a, b, " (after transA/transB)")?;
    let mut out = vec![m, n];
    if let Some(c) = ctx.opt_input(2) {
        expect_same(c, "C", a.dtype, "A")?;
        out = broadcast_to(c, "C", &out)?;
    }
    Ok(vec![TensorType::new(a.dtype, Shape::from_dims(out))])
}

/// `t` with its last two axes swapped (unchanged if unranked).
pub(crate) fn swap_last_two(t: &TensorType) -> TensorType {
    match t.dims() {
        Some(d) if d.len() >= 2 => {
            let mut d = d.to_vec();
            let r = d.len();
            d.swap(r - 2, r - 1);
            TensorType::new(t.dtype, Shape::from_dims(d))
        }
        _ => t.clone(),
    }
}

/// The last dim of `t`, if ranked and rank ≥ 1.
fn last(t: &TensorType) -> Option<Dim> {
    t.dims().and_then(|d| d.last().copied())
}

/// `onnx.MatMul`'s inference on two given operand types.
pub(crate) fn matmul_of(ctx: &InferCtx<'_>, a: &TensorType, b: &TensorType) -> Result<TensorType, String> {
    let operands = [Some(a), Some(b)];
    let sub = InferCtx { operands: &operands, consts: &[], attrs: ctx.attrs, num_results: 1, attr_const: None };
    matmul(&sub)?.pop().ok_or_else(|| "internal: MatMul inference gave no result".into())
}

/// Check that `src` broadcasts to `target` without changing it (only `src`
/// may stretch). Returns `target` with unknown dims refined from static
/// non-1 dims of `src`.
pub(crate) fn broadcast_into(src: &TensorType, what: &str, target: &TensorType) -> Result<TensorType, String> {
    let (Some(sd), Some(td)) = (src.dims(), target.dims()) else { return Ok(target.clone()) };
    let bad = |why: String| format!("{what} {src} does not broadcast to {target} without changing it ({why})");
    if sd.len() > td.len() {
        return Err(bad(format!("rank {} > {}", sd.len(), td.len())));
    }
    let off = td.len() - sd.len();
    let mut out = td.to_vec();
    for (j, &d) in sd.iter().enumerate() {
        match (d, out[off + j]) {
            (Dim::Static(a), Dim::Static(b)) if a != 1 && a != b => return Err(bad(format!("dims {a} and {b}"))),
            (Dim::Static(a), Dim::Unknown) if a != 1 => out[off + j] = Dim::Static(a),
            _ => {}
        }
    }
    Ok(TensorType::new(target.dtype, Shape::from_dims(out)))
}

/// `core.linear`: `act(MatMul(A, B') + bias)` where `B'` is `B` with its last
/// two axes swapped if `trans_b = 1`. The result is MatMul's; `bias` must
/// broadcast to it without changing its shape.
pub fn core_linear(ctx: &InferCtx<'_>) -> InferResult {
    Activation::from_attrs(ctx.attrs)?;
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(a, "A", DType::is_float, "a float type")?;
    expect_same(b, "B", a.dtype, "A")?;
    let trans_b = match ctx.int("trans_b", 0) {
        0 => false,
        1 => true,
        v => return Err(format!("attribute `trans_b` = {v} must be 0 or 1")),
    };
    let bt = if trans_b {
        if b.rank().is_some_and(|r| r < 2) {
            return Err(format!("B {b} must have rank ≥ 2 when trans_b = 1"));
        }
        if let (Some(Dim::Static(p)), Some(Dim::Static(q))) = (last(a), last(b)) {
            if p != q {
                return Err(format!(
                    "inner dimensions differ: A {a} has K = {p} but B {b} has K = {q} (trans_b = 1: B is [.., N, K])"
                ));
            }
        }
        swap_last_two(b)
    } else {
        b.clone()
    };
    let mut y = matmul_of(ctx, a, &bt)?;
    if let Some(bias) = ctx.opt_input(2) {
        expect_same(bias, "bias", a.dtype, "A")?;
        y = broadcast_into(bias, "bias", &y)?;
    }
    Ok(vec![y])
}

/// Einsum: numeric operands of one type; the output dims follow the equation
/// (unknown where an operand dim is not static; unranked if any operand is).
pub fn einsum(ctx: &InferCtx<'_>) -> InferResult {
    let eq = ctx.attrs.str("equation").ok_or("missing required attribute `equation`")?;
    let first = ctx.input(0)?;
    expect_dtype(first, "Inputs", DType::is_numeric, "a numeric type")?;
    let mut shapes = Vec::new();
    for i in 0..ctx.num_operands() {
        let t = ctx.input(i)?;
        same_type(t, "Inputs", first.dtype)?;
        let Some(d) = t.dims() else { return Ok(vec![TensorType::unranked(first.dtype)]) };
        shapes.push(d.iter().map(|d| d.as_static().map(|x| x as usize)).collect());
    }
    let out = edgec_numeric::einsum::infer_dims(eq, &shapes)?;
    Ok(vec![TensorType::new(
        first.dtype,
        shape(out.into_iter().map(|d| d.map_or(Dim::Unknown, |x| Dim::Static(x as u64)))),
    )])
}

/// Det: `[*, M, M]` floats to `[*]`.
pub fn det(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    super::expect_dtype(x, "`X`", DType::is_float, "a float type")?;
    let Some(d) = x.dims() else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let r = d.len();
    if r < 2 || !d[r - 1].compatible(d[r - 2]) {
        return Err(format!("Det needs square matrices [*, M, M], found {}", x.shape));
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(d[..r - 2].iter().copied()))])
}
