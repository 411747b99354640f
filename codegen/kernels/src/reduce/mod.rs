//! Reductions over a set of axes (`Reduce*`, `core.reduce`) and
//! `ArgMax`/`ArgMin` along one axis; the exact integer and bool reductions
//! are in [`exact`], CumSum and CumProd in [`cum`].
//!
//! Every reduction accumulates in f64 and rounds once to the element type
//! (f32, f64, F16 or BF16), so results
//! match the interpreter (which also accumulates in f64) to the last bit in
//! practice; contiguous groups are folded with eight partial accumulators
//! (vectorized), the others in row-major order. Empty groups
//! give ONNX's identities: sum 0, product 1, max `-inf`, min `+inf`, mean
//! NaN, log-sum(-exp) `-inf`.
//!
//! Layout-wise there are three loops: groups that are contiguous runs (the
//! reduced axes are trailing), groups reduced "across lanes" (the last axis
//! is kept: a chunk of adjacent outputs is accumulated together, reading
//! contiguous memory), and a general strided walk.

pub mod cum;
pub mod exact;

use crate::lowp::Real;
use crate::strided::{axes_offset, axes_space, numel, Space};

pub use edgec_numeric::reduce::Reduce;

/// One reduction as an f64 fold (`shift` is the group's largest finite
/// element for shifted folds, else 0).
trait Fold {
    const INIT: f64;
    const SHIFTED: bool = false;
    fn step(acc: f64, x: f64, shift: f64) -> f64;
    /// Combine two partial folds.
    fn merge(a: f64, b: f64) -> f64 {
        a + b
    }
    fn finish(acc: f64, _n: usize, _shift: f64) -> f64 {
        acc
    }
}

macro_rules! fold {
    ($name:ident, $init:expr, |$a:ident, $x:ident, $s:ident| $step:expr
        $(, finish |$fa:ident, $fn:ident, $fs:ident| $fin:expr)? $(, merge |$ma:ident, $mb:ident| $merge:expr)?
        $(, shifted $sh:expr)?) => {
        struct $name;
        impl Fold for $name {
            const INIT: f64 = $init;
            $(const SHIFTED: bool = $sh;)?
            #[inline]
            fn step($a: f64, $x: f64, $s: f64) -> f64 {
                $step
            }
            $(
                #[inline]
                fn finish($fa: f64, $fn: usize, $fs: f64) -> f64 {
                    $fin
                }
            )?
            $(
                #[inline]
                fn merge($ma: f64, $mb: f64) -> f64 {
                    $merge
                }
            )?
        }
    };
}

/// NaN-propagating f64 maximum / minimum steps.
#[inline]
fn max_step(a: f64, x: f64) -> f64 {
    if x > a || x.is_nan() {
        x
    } else {
        a
    }
}
#[inline]
fn min_step(a: f64, x: f64) -> f64 {
    if x < a || x.is_nan() {
        x
    } else {
        a
    }
}

fold!(SumF, 0.0, |a, x, _s| a + x);
fold!(MeanF, 0.0, |a, x, _s| a + x, finish | a, n, _s | a / n as f64);
fold!(LogSumF, 0.0, |a, x, _s| a + x, finish | a, _n, _s | a.ln());
fold!(L1F, 0.0, |a, x, _s| a + x.abs());
fold!(SumSquareF, 0.0, |a, x, _s| a + x * x);
fold!(L2F, 0.0, |a, x, _s| a + x * x, finish | a, _n, _s | a.sqrt());
fold!(ProdF, 1.0, |a, x, _s| a * x, merge | a, b | a * b);
fold!(MaxF, f64::NEG_INFINITY, |a, x, _s| max_step(a, x), merge | a, b | max_step(a, b));
fold!(MinF, f64::INFINITY, |a, x, _s| min_step(a, x), merge | a, b | min_step(a, b));
fold!(LogSumExpF, 0.0, |a, x, s| a + (x - s).exp(), finish |a, _n, s| a.ln() + s, shifted true);

/// The largest finite value (0 if there is none).
fn finite_max<T: Real>(vals: impl Iterator<Item = T>) -> f64 {
    let m = vals.map(T::to_f64).filter(|v| v.is_finite()).fold(f64::NEG_INFINITY, f64::max);
    if m.is_finite() {
        m
    } else {
        0.0
    }
}

/// Reduce one group of `n` values.
fn fold_group<F: Fold, T: Real>(vals: impl Iterator<Item = T> + Clone, n: usize) -> T {
    let shift = if F::SHIFTED { finite_max(vals.clone()) } else { 0.0 };
    T::from_f64(F::finish(vals.fold(F::INIT, |a, v| F::step(a, v.to_f64(), shift)), n, shift))
}

/// Reduce a contiguous group with eight independent partial folds (the
/// loop vectorizes; the partial results are merged pairwise).
fn fold_slice<F: Fold, T: Real>(v: &[T]) -> T {
    let shift = if F::SHIFTED { finite_max(v.iter().copied()) } else { 0.0 };
    let mut acc = [F::INIT; 8];
    let mut chunks = v.chunks_exact(8);
    for c in chunks.by_ref() {
        acc.iter_mut().zip(c).for_each(|(a, &x)| *a = F::step(*a, x.to_f64(), shift));
    }
    let tail = chunks.remainder().iter().fold(F::INIT, |a, &x| F::step(a, x.to_f64(), shift));
    let m = |i: usize, j: usize| F::merge(acc[i], acc[j]);
    let all = F::merge(F::merge(m(0, 4), m(1, 5)), F::merge(m(2, 6), m(3, 7)));
    T::from_f64(F::finish(F::merge(all, tail), v.len(), shift))
}

/// Reduce `x` of `shape` over `axes` (sorted, distinct, each `< rank`; the
/// caller normalizes them) into `y`, which holds the product of the kept dims
/// in row-major order (`keepdims` only changes the result's shape, not its
/// data).
pub fn reduce<T: Real>(kind: Reduce, shape: &[usize], axes: &[usize], x: &[T], y: &mut [T]) {
    assert_eq!(x.len(), numel(shape), "reduce: x holds {} elements, shape {shape:?} needs more or fewer", x.len());
    assert!(axes.windows(2).all(|w| w[0] < w[1]), "reduce: axes {axes:?} must be sorted and distinct");
    assert!(axes.iter().all(|&a| a < shape.len()), "reduce: axes {axes:?} out of range for {shape:?}");
    let kept: usize = (0..shape.len()).filter(|d| !axes.contains(d)).map(|d| shape[d]).product();
    assert_eq!(y.len(), kept, "reduce: y holds {} elements, the kept dims of {shape:?} {kept}", y.len());
    match kind {
        Reduce::Sum => run::<SumF, T>(shape, axes, x, y),
        Reduce::Mean => run::<MeanF, T>(shape, axes, x, y),
        Reduce::Max => run::<MaxF, T>(shape, axes, x, y),
        Reduce::Min => run::<MinF, T>(shape, axes, x, y),
        Reduce::Prod => run::<ProdF, T>(shape, axes, x, y),
        Reduce::L1 => run::<L1F, T>(shape, axes, x, y),
        Reduce::L2 => run::<L2F, T>(shape, axes, x, y),
        Reduce::SumSquare => run::<SumSquareF, T>(shape, axes, x, y),
        Reduce::LogSum => run::<LogSumF, T>(shape, axes, x, y),
        Reduce::LogSumExp => run::<LogSumExpF, T>(shape, axes, x, y),
    }
}

fn run<F: Fold, T: Real>(shape: &[usize], axes: &[usize], x: &[T], y: &mut [T]) {
    let n: usize = axes.iter().map(|&a| shape[a]).product();
    if n == 0 {
        return y.iter_mut().for_each(|v| *v = T::from_f64(F::finish(F::INIT, 0, 0.0)));
    }
    let (Some(kept), Some(red)) = (axes_space(shape, axes, false), axes_space(shape, axes, true)) else {
        return run_slow::<F, T>(shape, axes, x, y, n);
    };
    if red.rank == 0 || (red.rank == 1 && red.stride[0][0] == 1) {
        for (o, [b]) in y.iter_mut().zip(kept.points()) {
            *o = fold_slice::<F, T>(&x[b as usize..b as usize + n]);
        }
    } else if kept.rank > 0 && kept.stride[kept.rank - 1][0] == 1 {
        let mut out = 0;
        kept.rows(|[b], _, len| {
            across_lanes::<F, T>(x, b as usize, &red, n, &mut y[out..out + len]);
            out += len;
        });
    } else {
        for (o, [b]) in y.iter_mut().zip(kept.points()) {
            *o = fold_group::<F, T>(red.points().map(|[p]| x[(b + p) as usize]), n);
        }
    }
}

/// Lanes processed together by [`across_lanes`].
const LANES: usize = 16;

/// Reduce `y.len()` adjacent groups whose elements are at `base + lane + p`
/// for every point `p` of `red`, a chunk of lanes at a time.
fn across_lanes<F: Fold, T: Real>(x: &[T], base: usize, red: &Space<1>, n: usize, y: &mut [T]) {
    for (c, out) in y.chunks_mut(LANES).enumerate() {
        let b = base + c * LANES;
        let w = out.len();
        let mut shift = [0f64; LANES];
        if F::SHIFTED {
            let mut m = [f64::NEG_INFINITY; LANES];
            for [p] in red.points() {
                let row = &x[b + p as usize..b + p as usize + w];
                for (m, v) in m.iter_mut().zip(row.iter().map(|v| v.to_f64())) {
                    if v.is_finite() {
                        *m = m.max(v);
                    }
                }
            }
            shift.iter_mut().zip(&m).for_each(|(s, &m)| *s = if m.is_finite() { m } else { 0.0 });
        }
        let mut acc = [F::INIT; LANES];
        for [p] in red.points() {
            let row = &x[b + p as usize..b + p as usize + w];
            for ((a, &v), &s) in acc.iter_mut().zip(row).zip(&shift) {
                *a = F::step(*a, v.to_f64(), s);
            }
        }
        for ((o, &a), &s) in out.iter_mut().zip(&acc).zip(&shift) {
            *o = T::from_f64(F::finish(a, n, s));
        }
    }
}

/// Any rank: decode every index (used when the dims do not coalesce).
fn run_slow<F: Fold, T: Real>(shape: &[usize], axes: &[usize], x: &[T], y: &mut [T], n: usize) {
    for (j, o) in y.iter_mut().enumerate() {
        let b = axes_offset(shape, axes, false, j);
        *o = fold_group::<F, T>((0..n).map(|q| x[b + axes_offset(shape, axes, true, q)]), n);
    }
}

/// Index along `axis` of the first maximum of each lane (the last one with
/// `select_last_index`); NaN counts as the maximum. `y` holds the dims other
/// than `axis`; the axis must not be empty.
pub fn arg_max<T: PartialOrd + Copy>(shape: &[usize], axis: usize, select_last_index: bool, x: &[T], y: &mut [i64]) {
    arg_extreme(shape, axis, select_last_index, x, y, |v, b| v > b);
}

/// Index along `axis` of the first minimum of each lane (the last one with
/// `select_last_index`); NaN counts as the minimum. `y` holds the dims other
/// than `axis`; the axis must not be empty.
pub fn arg_min<T: PartialOrd + Copy>(shape: &[usize], axis: usize, select_last_index: bool, x: &[T], y: &mut [i64]) {
    arg_extreme(shape, axis, select_last_index, x, y, |v, b| v < b);
}

#[allow(clippy::eq_op)] // `v != v` is the NaN test for any PartialOrd type
fn arg_extreme<T: PartialOrd + Copy>(
    shape: &[usize],
    axis: usize,
    last: bool,
    x: &[T],
    y: &mut [i64],
    better: impl Fn(T, T) -> bool,
) {
    assert!(axis < shape.len(), "arg_max/arg_min: axis {axis} out of range for {shape:?}");
    assert_eq!(x.len(), numel(shape), "arg_max/arg_min: x does not match shape {shape:?}");
    let (outer, n, inner) = (numel(&shape[..axis]), shape[axis], numel(&shape[axis + 1..]));
    assert!(n > 0 || outer * inner == 0, "arg_max/arg_min: axis {axis} of {shape:?} is empty");
    assert_eq!(y.len(), outer * inner, "arg_max/arg_min: y does not match shape {shape:?} without axis {axis}");
    for (j, o) in y.iter_mut().enumerate() {
        let base = (j / inner) * n * inner + j % inner;
        let (mut best, mut bv) = (0, x[base]);
        for k in 1..n {
            let v = x[base + k * inner];
            let wins = match (v != v, bv != bv) {
                (true, true) => last,
                (false, true) => false,
                (true, false) => true,
                _ => better(v, bv) || (last && v == bv),
            };
            if wins {
                (best, bv) = (k, v);
            }
        }
        *o = best as i64;
    }
}
