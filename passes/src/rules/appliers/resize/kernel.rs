//! One axis of an integer upsampling `onnx.Resize`: the reference's 1-D
//! interpolation taps, and the fixed kernel that reproduces them after a
//! nearest upsample and edge padding.
//!
//! [`Interp::taps`] computes the interpreter's taps with the same functions of
//! the numeric core (`edgec_numeric::resize`, the ONNX reference
//! `op_resize.py`), for upsampling by an integer factor `s` (so `out = s * n`)
//! and every coordinate transformation except `tf_crop_and_resize`. The unit
//! tests compare it with the interpreter.
//!
//! The conv form of one axis is `Y[y] = Σ_u G(u) · X[clamp(floor((y + u) / s), 0, n - 1)]`:
//! nearest upsampling (`U[j] = X[floor(j / s)]`), edge padding (the clamp), then
//! a correlation with the kernel `G`. Its weight on input indices `<= i`
//! (`i < n - 1`) is `Gcdf(s·(i + 1) - y - 1)`, with `Gcdf(k) = Σ_{u <= k} G(u)`.
//! So a Resize axis whose rows `y` have cumulative weights `F_y(i)` has a conv
//! form iff every row sums to 1 and the values `F_y(i)` that land on the same
//! `k = s·(i + 1) - y - 1` agree; `Gcdf`, hence `G`, is then read off directly
//! ([`solve`]). This is exact borders included, and finds the special cases of
//! non-shift-invariant modes too (any mode on an axis of size 1 or 2).

use edgec_numeric::resize::{source_coord, Axis, Filter};
use ir::Attrs;

/// Interpolation mode, coordinate transformation (`tf_crop_and_resize` is
/// not handled: [`Interp::resize`] refuses it) and nearest rounding: the
/// numeric core's, whose formulas [`Interp::taps`] calls.
pub use edgec_numeric::resize::{CoordMode as Ctm, NearestMode as Rounding, ResizeMode as Mode};

/// The interpolation settings of one Resize (or Upsample).
#[derive(Clone, Debug, PartialEq)]
pub struct Interp {
    /// Mode.
    pub mode: Mode,
    /// Coordinate transformation.
    pub ctm: Ctm,
    /// Nearest rounding.
    pub rounding: Rounding,
    /// Cubic coefficient `A` (the f32 attribute widened).
    pub cubic_a: f64,
    /// Taps outside the input get weight 0 and the rest is renormalized.
    pub exclude_outside: bool,
    /// Antialiasing filter (the same taps as without it when upsampling).
    pub antialias: bool,
}

impl Interp {
    /// The settings of an `onnx.Resize` with attributes `a` (the reference's defaults).
    pub fn resize(a: &Attrs) -> Result<Interp, String> {
        let mode = match a.str("mode").unwrap_or("nearest") {
            "nearest" => Mode::Nearest,
            "linear" => Mode::Linear,
            "cubic" => Mode::Cubic,
            m => return Err(format!("unknown mode {m:?}")),
        };
        let ctm = match a.str("coordinate_transformation_mode").unwrap_or("half_pixel") {
            "half_pixel" => Ctm::HalfPixel,
            "half_pixel_symmetric" => Ctm::HalfPixelSymmetric,
            "pytorch_half_pixel" => Ctm::PytorchHalfPixel,
            "align_corners" => Ctm::AlignCorners,
            "asymmetric" => Ctm::Asymmetric,
            "tf_crop_and_resize" => return Err("tf_crop_and_resize samples a region of interest: no conv form".into()),
            m => return Err(format!("unknown coordinate_transformation_mode {m:?}")),
        };
        let rounding = match a.str("nearest_mode").unwrap_or("round_prefer_floor") {
            "round_prefer_floor" => Rounding::RoundPreferFloor,
            "round_prefer_ceil" => Rounding::RoundPreferCeil,
            "floor" => Rounding::Floor,
            "ceil" => Rounding::Ceil,
            m => return Err(format!("unknown nearest_mode {m:?}")),
        };
        let antialias = a.int("antialias").unwrap_or(0) != 0;
        if antialias && mode == Mode::Nearest {
            return Err("antialias is not defined for mode \"nearest\"".into());
        }
        Ok(Interp {
            mode,
            ctm,
            rounding,
            cubic_a: a.float("cubic_coeff_a").unwrap_or(-0.75) as f64,
            exclude_outside: a.int("exclude_outside").unwrap_or(0) != 0,
            antialias,
        })
    }

    /// The settings of an opset-9 `onnx.Upsample`: asymmetric coordinates,
    /// nearest rounding down (it only upsamples here).
    pub fn upsample(a: &Attrs) -> Result<Interp, String> {
        let mode = match a.str("mode").unwrap_or("nearest") {
            "nearest" => Mode::Nearest,
            "linear" => Mode::Linear,
            m => return Err(format!("unknown Upsample mode {m:?}")),
        };
        Ok(Interp {
            mode,
            ctm: Ctm::Asymmetric,
            rounding: Rounding::Floor,
            cubic_a: -0.75,
            exclude_outside: false,
            antialias: false,
        })
    }

    /// The numeric core's filter of these settings.
    fn filter(&self) -> Filter {
        Filter {
            mode: self.mode,
            nearest: self.rounding,
            cubic_a: self.cubic_a,
            antialias: self.antialias,
            exclude_outside: self.exclude_outside,
        }
    }

    /// What output `y` of an axis of `n` inputs scaled by the integer `s` reads:
    /// clamped input indices with their weights (indices may repeat). Nearest
    /// mode reads one index with weight 1, or nothing where `exclude_outside`
    /// removed its only tap (the reference then outputs 0).
    pub fn taps(&self, y: usize, n: usize, s: usize) -> Vec<(usize, f64)> {
        // An integer factor: the output length is exactly s * n.
        let axis = Axis { input: n, out: s * n, scale: s as f64, roi: None };
        let (x, _) = source_coord(self.ctm, &axis, y as f64, |v| v);
        let (start, c) = self.filter().taps(x, s as f64, n);
        let len = c.len() as i64;
        let clamp = |i: i64| i.clamp(0, n as i64 - 1) as usize;
        let taps = (start..start + len).zip(c).map(|(i, w)| (clamp(i), w));
        if self.mode == Mode::Nearest {
            taps.filter(|&(_, w)| w != 0.0).take(1).map(|(i, _)| (i, 1.0)).collect()
        } else {
            taps.collect()
        }
    }
}

/// The 1-D kernel `G` of one axis: `weights[j]` applies at offset
/// `u = first + j`, i.e. `Y[y] = Σ_j weights[j] · U[clamp(y + first + j)]` over the
/// nearest-upsampled axis `U`. Invariant: the weights sum to 1 and the first and
/// last are not 0 (a pure shift is `[1.0]` with `first != 0`).
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel1d {
    /// Weights.
    pub weights: Vec<f64>,
    /// Offset of the first weight.
    pub first: i64,
}

impl Kernel1d {
    /// The kernel that keeps the upsampled axis as it is.
    pub fn identity() -> Kernel1d {
        Kernel1d { weights: vec![1.0], first: 0 }
    }
    /// True if the kernel is a single tap (identity or a shift): no convolution needed.
    pub fn is_delta(&self) -> bool {
        self.weights == [1.0]
    }
    /// Offset of the last weight.
    pub fn last(&self) -> i64 {
        self.first + self.weights.len() as i64 - 1
    }
    /// Edge padding before the axis (for taps at negative offsets).
    pub fn pad_before(&self) -> i64 {
        (-self.first).max(0)
    }
    /// Edge padding after the axis (for taps at positive offsets).
    pub fn pad_after(&self) -> i64 {
        self.last().max(0)
    }
    /// Elements to drop at the start of the padded axis (all taps at positive offsets).
    pub fn crop_start(&self) -> i64 {
        self.first.max(0)
    }
    /// Elements to drop at the end of the padded axis (all taps at negative offsets).
    pub fn crop_end(&self) -> i64 {
        (-self.last()).max(0)
    }
}

/// Why an axis has no conv form.
#[derive(Clone, Debug, PartialEq)]
pub enum Inexact {
    /// Output `y`'s weights sum to `sum`, not 1 (nearest mode with `exclude_outside`
    /// reading outside the input outputs 0).
    RowSum {
        /// Output position.
        y: usize,
        /// Its weight sum.
        sum: f64,
    },
    /// Two outputs need different kernels (the mode is not shift-invariant here).
    Conflict,
}

/// Weights closer than this are equal; kernel taps smaller than this are dropped.
const TOL: f64 = 1e-9;

/// Required values of `Gcdf` over `[kmin, kmin + len)`: explicit values, and
/// coverage counts of the strided runs `lo, lo + s, ..., hi` that must be 0 or 1
/// (difference arrays with stride `s`).
struct Cdf {
    kmin: i64,
    stride: usize,
    point: Vec<Option<f64>>,
    zeros: Vec<i64>,
    ones: Vec<i64>,
}

impl Cdf {
    fn new(kmin: i64, len: usize, stride: usize) -> Cdf {
        let d = vec![0; len + stride];
        Cdf { kmin, stride, point: vec![None; len], zeros: d.clone(), ones: d }
    }
    fn set(&mut self, k: i64, v: f64) -> bool {
        let slot = &mut self.point[(k - self.kmin) as usize];
        match *slot {
            Some(old) if (old - v).abs() > TOL => false,
            _ => {
                *slot = Some(v);
                true
            }
        }
    }
    /// `Gcdf` must be 0 (or 1) at `lo, lo + s, ..., hi` (`hi - lo` a multiple of `s`).
    fn run(&mut self, lo: i64, hi: i64, one: bool) {
        if lo <= hi {
            let d = if one { &mut self.ones } else { &mut self.zeros };
            d[(lo - self.kmin) as usize] += 1;
            d[(hi - self.kmin) as usize + self.stride] -= 1;
        }
    }
    /// `Gcdf` at every k, or `None` on a contradiction.
    fn resolve(&self) -> Option<Vec<f64>> {
        let s = self.stride;
        let (mut z, mut o) = (vec![0; self.point.len()], vec![0; self.point.len()]);
        let mut last = 0.0;
        let mut out = Vec::with_capacity(self.point.len());
        for (j, p) in self.point.iter().enumerate() {
            z[j] = self.zeros[j] + if j >= s { z[j - s] } else { 0 };
            o[j] = self.ones[j] + if j >= s { o[j - s] } else { 0 };
            let v = match (z[j] > 0, o[j] > 0, *p) {
                (true, true, _) => return None,
                (true, false, p) if p.is_none_or(|p| p.abs() <= TOL) => 0.0,
                (false, true, p) if p.is_none_or(|p| (p - 1.0).abs() <= TOL) => 1.0,
                (false, false, Some(p)) => p,
                (false, false, None) => last,
                _ => return None,
            };
            out.push(v);
            last = v;
        }
        Some(out)
    }
}

/// The kernel reproducing `it` on an axis of `n` inputs upsampled by `s >= 1`
/// (see the module docs), or why there is none.
pub fn solve(it: &Interp, n: usize, s: usize) -> Result<Kernel1d, Inexact> {
    let m = n * s;
    let (ni, si) = (n as i64, s as i64);
    // Every k = s(i + 1) - y - 1 with 0 <= i <= n - 2 and 0 <= y < m.
    let kmin = si - si * ni;
    let len = (2 * si * (ni - 1)).max(0) as usize;
    let mut cdf = Cdf::new(kmin, len, s);
    for y in 0..m {
        let mut row = it.taps(y, n, s);
        row.sort_by_key(|&(i, _)| i);
        let sum: f64 = row.iter().map(|&(_, w)| w).sum();
        if (sum - 1.0).abs() > TOL {
            return Err(Inexact::RowSum { y, sum });
        }
        let nonzero = || row.iter().filter(|&&(_, w)| w != 0.0).map(|&(i, _)| i as i64);
        let (lo, hi) = (nonzero().min().unwrap_or(0), nonzero().max().unwrap_or(0));
        let k = |i: i64| si * (i + 1) - y as i64 - 1;
        // F_y(i) = 0 below lo, 1 from hi on, partial sums in between.
        cdf.run(k(0), k(lo - 1), false);
        cdf.run(k(hi), k(ni - 2), true);
        let mut f = 0.0;
        for i in lo..hi {
            f += row.iter().filter(|&&(j, _)| j as i64 == i).map(|&(_, w)| w).sum::<f64>();
            if !cdf.set(k(i), f) {
                return Err(Inexact::Conflict);
            }
        }
    }
    let gcdf = cdf.resolve().ok_or(Inexact::Conflict)?;
    // G(u) for u in [kmin, kmin + len]: Gcdf is 0 below kmin and 1 from kmin + len on.
    let g: Vec<f64> = (0..=len)
        .map(|j| {
            let hi = gcdf.get(j).copied().unwrap_or(1.0);
            let lo = if j == 0 { 0.0 } else { gcdf[j - 1] };
            let d = hi - lo;
            if d.abs() <= TOL {
                0.0
            } else {
                d
            }
        })
        .collect();
    let first = g.iter().position(|&w| w != 0.0).unwrap_or(0);
    let last = g.iter().rposition(|&w| w != 0.0).unwrap_or(0);
    Ok(Kernel1d { weights: g[first..=last].to_vec(), first: first as i64 + kmin })
}
