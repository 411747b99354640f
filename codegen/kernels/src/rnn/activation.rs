//! The activation functions of the ONNX recurrent ops (`activations`,
//! `activation_alpha`, `activation_beta`), and the resolution of those
//! attributes into one list per direction, as edgec's interpreter does it.

use crate::act::sigmoid;

/// A recurrent-op activation function. Parameters carry the values the
/// attributes gave, or the ONNX defaults.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Activation {
    /// `max(x, 0)`.
    Relu,
    /// `tanh(x)`.
    Tanh,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `alpha · x + beta` (defaults 1, 0).
    Affine {
        /// Slope.
        alpha: f32,
        /// Offset.
        beta: f32,
    },
    /// `x < 0 ? alpha · x : x` (default alpha 0.01).
    LeakyRelu {
        /// Negative slope.
        alpha: f32,
    },
    /// `x > alpha ? x : 0` (default alpha 1).
    ThresholdedRelu {
        /// Threshold.
        alpha: f32,
    },
    /// `alpha · tanh(beta · x)` (defaults 1, 1).
    ScaledTanh {
        /// Output scale.
        alpha: f32,
        /// Input scale.
        beta: f32,
    },
    /// `clamp(alpha · x + beta, 0, 1)` (defaults 0.2, 0.5).
    HardSigmoid {
        /// Slope.
        alpha: f32,
        /// Offset.
        beta: f32,
    },
    /// `x < 0 ? alpha · (exp(x) − 1) : x` (default alpha 1).
    Elu {
        /// Scale of the negative part.
        alpha: f32,
    },
    /// `x / (1 + |x|)`.
    Softsign,
    /// `ln(1 + exp(x))`.
    Softplus,
}

impl Activation {
    /// Apply to one value (in f32; `Softplus` and `Elu` in forms that neither
    /// overflow nor lose precision near 0).
    #[inline]
    pub fn apply(self, x: f32) -> f32 {
        match self {
            Activation::Relu => x.max(0.0),
            Activation::Tanh => x.tanh(),
            Activation::Sigmoid => sigmoid(x),
            Activation::Affine { alpha, beta } => alpha * x + beta,
            Activation::LeakyRelu { alpha } => {
                if x < 0.0 {
                    alpha * x
                } else {
                    x
                }
            }
            Activation::ThresholdedRelu { alpha } => {
                if x > alpha {
                    x
                } else {
                    0.0
                }
            }
            Activation::ScaledTanh { alpha, beta } => alpha * (beta * x).tanh(),
            Activation::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(0.0, 1.0),
            Activation::Elu { alpha } => {
                if x < 0.0 {
                    alpha * x.exp_m1()
                } else {
                    x
                }
            }
            Activation::Softsign => x / (1.0 + x.abs()),
            Activation::Softplus => x.max(0.0) + (-x.abs()).exp().ln_1p(),
        }
    }

    /// The function named `name` (ONNX spelling, case-insensitive), taking
    /// its alpha/beta from `alpha`/`beta` when it has such a parameter (the
    /// default when the iterator is exhausted). `None` for an unknown name.
    pub fn from_onnx(
        name: &str,
        alpha: &mut impl Iterator<Item = f32>,
        beta: &mut impl Iterator<Item = f32>,
    ) -> Option<Activation> {
        let mut a = |d: f32| alpha.next().unwrap_or(d);
        let mut b = |d: f32| beta.next().unwrap_or(d);
        Some(match name.to_ascii_lowercase().as_str() {
            "relu" => Activation::Relu,
            "tanh" => Activation::Tanh,
            "sigmoid" => Activation::Sigmoid,
            "affine" => Activation::Affine { alpha: a(1.0), beta: b(0.0) },
            "leakyrelu" => Activation::LeakyRelu { alpha: a(0.01) },
            "thresholdedrelu" => Activation::ThresholdedRelu { alpha: a(1.0) },
            "scaledtanh" => Activation::ScaledTanh { alpha: a(1.0), beta: b(1.0) },
            "hardsigmoid" => Activation::HardSigmoid { alpha: a(0.2), beta: b(0.5) },
            "elu" => Activation::Elu { alpha: a(1.0) },
            "softsign" => Activation::Softsign,
            "softplus" => Activation::Softplus,
            _ => return None,
        })
    }
}

/// Resolve the `activations` attribute of an op with `N` functions per
/// direction into `[forward, reverse]` lists (`dirs` is 1 or 2; with one
/// direction both lists are that direction's).
///
/// `names` holds `N · dirs` names, or `N` names repeated for every
/// direction, or is `None` for `defaults`. Alphas and betas are consumed in
/// order by the functions (across directions, the repeated names included)
/// that take such a parameter. Errors on an unknown name or a wrong count.
pub fn resolve_activations<const N: usize>(
    names: Option<&[&str]>,
    alphas: &[f32],
    betas: &[f32],
    defaults: [Activation; N],
    dirs: usize,
) -> Result<[[Activation; N]; 2], String> {
    assert!(dirs == 1 || dirs == 2, "{dirs} directions");
    let Some(names) = names else { return Ok([defaults; 2]) };
    if names.len() != N * dirs && names.len() != N {
        return Err(format!("`activations` has {} entries, expected {}", names.len(), N * dirs));
    }
    let (mut a, mut b) = (alphas.iter().copied(), betas.iter().copied());
    let mut out = [defaults; 2];
    for (i, name) in names.iter().cycle().take(N * dirs).enumerate() {
        out[i / N][i % N] = Activation::from_onnx(name, &mut a, &mut b)
            .ok_or_else(|| format!("unknown activation function {name:?}"))?;
    }
    if dirs == 1 {
        out[1] = out[0];
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_consumed_in_order() {
        let names = ["Affine", "Relu", "LeakyRelu"];
        let got = resolve_activations(Some(&names), &[2.0, 3.0], &[4.0], [Activation::Relu; 3], 2).unwrap();
        let want0 =
            [Activation::Affine { alpha: 2.0, beta: 4.0 }, Activation::Relu, Activation::LeakyRelu { alpha: 3.0 }];
        let want1 =
            [Activation::Affine { alpha: 1.0, beta: 0.0 }, Activation::Relu, Activation::LeakyRelu { alpha: 0.01 }];
        assert_eq!(got, [want0, want1]);
    }

    #[test]
    fn bad_lists_are_rejected() {
        assert!(resolve_activations(Some(&["Tanh", "Tanh"]), &[], &[], [Activation::Tanh; 3], 1).is_err());
        assert!(resolve_activations(Some(&["Gelu"]), &[], &[], [Activation::Tanh; 1], 1).is_err());
        let one = resolve_activations(Some(&["sigmoid"]), &[], &[], [Activation::Tanh; 1], 1).unwrap();
        assert_eq!(one, [[Activation::Sigmoid]; 2]);
    }

    #[test]
    fn stable_forms() {
        assert_eq!(Activation::Softplus.apply(200.0), 200.0);
        assert!((Activation::Softplus.apply(0.0) - std::f32::consts::LN_2).abs() < 1e-7);
        assert!((Activation::Elu { alpha: 1.0 }.apply(-1e-9) + 1e-9).abs() < 1e-15);
    }
}
