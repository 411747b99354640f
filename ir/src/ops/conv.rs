//! Convolutions: Conv, ConvTranspose, their fused `core.*` forms (with an
//! activation epilogue), DeformConv and Col2Im; and the sliding-window
//! attributes they share with pooling ([`super::pool`]) and the quantized
//! convolutions ([`super::quant`]).
//!
//! The sliding-window ops share the NCHW... layout (`[N, C, D1..Dn]`) and the window
//! attributes `kernel_shape`, `strides`, `dilations`, `pads` and `auto_pad`,
//! parsed once into a [`Window`]. Output sizes follow the ONNX formulas; a
//! symbolic or unknown input size yields [`Dim::Unknown`] unless the formula is
//! the identity on that axis, in which case the input dim (and its symbol) is kept.

use super::elementwise::Activation;
use super::{dim_div, dims_or_unknown, expect_dtype, expect_same, merge_dims, same_type, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// The `auto_pad` attribute.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AutoPad {
    /// Explicit `pads` (the default).
    NotSet,
    /// Pad so that `out = ceil(in / stride)`; an odd extra pad goes at the end.
    SameUpper,
    /// Pad so that `out = ceil(in / stride)`; an odd extra pad goes at the beginning.
    SameLower,
    /// No padding.
    Valid,
}

impl AutoPad {
    fn is_same(self) -> bool {
        matches!(self, AutoPad::SameUpper | AutoPad::SameLower)
    }
}

/// Validated window attributes for `n` spatial axes.
///
/// Invariants: `kernel`, `strides`, `dilations` have length `n` and `pads` has
/// length `2n` (`[x1_begin.., x1_end..]`); kernel sizes, strides and dilations are
/// ≥ 1; `pads` is all zero unless `auto_pad` is `NOTSET`. A kernel size is `None`
/// when neither `kernel_shape` nor a static weight dim gives it.
#[derive(Clone, Debug)]
pub struct Window {
    /// Padding policy.
    pub auto_pad: AutoPad,
    /// Kernel size per spatial axis, if known.
    pub kernel: Vec<Option<u64>>,
    /// Stride per spatial axis.
    pub strides: Vec<u64>,
    /// Dilation per spatial axis.
    pub dilations: Vec<u64>,
    /// Begin pads then end pads.
    pub pads: Vec<u64>,
    /// Pooling `ceil_mode`: round the window count up (and drop a window that starts in the end padding).
    pub ceil_mode: bool,
}

/// An int-list attribute of length `n` with every value ≥ `min`, or `n` copies of `default`.
fn ints_attr(ctx: &InferCtx<'_>, name: &str, n: usize, default: u64, min: i64) -> Result<Vec<u64>, String> {
    let Some(v) = ctx.attrs.ints(name) else { return Ok(vec![default; n]) };
    if v.len() != n {
        return Err(format!("attribute `{name}` = {v:?} has {} values, expected {n}", v.len()));
    }
    if let Some(bad) = v.iter().find(|&&x| x < min) {
        return Err(format!("attribute `{name}` = {v:?} contains {bad}, values must be ≥ {min}"));
    }
    Ok(v.iter().map(|&x| x as u64).collect())
}

impl Window {
    /// Parse the window attributes for `n` spatial axes. `w_kernel` are the
    /// weight's spatial dims (conv) or `None` (pooling, where `kernel_shape` is required).
    pub fn parse(ctx: &InferCtx<'_>, n: usize, w_kernel: Option<&[Dim]>) -> Result<Window, String> {
        let auto_pad = match ctx.str("auto_pad", "NOTSET") {
            "NOTSET" => AutoPad::NotSet,
            "SAME_UPPER" => AutoPad::SameUpper,
            "SAME_LOWER" => AutoPad::SameLower,
            "VALID" => AutoPad::Valid,
            other => return Err(format!("attribute `auto_pad` has invalid value \"{other}\"")),
        };
        let kernel = match (ctx.attrs.ints("kernel_shape"), w_kernel) {
            (None, None) => return Err("missing required attribute `kernel_shape`".into()),
            (None, Some(w)) => w.iter().map(|d| d.as_static()).collect(),
            (Some(_), w) => {
                let ks = ints_attr(ctx, "kernel_shape", n, 1, 1)?;
                let wk = w.unwrap_or(&[]);
                if ks.iter().zip(wk).any(|(k, d)| d.as_static().is_some_and(|d| d != *k)) {
                    let wk = Shape::from_dims(wk.iter().copied());
                    return Err(format!("attribute `kernel_shape` = {ks:?} disagrees with W's spatial dims {wk}"));
                }
                ks.into_iter().map(Some).collect()
            }
        };
        let pads = ints_attr(ctx, "pads", 2 * n, 0, 0)?;
        if auto_pad != AutoPad::NotSet && pads.iter().any(|&p| p != 0) {
            return Err(format!("attribute `pads` = {pads:?} cannot be combined with `auto_pad` = {auto_pad:?}"));
        }
        Ok(Window {
            auto_pad,
            kernel,
            strides: ints_attr(ctx, "strides", n, 1, 1)?,
            dilations: ints_attr(ctx, "dilations", n, 1, 1)?,
            pads,
            ceil_mode: ctx.int("ceil_mode", 0) != 0,
        })
    }

    /// Dilated kernel extent `dilation * (k - 1) + 1` on axis `i`, if the kernel is known.
    fn extent(&self, i: usize) -> Result<Option<u64>, String> {
        let Some(k) = self.kernel[i] else { return Ok(None) };
        let k1 = k.checked_sub(1).ok_or_else(|| format!("kernel size 0 on spatial axis {i}"))?;
        self.dilations[i].checked_mul(k1).and_then(|e| e.checked_add(1)).map(Some).ok_or_else(|| overflow(i))
    }

    /// Output size of the sliding window (conv, pool) on spatial axis `i` for input size `input`.
    pub fn out_dim(&self, i: usize, input: Dim) -> Result<Dim, String> {
        let (s, n) = (self.strides[i], self.kernel.len());
        if self.auto_pad.is_same() {
            return Ok(match input {
                _ if s == 1 => input,
                Dim::Static(x) => Dim::Static(x.div_ceil(s)),
                _ => Dim::Unknown,
            });
        }
        let Some(ek) = self.extent(i)? else { return Ok(Dim::Unknown) };
        let (pb, pe) = (self.pads[i] as u128, self.pads[i + n] as u128);
        if s == 1 && pb + pe + 1 == ek as u128 {
            return Ok(input); // out = in + pads - ek + 1 = in
        }
        let Dim::Static(x) = input else { return Ok(Dim::Unknown) };
        let (x, s, ek) = (x as u128, s as u128, ek as u128);
        let padded = x + pb + pe;
        if padded < ek {
            return Err(format!(
                "spatial axis {i}: input size {x} plus pads {pb}+{pe} is smaller than the dilated kernel extent {ek}"
            ));
        }
        let positions = if self.ceil_mode { (padded - ek).div_ceil(s) } else { (padded - ek) / s };
        // With ceil_mode, a last window starting inside the end padding is dropped.
        let dropped = self.ceil_mode && positions * s >= x + pb;
        u64::try_from(positions + 1 - dropped as u128).map(Dim::Static).map_err(|_| overflow(i))
    }

    /// Output size of a transposed convolution on spatial axis `i` (no `output_shape`).
    pub fn transposed_out_dim(&self, i: usize, input: Dim, out_pad: u64) -> Result<Dim, String> {
        let (s, n) = (self.strides[i], self.kernel.len());
        if self.auto_pad.is_same() {
            return Ok(match input {
                _ if s == 1 => input,
                Dim::Static(x) => Dim::Static(x.checked_mul(s).ok_or_else(|| overflow(i))?),
                _ => Dim::Unknown,
            });
        }
        let Some(ek) = self.extent(i)? else { return Ok(Dim::Unknown) };
        let pads = self.pads[i] as i128 + self.pads[i + n] as i128;
        if s == 1 && out_pad as i128 + ek as i128 == pads + 1 {
            return Ok(input); // out = in - 1 + out_pad + ek - pads = in
        }
        let Dim::Static(x) = input else { return Ok(Dim::Unknown) };
        let out = s as i128 * (x as i128 - 1) + out_pad as i128 + ek as i128 - pads;
        if out < 1 {
            return Err(format!("spatial axis {i}: input size {x} gives output size {out} (pads {pads} too large)"));
        }
        u64::try_from(out).map(Dim::Static).map_err(|_| overflow(i))
    }
}

/// The error for a size that does not fit in 64 bits.
fn overflow(i: usize) -> String {
    format!("spatial axis {i}: output size overflows 64 bits")
}

/// The number of spatial axes of X and W (both `[_, _, spatial...]`), or `None` if unknown.
fn spatial_rank(ctx: &InferCtx<'_>, x: &TensorType, w: &TensorType) -> Result<Option<usize>, String> {
    for (t, name) in [(x, "X"), (w, "W")] {
        if t.rank().is_some_and(|r| r < 3) {
            return Err(format!("{name} {t} must have rank ≥ 3 (N, C and at least one spatial axis)"));
        }
    }
    match (x.rank(), w.rank()) {
        (Some(a), Some(b)) if a != b => Err(format!("X {x} and W {w} must have the same rank")),
        (Some(r), _) | (_, Some(r)) => Ok(Some(r - 2)),
        _ => Ok(ctx.attrs.ints("kernel_shape").map(<[i64]>::len)),
    }
}

/// Checks shared by Conv and ConvTranspose: float X, W of X's type, `group` ≥ 1,
/// optional bias `B` of shape `[m]`. Returns `group`.
fn check_conv_operands(ctx: &InferCtx<'_>) -> Result<u64, String> {
    let (x, w) = (ctx.input(0)?, ctx.input(1)?);
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    if w.dtype != x.dtype {
        return Err(format!("W has element type {}, expected X's {}", w.dtype, x.dtype));
    }
    let group = ctx.int("group", 1);
    if group < 1 {
        return Err(format!("attribute `group` = {group} must be ≥ 1"));
    }
    Ok(group as u64)
}

/// Check the optional bias operand (#2) against the output channel count `m`.
fn check_bias(ctx: &InferCtx<'_>, m: Dim) -> Result<(), String> {
    let Some(b) = ctx.opt_input(2) else { return Ok(()) };
    let x = ctx.input(0)?;
    if b.dtype != x.dtype {
        return Err(format!("B has element type {}, expected X's {}", b.dtype, x.dtype));
    }
    match b.dims() {
        Some([d]) if d.compatible(m) => Ok(()),
        None => Ok(()),
        _ => Err(format!("B {b} must have shape [{m}] (one value per output channel)")),
    }
}

/// Error if `a` is static and `b` (times `factor`) is static and they differ.
fn check_channels(a: Dim, b: Dim, factor: u64, msg: impl FnOnce() -> String) -> Result<(), String> {
    match (a, b) {
        (Dim::Static(p), Dim::Static(q)) if q.checked_mul(factor) != Some(p) => Err(msg()),
        _ => Ok(()),
    }
}

/// `d * factor`, keeping `d` itself when `factor` is 1.
fn scale_dim(d: Dim, factor: u64) -> Result<Dim, String> {
    Ok(match d {
        _ if factor == 1 => d,
        Dim::Static(x) => Dim::Static(x.checked_mul(factor).ok_or("output channel count overflows 64 bits")?),
        _ => Dim::Unknown,
    })
}

/// Conv: `X [N, C, D...]`, `W [M, C/group, k...]`, optional `B [M]` → `[N, M, out...]`.
pub fn conv(ctx: &InferCtx<'_>) -> InferResult {
    let group = check_conv_operands(ctx)?;
    let (x, w) = (ctx.input(0)?, ctx.input(1)?);
    let Some(n) = spatial_rank(ctx, x, w)? else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let (xd, wd) = (dims_or_unknown(x, n + 2), dims_or_unknown(w, n + 2));
    check_channels(xd[1], wd[1], group, || {
        format!("X {x} has {} channels but W {w} expects {} per group × group {group}", xd[1], wd[1])
    })?;
    if wd[0].as_static().is_some_and(|m| m % group != 0) {
        return Err(format!("W {w}: output channels {} are not divisible by group {group}", wd[0]));
    }
    check_bias(ctx, wd[0])?;
    let win = Window::parse(ctx, n, Some(&wd[2..]))?;
    let mut out = vec![xd[0], wd[0]];
    for i in 0..n {
        out.push(win.out_dim(i, xd[i + 2])?);
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}

/// ConvTranspose: `X [N, C, D...]`, `W [C, M/group, k...]`, optional `B [M]` → `[N, M, out...]`.
/// A given `output_shape` (length n, or n+2 with a leading `N, C`) fixes the spatial dims.
pub fn conv_transpose(ctx: &InferCtx<'_>) -> InferResult {
    let group = check_conv_operands(ctx)?;
    let (x, w) = (ctx.input(0)?, ctx.input(1)?);
    let Some(n) = spatial_rank(ctx, x, w)? else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let (xd, wd) = (dims_or_unknown(x, n + 2), dims_or_unknown(w, n + 2));
    check_channels(xd[1], wd[0], 1, || format!("X {x} has {} channels but W {w} expects {}", xd[1], wd[0]))?;
    if wd[0].as_static().is_some_and(|c| c % group != 0) {
        return Err(format!("W {w}: input channels {} are not divisible by group {group}", wd[0]));
    }
    let m = scale_dim(wd[1], group)?;
    check_bias(ctx, m)?;
    let win = Window::parse(ctx, n, Some(&wd[2..]))?;
    let out_pad = ints_attr(ctx, "output_padding", n, 0, 0)?;
    for (i, &p) in out_pad.iter().enumerate() {
        if p >= win.strides[i] && p >= win.dilations[i] {
            return Err(format!("attribute `output_padding` = {out_pad:?}: {p} must be less than stride or dilation"));
        }
    }
    let mut out = vec![xd[0], m];
    if let Some(os) = ctx.attrs.ints("output_shape") {
        let spatial = if os.len() == n + 2 { &os[2..] } else { os };
        if spatial.len() != n || spatial.iter().any(|&d| d < 1) {
            return Err(format!("attribute `output_shape` = {os:?} must hold {n} positive spatial sizes"));
        }
        out.extend(spatial.iter().map(|&d| Dim::Static(d as u64)));
    } else {
        for i in 0..n {
            out.push(win.transposed_out_dim(i, xd[i + 2], out_pad[i])?);
        }
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}

/// `core.conv`: `onnx.Conv`'s inference after checking the activation attributes.
pub fn core_conv(ctx: &InferCtx<'_>) -> InferResult {
    Activation::from_attrs(ctx.attrs)?;
    conv(ctx)
}

/// `core.conv_transpose`: `onnx.ConvTranspose`'s inference after checking the activation attributes.
pub fn core_conv_transpose(ctx: &InferCtx<'_>) -> InferResult {
    Activation::from_attrs(ctx.attrs)?;
    conv_transpose(ctx)
}

/// An integer attribute that must be ≥ 1 (default 1).
fn positive(ctx: &InferCtx<'_>, name: &str) -> Result<u64, String> {
    match ctx.int(name, 1) {
        v if v >= 1 => Ok(v as u64),
        v => Err(format!("attribute `{name}` = {v} must be ≥ 1")),
    }
}

/// The DeformConv operands as `(name, type)`, present ones only.
fn deform_operands<'a>(ctx: &InferCtx<'a>) -> Vec<(&'static str, &'a TensorType)> {
    let names = ["X", "W", "offset", "B", "mask"];
    names.iter().enumerate().filter_map(|(i, &n)| ctx.opt_input(i).map(|t| (n, t))).collect()
}

/// Number of spatial axes of DeformConv, from the ranks of X, W, offset, mask or `kernel_shape`.
fn deform_spatial_rank(ctx: &InferCtx<'_>) -> Result<Option<usize>, String> {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    let mut rank = None;
    for (name, t) in deform_operands(ctx) {
        expect_same(t, name, x.dtype, "X")?;
        let Some(r) = t.rank().filter(|_| name != "B") else { continue };
        if r < 3 {
            return Err(format!("{name} {} must have rank ≥ 3 (N, C and at least one spatial axis)", t.shape));
        }
        if rank.is_some_and(|q| q != r) {
            return Err(format!("{name} {} must have the same rank as X, W and offset", t.shape));
        }
        rank = Some(r);
    }
    Ok(rank.map(|r| r - 2).or_else(|| ctx.attrs.ints("kernel_shape").map(<[i64]>::len)))
}

/// Error if the static dims `a` and `b` differ.
fn check_eq(a: Dim, b: Dim, msg: impl FnOnce() -> String) -> Result<(), String> {
    match (a, b) {
        (Dim::Static(p), Dim::Static(q)) if p != q => Err(msg()),
        _ => Ok(()),
    }
}

/// DeformConv: `X [N, C, D...]`, `W [oC, C/group, k...]`, `offset [N, og·∏k·n, o...]`,
/// optional `B [oC]` and `mask [N, og·∏k, o...]` → `[N, oC, o...]` (output sizes as Conv).
pub fn deform_conv(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let Some(n) = deform_spatial_rank(ctx)? else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let (group, og) = (positive(ctx, "group")?, positive(ctx, "offset_group")?);
    let (w, off) = (ctx.input(1)?, ctx.input(2)?);
    let (xd, wd, od) = (dims_or_unknown(x, n + 2), dims_or_unknown(w, n + 2), dims_or_unknown(off, n + 2));
    let per_group = wd[1].as_static().and_then(|c| c.checked_mul(group));
    check_eq(xd[1], per_group.map_or(Dim::Unknown, Dim::Static), || {
        format!("X {} has {} channels but W {} expects {} per group × group {group}", x.shape, xd[1], w.shape, wd[1])
    })?;
    if wd[0].as_static().is_some_and(|m| m % group != 0) {
        return Err(format!("W {}: output channels {} are not divisible by group {group}", w.shape, wd[0]));
    }
    if xd[1].as_static().is_some_and(|c| c % og != 0) {
        return Err(format!("X {}: channels {} are not divisible by offset_group {og}", x.shape, xd[1]));
    }
    if let Some(b) = ctx.opt_input(3) {
        if b.dims().is_some_and(|d| d.len() != 1 || !d[0].compatible(wd[0])) {
            return Err(format!("B {} must have shape [{}] (one value per output channel)", b.shape, wd[0]));
        }
    }
    let win = Window::parse(ctx, n, Some(&wd[2..]))?;
    let taps: Option<u64> = win.kernel.iter().try_fold(og, |acc, k| k.and_then(|k| acc.checked_mul(k)));
    let batch = merge_dims(xd[0], od[0], || format!("X {} and offset {} disagree on N", x.shape, off.shape))?;
    let mut out = vec![batch, wd[0]];
    for i in 0..n {
        let o = win.out_dim(i, xd[i + 2])?;
        out.push(merge_dims(o, od[i + 2], || {
            format!("offset {} does not match the output size {o} on axis {i}", off.shape)
        })?);
    }
    let want = taps.and_then(|t| t.checked_mul(n as u64)).map_or(Dim::Unknown, Dim::Static);
    check_eq(od[1], want, || {
        format!("offset {} must have {want} channels (offset_group × kernel taps × {n})", off.shape)
    })?;
    if let Some(m) = ctx.opt_input(4) {
        let md = dims_or_unknown(m, n + 2);
        let want = taps.map_or(Dim::Unknown, Dim::Static);
        let bad = || format!("mask {} must have shape [N, {want}, output spatial dims...]", m.shape);
        check_eq(md[1], want, bad)?;
        for (i, &d) in md.iter().enumerate().filter(|&(i, _)| i != 1) {
            out[i] = merge_dims(out[i], d, bad)?;
        }
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}

/// Col2Im: input `[N, C*prod(block_shape), L]`, i64 `image_shape`, `block_shape` →
/// `[N, C, image_shape...]` (dims from constant operands, else unknown).
pub fn col2im(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    for (i, name) in [(1, "image_shape"), (2, "block_shape")] {
        same_type(ctx.input(i)?, name, DType::I64)?;
    }
    if x.rank().is_some_and(|r| r != 3) {
        return Err(format!("input {x} must be 3-D [N, C*prod(block_shape), L]"));
    }
    let xd = x.dims().map_or_else(|| vec![Dim::Unknown; 3], <[Dim]>::to_vec);
    let image = ctx.const_ints(1);
    let n = match (&image, ctx.input(1)?.dims()) {
        (Some(v), _) => v.len(),
        (None, Some([Dim::Static(k)])) => *k as usize,
        _ => return Ok(vec![TensorType::unranked(x.dtype)]),
    };
    let c = match ctx.const_ints(2) {
        Some(b) if b.len() != n || b.iter().any(|&k| k < 1) => {
            return Err(format!("`block_shape` = {b:?} must hold {n} positive sizes"))
        }
        Some(b) => dim_div(xd[1], b.iter().product::<i64>() as u64, "channel dim")?,
        None => Dim::Unknown,
    };
    let mut out = vec![xd[0], c];
    match image {
        Some(v) if v.iter().any(|&d| d < 1) => return Err(format!("`image_shape` = {v:?} must be positive")),
        Some(v) => out.extend(v.iter().map(|&d| Dim::Static(d as u64))),
        None => out.extend(vec![Dim::Unknown; n]),
    }
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}
