//! Resize / Upsample: nearest, linear and cubic interpolation along any set
//! of axes, every ONNX coordinate transformation mode, `exclude_outside`,
//! `antialias` and `tf_crop_and_resize` extrapolation. GridSample
//! ([`grid`]), AffineGrid ([`affine`]) and RoiAlign ([`roi`]) are in the
//! submodules.
//!
//! A [`ResizePlan`] is built once, when the model is constructed (it
//! allocates): per resized axis it holds the input indices and weights of
//! every output position, computed in f64 exactly as the interpreter does.
//! [`resize`] then runs without allocating: nearest mode is a gather (also
//! available for any element type through [`resize_nearest`]); linear and
//! cubic modes interpolate one axis at a time, in the given axis order (as the
//! interpreter), each pass a weighted sum of contiguous input rows, with the
//! intermediate results in the caller's scratch buffer
//! ([`ResizePlan::scratch_len`] elements; none when one axis is resized).
//! Interpolation accumulates in f32 (the interpreter: f64).

pub mod affine;
pub mod grid;
pub mod roi;
mod taps;

use crate::strided::numel;
use taps::{axis_taps, AxisTaps, Pick};

pub use edgec_numeric::resize::{CoordMode, NearestMode, ResizeMode};

/// Resize attributes.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ResizeParams {
    /// Interpolation mode.
    pub mode: ResizeMode,
    /// Coordinate transformation mode.
    pub coord: CoordMode,
    /// Rounding of nearest mode.
    pub nearest: NearestMode,
    /// Cubic coefficient `A` (ONNX default -0.75).
    pub cubic_a: f32,
    /// Zero the weights of taps outside the input, then renormalize.
    pub exclude_outside: bool,
    /// Widen linear/cubic filters when downsampling.
    pub antialias: bool,
    /// Value of `tf_crop_and_resize` samples outside the input.
    pub extrapolation: f32,
    /// The roi operand is f32 (its arithmetic is rounded to f32, as the
    /// reference does); false for an f64 roi.
    pub roi_f32: bool,
}

impl Default for ResizeParams {
    /// The ONNX defaults.
    fn default() -> ResizeParams {
        ResizeParams {
            mode: ResizeMode::Nearest,
            coord: CoordMode::HalfPixel,
            nearest: NearestMode::RoundPreferFloor,
            cubic_a: -0.75,
            exclude_outside: false,
            antialias: false,
            extrapolation: 0.0,
            roi_f32: true,
        }
    }
}

/// One resized axis.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ResizeAxis {
    /// The axis.
    pub axis: usize,
    /// Output size.
    pub out: usize,
    /// The scale factor of the coordinate transformation: the `scales`
    /// entry, or `out / in` when resizing to `sizes` (the common factor under
    /// a `keep_aspect_ratio_policy`).
    pub scale: f64,
    /// `(start, end)` of the region of interest (`tf_crop_and_resize`).
    pub roi: Option<(f64, f64)>,
}

impl ResizeAxis {
    /// Resize axis `axis` of size `input` to `out` (the `sizes` operand).
    pub fn sized(axis: usize, input: usize, out: usize) -> ResizeAxis {
        ResizeAxis { axis, out, scale: out as f64 / input as f64, roi: None }
    }
    /// Resize axis `axis` of size `input` by `scale` (the `scales` operand):
    /// the output has `floor(scale * input)` elements.
    pub fn scaled(axis: usize, input: usize, scale: f64) -> ResizeAxis {
        ResizeAxis { axis, out: (scale * input as f64).floor() as usize, scale, roi: None }
    }
}

/// The precomputed taps of one Resize (see the module docs).
#[derive(Clone, Debug)]
pub struct ResizePlan {
    in_shape: Vec<usize>,
    out_shape: Vec<usize>,
    mode: ResizeMode,
    extrapolation: f32,
    /// The axes that change, in the given order.
    axes: Vec<AxisTaps>,
    /// Position in `axes` of each tensor axis.
    plan_pos: Vec<Option<usize>>,
    /// Scratch elements of the two ping-pong buffers of linear/cubic passes.
    bufs: [usize; 2],
}

/// The plan of one Resize of a model with symbolic dims: rebuilt when the
/// input size or the axes change, reused (nothing allocated) while they
/// repeat.
#[derive(Clone, Debug, Default)]
pub struct ResizeSlot {
    key: Option<(Vec<usize>, Vec<ResizeAxis>)>,
    plan: Option<ResizePlan>,
}

impl ResizeSlot {
    /// The plan for resizing `in_shape` along `axes` with `params`.
    pub fn get(&mut self, in_shape: &[usize], axes: &[ResizeAxis], params: &ResizeParams) -> &ResizePlan {
        let same = self.key.as_ref().is_some_and(|(s, a)| s == in_shape && a == axes);
        if !same || self.plan.is_none() {
            self.key = Some((in_shape.to_vec(), axes.to_vec()));
            self.plan = Some(ResizePlan::new(in_shape, axes, params));
        }
        self.plan.get_or_insert_with(|| ResizePlan::new(in_shape, axes, params))
    }
}

/// `|p - q| <= 1e-9 max(|p|, |q|)`.
fn close(p: f64, q: f64) -> bool {
    (p - q).abs() <= 1e-9 * p.abs().max(q.abs())
}

impl ResizePlan {
    /// Plan resizing `in_shape` along `axes` (distinct, `< rank`) with `params`.
    /// Axes whose size, scale and roi leave them unchanged are skipped, as
    /// the interpreter does.
    pub fn new(in_shape: &[usize], axes: &[ResizeAxis], params: &ResizeParams) -> ResizePlan {
        let r = in_shape.len();
        let mut out_shape = in_shape.to_vec();
        let mut plan_pos = vec![None; r];
        let mut taps = Vec::new();
        for a in axes {
            assert!(a.axis < r && out_shape[a.axis] == in_shape[a.axis], "resize: bad or repeated axis {}", a.axis);
            out_shape[a.axis] = a.out;
            let no_roi = a.roi.is_none_or(|(s, e)| close(s, 0.0) && close(e, 1.0));
            let identity = close(a.scale, 1.0) && a.out == in_shape[a.axis] && no_roi;
            if !identity {
                plan_pos[a.axis] = Some(taps.len());
                taps.push(axis_taps(params, a, in_shape[a.axis]));
            }
            // Mark the axis as used even when it is skipped.
            out_shape[a.axis] = a.out;
        }
        let mut shape = in_shape.to_vec();
        let mut bufs = [0, 0];
        for (i, t) in taps.iter().enumerate() {
            shape[t.axis] = t.out;
            if i + 1 < taps.len() {
                bufs[i % 2] = bufs[i % 2].max(numel(&shape));
            }
        }
        let (mode, extrapolation) = (params.mode, params.extrapolation);
        ResizePlan { in_shape: in_shape.to_vec(), out_shape, mode, extrapolation, axes: taps, plan_pos, bufs }
    }

    /// The input shape.
    pub fn in_shape(&self) -> &[usize] {
        &self.in_shape
    }

    /// The output shape.
    pub fn out_shape(&self) -> &[usize] {
        &self.out_shape
    }

    /// Scratch elements [`resize`] needs (0 in nearest mode or when at most
    /// one axis changes).
    pub fn scratch_len(&self) -> usize {
        match self.mode {
            ResizeMode::Nearest => 0,
            _ => self.bufs[0] + self.bufs[1],
        }
    }
}

/// Resize `x` (of `plan.in_shape()`) into `y` (of `plan.out_shape()`);
/// `scratch` holds at least [`ResizePlan::scratch_len`] elements.
pub fn resize(plan: &ResizePlan, x: &[f32], y: &mut [f32], scratch: &mut [f32]) {
    if plan.mode == ResizeMode::Nearest {
        return resize_nearest(plan, x, y, plan.extrapolation, 0.0);
    }
    assert_eq!(x.len(), numel(&plan.in_shape), "resize: x holds {} elements", x.len());
    assert_eq!(y.len(), numel(&plan.out_shape), "resize: y holds {} elements", y.len());
    assert!(scratch.len() >= plan.scratch_len(), "resize: scratch holds {} elements", scratch.len());
    let k = plan.axes.len();
    if k == 0 {
        return y.copy_from_slice(x);
    }
    let (s0, s1) = scratch.split_at_mut(plan.bufs[0]);
    for (i, t) in plan.axes.iter().enumerate() {
        // The shape after passes 0..i: their axes resized, the others not yet.
        let dim = |d: usize| match plan.plan_pos[d] {
            Some(q) if q < i => plan.axes[q].out,
            _ => plan.in_shape[d],
        };
        let r = plan.in_shape.len();
        let dims = ((0..t.axis).map(dim).product(), dim(t.axis), (t.axis + 1..r).map(dim).product());
        let len = dims.0 * t.out * dims.2;
        let (src, dst): (&[f32], &mut [f32]) = match (i, i + 1 == k) {
            (0, true) => (x, &mut *y),
            (0, false) => (x, &mut s0[..len]),
            (i, true) if i % 2 == 1 => (&s0[..], &mut *y),
            (_, true) => (&s1[..], &mut *y),
            (i, false) if i % 2 == 1 => (&s0[..], &mut s1[..len]),
            (_, false) => (&s1[..], &mut s0[..len]),
        };
        interp_axis(t, dims, src, dst, plan.extrapolation);
    }
}

/// One linear/cubic pass: `src` viewed as `[outer, n, inner]` becomes `dst`
/// `[outer, t.out, inner]`, each output row a weighted sum of input rows.
fn interp_axis(t: &AxisTaps, (outer, n, inner): (usize, usize, usize), src: &[f32], dst: &mut [f32], ext: f32) {
    let nt = t.ntaps;
    if inner == 0 || t.out == 0 {
        return;
    }
    if inner == 1 {
        return interp_last_axis(t, n, src, dst, ext);
    }
    for (o, block) in dst.chunks_exact_mut(t.out * inner).enumerate().take(outer) {
        let s = &src[o * n * inner..(o + 1) * n * inner];
        for (j, d) in block.chunks_exact_mut(inner).enumerate() {
            if t.ext[j] {
                d.fill(ext);
                continue;
            }
            let (idx, w) = (&t.idx[j * nt..(j + 1) * nt], &t.w[j * nt..(j + 1) * nt]);
            let row = |i: usize| &s[i * inner..(i + 1) * inner];
            d.iter_mut().zip(row(idx[0])).for_each(|(d, &v)| *d = w[0] * v);
            for (&i, &wk) in idx.iter().zip(w).skip(1) {
                d.iter_mut().zip(row(i)).for_each(|(d, &v)| *d += wk * v);
            }
        }
    }
}

/// [`interp_axis`] along the last axis: each output is a dot product.
fn interp_last_axis(t: &AxisTaps, n: usize, src: &[f32], dst: &mut [f32], ext: f32) {
    let nt = t.ntaps;
    for (s, d) in src.chunks_exact(n).zip(dst.chunks_exact_mut(t.out)) {
        for (j, d) in d.iter_mut().enumerate() {
            let (idx, w) = (&t.idx[j * nt..(j + 1) * nt], &t.w[j * nt..(j + 1) * nt]);
            *d = if t.ext[j] { ext } else { idx.iter().zip(w).map(|(&i, &w)| w * s[i]).sum() };
        }
    }
}

/// Nearest-mode Resize for any element type: `extrapolated` fills samples
/// outside a `tf_crop_and_resize` box, `zero` those whose only tap was
/// excluded (`exclude_outside`). The plan's interpolation mode is ignored.
pub fn resize_nearest<T: Copy>(plan: &ResizePlan, x: &[T], y: &mut [T], extrapolated: T, zero: T) {
    assert_eq!(x.len(), numel(&plan.in_shape), "resize: x holds {} elements", x.len());
    assert_eq!(y.len(), numel(&plan.out_shape), "resize: y holds {} elements", y.len());
    let r = plan.in_shape.len();
    if r == 0 || y.is_empty() {
        return y.copy_from_slice(x);
    }
    let special = |p: Pick| match p {
        Pick::Extrapolate => Some(extrapolated),
        Pick::Zero => Some(zero),
        Pick::Index(_) => None,
    };
    let w = plan.out_shape[r - 1];
    let last = plan.plan_pos[r - 1].map(|q| (q, &plan.axes[q]));
    for (row, dst) in y.chunks_exact_mut(w).enumerate() {
        // Input offset of the row, and the special value of the last plan
        // axis (in plan order) whose pick is special, as the interpreter.
        let (mut rem, mut base, mut stride, mut row_special) = (row, 0, plan.in_shape[r - 1], None::<(usize, T)>);
        for d in (0..r - 1).rev() {
            let o = rem % plan.out_shape[d];
            rem /= plan.out_shape[d];
            let i = match plan.plan_pos[d] {
                None => o,
                Some(q) => match plan.axes[q].pick[o] {
                    Pick::Index(i) => i,
                    p => {
                        if row_special.is_none_or(|(at, _)| q > at) {
                            row_special = special(p).map(|v| (q, v));
                        }
                        0
                    }
                },
            };
            base += i * stride;
            stride *= plan.in_shape[d];
        }
        let src = &x[base..base + plan.in_shape[r - 1]];
        match (last, row_special) {
            (None, None) => dst.copy_from_slice(src),
            (None, Some((_, v))) => dst.fill(v),
            (Some((q, t)), rs) => {
                for (d, &p) in dst.iter_mut().zip(&t.pick) {
                    *d = match (p, rs) {
                        (Pick::Index(i), None) => src[i],
                        (Pick::Index(_), Some((_, v))) => v,
                        (_, Some((at, v))) if at > q => v,
                        (p, _) => special(p).unwrap_or(zero),
                    };
                }
            }
        }
    }
}
