//! One-input f32 math and activation functions.
//!
//! Evaluated in f32, within an ulp or two of the interpreter's f64 result
//! rounded once: `Exp` and the logistic family (Sigmoid, Silu, Swish,
//! GeluTanh) use the vectorizable [`crate::math::exp`], the other
//! transcendental functions libm. Stable forms: Softplus never overflows,
//! GeluTanh is `x * sigmoid(2u)` instead of `0.5 x (1 + tanh u)` (no
//! cancellation for negative `x`), and the exact Gelu is evaluated in f64.
//! The piecewise-linear activations and Tanh delegate to
//! [`Act`], as the fused conv/linear epilogues.

use crate::act::{erf, erf_f64, Act};
use crate::math::{exp, sigmoid};
use edgec_numeric::unary::{celu, elu, scaled_tanh, shrink, softplus};

/// A one-input elementwise function.
#[derive(Copy, Clone, Debug, PartialEq)]
#[allow(missing_docs)] // the variants are the ONNX ops of the same name
pub enum Unary {
    Identity,
    Abs,
    Neg,
    Exp,
    Log,
    Sqrt,
    /// `1 / x`.
    Reciprocal,
    Floor,
    Ceil,
    /// Round half to even.
    Round,
    Sin,
    Cos,
    Tan,
    Asin,
    Acos,
    Atan,
    Sinh,
    Cosh,
    Asinh,
    Acosh,
    Atanh,
    Tanh,
    Sigmoid,
    /// `max(x, 0)`.
    Relu,
    Erf,
    /// -1, 0 or 1 (zeros keep their sign, NaN stays NaN).
    Sign,
    /// `ln(1 + e^x)`.
    Softplus,
    /// `x / (1 + |x|)`.
    Softsign,
    /// `x > 0 ? x : alpha (e^x - 1)`.
    Elu {
        alpha: f32,
    },
    /// `gamma (x > 0 ? x : alpha (e^x - 1))`.
    Selu {
        alpha: f32,
        gamma: f32,
    },
    /// `x > 0 ? x : alpha (e^(x / alpha) - 1)`.
    Celu {
        alpha: f32,
    },
    /// `x >= 0 ? x : alpha x`.
    LeakyRelu {
        alpha: f32,
    },
    /// `clamp(alpha x + beta, 0, 1)`.
    HardSigmoid {
        alpha: f32,
        beta: f32,
    },
    /// `x clamp(x / 6 + 1/2, 0, 1)`.
    HardSwish,
    /// `0.5 x (1 + erf(x / sqrt 2))`.
    Gelu,
    /// `0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))`.
    GeluTanh,
    /// `x tanh(softplus(x))`.
    Mish,
    /// `x > alpha ? x : 0`.
    ThresholdedRelu {
        alpha: f32,
    },
    /// `min(max(x, min), max)`; NaN stays NaN; `min > max` gives `max`.
    Clip {
        min: f32,
        max: f32,
    },
    /// `x sigmoid(x)`.
    Silu,
    /// `x sigmoid(alpha x)`.
    Swish {
        alpha: f32,
    },
    /// `x < -lambd ? x + bias : x > lambd ? x - bias : 0`.
    Shrink {
        lambd: f32,
        bias: f32,
    },
    /// `alpha tanh(beta x)`.
    ScaledTanh {
        alpha: f32,
        beta: f32,
    },
}

impl From<Act> for Unary {
    fn from(a: Act) -> Unary {
        match a {
            Act::None => Unary::Identity,
            Act::Relu => Unary::Relu,
            Act::Clip { min, max } => Unary::Clip { min, max },
            Act::Sigmoid => Unary::Sigmoid,
            Act::HardSigmoid { alpha, beta } => Unary::HardSigmoid { alpha, beta },
            Act::HardSwish => Unary::HardSwish,
            Act::LeakyRelu { alpha } => Unary::LeakyRelu { alpha },
            Act::Silu => Unary::Silu,
            Act::Gelu => Unary::Gelu,
            Act::GeluTanh => Unary::GeluTanh,
            Act::Tanh => Unary::Tanh,
        }
    }
}

/// Exact Gelu in f64 (`1 + erf` cancels for negative `x` in f32).
#[inline]
fn gelu(x: f32) -> f32 {
    let x = x as f64;
    (0.5 * x * (1.0 + erf_f64(x / std::f64::consts::SQRT_2))) as f32
}

/// Tanh-approximated Gelu as `x sigmoid(2u)`.
#[inline]
fn gelu_tanh(x: f32) -> f32 {
    const K: f32 = 0.797_884_6; // sqrt(2 / pi)
    x * sigmoid(2.0 * K * (x + 0.044715 * x * x * x))
}

#[inline]
fn sign(x: f32) -> f32 {
    if x > 0.0 {
        1.0
    } else if x < 0.0 {
        -1.0
    } else {
        x
    }
}

/// Where a dispatched element function is applied.
trait Sink {
    fn run<F: Fn(f32) -> f32>(self, f: F);
}

struct To<'a>(&'a [f32], &'a mut [f32]);

impl Sink for To<'_> {
    fn run<F: Fn(f32) -> f32>(self, f: F) {
        self.1.iter_mut().zip(self.0).for_each(|(y, &x)| *y = f(x));
    }
}

struct InPlace<'a>(&'a mut [f32]);

impl Sink for InPlace<'_> {
    fn run<F: Fn(f32) -> f32>(self, f: F) {
        self.0.iter_mut().for_each(|x| *x = f(*x));
    }
}

/// Defines `Unary::apply` and the loop dispatcher from one table of element
/// functions, so the two cannot disagree.
macro_rules! unary_table {
    ($($pat:pat => $f:expr,)*) => {
        impl Unary {
            /// Apply to one value.
            #[inline]
            pub fn apply(self, x: f32) -> f32 {
                match self {
                    $($pat => ($f)(x),)*
                }
            }
        }

        /// Run the loop of `s` with the element function of `op` inlined.
        fn dispatch(op: Unary, s: impl Sink) {
            match op {
                $($pat => s.run($f),)*
            }
        }
    };
}

unary_table! {
    Unary::Identity => |x: f32| x,
    Unary::Abs => f32::abs,
    Unary::Neg => |x: f32| -x,
    Unary::Exp => exp,
    Unary::Log => f32::ln,
    Unary::Sqrt => f32::sqrt,
    Unary::Reciprocal => |x: f32| 1.0 / x,
    Unary::Floor => f32::floor,
    Unary::Ceil => f32::ceil,
    Unary::Round => f32::round_ties_even,
    Unary::Sin => f32::sin,
    Unary::Cos => f32::cos,
    Unary::Tan => f32::tan,
    Unary::Asin => f32::asin,
    Unary::Acos => f32::acos,
    Unary::Atan => f32::atan,
    Unary::Sinh => f32::sinh,
    Unary::Cosh => f32::cosh,
    Unary::Asinh => f32::asinh,
    Unary::Acosh => f32::acosh,
    Unary::Atanh => f32::atanh,
    Unary::Tanh => f32::tanh,
    Unary::Sigmoid => sigmoid,
    Unary::Relu => |x: f32| if x < 0.0 { 0.0 } else { x },
    Unary::Erf => |x: f32| if x.is_nan() { x } else { erf(x) },
    Unary::Sign => sign,
    Unary::Softplus => softplus,
    Unary::Softsign => |x: f32| x / (1.0 + x.abs()),
    Unary::Elu { alpha } => move |x: f32| elu(x, alpha),
    Unary::Selu { alpha, gamma } => move |x: f32| gamma * elu(x, alpha),
    Unary::Celu { alpha } => move |x: f32| celu(x, alpha),
    Unary::LeakyRelu { alpha } => move |x: f32| if x < 0.0 { alpha * x } else { x },
    Unary::HardSigmoid { alpha, beta } => move |x: f32| (alpha * x + beta).clamp(0.0, 1.0),
    Unary::HardSwish => |x: f32| x * (x / 6.0 + 0.5).clamp(0.0, 1.0),
    Unary::Gelu => gelu,
    Unary::GeluTanh => gelu_tanh,
    Unary::Mish => |x: f32| x * softplus(x).tanh(),
    Unary::ThresholdedRelu { alpha } => move |x: f32| if x > alpha { x } else { 0.0 },
    Unary::Clip { min, max } => move |x: f32| if x.is_nan() { x } else { x.max(min).min(max) },
    Unary::Silu => |x: f32| x * sigmoid(x),
    Unary::Swish { alpha } => move |x: f32| x * sigmoid(alpha * x),
    Unary::ScaledTanh { alpha, beta } => move |x: f32| scaled_tanh(x, alpha, beta),
    Unary::Shrink { lambd, bias } => move |x: f32| shrink(x, lambd, bias),
}

crate::multiversion! {
    /// `y[i] = op(x[i])`.
    pub fn unary(op: Unary, x: &[f32], y: &mut [f32]) {
        assert_eq!(x.len(), y.len(), "unary: x has {} elements, y {}", x.len(), y.len());
        dispatch(op, To(x, y));
    }
}

crate::multiversion! {
    /// `x[i] = op(x[i])`.
    pub fn unary_inplace(op: Unary, x: &mut [f32]) {
        dispatch(op, InPlace(x));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn apply_matches_the_loop() {
        let x = [-3.5f32, -0.5, 0.0, 0.5, 2.5];
        for op in [Unary::Round, Unary::Gelu, Unary::GeluTanh, Unary::Clip { min: -1.0, max: 1.0 }, Unary::Sign] {
            let mut y = [0.0; 5];
            unary(op, &x, &mut y);
            assert!(x.iter().zip(&y).all(|(&x, &y)| op.apply(x).to_bits() == y.to_bits()), "{op:?}");
        }
        assert_eq!(Unary::Round.apply(2.5), 2.0);
        assert!(Unary::Clip { min: 0.0, max: 6.0 }.apply(f32::NAN).is_nan());
    }
}
