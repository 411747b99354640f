//! Reference kernels: fused `core.*` ops (see [`crate::ops::conv`], [`crate::ops::linalg`]
//! and [`crate::ops::attention`]).
//!
//! Every kernel is composed from the existing `onnx.*` kernels, called on the
//! same tensors the unfused chain would see, so a fused op gives bit for bit the
//! result of the chain it replaces; the activation epilogue uses the
//! elementwise family's own formulas through [`Activation::apply_rounded`].

use super::elementwise::num::{float_data, floats, round_to};
use super::{elementwise as ew, nn, shape, EvalCtx, EvalFn, RegionRunner, Tensor};
use crate::attr::{Attr, Attrs};
use crate::ops::elementwise::Activation;
use crate::types::{DType, TensorType};
use std::cell::RefCell;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

/// Region runner for the sub-kernels called here (none of them has regions).
struct NoRegions;

impl RegionRunner for NoRegions {
    fn run_region(&mut self, index: usize, _params: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        Err(format!("internal: a fused op's sub-kernel asked for region #{index}"))
    }
}

/// The first result of a kernel.
fn first(out: Vec<Tensor>) -> Result<Tensor, String> {
    out.into_iter().next().ok_or_else(|| "internal: a sub-kernel produced no result".into())
}

/// Run `kernel` on `inputs` with `attrs` (in `ctx`'s module) and return its
/// first result, as the interpreter would for a one-result op.
pub(crate) fn call(
    ctx: &EvalCtx<'_>,
    kernel: EvalFn,
    inputs: &[Option<&Tensor>],
    attrs: &Attrs,
) -> Result<Tensor, String> {
    let dt = inputs.iter().flatten().next().map_or(DType::F32, |t| t.dtype());
    let result_types = [TensorType::unranked(dt)];
    let mut none = NoRegions;
    let sub =
        EvalCtx { inputs, attrs, module: ctx.module, result_types: &result_types, regions: RefCell::new(&mut none) };
    first(kernel(&sub)?)
}

/// `y` with the activation applied to every element (unchanged for `None`).
pub fn apply_activation(act: Activation, y: Tensor) -> Result<Tensor, String> {
    if act == Activation::None {
        return Ok(y);
    }
    let dt = y.dtype();
    let v = floats(&y.data).ok_or_else(|| format!("activation `{}` needs a float tensor, got {dt}", act.name()))?;
    let out = v.into_iter().map(|x| act.apply_rounded(x, |v| round_to(dt, v))).collect();
    Ok(Tensor::new(y.shape, float_data(dt, out)?))
}

/// `t` with its last two axes swapped, by `onnx.Transpose`'s kernel.
pub(crate) fn transpose_last_two(ctx: &EvalCtx<'_>, t: &Tensor, what: &str) -> Result<Tensor, String> {
    let r = t.rank();
    if r < 2 {
        return Err(format!("{what} must have rank ≥ 2, got shape {:?}", t.shape));
    }
    let mut perm: Vec<i64> = (0..r as i64).collect();
    perm.swap(r - 2, r - 1);
    call(ctx, shape::transpose, &[Some(t)], &Attrs::new().with("perm", Attr::Ints(perm)))
}

/// A rank-0 tensor of float type `dt` holding `x` (rounded once to `dt`).
pub(crate) fn scalar(dt: DType, x: f64) -> Result<Tensor, String> {
    Ok(Tensor::new(vec![], float_data(dt, vec![x])?))
}

/// `core.conv`: `act(Conv(X, W, B))`.
pub fn conv(ctx: &EvalCtx<'_>) -> KResult {
    let act = Activation::from_attrs(ctx.attrs)?;
    Ok(vec![apply_activation(act, first(nn::conv(ctx)?)?)?])
}

/// `core.conv_transpose`: `act(ConvTranspose(X, W, B))`.
pub fn conv_transpose(ctx: &EvalCtx<'_>) -> KResult {
    let act = Activation::from_attrs(ctx.attrs)?;
    Ok(vec![apply_activation(act, first(nn::conv_transpose(ctx)?)?)?])
}

/// `core.linear`: `act(MatMul(A, B') + bias)`, `B'` being `B` with its last
/// two axes swapped if `trans_b = 1`; the bias may not change the shape.
pub fn linear(ctx: &EvalCtx<'_>) -> KResult {
    let act = Activation::from_attrs(ctx.attrs)?;
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let bt;
    let b = match ctx.int("trans_b", 0) {
        0 => b,
        1 => {
            bt = transpose_last_two(ctx, b, "B (with trans_b = 1)")?;
            &bt
        }
        v => return Err(format!("attribute `trans_b` = {v} must be 0 or 1")),
    };
    let mut y = call(ctx, nn::matmul, &[Some(a), Some(b)], &Attrs::new())?;
    if let Some(bias) = ctx.opt(2) {
        let s = call(ctx, ew::add, &[Some(&y), Some(bias)], &Attrs::new())?;
        if s.shape != y.shape {
            return Err(format!("bias {:?} does not broadcast to the MatMul result {:?}", bias.shape, y.shape));
        }
        y = s;
    }
    Ok(vec![apply_activation(act, y)?])
}

/// The causal mask of `[sq, sk]` scores: true where key `j <= i` (top-left aligned).
fn causal_mask(sq: usize, sk: usize) -> Tensor {
    let v = (0..sq).flat_map(|i| (0..sk).map(move |j| j <= i)).collect();
    Tensor::new(vec![sq, sk], super::Data::Bool(v))
}

/// The `window` attribute of an attention op: keys `j` with `|i - j| <= W` only.
pub fn window_attr(ctx: &EvalCtx<'_>) -> Result<Option<usize>, String> {
    match ctx.attrs.int("window") {
        None => Ok(None),
        Some(w) => usize::try_from(w).map(Some).map_err(|_| format!("attribute `window` = {w} must be >= 0")),
    }
}

/// True where query `i` may see key `j` under a window of `w`.
pub fn in_window(i: usize, j: usize, w: usize) -> bool {
    i.abs_diff(j) <= w
}

fn window_mask(sq: usize, sk: usize, w: usize) -> Tensor {
    let v = (0..sq).flat_map(|i| (0..sk).map(move |j| in_window(i, j, w))).collect();
    Tensor::new(vec![sq, sk], super::Data::Bool(v))
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
    let s = call(ctx, nn::matmul, &[Some(q), Some(&kt)], &none)?;
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
    let p = call(ctx, nn::softmax, &[Some(&s)], &Attrs::new().with("axis", Attr::Int(-1)))?;
    Ok(vec![call(ctx, nn::matmul, &[Some(&p), Some(v)], &none)?])
}

/// `core.silu`: `X * Sigmoid(X)`, the sigmoid rounded to X's type first.
pub fn silu(ctx: &EvalCtx<'_>) -> KResult {
    Ok(vec![apply_activation(Activation::Silu, ctx.input(0)?.clone())?])
}
