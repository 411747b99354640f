//! Shape inference of the training losses: NegativeLogLikelihoodLoss and
//! SoftmaxCrossEntropyLoss.
//!
//! As everywhere in inference, a dim that cannot be determined is
//! [`Dim::Unknown`]; a symbolic dim is only propagated where the output dim
//! equals that input dim.

use super::{expect_dtype, expect_same, merge_dims, InferCtx, InferResult, I32_I64};
use crate::types::{DType, Dim, Shape, TensorType};

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
            Shape::from_dims(xd.zip(t).map(|(a, &b)| merge_dims(a, b, what)).collect::<Result<Vec<_>, _>>()?)
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
