//! GridSample over any spatial rank (up to [`MAX_RANK`]), computed in f64
//! and stored once, as the reference interpreter does (denormalized
//! coordinates are rounded to f32 first, like the ONNX reference).

use crate::strided::numel;

/// The most spatial axes [`grid_sample`] takes.
pub const MAX_RANK: usize = 4;

/// How GridSample interpolates.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GridMode {
    /// The nearest pixel (ties to even).
    Nearest,
    /// (Bi/tri)linear over 2 taps per axis.
    Linear,
    /// Cubic (a = -0.75) over 4 taps per axis.
    Cubic,
}

/// What GridSample reads outside the input.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GridPadding {
    /// Zeros.
    Zeros,
    /// The nearest border pixel.
    Border,
    /// The input mirrored at the borders.
    Reflection,
}

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

/// Reflect `x` into `[lo, hi]` by the nearer border until it lies inside.
fn reflect(x: f64, lo: f64, hi: f64) -> f64 {
    let span = hi - lo;
    if span <= 0.0 {
        return lo;
    }
    let (dx, from_lo) = if x < lo {
        (lo - x, true)
    } else if x > hi {
        (x - hi, false)
    } else {
        return x;
    };
    let n = (dx / span).trunc();
    let rest = dx - n * span;
    if (n as i64 % 2 == 0) == from_lo {
        lo + rest
    } else {
        hi - rest
    }
}

impl GridSample<'_> {
    /// The valid coordinate range of axis `i`.
    fn border(&self, i: usize) -> (f64, f64) {
        let d = self.dims[i] as f64;
        if self.align_corners {
            (0.0, d - 1.0)
        } else {
            (-0.5, d - 0.5)
        }
    }

    /// The pixel at integer position `pos` of `plane` (with padding).
    fn pixel(&self, plane: &[f32], pos: &[i64]) -> f64 {
        let mut flat = 0;
        for (i, &p) in pos.iter().enumerate() {
            let d = self.dims[i] as i64;
            let q = match self.padding {
                GridPadding::Zeros if !(0..d).contains(&p) => return 0.0,
                GridPadding::Zeros => p,
                GridPadding::Border => p.clamp(0, d - 1),
                GridPadding::Reflection => {
                    let (lo, hi) = self.border(i);
                    (reflect(p as f64, lo, hi) as i64).clamp(0, d - 1)
                }
            };
            flat = flat * self.dims[i] + q as usize;
        }
        plane[flat] as f64
    }

    /// Unnormalized, padded coordinates (axis order of `dims`) of the grid
    /// point `g` (x first).
    fn coords(&self, g: &[f32], x: &mut [f64]) {
        let r = g.len();
        for i in 0..r {
            let (v, d) = (g[r - 1 - i] as f64, self.dims[i] as f64);
            let v = if self.align_corners { (v + 1.0) / 2.0 * (d - 1.0) } else { ((v + 1.0) * d - 1.0) / 2.0 };
            x[i] = v as f32 as f64;
            if self.mode == GridMode::Nearest {
                x[i] = x[i].round_ties_even();
            }
            let (lo, hi) = self.border(i);
            if x[i] < lo || x[i] > hi {
                x[i] = match self.padding {
                    GridPadding::Border => x[i].clamp(0.0, d - 1.0),
                    GridPadding::Reflection => reflect(x[i], lo, hi),
                    GridPadding::Zeros => x[i],
                } as f32 as f64;
            }
        }
    }

    /// Weighted sum over `taps` per axis starting at `floor(x) + first`.
    fn interpolate(&self, plane: &[f32], x: &[f64], taps: usize, first: i64) -> f64 {
        let r = x.len();
        let (mut base, mut w) = ([0i64; MAX_RANK], [[0f64; 4]; MAX_RANK]);
        for i in 0..r {
            base[i] = x[i].floor() as i64;
            w[i] = weights(self.mode, x[i] - base[i] as f64);
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

/// The tap weights of fraction `t` (2 for linear, 4 for cubic).
fn weights(mode: GridMode, t: f64) -> [f64; 4] {
    if mode != GridMode::Cubic {
        return [1.0 - t, t, 0.0, 0.0];
    }
    let a = -0.75;
    let (t1, s, s1) = (t + 1.0, 1.0 - t, 2.0 - t);
    [
        ((a * t1 - 5.0 * a) * t1 + 8.0 * a) * t1 - 4.0 * a,
        ((a + 2.0) * t - (a + 3.0)) * t * t + 1.0,
        ((a + 2.0) * s - (a + 3.0)) * s * s + 1.0,
        ((a * s1 - 5.0 * a) * s1 + 8.0 * a) * s1 - 4.0 * a,
    ]
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
