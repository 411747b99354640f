//! One-input float functions in f64 shared by the interpreter and the
//! kernels' f64/f16/bf16 path (the kernels' f32 path uses faster forms of
//! its own, compared with these at a tolerance).

/// `ln(1 + e^x)` without overflow.
pub fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

/// ELU: `x > 0 ? x : alpha (e^x - 1)`.
pub fn elu(x: f64, alpha: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        alpha * x.exp_m1()
    }
}

/// CELU: `x > 0 ? x : alpha (e^(x / alpha) - 1)`.
pub fn celu(x: f64, alpha: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        alpha * (x / alpha).exp_m1()
    }
}

/// Shrink: `x < -lambd ? x + bias : x > lambd ? x - bias : 0`.
pub fn shrink(x: f64, lambd: f64, bias: f64) -> f64 {
    if x < -lambd {
        x + bias
    } else if x > lambd {
        x - bias
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formulas() {
        assert_eq!(softplus(1000.0), 1000.0);
        assert_eq!(shrink(2.0, 0.5, 1.0), 1.0);
        assert_eq!(shrink(0.2, 0.5, 1.0), 0.0);
        assert_eq!(elu(2.0, 1.0), 2.0);
        assert_eq!(celu(-0.0, 1.0), -0.0);
    }
}
