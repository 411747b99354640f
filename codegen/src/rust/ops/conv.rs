//! Convolutions: `core.conv` and `core.conv_transpose` (what `onnx.Conv` and
//! `onnx.ConvTranspose` become; constant weights packed once, at model
//! construction, bias and activation in the epilogue), DeformConv
//! (`k::conv::deform`) and Col2Im (`k::conv::col2im`). Padding (explicit or
//! `auto_pad`) and output sizes are resolved here from the op's types:
//! numbers for static dims, run-time expressions (`auto_pad` padding
//! computed from the input size) for symbolic ones. Col2Im's image and
//! block shapes may be inputs, read and checked against the declared result
//! when the model runs.

use super::{act, const_ints, dims, f32_only, index_operand, ints, lits_or, pads, try_line, want_class, window, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use edgec_kernels::conv::window::MAX_RANK;
use ir::{OpData, Opcode};

/// Lower a convolution or Col2Im; `Ok(false)` for other ops.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::CoreConv => {
            f32_only(cx)?;
            conv(cx)?
        }
        Opcode::CoreConvTranspose => {
            f32_only(cx)?;
            conv_transpose(cx)?
        }
        Opcode::DeformConv => deform_conv(cx)?,
        Opcode::Col2Im => col2im(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// `onnx.Conv` / `core.conv`.
pub fn conv(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let (xs, ws, ys) = (cx.in_dims(0), cx.in_static(1), cx.out_dims(0));
    let r = xs.len().checked_sub(2).ok_or("conv input must have rank >= 3")?;
    let kernel = ws[2..].to_vec();
    let (stride, dil) = (ints(op, "strides", r, 1), ints(op, "dilations", r, 1));
    let groups = op.attrs.int("group").unwrap_or(1).max(1) as usize;
    let act = if op.opcode == Opcode::CoreConv { act(op)? } else { "k::act::Act::None".into() };
    let out = cx.begin(0);
    let p = pads(cx, &xs[2..], &ys[2..], &kernel, &stride, &dil);
    let bias = match op.operand(2) {
        Some(_) => format!("Some({})", cx.input(2)?),
        None => "None".into(),
    };
    let x = cx.input(0)?;
    // A 16-bit convolution computed in f32 sums in the interpreter's order
    // (the direct kernel), so its rounded results are the interpreter's.
    let packed = cx.is_static(1) && !passes::widen::computes_half(cx.func(), op);
    // A 1-D convolution is the 2-D one over a height of 1 (same memory layout).
    let (r, xs, ws, kernel, stride, dil, p) = if r == 1 && packed {
        let xs = vec![xs[0].clone(), xs[1].clone(), Sz::Lit(1), xs[2].clone()];
        let ws = vec![ws[0], ws[1], 1, ws[2]];
        let p = vec![Sz::Lit(0), p[0].clone(), Sz::Lit(0), p[1].clone()];
        (2, xs, ws, vec![1, kernel[0]], vec![1, stride[0]], vec![1, dil[0]], p)
    } else {
        (r, xs, ws, kernel, stride, dil, p)
    };
    type D<'a> = &'a dyn std::fmt::Display;
    let conv2d = |n: D<'_>, c: D<'_>, h: D<'_>, w: D<'_>, p: &[String]| {
        format!(
            "k::conv::Conv2d {{ n: {n}, c_in: {c}, h: {h}, w: {w}, c_out: {}, kh: {}, kw: {}, stride_h: {}, stride_w: {}, pad_top: {}, pad_left: {}, pad_bottom: {}, pad_right: {}, dil_h: {}, dil_w: {}, groups: {groups} }}",
            ws[0], kernel[0], kernel[1], stride[0], stride[1], p[0], p[1], p[2], p[3], dil[0], dil[1]
        )
    };
    if r == 2 && packed {
        let ps: Vec<String> = p.iter().map(Sz::to_string).collect();
        let c = cx.item("k::conv::Conv2d", conv2d(&xs[0], &xs[1], &xs[2], &xs[3], &ps));
        let packing = if cx.is_dynamic() {
            // The weights fix channels, kernel and groups; sizes are the run's.
            let pl: Vec<String> = lits_or(&p, 1).iter().map(usize::to_string).collect();
            cx.item("k::conv::Conv2d", conv2d(&1, &(ws[1] * groups), &1, &1, &pl))
        } else {
            c.clone()
        };
        let geometry = (&ws[..], &kernel[..], &stride[..], &dil[..], groups);
        let init = match cx.prepacked(1, &format!("conv {geometry:?}"), |isa, w| packed_conv(geometry, isa, w))? {
            Some((part, isa)) => format!("k::conv::PackedConv::prepacked(&{packing}, {isa}, {part})?"),
            None => format!("k::conv::PackedConv::new(&{packing}, {})", cx.init_weights(1)?),
        };
        let pw = cx.field("k::conv::PackedConv", init);
        cx.scratch(format!("k::conv::conv2d_scratch_len(&{c})"));
        cx.line(format!("k::conv::conv2d(&{c}, {x}, &self.{pw}, {bias}, {act}, {out}, &mut self.scratch);"));
    } else if Sz::all_lit(&xs).is_some() && Sz::all_lit(&p).is_some() {
        let params = format!(
            "k::conv::ConvNd {{ n: {}, c_in: {}, c_out: {}, spatial: vec!{:?}, kernel: vec!{kernel:?}, stride: vec!{stride:?}, pads: vec!{:?}, dilation: vec!{dil:?}, groups: {groups} }}",
            cx.dims(op.operand(0).ok_or("conv without input")?)[0],
            xs[1],
            ws[0],
            &cx.in_static(0)[2..],
            lits_or(&p, 0)
        );
        let f = cx.field("k::conv::ConvNd", params);
        let w = cx.input(1)?;
        cx.line(format!("k::conv::conv_nd(&self.{f}, {x}, {w}, {bias}, {act}, {out});"));
    } else {
        // Run-time sizes and weights computed by the model: the direct kernel
        // over this run's geometry.
        cx.line(format!(
            "let p = k::conv::ConvNd {{ n: {}, c_in: {}, c_out: {}, spatial: vec!{}, kernel: vec!{kernel:?}, stride: vec!{stride:?}, pads: vec!{}, dilation: vec!{dil:?}, groups: {groups} }};",
            xs[0],
            xs[1],
            ws[0],
            Sz::array(&xs[2..]),
            Sz::array(&p)
        ));
        let w = cx.input(1)?;
        cx.line(format!("k::conv::conv_nd(&p, {x}, {w}, {bias}, {act}, {out});"));
    }
    Ok(())
}

/// Weights of a 2-D convolution of `geometry` (weight dims, kernel, strides,
/// dilations, groups) arranged for `isa` at compile time (the path depends
/// on the geometry alone, so sizes and pads are placeholders).
fn packed_conv(
    (ws, kernel, stride, dil, groups): (&[usize], &[usize], &[usize], &[usize], usize),
    isa: edgec_kernels::gemm::Isa,
    w: &[f32],
) -> Vec<f32> {
    let p = edgec_kernels::conv::Conv2d {
        n: 1,
        c_in: ws[1] * groups,
        h: 1,
        w: 1,
        c_out: ws[0],
        kh: kernel[0],
        kw: kernel[1],
        stride_h: stride[0],
        stride_w: stride[1],
        pad_top: 0,
        pad_left: 0,
        pad_bottom: 0,
        pad_right: 0,
        dil_h: dil[0],
        dil_w: dil[1],
        groups,
    };
    edgec_kernels::conv::PackedConv::new_for(isa, &p, w).blob()
}

/// Begin pads of a transposed conv (explicit, or from `auto_pad` and the output size).
fn transpose_pads(
    op: &OpData,
    xs: &[Sz],
    ys: &[Sz],
    kernel: &[usize],
    stride: &[usize],
    dil: &[usize],
) -> Result<Vec<usize>, String> {
    let r = kernel.len();
    if let Some(p) = op.attrs.ints("pads").filter(|_| op.attrs.str("auto_pad").is_none_or(|a| a == "NOTSET")) {
        return Ok(p[..r].iter().map(|&x| x.max(0) as usize).collect());
    }
    let (Some(xs), Some(ys)) = (Sz::all_lit(xs), Sz::all_lit(ys)) else {
        return Err("ConvTranspose with auto_pad or output_shape on symbolic dims is not supported".into());
    };
    let opad = ints(op, "output_padding", r, 0);
    Ok((0..r)
        .map(|i| {
            let full = stride[i] * (xs[i] - 1) + opad[i] + (kernel[i] - 1) * dil[i] + 1;
            let total = full.saturating_sub(ys[i]);
            if op.attrs.str("auto_pad") == Some("SAME_UPPER") {
                total / 2
            } else {
                total - total / 2
            }
        })
        .collect())
}

/// `onnx.ConvTranspose` / `core.conv_transpose`.
pub fn conv_transpose(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let (xs, ws, ys) = (cx.in_dims(0), cx.in_static(1), cx.out_dims(0));
    let r = xs.len().checked_sub(2).ok_or("conv_transpose input must have rank >= 3")?;
    let kernel = ws[2..].to_vec();
    let (stride, dil) = (ints(op, "strides", r, 1), ints(op, "dilations", r, 1));
    let groups = op.attrs.int("group").unwrap_or(1).max(1) as usize;
    let pb = transpose_pads(op, &xs[2..], &ys[2..], &kernel, &stride, &dil)?;
    let c_out = ys[1].clone();
    let act = if op.opcode == Opcode::CoreConvTranspose { act(op)? } else { "k::act::Act::None".into() };
    let out = cx.begin(0);
    let bias = match op.operand(2) {
        Some(_) => format!("Some({})", cx.input(2)?),
        None => "None".into(),
    };
    let (x, w) = (cx.input(0)?, cx.input(1)?);
    if r == 2 {
        let params = format!(
            "k::conv::ConvTranspose2d {{ n: {}, c_in: {}, h: {}, w: {}, c_out: {c_out}, kh: {}, kw: {}, stride_h: {}, stride_w: {}, pad_top: {}, pad_left: {}, dil_h: {}, dil_w: {}, groups: {groups}, out_h: {}, out_w: {} }}",
            xs[0], xs[1], xs[2], xs[3], kernel[0], kernel[1], stride[0], stride[1], pb[0], pb[1], dil[0], dil[1], ys[2], ys[3]
        );
        let c = cx.item("k::conv::ConvTranspose2d", params);
        cx.scratch(format!("k::conv::conv_transpose2d_scratch_len(&{c})"));
        cx.line(format!("k::conv::conv_transpose2d(&{c}, {x}, {w}, {bias}, {act}, {out}, &mut self.scratch);"));
    } else {
        let params = format!(
            "k::conv::ConvTransposeNd {{ n: {}, c_in: {}, c_out: {c_out}, spatial: vec!{:?}, kernel: vec!{kernel:?}, stride: vec!{stride:?}, pads_begin: vec!{pb:?}, dilation: vec!{dil:?}, groups: {groups}, out: vec!{:?} }}",
            xs[0], xs[1], &cx.in_static(0)[2..], &cx.out_static(0)[2..]
        );
        let f = cx.field("k::conv::ConvTransposeNd", params);
        cx.line(format!("k::conv::conv_transpose_nd(&self.{f}, {x}, {w}, {bias}, {act}, {out});"));
    }
    Ok(())
}

fn deform_conv(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    for (i, w) in [(1, "W"), (2, "offset"), (3, "B"), (4, "mask")] {
        if cx.op.operand(i).is_some() {
            want_class(cx, i, &[Class::F32], w)?;
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

fn col2im(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    let known = Sz::all_lit(&cx.in_dims(0)).is_some() && Sz::all_lit(&cx.out_dims(0)).is_some();
    if cx.in_const(1).is_none() || cx.in_const(2).is_none() || !known {
        return col2im_runtime(cx);
    }
    let (xs, ys) = (cx.in_static(0), cx.out_static(0));
    let image: Vec<usize> = const_ints(cx, 1)?.iter().map(|&d| d.max(0) as usize).collect();
    let block: Vec<usize> = const_ints(cx, 2)?.iter().map(|&d| d.max(0) as usize).collect();
    let n = image.len();
    if block.len() != n || n > edgec_kernels::conv::col2im::COL2IM_MAX_RANK || xs.len() != 3 || ys.len() != n + 2 {
        return Err(format!("Col2Im: input {xs:?} with image {image:?} and block {block:?} is not supported"));
    }
    let list = |k: &str, len: usize, d: i64| -> Vec<usize> {
        cx.op.attrs.ints(k).map_or(vec![d; len], <[i64]>::to_vec).iter().map(|&v| v.max(0) as usize).collect()
    };
    let (strides, dilations, pads) = (list("strides", n, 1), list("dilations", n, 1), list("pads", 2 * n, 0));
    let mut blocks = Vec::with_capacity(n);
    for a in 0..n {
        let extent = dilations[a] * (block[a].max(1) - 1) + 1;
        let padded = image[a] + pads[a] + pads[a + n];
        if padded < extent || strides[a] == 0 {
            return Err(format!("Col2Im: axis {a}: block extent {extent} exceeds the padded image {padded}"));
        }
        blocks.push((padded - extent) / strides[a] + 1);
    }
    let g = format!(
        "k::conv::col2im::Col2Im {{ batch: {}, channels: {}, image: &{image:?}, block: &{block:?}, blocks: &{blocks:?}, strides: &{strides:?}, dilations: &{dilations:?}, pads: &{:?} }}",
        ys[0],
        ys[1],
        &pads[..n]
    );
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::conv::col2im::col2im(&{g}, {x}, {out});"));
    Ok(())
}

/// Col2Im with `image_shape` or `block_shape` an input, or sizes known
/// when the model runs: read then (`k::conv::col2im::col2im_checked` checks
/// them against the result's shape).
fn col2im_runtime(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    index_operand(cx, 1, "image_shape")?;
    index_operand(cx, 2, "block_shape")?;
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    let n = ys.len().saturating_sub(2);
    if xs.len() != 3 || n == 0 || n > edgec_kernels::conv::col2im::COL2IM_MAX_RANK {
        return Err(format!("Col2Im: input {} with output {} is not supported", Sz::array(&xs), Sz::array(&ys)));
    }
    let list = |k: &str, len: usize, d: i64| -> Vec<usize> {
        cx.op.attrs.ints(k).map_or(vec![d; len], <[i64]>::to_vec).iter().map(|&v| v.max(0) as usize).collect()
    };
    let (strides, dilations, pads) = (list("strides", n, 1), list("dilations", n, 1), list("pads", 2 * n, 0));
    if strides.len() != n || dilations.len() != n || pads.len() != 2 * n {
        return Err("Col2Im: strides, dilations and pads do not match the image rank".into());
    }
    let out = cx.begin(0);
    let (x, im, bl) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    // A list of another length becomes all -1 (rejected by the kernel).
    for (name, v) in [("im", &im), ("bl", &bl)] {
        cx.line(format!(
            "let {name}: [i64; {n}] = core::array::from_fn(|a| if {v}.len() == {n} {{ {v}[a] as i64 }} else {{ -1 }});"
        ));
    }
    try_line(
        cx,
        format!(
            "k::conv::col2im::col2im_checked({}, &im, &bl, &{strides:?}, &{dilations:?}, &{pads:?}, {}, {x}, {out})",
            Sz::array(&xs),
            dims(&ys[2..])
        ),
    );
    Ok(())
}
