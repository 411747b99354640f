//! Neural-network ops: matmul, gemm, normalization, softmax, resize.
//!
//! Convolution and pooling live in [`super::conv`] and are re-exported here so
//! the op table can refer to every NN op as `nn::*`. As everywhere in inference,
//! a dim that cannot be determined is [`Dim::Unknown`], and a symbolic dim is only
//! propagated where the output dim equals that input dim.

pub mod norm;
pub mod seq;
pub mod spatial;

use super::conv::dims_or_unknown;
use super::elementwise::broadcast_shapes;
use super::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

pub use super::conv::{avg_pool, conv, conv_transpose, global_pool, pool};

/// Error unless `t` has element type `dt` (the type of operand `of`).
fn expect_same(t: &TensorType, what: &str, dt: DType, of: &str) -> Result<(), String> {
    if t.dtype == dt {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {dt} (the type of {of})", t.dtype))
    }
}

/// Normalize `axis` into `[0, rank)`; `what` names the attribute in the error.
fn normalize_axis(axis: i64, rank: usize, what: &str) -> Result<usize, String> {
    let r = rank as i64;
    edgec_numeric::axis::normalize_axis(axis, rank)
        .ok_or_else(|| format!("{what} = {axis} is out of range [{}, {}] for rank {rank}", -r, r - 1))
}

/// The more precise of two dims that must be equal; `None` on a static contradiction.
fn unify(a: Dim, b: Dim) -> Option<Dim> {
    match (a, b) {
        (Dim::Static(p), Dim::Static(q)) => (p == q).then_some(a),
        (Dim::Static(_), _) => Some(a),
        (_, Dim::Static(_)) | (Dim::Unknown, _) => Some(b),
        _ => Some(a),
    }
}

/// Check that `src` broadcasts unidirectionally to `target` (numpy rules, only `src`
/// may stretch). Returns `target` with unknown dims refined from static non-1 dims of `src`.
fn broadcast_to(src: &TensorType, what: &str, target: &[Dim]) -> Result<Vec<Dim>, String> {
    let mut out = target.to_vec();
    let Some(sd) = src.dims() else { return Ok(out) };
    let bad = || format!("{what} {src} does not broadcast to {}", Shape::from_dims(target.iter().copied()));
    let off = target.len().checked_sub(sd.len()).ok_or_else(bad)?;
    for (j, &d) in sd.iter().enumerate() {
        match (d, out[off + j]) {
            (Dim::Static(a), Dim::Static(b)) if a != 1 && a != b => return Err(bad()),
            (Dim::Static(a), Dim::Unknown) if a != 1 => out[off + j] = Dim::Static(a),
            _ => {}
        }
    }
    Ok(out)
}

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

/// BatchNormalization: Y has X's type. `scale`, `B`, `input_mean` and `input_var` are
/// 1-D of size C (X's dim 1, or 1 for a 1-D X); `scale`/`B` share one float type and
/// `input_mean`/`input_var` another. Optional `running_mean`/`running_var` results are
/// `[C]` with the mean's element type.
pub fn batch_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    let mut c = match x.dims() {
        None => Dim::Unknown,
        Some([]) => return Err(format!("X {x} must have rank ≥ 1")),
        Some([_]) => Dim::Static(1),
        Some(d) => d[1],
    };
    for (i, name) in [(1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")] {
        let t = ctx.input(i)?;
        expect_dtype(t, name, DType::is_float, "a float type")?;
        match t.dims() {
            None => {}
            Some(&[d]) => {
                c = unify(c, d).ok_or_else(|| format!("{name} {t} does not match the {c} channels of X {x}"))?
            }
            Some(_) => return Err(format!("{name} {t} must be 1-D")),
        }
    }
    expect_same(ctx.input(2)?, "B", ctx.input(1)?.dtype, "scale")?;
    let mean_dt = ctx.input(3)?.dtype;
    expect_same(ctx.input(4)?, "input_var", mean_dt, "input_mean")?;
    let stat = TensorType::new(mean_dt, Shape::from_dims([c]));
    let mut out = vec![x.clone()];
    out.resize(ctx.num_results.clamp(1, 3), stat);
    Ok(out)
}

/// The element type named by an ONNX `stash_type` code (a float `TensorProto` type).
fn stash_dtype(code: i64) -> Result<DType, String> {
    Ok(match code {
        1 => DType::F32,
        10 => DType::F16,
        11 => DType::F64,
        16 => DType::BF16,
        _ => return Err(format!("attribute `stash_type` = {code} is not a float type code (1, 10, 11 or 16)")),
    })
}

/// LayerNormalization over axes `[axis, rank)` (`axis` defaults to -1): Y has X's type;
/// Scale and the optional B have X's element type and broadcast to X. The optional
/// `Mean`/`InvStdDev` results have X's shape with the dims from `axis` on set to 1, and
/// the `stash_type` element type (default f32), as in ONNX.
pub fn layer_norm(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    for (i, name) in [(1, "Scale"), (2, "B")] {
        let Some(t) = ctx.opt_input(i) else { continue };
        expect_same(t, name, x.dtype, "X")?;
        if let Some(d) = x.dims() {
            broadcast_to(t, name, d)?;
        }
    }
    let stats_shape = match x.dims() {
        None => Shape::Unranked,
        Some(d) => {
            let axis = normalize_axis(ctx.int("axis", -1), d.len(), "attribute `axis`")?;
            Shape::from_dims(d.iter().enumerate().map(|(i, &d)| if i < axis { d } else { Dim::Static(1) }))
        }
    };
    let stats = TensorType::new(stash_dtype(ctx.int("stash_type", 1))?, stats_shape);
    let mut out = vec![x.clone()];
    out.resize(ctx.num_results.clamp(1, 3), stats);
    Ok(out)
}

/// Softmax / LogSoftmax: same type as the float input; `axis` (default -1) must lie
/// in `[-r, r-1]` when the rank r is known.
pub fn softmax(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_float, "a float type")?;
    if let Some(r) = x.rank() {
        normalize_axis(ctx.int("axis", -1), r, "attribute `axis`")?;
    }
    Ok(vec![x.clone()])
}

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
