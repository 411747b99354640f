//! `onnx.Resize` and `onnx.Upsample`: the interpolation taps are precomputed
//! once at construction (`k::resize::ResizePlan`) from the op's attributes
//! and its constant `scales`/`sizes`/`roi` operands.

use super::layout::axis;
use super::Sz;
use crate::rust::func::OpCx;
use ir::Opcode;

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
        "k::resize::ResizeParams {{ mode: k::resize::ResizeMode::{mode}, coord: k::resize::CoordMode::{coord}, nearest: k::resize::NearestMode::{nearest}, cubic_a: {}, exclude_outside: {}, antialias: {}, extrapolation: {}, roi_f32: {roi_f32} }}",
        super::f32_lit(a.float("cubic_coeff_a").unwrap_or(-0.75)),
        a.int("exclude_outside").unwrap_or(0) != 0,
        a.int("antialias").unwrap_or(0) != 0,
        super::f32_lit(a.float("extrapolation_value").unwrap_or(0.0)),
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
        out.push(format!("k::resize::ResizeAxis {{ axis: {a}, out: {}, scale: {scale:?}, roi: {roi_a} }}", ys[a]));
    }
    Ok(out)
}

/// The resized axes of a model with symbolic dims, as `ResizeAxis`
/// expressions (output size from the shapes, scale from the constant
/// `scales` or `out / in`).
fn dyn_axes(cx: &OpCx<'_, '_>, xs: &[Sz], ys: &[Sz]) -> Result<Vec<String>, String> {
    let op = cx.op;
    let listed: Vec<usize> = match op.attrs.ints("axes") {
        Some(a) => a.iter().map(|&x| axis(x, xs.len())).collect::<Result<_, _>>()?,
        None => (0..xs.len()).collect(),
    };
    if op.attrs.str("coordinate_transformation_mode") == Some("tf_crop_and_resize") {
        return Err("Resize tf_crop_and_resize on symbolic dims is not supported".into());
    }
    let scales = if op.opcode == Opcode::Upsample { floats(cx, 1)? } else { floats(cx, 2)? };
    let mut out = Vec::new();
    for (i, &a) in listed.iter().enumerate() {
        let scale = match &scales {
            Some(s) => format!("{:?}", *s.get(i).ok_or("Resize scales do not cover the axes")?),
            None => format!("{} as f64 / {} as f64", ys[a], xs[a]),
        };
        if xs[a] == ys[a] && scales.as_ref().is_none_or(|s| s[i] == 1.0) {
            continue;
        }
        out.push(format!("k::resize::ResizeAxis {{ axis: {a}, out: {}, scale: {scale}, roi: None }}", ys[a]));
    }
    Ok(out)
}

/// `Resize` in a model with symbolic dims: the plan is rebuilt only when the sizes change.
fn resize_dyn(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    let class = cx.out_class(0);
    let mode = cx.op.attrs.str("mode").unwrap_or("nearest");
    if class.is_float() && class != crate::plan::Class::F32 && mode != "nearest" {
        return Err(format!("Resize in {mode} mode on {} is not supported (f32 only)", class.name()));
    }
    let params = cx.item("k::resize::ResizeParams", params(cx)?);
    let slot = cx.field("k::resize::ResizeSlot", "k::resize::ResizeSlot::default()".into());
    let out = cx.begin(0);
    let axes = dyn_axes(cx, &xs, &ys)?;
    cx.line(format!("let axes = [{}];", axes.join(", ")));
    cx.line(format!("let plan = self.{slot}.get({}, &axes, &{params});", super::dims(&xs)));
    let x = cx.input(0)?;
    if class == crate::plan::Class::F32 {
        cx.line("k::rt::grow(&mut self.scratch, plan.scratch_len());".into());
        cx.line(format!("k::resize::resize(plan, {x}, {out}, &mut self.scratch);"));
    } else {
        let z = class.literal(0.0);
        cx.line(format!("k::resize::resize_nearest(plan, {x}, {out}, {z}, {z});"));
    }
    Ok(())
}

/// Lower `Resize` / `Upsample` of `x` with dims `xs`.
pub fn resize(cx: &mut OpCx<'_, '_>, xs: &[usize]) -> Result<(), String> {
    if cx.is_dynamic() && Sz::all_lit(&cx.in_dims(0)).zip(Sz::all_lit(&cx.out_dims(0))).is_none() {
        return resize_dyn(cx);
    }
    let ys = cx.out_static(0);
    let plan = format!("k::resize::ResizePlan::new(&{xs:?}, &[{}], &{})", axes(cx, xs, &ys)?.join(", "), params(cx)?);
    let f = cx.field("k::resize::ResizePlan", plan);
    let class = cx.out_class(0);
    let mode = cx.op.attrs.str("mode").unwrap_or("nearest");
    if class.is_float() && class != crate::plan::Class::F32 && mode != "nearest" {
        return Err(format!("Resize in {mode} mode on {} is not supported (f32 only)", class.name()));
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    if class == crate::plan::Class::F32 {
        cx.scratch(format!("{f}.scratch_len()"));
        cx.line(format!("k::resize::resize(&self.{f}, {x}, {out}, &mut self.scratch);"));
    } else {
        let z = class.literal(0.0);
        cx.line(format!("k::resize::resize_nearest(&self.{f}, {x}, {out}, {z}, {z});"));
    }
    Ok(())
}
