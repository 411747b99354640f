//! Double-precision Softmax/LogSoftmax along one axis, for models computed
//! in f64: a direct loop with the reference interpreter's summation order
//! (sequential from 0), so the results match it within an f64 rounding.

/// Softmax (or with `log`, LogSoftmax) along the middle axis of `x` seen
/// as `[outer, n, inner]`: `exp(x − max) / Σ exp(x − max)`, the max NaN if
/// any element is.
pub fn softmax(outer: usize, n: usize, inner: usize, log: bool, x: &[f64], y: &mut [f64]) {
    assert!(
        x.len() == outer * n * inner && y.len() == x.len(),
        "softmax: buffers do not match [{outer}, {n}, {inner}]"
    );
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * n + k) * inner + i;
            let max = (0..n).map(|k| x[at(k)]).fold(f64::NEG_INFINITY, |m, v| {
                if m.is_nan() || v.is_nan() {
                    f64::NAN
                } else if v > m {
                    v
                } else {
                    m
                }
            });
            if log {
                let sum: f64 = (0..n).map(|k| (x[at(k)] - max).exp()).sum();
                (0..n).for_each(|k| y[at(k)] = x[at(k)] - max - sum.ln());
            } else {
                let mut sum = 0.0;
                for k in 0..n {
                    y[at(k)] = (x[at(k)] - max).exp();
                    sum += y[at(k)];
                }
                (0..n).for_each(|k| y[at(k)] /= sum);
            }
        }
    }
}
