//! One-input float functions shared by the interpreter (f64), the kernels'
//! f64/f16/bf16 path (f64) and their f32 path (f32, where the kernels use
//! these forms; sigmoid-based ones there use faster forms of their own).

use crate::Float;

/// `ln(1 + e^x)` without overflow.
pub fn softplus<F: Float>(x: F) -> F {
    if x > F::ZERO {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// ELU: `x > 0 ? x : alpha (e^x - 1)`.
pub fn elu<F: Float>(x: F, alpha: F) -> F {
    if x > F::ZERO {
        x
    } else {
        alpha * x.exp_m1()
    }
}

/// CELU: `x > 0 ? x : alpha (e^(x / alpha) - 1)`.
pub fn celu<F: Float>(x: F, alpha: F) -> F {
    if x > F::ZERO {
        x
    } else {
        alpha * (x / alpha).exp_m1()
    }
}

/// ScaledTanh: `alpha tanh(beta x)`.
pub fn scaled_tanh<F: Float>(x: F, alpha: F, beta: F) -> F {
    alpha * (beta * x).tanh()
}

/// Shrink: `x < -lambd ? x + bias : x > lambd ? x - bias : 0`.
pub fn shrink<F: Float>(x: F, lambd: F, bias: F) -> F {
    if x < -lambd {
        x + bias
    } else if x > lambd {
        x - bias
    } else {
        F::ZERO
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas() {
        assert_eq!(softplus(1000.0f64), 1000.0);
        assert_eq!(softplus(100.0f32), 100.0);
        assert_eq!(shrink(2.0f64, 0.5, 1.0), 1.0);
        assert_eq!(shrink(0.2f32, 0.5, 1.0), 0.0);
        assert_eq!(elu(2.0f64, 1.0), 2.0);
        assert_eq!(celu(-0.0f64, 1.0), -0.0);
    }
}
