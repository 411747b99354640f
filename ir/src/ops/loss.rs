//! Shape inference: loss ops (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss)
//! and the other ops of the same family file: AffineGrid, DeformConv and
//! TensorScatter. (CumProd reuses CumSum's inference, Swish the unary float one.)
//!
//! As everywhere in inference, a dim that cannot be determined is
//! [`Dim::Unknown`]; a symbolic dim is only propagated where the output dim
//! equals that input dim.

mod extra;

pub use extra::{deform_conv, tensor_scatter};

use super::shape::{int_list, merge_equal_dims, I32_I64, I64_ONLY};
use super::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Error unless `t` has element type `dt` (the type of operand `of`).
fn expect_same(t: &TensorType, what: &str, dt: DType, of: &str) -> Result<(), String> {
    if t.dtype == dt {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {dt} (the type of {of})", t.dtype))
    }
}

/// Merge two dims that must agree, naming both operands on a contradiction.
fn merge(a: Dim, b: Dim, what: impl FnOnce() -> String) -> Result<Dim, String> {
    merge_equal_dims(a, b).map_err(|e| format!("{}: {e}", what()))
}

/// The `reduction` attribute: true for `none`, false for `sum`/`mean` (default `mean`).
fn unreduced(ctx: &InferCtx<'_>) -> Result<bool, String> {
    match ctx.str("reduction", "mean") {
        "none" => Ok(true),
        "sum" | "mean" => Ok(false),
        other => Err(format!("attribute `reduction` = \"{other}\" must be none, sum or mean")),
    }
}

/// Shared checks of NLL and SCE: float `input [N, C, d...]`, i32/i64 `target [N, d...]`,
/// optional `weight [C]` of the input type. Returns the loss type.
fn loss_type(ctx: &InferCtx<'_>, names: [&str; 3]) -> Result<TensorType, String> {
    let [xn, tn, wn] = names;
    let (x, target) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(x, xn, DType::is_float, "a float type")?;
    expect_dtype(target, tn, |d| I32_I64.contains(&d), "i32 or i64")?;
    if let Some(r) = x.rank().filter(|&r| r < 2) {
        return Err(format!("{xn} {} must have rank ≥ 2 ([N, C, d...]), found rank {r}", x.shape));
    }
    if let (Some(r), Some(tr)) = (x.rank(), target.rank()) {
        if tr + 1 != r {
            return Err(format!("{tn} {} must have rank {} (one less than {xn} {})", target.shape, r - 1, x.shape));
        }
    }
    let c = x.dims().map_or(Dim::Unknown, |d| d[1]);
    if let Some(w) = ctx.opt_input(2) {
        expect_same(w, wn, x.dtype, xn)?;
        match w.dims() {
            None => {}
            Some([d]) if d.compatible(c) => {}
            Some(_) => return Err(format!("{wn} {} must have shape [{c}] (one weight per class)", w.shape)),
        }
    }
    if !unreduced(ctx)? {
        return Ok(TensorType::scalar(x.dtype));
    }
    let shape = match (x.dims(), target.dims()) {
        (None, None) => Shape::Unranked,
        (None, Some(t)) => Shape::from_dims(t.iter().copied()),
        (Some(d), None) => Shape::from_dims(d.iter().enumerate().filter(|&(i, _)| i != 1).map(|(_, &v)| v)),
        (Some(d), Some(t)) => {
            let xd = d.iter().enumerate().filter(|&(i, _)| i != 1).map(|(_, &v)| v);
            let what = || format!("{xn} {} and {tn} {} disagree", x.shape, target.shape);
            Shape::from_dims(xd.zip(t).map(|(a, &b)| merge(a, b, what)).collect::<Result<Vec<_>, _>>()?)
        }
    };
    Ok(TensorType::new(x.dtype, shape))
}

/// NegativeLogLikelihoodLoss: `[N, d...]` with `reduction = none`, else a scalar of the input type.
pub fn nll_loss(ctx: &InferCtx<'_>) -> InferResult {
    Ok(vec![loss_type(ctx, ["`input`", "`target`", "`weight`"])?])
}

/// SoftmaxCrossEntropyLoss: the loss as NLL; the optional `log_prob` has the scores' type.
pub fn softmax_cross_entropy_loss(ctx: &InferCtx<'_>) -> InferResult {
    let mut out = vec![loss_type(ctx, ["`scores`", "`labels`", "`weights`"])?];
    if ctx.num_results > 1 {
        out.push(ctx.input(0)?.clone());
    }
    Ok(out)
}

/// AffineGrid: float `theta [N, 2, 3]` (2-D) or `[N, 3, 4]` (3-D) and i64 `size`
/// `[N, C, H, W]` or `[N, C, D, H, W]` → `[N, H, W, 2]` or `[N, D, H, W, 3]`.
pub fn affine_grid(ctx: &InferCtx<'_>) -> InferResult {
    let theta = ctx.input(0)?;
    expect_dtype(theta, "`theta`", DType::is_float, "a float type")?;
    let size = int_list(ctx, 1, "size", I64_ONLY)?.ok_or("missing operand `size`")?;
    let td = theta.dims();
    if td.is_some_and(|d| d.len() != 3) {
        return Err(format!("`theta` {} must have rank 3 ([N, 2, 3] or [N, 3, 4])", theta.shape));
    }
    // Spatial rank from `size` (4 or 5 entries) or from theta's static dims.
    let from_theta = match td.map(|d| (d[1], d[2])) {
        Some((Dim::Static(2), _)) | Some((_, Dim::Static(3))) => Some(2),
        Some((Dim::Static(3), _)) | Some((_, Dim::Static(4))) => Some(3),
        _ => None,
    };
    let nsp = match size.known_len() {
        Some(4) => 2,
        Some(5) => 3,
        Some(l) => return Err(format!("`size` has {l} entries, expected 4 ([N, C, H, W]) or 5 ([N, C, D, H, W])")),
        None => match from_theta {
            Some(n) => n,
            None => return Ok(vec![TensorType::unranked(theta.dtype)]),
        },
    };
    if let Some(d) = td {
        let want = [Dim::Static(nsp as u64), Dim::Static(nsp as u64 + 1)];
        if !d[1].compatible(want[0]) || !d[2].compatible(want[1]) {
            return Err(format!("`theta` {} must be [N, {}, {}] for a {nsp}-D grid", theta.shape, nsp, nsp + 1));
        }
    }
    let mut n = td.map_or(Dim::Unknown, |d| d[0]);
    let mut spatial = vec![Dim::Unknown; nsp];
    if let Some(v) = size.known() {
        if let Some(bad) = v.iter().find(|&&s| s < 0) {
            return Err(format!("`size` {v:?} contains the negative size {bad}"));
        }
        n = merge(n, Dim::Static(v[0] as u64), || format!("`theta` {} and `size` {v:?} disagree on N", theta.shape))?;
        spatial = v[2..].iter().map(|&s| Dim::Static(s as u64)).collect();
    }
    let dims = std::iter::once(n).chain(spatial).chain([Dim::Static(nsp as u64)]);
    Ok(vec![TensorType::new(theta.dtype, Shape::from_dims(dims))])
}
