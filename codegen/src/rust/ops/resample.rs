//! Sampling at computed coordinates: `onnx.Resize` and `onnx.Upsample` (the
//! interpolation taps are precomputed once at construction,
//! `k::resample::ResizePlan`, from the op's attributes and its constant
//! `scales`/`sizes`/`roi` operands; with symbolic dims or run-time
//! parameters the plan is rebuilt when the sizes change), GridSample
//! (`k::resample::grid`), AffineGrid (`k::resample::affine`) and RoiAlign
//! (`k::resample::roi`, its batch indices read when the model runs).

use super::{axis, dims, f32_lit, f32_only, try_line, want_class, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a resampling op; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::Resize | Opcode::Upsample => {
            let xs: Vec<usize> = cx.in_dims(0).iter().map(|d| d.lit().unwrap_or(0)).collect();
            resize(cx, &xs)?
        }
        Opcode::GridSample => grid_sample(cx)?,
        Opcode::AffineGrid => affine_grid(cx)?,
        Opcode::RoiAlign => roi_align(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn floats(cx: &OpCx<'_, '_>, i: usize) -> Result<Option<Vec<f64>>, String> {
    if cx.op.operand(i).is_none() {
        return Ok(None);
    }
    let c = cx.in_const(i).ok_or_else(|| format!("Resize operand #{i} must be a constant"))?;
    let v = c.to_f64s().ok_or("Resize operand is not numeric")?;
    Ok(if v.is_empty() { None } else { Some(v) })
}

fn params(cx: &OpCx<'_, '_>) -> Result<String, String> {
    let a = &cx.op.attrs;
    let upsample = cx.op.opcode == Opcode::Upsample;
    let mode = match a.str("mode").unwrap_or("nearest") {
        "linear" | "bilinear" => "Linear",
        "cubic" => "Cubic",
        _ => "Nearest",
    };
    let coord = if upsample { "asymmetric" } else { a.str("coordinate_transformation_mode").unwrap_or("half_pixel") };
    let coord = match coord {
        "half_pixel_symmetric" => "HalfPixelSymmetric",
        "pytorch_half_pixel" => "PytorchHalfPixel",
        "align_corners" => "AlignCorners",
        "asymmetric" => "Asymmetric",
        "tf_crop_and_resize" => "TfCropAndResize",
        _ => "HalfPixel",
    };
    let nearest = if upsample { "floor" } else { a.str("nearest_mode").unwrap_or("round_prefer_floor") };
    let nearest = match nearest {
        "round_prefer_ceil" => "RoundPreferCeil",
        "floor" => "Floor",
        "ceil" => "Ceil",
        _ => "RoundPreferFloor",
    };
    let roi_f32 = upsample || cx.op.operand(1).is_none_or(|v| cx.func().ty(v).dtype == ir::DType::F32);
    Ok(format!(
        "k::resample::ResizeParams {{ mode: k::resample::ResizeMode::{mode}, coord: k::resample::CoordMode::{coord}, nearest: k::resample::NearestMode::{nearest}, cubic_a: {}, exclude_outside: {}, antialias: {}, extrapolation: {}, roi_f32: {roi_f32} }}",
        f32_lit(a.float("cubic_coeff_a").unwrap_or(-0.75)),
        a.int("exclude_outside").unwrap_or(0) != 0,
        a.int("antialias").unwrap_or(0) != 0,
        f32_lit(a.float("extrapolation_value").unwrap_or(0.0)),
    ))
}

/// The resized axes as `ResizeAxis` literals.
fn axes(cx: &OpCx<'_, '_>, xs: &[usize], ys: &[usize]) -> Result<Vec<String>, String> {
    let op = cx.op;
    let r = xs.len();
    let listed: Vec<usize> = match op.attrs.ints("axes") {
        Some(a) => a.iter().map(|&x| axis(x, r)).collect::<Result<_, _>>()?,
        None => (0..r).collect(),
    };
    let (scales, sizes, roi) = if op.opcode == Opcode::Upsample {
        (floats(cx, 1)?, None, None)
    } else {
        (floats(cx, 2)?, floats(cx, 3)?, floats(cx, 1)?)
    };
    let crop = op.attrs.str("coordinate_transformation_mode") == Some("tf_crop_and_resize");
    let policy = op.attrs.str("keep_aspect_ratio_policy").unwrap_or("stretch");
    let common = sizes.as_ref().filter(|_| policy != "stretch").map(|s| {
        let f = listed.iter().zip(s).map(|(&a, &n)| n / xs[a] as f64);
        if policy == "not_larger" {
            f.fold(f64::INFINITY, f64::min)
        } else {
            f.fold(0.0, f64::max)
        }
    });
    let mut out = Vec::new();
    for (i, &a) in listed.iter().enumerate() {
        let scale = match (&scales, common) {
            (Some(s), _) => *s.get(i).ok_or("Resize scales do not cover the axes")?,
            (None, Some(c)) => c,
            (None, None) => ys[a] as f64 / xs[a] as f64,
        };
        let roi_a = match (&roi, crop) {
            (Some(v), true) => format!("Some(({:?}, {:?}))", v[i], v[i + listed.len()]),
            _ => "None".into(),
        };
        if scale == 1.0 && ys[a] == xs[a] && !crop {
            continue;
        }
        out.push(format!("k::resample::ResizeAxis {{ axis: {a}, out: {}, scale: {scale:?}, roi: {roi_a} }}", ys[a]));
    }
    Ok(out)
}

/// Element `i` of float operand `k` as an `f64` expression: a literal for
/// a constant, a read of the operand when the model runs otherwise.
fn float_at(cx: &mut OpCx<'_, '_>, k: usize, i: usize) -> Result<String, String> {
    match floats(cx, k) {
        Ok(Some(v)) => v.get(i).map(|x| format!("{x:?}")).ok_or_else(|| format!("Resize operand #{k} is too short")),
        Ok(None) => Err(format!("Resize operand #{k} is empty")),
        Err(_) => Ok(format!("(({})[{i}] as f64)", cx.input(k)?)),
    }
}

/// The resized axes with sizes and parameters known only when the model
/// runs, as `ResizeAxis` expressions (output size from the shapes; scale
/// from `scales`, or `out / in`, or the common factor of
/// `keep_aspect_ratio_policy`; roi for `tf_crop_and_resize`). Statements
/// they need go to the current block.
fn dyn_axes(cx: &mut OpCx<'_, '_>, xs: &[Sz], ys: &[Sz]) -> Result<Vec<String>, String> {
    let op = cx.op;
    let listed: Vec<usize> = match op.attrs.ints("axes") {
        Some(a) => a.iter().map(|&x| axis(x, xs.len())).collect::<Result<_, _>>()?,
        None => (0..xs.len()).collect(),
    };
    let n = listed.len();
    let upsample = op.opcode == Opcode::Upsample;
    let scales_at = if upsample { 1 } else { 2 };
    let has = |cx: &OpCx<'_, '_>, k: usize| {
        op.operand(k).is_some_and(|v| cx.func().ty(v).shape.num_elements().is_some_and(|e| e > 0))
    };
    let crop = op.attrs.str("coordinate_transformation_mode") == Some("tf_crop_and_resize");
    let policy = op.attrs.str("keep_aspect_ratio_policy").unwrap_or("stretch");
    let sized = !upsample && has(cx, 3);
    if sized && policy != "stretch" {
        let f = if policy == "not_larger" { "min" } else { "max" };
        let terms: Vec<String> = listed
            .iter()
            .enumerate()
            .map(|(i, &a)| Ok(format!("{} / {} as f64", float_at(cx, 3, i)?, xs[a])))
            .collect::<Result<_, String>>()?;
        cx.line(format!("let common = [{}].into_iter().fold(f64::NAN, f64::{f});", terms.join(", ")));
    }
    let mut out = Vec::new();
    for (i, &a) in listed.iter().enumerate() {
        let scale = if sized {
            if policy != "stretch" {
                "common".to_string()
            } else {
                format!("{} as f64 / {} as f64", ys[a], xs[a])
            }
        } else if has(cx, scales_at) {
            float_at(cx, scales_at, i)?
        } else {
            return Err("Resize needs scales or sizes".into());
        };
        let roi = if crop && has(cx, 1) {
            format!("Some(({}, {}))", float_at(cx, 1, i)?, float_at(cx, 1, i + n)?)
        } else {
            "None".into()
        };
        out.push(format!("k::resample::ResizeAxis {{ axis: {a}, out: {}, scale: {scale}, roi: {roi} }}", ys[a]));
    }
    Ok(out)
}

/// `Resize` in a model with symbolic dims: the plan is rebuilt only when the sizes change.
fn resize_dyn(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    let class = cx.out_class(0);
    let mode = cx.op.attrs.str("mode").unwrap_or("nearest");
    if class.is_float() && class != Class::F32 && mode != "nearest" {
        return Err(format!("Resize in {mode} mode on {} is not supported (f32 only)", class.name()));
    }
    let params = cx.item("k::resample::ResizeParams", params(cx)?);
    let slot = cx.field("k::resample::ResizeSlot", "k::resample::ResizeSlot::default()".into());
    let out = cx.begin(0);
    let axes = dyn_axes(cx, &xs, &ys)?;
    cx.line(format!("let axes = [{}];", axes.join(", ")));
    cx.line(format!("let plan = self.{slot}.get({}, &axes, &{params});", dims(&xs)));
    let x = cx.input(0)?;
    if class == Class::F32 {
        cx.line("k::rt::grow(&mut self.scratch, plan.scratch_len());".into());
        cx.line(format!("k::resample::resize(plan, {x}, {out}, &mut self.scratch);"));
    } else {
        let z = class.literal(0.0);
        cx.line(format!("k::resample::resize_nearest(plan, {x}, {out}, {z}, {z});"));
    }
    Ok(())
}

/// Lower `Resize` / `Upsample` of `x` with dims `xs`.
pub fn resize(cx: &mut OpCx<'_, '_>, xs: &[usize]) -> Result<(), String> {
    let runtime_params = (1..cx.op.operands.len()).any(|k| cx.op.operand(k).is_some() && cx.in_const(k).is_none());
    if cx.is_dynamic() && (runtime_params || Sz::all_lit(&cx.in_dims(0)).zip(Sz::all_lit(&cx.out_dims(0))).is_none()) {
        return resize_dyn(cx);
    }
    let ys = cx.out_static(0);
    let plan = format!("k::resample::ResizePlan::new(&{xs:?}, &[{}], &{})", axes(cx, xs, &ys)?.join(", "), params(cx)?);
    let f = cx.field("k::resample::ResizePlan", plan);
    let class = cx.out_class(0);
    let mode = cx.op.attrs.str("mode").unwrap_or("nearest");
    if class.is_float() && class != Class::F32 && mode != "nearest" {
        return Err(format!("Resize in {mode} mode on {} is not supported (f32 only)", class.name()));
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    if class == Class::F32 {
        cx.scratch(format!("{f}.scratch_len()"));
        cx.line(format!("k::resample::resize(&self.{f}, {x}, {out}, &mut self.scratch);"));
    } else {
        let z = class.literal(0.0);
        cx.line(format!("k::resample::resize_nearest(&self.{f}, {x}, {out}, {z}, {z});"));
    }
    Ok(())
}

fn grid_sample(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    if cx.in_class(1) != Some(Class::F32) {
        return Err("GridSample: the grid must be f32".into());
    }
    let (xs, gs) = (cx.in_static(0), cx.in_static(1));
    let r = xs.len().saturating_sub(2);
    if r == 0 || r > edgec_kernels::resample::grid::MAX_RANK || gs.len() != r + 2 || gs[r + 1] != r || gs[0] != xs[0] {
        return Err(format!("GridSample: grid {gs:?} for X {xs:?} is not supported (1 to 4 spatial axes)"));
    }
    let mode = match cx.op.attrs.str("mode").unwrap_or("linear") {
        "nearest" => "Nearest",
        "linear" | "bilinear" => "Linear",
        "cubic" | "bicubic" => "Cubic",
        m => return Err(format!("GridSample: mode `{m}` is not supported")),
    };
    let padding = match cx.op.attrs.str("padding_mode").unwrap_or("zeros") {
        "zeros" => "Zeros",
        "border" => "Border",
        "reflection" => "Reflection",
        m => return Err(format!("GridSample: padding_mode `{m}` is not supported")),
    };
    let align = cx.op.attrs.int("align_corners").unwrap_or(0) != 0;
    let outs: usize = gs[1..=r].iter().product();
    let g = format!(
        "k::resample::grid::GridSample {{ n: {}, c: {}, dims: &{:?}, outs: {outs}, mode: k::resample::grid::GridMode::{mode}, padding: k::resample::grid::GridPadding::{padding}, align_corners: {align} }}",
        xs[0],
        xs[1],
        &xs[2..]
    );
    let out = cx.begin(0);
    let (x, grid) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::resample::grid::grid_sample(&{g}, {x}, {grid}, {out});"));
    Ok(())
}

fn affine_grid(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if !cx.out_class(0).is_float() {
        return Err("AffineGrid takes float theta only".into());
    }
    let ys = cx.out_dims(0);
    let r = ys.len().saturating_sub(2);
    if !(r == 2 || r == 3) || !ys[r + 1].is(r) {
        return Err(format!("AffineGrid: output {} is not [N, spatial..., r] with r = 2 or 3", Sz::array(&ys)));
    }
    let align = cx.op.attrs.int("align_corners").unwrap_or(0) != 0;
    let out = cx.begin(0);
    let t = cx.input(0)?;
    cx.line(format!("k::resample::affine::affine_grid({}, {align}, {t}, {out});", dims(&ys[1..=r])));
    Ok(())
}

fn roi_align(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    want_class(cx, 1, &[Class::F32], "rois")?;
    want_class(cx, 2, &[Class::I64, Class::I32], "batch_indices")?;
    let (xs, rs) = (cx.in_dims(0), cx.in_dims(1));
    if xs.len() != 4 || rs.len() != 2 {
        return Err("RoiAlign: X must be [N, C, H, W] and rois [num_rois, 4]".into());
    }
    let op = cx.op;
    let int = |k: &str, d: i64| op.attrs.int(k).unwrap_or(d).max(0);
    let (oh, ow, sampling) = (int("output_height", 1).max(1), int("output_width", 1).max(1), int("sampling_ratio", 0));
    let scale = op.attrs.float("spatial_scale").unwrap_or(1.0);
    let half = op.attrs.str("coordinate_transformation_mode").unwrap_or("half_pixel") == "half_pixel";
    let max = op.attrs.str("mode").unwrap_or("avg") == "max";
    let p = format!(
        "k::resample::roi::RoiAlign {{ n: {}, c: {}, h: {}, w: {}, rois: {}, out_h: {oh}, out_w: {ow}, sampling: {sampling}, scale: {}, half_pixel: {half}, max: {max} }}",
        xs[0], xs[1], xs[2], xs[3], rs[0], f32_lit(scale)
    );
    let out = cx.begin(0);
    let (x, r, b) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    try_line(cx, format!("k::resample::roi::roi_align(&{p}, {x}, {r}, {b}, {out})"));
    Ok(())
}
