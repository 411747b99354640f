//! Signal processing: the Hann, Hamming and Blackman windows and
//! MelWeightMatrix (`k::signal`), STFT (`k::signal::dft::stft`) and
//! DFT (`k::signal::dft`).
//!
//! The windows', MelWeightMatrix's and STFT's sizes, lengths and steps are
//! read when the model runs and checked against the declared result shape
//! by the kernels (an error naming the op; a panic with that message in a
//! function that returns no `Result`). DFT's length and axis are resolved
//! here when they are constants on static dims, else read and checked the
//! same way.

use super::{const_ints, dims, f32_only, index_operand, try_line, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a window op, MelWeightMatrix, STFT or DFT; `Ok(false)` otherwise.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::HannWindow => window(cx, "Hann")?,
        Opcode::HammingWindow => window(cx, "Hamming")?,
        Opcode::BlackmanWindow => window(cx, "Blackman")?,
        Opcode::MelWeightMatrix => mel(cx)?,
        Opcode::STFT => stft(cx)?,
        Opcode::DFT => dft(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Fail unless operand `i` is an i64 or i32 scalar.
fn int_scalar(cx: &OpCx<'_, '_>, i: usize, what: &str) -> Result<(), String> {
    match cx.in_class(i) {
        Some(Class::I64 | Class::I32) => Ok(()),
        _ => Err(format!("{}: `{what}` must be i64 or i32", cx.op.opcode.name())),
    }
}

/// Fail unless result 0 is a float type (the windows are computed in f64
/// and rounded; integer `output_datatype`s are not supported).
fn float_out(cx: &OpCx<'_, '_>) -> Result<(), String> {
    let c = cx.out_class(0);
    if matches!(c, Class::F32 | Class::F64 | Class::F16 | Class::BF16) {
        Ok(())
    } else {
        Err(format!("{} with output type {} is not supported (floats only)", cx.op.opcode.name(), c.name()))
    }
}

fn window(cx: &mut OpCx<'_, '_>, kind: &str) -> Result<(), String> {
    int_scalar(cx, 0, "size")?;
    float_out(cx)?;
    let periodic = cx.op.attrs.int("periodic").unwrap_or(1) != 0;
    let out = cx.begin(0);
    let size = cx.input(0)?;
    try_line(
        cx,
        format!(
            "k::signal::window(k::signal::Window::{kind}, {periodic}, {size}.first().map_or(0, |&v| v as i64), {out})"
        ),
    );
    Ok(())
}

fn mel(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    for (i, w) in [(0, "num_mel_bins"), (1, "dft_length"), (2, "sample_rate")] {
        int_scalar(cx, i, w)?;
    }
    let hz = cx.in_class(3);
    if !matches!(hz, Some(Class::F32 | Class::F64)) || cx.in_class(4) != hz {
        return Err("MelWeightMatrix: the hertz bounds must both be f32 or both f64".into());
    }
    float_out(cx)?;
    let ys = cx.out_dims(0);
    let [rows, cols] = &ys[..] else { return Err(format!("MelWeightMatrix: result of rank {} is not 2-D", ys.len())) };
    let wide = hz == Some(Class::F64);
    let f = cx.field("Vec<i64>", "Vec::new()".into());
    let out = cx.begin(0);
    let v: Vec<String> = (0..5).map(|i| cx.input(i)).collect::<Result<_, _>>()?;
    cx.line(format!(
        "let p = k::signal::Mel {{ bins: {}[0] as i64, dft_length: {}[0] as i64, sample_rate: {}[0] as i64, lower: {}[0] as f64, upper: {}[0] as f64, wide: {wide} }};",
        v[0], v[1], v[2], v[3], v[4]
    ));
    cx.line(format!("k::rt::grow(&mut self.{f}, k::signal::mel_scratch_len({cols}));"));
    try_line(cx, format!("k::signal::mel_weight_matrix(&p, {rows}, {cols}, &mut self.{f}, {out})"));
    Ok(())
}

fn stft(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    int_scalar(cx, 1, "frame_step")?;
    let xs = cx.in_dims(0);
    let ys = cx.out_dims(0);
    if xs.len() != 3 || ys.len() != 4 || !matches!(xs[2], Sz::Lit(1 | 2)) || ys[3] != Sz::Lit(2) {
        return Err("STFT: the signal must be [batch, length, 1 or 2] and the result [batch, frames, bins, 2]".into());
    }
    if cx.op.operand(2).is_some() && cx.in_class(2) != Some(Class::F32) {
        return Err("STFT: the window must be f32".into());
    }
    if cx.op.operand(3).is_some() {
        int_scalar(cx, 3, "frame_length")?;
    }
    let onesided = cx.op.attrs.int("onesided").unwrap_or(1) != 0;
    let p = format!(
        "k::signal::dft::Stft {{ batch: {}, len: {}, parts: {}, frames: {}, bins: {}, onesided: {onesided} }}",
        xs[0], xs[1], xs[2], ys[1], ys[2]
    );
    let out = cx.begin(0);
    let (x, step) = (cx.input(0)?, cx.input(1)?);
    let w = match cx.op.operand(2) {
        Some(_) => format!("Some({})", cx.input(2)?),
        None => "None".into(),
    };
    let fl = match cx.op.operand(3) {
        Some(_) => format!("{}.first().map(|&v| v as i64)", cx.input(3)?),
        None => "None".into(),
    };
    try_line(cx, format!("k::signal::dft::stft(&{p}, {step}.first().map_or(0, |&v| v as i64), {fl}, {w}, {x}, {out})"));
    Ok(())
}

/// DFT with a constant (or absent) `dft_length` and `axis` on static dims.
fn dft(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    use ir::ops::signal::{dft_axis, dft_check_last, dft_length, dft_out_len, flag};
    f32_only(cx)?;
    let op = cx.op;
    let (xd, yd) = (cx.in_dims(0), cx.out_dims(0));
    let r = xd.len();
    let inverse = flag(op.attrs.int("inverse").unwrap_or(0), "inverse")?;
    let onesided = flag(op.attrs.int("onesided").unwrap_or(0), "onesided")?;
    if r < 2 {
        return Err(format!("DFT: the input {} needs rank >= 2", Sz::array(&xd)));
    }
    if let Some(last) = xd[r - 1].lit() {
        dft_check_last(last as u64, inverse, onesided)?;
    }
    let runtime = [1, 2].iter().any(|&i| cx.op.operand(i).is_some() && cx.in_const(i).is_none());
    let (Some(xs), Some(_), false) = (Sz::all_lit(&xd), Sz::all_lit(&yd), runtime) else {
        return dft_runtime(cx, &xd, &yd, inverse, onesided);
    };
    let given = |i: usize, what: &str| -> Result<Option<i64>, String> {
        match op.operand(i) {
            None => Ok(None),
            Some(_) => match const_ints(cx, i)?.as_slice() {
                [v] => Ok(Some(*v)),
                _ => Err(format!("DFT: `{what}` must be a scalar constant")),
            },
        }
    };
    let a = dft_axis(given(2, "axis")?.or(op.attrs.int("axis")).unwrap_or(-2), r)?;
    let n = dft_length(given(1, "dft_length")?, xs[a] as u64, inverse, onesided)? as usize;
    let out_len = dft_out_len(n as u64, inverse, onesided) as usize;
    let p = format!(
        "k::signal::dft::Dft {{ dims: &{:?}, parts: {}, axis: {a}, n: {n}, out_len: {out_len}, inverse: {inverse}, irfft: {} }}",
        &xs[..r - 1],
        xs[r - 1],
        inverse && onesided
    );
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::signal::dft::dft(&{p}, {x}, {out});"));
    Ok(())
}

/// DFT whose `dft_length` or `axis` is an input, or whose sizes are known
/// when the model runs: read then and checked against the result's shape
/// by `k::signal::dft::dft_checked`.
fn dft_runtime(cx: &mut OpCx<'_, '_>, xs: &[Sz], ys: &[Sz], inverse: bool, onesided: bool) -> Result<(), String> {
    if xs.len() > edgec_kernels::signal::dft::DFT_MAX_RANK {
        return Err(format!("DFT: input {} has too many dims", Sz::array(xs)));
    }
    for i in [1, 2] {
        if cx.op.operand(i).is_some() {
            index_operand(cx, i, if i == 1 { "dft_length" } else { "axis" })?;
        }
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    let len = match cx.op.operand(1) {
        Some(_) => format!("Some({}.first().map_or(0, |&v| v as i64))", cx.input(1)?),
        None => "None".into(),
    };
    let ax = match cx.op.operand(2) {
        Some(_) => format!("{}.first().map_or(i64::MAX, |&v| v as i64)", cx.input(2)?),
        None => cx.op.attrs.int("axis").unwrap_or(-2).to_string(),
    };
    try_line(
        cx,
        format!(
            "k::signal::dft::dft_checked({}, {}, {inverse}, {onesided}, {ax}, {len}, {x}, {out})",
            dims(xs),
            dims(ys)
        ),
    );
    Ok(())
}
