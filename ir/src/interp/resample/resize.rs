//! Resize (and the opset-9 Upsample), mirroring the ONNX reference `op_resize.py`:
//! separable 1-D interpolation along each resized axis in f64, then a saturating
//! cast back to X's type. Nearest mode is a pure gather, so it works for every
//! element type and is exact for 64-bit integers.

use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::real::{bf16_of, f16_of};
use crate::interp::tensor::real::{to_tensor_any, IntCast};
use crate::interp::{Data, EvalCtx, Tensor};
use crate::types::DType;
use edgec_numeric::resize::{source_coord, Axis, CoordMode, Filter, NearestMode, ResizeMode};
use half::{bf16, f16};

/// Interpolation settings.
#[derive(Clone, Debug)]
pub struct Params {
    /// `nearest`, `linear` or `cubic`.
    pub mode: String,
    /// The coordinate transformation mode.
    pub ctm: String,
    /// Rounding of nearest mode.
    pub nearest_mode: String,
    /// Cubic coefficient `A`.
    pub cubic_a: f64,
    /// Zero the weights of taps outside the input and renormalize.
    pub exclude_outside: bool,
    /// Widen linear/cubic filters when downsampling.
    pub antialias: bool,
    /// Value of `tf_crop_and_resize` samples outside the input.
    pub extrapolation: f64,
    /// Element type of `roi` (its arithmetic is rounded to it).
    pub roi_dtype: DType,
}

/// `v` rounded to the precision of float type `dt` (f64 for any other type).
fn round_to(dt: DType, v: f64) -> f64 {
    match dt {
        DType::F32 => v as f32 as f64,
        DType::F16 => f16_of(v).to_f64(),
        DType::BF16 => bf16_of(v).to_f64(),
        _ => v,
    }
}

/// One axis to resize.
#[derive(Clone, Debug)]
pub struct AxisPlan {
    /// The axis.
    pub axis: usize,
    /// Scale factor `out / in` (or the given scale).
    pub scale: f64,
    /// Output size.
    pub out: usize,
    /// `(start, end)` of the region of interest (tf_crop_and_resize).
    pub roi: Option<(f64, f64)>,
}

/// The taps of one output position: clamped input indices and weights, or
/// `None` where `tf_crop_and_resize` extrapolates.
type Taps = Option<(Vec<usize>, Vec<f64>)>;

/// The numeric core's filter of `p`.
fn filter(p: &Params) -> Result<Filter, String> {
    let mode = match p.mode.as_str() {
        "nearest" => ResizeMode::Nearest,
        "linear" => ResizeMode::Linear,
        "cubic" => ResizeMode::Cubic,
        m => return Err(format!("unknown mode {m:?}")),
    };
    let nearest = match p.nearest_mode.as_str() {
        "round_prefer_floor" => NearestMode::RoundPreferFloor,
        "round_prefer_ceil" => NearestMode::RoundPreferCeil,
        "floor" => NearestMode::Floor,
        "ceil" => NearestMode::Ceil,
        // Only nearest mode reads it.
        _ if mode != ResizeMode::Nearest => NearestMode::RoundPreferFloor,
        m => return Err(format!("unknown nearest_mode {m:?}")),
    };
    Ok(Filter { mode, nearest, cubic_a: p.cubic_a, antialias: p.antialias, exclude_outside: p.exclude_outside })
}

/// The numeric core's coordinate transformation of `p`.
fn coord_mode(p: &Params) -> Result<CoordMode, String> {
    Ok(match p.ctm.as_str() {
        "align_corners" => CoordMode::AlignCorners,
        "asymmetric" => CoordMode::Asymmetric,
        "tf_crop_and_resize" => CoordMode::TfCropAndResize,
        "pytorch_half_pixel" => CoordMode::PytorchHalfPixel,
        "half_pixel" => CoordMode::HalfPixel,
        "half_pixel_symmetric" => CoordMode::HalfPixelSymmetric,
        m => return Err(format!("unknown coordinate_transformation_mode {m:?}")),
    })
}

/// The taps of every output position along one axis of input size `in_w`.
fn axis_taps(p: &Params, ap: &AxisPlan, in_w: usize) -> Result<Vec<Taps>, String> {
    if in_w == 0 && ap.out > 0 {
        return Err(format!("cannot resize the empty axis {} to size {}", ap.axis, ap.out));
    }
    let (filter, coord) = (filter(p)?, coord_mode(p)?);
    if coord == CoordMode::TfCropAndResize && ap.roi.is_none() {
        return Err("tf_crop_and_resize needs `roi`".into());
    }
    let axis = Axis { input: in_w, out: ap.out, scale: ap.scale, roi: ap.roi };
    // The reference does the roi-only arithmetic in roi's own precision.
    let rd = |v: f64| round_to(p.roi_dtype, v);
    let mut out = Vec::with_capacity(ap.out);
    for y in 0..ap.out {
        let (x, extrapolated) = source_coord(coord, &axis, y as f64, rd);
        let (start, c) = filter.taps(x, ap.scale, in_w);
        let clamped = (start..start + c.len() as i64).map(|i| i.clamp(0, in_w as i64 - 1) as usize).collect();
        out.push((!extrapolated).then_some((clamped, c)));
    }
    Ok(out)
}

/// Interpolate f64 `data` of `shape` along `axis` with `taps`, in place of the axis.
fn interp_axis(data: &[f64], shape: &mut [usize], axis: usize, taps: &[Taps], ext: f64) -> Vec<f64> {
    let (outer, n, inner) = crate::interp::tensor::real::split_at_axis(shape, axis);
    let mut out = Vec::with_capacity(outer * taps.len() * inner);
    for o in 0..outer {
        for t in taps {
            for i in 0..inner {
                out.push(match t {
                    None => ext,
                    Some((idx, c)) => idx.iter().zip(c).map(|(&k, &w)| data[(o * n + k) * inner + i] * w).sum(),
                });
            }
        }
    }
    shape[axis] = taps.len();
    out
}

/// A 1-D operand's values, or `None` if omitted or empty.
fn given(t: Option<&Tensor>) -> Option<&Tensor> {
    t.filter(|t| !t.is_empty())
}

/// The resized axes (attribute `axes`, default all) of a rank-`r` input.
fn resize_axes(ctx: &EvalCtx<'_>, r: usize) -> Result<Vec<usize>, String> {
    let Some(axes) = ctx.attrs.ints("axes") else { return Ok((0..r).collect()) };
    let mut out = Vec::new();
    for &a in axes {
        let a = norm_axis(a, r)?;
        if out.contains(&a) {
            return Err(format!("attribute `axes` = {axes:?} repeats axis {a}"));
        }
        out.push(a);
    }
    Ok(out)
}

/// Output sizes and scales per resized axis from `sizes` (with
/// `keep_aspect_ratio_policy`) or `scales`, as the ONNX reference computes them.
pub fn output_sizes(
    ins: &[u64],
    scales: Option<&[f64]>,
    sizes: Option<&[i64]>,
    policy: &str,
) -> Result<(Vec<u64>, Vec<f64>), String> {
    if let Some(sizes) = sizes {
        if sizes.len() != ins.len() || sizes.iter().any(|&s| s < 0) {
            return Err(format!("`sizes` = {sizes:?} must hold {} non-negative sizes", ins.len()));
        }
        let ratios: Vec<f64> = sizes.iter().zip(ins).map(|(&s, &d)| s as f64 / d as f64).collect();
        let one = match policy {
            "stretch" => return Ok((sizes.iter().map(|&s| s as u64).collect(), ratios)),
            "not_larger" => ratios.iter().copied().fold(f64::INFINITY, f64::min),
            "not_smaller" => ratios.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            p => return Err(format!("unknown keep_aspect_ratio_policy {p:?}")),
        };
        let out = ins.iter().map(|&d| (one * d as f64 + 0.5).floor() as u64).collect();
        return Ok((out, vec![one; ins.len()]));
    }
    let scales = scales.ok_or("one of `scales` and `sizes` must be given")?;
    if scales.len() != ins.len() || scales.iter().any(|&s| !(s.is_finite() && s > 0.0)) {
        return Err(format!("`scales` = {scales:?} must hold {} positive finite values", ins.len()));
    }
    Ok((scales.iter().zip(ins).map(|(&s, &d)| (s * d as f64).floor() as u64).collect(), scales.to_vec()))
}

/// The output shape and the (non-identity) axes to interpolate, in order.
fn plan(ctx: &EvalCtx<'_>, x: &Tensor) -> Result<(Vec<usize>, Vec<AxisPlan>), String> {
    let axes = resize_axes(ctx, x.rank())?;
    let (scales, sizes) = (given(ctx.opt(2)), given(ctx.opt(3)));
    if scales.is_some() && sizes.is_some() {
        return Err("only one of `scales` and `sizes` may be given".into());
    }
    let ins: Vec<u64> = axes.iter().map(|&a| x.shape[a] as u64).collect();
    let (scales, sizes) = (scales.map(Tensor::to_f64s), sizes.map(Tensor::to_i64s));
    let policy = ctx.str("keep_aspect_ratio_policy", "stretch");
    let (outs, factors) = output_sizes(&ins, scales.as_deref(), sizes.as_deref(), policy)?;
    let roi = given(ctx.opt(1)).map(Tensor::to_f64s);
    if let Some(r) = &roi {
        if r.len() != 2 * axes.len() {
            return Err(format!("`roi` has {} values, expected {}", r.len(), 2 * axes.len()));
        }
    }
    let mut shape = x.shape.clone();
    let mut plans = Vec::new();
    for (i, &a) in axes.iter().enumerate() {
        shape[a] = outs[i] as usize;
        let roi = roi.as_ref().map(|r| (r[i], r[i + axes.len()]));
        let close = |p: f64, q: f64| (p - q).abs() <= 1e-9 * p.abs().max(q.abs());
        let identity =
            close(factors[i], 1.0) && outs[i] == ins[i] && roi.is_none_or(|(s, e)| close(s, 0.0) && close(e, 1.0));
        if !identity {
            plans.push(AxisPlan { axis: a, scale: factors[i], out: outs[i] as usize, roi });
        }
    }
    Ok((shape, plans))
}

/// Clamp to the finite range of `dt` (floats) before the cast, as `saturate_cast`.
fn saturate(dt: DType, v: f64) -> f64 {
    let max = match dt {
        DType::F32 => f32::MAX as f64,
        DType::F16 => f16::MAX.to_f64(),
        DType::BF16 => bf16::MAX.to_f64(),
        _ => return v,
    };
    if v.is_nan() {
        v
    } else {
        v.clamp(-max, max)
    }
}

/// Linear/cubic interpolation through f64, numeric types only.
fn resize_numeric(x: &Tensor, p: &Params, plans: &[AxisPlan]) -> Result<Tensor, String> {
    let dt = x.dtype();
    if !(dt.is_numeric() || dt == DType::Bool) {
        return Err(format!("mode {:?} does not support element type {dt}", p.mode));
    }
    let mut shape = x.shape.clone();
    let mut data = x.to_f64s();
    for ap in plans {
        let taps = axis_taps(p, ap, shape[ap.axis])?;
        data = interp_axis(&data, &mut shape, ap.axis, &taps, p.extrapolation);
    }
    let data: Vec<f64> = data.into_iter().map(|v| saturate(dt, v)).collect();
    to_tensor_any(dt, shape, &data, IntCast::RoundSaturate)
}

/// What one output coordinate of nearest mode reads along one axis.
#[derive(Copy, Clone)]
enum Pick {
    Index(usize),
    Extrapolate,
    Zero,
}

fn picks(p: &Params, ap: &AxisPlan, in_w: usize) -> Result<Vec<Pick>, String> {
    Ok(axis_taps(p, ap, in_w)?
        .into_iter()
        .map(|t| match t {
            None => Pick::Extrapolate,
            Some((idx, c)) => idx.iter().zip(&c).find(|(_, &w)| w != 0.0).map_or(Pick::Zero, |(&i, _)| Pick::Index(i)),
        })
        .collect())
}

/// `a` followed by `b` (same element type).
fn concat(a: &Data, b: &Data) -> Result<Data, String> {
    macro_rules! cat {
        ($($v:ident),*) => {
            match (a, b) {
                $( (Data::$v(x), Data::$v(y)) => Ok(Data::$v(x.iter().chain(y).cloned().collect())), )*
                _ => Err("element types differ".into()),
            }
        };
    }
    cat!(F32, F16, BF16, F64, I8, U8, I16, U16, I32, U32, I64, U64, Bool, String)
}

/// Nearest mode as a gather; extrapolated samples take `extrapolation_value` and
/// samples whose only tap was excluded (`exclude_outside`) are 0, as in the reference.
fn resize_nearest(x: &Tensor, p: &Params, plans: &[AxisPlan], out_shape: &[usize]) -> Result<Tensor, String> {
    let mut axis_picks: Vec<Option<Vec<Pick>>> = vec![None; x.rank()];
    for ap in plans {
        axis_picks[ap.axis] = Some(picks(p, ap, x.shape[ap.axis])?);
    }
    let (n, st) = (x.len(), x.strides());
    let total = crate::interp::tensor::real::numel(out_shape)?;
    let mut idx = Vec::with_capacity(total);
    let mut o = vec![0; out_shape.len()];
    let mut special = false;
    for _ in 0..total {
        let (mut flat, mut last) = (0, None);
        for ap in plans {
            match axis_picks[ap.axis].as_ref().map(|v| v[o[ap.axis]]) {
                Some(Pick::Extrapolate) => last = Some(n),
                Some(Pick::Zero) => last = Some(n + 1),
                _ => {}
            }
        }
        for (a, &oi) in o.iter().enumerate() {
            flat += st[a]
                * match axis_picks[a].as_ref().map(|v| v[oi]) {
                    Some(Pick::Index(i)) => i,
                    Some(_) => 0,
                    None => oi,
                };
        }
        special |= last.is_some();
        idx.push(last.unwrap_or(flat));
        crate::interp::tensor::real::next_index(&mut o, out_shape);
    }
    let data = if special {
        let extra =
            to_tensor_any(x.dtype(), vec![2], &[saturate(x.dtype(), p.extrapolation), 0.0], IntCast::RoundSaturate)?;
        concat(&x.data, &extra.data)?
    } else {
        x.data.clone()
    };
    Ok(Tensor::new(out_shape.to_vec(), data.gather(&idx)))
}

fn params(ctx: &EvalCtx<'_>) -> Params {
    Params {
        mode: ctx.str("mode", "nearest").to_string(),
        ctm: ctx.str("coordinate_transformation_mode", "half_pixel").to_string(),
        nearest_mode: ctx.str("nearest_mode", "round_prefer_floor").to_string(),
        cubic_a: ctx.float("cubic_coeff_a", -0.75) as f64,
        exclude_outside: ctx.int("exclude_outside", 0) != 0,
        antialias: ctx.int("antialias", 0) != 0,
        extrapolation: ctx.float("extrapolation_value", 0.0) as f64,
        roi_dtype: ctx.opt(1).map_or(DType::F64, Tensor::dtype),
    }
}

fn run(x: &Tensor, p: &Params, shape: &[usize], plans: &[AxisPlan]) -> Result<Tensor, String> {
    if p.mode == "nearest" {
        if p.antialias {
            return Err("antialias is not supported for mode \"nearest\"".into());
        }
        resize_nearest(x, p, plans, shape)
    } else {
        resize_numeric(x, p, plans)
    }
}

/// `onnx.Resize`: every mode, coordinate transformation, nearest rounding, cubic
/// coefficient, `exclude_outside`, antialias, `axes`, `keep_aspect_ratio_policy`,
/// `scales` or `sizes` — as the ONNX reference. Integer results round half to even
/// and saturate; float results saturate to the finite range.
pub fn resize(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let (shape, plans) = plan(ctx, x)?;
    Ok(vec![run(x, &params(ctx), &shape, &plans)?])
}

/// `onnx.Upsample` (opset 9): `Y = floor(X.shape * scales)` sized, asymmetric
/// coordinates; `nearest` rounds down when upscaling an axis and up when
/// downscaling it (onnxruntime's rule), `linear` interpolates.
pub fn upsample(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, s) = (ctx.input(0)?, ctx.input(1)?);
    let scales = s.to_f64s();
    let ins: Vec<u64> = x.shape.iter().map(|&d| d as u64).collect();
    let (outs, factors) = output_sizes(&ins, Some(&scales), None, "stretch")?;
    let mode = ctx.str("mode", "nearest");
    let mut p = params(ctx);
    p.ctm = "asymmetric".into();
    if mode != "nearest" && mode != "linear" {
        return Err(format!("Upsample mode {mode:?} is not supported (nearest or linear)"));
    }
    let mut plans = Vec::new();
    for a in 0..x.rank() {
        if factors[a] != 1.0 {
            plans.push(AxisPlan { axis: a, scale: factors[a], out: outs[a] as usize, roi: None });
        }
    }
    let shape: Vec<usize> = outs.iter().map(|&d| d as usize).collect();
    if mode == "linear" {
        return Ok(vec![run(x, &p, &shape, &plans)?]);
    }
    // Nearest: floor or ceil per axis, applied one axis at a time.
    let mut y = x.clone();
    for ap in plans {
        p.nearest_mode = if ap.scale >= 1.0 { "floor" } else { "ceil" }.into();
        let mut sh = y.shape.clone();
        sh[ap.axis] = ap.out;
        y = resize_nearest(&y, &p, std::slice::from_ref(&ap), &sh)?;
    }
    Ok(vec![y])
}
