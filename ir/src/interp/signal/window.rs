//! The cosine-sum windows (Hann, Hamming, Blackman) and MelWeightMatrix.
//!
//! Values follow the ONNX reference implementation's formulas in f64 and are
//! converted once to `output_datatype` (integer types truncate toward zero, as
//! numpy's `astype` does).

use super::{check_size, scalar_float, scalar_int};
use crate::interp::tensor::real::{attr_ctx, to_tensor_any, IntCast};
use crate::interp::{EvalCtx, Tensor};
use crate::ops::signal::{flag, mel_shape, output_datatype};
use crate::types::DType;
use edgec_numeric::signal::{mel_band, mel_bounds, mel_edge, Window};

type Out = Result<Vec<Tensor>, String>;

const I32_I64: &[DType] = &[DType::I32, DType::I64];

/// A window of `size` values `w(i, N)`, `N = size` if `periodic` (default) else `size - 1`.
fn window(ctx: &EvalCtx<'_>, w: Window) -> Out {
    let dt = output_datatype(&attr_ctx(ctx))?;
    let periodic = flag(ctx.int("periodic", 1), "periodic")?;
    let size = scalar_int(ctx.input(0)?, "size", I32_I64)?;
    if size < 1 {
        return Err(format!("window size is {size}; it must be ≥ 1"));
    }
    check_size(&[usize::try_from(size).unwrap_or(usize::MAX)])?;
    let n = if periodic { size } else { size - 1 } as f64;
    let v: Vec<f64> = (0..size).map(|i| w.value(i as f64, n)).collect();
    Ok(vec![to_tensor_any(dt, vec![v.len()], &v, IntCast::Truncate)?])
}

/// `onnx.HannWindow`: `sin²(π i / N)`. A symmetric window of size 1 is NaN (0/0), as in ONNX.
pub fn hann_window(ctx: &EvalCtx<'_>) -> Out {
    window(ctx, Window::Hann)
}

/// `onnx.HammingWindow`: `α - β cos(2π i / N)` with `α = 25/46`, `β = 1 - α`.
pub fn hamming_window(ctx: &EvalCtx<'_>) -> Out {
    window(ctx, Window::Hamming)
}

/// `onnx.BlackmanWindow`: `0.42 - 0.5 cos(2π i / N) + 0.08 cos(4π i / N)`.
pub fn blackman_window(ctx: &EvalCtx<'_>) -> Out {
    window(ctx, Window::Blackman)
}

/// The `num_mel_bins + 2` band edges as spectrogram bin indices. The mel bounds
/// and step are computed in the hertz operands' precision (f32 unless f64) and the
/// rest in f64, as the ONNX reference's numpy arithmetic does.
fn mel_edges(bins: i64, len: i64, rate: i64, lo: f64, hi: f64, wide: bool) -> Result<Vec<i64>, String> {
    let count = (bins + 2) as usize;
    let bounds = mel_bounds(lo, hi, count, wide);
    (0..count)
        .map(|i| {
            let b = mel_edge(i, bounds, len, rate);
            if !b.is_finite() {
                return Err(format!("mel band edge #{i} is not finite (check the hertz bounds {lo} and {hi})"));
            }
            Ok(b as i64)
        })
        .collect()
}

/// `onnx.MelWeightMatrix`: `[dft_length / 2 + 1, num_mel_bins]` triangular filters
/// with peak 1 between mel-spaced edges of `[lower_edge_hertz, upper_edge_hertz]`.
pub fn mel_weight_matrix(ctx: &EvalCtx<'_>) -> Out {
    let dt = output_datatype(&attr_ctx(ctx))?;
    let bins = scalar_int(ctx.input(0)?, "num_mel_bins", I32_I64)?;
    let len = scalar_int(ctx.input(1)?, "dft_length", I32_I64)?;
    let rate = scalar_int(ctx.input(2)?, "sample_rate", I32_I64)?;
    let (lo_t, hi_t) = (ctx.input(3)?, ctx.input(4)?);
    let (lo, hi) = (scalar_float(lo_t, "lower_edge_hertz")?, scalar_float(hi_t, "upper_edge_hertz")?);
    if lo_t.dtype() != hi_t.dtype() {
        return Err(format!(
            "lower_edge_hertz ({}) and upper_edge_hertz ({}) differ in type",
            lo_t.dtype(),
            hi_t.dtype()
        ));
    }
    let (Some(rows), Some(cols)) = mel_shape(Some(bins), Some(len), Some(rate))? else {
        return Err("MelWeightMatrix arguments are missing".into());
    };
    let (rows, cols) = (usize::try_from(rows).unwrap_or(usize::MAX), usize::try_from(cols).unwrap_or(usize::MAX));
    check_size(&[rows, cols])?;
    let edges = mel_edges(bins, len, rate, lo, hi, lo_t.dtype() == DType::F64)?;
    let mut out = vec![0.0; rows * cols];
    for i in 0..cols {
        let (l, c, h) = (edges[i], edges[i + 1], edges[i + 2]);
        let mut set = |j: i64, v: f64| match usize::try_from(j).ok().filter(|&j| j < rows) {
            Some(j) => {
                out[j * cols + i] = v;
                Ok(())
            }
            None => Err(format!("mel band {i} touches spectrogram bin {j}, outside [0, {rows})")),
        };
        mel_band((l, c, h), &mut set)?;
    }
    Ok(vec![to_tensor_any(dt, vec![rows, cols], &out, IntCast::Truncate)?])
}
