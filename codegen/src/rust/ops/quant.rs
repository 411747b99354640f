//! Linear quantization: QuantizeLinear / DequantizeLinear (per tensor, per
//! axis, blocked; u8/i8 with f32 scales, i32 too for dequantization),
//! DynamicQuantizeLinear, MatMulInteger and QLinearMatMul (scalar or
//! per-row/per-column parameters), ConvInteger and QLinearConv
//! (`k::quant::conv`: a direct N-D kernel over the window geometry resolved
//! here, zero points and scales read from their operands when the model
//! runs).

use super::{act, axis, dims, f32_lit, ints, pads, try_expr, try_line, udims, want_class, window, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use edgec_kernels::conv::window::MAX_RANK;
use ir::Opcode;

/// Lower a quantization op; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::QuantizeLinear => quantize(cx)?,
        Opcode::DequantizeLinear => dequantize(cx)?,
        Opcode::DynamicQuantizeLinear => dynamic(cx)?,
        Opcode::MatMulInteger | Opcode::QLinearMatMul => matmul(cx)?,
        Opcode::ConvInteger => conv_int(cx, false)?,
        Opcode::QLinearConv => conv_int(cx, true)?,
        Opcode::QuantConv => quant_conv(cx)?,
        Opcode::QuantAdd => quant_binary(cx, "Add")?,
        Opcode::QuantMul => quant_binary(cx, "Mul")?,
        Opcode::QuantSub => quant_binary(cx, "Sub")?,
        Opcode::QuantGlobalAvgPool => quant_global_avg_pool(cx)?,
        Opcode::QuantLut => quant_lut(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn q8(c: Option<Class>) -> bool {
    matches!(c, Some(Class::U8 | Class::I8))
}

/// The kernel's `QLayout` for operand 0 and its scale (operand 1): a
/// literal when the scale has one element or both shapes are literal,
/// `None` when only the run can tell (see [`runtime_layout`]).
fn layout(cx: &OpCx<'_, '_>) -> Result<Option<String>, String> {
    let (x, s) = (cx.in_dims(0), cx.in_dims(1));
    if Sz::product(&s).is(1) {
        return Ok(Some("k::quant::QLayout::Tensor".into()));
    }
    match (Sz::all_lit(&x), Sz::all_lit(&s)) {
        (Some(x), Some(s)) => static_layout(cx, &x, &s).map(Some),
        _ => Ok(None),
    }
}

/// The layout for literal shapes `x` and `s` (the interpreter's
/// `param_index` rules).
fn static_layout(cx: &OpCx<'_, '_>, x: &[usize], s: &[usize]) -> Result<String, String> {
    let ax = axis(cx.op.attrs.int("axis").unwrap_or(1), x.len())?;
    let inner: usize = x[ax + 1..].iter().product();
    let block = cx.op.attrs.int("block_size").unwrap_or(0);
    if block < 0 {
        return Err(format!("block_size must be positive, got {block}"));
    }
    if block == 0 {
        if s != [x[ax]] {
            return Err(format!("per-axis scale of shape {s:?} must be [{}] (axis {ax} of {x:?})", x[ax]));
        }
        return Ok(format!("k::quant::QLayout::Axis {{ dim: {}, inner: {inner} }}", x[ax]));
    }
    let b = block as usize;
    let fits =
        s.len() == x.len() && (0..x.len()).all(|d| if d == ax { x[d].div_ceil(b) == s[d] } else { x[d] == s[d] });
    if !fits {
        return Err(format!("blocked scale {s:?} does not match input {x:?} (axis {ax}, block_size {b})"));
    }
    Ok(format!("k::quant::QLayout::Block {{ dim: {}, inner: {inner}, block: {b} }}", x[ax]))
}

/// The layout `layout` gave, or a statement of the current block that
/// computes it when the model runs (checking the scale and zero point
/// against the input's shape).
fn runtime_layout(cx: &mut OpCx<'_, '_>, lit: Option<String>) -> String {
    if let Some(l) = lit {
        return l;
    }
    let (x, s) = (cx.in_dims(0), cx.in_dims(1));
    let z = cx.op.operand(2).map_or("None".into(), |_| format!("Some({})", dims(&cx.in_dims(2))));
    let (ax, block) = (cx.op.attrs.int("axis").unwrap_or(1), cx.op.attrs.int("block_size").unwrap_or(0));
    let call = format!("k::quant::shaped::layout({:?}, {}, {}, {z}, {ax}, {block})", what(cx), dims(&x), dims(&s));
    let l = try_expr(cx, call);
    cx.line(format!("let l = {l};"));
    "l".into()
}

/// The op's name in run-time errors (its ONNX node when known).
fn what(cx: &OpCx<'_, '_>) -> String {
    match &cx.op.loc {
        ir::Loc::Unknown => cx.op.opcode.name().to_string(),
        l => format!("{} [{l}]", cx.op.opcode.name()),
    }
}

/// `Some(slice)` of optional operand `i`, or `None`.
fn opt_input(cx: &mut OpCx<'_, '_>, i: usize) -> Result<String, String> {
    match cx.op.operand(i) {
        Some(_) => Ok(format!("Some({})", cx.input(i)?)),
        None => Ok("None".into()),
    }
}

fn f32_scale(cx: &OpCx<'_, '_>, i: usize) -> Result<(), String> {
    if cx.in_class(i) != Some(Class::F32) {
        let t = cx.op.operand(i).map(|v| cx.func().ty(v).dtype.to_string()).unwrap_or_default();
        return Err(format!("{} with a {t} scale is not supported (f32 scales only)", cx.op.opcode.name()));
    }
    Ok(())
}

/// Integer types QuantizeLinear produces and DequantizeLinear reads.
fn qint(c: Option<Class>) -> bool {
    use Class::*;
    matches!(c, Some(U8 | I8 | I16 | U16 | I4 | U4 | I2 | U2))
}

fn quantize(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_scale(cx, 1)?;
    let to = cx.out_class(0);
    let float8 = to.is_low() && !qint(Some(to)) && to != Class::F8E8M0;
    if cx.in_class(0) != Some(Class::F32) || !(qint(Some(to)) || float8) {
        return Err(format!(
            "QuantizeLinear is supported from f32 to 16-, 8-, 4- and 2-bit integers and float8/float4, not to {}",
            to.name()
        ));
    }
    let l = layout(cx)?;
    let out = cx.begin(0);
    let l = runtime_layout(cx, l);
    let (x, s) = (cx.input(0)?, cx.input(1)?);
    let z = opt_input(cx, 2)?;
    if float8 {
        let sat = cx.op.attrs.int("saturate").unwrap_or(1) != 0;
        cx.line(format!("k::quant::lowp8::quantize_float({l}, {x}, {s}, {z}, {out}, {sat});"));
    } else {
        cx.line(format!("k::quant::quantize({l}, {x}, {s}, {z}, {out});"));
    }
    Ok(())
}

fn dequantize(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let from = cx.in_class(0);
    let float8 = from.is_some_and(|c| c.is_low() && !qint(Some(c)) && c != Class::F8E8M0);
    let real = |c: Option<Class>| matches!(c, Some(Class::F32 | Class::F16 | Class::BF16 | Class::F64));
    let ok_in = qint(from) || from == Some(Class::I32) || float8;
    if !ok_in || !real(cx.in_class(1)) || !real(Some(cx.out_class(0))) {
        return Err(
            "DequantizeLinear is supported from 32-, 16-, 8-, 4- and 2-bit integers and float8/float4 with float scales only".into(),
        );
    }
    let fast = !float8 && cx.in_class(1) == Some(Class::F32) && cx.out_class(0) == Class::F32;
    let l = layout(cx)?;
    let out = cx.begin(0);
    let l = runtime_layout(cx, l);
    let (x, s) = (cx.input(0)?, cx.input(1)?);
    let z = opt_input(cx, 2)?;
    let kernel = if fast { "k::quant::dequantize" } else { "k::quant::lowp8::dequantize_real" };
    cx.line(format!("{kernel}({l}, {x}, {s}, {z}, {out});"));
    Ok(())
}

/// Three blocks (y, scale, zero point), each recomputing the range of `x`
/// (one pass over it), so no block needs another's output.
fn dynamic(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if cx.in_class(0) != Some(Class::F32) {
        return Err("DynamicQuantizeLinear takes f32 only".into());
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("let (s, z) = k::quant::dynamic_params({x});"));
    cx.line(format!("k::quant::quantize(k::quant::QLayout::Tensor, {x}, &[s], Some(&[z]), {out});"));
    for j in 1..cx.op.results.len() {
        let out = cx.begin(j);
        let x = cx.input(0)?;
        cx.line(format!("{out}[0] = k::quant::dynamic_params({x}).{};", j - 1));
    }
    Ok(())
}

type MatPlan = ((usize, usize, usize), Vec<usize>, Vec<usize>);

/// `(m, k, n)` and the per-batch offsets of A and B (numpy batching; 1-D
/// operands are promoted as in MatMul).
fn matmul_plan(a: &[usize], b: &[usize]) -> Result<MatPlan, String> {
    if a.len() < 2 || b.len() < 2 {
        return Err(format!("integer matmul of 1-D operands ({a:?}, {b:?}) is not supported"));
    }
    let (m, k, n) = (a[a.len() - 2], a[a.len() - 1], b[b.len() - 1]);
    let (ab, bb) = (&a[..a.len() - 2], &b[..b.len() - 2]);
    let rank = ab.len().max(bb.len());
    let pad = |s: &[usize]| -> Vec<usize> { std::iter::repeat_n(1, rank - s.len()).chain(s.iter().copied()).collect() };
    let (pa, pb) = (pad(ab), pad(bb));
    let batch: Vec<usize> = pa.iter().zip(&pb).map(|(&x, &y)| x.max(y)).collect();
    let total: usize = batch.iter().product();
    let offset = |p: &[usize], mat: usize| -> Vec<usize> {
        (0..total)
            .map(|t| {
                let (mut rem, mut off, mut stride) = (t, 0, 1);
                for d in (0..rank).rev() {
                    let c = rem % batch[d];
                    rem /= batch[d];
                    off += if p[d] == 1 { 0 } else { c * stride };
                    stride *= p[d];
                }
                off * mat
            })
            .collect()
    };
    Ok(((m, k, n), offset(&pa, m * k), offset(&pb, k * n)))
}

/// A parameter of one value or a 1-D one of `want` values (per row/column).
fn param(cx: &OpCx<'_, '_>, i: usize, want: usize, what: &str) -> Result<(), String> {
    let d = cx.in_static(i);
    let n: usize = d.iter().product();
    if n == 1 || (d.len() == 1 && n == want) {
        Ok(())
    } else {
        Err(format!("{what} of shape {d:?} is not supported (one value, or [{want}])"))
    }
}

fn matmul(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let q = cx.op.opcode == Opcode::QLinearMatMul;
    let (ia, ib) = if q { (0, 3) } else { (0, 1) };
    if !q8(cx.in_class(ia)) || !q8(cx.in_class(ib)) {
        return Err(format!("{} takes u8/i8 operands only", cx.op.opcode.name()));
    }
    if q && (cx.in_class(0) != cx.in_class(3) || cx.in_class(0) != Some(cx.out_class(0))) {
        return Err("QLinearMatMul with operands of different element types is not supported".into());
    }
    if [ia, ib].iter().any(|&i| Sz::all_lit(&cx.in_dims(i)).is_none()) {
        scale_types(cx, q)?;
        return shaped_matmul(cx, q);
    }
    let ((m, k, n), ao, bo) = matmul_plan(&cx.in_static(ia), &cx.in_static(ib))?;
    let params: &[(usize, usize, &str)] = if q {
        &[
            (1, m, "a_scale"),
            (2, m, "a_zero_point"),
            (4, n, "b_scale"),
            (5, n, "b_zero_point"),
            (6, n, "y_scale"),
            (7, n, "y_zero_point"),
        ]
    } else {
        &[(2, m, "a_zero_point"), (3, n, "b_zero_point")]
    };
    for &(i, want, what) in params.iter().filter(|p| cx.op.operand(p.0).is_some()) {
        param(cx, i, want, what)?;
    }
    scale_types(cx, q)?;
    let out = cx.begin(0);
    let arg = |cx: &mut OpCx<'_, '_>, i: Option<usize>| -> Result<String, String> {
        match i.filter(|&i| cx.op.operand(i).is_some()) {
            Some(i) => cx.input(i),
            None => Ok("&[]".into()),
        }
    };
    let (za, zb) = if q { (Some(2), Some(5)) } else { (Some(2), Some(3)) };
    let (sa, sb) = if q { (Some(1), Some(4)) } else { (None, None) };
    let a = format!(
        "k::quant::QMat {{ data: {}, offsets: {}, zero: {}, scale: {} }}",
        cx.input(ia)?,
        udims(&ao),
        arg(cx, za)?,
        arg(cx, sa)?
    );
    let b = format!(
        "k::quant::QMat {{ data: {}, offsets: {}, zero: {}, scale: {} }}",
        cx.input(ib)?,
        udims(&bo),
        arg(cx, zb)?,
        arg(cx, sb)?
    );
    if q {
        let (ys, yz) = (cx.input(6)?, cx.input(7)?);
        cx.line(format!("k::quant::qlinear_matmul(({m}, {k}, {n}), {a}, {b}, ({ys}, {yz}), {out});"));
    } else {
        cx.line(format!("k::quant::matmul_integer(({m}, {k}, {n}), {a}, {b}, {out});"));
    }
    Ok(())
}

/// QLinearMatMul's three scales share one type: f32, f16 or bf16.
fn scale_types(cx: &OpCx<'_, '_>, q: bool) -> Result<(), String> {
    let sc = cx.in_class(1);
    if q && (!matches!(sc, Some(Class::F32 | Class::F16 | Class::BF16)) || [4, 6].iter().any(|&i| cx.in_class(i) != sc))
    {
        return Err("QLinearMatMul needs its three scales of one type, f32, f16 or bf16".into());
    }
    Ok(())
}

/// An integer matmul over run-time shapes: the kernel checks the inner
/// dims, the batch broadcast and the parameters' lengths (per tensor, per
/// row of A, per column of B) when the model runs.
fn shaped_matmul(cx: &mut OpCx<'_, '_>, q: bool) -> Result<(), String> {
    let out = cx.begin(0);
    // (data, zero point, scale) of A and B.
    let (a, b) = if q { ((0, 2, Some(1)), (3, 5, Some(4))) } else { ((0, 2, None), (1, 3, None)) };
    let tensor = |cx: &mut OpCx<'_, '_>, (d, z, s): (usize, usize, Option<usize>)| -> Result<String, String> {
        let shape = dims(&cx.in_dims(d));
        let data = cx.input(d)?;
        let opt = |cx: &mut OpCx<'_, '_>, i: Option<usize>| match i.filter(|&i| cx.op.operand(i).is_some()) {
            Some(i) => cx.input(i),
            None => Ok("&[]".into()),
        };
        let (zero, scale) = (opt(cx, Some(z))?, opt(cx, s)?);
        Ok(format!("k::quant::shaped::QTensor {{ shape: {shape}, data: {data}, zero: {zero}, scale: {scale} }}"))
    };
    let (a, b) = (tensor(cx, a)?, tensor(cx, b)?);
    let what = what(cx);
    let call = if q {
        let (ys, yz) = (cx.input(6)?, cx.input(7)?);
        format!("k::quant::shaped::qlinear_matmul({what:?}, {a}, {b}, ({ys}, {yz}), {out})")
    } else {
        format!("k::quant::shaped::matmul_integer({what:?}, {a}, {b}, {out})")
    };
    try_line(cx, call);
    Ok(())
}

fn conv_int(cx: &mut OpCx<'_, '_>, qlinear: bool) -> Result<(), String> {
    let q8 = [Class::U8, Class::I8];
    let (xi, wi) = if qlinear { (0, 3) } else { (0, 1) };
    want_class(cx, xi, &q8, "x")?;
    want_class(cx, wi, &q8, "w")?;
    let (xs, ws, ys) = (cx.in_dims(xi), cx.in_static(wi), cx.out_dims(0));
    let r = xs.len().checked_sub(2).filter(|r| (1..=MAX_RANK).contains(r));
    if r.is_none_or(|r| ws.len() != r + 2 || ys.len() != r + 2) {
        return Err(format!("{}: x of rank {} with w {ws:?} is not supported", cx.op.opcode.name(), xs.len()));
    }
    if qlinear {
        for (i, w) in [(1, "x_scale"), (4, "w_scale"), (6, "y_scale")] {
            want_class(cx, i, &[Class::F32], w)?;
        }
        want_class(cx, 2, &cx.in_class(0).into_iter().collect::<Vec<_>>(), "x_zero_point")?;
        want_class(cx, 5, &cx.in_class(3).into_iter().collect::<Vec<_>>(), "w_zero_point")?;
        want_class(cx, 7, &q8, "y_zero_point")?;
        if cx.out_class(0) != cx.in_class(7).unwrap_or(Class::U8) {
            return Err("QLinearConv: the result must have y_zero_point's type".into());
        }
        if cx.op.operand(8).is_some() {
            want_class(cx, 8, &[Class::I32], "B")?;
        }
    } else if cx.out_class(0) != Class::I32 {
        return Err("ConvInteger: the result must be i32".into());
    }
    let group = cx.op.attrs.int("group").unwrap_or(1).max(1);
    let out = cx.begin(0);
    let win = window(cx, &xs, &ws[2..], &ys);
    cx.line(format!(
        "let p = k::quant::conv::ConvInt {{ n: {}, c: {}, m: {}, group: {group}, win: {win} }};",
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
            "let q = k::quant::conv::QParams {{ x_scale: {}[0], x_zero: {}[0], w_scale: {}, w_zero: {}, y_scale: {}[0], y_zero: {}[0] }};",
            v[0], v[1], v[2], v[3], v[4], v[5]
        ));
        cx.line(format!("k::quant::conv::qlinear_conv(&p, &q, {x}, {w}, {b}, {out});"));
    } else {
        let zp = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
            Ok(match cx.op.operand(i) {
                Some(_) => cx.input(i)?,
                None => "&[]".into(),
            })
        };
        let (xz, wz) = (zp(cx, 2)?, zp(cx, 3)?);
        cx.line(format!("k::quant::conv::conv_integer(&p, {x}, {xz}, {w}, {wz}, {out});"));
    }
    Ok(())
}

/// `quant.conv`: with constant weights and parameters on a 1-D or 2-D window,
/// the packed integer GEMM / depthwise kernel (`k::quant::qconv`), weights
/// arranged once at construction; otherwise the direct N-D loop.
/// The kernels round as edgec's arithmetic does: an op folded for a target
/// computing LiteRT's (`rounding` other than `single`) has no kernel here.
fn single_rounding(cx: &OpCx<'_, '_>) -> Result<(), String> {
    match cx.op.attrs.str("rounding") {
        Some(r) if r != "single" => Err(format!(
            "`rounding = {r}` (LiteRT's arithmetic, an integer module folded for a TFLite target) has no Rust \
             kernel: quantize for the CPU target instead"
        )),
        _ => Ok(()),
    }
}

fn quant_conv(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    want_class(cx, 0, &[Class::U8, Class::I8], "X")?;
    want_class(cx, 1, &[Class::I8], "W")?;
    single_rounding(cx)?;
    let float = cx.op.operand(5).is_some();
    let params: &[usize] = if float { &[5] } else { &[3, 4] };
    for &i in params {
        want_class(cx, i, &[if float { Class::F32 } else { Class::I32 }], "epilogue parameter")?;
    }
    if cx.op.operand(2).is_some() {
        want_class(cx, 2, &[Class::I32], "B")?;
    }
    let epilogue = |cx: &mut OpCx<'_, '_>, get: &dyn Fn(&mut OpCx<'_, '_>, usize) -> Result<String, String>| {
        Ok::<String, String>(if float {
            let ys = cx.op.attrs.float("y_scale").unwrap_or(1.0);
            format!(
                "k::quant::qconv::QEpilogue::Float {{ acc_scale: {}, act: {}, y_scale: {} }}",
                get(cx, 5)?,
                act(cx.op)?,
                f32_lit(ys)
            )
        } else {
            format!("k::quant::qconv::QEpilogue::Fixed {{ mult: {}, shift: {} }}", get(cx, 3)?, get(cx, 4)?)
        })
    };
    let a = |k: &str| cx.op.attrs.int(k).unwrap_or(0);
    let q = format!(
        "k::quant::qconv::QReq {{ x_zero: {}, y_zero: {}, qmin: {}, qmax: {} }}",
        a("x_zero_point"),
        a("y_zero_point"),
        a("qmin"),
        a("qmax")
    );
    let (xs, ws, ys) = (cx.in_dims(0), cx.in_static(1), cx.out_dims(0));
    let r = xs.len().checked_sub(2).filter(|r| (1..=MAX_RANK).contains(r));
    if r.is_none_or(|r| ws.len() != r + 2 || ys.len() != r + 2) {
        return Err(format!("quant.conv: X of rank {} with W {ws:?} is not supported", xs.len()));
    }
    let constant =
        cx.is_static(1) && params.iter().all(|&i| cx.is_static(i)) && (cx.op.operand(2).is_none() || cx.is_static(2));
    let group = cx.op.attrs.int("group").unwrap_or(1).max(1) as usize;
    let out = cx.begin(0);
    let x = cx.input(0)?;
    if !constant || xs.len() > 4 {
        let win = window(cx, &xs, &ws[2..], &ys);
        cx.line(format!(
            "let p = k::quant::conv::ConvInt {{ n: {}, c: {}, m: {}, group: {group}, win: {win} }};",
            xs[0], xs[1], ws[0]
        ));
        let b = match cx.op.operand(2) {
            Some(_) => format!("Some({})", cx.input(2)?),
            None => "None".into(),
        };
        let w = cx.input(1)?;
        let e = epilogue(cx, &|cx, i| cx.input(i))?;
        cx.line(format!("k::quant::qconv::quant_conv_nd(&p, &{q}, {x}, {w}, {b}, {e}, {out});"));
        return Ok(());
    }
    // A 1-D window is the 2-D one over a height of 1 (same memory layout).
    let r = xs.len() - 2;
    let kernel: Vec<usize> = if r == 1 { vec![1, ws[2]] } else { ws[2..].to_vec() };
    let (stride, dil) = (ints(cx.op, "strides", r, 1), ints(cx.op, "dilations", r, 1));
    let p = pads(cx, &xs[2..], &ys[2..], &ws[2..], &stride, &dil);
    let (stride, dil, p, h, w) = if r == 1 {
        (
            vec![1, stride[0]],
            vec![1, dil[0]],
            vec![Sz::Lit(0), p[0].clone(), Sz::Lit(0), p[1].clone()],
            Sz::Lit(1),
            xs[2].clone(),
        )
    } else {
        (stride, dil, p, xs[2].clone(), xs[3].clone())
    };
    let geom = format!(
        "k::conv::Conv2d {{ n: {}, c_in: {}, h: {h}, w: {w}, c_out: {}, kh: {}, kw: {}, stride_h: {}, stride_w: {}, pad_top: {}, pad_left: {}, pad_bottom: {}, pad_right: {}, dil_h: {}, dil_w: {}, groups: {group} }}",
        xs[0], xs[1], ws[0], kernel[0], kernel[1], stride[0], stride[1], p[0], p[1], p[2], p[3], dil[0], dil[1]
    );
    let c = cx.item("k::conv::Conv2d", geom);
    let w = cx.init_weights(1)?;
    let e = epilogue(cx, &|cx, i| cx.init_weights(i))?;
    let b = match cx.op.operand(2) {
        Some(_) => format!("Some({})", cx.init_weights(2)?),
        None => "None".into(),
    };
    // The packing depends on channels, kernel and groups only (all fixed by
    // the weights): a literal geometry with those serves every run.
    let packing = format!(
        "k::conv::Conv2d {{ n: 1, c_in: {}, h: 1, w: 1, c_out: {}, kh: {}, kw: {}, stride_h: 1, stride_w: 1, pad_top: 0, pad_left: 0, pad_bottom: 0, pad_right: 0, dil_h: 1, dil_w: 1, groups: {group} }}",
        ws[1] * group,
        ws[0],
        kernel[0],
        kernel[1]
    );
    let pw = cx
        .field("k::quant::qconv::PackedQConv", format!("k::quant::qconv::PackedQConv::new(&{packing}, {w}, {b}, {e})"));
    cx.line(format!("k::quant::qconv::quant_conv2d(&{c}, &{q}, &self.{pw}, {x}, {out});"));
    Ok(())
}

/// The `{k}_scale` literal and `{k}_zero_point` of a byte op.
fn grid_lit(cx: &OpCx<'_, '_>, k: &str) -> (String, i64) {
    let a = &cx.op.attrs;
    (f32_lit(a.float(&format!("{k}_scale")).unwrap_or(1.0)), a.int(&format!("{k}_zero_point")).unwrap_or(0))
}

/// `quant.add` / `quant.sub` / `quant.mul`: one pass over the bytes, B broadcast by
/// blocks (the block resolved here for literal shapes, when the model runs
/// otherwise).
fn quant_binary(cx: &mut OpCx<'_, '_>, op: &str) -> Result<(), String> {
    want_class(cx, 0, &[Class::U8, Class::I8], "A")?;
    single_rounding(cx)?;
    let same: Vec<Class> = cx.in_class(0).into_iter().collect();
    want_class(cx, 1, &same, "B")?;
    let ((sa, za), (sb, zb), (sy, zy)) = (grid_lit(cx, "a"), grid_lit(cx, "b"), grid_lit(cx, "y"));
    let ymin = cx.op.attrs.int("qmin").map_or("i32::MIN".to_string(), |v| v.to_string());
    let p = format!(
        "k::quant::fused::QGrids {{ a_scale: {sa}, a_zero: {za}, b_scale: {sb}, b_zero: {zb}, y_scale: {sy}, y_zero: {zy}, \
         y_min: {ymin} }}"
    );
    let (ad, bd) = (cx.in_dims(0), cx.in_dims(1));
    let block = match (Sz::all_lit(&ad), Sz::all_lit(&bd)) {
        (Some(a), Some(b)) => edgec_numeric::quant::broadcast_block(&a, &b)
            .ok_or_else(|| {
                format!("B {b:?} neither equals A {a:?} nor broadcasts along its leading and trailing dims")
            })?
            .to_string(),
        _ => try_expr(cx, format!("k::quant::fused::broadcast_block({}, {})", dims(&ad), dims(&bd))),
    };
    let out = cx.begin(0);
    let (a, b) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::quant::fused::quant_binary(k::quant::fused::QBinary::{op}, &{p}, {a}, {b}, {block}, {out});"));
    Ok(())
}

/// `quant.lut`: one table lookup per byte.
fn quant_lut(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    want_class(cx, 0, &[Class::U8, Class::I8], "X")?;
    want_class(cx, 1, &[Class::U8, Class::I8], "Table")?;
    let rows = cx.in_dims(1);
    let xd = cx.in_dims(0);
    let out = cx.begin(0);
    let (x, t) = (cx.input(0)?, cx.input(1)?);
    if rows.len() == 2 {
        // One table per channel (axis 1), `inner` elements each.
        let inner = Sz::product(xd.get(2..).unwrap_or(&[]));
        cx.line(format!("k::quant::fused::quant_lut_channels({x}, {t}, {inner}, {out});"));
    } else {
        cx.line(format!("k::quant::fused::quant_lut({x}, {t}, {out});"));
    }
    Ok(())
}

/// `quant.global_avg_pool` over the `[N, C]` planes.
fn quant_global_avg_pool(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    want_class(cx, 0, &[Class::U8, Class::I8], "X")?;
    let xd = cx.in_dims(0);
    if xd.len() < 3 {
        return Err(format!("X of rank {} (rank ≥ 3 expected)", xd.len()));
    }
    let plane = Sz::product(&xd[2..]);
    let ((sx, zx), (sy, zy)) = (grid_lit(cx, "x"), grid_lit(cx, "y"));
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::quant::fused::quant_global_avg_pool({sx}, {zx}, {sy}, {zy}, {plane}, {x}, {out});"));
    Ok(())
}
