//! GridSample over any spatial rank (up to [`MAX_RANK`]), computed in f64
//! and stored once, as the reference interpreter does (denormalized
//! coordinates are rounded to f32 first, like the ONNX reference).

use crate::strided::numel;
use edgec_numeric::sample::{grid_coord, grid_index, grid_weights};

/// The most spatial axes [`grid_sample`] takes.
pub const MAX_RANK: usize = 4;

pub use edgec_numeric::sample::{GridMode, GridPadding};

/// GridSample parameters: `X [n, c, dims...]`, `grid [n, out..., r]` with
/// `outs = prod(out)` sample points per image.
#[derive(Copy, Clone, Debug)]
pub struct GridSample<'a> {
    /// Batch.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Spatial dims of `X` (`r` of them).
    pub dims: &'a [usize],
    /// Sample points per image.
    pub outs: usize,
    /// Interpolation.
    pub mode: GridMode,
    /// Padding.
    pub padding: GridPadding,
    /// `align_corners`.
    pub align_corners: bool,
}

impl GridSample<'_> {
    /// The pixel at integer position `pos` of `plane` (with padding).
    fn pixel(&self, plane: &[f32], pos: &[i64]) -> f64 {
        let mut flat = 0;
        for (i, &p) in pos.iter().enumerate() {
            let Some(q) = grid_index(p, self.dims[i], self.align_corners, self.padding) else {
                return 0.0;
            };
            flat = flat * self.dims[i] + q;
        }
        plane[flat] as f64
    }

    /// Unnormalized, padded coordinates (axis order of `dims`) of the grid
    /// point `g` (x first).
    fn coords(&self, g: &[f32], x: &mut [f64]) {
        let r = g.len();
        for i in 0..r {
            x[i] = grid_coord(g[r - 1 - i] as f64, self.dims[i], self.align_corners, self.mode, self.padding);
        }
    }

    /// Weighted sum over `taps` per axis starting at `floor(x) + first`.
    fn interpolate(&self, plane: &[f32], x: &[f64], taps: usize, first: i64) -> f64 {
        let r = x.len();
        let (mut base, mut w) = ([0i64; MAX_RANK], [[0f64; 4]; MAX_RANK]);
        for i in 0..r {
            base[i] = x[i].floor() as i64;
            w[i] = grid_weights(self.mode, x[i] - base[i] as f64);
        }
        let (mut k, mut pos) = ([0usize; MAX_RANK], [0i64; MAX_RANK]);
        let mut sum = 0.0;
        for _ in 0..taps.pow(r as u32) {
            let mut weight = 1.0;
            for i in 0..r {
                pos[i] = base[i] + first + k[i] as i64;
                weight *= w[i][k[i]];
            }
            sum += weight * self.pixel(plane, &pos[..r]);
            for a in (0..r).rev() {
                k[a] += 1;
                if k[a] < taps {
                    break;
                }
                k[a] = 0;
            }
        }
        sum
    }
}

/// `GridSample`: `y[b, ch, o] = X[b, ch]` sampled at grid point `o` of
/// image `b` (normalized coordinates in `[-1, 1]`, x first).
pub fn grid_sample(p: &GridSample<'_>, x: &[f32], grid: &[f32], y: &mut [f32]) {
    let r = p.dims.len();
    assert!((1..=MAX_RANK).contains(&r), "grid_sample: {r} spatial axes (1 to {MAX_RANK})");
    let plane = numel(p.dims);
    assert_eq!(x.len(), p.n * p.c * plane, "grid_sample: X holds {} elements", x.len());
    assert_eq!(grid.len(), p.n * p.outs * r, "grid_sample: grid holds {} elements", grid.len());
    assert_eq!(y.len(), p.n * p.c * p.outs, "grid_sample: y holds {} elements", y.len());
    let mut at = [0f64; MAX_RANK];
    for b in 0..p.n {
        for ch in 0..p.c {
            let img = &x[(b * p.c + ch) * plane..(b * p.c + ch + 1) * plane];
            for o in 0..p.outs {
                p.coords(&grid[(b * p.outs + o) * r..(b * p.outs + o + 1) * r], &mut at[..r]);
                let v = match p.mode {
                    GridMode::Nearest => {
                        let mut pos = [0i64; MAX_RANK];
                        (0..r).for_each(|i| pos[i] = at[i] as i64);
                        p.pixel(img, &pos[..r])
                    }
                    GridMode::Linear => p.interpolate(img, &at[..r], 2, 0),
                    GridMode::Cubic => p.interpolate(img, &at[..r], 4, -1),
                };
                y[(b * p.c + ch) * p.outs + o] = v as f32;
            }
        }
    }
}
