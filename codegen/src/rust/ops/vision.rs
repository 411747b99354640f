//! RoiAlign (`k::misc::roi`), DeformConv (`k::conv::deform`), ConvInteger
//! and QLinearConv (`k::conv::int`), and MaxPool on 8-bit integers
//! (`k::pool::max_pool_ord`): direct N-D kernels over the window geometry
//! resolved here (`auto_pad` through `conv::pads`). Zero points, scales
//! and batch indices are read from their operands when the model runs.

use super::conv::{ints, pads};
use super::{dims, f32_lit, try_line, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use edgec_kernels::conv::window::MAX_RANK;
use ir::Opcode;

/// Lower RoiAlign, DeformConv, ConvInteger, QLinearConv or an integer
/// MaxPool (without its Indices result); `Ok(false)` otherwise.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::RoiAlign => roi_align(cx)?,
        Opcode::DeformConv => deform_conv(cx)?,
        Opcode::ConvInteger => conv_int(cx, false)?,
        Opcode::QLinearConv => conv_int(cx, true)?,
        Opcode::MaxPool if matches!(cx.in_class(0), Some(Class::U8 | Class::I8)) => max_pool_int(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn want(cx: &OpCx<'_, '_>, i: usize, ok: &[Class], what: &str) -> Result<(), String> {
    match cx.in_class(i) {
        Some(c) if ok.contains(&c) => Ok(()),
        _ => Err(format!("{}: {what} of this element type is not supported", cx.op.opcode.name())),
    }
}

fn roi_align(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    super::f32_only(cx)?;
    want(cx, 1, &[Class::F32], "rois")?;
    want(cx, 2, &[Class::I64, Class::I32], "batch_indices")?;
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
        "k::misc::roi::RoiAlign {{ n: {}, c: {}, h: {}, w: {}, rois: {}, out_h: {oh}, out_w: {ow}, sampling: {sampling}, scale: {}, half_pixel: {half}, max: {max} }}",
        xs[0], xs[1], xs[2], xs[3], rs[0], f32_lit(scale)
    );
    let out = cx.begin(0);
    let (x, r, b) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    try_line(cx, format!("k::misc::roi::roi_align(&{p}, {x}, {r}, {b}, {out})"));
    Ok(())
}

/// The `k::conv::window::Window` literal of a conv-like op over input
/// `xs` with kernel `kernel` and output `ys` (pads resolved in `cx`'s
/// current block when `auto_pad` needs run-time sizes).
fn window(cx: &mut OpCx<'_, '_>, xs: &[Sz], kernel: &[usize], ys: &[Sz]) -> String {
    let r = kernel.len();
    let (stride, dil) = (ints(cx.op, "strides", r, 1), ints(cx.op, "dilations", r, 1));
    let p = pads(cx, &xs[2..], &ys[2..], kernel, &stride, &dil);
    format!(
        "k::conv::window::Window {{ input: {}, kernel: &{kernel:?}, output: {}, strides: &{stride:?}, dilations: &{dil:?}, pads: {} }}",
        dims(&xs[2..]),
        dims(&ys[2..]),
        dims(&p[..r])
    )
}

fn deform_conv(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    super::f32_only(cx)?;
    for (i, w) in [(1, "W"), (2, "offset"), (3, "B"), (4, "mask")] {
        if cx.op.operand(i).is_some() {
            want(cx, i, &[Class::F32], w)?;
        }
    }
    let (xs, ws, ys) = (cx.in_dims(0), cx.in_static(1), cx.out_dims(0));
    let r = xs.len().checked_sub(2).filter(|r| (1..=MAX_RANK).contains(r));
    let Some(r) = r.filter(|&r| ws.len() == r + 2 && ys.len() == r + 2) else {
        return Err(format!("DeformConv: X of rank {} with W {ws:?} is not supported", xs.len()));
    };
    let group = cx.op.attrs.int("group").unwrap_or(1).max(1);
    let og = cx.op.attrs.int("offset_group").unwrap_or(1).max(1);
    let out = cx.begin(0);
    let win = window(cx, &xs, &ws[2..], &ys);
    debug_assert_eq!(ws[2..].len(), r);
    cx.line(format!(
        "let p = k::conv::deform::DeformConv {{ n: {}, c: {}, m: {}, group: {group}, offset_group: {og}, win: {win} }};",
        xs[0], xs[1], ws[0]
    ));
    let len = Sz::product(&xs[1..2]) * Sz::Lit(ws[2..].iter().product()) * Sz::product(&ys[2..]);
    cx.scratch(len.to_string());
    let (x, w, off) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let opt = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
        Ok(match cx.op.operand(i) {
            Some(_) => format!("Some({})", cx.input(i)?),
            None => "None".into(),
        })
    };
    let (b, m) = (opt(cx, 3)?, opt(cx, 4)?);
    cx.line(format!("k::conv::deform::deform_conv(&p, {x}, {w}, {off}, {b}, {m}, &mut self.scratch, {out});"));
    Ok(())
}

fn conv_int(cx: &mut OpCx<'_, '_>, qlinear: bool) -> Result<(), String> {
    let q8 = [Class::U8, Class::I8];
    let (xi, wi) = if qlinear { (0, 3) } else { (0, 1) };
    want(cx, xi, &q8, "x")?;
    want(cx, wi, &q8, "w")?;
    let (xs, ws, ys) = (cx.in_dims(xi), cx.in_static(wi), cx.out_dims(0));
    let r = xs.len().checked_sub(2).filter(|r| (1..=MAX_RANK).contains(r));
    if r.is_none_or(|r| ws.len() != r + 2 || ys.len() != r + 2) {
        return Err(format!("{}: x of rank {} with w {ws:?} is not supported", cx.op.opcode.name(), xs.len()));
    }
    if qlinear {
        for (i, w) in [(1, "x_scale"), (4, "w_scale"), (6, "y_scale")] {
            want(cx, i, &[Class::F32], w)?;
        }
        want(cx, 2, &cx.in_class(0).into_iter().collect::<Vec<_>>(), "x_zero_point")?;
        want(cx, 5, &cx.in_class(3).into_iter().collect::<Vec<_>>(), "w_zero_point")?;
        want(cx, 7, &q8, "y_zero_point")?;
        if cx.out_class(0) != cx.in_class(7).unwrap_or(Class::U8) {
            return Err("QLinearConv: the result must have y_zero_point's type".into());
        }
        if cx.op.operand(8).is_some() {
            want(cx, 8, &[Class::I32], "B")?;
        }
    } else if cx.out_class(0) != Class::I32 {
        return Err("ConvInteger: the result must be i32".into());
    }
    let group = cx.op.attrs.int("group").unwrap_or(1).max(1);
    let out = cx.begin(0);
    let win = window(cx, &xs, &ws[2..], &ys);
    cx.line(format!(
        "let p = k::conv::int::ConvInt {{ n: {}, c: {}, m: {}, group: {group}, win: {win} }};",
        xs[0], xs[1], ws[0]
    ));
    let (x, w) = (cx.input(xi)?, cx.input(wi)?);
    if qlinear {
        let v: Vec<String> = [1, 2, 4, 5, 6, 7].iter().map(|&i| cx.input(i)).collect::<Result<_, _>>()?;
        let b = match cx.op.operand(8) {
            Some(_) => format!("Some({})", cx.input(8)?),
            None => "None".into(),
        };
        cx.line(format!(
            "let q = k::conv::int::QParams {{ x_scale: {}[0], x_zero: {}[0], w_scale: {}, w_zero: {}, y_scale: {}[0], y_zero: {}[0] }};",
            v[0], v[1], v[2], v[3], v[4], v[5]
        ));
        cx.line(format!("k::conv::int::qlinear_conv(&p, &q, {x}, {w}, {b}, {out});"));
    } else {
        let zp = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
            Ok(match cx.op.operand(i) {
                Some(_) => cx.input(i)?,
                None => "&[]".into(),
            })
        };
        let (xz, wz) = (zp(cx, 2)?, zp(cx, 3)?);
        cx.line(format!("k::conv::int::conv_integer(&p, {x}, {xz}, {w}, {wz}, {out});"));
    }
    Ok(())
}

fn max_pool_int(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if cx.op.results.len() > 1 && cx.func().use_counts()[cx.op.results[1].as_u32() as usize] > 0 {
        return Err("MaxPool's Indices output on 8-bit integers is not supported".into());
    }
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    let r = xs.len().checked_sub(2).filter(|r| (1..=MAX_RANK).contains(r));
    if r.is_none_or(|r| ys.len() != r + 2) {
        return Err(format!("MaxPool over rank {} is not supported", xs.len()));
    }
    let kernel = ints(cx.op, "kernel_shape", xs.len() - 2, 1);
    let out = cx.begin(0);
    let win = window(cx, &xs, &kernel, &ys);
    let x = cx.input(0)?;
    cx.line(format!("k::pool::max_pool_ord({}, &{win}, {x}, {out});", &xs[0] * &xs[1]));
    Ok(())
}
