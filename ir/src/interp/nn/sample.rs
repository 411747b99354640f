//! Sampling ops: GridSample (N-D) and RoiAlign, following the ONNX reference
//! implementations (`op_grid_sample.py`, `op_roi_align.py`). Both compute in f64
//! and store once; GridSample rounds denormalized coordinates to f32 like the reference.

use super::num::{next_index, to_tensor_any, IntCast};
use crate::interp::{EvalCtx, Tensor};

/// Reflect `x` into `[lo, hi]` by the nearer border until it lies inside.
fn reflect(x: f64, lo: f64, hi: f64) -> f64 {
    let rng = hi - lo;
    if rng <= 0.0 {
        return lo;
    }
    let (dx, from_lo) = if x < lo {
        (lo - x, true)
    } else if x > hi {
        (x - hi, false)
    } else {
        return x;
    };
    let n = (dx / rng).trunc();
    let r = dx - n * rng;
    if (n as i64 % 2 == 0) == from_lo {
        lo + r
    } else {
        hi - r
    }
}

/// GridSample settings for one input.
struct Grid<'a> {
    data: &'a [f64],
    dims: &'a [usize],
    padding: &'a str,
    align: bool,
}

impl Grid<'_> {
    /// `(min, max)` of the valid coordinate range on axis `i`.
    fn border(&self, i: usize) -> (f64, f64) {
        let d = self.dims[i] as f64;
        if self.align {
            (0.0, d - 1.0)
        } else {
            (-0.5, d - 0.5)
        }
    }

    /// The input index an integer position maps to on axis `i` (`None`: zero padding).
    fn index(&self, i: usize, p: i64) -> Option<usize> {
        let d = self.dims[i] as i64;
        match self.padding {
            "zeros" => (0..d).contains(&p).then_some(p as usize),
            "border" => Some(p.clamp(0, d - 1) as usize),
            _ => {
                let (lo, hi) = self.border(i);
                Some((reflect(p as f64, lo, hi) as i64).clamp(0, d - 1) as usize)
            }
        }
    }

    /// The value at integer position `pos` (with padding).
    fn pixel(&self, pos: &[i64]) -> f64 {
        let mut flat = 0;
        for (i, &p) in pos.iter().enumerate() {
            match self.index(i, p) {
                Some(q) => flat = flat * self.dims[i] + q,
                None => return 0.0,
            }
        }
        self.data[flat]
    }

    /// Weighted sum over the taps `(offset from floor(x), weight fn)` of every axis.
    fn interpolate(&self, x: &[f64], taps: usize, weights: impl Fn(f64) -> Vec<f64>, first: i64) -> f64 {
        let r = x.len();
        let base: Vec<i64> = x.iter().map(|v| v.floor() as i64).collect();
        let w: Vec<Vec<f64>> = x.iter().zip(&base).map(|(v, &b)| weights(v - b as f64)).collect();
        let mut k = vec![0; r];
        let shape = vec![taps; r];
        let mut sum = 0.0;
        loop {
            let pos: Vec<i64> = (0..r).map(|i| base[i] + first + k[i] as i64).collect();
            let weight: f64 = (0..r).map(|i| w[i][k[i]]).product();
            sum += weight * self.pixel(&pos);
            if !next_index(&mut k, &shape) {
                return sum;
            }
        }
    }
}

fn cubic_weights(t: f64) -> Vec<f64> {
    let a = -0.75;
    let (t1, s, s1) = (t + 1.0, 1.0 - t, 2.0 - t);
    vec![
        ((a * t1 - 5.0 * a) * t1 + 8.0 * a) * t1 - 4.0 * a,
        ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0,
        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
        ((a * s1 - 5.0 * a) * s1 + 8.0 * a) * s1 - 4.0 * a,
    ]
}

/// `onnx.GridSample`: sample `X [N, C, D...]` at the normalized coordinates of
/// `grid [N, O..., r]` (last axis ordered x, y, z...), any spatial rank, with
/// nearest/linear/cubic modes and zeros/border/reflection padding.
pub fn grid_sample(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, grid) = (ctx.input(0)?, ctx.input(1)?);
    let r = x.rank().checked_sub(2).filter(|&r| r >= 1).ok_or("X must have rank ≥ 3")?;
    if grid.rank() != r + 2 || grid.shape[0] != x.shape[0] || grid.shape[r + 1] != r {
        return Err(format!("grid {:?} must be [N, out..., {r}] for X {:?}", grid.shape, x.shape));
    }
    let (mode, padding, align) =
        (ctx.str("mode", "linear"), ctx.str("padding_mode", "zeros"), ctx.int("align_corners", 0) != 0);
    let (n, c) = (x.shape[0], x.shape[1]);
    let dims = &x.shape[2..];
    if dims.contains(&0) && !grid.is_empty() {
        return Err(format!("cannot sample the empty input {:?}", x.shape));
    }
    let plane: usize = dims.iter().product();
    let outs: usize = grid.shape[1..=r].iter().product();
    let (xv, gv) = (x.to_f64s(), grid.to_f64s());
    let mut out = Vec::with_capacity(n * c * outs);
    for b in 0..n {
        for ch in 0..c {
            let g = Grid { data: &xv[(b * c + ch) * plane..(b * c + ch + 1) * plane], dims, padding, align };
            for o in 0..outs {
                let coords = &gv[(b * outs + o) * r..(b * outs + o + 1) * r];
                out.push(sample_at(&g, coords, mode)?);
            }
        }
    }
    let mut shape = vec![n, c];
    shape.extend(&grid.shape[1..=r]);
    Ok(vec![to_tensor_any(x.dtype(), shape, &out, IntCast::Truncate)?])
}

/// One sample at normalized grid coordinates (x first, i.e. reversed axis order).
fn sample_at(g: &Grid<'_>, coords: &[f64], mode: &str) -> Result<f64, String> {
    let r = coords.len();
    let mut x = vec![0.0; r];
    for i in 0..r {
        let (v, d) = (coords[r - 1 - i], g.dims[i] as f64);
        let v = if g.align { (v + 1.0) / 2.0 * (d - 1.0) } else { ((v + 1.0) * d - 1.0) / 2.0 };
        x[i] = v as f32 as f64;
        if mode == "nearest" {
            x[i] = x[i].round_ties_even();
        }
        let (lo, hi) = g.border(i);
        if x[i] < lo || x[i] > hi {
            x[i] = match g.padding {
                "border" => x[i].clamp(0.0, d - 1.0),
                "reflection" => reflect(x[i], lo, hi),
                _ => x[i],
            } as f32 as f64;
        }
    }
    Ok(match mode {
        "nearest" => g.pixel(&x.iter().map(|&v| v as i64).collect::<Vec<_>>()),
        "linear" => g.interpolate(&x, 2, |t| vec![1.0 - t, t], 0),
        "cubic" => g.interpolate(&x, 4, cubic_weights, -1),
        m => return Err(format!("unknown GridSample mode {m:?}")),
    })
}

/// RoiAlign settings.
struct Roi {
    out_h: usize,
    out_w: usize,
    sampling: i64,
    scale: f64,
    half_pixel: bool,
    max: bool,
}

/// The four bilinear corners `(flat index, weight)` of sample point `(y, x)`, or
/// none if the point lies more than one pixel outside the `h x w` map.
fn corners(y: f64, x: f64, h: usize, w: usize) -> Option<[(usize, f64); 4]> {
    if y < -1.0 || y > h as f64 || x < -1.0 || x > w as f64 {
        return None;
    }
    let (mut y, mut x) = (y.max(0.0), x.max(0.0));
    let (mut yl, mut xl) = (y as usize, x as usize);
    let (yh, xh);
    if yl >= h - 1 {
        (yl, yh, y) = (h - 1, h - 1, (h - 1) as f64);
    } else {
        yh = yl + 1;
    }
    if xl >= w - 1 {
        (xl, xh, x) = (w - 1, w - 1, (w - 1) as f64);
    } else {
        xh = xl + 1;
    }
    let (ly, lx) = (y - yl as f64, x - xl as f64);
    let (hy, hx) = (1.0 - ly, 1.0 - lx);
    Some([(yl * w + xl, hy * hx), (yl * w + xh, hy * lx), (yh * w + xl, ly * hx), (yh * w + xh, ly * lx)])
}

/// Pool one output bin of one ROI over the channel plane `plane`.
fn roi_bin(p: &Roi, plane: &[f64], hw: (usize, usize), roi: [f64; 4], bin: (usize, usize)) -> f64 {
    let off = if p.half_pixel { 0.5 } else { 0.0 };
    let [x1, y1, x2, y2] = roi.map(|v| v * p.scale - off);
    let (mut rw, mut rh) = (x2 - x1, y2 - y1);
    if !p.half_pixel {
        (rw, rh) = (rw.max(1.0), rh.max(1.0));
    }
    let (bh, bw) = (rh / p.out_h as f64, rw / p.out_w as f64);
    let grid =
        |extent: f64, n: usize| if p.sampling > 0 { p.sampling as usize } else { (extent / n as f64).ceil() as usize };
    let (gh, gw) = (grid(rh, p.out_h), grid(rw, p.out_w));
    let count = (gh * gw).max(1) as f64;
    let (mut acc, mut first) = (0.0, true);
    for iy in 0..gh {
        let y = y1 + bin.0 as f64 * bh + (iy as f64 + 0.5) * bh / gh as f64;
        for ix in 0..gw {
            let x = x1 + bin.1 as f64 * bw + (ix as f64 + 0.5) * bw / gw as f64;
            let c = corners(y, x, hw.0, hw.1).unwrap_or([(0, 0.0); 4]);
            if p.max {
                let v = c.iter().map(|&(i, w)| w * plane[i]).fold(f64::NEG_INFINITY, max_plus_zero);
                acc = if first { v } else { max_plus_zero(acc, v) };
                first = false;
            } else {
                acc += c.iter().map(|&(i, w)| w * plane[i]).sum::<f64>();
            }
        }
    }
    if p.max {
        acc
    } else {
        acc / count
    }
}

/// `onnx.RoiAlign` (opset 16+): average or max of bilinear samples per output bin of
/// each ROI `[x1, y1, x2, y2]` (scaled by `spatial_scale`, shifted by half a pixel
/// in `half_pixel` mode). Max mode takes the maximum of the weighted corner values,
/// as the ONNX reference and onnxruntime do.
pub fn roi_align(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, rois, bi) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let [n, c, h, w] = match x.shape[..] {
        [n, c, h, w] if h > 0 && w > 0 => [n, c, h, w],
        _ => return Err(format!("X must be a non-empty 4-D [N, C, H, W] tensor, found {:?}", x.shape)),
    };
    let k = bi.len();
    if rois.shape != [k, 4] || bi.shape != [k] {
        return Err(format!("rois {:?} must be [num_rois, 4] and batch_indices {:?} [num_rois]", rois.shape, bi.shape));
    }
    let p = Roi {
        out_h: super::num::int_at_least(ctx, "output_height", 1, 1)? as usize,
        out_w: super::num::int_at_least(ctx, "output_width", 1, 1)? as usize,
        sampling: super::num::int_at_least(ctx, "sampling_ratio", 0, 0)?,
        scale: ctx.float("spatial_scale", 1.0) as f64,
        half_pixel: ctx.str("coordinate_transformation_mode", "half_pixel") == "half_pixel",
        max: ctx.str("mode", "avg") == "max",
    };
    let (xv, rv) = (x.to_f64s(), rois.to_f64s());
    let mut out = Vec::with_capacity(k * c * p.out_h * p.out_w);
    for (r, &b) in bi.to_i64s().iter().enumerate() {
        let b = usize::try_from(b)
            .ok()
            .filter(|&b| b < n)
            .ok_or_else(|| format!("batch index {b} is out of range [0, {n})"))?;
        let roi = [rv[r * 4], rv[r * 4 + 1], rv[r * 4 + 2], rv[r * 4 + 3]];
        for ch in 0..c {
            let plane = &xv[(b * c + ch) * h * w..(b * c + ch + 1) * h * w];
            for py in 0..p.out_h {
                for px in 0..p.out_w {
                    out.push(roi_bin(&p, plane, (h, w), roi, (py, px)));
                }
            }
        }
    }
    Ok(vec![to_tensor_any(x.dtype(), vec![k, c, p.out_h, p.out_w], &out, IntCast::Truncate)?])
}

/// `max(a, b)` with +0.0 above -0.0 (`f64::max` may return either zero, so
/// the interpreter and the kernels could differ in the sign of a zero bin).
/// Keep in step with its twin in the kernels (`codegen/kernels/src/misc/roi.rs`).
fn max_plus_zero(a: f64, b: f64) -> f64 {
    if a == b {
        if a.is_sign_negative() {
            b
        } else {
            a
        }
    } else {
        a.max(b)
    }
}
