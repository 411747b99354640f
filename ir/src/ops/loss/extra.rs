//! Shape inference of DeformConv and TensorScatter.

use super::{expect_same, merge};
use crate::ops::conv::Window;
use crate::ops::shape::norm_axis;
use crate::ops::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// The dims of `t`, or `rank` unknown dims if `t` is unranked.
fn dims_or_unknown(t: &TensorType, rank: usize) -> Vec<Dim> {
    t.dims().map(<[Dim]>::to_vec).unwrap_or_else(|| vec![Dim::Unknown; rank])
}

/// An integer attribute that must be ≥ 1 (default 1).
fn positive(ctx: &InferCtx<'_>, name: &str) -> Result<u64, String> {
    match ctx.int(name, 1) {
        v if v >= 1 => Ok(v as u64),
        v => Err(format!("attribute `{name}` = {v} must be ≥ 1")),
    }
}

/// The DeformConv operands as `(name, type)`, present ones only.
fn deform_operands<'a>(ctx: &InferCtx<'a>) -> Vec<(&'static str, &'a TensorType)> {
    let names = ["X", "W", "offset", "B", "mask"];
    names.iter().enumerate().filter_map(|(i, &n)| ctx.opt_input(i).map(|t| (n, t))).collect()
}

/// Number of spatial axes of DeformConv, from the ranks of X, W, offset, mask or `kernel_shape`.
fn deform_spatial_rank(ctx: &InferCtx<'_>) -> Result<Option<usize>, String> {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    let mut rank = None;
    for (name, t) in deform_operands(ctx) {
        expect_same(t, name, x.dtype, "X")?;
        let Some(r) = t.rank().filter(|_| name != "B") else { continue };
        if r < 3 {
            return Err(format!("{name} {} must have rank ≥ 3 (N, C and at least one spatial axis)", t.shape));
        }
        if rank.is_some_and(|q| q != r) {
            return Err(format!("{name} {} must have the same rank as X, W and offset", t.shape));
        }
        rank = Some(r);
    }
    Ok(rank.map(|r| r - 2).or_else(|| ctx.attrs.ints("kernel_shape").map(<[i64]>::len)))
}

/// Error if the static dims `a` and `b` differ.
fn check_eq(a: Dim, b: Dim, msg: impl FnOnce() -> String) -> Result<(), String> {
    match (a, b) {
        (Dim::Static(p), Dim::Static(q)) if p != q => Err(msg()),
        _ => Ok(()),
    }
}

/// DeformConv: `X [N, C, D...]`, `W [oC, C/group, k...]`, `offset [N, og·∏k·n, o...]`,
/// optional `B [oC]` and `mask [N, og·∏k, o...]` → `[N, oC, o...]` (output sizes as Conv).
pub fn deform_conv(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let Some(n) = deform_spatial_rank(ctx)? else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let (group, og) = (positive(ctx, "group")?, positive(ctx, "offset_group")?);
    let (w, off) = (ctx.input(1)?, ctx.input(2)?);
    let (xd, wd, od) = (dims_or_unknown(x, n + 2), dims_or_unknown(w, n + 2), dims_or_unknown(off, n + 2));
    let per_group = wd[1].as_static().and_then(|c| c.checked_mul(group));
    check_eq(xd[1], per_group.map_or(Dim::Unknown, Dim::Static), || {
        format!("X {} has {} channels but W {} expects {} per group × group {group}", x.shape, xd[1], w.shape, wd[1])
    })?;
    if wd[0].as_static().is_some_and(|m| m % group != 0) {
        return Err(format!("W {}: output channels {} are not divisible by group {group}", w.shape, wd[0]));
    }
    if xd[1].as_static().is_some_and(|c| c % og != 0) {
        return Err(format!("X {}: channels {} are not divisible by offset_group {og}", x.shape, xd[1]));
    }
    if let Some(b) = ctx.opt_input(3) {
        if b.dims().is_some_and(|d| d.len() != 1 || !d[0].compatible(wd[0])) {
            return Err(format!("B {} must have shape [{}] (one value per output channel)", b.shape, wd[0]));
        }
    }
    let win = Window::parse(ctx, n, Some(&wd[2..]))?;
    let taps: Option<u64> = win.kernel.iter().try_fold(og, |acc, k| k.and_then(|k| acc.checked_mul(k)));
    let batch = merge(xd[0], od[0], || format!("X {} and offset {} disagree on N", x.shape, off.shape))?;
    let mut out = vec![batch, wd[0]];
    for i in 0..n {
        let o = win.out_dim(i, xd[i + 2])?;
        out.push(merge(o, od[i + 2], || {
            format!("offset {} does not match the output size {o} on axis {i}", off.shape)
        })?);
    }
    let want = taps.and_then(|t| t.checked_mul(n as u64)).map_or(Dim::Unknown, Dim::Static);
    check_eq(od[1], want, || {
        format!("offset {} must have {want} channels (offset_group × kernel taps × {n})", off.shape)
    })?;
    if let Some(m) = ctx.opt_input(4) {
        let md = dims_or_unknown(m, n + 2);
        let want = taps.map_or(Dim::Unknown, Dim::Static);
        let bad = || format!("mask {} must have shape [N, {want}, output spatial dims...]", m.shape);
        check_eq(md[1], want, bad)?;
        for (i, &d) in md.iter().enumerate().filter(|&(i, _)| i != 1) {
            out[i] = merge(out[i], d, bad)?;
        }
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}

/// TensorScatter: `present_cache` like `past_cache`; `update` has its rank and dims
/// except on `axis` (default -2, never the batch axis 0) where it is not larger;
/// optional i64 `write_indices [batch]`.
pub fn tensor_scatter(ctx: &InferCtx<'_>) -> InferResult {
    let (past, update) = (ctx.input(0)?, ctx.input(1)?);
    expect_same(update, "`update`", past.dtype, "`past_cache`")?;
    if let Some(wi) = ctx.opt_input(2) {
        expect_dtype(wi, "`write_indices`", |d| d == DType::I64, "i64")?;
        if wi.rank().is_some_and(|r| r != 1) {
            return Err(format!("`write_indices` {} must be 1-D [batch]", wi.shape));
        }
    }
    let mode = ctx.str("mode", "linear");
    if mode != "linear" && mode != "circular" {
        return Err(format!("attribute `mode` = \"{mode}\" must be linear or circular"));
    }
    let Some(pd) = past.dims() else { return Ok(vec![past.clone()]) };
    let ax =
        norm_axis(ctx.int("axis", -2), pd.len()).map_err(|e| format!("`axis`: {e} (past_cache {})", past.shape))?;
    if ax == 0 {
        return Err("attribute `axis` must not be the batch axis 0".into());
    }
    let mut out = pd.to_vec();
    if let Some(ud) = update.dims() {
        let bad = || format!("`update` {} does not fit `past_cache` {} (axis {ax})", update.shape, past.shape);
        if ud.len() != pd.len() {
            return Err(bad());
        }
        for i in (0..pd.len()).filter(|&i| i != ax) {
            out[i] = merge(pd[i], ud[i], bad)?;
        }
        if let (Dim::Static(p), Dim::Static(u)) = (pd[ax], ud[ax]) {
            if u > p {
                return Err(bad());
            }
        }
    }
    if let Some(w) = ctx.opt_input(2).and_then(|w| w.dims()) {
        out[0] = merge(out[0], w[0], || format!("`write_indices` [{}] must have one entry per batch", w[0]))?;
    }
    Ok(vec![TensorType::new(past.dtype, Shape::from_dims(out))])
}
