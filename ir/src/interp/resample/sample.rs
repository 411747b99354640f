//! Sampling ops: GridSample (N-D) and RoiAlign, following the ONNX reference
//! implementations (`op_grid_sample.py`, `op_roi_align.py`). Both compute in f64
//! and store once; GridSample rounds denormalized coordinates to f32 like the reference.

use crate::interp::tensor::real::{next_index, to_tensor_any, IntCast};
use crate::interp::{EvalCtx, Tensor};
use edgec_numeric::sample::{grid_coord, grid_index, grid_weights, roi_bin, GridMode, GridPadding, RoiBin};

/// GridSample settings for one input.
struct Grid<'a> {
    data: &'a [f64],
    dims: &'a [usize],
    padding: GridPadding,
    align: bool,
}

impl Grid<'_> {
    /// The value at integer position `pos` (with padding).
    fn pixel(&self, pos: &[i64]) -> f64 {
        let mut flat = 0;
        for (i, &p) in pos.iter().enumerate() {
            match grid_index(p, self.dims[i], self.align, self.padding) {
                Some(q) => flat = flat * self.dims[i] + q,
                None => return 0.0,
            }
        }
        self.data[flat]
    }

    /// Weighted sum over the taps `(offset from floor(x), weight fn)` of every axis.
    fn interpolate(&self, x: &[f64], taps: usize, mode: GridMode, first: i64) -> f64 {
        let r = x.len();
        let base: Vec<i64> = x.iter().map(|v| v.floor() as i64).collect();
        let w: Vec<[f64; 4]> = x.iter().zip(&base).map(|(v, &b)| grid_weights(mode, v - b as f64)).collect();
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

/// `onnx.GridSample`: sample `X [N, C, D...]` at the normalized coordinates of
/// `grid [N, O..., r]` (last axis ordered x, y, z...), any spatial rank, with
/// nearest/linear/cubic modes and zeros/border/reflection padding.
pub fn grid_sample(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (x, grid) = (ctx.input(0)?, ctx.input(1)?);
    let r = x.rank().checked_sub(2).filter(|&r| r >= 1).ok_or("X must have rank ≥ 3")?;
    if grid.rank() != r + 2 || grid.shape[0] != x.shape[0] || grid.shape[r + 1] != r {
        return Err(format!("grid {:?} must be [N, out..., {r}] for X {:?}", grid.shape, x.shape));
    }
    let align = ctx.int("align_corners", 0) != 0;
    let mode = match ctx.str("mode", "linear") {
        "nearest" => GridMode::Nearest,
        "linear" => GridMode::Linear,
        "cubic" => GridMode::Cubic,
        m => return Err(format!("unknown GridSample mode {m:?}")),
    };
    let padding = match ctx.str("padding_mode", "zeros") {
        "zeros" => GridPadding::Zeros,
        "border" => GridPadding::Border,
        "reflection" => GridPadding::Reflection,
        m => return Err(format!("unknown GridSample padding_mode {m:?}")),
    };
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
                out.push(sample_at(&g, coords, mode));
            }
        }
    }
    let mut shape = vec![n, c];
    shape.extend(&grid.shape[1..=r]);
    Ok(vec![to_tensor_any(x.dtype(), shape, &out, IntCast::Truncate)?])
}

/// One sample at normalized grid coordinates (x first, i.e. reversed axis order).
fn sample_at(g: &Grid<'_>, coords: &[f64], mode: GridMode) -> f64 {
    let r = coords.len();
    let x: Vec<f64> = (0..r).map(|i| grid_coord(coords[r - 1 - i], g.dims[i], g.align, mode, g.padding)).collect();
    match mode {
        GridMode::Nearest => g.pixel(&x.iter().map(|&v| v as i64).collect::<Vec<_>>()),
        GridMode::Linear => g.interpolate(&x, 2, mode, 0),
        GridMode::Cubic => g.interpolate(&x, 4, mode, -1),
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
    let p = RoiBin {
        hw: (h, w),
        out_h: crate::interp::tensor::real::int_at_least(ctx, "output_height", 1, 1)? as usize,
        out_w: crate::interp::tensor::real::int_at_least(ctx, "output_width", 1, 1)? as usize,
        sampling: crate::interp::tensor::real::int_at_least(ctx, "sampling_ratio", 0, 0)? as usize,
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
                    out.push(roi_bin(&p, roi, (py, px), |i| plane[i]));
                }
            }
        }
    }
    Ok(vec![to_tensor_any(x.dtype(), vec![k, c, p.out_h, p.out_w], &out, IntCast::Truncate)?])
}
