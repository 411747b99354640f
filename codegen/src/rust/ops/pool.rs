//! Pooling: MaxPool (with its `Indices` result, `k::pool::indices`; on 8-bit
//! integers `k::pool::max_pool_int`), AveragePool, GlobalAveragePool,
//! GlobalMaxPool, LpPool (through the N-D pooling kernel) and MaxUnpool
//! (`k::pool::unpool`). The window geometry (explicit pads or `auto_pad`)
//! is resolved here: numbers for static dims, run-time expressions for
//! symbolic ones; MaxUnpool over run-time sizes checks the unpooled shape
//! and the indices when the model runs.

use super::{all_f32, call_x_out, dims, ints, lits_or, pads, window, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use edgec_kernels::conv::window::MAX_RANK;
use ir::Opcode;

/// Lower a pooling op or MaxUnpool; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::MaxPool if matches!(cx.in_class(0), Some(Class::U8 | Class::I8)) => max_pool_int(cx)?,
        Opcode::LpPool => lp_pool(cx)?,
        Opcode::MaxUnpool => max_unpool(cx)?,
        _ => return pool(cx),
    }
    Ok(true)
}

/// Max/average pooling (local and global); `Ok(false)` for other ops.
fn pool(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
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
    if xs.len() - 2 > edgec_kernels::pool::indices::MAX_RANK {
        return Err("MaxPool's Indices output over more than 6 spatial axes is not supported".into());
    }
    let r = cx.op.results[1];
    if cx.func().use_counts()[r.as_u32() as usize] == 0 {
        return Ok(());
    }
    let col_major = cx.op.attrs.int("storage_order").unwrap_or(0) != 0;
    let g = format!(
        "k::pool::indices::PoolIndices {{ planes: {}, input: &{:?}, out: &{:?}, kernel: &{kernel:?}, stride: &{stride:?}, dilation: &{dil:?}, pads: &{begin:?}, col_major: {col_major} }}",
        xs[0] * xs[1],
        &xs[2..],
        &ys[2..]
    );
    let out = cx.begin(1);
    let x = cx.input(0)?;
    cx.line(format!("k::pool::indices::max_pool_indices(&{g}, {x}, {out});"));
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
    cx.line(format!("k::pool::max_pool_int({}, &{win}, {x}, {out});", &xs[0] * &xs[1]));
    Ok(())
}

/// LpPool (`p ≥ 1`, default 2), through the N-D pooling kernel.
fn lp_pool(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    all_f32(cx, &[0])?;
    let op = cx.op;
    let (xs, ys) = (cx.in_static(0), cx.out_static(0));
    let r = xs.len().checked_sub(2).filter(|&r| r >= 1).ok_or("LpPool input must have rank >= 3")?;
    let kernel = ints(op, "kernel_shape", r, 1);
    let (stride, dil) = (ints(op, "strides", r, 1), ints(op, "dilations", r, 1));
    let lens = [kernel.len(), stride.len(), dil.len()];
    if lens.iter().any(|&l| l != r) || [&kernel, &stride, &dil].iter().any(|v| v.contains(&0)) {
        return Err(format!("LpPool kernel_shape/strides/dilations {kernel:?}/{stride:?}/{dil:?} do not fit {r} axes"));
    }
    let (sx, sy) = (Sz::lits(&xs[2..]), Sz::lits(&ys[2..]));
    let pads: Vec<usize> = pads(cx, &sx, &sy, &kernel, &stride, &dil).iter().map(|p| p.lit().unwrap_or(0)).collect();
    let p = op.attrs.int("p").unwrap_or(2);
    if p < 1 {
        return Err(format!("LpPool with p = {p} is not supported (p must be at least 1)"));
    }
    let params = format!(
        "k::pool::PoolNd {{ n: {}, c: {}, spatial: vec!{:?}, kernel: vec!{kernel:?}, stride: vec!{stride:?}, pads: vec!{pads:?}, dilation: vec!{dil:?}, out: vec!{:?} }}",
        xs[0], xs[1], &xs[2..], &ys[2..]
    );
    let f = cx.field("k::pool::PoolNd", params);
    call_x_out(cx, &format!("k::pool::lp_pool_nd(&self.{f}, {p}, "))
}

fn max_unpool(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if !matches!(cx.in_class(1), Some(Class::I64 | Class::I32)) {
        return Err("MaxUnpool: the indices must be i64 or i32".into());
    }
    let ks = cx.op.attrs.ints("kernel_shape").ok_or("MaxUnpool: missing `kernel_shape`")?.to_vec();
    let n = ks.len();
    let strides = cx.op.attrs.ints("strides").map_or_else(|| vec![1; n], <[i64]>::to_vec);
    let pads = cx.op.attrs.ints("pads").map_or_else(|| vec![0; 2 * n], <[i64]>::to_vec);
    let (xd, yd) = (cx.in_dims(0), cx.out_dims(0));
    if xd.len() != n + 2 || strides.len() != n || pads.len() != 2 * n || yd.len() != n + 2 {
        return Err(format!("MaxUnpool: input of rank {} does not match kernel_shape {ks:?}", xd.len()));
    }
    let (Some(xs), Some(ys)) = (Sz::all_lit(&xd), Sz::all_lit(&yd)) else {
        // Sizes known when the model runs: the unpooled shape and the
        // indices are checked then.
        let out = cx.begin(0);
        let (x, i) = (cx.input(0)?, cx.input(1)?);
        super::try_line(
            cx,
            format!(
                "k::pool::unpool::max_unpool_checked({}, &{ks:?}, &{strides:?}, &{pads:?}, {}, {x}, {i}, {out})",
                dims(&xd),
                dims(&yd)
            ),
        );
        return Ok(());
    };
    let inferred = ir::interp::pool::unpool_dims(&xs, &ks, &strides, &pads).map_err(|e| format!("MaxUnpool: {e}"))?;
    let out = cx.begin(0);
    let (x, i) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::pool::unpool::max_unpool(&{inferred:?}, &{ys:?}, {x}, {i}, {out});"));
    Ok(())
}
