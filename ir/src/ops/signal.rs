//! Shape inference: signal ops (DFT, STFT, the cosine-sum windows and
//! MelWeightMatrix).
//!
//! The argument rules shared with the reference kernels (`interp::signal`) live
//! here too, so inference and evaluation cannot disagree about axes, lengths or
//! output sizes.

use super::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Element types of integer size/length operands (`T2` of DFT/STFT, `T1` of the windows).
const I32_I64: &[DType] = &[DType::I32, DType::I64];

/// Check that operand `i` (if present) is a scalar of one of `allowed`; returns its
/// constant value if known.
fn scalar_operand(ctx: &InferCtx<'_>, i: usize, name: &str, allowed: &[DType]) -> Result<Option<i64>, String> {
    let Some(t) = ctx.opt_input(i) else { return Ok(None) };
    let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
    expect_dtype(t, &format!("`{name}`"), |d| allowed.contains(&d), &names.join(" or "))?;
    if t.rank().is_some_and(|r| r != 0) {
        return Err(format!("`{name}` must be a scalar, found {t}"));
    }
    match ctx.const_ints(i) {
        Some(v) if v.len() == 1 => Ok(Some(v[0])),
        Some(v) => Err(format!("`{name}` must hold one value, found {}", v.len())),
        None => Ok(None),
    }
}

/// Check a float scalar operand.
fn float_scalar<'a>(ctx: &InferCtx<'a>, i: usize, name: &str) -> Result<&'a TensorType, String> {
    let t = ctx.input(i)?;
    expect_dtype(t, &format!("`{name}`"), DType::is_float, "a float type")?;
    if t.rank().is_some_and(|r| r != 0) {
        return Err(format!("`{name}` must be a scalar, found {t}"));
    }
    Ok(t)
}

/// A boolean 0/1 attribute.
pub fn flag(value: i64, name: &str) -> Result<bool, String> {
    match value {
        0 => Ok(false),
        1 => Ok(true),
        v => Err(format!("attribute `{name}` = {v} must be 0 or 1")),
    }
}

/// The DFT axis: the `axis` operand (opset 20), else the `axis` attribute
/// (opsets 17–19), else -2. Valid range `[-r, -2] ∪ [0, r - 2]`; returns it
/// non-negative.
pub fn dft_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    if axis < -r || axis == -1 || axis >= r - 1 {
        return Err(format!("DFT axis {axis} is invalid for rank {rank}: expected [-{r}, -2] or [0, {}]", r - 2));
    }
    Ok((if axis < 0 { axis + r } else { axis }) as usize)
}

/// The DFT length: `dft_length` if given (must be ≥ 1), else the axis size `m`,
/// or `2 * (m - 1)` for the inverse one-sided transform (IRFFT).
pub fn dft_length(given: Option<i64>, m: u64, inverse: bool, onesided: bool) -> Result<u64, String> {
    let n = match given {
        Some(n) => n,
        None if inverse && onesided => 2 * (m as i64 - 1),
        None => m as i64,
    };
    if n < 1 {
        return Err(format!("the DFT length is {n}; it must be ≥ 1"));
    }
    Ok(n as u64)
}

/// Output size along the DFT axis for length `n`: `n / 2 + 1` for the one-sided
/// forward transform (RFFT), else `n`.
pub fn dft_out_len(n: u64, inverse: bool, onesided: bool) -> u64 {
    if onesided && !inverse {
        n / 2 + 1
    } else {
        n
    }
}

/// Check the trailing real/imaginary dim of a DFT input against `onesided`/`inverse`.
pub fn dft_check_last(last: u64, inverse: bool, onesided: bool) -> Result<(), String> {
    if last != 1 && last != 2 {
        return Err(format!("the last dim must be 1 (real) or 2 (complex), found {last}"));
    }
    if onesided && inverse && last != 2 {
        return Err("inverse one-sided DFT (IRFFT) requires complex input (last dim 2)".into());
    }
    if onesided && !inverse && last != 1 {
        return Err("one-sided DFT (RFFT) requires real input (last dim 1)".into());
    }
    Ok(())
}

/// The axis argument of DFT from the operand or the attribute; `Ok(None)` if the
/// operand is present but not a known constant.
fn dft_axis_arg(ctx: &InferCtx<'_>) -> Result<Option<i64>, String> {
    let op = scalar_operand(ctx, 2, "axis", &[DType::I64])?;
    match (ctx.opt_input(2).is_some(), ctx.attrs.int("axis")) {
        (true, Some(_)) => Err("DFT `axis` is given both as an operand and as an attribute".into()),
        (true, None) => Ok(op),
        (false, attr) => Ok(Some(attr.unwrap_or(-2))),
    }
}

/// DFT (opset 20; the opset 17–19 `axis` attribute is accepted too): float input
/// `[..., 1|2]`; output of the input's element type with the axis resized (see
/// [`dft_length`], [`dft_out_len`]) and a last dim of 2, or 1 for IRFFT.
pub fn dft(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_float, "a float type")?;
    let inverse = flag(ctx.int("inverse", 0), "inverse")?;
    let onesided = flag(ctx.int("onesided", 0), "onesided")?;
    let len = scalar_operand(ctx, 1, "dft_length", I32_I64)?;
    let axis = dft_axis_arg(ctx)?;
    let Some(dims) = x.dims() else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let r = dims.len();
    if r < 2 {
        return Err(format!("input {x} must have rank ≥ 2 (the last dim holds real/imaginary parts)"));
    }
    if let Some(last) = dims[r - 1].as_static() {
        dft_check_last(last, inverse, onesided)?;
    }
    let mut out = dims.to_vec();
    out[r - 1] = Dim::Static(if inverse && onesided { 1 } else { 2 });
    let has_len = ctx.opt_input(1).is_some();
    let Some(axis) = axis else {
        if onesided || has_len {
            out[..r - 1].fill(Dim::Unknown);
        }
        return Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))]);
    };
    let a = dft_axis(axis, r)?;
    let n = match (len, dims[a].as_static()) {
        (Some(l), _) => Some(dft_length(Some(l), 0, inverse, onesided)?),
        (None, _) if has_len => None,
        (None, Some(m)) => Some(dft_length(None, m, inverse, onesided)?),
        (None, None) => None,
    };
    out[a] = match n {
        Some(n) => Dim::Static(dft_out_len(n, inverse, onesided)),
        None if has_len || onesided => Dim::Unknown,
        None => dims[a],
    };
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(out))])
}

/// The STFT frame length: `frame_length` if given, else the window length, else
/// the whole signal (as the ONNX reference does); must be ≥ 1 and agree with the window.
pub fn stft_frame_length(frame_length: Option<i64>, window: Option<u64>, signal: u64) -> Result<u64, String> {
    if let (Some(f), Some(w)) = (frame_length, window) {
        if f != w as i64 {
            return Err(format!("frame_length {f} does not match the window length {w}"));
        }
    }
    let n = frame_length.unwrap_or(window.unwrap_or(signal) as i64);
    if n < 1 {
        return Err(format!("the STFT frame length is {n}; it must be ≥ 1"));
    }
    Ok(n as u64)
}

/// The number of STFT frames `1 + (len - frame_length) / frame_step`.
pub fn stft_frames(len: u64, frame_length: u64, step: i64) -> Result<u64, String> {
    if step < 1 {
        return Err(format!("frame_step is {step}; it must be ≥ 1"));
    }
    if len < frame_length {
        return Err(format!("the signal length {len} is shorter than the frame length {frame_length}"));
    }
    Ok(1 + (len - frame_length) / step as u64)
}

/// STFT: float signal `[batch, length, 1|2]`, int scalar `frame_step`, optional
/// 1-D window of the signal's type, optional int scalar `frame_length`; output
/// `[batch, frames, bins, 2]` with `bins = frame_length / 2 + 1` if `onesided` (default 1).
pub fn stft(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "signal", DType::is_float, "a float type")?;
    let onesided = flag(ctx.int("onesided", 1), "onesided")?;
    let step = scalar_operand(ctx, 1, "frame_step", I32_I64)?;
    let fl = scalar_operand(ctx, 3, "frame_length", I32_I64)?;
    let mut wlen = None;
    if let Some(w) = ctx.opt_input(2) {
        if w.dtype != x.dtype {
            return Err(format!("window has element type {}, expected the signal's {}", w.dtype, x.dtype));
        }
        match w.dims() {
            Some([d]) => wlen = Some(d.as_static()),
            Some(_) => return Err(format!("window {w} must be 1-D")),
            None => wlen = Some(None),
        }
    }
    let dims = match x.dims() {
        Some(d) if d.len() != 3 => return Err(format!("signal {x} must have rank 3 [batch, length, 1|2]")),
        Some(d) => d.to_vec(),
        None => vec![Dim::Unknown; 3],
    };
    if let Some(last) = dims[2].as_static().filter(|&l| l != 1 && l != 2) {
        return Err(format!("the signal's last dim must be 1 (real) or 2 (complex), found {last}"));
    }
    let n = match (fl, wlen, dims[1].as_static()) {
        (None, _, _) if ctx.opt_input(3).is_some() => None,
        (Some(f), Some(w), _) => Some(stft_frame_length(Some(f), w, 0)?),
        (Some(f), None, _) => Some(stft_frame_length(Some(f), None, 0)?),
        (None, Some(Some(w)), _) => Some(stft_frame_length(None, Some(w), 0)?),
        (None, None, Some(len)) => Some(stft_frame_length(None, None, len)?),
        _ => None,
    };
    let frames = match (dims[1].as_static(), n, step) {
        (Some(len), Some(n), Some(s)) => Dim::Static(stft_frames(len, n, s)?),
        _ => Dim::Unknown,
    };
    let bins = n.map_or(Dim::Unknown, |n| Dim::Static(if onesided { n / 2 + 1 } else { n }));
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims([dims[0], frames, bins, Dim::Static(2)]))])
}

/// The `output_datatype` attribute (default f32): any numeric type.
pub fn output_datatype(ctx: &InferCtx<'_>) -> Result<DType, String> {
    let dt = ctx.attrs.dtype("output_datatype").unwrap_or(DType::F32);
    if !dt.is_numeric() {
        return Err(format!("output_datatype {dt} is not a numeric type"));
    }
    Ok(dt)
}

/// HannWindow/HammingWindow/BlackmanWindow: int scalar `size` (≥ 1); output
/// `[size]` of `output_datatype`; `periodic` must be 0 or 1.
pub fn window(ctx: &InferCtx<'_>) -> InferResult {
    let dt = output_datatype(ctx)?;
    flag(ctx.int("periodic", 1), "periodic")?;
    let size = scalar_operand(ctx, 0, "size", I32_I64)?;
    let dim = match size {
        Some(s) if s < 1 => return Err(format!("window size is {s}; it must be ≥ 1")),
        Some(s) => Dim::Static(s as u64),
        None => Dim::Unknown,
    };
    Ok(vec![TensorType::new(dt, Shape::from_dims([dim]))])
}

/// MelWeightMatrix: int scalars `num_mel_bins`, `dft_length`, `sample_rate`, float
/// scalars `lower_edge_hertz`, `upper_edge_hertz` of one type; output
/// `[dft_length / 2 + 1, num_mel_bins]` of `output_datatype`.
pub fn mel_weight_matrix(ctx: &InferCtx<'_>) -> InferResult {
    let dt = output_datatype(ctx)?;
    let bins = scalar_operand(ctx, 0, "num_mel_bins", I32_I64)?;
    let len = scalar_operand(ctx, 1, "dft_length", I32_I64)?;
    let rate = scalar_operand(ctx, 2, "sample_rate", I32_I64)?;
    let lo = float_scalar(ctx, 3, "lower_edge_hertz")?;
    let hi = float_scalar(ctx, 4, "upper_edge_hertz")?;
    if lo.dtype != hi.dtype {
        return Err(format!("lower_edge_hertz ({}) and upper_edge_hertz ({}) differ in type", lo.dtype, hi.dtype));
    }
    let (rows, cols) = mel_shape(bins, len, rate)?;
    let d = |v: Option<u64>| v.map_or(Dim::Unknown, Dim::Static);
    Ok(vec![TensorType::new(dt, Shape::from_dims([d(rows), d(cols)]))])
}

/// Validate the MelWeightMatrix integer arguments that are known; returns the
/// known output dims `(dft_length / 2 + 1, num_mel_bins)`.
pub fn mel_shape(bins: Option<i64>, len: Option<i64>, rate: Option<i64>) -> Result<(Option<u64>, Option<u64>), String> {
    if let Some(b) = bins.filter(|&b| b < 0) {
        return Err(format!("num_mel_bins is {b}; it must be ≥ 0"));
    }
    if let Some(l) = len.filter(|&l| l < 1) {
        return Err(format!("dft_length is {l}; it must be ≥ 1"));
    }
    if let Some(r) = rate.filter(|&r| r < 1) {
        return Err(format!("sample_rate is {r}; it must be ≥ 1"));
    }
    Ok((len.map(|l| l as u64 / 2 + 1), bins.map(|b| b as u64)))
}
