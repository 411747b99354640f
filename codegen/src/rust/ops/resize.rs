//! `onnx.Resize` and `onnx.Upsample`: the interpolation taps are precomputed
//! once at construction (`k::resize::ResizePlan`) from the op's attributes
//! and its constant `scales`/`sizes`/`roi` operands.

use super::layout::axis;
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

/// Lower `Resize` / `Upsample` of `x` with dims `xs`.
pub fn resize(cx: &mut OpCx<'_, '_>, xs: &[usize]) -> Result<(), String> {
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
