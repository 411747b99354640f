//! Shape/type inference of sampling at computed coordinates: Resize,
//! Upsample, GridSample, AffineGrid (the sampling grid of an affine map) and
//! RoiAlign.
//!
//! As everywhere in inference, a dim that cannot be determined is
//! [`Dim::Unknown`], and a symbolic dim is only propagated where the output dim
//! equals that input dim.

use super::{expect_dtype, int_list, merge_dims, normalize_axis, same_type, shape, InferCtx, InferResult, I64_ONLY};
use crate::types::{DType, Dim, Shape, TensorType};

/// The axes Resize acts on: the `axes` attribute (normalized, no repeats) or all axes.
fn resize_axes(ctx: &InferCtx<'_>, rank: usize) -> Result<Vec<usize>, String> {
    let Some(axes) = ctx.attrs.ints("axes") else { return Ok((0..rank).collect()) };
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let a = normalize_axis(a, rank, "attribute `axes`")?;
        if out.contains(&a) {
            return Err(format!("attribute `axes` = {axes:?} repeats axis {a}"));
        }
        out.push(a);
    }
    Ok(out)
}

/// Whether the optional 1-D Resize operand `i` is given: `Some(false)` if omitted or
/// empty (older exporters pass an empty `scales`), `Some(true)` if non-empty, `None`
/// if its length is unknown. A known non-zero length must equal `n` (one per axis).
fn resize_operand_given(ctx: &InferCtx<'_>, i: usize, name: &str, n: usize) -> Result<Option<bool>, String> {
    let Some(t) = ctx.opt_input(i) else { return Ok(Some(false)) };
    let len = match (ctx.consts.get(i).copied().flatten(), t.dims()) {
        (_, Some(d)) if d.len() != 1 => return Err(format!("`{name}` {t} must be 1-D")),
        (Some(c), _) => Some(c.num_elements() as u64),
        (None, d) => d.and_then(|d| d[0].as_static()),
    };
    match len {
        Some(k) if k > 0 && k as usize != n => {
            Err(format!("`{name}` has {k} values, expected {n} (one per resized axis)"))
        }
        Some(k) => Ok(Some(k > 0)),
        None => Ok(None),
    }
}

/// Output sizes on the resized axes from constant `sizes`, honoring
/// `keep_aspect_ratio_policy` as ONNX does: one f64 scale = min (`not_larger`) or max
/// (`not_smaller`) of `sizes[i] / in[i]`, then `floor(scale * in[i] + 0.5)`; unknown unless
/// every resized input dim is static.
fn sized_dims(ctx: &InferCtx<'_>, xd: &[Dim], axes: &[usize], sizes: &[i64]) -> Result<Vec<Dim>, String> {
    if let Some(bad) = sizes.iter().find(|&&s| s < 0) {
        return Err(format!("`sizes` = {sizes:?} contains the negative size {bad}"));
    }
    let policy = ctx.str("keep_aspect_ratio_policy", "stretch");
    if policy == "stretch" {
        return Ok(sizes.iter().map(|&s| Dim::Static(s as u64)).collect());
    }
    let ins: Option<Vec<u64>> = axes.iter().map(|&a| xd[a].as_static().filter(|&d| d > 0)).collect();
    let Some(ins) = ins else { return Ok(vec![Dim::Unknown; axes.len()]) };
    let ratios = sizes.iter().zip(&ins).map(|(&s, &d)| s as f64 / d as f64);
    let scale = match policy {
        "not_larger" => ratios.fold(f64::INFINITY, f64::min),
        "not_smaller" => ratios.fold(f64::NEG_INFINITY, f64::max),
        other => return Err(format!("attribute `keep_aspect_ratio_policy` has invalid value \"{other}\"")),
    };
    // Round half up in f64, as the ONNX reference (and the kernel) do.
    Ok(ins.iter().map(|&d| Dim::Static((scale * d as f64 + 0.5).floor() as u64)).collect())
}

/// `floor(d * scale)` with the f32 scale widened to f64, as the ONNX reference (and the
/// kernel) compute it; a scale of exactly 1 keeps `d`.
fn scaled_dim(d: Dim, scale: f32) -> Dim {
    match d {
        _ if scale == 1.0 => d,
        Dim::Static(x) => Dim::Static((x as f64 * scale as f64).floor() as u64),
        _ => Dim::Unknown,
    }
}

/// Operand index, name, allowed element types and their description.
type DTypeCheck = (usize, &'static str, fn(DType) -> bool, &'static str);

/// Resize `X` on `axes` (default: all). Output dims come from constant `sizes`, else
/// from constant `scales` (`floor(in * scale)`), else are unknown; other axes keep
/// X's dims. Exactly one of `scales`/`sizes` may be non-empty.
pub fn resize(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let checks: [DTypeCheck; 3] = [
        (1, "roi", DType::is_float, "a float type"),
        (2, "scales", |d| d == DType::F32, "f32"),
        (3, "sizes", |d| d == DType::I64, "i64"),
    ];
    for (i, name, ok, allowed) in checks {
        if let Some(t) = ctx.opt_input(i) {
            expect_dtype(t, name, ok, allowed)?;
        }
    }
    let Some(xd) = x.dims() else { return Ok(vec![x.clone()]) };
    let axes = resize_axes(ctx, xd.len())?;
    match (resize_operand_given(ctx, 2, "scales", axes.len())?, resize_operand_given(ctx, 3, "sizes", axes.len())?) {
        (Some(true), Some(true)) => return Err("only one of `scales` and `sizes` may be given".into()),
        (Some(false), Some(false)) => return Err("one of `scales` and `sizes` must be given".into()),
        _ => {}
    }
    let new = if let Some(sizes) = ctx.const_ints(3).filter(|s| !s.is_empty()) {
        sized_dims(ctx, xd, &axes, &sizes)?
    } else if let Some(scales) = ctx.const_floats(2).filter(|s| !s.is_empty()) {
        if let Some(bad) = scales.iter().find(|&&s| !(s.is_finite() && s > 0.0)) {
            return Err(format!("`scales` = {scales:?} contains {bad}, scales must be positive and finite"));
        }
        axes.iter().zip(&scales).map(|(&a, &s)| scaled_dim(xd[a], s as f32)).collect()
    } else {
        vec![Dim::Unknown; axes.len()]
    };
    let mut out = xd.to_vec();
    for (&a, d) in axes.iter().zip(new) {
        out[a] = d;
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}

/// Upsample (opset 9): f32 `scales` with one value per axis of X; with constant scales
/// the dims are `floor(d * scale)`, otherwise unknown.
pub fn upsample(ctx: &InferCtx<'_>) -> InferResult {
    let (x, s) = (ctx.input(0)?, ctx.input(1)?);
    same_type(s, "scales", DType::F32)?;
    let Some(d) = x.dims() else { return Ok(vec![x.clone()]) };
    let Some(scales) = ctx.const_floats(1) else {
        return Ok(vec![TensorType::new(x.dtype, shape(vec![Dim::Unknown; d.len()]))]);
    };
    if scales.len() != d.len() || scales.iter().any(|&v| !(v.is_finite() && v > 0.0)) {
        return Err(format!("`scales` = {scales:?} must hold {} positive values", d.len()));
    }
    let out = d.iter().zip(&scales).map(|(&d, &s)| match d {
        _ if s == 1.0 => d,
        Dim::Static(x) => Dim::Static((x as f64 * s).floor() as u64),
        _ => Dim::Unknown,
    });
    Ok(vec![TensorType::new(x.dtype, shape(out))])
}

/// GridSample: X `[N, C, D1..Dr]`, float `grid [N, O1..Or, r]` → `[N, C, O1..Or]`.
pub fn grid_sample(ctx: &InferCtx<'_>) -> InferResult {
    let (x, g) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(g, "grid", DType::is_float, "a float type")?;
    let (Some(xd), Some(gd)) = (x.dims(), g.dims()) else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let r = xd.len().saturating_sub(2);
    if r == 0
        || gd.len() != xd.len()
        || gd[r + 1].as_static().is_some_and(|k| k != r as u64)
        || !xd[0].compatible(gd[0])
    {
        return Err(format!("grid {g} must be [N, out..., {r}] for X {x}"));
    }
    let n = if xd[0] == Dim::Unknown { gd[0] } else { xd[0] };
    let mut out = vec![n, xd[1]];
    out.extend_from_slice(&gd[1..=r]);
    Ok(vec![TensorType::new(x.dtype, shape(out))])
}

/// RoiAlign: float X `[N, C, H, W]`, `rois [R, 4]` of X's type, i64 `batch_indices [R]`
/// → `[R, C, output_height, output_width]`.
pub fn roi_align(ctx: &InferCtx<'_>) -> InferResult {
    let (x, rois, bi) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    same_type(rois, "rois", x.dtype)?;
    same_type(bi, "batch_indices", DType::I64)?;
    let c = match x.dims() {
        Some(d) if d.len() == 4 => d[1],
        Some(_) => return Err(format!("X {x} must be 4-D")),
        None => Dim::Unknown,
    };
    let r = match (rois.dims(), bi.dims()) {
        (Some(r), _) if r.len() != 2 || r[1].as_static().is_some_and(|k| k != 4) => {
            return Err(format!("rois {rois} must have shape [num_rois, 4]"))
        }
        (_, Some(b)) if b.len() != 1 => return Err(format!("batch_indices {bi} must be 1-D")),
        (Some(r), Some(b)) if !r[0].compatible(b[0]) => {
            return Err(format!("rois {rois} and batch_indices {bi} disagree"))
        }
        (Some(r), Some(b)) => {
            if r[0] == Dim::Unknown {
                b[0]
            } else {
                r[0]
            }
        }
        (Some(r), None) => r[0],
        (None, Some(b)) => b[0],
        (None, None) => Dim::Unknown,
    };
    let (oh, ow) = (ctx.int("output_height", 1), ctx.int("output_width", 1));
    if oh < 1 || ow < 1 {
        return Err(format!("output_height {oh} and output_width {ow} must be ≥ 1"));
    }
    Ok(vec![TensorType::new(x.dtype, shape([r, c, Dim::Static(oh as u64), Dim::Static(ow as u64)]))])
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
        n = merge_dims(n, Dim::Static(v[0] as u64), || {
            format!("`theta` {} and `size` {v:?} disagree on N", theta.shape)
        })?;
        spatial = v[2..].iter().map(|&s| Dim::Static(s as u64)).collect();
    }
    let dims = std::iter::once(n).chain(spatial).chain([Dim::Static(nsp as u64)]);
    Ok(vec![TensorType::new(theta.dtype, Shape::from_dims(dims))])
}
