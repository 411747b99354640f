//! Shape/type inference of the quantization family: the linear
//! (de)quantizers (QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear) and
//! integer / quantized linear algebra (MatMulInteger, QLinearMatMul,
//! ConvInteger, QLinearConv).
//!
//! In the integer ops, quantized operands are i8 or u8 (the float8 variants the
//! spec also allows have no [`DType`] yet); a zero point has the element type of
//! the tensor it belongs to, and the result type of the `QLinear*` ops is that
//! of `y_zero_point`. Convolution windows are parsed by [`super::conv::Window`].

use super::conv::Window;
use super::elementwise::broadcast_shapes;
use super::{dims_or_unknown, expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Types a tensor can be quantized to: 16/8/4/2-bit integers, float8 (not
/// E8M0) and float4.
fn is_quantized(d: DType) -> bool {
    matches!(d, DType::U8 | DType::I8 | DType::U16 | DType::I16)
        || d.is_low_int()
        || (d.is_low_float() && d != DType::F8E8M0)
}

const QUANTIZED: &str = "u8, i8, u16, i16, u4, i4, u2, i2, f8e4m3fn, f8e4m3fnuz, f8e5m2, f8e5m2fnuz or f4e2m1";

/// Check the scale / zero-point layout against the input where it is known:
/// zero point shaped like the scale; a 1-D scale of more than one element
/// (per-axis, no `block_size`) has the length of `x`'s `axis` dim; a blocked
/// scale has the input's rank.
fn check_params(ctx: &InferCtx<'_>, x: &TensorType, scale: &TensorType) -> Result<(), String> {
    let single = |t: &TensorType| t.dims().is_some_and(|d| d.iter().all(|&d| d == Dim::Static(1)));
    if let Some(zp) = ctx.opt_input(2) {
        // A one-element zero point may differ in rank from a one-element scale ([1] vs []).
        if !(zp.shape.compatible(&scale.shape) || single(zp) && single(scale)) {
            return Err(format!("zero point shape {} differs from scale shape {}", zp.shape, scale.shape));
        }
    }
    let (Some(xd), Some(sd)) = (x.dims(), scale.dims()) else { return Ok(()) };
    if sd.iter().all(|&d| d == Dim::Static(1)) {
        return Ok(()); // per-tensor
    }
    let block = ctx.int("block_size", 0);
    if block < 0 {
        return Err(format!("`block_size` must be positive, got {block}"));
    }
    let r = xd.len() as i64;
    let axis = ctx.int("axis", 1);
    if axis < -r || axis >= r {
        return Err(format!("axis {axis} is out of range for rank {r}"));
    }
    let ax = axis.rem_euclid(r.max(1)) as usize;
    if block == 0 && (sd.len() != 1 || !sd[0].compatible(xd[ax])) {
        return Err(format!("per-axis scale {} must be 1-D of length {} (axis {ax})", scale.shape, xd[ax]));
    }
    if block > 0 && sd.len() != xd.len() {
        return Err(format!("blocked scale {} must have the input's rank {}", scale.shape, xd.len()));
    }
    Ok(())
}

/// QuantizeLinear: the input's shape; element type `output_dtype`, else the
/// zero point's type, else u8.
pub fn quantize_linear(ctx: &InferCtx<'_>) -> InferResult {
    let (x, scale) = (ctx.input(0)?, ctx.input(1)?);
    let ok = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16 | DType::I32);
    expect_dtype(x, "x", ok, "f32, f16, bf16 or i32")?;
    expect_dtype(scale, "y_scale", ok, "f32, f16, bf16 or i32")?;
    let zp = ctx.opt_input(2).map(|t| t.dtype);
    let out = match (ctx.attrs.dtype("output_dtype"), zp) {
        (Some(a), Some(z)) if a != z => return Err(format!("`output_dtype` {a} differs from the zero point type {z}")),
        (Some(a), _) => a,
        (None, Some(z)) => z,
        (None, None) => DType::U8,
    };
    if !is_quantized(out) {
        return Err(format!("quantized type {out} is not one of {QUANTIZED}"));
    }
    if let Some(p) = ctx.attrs.dtype("precision").filter(|p| !p.is_float()) {
        return Err(format!("`precision` must be a float type, got {p}"));
    }
    check_params(ctx, x, scale)?;
    Ok(vec![TensorType::new(out, x.shape.clone())])
}

/// DequantizeLinear: the input's shape; element type `output_dtype`, else the
/// scale's type.
pub fn dequantize_linear(ctx: &InferCtx<'_>) -> InferResult {
    let (x, scale) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(x, "x", |d| is_quantized(d) || d == DType::I32, &format!("{QUANTIZED} or i32"))?;
    let float = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16);
    expect_dtype(scale, "x_scale", float, "f32, f16 or bf16")?;
    if let Some(zp) = ctx.opt_input(2) {
        if zp.dtype != x.dtype {
            return Err(format!("x_zero_point has element type {}, x has {}", zp.dtype, x.dtype));
        }
    }
    let out = ctx.attrs.dtype("output_dtype").unwrap_or(scale.dtype);
    if !float(out) {
        return Err(format!("`output_dtype` must be f32, f16 or bf16, got {out}"));
    }
    check_params(ctx, x, scale)?;
    Ok(vec![TensorType::new(out, x.shape.clone())])
}

/// DynamicQuantizeLinear: f32 input; u8 data of its shape, an f32 scalar scale
/// and a u8 scalar zero point.
pub fn dynamic_quantize_linear(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "x", |d| d == DType::F32, "f32")?;
    Ok(vec![
        TensorType::new(DType::U8, x.shape.clone()),
        TensorType::new(DType::F32, Shape::scalar()),
        TensorType::new(DType::U8, Shape::scalar()),
    ])
}

/// True for the 8-bit integer types quantized tensors use.
fn is_q8(dt: DType) -> bool {
    matches!(dt, DType::I8 | DType::U8)
}

/// Operand `i`, which must be i8 or u8.
fn q8<'a>(ctx: &InferCtx<'a>, i: usize, name: &str) -> Result<&'a TensorType, String> {
    let t = ctx.input(i)?;
    expect_dtype(t, name, is_q8, "i8 or u8")?;
    Ok(t)
}

/// Operand `i` (if present) must have element type `dt` (that of `of`).
fn same_as(ctx: &InferCtx<'_>, i: usize, name: &str, dt: DType, of: &str) -> Result<(), String> {
    match ctx.opt_input(i) {
        Some(t) if t.dtype != dt => {
            Err(format!("{name} has element type {}, expected {dt} (the type of {of})", t.dtype))
        }
        _ => Ok(()),
    }
}

/// The numpy matmul shape of `a @ b`: batch dims broadcast, 1-D operands promoted
/// and the promoted axes removed again.
fn matmul_shape(a: &TensorType, b: &TensorType) -> Result<Shape, String> {
    let (Some(ad), Some(bd)) = (a.dims(), b.dims()) else { return Ok(Shape::Unranked) };
    let (ra, rb) = (ad.len(), bd.len());
    if ra == 0 || rb == 0 {
        return Err(format!("matmul operands must have rank ≥ 1, found A {a} and B {b}"));
    }
    let (ka, kb) = (ad[ra - 1], bd[rb.saturating_sub(2)]);
    if let (Dim::Static(p), Dim::Static(q)) = (ka, kb) {
        if p != q {
            return Err(format!("inner dimensions differ: A {a} has K = {p} but B {b} has K = {q}"));
        }
    }
    let batch = |d: &[Dim]| Shape::from_dims(d[..d.len().saturating_sub(2)].iter().copied());
    let batch = broadcast_shapes(&batch(ad), &batch(bd)).map_err(|e| format!("batch dims of A {a} and B {b}: {e}"))?;
    let mut out = batch.dims().unwrap_or_default().to_vec();
    if ra >= 2 {
        out.push(ad[ra - 2]);
    }
    if rb >= 2 {
        out.push(bd[rb - 1]);
    }
    Ok(Shape::from_dims(out))
}

/// MatMulInteger: i8/u8 `A`, `B` with optional zero points of their types → i32 matmul shape.
pub fn matmul_integer(ctx: &InferCtx<'_>) -> InferResult {
    let (a, b) = (q8(ctx, 0, "A")?, q8(ctx, 1, "B")?);
    same_as(ctx, 2, "a_zero_point", a.dtype, "A")?;
    same_as(ctx, 3, "b_zero_point", b.dtype, "B")?;
    Ok(vec![TensorType::new(DType::I32, matmul_shape(a, b)?)])
}

/// Scale operands `idx` must share one element type accepted by `allowed`.
fn check_scales(
    ctx: &InferCtx<'_>,
    idx: &[(usize, &str)],
    allowed: fn(DType) -> bool,
    what: &str,
) -> Result<(), String> {
    let first = ctx.input(idx[0].0)?;
    for &(i, name) in idx {
        let t = ctx.input(i)?;
        expect_dtype(t, name, allowed, what)?;
        if t.dtype != first.dtype {
            return Err(format!(
                "{name} has element type {}, expected {} (the type of {})",
                t.dtype, first.dtype, idx[0].1
            ));
        }
    }
    Ok(())
}

/// QLinearMatMul: `a`, `b` i8/u8 with zero points of their types, f32/f16/bf16 scales
/// of one type; the result has `y_zero_point`'s type and the matmul shape.
pub fn qlinear_matmul(ctx: &InferCtx<'_>) -> InferResult {
    let (a, b) = (q8(ctx, 0, "a")?, q8(ctx, 3, "b")?);
    same_as(ctx, 2, "a_zero_point", a.dtype, "a")?;
    same_as(ctx, 5, "b_zero_point", b.dtype, "b")?;
    let y = q8(ctx, 7, "y_zero_point")?;
    let float = |d: DType| matches!(d, DType::F32 | DType::F16 | DType::BF16);
    check_scales(ctx, &[(1, "a_scale"), (4, "b_scale"), (6, "y_scale")], float, "f32, f16 or bf16")?;
    Ok(vec![TensorType::new(y.dtype, matmul_shape(a, b)?)])
}

/// The output shape of an N-D grouped convolution of `x [N, C, D...]` with
/// `w [M, C/group, k...]` under the conv window attributes.
fn conv_shape(ctx: &InferCtx<'_>, x: &TensorType, w: &TensorType) -> Result<Shape, String> {
    let group = ctx.int("group", 1);
    if group < 1 {
        return Err(format!("attribute `group` = {group} must be ≥ 1"));
    }
    let group = group as u64;
    let rank = match (x.rank(), w.rank()) {
        (Some(p), Some(q)) if p != q => return Err(format!("x {x} and w {w} must have the same rank")),
        (Some(r), _) | (_, Some(r)) => r,
        _ => match ctx.attrs.ints("kernel_shape") {
            Some(k) => k.len() + 2,
            None => return Ok(Shape::Unranked),
        },
    };
    if rank < 3 {
        return Err(format!("x {x} and w {w} must have rank ≥ 3 (N, C and at least one spatial axis)"));
    }
    let (xd, wd) = (dims_or_unknown(x, rank), dims_or_unknown(w, rank));
    if let (Dim::Static(c), Dim::Static(cg)) = (xd[1], wd[1]) {
        if cg.checked_mul(group) != Some(c) {
            return Err(format!("x {x} has {c} channels but w {w} expects {cg} per group × group {group}"));
        }
    }
    if wd[0].as_static().is_some_and(|m| m % group != 0) {
        return Err(format!("w {w}: output channels {} are not divisible by group {group}", wd[0]));
    }
    let win = Window::parse(ctx, rank - 2, Some(&wd[2..]))?;
    let mut out = vec![xd[0], wd[0]];
    for i in 0..rank - 2 {
        out.push(win.out_dim(i, xd[i + 2])?);
    }
    Ok(Shape::from_dims(out))
}

/// ConvInteger: i8/u8 `x`, `w` with optional zero points of their types → i32 conv output.
pub fn conv_integer(ctx: &InferCtx<'_>) -> InferResult {
    let (x, w) = (q8(ctx, 0, "x")?, q8(ctx, 1, "w")?);
    same_as(ctx, 2, "x_zero_point", x.dtype, "x")?;
    same_as(ctx, 3, "w_zero_point", w.dtype, "w")?;
    Ok(vec![TensorType::new(DType::I32, conv_shape(ctx, x, w)?)])
}

/// QLinearConv: i8/u8 `x`, `w`, zero points of their types, f32 scales, optional
/// i32 bias `B [M]`; the result has `y_zero_point`'s type.
pub fn qlinear_conv(ctx: &InferCtx<'_>) -> InferResult {
    let (x, w) = (q8(ctx, 0, "x")?, q8(ctx, 3, "w")?);
    same_as(ctx, 2, "x_zero_point", x.dtype, "x")?;
    same_as(ctx, 5, "w_zero_point", w.dtype, "w")?;
    let y = q8(ctx, 7, "y_zero_point")?;
    check_scales(ctx, &[(1, "x_scale"), (4, "w_scale"), (6, "y_scale")], |d| d == DType::F32, "f32")?;
    let shape = conv_shape(ctx, x, w)?;
    if let Some(b) = ctx.opt_input(8) {
        expect_dtype(b, "B", |d| d == DType::I32, "i32")?;
        let m = shape.dims().map_or(Dim::Unknown, |d| d[1]);
        match b.dims() {
            Some([d]) if d.compatible(m) => {}
            None => {}
            _ => return Err(format!("B {b} must have shape [{m}] (one value per output channel)")),
        }
    }
    Ok(vec![TensorType::new(y.dtype, shape)])
}

/// quant.conv: i8/u8 `X`, i8 `W`, optional i32 `B [M]`; either i32
/// `multiplier` and `shift` or f32 `acc_scale` with a positive `y_scale`
/// (`[M]` or `[1]`); `act` only with `acc_scale`; zero points and
/// `[qmin, qmax]` inside X's range.
pub fn quant_conv(ctx: &InferCtx<'_>) -> InferResult {
    let fixed = (ctx.opt_input(3).is_some(), ctx.opt_input(4).is_some());
    let float = ctx.opt_input(5).is_some();
    match (fixed, float) {
        ((true, true), false) => {
            if ctx.attrs.str("act").is_some_and(|a| a != "none") {
                return Err("`act` needs the float epilogue (acc_scale), not multiplier/shift".into());
            }
        }
        ((false, false), true) => {
            let ys = ctx.attrs.float("y_scale").unwrap_or(0.0);
            if !(ys > 0.0 && ys.is_finite()) {
                return Err(format!("`y_scale` must be positive and finite with acc_scale, got {ys}"));
            }
        }
        _ => return Err("give either multiplier and shift, or acc_scale".into()),
    }
    let x = q8(ctx, 0, "X")?;
    let w = ctx.input(1)?;
    expect_dtype(w, "W", |d| d == DType::I8, "i8")?;
    let shape = conv_shape(ctx, x, w)?;
    let m = shape.dims().map_or(Dim::Unknown, |d| d[1]);
    for (i, name, one) in [(2, "B", false), (3, "multiplier", true), (4, "shift", true), (5, "acc_scale", true)] {
        let Some(t) = ctx.opt_input(i) else { continue };
        let want = if i == 5 { DType::F32 } else { DType::I32 };
        expect_dtype(t, name, |d| d == want, if i == 5 { "f32" } else { "i32" })?;
        match t.dims() {
            Some([d]) if d.compatible(m) || (one && *d == Dim::Static(1)) => {}
            None => {}
            _ => return Err(format!("{name} {t} must have shape [{m}] (one value per output channel)")),
        }
    }
    let (lo, hi) = if x.dtype == DType::U8 { (0, 255) } else { (-128, 127) };
    let get = |k: &str| ctx.int(k, 0);
    for k in ["x_zero_point", "y_zero_point", "qmin", "qmax"] {
        if !(lo..=hi).contains(&get(k)) {
            return Err(format!("`{k}` = {} is outside the range {lo}..={hi} of {}", get(k), x.dtype));
        }
    }
    if get("qmin") > get("qmax") {
        return Err(format!("`qmin` = {} exceeds `qmax` = {}", get("qmin"), get("qmax")));
    }
    Ok(vec![TensorType::new(x.dtype, shape)])
}

/// quant.add / quant.sub / quant.mul: A and B of one 8-bit type, B equal to A's shape
/// or broadcast along A's leading and trailing dims (`broadcast_block`, checked where
/// both shapes are static); positive finite scales; zero points inside the
/// type's range. The result has A's type and shape.
pub fn quant_binary(ctx: &InferCtx<'_>) -> InferResult {
    let (a, b) = (q8(ctx, 0, "A")?, q8(ctx, 1, "B")?);
    if a.dtype != b.dtype {
        return Err(format!("A is {}, B is {}: the op takes one type", a.dtype, b.dtype));
    }
    let fits = match (a.shape.static_dims(), b.shape.static_dims()) {
        (Some(p), Some(q)) => {
            let us = |d: Vec<u64>| d.into_iter().map(|v| v as usize).collect::<Vec<_>>();
            edgec_numeric::quant::broadcast_block(&us(p), &us(q)).is_some()
        }
        _ => a.shape.compatible(&b.shape),
    };
    if !fits {
        return Err(format!("B {b} must equal A {a} or broadcast along A's leading and trailing dims"));
    }
    grids(ctx, a.dtype, &["a", "b", "y"])?;
    Ok(vec![a.clone()])
}

/// quant.lut: X u8/i8; Table u8/i8, `[256]` (one table) or `[C, 256]` (one
/// per channel, X's axis 1 of size C); the result has X's shape and the
/// table's type.
pub fn quant_lut(ctx: &InferCtx<'_>) -> InferResult {
    let (x, t) = (q8(ctx, 0, "X")?, q8(ctx, 1, "Table")?);
    let channels = x.dims().and_then(|d| d.get(1).copied()).unwrap_or(Dim::Unknown);
    match t.dims() {
        Some([d]) if d.compatible(Dim::Static(256)) => {}
        Some([c, d]) if d.compatible(Dim::Static(256)) && c.compatible(channels) => {}
        None => {}
        _ => return Err(format!("Table {t} must have shape [256] or [{channels}, 256] (X {x})")),
    }
    Ok(vec![TensorType::new(t.dtype, x.shape.clone())])
}

/// quant.global_avg_pool: X u8/i8 of rank ≥ 3; the result `[N, C, 1...]`.
pub fn quant_global_avg_pool(ctx: &InferCtx<'_>) -> InferResult {
    let x = q8(ctx, 0, "X")?;
    let Some(dims) = x.dims() else { return Ok(vec![TensorType::new(x.dtype, x.shape.clone())]) };
    if dims.len() < 3 {
        return Err(format!("X {x} must have rank ≥ 3 ([N, C, spatial...])"));
    }
    grids(ctx, x.dtype, &["x", "y"])?;
    let mut out = dims.to_vec();
    out[2..].iter_mut().for_each(|d| *d = Dim::Static(1));
    Ok(vec![TensorType::new(x.dtype, Shape::Ranked(out.into_iter().collect()))])
}

/// The `{k}_scale` / `{k}_zero_point` attributes: positive finite scales,
/// zero points inside the range of `dt`.
fn grids(ctx: &InferCtx<'_>, dt: DType, keys: &[&str]) -> Result<(), String> {
    let (lo, hi) = if dt == DType::U8 { (0, 255) } else { (-128, 127) };
    for k in keys {
        let s = ctx.attrs.float(&format!("{k}_scale")).unwrap_or(0.0);
        if !(s > 0.0 && s.is_finite()) {
            return Err(format!("`{k}_scale` must be positive and finite, got {s}"));
        }
        let z = ctx.int(&format!("{k}_zero_point"), 0);
        if !(lo..=hi).contains(&z) {
            return Err(format!("`{k}_zero_point` = {z} is outside the range of {dt}"));
        }
    }
    Ok(())
}
