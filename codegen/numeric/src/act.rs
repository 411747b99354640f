//! Activation functions: the logistic function, NaN-propagating bounds, and
//! the activation epilogue fused into conv/linear ops.
//!
//! The epilogue has two formula sets over one [`Activation`] enum, because
//! the two sides compute differently and each must keep its results:
//! [`Activation::apply`] is the kernels' (in f32, with [`erf_cody`]), and
//! [`Activation::apply_rounded`] the interpreter's (in f64 with [`erf`],
//! rounded to the element type once per ONNX primitive, so it equals the
//! unfused ops bit for bit).

use crate::special::{erf, erf_cody};
use crate::Float;

/// `1 / (1 + e^-x)` without overflow for large `|x|`, in `F`'s precision.
#[inline]
pub fn sigmoid<F: Float>(x: F) -> F {
    if x >= F::ZERO {
        F::ONE / (F::ONE + (-x).exp())
    } else {
        let e = x.exp();
        e / (F::ONE + e)
    }
}

/// NaN-propagating maximum (numpy `maximum`; `a` on ties).
pub fn max_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if b > a {
        b
    } else {
        a
    }
}

/// NaN-propagating minimum (numpy `minimum`; `a` on ties).
pub fn min_nan(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else if b < a {
        b
    } else {
        a
    }
}

/// `max(0, min(1, v))` with NaN propagating (numpy's order of operations).
pub fn clamp01(v: f64) -> f64 {
    min_nan(max_nan(v, 0.0), 1.0)
}

/// An activation applied to every element of a conv/linear result.
/// Parameters are `f32`, as the attributes that give them.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Activation {
    /// Identity.
    #[default]
    None,
    /// `x < 0 ? 0 : x`.
    Relu,
    /// `min(max(x, min), max)`.
    Clip {
        /// Lower bound.
        min: f32,
        /// Upper bound.
        max: f32,
    },
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `max(0, min(1, alpha * x + beta))`.
    HardSigmoid {
        /// Slope.
        alpha: f32,
        /// Offset.
        beta: f32,
    },
    /// `x * max(0, min(1, x / 6 + 1/2))`.
    HardSwish,
    /// `alpha * x` for negative `x`, else `x`.
    LeakyRelu {
        /// Negative slope.
        alpha: f32,
    },
    /// `x * sigmoid(x)`.
    Silu,
    /// `0.5 x (1 + erf(x / sqrt 2))`.
    Gelu,
    /// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    GeluTanh,
    /// `tanh(x)`.
    Tanh,
}

impl Activation {
    /// The kernels' formula: one `f32` value, every step in f32 (`erf`
    /// evaluated in f64 by [`erf_cody`] and rounded).
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Activation::None => x,
            Activation::Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            Activation::Clip { min, max } => x.max(min).min(max),
            Activation::Sigmoid => sigmoid(x),
            Activation::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(0.0, 1.0),
            Activation::HardSwish => x * (x / 6.0 + 0.5).clamp(0.0, 1.0),
            Activation::LeakyRelu { alpha } => {
                if x < 0.0 {
                    alpha * x
                } else {
                    x
                }
            }
            Activation::Silu => x * sigmoid(x),
            Activation::Gelu => 0.5 * x * (1.0 + erf_cody((x / std::f32::consts::SQRT_2) as f64) as f32),
            Activation::GeluTanh => {
                let k = (2.0 / std::f32::consts::PI).sqrt();
                0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
            }
            Activation::Tanh => x.tanh(),
        }
    }

    /// The interpreter's formula: `x` widened to f64, the result of each
    /// ONNX primitive passed through `round` (rounding to the element type),
    /// so it equals the unfused ops (for `Silu`, `Mul(x, Sigmoid(x))`).
    pub fn apply_rounded(self, x: f64, round: impl Fn(f64) -> f64) -> f64 {
        let y = match self {
            Activation::None => x,
            Activation::Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            Activation::Clip { min, max } => min_nan(max_nan(x, min as f64), max as f64),
            Activation::Sigmoid => sigmoid(x),
            Activation::HardSigmoid { alpha, beta } => clamp01(alpha as f64 * x + beta as f64),
            Activation::HardSwish => x * clamp01(x / 6.0 + 0.5),
            Activation::LeakyRelu { alpha } => {
                if x > 0.0 {
                    x
                } else {
                    alpha as f64 * x
                }
            }
            Activation::Silu => x * round(sigmoid(x)),
            Activation::Gelu => 0.5 * x * (1.0 + erf(x / std::f64::consts::SQRT_2)),
            Activation::GeluTanh => {
                let k = (2.0 / std::f64::consts::PI).sqrt();
                0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
            }
            Activation::Tanh => x.tanh(),
        };
        round(y)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activations() {
        assert_eq!(Activation::Relu.apply(-2.0), 0.0);
        assert_eq!(Activation::Clip { min: 0.0, max: 6.0 }.apply(7.0), 6.0);
        assert_eq!(Activation::HardSwish.apply(3.0), 3.0);
        assert!((Activation::Sigmoid.apply(0.0) - 0.5).abs() < 1e-7);
        assert!(sigmoid(-100.0f32).abs() < 1e-30 && sigmoid(100.0f32) == 1.0);
        assert!(Activation::Clip { min: 0.0, max: 1.0 }.apply_rounded(f64::NAN, |v| v).is_nan());
    }
}
