//! Special functions the Rust standard library lacks.

use std::f64::consts::PI;

/// The Gauss error function, to within a few ulp of `f64`.
///
/// `|x| < 2.5`: the everywhere-positive series
/// `erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n (2x^2)^n x / (1*3*...*(2n+1))`;
/// `2.5 <= |x| < 6`: `1 - erfc(x)` with the Laplace continued fraction for
/// `erfc`; beyond that `erf(x)` rounds to `±1`.
pub(crate) fn erf(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    let r = if a < 2.5 {
        erf_series(a)
    } else if a < 6.0 {
        1.0 - erfc_continued_fraction(a)
    } else {
        1.0
    };
    r.copysign(x)
}

fn erf_series(x: f64) -> f64 {
    let x2 = x * x;
    let (mut term, mut sum) = (x, x);
    for n in 1..200 {
        term *= 2.0 * x2 / (2 * n + 1) as f64;
        sum += term;
        if term <= sum * 1e-17 {
            break;
        }
    }
    2.0 / PI.sqrt() * (-x2).exp() * sum
}

/// `erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))`, for `x >= 2.5`.
fn erfc_continued_fraction(x: f64) -> f64 {
    let mut f = x;
    for k in (1..=80).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    (-x * x).exp() / PI.sqrt() / f
}
