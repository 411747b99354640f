//! Reference kernel of the fused `core.attention` (see [`crate::ops::attention`]).
//!
//! It is composed from the existing `onnx.*` kernels (through
//! [`crate::interp::call`]), called on the same tensors the unfused chain would
//! see, so it gives bit for bit the result of the chain it replaces.

use super::{in_window, scalar, window_attr};
use crate::attr::{Attr, Attrs};
use crate::interp::layout::transpose_last_two;
use crate::interp::{call, elementwise as ew, linalg, norm, Data, EvalCtx, Tensor};
use crate::types::DType;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

/// The causal mask of `[sq, sk]` scores: true where key `j <= i` (top-left aligned).
fn causal_mask(sq: usize, sk: usize) -> Tensor {
    let v = (0..sq).flat_map(|i| (0..sk).map(move |j| j <= i)).collect();
    Tensor::new(vec![sq, sk], Data::Bool(v))
}

fn window_mask(sq: usize, sk: usize, w: usize) -> Tensor {
    let v = (0..sq).flat_map(|i| (0..sk).map(move |j| in_window(i, j, w))).collect();
    Tensor::new(vec![sq, sk], Data::Bool(v))
}

/// Scores masked by `mask`: a float mask is added, a bool mask keeps the true
/// positions and puts `-inf` at the false ones. The scores' shape must not change.
fn masked(ctx: &EvalCtx<'_>, s: Tensor, mask: &Tensor, what: &str) -> Result<Tensor, String> {
    let none = Attrs::new();
    let m = if mask.dtype() == DType::Bool {
        let neg_inf = scalar(s.dtype(), f64::NEG_INFINITY)?;
        call(ctx, ew::where_, &[Some(mask), Some(&s), Some(&neg_inf)], &none)?
    } else {
        call(ctx, ew::add, &[Some(&s), Some(mask)], &none)?
    };
    if m.shape != s.shape {
        return Err(format!("{what} {:?} does not broadcast to the scores {:?}", mask.shape, s.shape));
    }
    Ok(m)
}

/// `core.attention`: `softmax(mask(Q @ Kᵀ * scale)) @ V`, evaluated as the
/// chain `MatMul(Q, Transpose(K))`, `Mul(scale)`, `Add(mask)` (or `Where` for a
/// bool mask), `Where(causal)`, `Where(window)`, `Softmax(axis = -1)`, `MatMul(V)`. A row whose
/// keys are all masked becomes NaN, as `onnx.Softmax` of an all `-inf` row does.
pub fn attention(ctx: &EvalCtx<'_>) -> KResult {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let scale = ctx.attrs.float("scale").ok_or("missing attribute `scale`")?;
    let causal = match ctx.int("causal", 0) {
        0 => false,
        1 => true,
        c => return Err(format!("attribute `causal` = {c} must be 0 or 1")),
    };
    if q.rank() < 2 || v.rank() < 2 {
        return Err(format!("Q {:?} and V {:?} must have rank ≥ 2", q.shape, v.shape));
    }
    let none = Attrs::new();
    let kt = transpose_last_two(ctx, k, "K")?;
    let s = call(ctx, linalg::matmul, &[Some(q), Some(&kt)], &none)?;
    let scale = scalar(s.dtype(), scale as f64)?;
    let mut s = call(ctx, ew::mul, &[Some(&s), Some(&scale)], &none)?;
    if let Some(mask) = ctx.opt(3) {
        s = masked(ctx, s, mask, "mask")?;
    }
    let r = s.rank();
    if causal {
        let cm = causal_mask(s.shape[r - 2], s.shape[r - 1]);
        s = masked(ctx, s, &cm, "causal mask")?;
    }
    if let Some(w) = window_attr(ctx)? {
        let wm = window_mask(s.shape[r - 2], s.shape[r - 1], w);
        s = masked(ctx, s, &wm, "window mask")?;
    }
    let p = call(ctx, norm::softmax, &[Some(&s)], &Attrs::new().with("axis", Attr::Int(-1)))?;
    Ok(vec![call(ctx, linalg::matmul, &[Some(&p), Some(v)], &none)?])
}
