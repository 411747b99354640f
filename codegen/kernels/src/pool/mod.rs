//! Pooling over NCHW (and N-D `[N, C, spatial..]`) tensors: max, average
//! (with or without counting the padding), Lp, and the global forms of max
//! and average; MaxPool's `Indices` output ([`indices`]) and MaxUnpool
//! ([`unpool`]).
//!
//! The caller passes the output sizes, so `ceil_mode` and `auto_pad` are
//! resolved at compile time. Semantics follow the ONNX ops (and edgec's
//! interpreter): MaxPool takes the first tap and then any strictly greater
//! one (padding never wins; a NaN tap is skipped unless it comes first; a
//! window with no tap inside the input gives 0). AveragePool divides by the
//! taps inside the input, plus, with `count_include_pad`, the taps inside
//! the explicit padding — never those past the end padding (which
//! `ceil_mode` can create). Windows are strided and dilated.

mod halving;
pub mod indices;
pub mod unpool;

/// A 2-D pooling window. Invariants (asserted): kernel, stride, dilation ≥ 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Pool2d {
    /// Batch size.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Input height.
    pub h: usize,
    /// Input width.
    pub w: usize,
    /// Window height.
    pub kh: usize,
    /// Window width.
    pub kw: usize,
    /// Vertical stride.
    pub stride_h: usize,
    /// Horizontal stride.
    pub stride_w: usize,
    /// Padding above.
    pub pad_top: usize,
    /// Padding on the left.
    pub pad_left: usize,
    /// Padding below (only counts for `count_include_pad`).
    pub pad_bottom: usize,
    /// Padding on the right (only counts for `count_include_pad`).
    pub pad_right: usize,
    /// Vertical dilation.
    pub dil_h: usize,
    /// Horizontal dilation.
    pub dil_w: usize,
    /// Output height.
    pub out_h: usize,
    /// Output width.
    pub out_w: usize,
}

impl Pool2d {
    /// The same window as an N-D pool.
    fn axes(&self) -> [Axis; 2] {
        [
            Axis {
                input: self.h,
                k: self.kh,
                s: self.stride_h,
                d: self.dil_h,
                begin: self.pad_top,
                end: self.pad_bottom,
                out: self.out_h,
            },
            Axis {
                input: self.w,
                k: self.kw,
                s: self.stride_w,
                d: self.dil_w,
                begin: self.pad_left,
                end: self.pad_right,
                out: self.out_w,
            },
        ]
    }
}

/// One spatial axis of a pooling window.
#[derive(Copy, Clone, Debug)]
struct Axis {
    input: usize,
    k: usize,
    s: usize,
    d: usize,
    begin: usize,
    end: usize,
    out: usize,
}

impl Axis {
    /// Where tap `k` of output `o` lands: `Ok(input index)`, or `Err(counted)`
    /// outside the input, `counted` if inside the explicit padding.
    #[inline]
    fn tap(&self, o: usize, k: usize) -> Result<usize, bool> {
        let p = (o * self.s + k * self.d) as isize - self.begin as isize;
        if p < 0 {
            Err(true)
        } else if (p as usize) < self.input {
            Ok(p as usize)
        } else {
            Err((p as usize) < self.input + self.end)
        }
    }
}

/// Max or average reduction of one window.
#[derive(Copy, Clone, Debug)]
enum Reduce {
    Max,
    Avg { include_pad: bool },
}

/// A reduction over the taps of one window.
trait WindowReduce: Copy {
    /// Reduce the taps of one window of `plane`; `at(i)` gives the input tap
    /// `i` of the window or `Err(counted)`.
    fn reduce(self, plane: &[f32], taps: usize, at: impl Fn(usize) -> Result<usize, bool>) -> f32;
}

impl WindowReduce for Reduce {
    fn reduce(self, plane: &[f32], taps: usize, at: impl Fn(usize) -> Result<usize, bool>) -> f32 {
        match self {
            Reduce::Max => {
                let mut best: Option<f32> = None;
                for i in 0..taps {
                    if let Ok(off) = at(i) {
                        let v = plane[off];
                        if best.is_none_or(|b| v > b) {
                            best = Some(v);
                        }
                    }
                }
                best.unwrap_or(0.0)
            }
            Reduce::Avg { include_pad } => {
                let (mut sum, mut count) = (0.0f32, 0usize);
                for i in 0..taps {
                    match at(i) {
                        Ok(off) => (sum, count) = (sum + plane[off], count + 1),
                        Err(true) if include_pad => count += 1,
                        Err(_) => {}
                    }
                }
                sum / count as f32
            }
        }
    }
}

/// LpPool's `(Σ |x|^p)^(1/p)` over the taps inside the input (padding
/// contributes 0), in f32 in tap order as the interpreter.
#[derive(Copy, Clone, Debug)]
struct Lp(f32);

impl WindowReduce for Lp {
    fn reduce(self, plane: &[f32], taps: usize, at: impl Fn(usize) -> Result<usize, bool>) -> f32 {
        let sum: f32 = (0..taps).filter_map(|i| at(i).ok()).map(|off| plane[off].abs().powf(self.0)).sum();
        sum.powf(1.0 / self.0)
    }
}

fn check_axes(axes: &[Axis]) {
    assert!(axes.iter().all(|a| a.k >= 1 && a.s >= 1 && a.d >= 1), "bad pooling window {axes:?}");
}

/// Pool every plane of `x` (`nc` planes) into `y` over N-D `axes`.
fn pool<R: WindowReduce>(axes: &[Axis], r: R, nc: usize, x: &[f32], y: &mut [f32]) {
    check_axes(axes);
    let is: usize = axes.iter().map(|a| a.input).product();
    let os: usize = axes.iter().map(|a| a.out).product();
    let taps: usize = axes.iter().map(|a| a.k).product();
    assert_eq!(x.len(), nc * is, "pool input length");
    assert_eq!(y.len(), nc * os, "pool output length");
    for (plane, out) in x.chunks_exact(is.max(1)).zip(y.chunks_exact_mut(os.max(1))).take(nc) {
        for (o, yv) in out.iter_mut().enumerate() {
            *yv = r.reduce(plane, taps, |t| {
                let (mut o, mut t, mut off, mut stride, mut counted) = (o, t, 0, 1, true);
                let mut inside = true;
                for a in axes.iter().rev() {
                    match a.tap(o % a.out, t % a.k) {
                        Ok(p) => off += p * stride,
                        Err(c) => (inside, counted) = (false, counted && c),
                    }
                    (o, t, stride) = (o / a.out, t / a.k, stride * a.input);
                }
                if inside {
                    Ok(off)
                } else {
                    Err(counted)
                }
            });
        }
    }
}

/// 2-D max pooling: `x` `[n, c, h, w]` → `y` `[n, c, out_h, out_w]`.
pub fn max_pool2d(p: &Pool2d, x: &[f32], y: &mut [f32]) {
    pool2d(p, Reduce::Max, x, y);
}

/// 2-D average pooling: `x` `[n, c, h, w]` → `y` `[n, c, out_h, out_w]`.
pub fn avg_pool2d(p: &Pool2d, count_include_pad: bool, x: &[f32], y: &mut [f32]) {
    pool2d(p, Reduce::Avg { include_pad: count_include_pad }, x, y);
}

/// The 2-D pool: rows of output, each window row-by-row, with the tap
/// arithmetic hoisted out of the inner loops.
fn pool2d(p: &Pool2d, r: Reduce, x: &[f32], y: &mut [f32]) {
    let [ay, ax] = p.axes();
    check_axes(&[ay, ax]);
    let (is, os) = (p.h * p.w, p.out_h * p.out_w);
    assert_eq!(x.len(), p.n * p.c * is, "pool input length");
    assert_eq!(y.len(), p.n * p.c * os, "pool output length");
    if os == 0 {
        return;
    }
    if halving::takes(p) {
        return halving::pool(p, r, x, y);
    }
    // Planes split across threads: each is pooled as on one thread.
    let planes = p.n * p.c;
    let per = crate::threads::part_len(planes, 1, planes * os * p.kh * p.kw);
    crate::threads::for_each_chunk(y, per * os, 0, &|i, yc, _| {
        let q = Pool2d { n: 1, c: yc.len() / os, ..*p };
        pool2d_planes(&q, r, ay, ax, &x[i * per * is..][..q.c * is], yc);
    });
}

impl Axis {
    /// For output `o`: the taps inside the input (`lo..hi`, contiguous since
    /// positions grow with the tap) and how many taps count for an average
    /// with `count_include_pad` (inside the input or the explicit padding).
    #[inline]
    fn window(&self, o: usize) -> (usize, usize, usize) {
        let start = (o * self.s) as isize - self.begin as isize;
        let (d, n) = (self.d as isize, self.input as isize);
        // First tap with start + k·d >= lim, clamped to 0..=k.
        let first_at = |lim: isize| -> usize {
            if start >= lim {
                0
            } else {
                ((lim - start + d - 1) / d).min(self.k as isize) as usize
            }
        };
        let (lo, hi) = (first_at(0), first_at(n));
        let counted = first_at(n + self.end as isize) - first_at(-(self.begin as isize));
        (lo, hi.max(lo), counted)
    }
}

crate::multiversion! {
    /// The planes of a 2-D pool. Interior columns (every column tap inside)
    /// are reduced a whole row segment at a time, tap by tap, in the
    /// interpreter's tap order (so maxima and sums are the same); the border
    /// windows are walked over their inside taps one output at a time.
    fn pool2d_planes(p: &Pool2d, r: Reduce, ay: Axis, ax: Axis, x: &[f32], y: &mut [f32]) {
        let (is, os) = (p.h * p.w, p.out_h * p.out_w);
        let (clo, chi) = interior_cols(ax);
        let mut phases = [0f32; ROW_MAX];
        for (plane, out) in x.chunks_exact(is.max(1)).zip(y.chunks_exact_mut(os)).take(p.n * p.c) {
            for (oy, orow) in out.chunks_exact_mut(p.out_w).enumerate() {
                let win = ay.window(oy);
                for ox in (0..clo).chain(chi..p.out_w) {
                    orow[ox] = border(p, r, ay, ax, plane, (oy, ox), win);
                }
                if chi > clo {
                    interior_row(p, r, (ay, ax), plane, oy, win, &mut orow[clo..chi], &mut phases);
                }
            }
        }
    }
}

/// Output columns whose every tap lands inside the input.
fn interior_cols(ax: Axis) -> (usize, usize) {
    let lo = ax.begin.div_ceil(ax.s).min(ax.out);
    let lim = (ax.input + ax.begin).saturating_sub((ax.k - 1) * ax.d);
    let hi = if lim == 0 { 0 } else { ((lim - 1) / ax.s + 1).min(ax.out) };
    (lo, hi.max(lo))
}

/// One border output: its inside taps one by one.
#[inline(always)]
fn border(
    p: &Pool2d,
    r: Reduce,
    ay: Axis,
    ax: Axis,
    plane: &[f32],
    (oy, ox): (usize, usize),
    (ylo, yhi, yc): (usize, usize, usize),
) -> f32 {
    let (xlo, xhi, xc) = ax.window(ox);
    let (y0, x0) = ((oy * ay.s) as isize - ay.begin as isize, (ox * ax.s) as isize - ax.begin as isize);
    let at = |ky: usize, kx: usize| ((y0 + (ky * ay.d) as isize) as usize) * p.w + (x0 + (kx * ax.d) as isize) as usize;
    match r {
        Reduce::Max => {
            let mut best: Option<f32> = None;
            for ky in ylo..yhi {
                for kx in xlo..xhi {
                    let v = plane[at(ky, kx)];
                    if best.is_none_or(|b| v > b) {
                        best = Some(v);
                    }
                }
            }
            best.unwrap_or(0.0)
        }
        Reduce::Avg { include_pad } => {
            let mut sum = 0.0f32;
            for ky in ylo..yhi {
                for kx in xlo..xhi {
                    sum += plane[at(ky, kx)];
                }
            }
            let count = if include_pad { yc * xc } else { (yhi - ylo) * (xhi - xlo) };
            sum / count as f32
        }
    }
}

/// Fold one tap into an output: the first tap sets it, later ones take the
/// maximum (`v > o`, as the interpreter compares) or add.
#[inline(always)]
fn fold_one(r: Reduce, first: bool, o: f32, v: f32) -> f32 {
    match (r, first) {
        (_, true) => v,
        (Reduce::Max, false) => {
            if v > o {
                v
            } else {
                o
            }
        }
        (Reduce::Avg { .. }, false) => o + v,
    }
}

/// [`fold_one`] over contiguous taps (a loop the compiler vectorizes).
#[inline(always)]
fn fold_taps(r: Reduce, first: bool, out: &mut [f32], src: &[f32]) {
    match (r, first) {
        (_, true) => out.copy_from_slice(src),
        (Reduce::Max, false) => out.iter_mut().zip(src).for_each(|(o, &v)| *o = if v > *o { v } else { *o }),
        (Reduce::Avg { .. }, false) => out.iter_mut().zip(src).for_each(|(o, &v)| *o += v),
    }
}

/// Split `row` into its `s` column phases (phase `q`: columns `q, q + s, ...`),
/// stored one after another in `out`; stride 2 as a pairwise de-interleave.
#[inline(always)]
fn split_phases(row: &[f32], s: usize, out: &mut [f32]) {
    if s == 2 {
        let (even, odd) = out[..row.len()].split_at_mut(row.len().div_ceil(2));
        for ((pair, e), o) in row.chunks_exact(2).zip(even.iter_mut()).zip(odd.iter_mut()) {
            (*e, *o) = (pair[0], pair[1]);
        }
        if row.len() % 2 == 1 {
            even[row.len() / 2] = row[row.len() - 1];
        }
        return;
    }
    let mut at = 0;
    for q in 0..s {
        for &v in row.iter().skip(q).step_by(s) {
            out[at] = v;
            at += 1;
        }
    }
}

/// Most input columns a row may have to be split into stride phases on the stack.
const ROW_MAX: usize = 4096;

/// The interior outputs `out` (columns `clo..`) of output row `oy`.
#[inline(always)]
fn interior_row(
    p: &Pool2d,
    r: Reduce,
    (ay, ax): (Axis, Axis),
    plane: &[f32],
    oy: usize,
    (ylo, yhi, yc): (usize, usize, usize),
    out: &mut [f32],
    phases: &mut [f32; ROW_MAX],
) {
    let clo = interior_cols(ax).0;
    let n = out.len();
    let mut first = true;
    for ky in ylo..yhi {
        let iy = oy * ay.s + ky * ay.d - ay.begin;
        let row = &plane[iy * p.w..(iy + 1) * p.w];
        let split = ax.s > 1 && p.w <= ROW_MAX;
        if split {
            split_phases(row, ax.s, phases);
        }
        for kx in 0..ax.k {
            // Input column of output column c: c·s + kx·d - begin.
            let first_col = clo * ax.s + kx * ax.d - ax.begin;
            if split {
                let (q, base) = (first_col % ax.s, first_col / ax.s);
                let start: usize = (0..q).map(|t| (p.w - t).div_ceil(ax.s)).sum();
                fold_taps(r, first, out, &phases[start + base..start + base + n]);
            } else if ax.s == 1 {
                fold_taps(r, first, out, &row[first_col..first_col + n]);
            } else {
                for (o, &v) in out.iter_mut().zip(row[first_col..].iter().step_by(ax.s)) {
                    *o = fold_one(r, first, *o, v);
                }
            }
            first = false;
        }
    }
    if let Reduce::Avg { include_pad } = r {
        let count = if include_pad { yc * ax.k } else { (yhi - ylo) * ax.k };
        out.iter_mut().for_each(|o| *o /= count as f32);
    }
    if first {
        // No row of the window is inside the input (possible with ceil_mode).
        out.fill(if matches!(r, Reduce::Max) { 0.0 } else { f32::NAN });
    }
}

/// An N-D pooling window over `[n, c, spatial..]`. Invariants (asserted):
/// every Vec has the spatial rank `r` except `pads` (`2r`: begin.., end..).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolNd {
    /// Batch size.
    pub n: usize,
    /// Channels.
    pub c: usize,
    /// Input spatial sizes.
    pub spatial: Vec<usize>,
    /// Window sizes.
    pub kernel: Vec<usize>,
    /// Strides.
    pub stride: Vec<usize>,
    /// Padding: `r` begin values, then `r` end values.
    pub pads: Vec<usize>,
    /// Dilations.
    pub dilation: Vec<usize>,
    /// Output spatial sizes.
    pub out: Vec<usize>,
}

impl PoolNd {
    /// Axis `i` of the window.
    fn axis(&self, i: usize) -> Axis {
        let r = self.spatial.len();
        Axis {
            input: self.spatial[i],
            k: self.kernel[i],
            s: self.stride[i],
            d: self.dilation[i],
            begin: self.pads[i],
            end: self.pads[r + i],
            out: self.out[i],
        }
    }
    fn run<R: WindowReduce>(&self, r: R, x: &[f32], y: &mut [f32]) {
        let rank = self.spatial.len();
        let lens = [self.kernel.len(), self.stride.len(), self.dilation.len(), self.out.len()];
        assert!(lens.iter().all(|&l| l == rank) && self.pads.len() == 2 * rank, "bad {self:?}");
        // Up to 8 spatial axes without allocating; more is not a real model.
        let mut axes = [Axis { input: 1, k: 1, s: 1, d: 1, begin: 0, end: 0, out: 1 }; 8];
        assert!(rank <= axes.len(), "pooling over {rank} spatial axes (at most 8 supported)");
        for (i, a) in axes.iter_mut().enumerate().take(rank) {
            *a = self.axis(i);
        }
        pool(&axes[..rank], r, self.n * self.c, x, y);
    }
}

/// N-D max pooling: `x` `[n, c, spatial..]` → `y` `[n, c, out..]`.
pub fn max_pool_nd(p: &PoolNd, x: &[f32], y: &mut [f32]) {
    p.run(Reduce::Max, x, y);
}

/// N-D average pooling: `x` `[n, c, spatial..]` → `y` `[n, c, out..]`.
pub fn avg_pool_nd(p: &PoolNd, count_include_pad: bool, x: &[f32], y: &mut [f32]) {
    p.run(Reduce::Avg { include_pad: count_include_pad }, x, y);
}

/// N-D Lp pooling (`p ≥ 1`): `x` `[n, c, spatial..]` → `y` `[n, c, out..]`,
/// `(Σ |x|^p)^(1/p)` over the taps of each window inside the input.
pub fn lp_pool_nd(p: &PoolNd, exponent: u32, x: &[f32], y: &mut [f32]) {
    assert!(exponent >= 1, "lp_pool: p = {exponent} must be at least 1");
    p.run(Lp(exponent as f32), x, y);
}

/// Planes and plane size of a rank ≥ 3 `[n, c, spatial..]` shape.
fn planes(shape: &[usize], x: &[f32], y: &[f32]) -> (usize, usize) {
    assert!(shape.len() >= 3, "global pooling needs [N, C, spatial..], got {shape:?}");
    let (nc, plane) = (shape[0] * shape[1], shape[2..].iter().product::<usize>());
    assert_eq!(x.len(), nc * plane, "global pool input length");
    assert_eq!(y.len(), nc, "global pool output length (one value per [N, C] plane)");
    (nc, plane)
}

crate::multiversion! {
    /// Mean over all spatial axes: `x` of `shape` `[n, c, spatial..]` → `y`
    /// `[n, c, 1, ..]` (`n·c` values; an empty plane gives NaN).
    pub fn global_avg_pool(shape: &[usize], x: &[f32], y: &mut [f32]) {
        let (nc, plane) = planes(shape, x, y);
        for (i, yv) in y.iter_mut().enumerate().take(nc) {
            *yv = lane_sum(&x[i * plane..(i + 1) * plane]) / plane as f32;
        }
    }
}

/// Partial sums per lane of `SUM_LANES` (independent adds, so they
/// vectorize and overlap), then the lanes and the tail in order.
#[inline(always)]
fn lane_sum(v: &[f32]) -> f32 {
    let mut acc = [0f32; SUM_LANES];
    let mut chunks = v.chunks_exact(SUM_LANES);
    for c in &mut chunks {
        for (a, &x) in acc.iter_mut().zip(c) {
            *a += x;
        }
    }
    acc.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>()
}

/// Lanes of [`lane_sum`]: four AVX-512 vectors.
const SUM_LANES: usize = 64;

/// Maximum over all spatial axes (NaN propagates; an empty plane gives −∞).
pub fn global_max_pool(shape: &[usize], x: &[f32], y: &mut [f32]) {
    let (nc, plane) = planes(shape, x, y);
    for (i, yv) in y.iter_mut().enumerate().take(nc) {
        *yv = x[i * plane..(i + 1) * plane].iter().fold(f32::NEG_INFINITY, |m, &v| {
            if m.is_nan() || v.is_nan() {
                f32::NAN
            } else {
                m.max(v)
            }
        });
    }
}

/// Max pooling of quantized integers as [`max_pool_ord`] computes it; a 2-D
/// window runs [`max_pool2d_ints`] (the same maxima, taken row-wise).
pub fn max_pool_int<T: PoolInt>(planes: usize, win: &crate::conv::window::Window<'_>, x: &[T], y: &mut [T]) {
    win.check();
    if win.input.len() != 2 {
        return max_pool_ord(planes, win, x, y);
    }
    let (is, os) = (win.in_size(), win.out_size());
    assert_eq!(x.len(), planes * is, "max_pool_int: x holds {} values", x.len());
    assert_eq!(y.len(), planes * os, "max_pool_int: y holds {} values", y.len());
    if os == 0 || is == 0 {
        return y.fill(T::default());
    }
    let (k, s, d, pads, out) = (win.kernel, win.strides, win.dilations, win.pads, win.output);
    let p = Pool2d {
        n: 1,
        c: planes,
        h: win.input[0],
        w: win.input[1],
        kh: k[0],
        kw: k[1],
        stride_h: s[0],
        stride_w: s[1],
        pad_top: pads[0],
        pad_left: pads[1],
        pad_bottom: 0,
        pad_right: 0,
        dil_h: d[0],
        dil_w: d[1],
        out_h: out[0],
        out_w: out[1],
    };
    max_pool2d_ints(&p, x, y);
}

/// An integer element max pooling takes.
pub trait PoolInt: crate::quant::QInt + PartialOrd + Default {}
impl<T: crate::quant::QInt + PartialOrd + Default> PoolInt for T {}

crate::multiversion! {
    /// 2-D max pooling of integers, one output row at a time: the maximum
    /// of the window's input rows over every column (whole-row vector
    /// maxima), then of the window's columns (interior outputs as shifted
    /// whole-row maxima picked by the stride, borders one by one). Padding
    /// never wins; a window with no input element gives 0, as
    /// [`max_pool_ord`].
    fn max_pool2d_ints<T: PoolInt>(p: &Pool2d, x: &[T], y: &mut [T]) {
        let [ay, ax] = p.axes();
        check_axes(&[ay, ax]);
        let (is, os, lowest) = (p.h * p.w, p.out_h * p.out_w, T::from_f32(T::MIN));
        let (clo, chi) = interior_cols(ax);
        let span = (ax.k - 1) * ax.d;
        let (mut vm, mut hm) = (vec![lowest; p.w], vec![lowest; p.w]);
        for (plane, out) in x.chunks_exact(is).zip(y.chunks_exact_mut(os)) {
            for (oy, orow) in out.chunks_exact_mut(p.out_w).enumerate() {
                let (ylo, yhi, _) = ay.window(oy);
                if ylo == yhi {
                    orow.fill(T::default());
                    continue;
                }
                let y0 = (oy * ay.s) as isize - ay.begin as isize;
                vm.fill(lowest);
                for ky in ylo..yhi {
                    let iy = (y0 + (ky * ay.d) as isize) as usize;
                    max_into(&mut vm, &plane[iy * p.w..(iy + 1) * p.w]);
                }
                if chi > clo {
                    // hm[c] = max over the window's columns starting at c.
                    let n = p.w - span;
                    hm[..n].copy_from_slice(&vm[..n]);
                    for kx in 1..ax.k {
                        max_into(&mut hm[..n], &vm[kx * ax.d..kx * ax.d + n]);
                    }
                    let first = clo * ax.s - ax.begin;
                    for (o, &v) in orow[clo..chi].iter_mut().zip(hm[first..n].iter().step_by(ax.s)) {
                        *o = v;
                    }
                }
                for ox in (0..clo).chain(chi..p.out_w) {
                    let (xlo, xhi, _) = ax.window(ox);
                    let x0 = (ox * ax.s) as isize - ax.begin as isize;
                    let taps = (xlo..xhi).map(|kx| vm[(x0 + (kx * ax.d) as isize) as usize]);
                    orow[ox] = taps.fold(None, |b: Option<T>, v| if b.is_none_or(|b| v > b) { Some(v) } else { b }).unwrap_or_default();
                }
            }
        }
    }
}

/// `acc[i] = max(acc[i], row[i])`.
#[inline(always)]
fn max_into<T: PartialOrd + Copy>(acc: &mut [T], row: &[T]) {
    for (m, &v) in acc.iter_mut().zip(row) {
        // A select, not a conditional store: it compiles to a vector max.
        let a = *m;
        *m = if v > a { v } else { a };
    }
}

/// N-D max pooling of 8-bit integers (or any ordered element):
/// `x [planes, in..]` → `y [planes, out..]`; padding never wins and a
/// window with no input element gives `T::default()` (0), as in the
/// reference interpreter.
pub fn max_pool_ord<T: Copy + PartialOrd + Default>(
    planes: usize,
    win: &crate::conv::window::Window<'_>,
    x: &[T],
    y: &mut [T],
) {
    win.check();
    let (is, ks, os) = (win.in_size(), win.taps(), win.out_size());
    assert_eq!(x.len(), planes * is, "max_pool_ord: x holds {} values", x.len());
    assert_eq!(y.len(), planes * os, "max_pool_ord: y holds {} values", y.len());
    for pl in 0..planes {
        let plane = &x[pl * is..(pl + 1) * is];
        for o in 0..os {
            let mut best: Option<T> = None;
            for k in 0..ks {
                if let Some(off) = win.offset(o, k) {
                    let v = plane[off];
                    if best.is_none_or(|b| v > b) {
                        best = Some(v);
                    }
                }
            }
            y[pl * os + o] = best.unwrap_or_default();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conv::window::Window;

    /// The 2-D integer path equals the N-D ordered walk: padding, strides,
    /// dilation, windows past the bottom-right edge and all-padding windows.
    #[test]
    fn integer_max_pool_2d_equals_the_ordered_walk() {
        // (input, kernel, strides, dilations, pads, output)
        type Case = ([usize; 2], [usize; 2], [usize; 2], [usize; 2], [usize; 2], [usize; 2]);
        let cases: [Case; 7] = [
            ([6, 8], [2, 2], [2, 2], [1, 1], [0, 0], [3, 4]),
            ([9, 41], [3, 3], [2, 2], [1, 1], [1, 1], [5, 21]),
            ([7, 40], [2, 3], [1, 3], [1, 2], [0, 2], [6, 14]),
            ([7, 9], [3, 3], [2, 2], [1, 1], [1, 1], [4, 5]),
            ([5, 5], [3, 2], [1, 2], [2, 1], [2, 0], [5, 3]),
            ([4, 6], [2, 3], [3, 3], [1, 1], [0, 1], [2, 3]),
            ([3, 3], [1, 1], [1, 1], [1, 1], [2, 2], [5, 5]),
        ];
        let mut s = 12345u32;
        for (input, kernel, strides, dilations, pads, output) in cases {
            let win = Window {
                input: &input,
                kernel: &kernel,
                output: &output,
                strides: &strides,
                dilations: &dilations,
                pads: &pads,
            };
            let planes = 3;
            let x: Vec<i8> = (0..planes * input[0] * input[1])
                .map(|_| {
                    s = s.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (s >> 16) as i8
                })
                .collect();
            let (mut a, mut b) = (vec![0i8; planes * output[0] * output[1]], vec![1i8; planes * output[0] * output[1]]);
            max_pool_int(planes, &win, &x, &mut a);
            max_pool_ord(planes, &win, &x, &mut b);
            assert_eq!(a, b, "{win:?}");
            let xu: Vec<u8> = x.iter().map(|&v| v as u8).collect();
            let (mut a, mut b) = (vec![0u8; a.len()], vec![1u8; a.len()]);
            max_pool_int(planes, &win, &xu, &mut a);
            max_pool_ord(planes, &win, &xu, &mut b);
            assert_eq!(a, b, "{win:?}");
        }
    }
}
