//! The Gauss error function, in the two forms edgec uses.
//!
//! The interpreter and the kernels use different `f64` approximations of
//! `erf` (each within a few `f64` ulps): [`erf`] (series / continued
//! fraction) is the interpreter's, [`erf_cody`] (Cody's rational
//! approximation, cheaper) the kernels'. Both are kept so that neither side's
//! results change; kernel tests compare them at a tolerance.

use std::f64::consts::PI;

/// The Gauss error function, to within a few ulp of `f64` (the reference
/// interpreter's).
///
/// `|x| < 2.5`: the everywhere-positive series
/// `erf(x) = 2/sqrt(pi) * exp(-x^2) * sum_n (2x^2)^n x / (1*3*...*(2n+1))`;
/// `2.5 <= |x| < 6`: `1 - erfc(x)` with the Laplace continued fraction for
/// `erfc`; beyond that `erf(x)` rounds to `±1`.
#[inline]
pub fn erf(x: f64) -> f64 {
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

#[inline]
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
#[inline]
fn erfc_continued_fraction(x: f64) -> f64 {
    let mut f = x;
    for k in (1..=80).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    (-x * x).exp() / PI.sqrt() / f
}

/// `erf` in f64 by W. J. Cody's rational approximation (max relative error
/// about 1e-15 on the real line; the kernels').
#[allow(clippy::excessive_precision)] // the published coefficients, digit for digit
#[inline]
pub fn erf_cody(x: f64) -> f64 {
    let ax = x.abs();
    let r = if ax < 0.5 {
        const P: [f64; 5] =
            [3.209377589138469e3, 3.774852376853020e2, 1.138641541510502e2, 3.161123743870566, 1.857777061846032e-1];
        const Q: [f64; 5] = [2.844236833439171e3, 1.282616526077372e3, 2.440246379344442e2, 2.360129095234412e1, 1.0];
        let z = ax * ax;
        ax * poly(&P, z) / poly(&Q, z)
    } else if ax < 4.0 {
        const P: [f64; 9] = [
            1.23033935479799725e3,
            2.05107837782607147e3,
            1.71204761263407058e3,
            8.81952221241769090e2,
            2.98635138197400131e2,
            6.61191906371416295e1,
            8.88314979438837594,
            5.64188496988670089e-1,
            2.15311535474403846e-8,
        ];
        const Q: [f64; 9] = [
            1.23033935480374942e3,
            3.43936767414372164e3,
            4.36261909014324716e3,
            3.29079923573345963e3,
            1.62138957456669019e3,
            5.37181101862009858e2,
            1.17693950891312499e2,
            1.57449261107098347e1,
            1.0,
        ];
        1.0 - (-ax * ax).exp() * poly(&P, ax) / poly(&Q, ax)
    } else if ax < 6.0 {
        const P: [f64; 6] = [
            -6.58749161529837803e-4,
            -1.60837851487422766e-2,
            -1.25781726111229246e-1,
            -3.60344899949804439e-1,
            -3.05326634961232344e-1,
            -1.63153871373020978e-2,
        ];
        const Q: [f64; 6] = [
            2.33520497626869185e-3,
            6.05183413124413191e-2,
            5.27905102951428412e-1,
            1.87295284992346725,
            2.56852019228982242,
            1.0,
        ];
        let z = 1.0 / (ax * ax);
        let frac = z * poly(&P, z) / poly(&Q, z);
        1.0 - (-ax * ax).exp() / ax * (1.0 / std::f64::consts::PI.sqrt() + frac)
    } else {
        1.0
    };
    if x < 0.0 {
        -r
    } else {
        r
    }
}

/// `Σ c[i] z^i` (coefficients in increasing degree).
#[inline]
fn poly(c: &[f64], z: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * z + k)
}

#[cfg(test)]
mod tests {
    #[test]
    fn both_forms_agree_with_known_values() {
        for (x, want) in [(0.0, 0.0), (0.5, 0.520_499_877_8), (1.0, 0.842_700_792_9), (-1.5, -0.966_105_146_5)] {
            assert!((super::erf(x) - want).abs() < 1e-9, "erf({x})");
            assert!((super::erf_cody(x) - want).abs() < 1e-9, "erf_cody({x})");
        }
    }
}
