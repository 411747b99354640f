//! Sliding-window geometry (Conv, ConvTranspose, DeformConv, and the pool
//! and quant families' pooling and integer convolutions), derived from the
//! same attribute parsing as shape inference so kernel and inferred output
//! sizes always agree.

use crate::interp::tensor::real::attr_ctx;
use crate::interp::EvalCtx;
use crate::ops::conv::{AutoPad, Window};
use crate::types::Dim;

/// Resolved window parameters for `n` spatial axes of a concrete input.
#[derive(Clone, Debug)]
pub struct Geom {
    /// Kernel size per axis.
    pub kernel: Vec<usize>,
    /// Stride per axis.
    pub strides: Vec<usize>,
    /// Dilation per axis.
    pub dilations: Vec<usize>,
    /// Padding before each axis (negative for ConvTranspose output cropping).
    pub begin: Vec<i64>,
    /// Padding after each axis.
    pub end: Vec<i64>,
    /// Input size per axis.
    pub input: Vec<usize>,
    /// Output size per axis.
    pub output: Vec<usize>,
}

/// Parse the window attributes; `w_kernel` are the weight's spatial dims for conv.
pub fn parse(ctx: &EvalCtx<'_>, n: usize, w_kernel: Option<&[usize]>) -> Result<Window, String> {
    let wk: Option<Vec<Dim>> = w_kernel.map(|k| k.iter().map(|&d| Dim::Static(d as u64)).collect());
    let win = Window::parse(&attr_ctx(ctx), n, wk.as_deref())?;
    if win.kernel.iter().any(|k| k.is_none_or(|k| k == 0)) {
        return Err(format!("kernel sizes {:?} must be known and positive", win.kernel));
    }
    Ok(win)
}

fn kernel_of(win: &Window) -> Vec<usize> {
    win.kernel.iter().map(|k| k.unwrap_or(1) as usize).collect()
}

/// Geometry of a forward sliding window (Conv, pooling) over spatial sizes `input`.
pub fn forward(ctx: &EvalCtx<'_>, input: &[usize], w_kernel: Option<&[usize]>) -> Result<Geom, String> {
    let n = input.len();
    let win = parse(ctx, n, w_kernel)?;
    let kernel = kernel_of(&win);
    let mut g = Geom {
        strides: win.strides.iter().map(|&s| s as usize).collect(),
        dilations: win.dilations.iter().map(|&d| d as usize).collect(),
        begin: vec![0; n],
        end: vec![0; n],
        input: input.to_vec(),
        output: Vec::with_capacity(n),
        kernel,
    };
    for (i, &size) in input.iter().enumerate() {
        let out = match win.out_dim(i, Dim::Static(size as u64))? {
            Dim::Static(o) => o as usize,
            d => return Err(format!("spatial axis {i}: cannot compute the output size ({d})")),
        };
        g.output.push(out);
        let ek = g.dilations[i] * (g.kernel[i] - 1) + 1;
        let total = ((out.max(1) - 1) * g.strides[i] + ek).saturating_sub(size) as i64;
        (g.begin[i], g.end[i]) = match win.auto_pad {
            AutoPad::NotSet => (win.pads[i] as i64, win.pads[i + n] as i64),
            AutoPad::Valid => (0, 0),
            AutoPad::SameUpper => (total / 2, total - total / 2),
            AutoPad::SameLower => (total - total / 2, total / 2),
        };
    }
    Ok(g)
}

/// Geometry of ConvTranspose: `output` holds the result's spatial sizes (from
/// `output_shape` or the ONNX formula) and `begin` the padding cropped from the front.
pub fn transposed(ctx: &EvalCtx<'_>, input: &[usize], w_kernel: &[usize]) -> Result<Geom, String> {
    let n = input.len();
    let win = parse(ctx, n, Some(w_kernel))?;
    let out_pad = match ctx.attrs.ints("output_padding") {
        Some(p) if p.len() == n => p.to_vec(),
        Some(p) => return Err(format!("attribute `output_padding` = {p:?} must have {n} values")),
        None => vec![0; n],
    };
    let os = ctx.attrs.ints("output_shape").map(|os| if os.len() == n + 2 { &os[2..] } else { os });
    let mut g = Geom {
        kernel: kernel_of(&win),
        strides: win.strides.iter().map(|&s| s as usize).collect(),
        dilations: win.dilations.iter().map(|&d| d as usize).collect(),
        begin: vec![0; n],
        end: vec![0; n],
        input: input.to_vec(),
        output: Vec::with_capacity(n),
    };
    for i in 0..n {
        let (s, ek) = (g.strides[i] as i64, (g.dilations[i] * (g.kernel[i] - 1) + 1) as i64);
        let full = s * (input[i] as i64 - 1) + out_pad[i] + ek; // size before cropping pads
        let same = matches!(win.auto_pad, AutoPad::SameUpper | AutoPad::SameLower);
        let out = match os {
            Some(os) if os.len() == n => os[i],
            Some(os) => return Err(format!("attribute `output_shape` = {os:?} must have {n} spatial values")),
            None if same => input[i] as i64 * s,
            None => full - win.pads[i] as i64 - win.pads[i + n] as i64,
        };
        if out < 1 {
            return Err(format!("spatial axis {i}: output size {out} is not positive"));
        }
        let total = full - out;
        g.begin[i] = match win.auto_pad {
            AutoPad::SameUpper => total.div_euclid(2),
            AutoPad::SameLower => total - total.div_euclid(2),
            _ => win.pads[i] as i64,
        };
        g.end[i] = total - g.begin[i];
        g.output.push(out as usize);
    }
    Ok(g)
}
