//! Activation functions: the logistic function, NaN-propagating bounds, and
//! the activation epilogue fused into conv/linear ops.
//!
//! [`Activation`] is the one activation type of the fused `core.*` ops: the
//! IR reads and writes it as attributes (through [`ActAttrs`]), the
//! interpreter and the kernels evaluate it. It has two formula sets, because
//! the two sides compute differently and each must keep its results:
//! [`Activation::apply`] is the kernels' (in f32, with [`erf_cody`]), and
//! [`Activation::apply_rounded`] (with [`Activation::apply_f32`] and
//! [`Activation::apply_f64`]) the interpreter's (in f64 with [`erf`], rounded
//! to the element type once per ONNX primitive, so it equals the unfused ops
//! bit for bit).

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
#[inline]
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
#[inline]
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
#[inline]
pub fn clamp01(v: f64) -> f64 {
    min_nan(max_nan(v, 0.0), 1.0)
}

/// The values of the `act` attribute, in [`Activation`] order.
pub const ACT_NAMES: &[&str] = &[
    "none",
    "relu",
    "clip",
    "sigmoid",
    "hard_sigmoid",
    "hard_swish",
    "leaky_relu",
    "silu",
    "gelu",
    "gelu_tanh",
    "tanh",
];

/// Attribute storage an [`Activation`] is read from and written to (`act`,
/// `act_alpha`, `act_beta`); the IR implements it for its attribute map.
pub trait ActAttrs {
    /// The string attribute `name`: `Ok(None)` if absent, an error naming
    /// the attribute if it has another kind.
    fn get_str(&self, name: &str) -> Result<Option<&str>, String>;
    /// The float attribute `name`: `Ok(None)` if absent, an error naming the
    /// attribute if it has another kind.
    fn get_float(&self, name: &str) -> Result<Option<f32>, String>;
    /// Remove attribute `name` if present.
    fn remove(&mut self, name: &str);
    /// Set string attribute `name`.
    fn set_str(&mut self, name: &str, value: &str);
    /// Set float attribute `name`.
    fn set_float(&mut self, name: &str, value: f32);
}

/// The activation epilogue of `core.conv`, `core.conv_transpose` and
/// `core.linear`, applied to every element of the op's (rounded) result.
///
/// Invariant: [`Activation::apply_rounded`] on an element of a float type
/// gives bit for bit what the corresponding unfused `onnx.*` op (or, for
/// `Silu`, the pair `Mul(x, Sigmoid(x))`) gives in the reference interpreter,
/// because the formulas are the interpreter's own (computed in `f64`, rounded
/// to the type once per ONNX primitive). `Clip` bounds are `f32` attributes,
/// so they match an `onnx.Clip` whose bounds are representable in the
/// element type.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Activation {
    /// No epilogue (`act` absent or `"none"`).
    #[default]
    None,
    /// `onnx.Relu`: `x < 0 ? 0 : x`.
    Relu,
    /// `onnx.Clip`: `min(max(x, min), max)`, `min = act_alpha` (default
    /// `-inf`), `max = act_beta` (default `+inf`).
    Clip {
        /// Lower bound.
        min: f32,
        /// Upper bound.
        max: f32,
    },
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `onnx.HardSigmoid`: `max(0, min(1, alpha * x + beta))`.
    HardSigmoid {
        /// Slope, `act_alpha` (default 0.2).
        alpha: f32,
        /// Offset, `act_beta` (default 0.5).
        beta: f32,
    },
    /// `x * max(0, min(1, x / 6 + 1/2))`.
    HardSwish,
    /// `onnx.LeakyRelu`: `alpha * x` for negative `x`, else `x`.
    LeakyRelu {
        /// Negative slope, `act_alpha` (default 0.01).
        alpha: f32,
    },
    /// `Mul(x, Sigmoid(x))`: the interpreter rounds the sigmoid to the
    /// element type before the product.
    Silu,
    /// `0.5 x (1 + erf(x / sqrt 2))`.
    Gelu,
    /// `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    GeluTanh,
    /// `tanh(x)`.
    Tanh,
}

impl Activation {
    /// The `act` attribute value naming this activation.
    pub fn name(&self) -> &'static str {
        match self {
            Activation::None => "none",
            Activation::Relu => "relu",
            Activation::Clip { .. } => "clip",
            Activation::Sigmoid => "sigmoid",
            Activation::HardSigmoid { .. } => "hard_sigmoid",
            Activation::HardSwish => "hard_swish",
            Activation::LeakyRelu { .. } => "leaky_relu",
            Activation::Silu => "silu",
            Activation::Gelu => "gelu",
            Activation::GeluTanh => "gelu_tanh",
            Activation::Tanh => "tanh",
        }
    }

    /// Read `act`, `act_alpha` and `act_beta`. Errors name an unknown `act`
    /// value, a parameter of the wrong kind, or a parameter the activation does
    /// not take (so equal activations always have equal attributes).
    pub fn from_attrs(attrs: &impl ActAttrs) -> Result<Activation, String> {
        let act = attrs.get_str("act")?.unwrap_or("none");
        let (alpha, beta) = (attrs.get_float("act_alpha")?, attrs.get_float("act_beta")?);
        let takes = match act {
            "clip" | "hard_sigmoid" => 2,
            "leaky_relu" => 1,
            _ => 0,
        };
        for (name, v, n) in [("act_alpha", alpha, 1), ("act_beta", beta, 2)] {
            if v.is_some() && takes < n {
                return Err(format!("attribute `{name}` is not used by act = \"{act}\""));
            }
        }
        Ok(match act {
            "none" => Activation::None,
            "relu" => Activation::Relu,
            "clip" => Activation::Clip { min: alpha.unwrap_or(f32::NEG_INFINITY), max: beta.unwrap_or(f32::INFINITY) },
            "sigmoid" => Activation::Sigmoid,
            "hard_sigmoid" => Activation::HardSigmoid { alpha: alpha.unwrap_or(0.2), beta: beta.unwrap_or(0.5) },
            "hard_swish" => Activation::HardSwish,
            "leaky_relu" => Activation::LeakyRelu { alpha: alpha.unwrap_or(0.01) },
            "silu" => Activation::Silu,
            "gelu" => Activation::Gelu,
            "gelu_tanh" => Activation::GeluTanh,
            "tanh" => Activation::Tanh,
            other => return Err(format!("attribute `act` = \"{other}\" is not one of {}", ACT_NAMES.join("|"))),
        })
    }

    /// Write `act` and its parameters into `attrs`, replacing any previous
    /// `act`, `act_alpha` and `act_beta`; `None` writes nothing. Parameters are
    /// always written explicitly, so the result does not depend on defaults.
    pub fn to_attrs(&self, attrs: &mut impl ActAttrs) {
        for name in ["act", "act_alpha", "act_beta"] {
            attrs.remove(name);
        }
        if *self == Activation::None {
            return;
        }
        attrs.set_str("act", self.name());
        let (alpha, beta) = match *self {
            Activation::Clip { min, max } => (Some(min), Some(max)),
            Activation::HardSigmoid { alpha, beta } => (Some(alpha), Some(beta)),
            Activation::LeakyRelu { alpha } => (Some(alpha), None),
            _ => (None, None),
        };
        if let Some(a) = alpha {
            attrs.set_float("act_alpha", a);
        }
        if let Some(b) = beta {
            attrs.set_float("act_beta", b);
        }
    }

    /// The kernels' formula: one `f32` value, every step in f32 (`erf`
    /// evaluated in f64 by [`erf_cody`] and rounded).
    #[inline(always)]
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
            Activation::HardSwish => x * (x * (1.0 / 6.0) + 0.5).clamp(0.0, 1.0),
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
    #[inline(always)]
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

    /// The interpreter's formula on an `f32` element (equal to the unfused
    /// `onnx.*` op's result; not [`Activation::apply`], the kernels' f32 form).
    #[inline(always)]
    pub fn apply_f32(&self, x: f32) -> f32 {
        self.apply_rounded(x as f64, |v| v as f32 as f64) as f32
    }

    /// The interpreter's formula on an `f64` element (equal to the unfused
    /// `onnx.*` op's result).
    #[inline]
    pub fn apply_f64(&self, x: f64) -> f64 {
        self.apply_rounded(x, |v| v)
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
