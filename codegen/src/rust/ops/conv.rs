//! Convolutions, pooling and attention. Padding (explicit or `auto_pad`)
//! and output sizes are resolved here from the op's types: numbers for
//! static dims, run-time expressions (`auto_pad` padding computed from the
//! input size) for symbolic ones.

use super::linalg::act;
use super::{dims, Sz};
use crate::rust::emit::OpCx;
use ir::{OpData, Opcode};

/// Lower `core.conv` / `core.conv_transpose`; `Ok(false)` for other ops.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::CoreConv => {
            super::f32_only(cx)?;
            conv(cx)?
        }
        Opcode::CoreConvTranspose => {
            super::f32_only(cx)?;
            conv_transpose(cx)?
        }
        _ => return Ok(false),
    }
    Ok(true)
}

pub(super) fn ints(op: &OpData, k: &str, n: usize, d: usize) -> Vec<usize> {
    op.attrs.ints(k).map_or(vec![d; n], |v| v.iter().map(|&x| x.max(0) as usize).collect())
}

/// Begin and end pads of a conv/pool over `spatial` with output `out`
/// (SAME padding of a symbolic input size is computed when the model runs,
/// by statements added to `cx`'s current block).
pub(super) fn pads(
    cx: &mut OpCx<'_, '_>,
    spatial: &[Sz],
    out: &[Sz],
    kernel: &[usize],
    stride: &[usize],
    dil: &[usize],
) -> Vec<Sz> {
    let op = cx.op;
    let r = spatial.len();
    match op.attrs.str("auto_pad").unwrap_or("NOTSET") {
        "SAME_UPPER" | "SAME_LOWER" => {
            let lower = op.attrs.str("auto_pad") == Some("SAME_LOWER");
            let mut p = vec![Sz::Lit(0); 2 * r];
            for i in 0..r {
                if let (Some(x), Some(o)) = (spatial[i].lit(), out[i].lit()) {
                    let need = (o.saturating_sub(1)) * stride[i] + (kernel[i] - 1) * dil[i] + 1;
                    let total = need.saturating_sub(x);
                    let small = total / 2;
                    let (b, e) = if lower { (total - small, small) } else { (small, total - small) };
                    (p[i], p[i + r]) = (Sz::Lit(b), Sz::Lit(e));
                    continue;
                }
                let name = format!("pad{i}");
                cx.line(format!(
                    "let {name} = k::shape::same_pads({}, {}, {}, {}, {lower});",
                    spatial[i], kernel[i], stride[i], dil[i]
                ));
                (p[i], p[i + r]) = (Sz::expr(format!("{name}.0")), Sz::expr(format!("{name}.1")));
            }
            p
        }
        "VALID" => vec![Sz::Lit(0); 2 * r],
        _ => ints(op, "pads", 2 * r, 0).into_iter().map(Sz::Lit).collect(),
    }
}

/// `p` with symbolic entries replaced by `fill` (a construction-time copy
/// of run-time geometry, for packing weights).
fn lits_or(p: &[Sz], fill: usize) -> Vec<usize> {
    p.iter().map(|x| x.lit().unwrap_or(fill)).collect()
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
        let w = cx.init_weights(1)?;
        let packing = if cx.is_dynamic() {
            // The weights fix channels, kernel and groups; sizes are the run's.
            let pl: Vec<String> = lits_or(&p, 1).iter().map(usize::to_string).collect();
            cx.item("k::conv::Conv2d", conv2d(&1, &(ws[1] * groups), &1, &1, &pl))
        } else {
            c.clone()
        };
        let pw = cx.field("k::conv::PackedConv", format!("k::conv::PackedConv::new(&{packing}, {w})"));
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

/// Max/average pooling (local and global).
pub fn pool(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    let op = cx.op;
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    if matches!(op.opcode, Opcode::GlobalAveragePool | Opcode::GlobalMaxPool | Opcode::MaxPool | Opcode::AveragePool) {
        super::f32_only(cx)?;
    }
    match op.opcode {
        Opcode::GlobalAveragePool | Opcode::GlobalMaxPool => {
            let k = if op.opcode == Opcode::GlobalMaxPool { "global_max_pool" } else { "global_avg_pool" };
            let out = cx.begin(0);
            let x = cx.input(0)?;
            cx.line(format!("k::pool::{k}({}, {x}, {out});", dims(&xs)));
            return Ok(true);
        }
        Opcode::MaxPool | Opcode::AveragePool => {}
        _ => return Ok(false),
    }
    let r = xs.len().checked_sub(2).ok_or("pool input must have rank >= 3")?;
    let kernel = ints(op, "kernel_shape", r, 1);
    let (stride, dil) = (ints(op, "strides", r, 1), ints(op, "dilations", r, 1));
    let max = op.opcode == Opcode::MaxPool;
    if max && op.results.len() > 1 {
        let (xu, yu) = (cx.in_static(0), cx.out_static(0));
        let p = pads(cx, &Sz::lits(&xu[2..]), &Sz::lits(&yu[2..]), &kernel, &stride, &dil);
        max_pool_indices(cx, &xu, &yu, [&kernel, &stride, &dil, &lits_or(&p[..r], 0)])?;
    }
    let cip = op.attrs.int("count_include_pad").unwrap_or(0) != 0;
    let out = cx.begin(0);
    let p = pads(cx, &xs[2..], &ys[2..], &kernel, &stride, &dil);
    let x = cx.input(0)?;
    let extra = if max { String::new() } else { format!("{cip}, ") };
    if r == 2 {
        let params = format!(
            "k::pool::Pool2d {{ n: {}, c: {}, h: {}, w: {}, kh: {}, kw: {}, stride_h: {}, stride_w: {}, pad_top: {}, pad_left: {}, pad_bottom: {}, pad_right: {}, dil_h: {}, dil_w: {}, out_h: {}, out_w: {} }}",
            xs[0], xs[1], xs[2], xs[3], kernel[0], kernel[1], stride[0], stride[1], p[0], p[1], p[2], p[3], dil[0], dil[1], ys[2], ys[3]
        );
        let c = cx.item("k::pool::Pool2d", params);
        let k = if max { "max_pool2d" } else { "avg_pool2d" };
        cx.line(format!("k::pool::{k}(&{c}, {extra}{x}, {out});"));
    } else {
        let params = format!(
            "k::pool::PoolNd {{ n: {}, c: {}, spatial: vec!{:?}, kernel: vec!{kernel:?}, stride: vec!{stride:?}, pads: vec!{:?}, dilation: vec!{dil:?}, out: vec!{:?} }}",
            xs[0], xs[1], &cx.in_static(0)[2..], lits_or(&p, 0), &cx.out_static(0)[2..]
        );
        let f = cx.field("k::pool::PoolNd", params);
        let k = if max { "max_pool_nd" } else { "avg_pool_nd" };
        cx.line(format!("k::pool::{k}(&self.{f}, {extra}{x}, {out});"));
    }
    Ok(true)
}

/// MaxPool's `Indices` result (result 1), if it is used.
fn max_pool_indices(cx: &mut OpCx<'_, '_>, xs: &[usize], ys: &[usize], geo: [&[usize]; 4]) -> Result<(), String> {
    let [kernel, stride, dil, begin] = geo;
    if xs.len() - 2 > edgec_kernels::misc::argmax::MAX_RANK {
        return Err("MaxPool's Indices output over more than 6 spatial axes is not supported".into());
    }
    let r = cx.op.results[1];
    if cx.func().use_counts()[r.as_u32() as usize] == 0 {
        return Ok(());
    }
    let col_major = cx.op.attrs.int("storage_order").unwrap_or(0) != 0;
    let g = format!(
        "k::misc::argmax::PoolIndices {{ planes: {}, input: &{:?}, out: &{:?}, kernel: &{kernel:?}, stride: &{stride:?}, dilation: &{dil:?}, pads: &{begin:?}, col_major: {col_major} }}",
        xs[0] * xs[1],
        &xs[2..],
        &ys[2..]
    );
    let out = cx.begin(1);
    let x = cx.input(0)?;
    cx.line(format!("k::misc::argmax::max_pool_indices(&{g}, {x}, {out});"));
    Ok(())
}

/// `core.attention` / `core.attention_blocked`.
pub fn attention(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    let op = cx.op;
    if matches!(op.opcode, Opcode::CoreAttention | Opcode::CoreAttentionBlocked | Opcode::CoreWindowAttention) {
        super::f32_only(cx)?;
    }
    let blocked = match op.opcode {
        Opcode::CoreAttention => false,
        Opcode::CoreAttentionBlocked => true,
        Opcode::CoreWindowAttention => return window_attention(cx).map(|()| true),
        _ => return Ok(false),
    };
    let (qs, ks, vs) = (cx.in_dims(0), cx.in_dims(1), cx.in_dims(2));
    let scale = super::f32_lit(op.attrs.float("scale").unwrap_or(1.0));
    let causal = op.attrs.int("causal").unwrap_or(0) != 0;
    let window = op.attrs.int("window").map_or("None".to_string(), |w| format!("Some({w})"));
    let out = cx.begin(0);
    let mask = match op.operand(3) {
        None => "k::attention::Mask::None".to_string(),
        Some(_) => {
            let ms = dims(&cx.in_dims(3));
            let m = cx.input(3)?;
            match cx.in_class(3) {
                Some(crate::plan::Class::Bool) => format!("k::attention::Mask::Bool({m}, {ms})"),
                _ => format!("k::attention::Mask::Float({m}, {ms})"),
            }
        }
    };
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let (sq, sk, sv) = (dims(&qs), dims(&ks), dims(&vs));
    if blocked {
        let (bq, bk) = (op.attrs.int("block_q").unwrap_or(1), op.attrs.int("block_k").unwrap_or(1));
        cx.scratch(format!("k::attention::attention_blocked_scratch_len({sq}, {sk}, {sv}, {bq}, {bk})"));
        cx.line(format!(
            "k::attention::attention_blocked({sq}, {q}, {sk}, {k}, {sv}, {v}, {mask}, {scale}, {causal}, {window}, {bq}, {bk}, {out}, &mut self.scratch);"
        ));
    } else {
        cx.scratch(format!("k::attention::attention_scratch_len({sq}, {sk}, {sv})"));
        cx.line(format!(
            "k::attention::attention({sq}, {q}, {sk}, {k}, {sv}, {v}, {mask}, {scale}, {causal}, {window}, {out}, &mut self.scratch);"
        ));
    }
    Ok(true)
}

/// `core.window_attention`: attention over `[B, nW, heads, N, D]` (the same
/// memory as `[B·nW, heads, N, D]`) with the relative position bias and the
/// window mask folded into one `[nW, heads, N, N]` additive mask at construction.
fn window_attention(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let qs = cx.in_static(0);
    let [bw, heads, n, _] = qs[..] else { return Err("window attention takes [B*nW, heads, N, D]".into()) };
    let nw = op.attrs.int("num_windows").unwrap_or(1).max(1) as usize;
    let scale = super::f32_lit(op.attrs.float("scale").unwrap_or(1.0));
    let weights = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
        if op.operand(i).is_none() {
            return Ok("None".into());
        }
        if !cx.is_static(i) {
            return Err(format!("window attention with a non-constant operand #{i} is not supported"));
        }
        Ok(format!("Some({})", cx.init_weights(i)?))
    };
    let (bias, mask) = (weights(cx, 3)?, weights(cx, 4)?);
    let wm = cx.field("Vec<f32>", format!("k::attention::window_mask({bias}, {mask}, {nw}, {heads}, {n})"));
    let grouped = |d: &[usize]| {
        let mut g = vec![bw / nw, nw];
        g.extend_from_slice(&d[1..]);
        super::udims(&g)
    };
    let (sq, sk, sv) = (grouped(&qs), grouped(&cx.in_static(1)), grouped(&cx.in_static(2)));
    let out = cx.begin(0);
    let (q, k, v) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    let ms = super::udims(&[nw, heads, n, n]);
    cx.scratch(format!("k::attention::attention_scratch_len({sq}, {sk}, {sv})"));
    cx.line(format!(
        "k::attention::attention({sq}, {q}, {sk}, {k}, {sv}, {v}, k::attention::Mask::Float(&self.{wm}, {ms}), {scale}, false, None, {out}, &mut self.scratch);"
    ));
    Ok(())
}
