//! Activation epilogues fused into conv/linear kernels, and the same
//! functions as standalone elementwise ops. The formulas are those of the
//! ONNX ops (and of edgec's reference interpreter), evaluated in f32.

/// An activation applied to every element of a kernel's result.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub enum Act {
    /// Identity.
    #[default]
    None,
    /// `max(x, 0)`.
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
    /// `x >= 0 ? x : alpha * x`.
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

impl Act {
    /// Apply to one value.
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Act::None => x,
            Act::Relu => {
                if x < 0.0 {
                    0.0
                } else {
                    x
                }
            }
            Act::Clip { min, max } => x.max(min).min(max),
            Act::Sigmoid => sigmoid(x),
            Act::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(0.0, 1.0),
            Act::HardSwish => x * (x / 6.0 + 0.5).clamp(0.0, 1.0),
            Act::LeakyRelu { alpha } => {
                if x < 0.0 {
                    alpha * x
                } else {
                    x
                }
            }
            Act::Silu => x * sigmoid(x),
            Act::Gelu => 0.5 * x * (1.0 + erf(x / std::f32::consts::SQRT_2)),
            Act::GeluTanh => {
                let k = (2.0 / std::f32::consts::PI).sqrt();
                0.5 * x * (1.0 + (k * (x + 0.044715 * x * x * x)).tanh())
            }
            Act::Tanh => x.tanh(),
        }
    }

    /// Apply in place to every element. The variant is matched once, outside
    /// the loop, so each loop is a straight-line map the compiler vectorizes
    /// (sigmoid-based variants use the branch-free [`crate::math::exp`]).
    pub fn apply_slice(self, v: &mut [f32]) {
        if self != Act::None {
            act_slice(self, v);
        }
    }

    #[inline(always)]
    fn apply_slice_inline(self, v: &mut [f32]) {
        use crate::math::sigmoid as fast_sigmoid;
        match self {
            Act::None => {}
            Act::Relu => v.iter_mut().for_each(|x| *x = if *x < 0.0 { 0.0 } else { *x }),
            Act::Clip { min, max } => v.iter_mut().for_each(|x| *x = x.max(min).min(max)),
            Act::Sigmoid => v.iter_mut().for_each(|x| *x = fast_sigmoid(*x)),
            Act::HardSigmoid { alpha, beta } => v.iter_mut().for_each(|x| *x = (alpha * *x + beta).clamp(0.0, 1.0)),
            Act::HardSwish => v.iter_mut().for_each(|x| *x *= (*x / 6.0 + 0.5).clamp(0.0, 1.0)),
            Act::LeakyRelu { alpha } => v.iter_mut().for_each(|x| *x = if *x < 0.0 { alpha * *x } else { *x }),
            Act::Silu => v.iter_mut().for_each(|x| *x *= fast_sigmoid(*x)),
            Act::Tanh => v.iter_mut().for_each(|x| *x = 2.0 * fast_sigmoid(2.0 * *x) - 1.0),
            Act::GeluTanh => {
                let k = (2.0 / std::f32::consts::PI).sqrt();
                v.iter_mut().for_each(|x| *x *= fast_sigmoid(2.0 * k * (*x + 0.044715 * *x * *x * *x)))
            }
            Act::Gelu => v.iter_mut().for_each(|x| *x = self.apply(*x)),
        }
    }
}

crate::multiversion! {
    /// [`Act::apply_slice`], compiled per instruction set.
    fn act_slice(act: Act, v: &mut [f32]) {
        act.apply_slice_inline(v)
    }
}

/// The logistic function, without overflow for large |x|.
#[inline]
pub fn sigmoid(x: f32) -> f32 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The error function (f64 Abramowitz–Stegun 7.1.26 is too coarse; this is
/// the W. J. Cody rational approximation evaluated in f64, accurate to f32).
pub fn erf(x: f32) -> f32 {
    erf_f64(x as f64) as f32
}

/// `erf` in f64 (max relative error about 1e-15 on the real line).
#[allow(clippy::excessive_precision)] // the published coefficients, digit for digit
pub fn erf_f64(x: f64) -> f64 {
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
fn poly(c: &[f64], z: f64) -> f64 {
    c.iter().rev().fold(0.0, |acc, &k| acc * z + k)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn erf_matches_known_values() {
        for (x, want) in [
            (0.0, 0.0),
            (0.5, 0.520_499_877_8),
            (1.0, 0.842_700_792_9),
            (2.0, 0.995_322_265),
            (-1.5, -0.966_105_146_5),
            (5.0, 0.999_999_999_998_5),
        ] {
            assert!((erf_f64(x) - want).abs() < 1e-9, "erf({x}) = {} != {want}", erf_f64(x));
        }
    }

    #[test]
    fn activations() {
        assert_eq!(Act::Relu.apply(-2.0), 0.0);
        assert_eq!(Act::Clip { min: 0.0, max: 6.0 }.apply(7.0), 6.0);
        assert_eq!(Act::HardSwish.apply(3.0), 3.0);
        assert!((Act::Sigmoid.apply(0.0) - 0.5).abs() < 1e-7);
        assert!((sigmoid(-100.0)).abs() < 1e-30 && sigmoid(100.0) == 1.0);
    }
}
