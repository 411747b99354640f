//! One-input math for the float element types other than `f32` (`f64`,
//! `F16`, `BF16`), and `Clip` for every ordered element type.
//!
//! Each element is widened to `f64`, the function is evaluated in `f64` with
//! the interpreter's formulas (stable Softplus and logistic forms, `exp_m1`
//! in the ELU family) and rounded once to the element type, so `F16`/`BF16`
//! results equal the interpreter's bit for bit wherever the `f64` library
//! functions agree (all but `Erf`, which is a different `f64`
//! approximation of the same function, within a few `f64` ulps).

use super::unary::Unary;
use crate::act::{erf_f64, sigmoid};
use crate::lowp::Real;
use edgec_numeric::unary::{celu, elu, scaled_tanh, shrink, softplus};

/// `max(0, min(1, v))`, NaN kept.
fn clamp01(v: f64) -> f64 {
    if v.is_nan() {
        v
    } else {
        v.clamp(0.0, 1.0)
    }
}

/// `min(max(x, lo), hi)`: NaN stays NaN, `lo > hi` gives `hi`.
fn clamp<T: PartialOrd>(x: T, lo: T, hi: T) -> T {
    let v = if x < lo { lo } else { x };
    if v > hi {
        hi
    } else {
        v
    }
}

impl Unary {
    /// Apply to one `f64` value (attributes widened from `f32`).
    pub fn apply_f64(self, x: f64) -> f64 {
        use Unary::*;
        let w = |a: f32| a as f64;
        match self {
            Identity => x,
            Abs => x.abs(),
            Neg => -x,
            Exp => x.exp(),
            Log => x.ln(),
            Sqrt => x.sqrt(),
            Reciprocal => 1.0 / x,
            Floor => x.floor(),
            Ceil => x.ceil(),
            Round => x.round_ties_even(),
            Sin => x.sin(),
            Cos => x.cos(),
            Tan => x.tan(),
            Asin => x.asin(),
            Acos => x.acos(),
            Atan => x.atan(),
            Sinh => x.sinh(),
            Cosh => x.cosh(),
            Asinh => x.asinh(),
            Acosh => x.acosh(),
            Atanh => x.atanh(),
            Tanh => x.tanh(),
            Sigmoid => sigmoid(x),
            Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            Erf => erf_f64(x),
            Sign => {
                if x > 0.0 {
                    1.0
                } else if x < 0.0 {
                    -1.0
                } else {
                    x
                }
            }
            Softplus => softplus(x),
            Softsign => x / (1.0 + x.abs()),
            Elu { alpha } => elu(x, w(alpha)),
            Selu { alpha, gamma } => w(gamma) * elu(x, w(alpha)),
            Celu { alpha } => celu(x, w(alpha)),
            LeakyRelu { alpha } => {
                if x > 0.0 {
                    x
                } else {
                    w(alpha) * x
                }
            }
            HardSigmoid { alpha, beta } => clamp01(w(alpha) * x + w(beta)),
            HardSwish => x * clamp01(x / 6.0 + 0.5),
            Gelu => 0.5 * x * (1.0 + erf_f64(x / std::f64::consts::SQRT_2)),
            GeluTanh => {
                let k = (2.0 / std::f64::consts::PI).sqrt();
                0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
            }
            Mish => x * softplus(x).tanh(),
            ThresholdedRelu { alpha } => {
                if x > w(alpha) {
                    x
                } else {
                    0.0
                }
            }
            Clip { min, max } => {
                if x.is_nan() {
                    x
                } else {
                    clamp(x, w(min), w(max))
                }
            }
            Silu => x * sigmoid(x),
            Swish { alpha } => x * sigmoid(w(alpha) * x),
            Shrink { lambd, bias } => shrink(x, w(lambd), w(bias)),
            ScaledTanh { alpha, beta } => scaled_tanh(x, w(alpha), w(beta)),
        }
    }
}

/// `y[i] = op(x[i])` for `f64`, `F16` or `BF16`, evaluated in `f64`.
pub fn unary_real<T: Real>(op: Unary, x: &[T], y: &mut [T]) {
    assert_eq!(x.len(), y.len(), "unary: x has {} elements, y {}", x.len(), y.len());
    y.iter_mut().zip(x).for_each(|(y, &x)| *y = T::from_f64(op.apply_f64(x.to_f64())));
}

/// `x[i] = op(x[i])` for `f64`, `F16` or `BF16`.
pub fn unary_real_inplace<T: Real>(op: Unary, x: &mut [T]) {
    x.iter_mut().for_each(|x| *x = T::from_f64(op.apply_f64(x.to_f64())));
}

/// `y[i] = min(max(x[i], lo), hi)` for any ordered type: NaN stays NaN and
/// `lo > hi` gives `hi` (the interpreter's `Clip`).
pub fn clip<T: PartialOrd + Copy>(x: &[T], lo: T, hi: T, y: &mut [T]) {
    assert_eq!(x.len(), y.len(), "clip: x has {} elements, y {}", x.len(), y.len());
    y.iter_mut().zip(x).for_each(|(y, &x)| *y = clamp(x, lo, hi));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lowp::F16;

    #[test]
    fn clip_rules() {
        let mut y = [0i8; 4];
        clip(&[-128i8, -3, 5, 127], -4, 4, &mut y);
        assert_eq!(y, [-4, -3, 4, 4]);
        clip(&[-128i8, -3, 5, 127], 4, -4, &mut y);
        assert_eq!(y, [-4; 4]);
        let mut f = [0f64; 2];
        clip(&[f64::NAN, 9.0], -1.0, 1.0, &mut f);
        assert!(f[0].is_nan() && f[1] == 1.0);
    }

    #[test]
    fn half_math_rounds_once() {
        let x = [F16::from_f32(0.5), F16::from_f32(-2.0)];
        let mut y = [F16::ZERO; 2];
        unary_real(Unary::Exp, &x, &mut y);
        assert_eq!(y[0].to_bits(), F16::from_f64(0.5f64.exp()).to_bits());
        assert_eq!(y[1].to_bits(), F16::from_f64((-2f64).exp()).to_bits());
    }
}
