//! The activation functions of the ONNX recurrent ops (RNN, GRU, LSTM:
//! `activations`, `activation_alpha`, `activation_beta`) and the resolution
//! of those attributes, for the interpreter (f64) and the kernels (f32).

use crate::act::sigmoid;
use crate::Float;

/// A recurrent-op activation function. Parameters carry the values the
/// attributes gave, or the ONNX defaults.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Activation<F> {
    /// `max(x, 0)`.
    Relu,
    /// `tanh(x)`.
    Tanh,
    /// `1 / (1 + exp(-x))`.
    Sigmoid,
    /// `alpha · x + beta` (defaults 1, 0).
    Affine {
        /// Slope.
        alpha: F,
        /// Offset.
        beta: F,
    },
    /// `x < 0 ? alpha · x : x` (default alpha 0.01).
    LeakyRelu {
        /// Negative slope.
        alpha: F,
    },
    /// `x > alpha ? x : 0` (default alpha 1).
    ThresholdedRelu {
        /// Threshold.
        alpha: F,
    },
    /// `alpha · tanh(beta · x)` (defaults 1, 1).
    ScaledTanh {
        /// Output scale.
        alpha: F,
        /// Input scale.
        beta: F,
    },
    /// `clamp(alpha · x + beta, 0, 1)` (defaults 0.2, 0.5).
    HardSigmoid {
        /// Slope.
        alpha: F,
        /// Offset.
        beta: F,
    },
    /// `x < 0 ? alpha · (exp(x) − 1) : x` (default alpha 1).
    Elu {
        /// Scale of the negative part.
        alpha: F,
    },
    /// `x / (1 + |x|)`.
    Softsign,
    /// `ln(1 + exp(x))`.
    Softplus,
}

impl<F: Float> Activation<F> {
    /// Apply to one value, in `F`'s precision (`Softplus` and `Elu` in forms
    /// that neither overflow nor lose precision near 0).
    #[inline]
    pub fn apply(self, x: F) -> F {
        match self {
            Activation::Relu => x.max(F::ZERO),
            Activation::Tanh => x.tanh(),
            Activation::Sigmoid => sigmoid(x),
            Activation::Affine { alpha, beta } => alpha * x + beta,
            Activation::LeakyRelu { alpha } => {
                if x < F::ZERO {
                    alpha * x
                } else {
                    x
                }
            }
            Activation::ThresholdedRelu { alpha } => {
                if x > alpha {
                    x
                } else {
                    F::ZERO
                }
            }
            Activation::ScaledTanh { alpha, beta } => alpha * (beta * x).tanh(),
            Activation::HardSigmoid { alpha, beta } => (alpha * x + beta).clamp(F::ZERO, F::ONE),
            Activation::Elu { alpha } => {
                if x < F::ZERO {
                    alpha * x.exp_m1()
                } else {
                    x
                }
            }
            Activation::Softsign => x / (F::ONE + x.abs()),
            Activation::Softplus => x.max(F::ZERO) + (-x.abs()).exp().ln_1p(),
        }
    }

    /// The function named `name` (ONNX spelling, case-insensitive), taking
    /// its alpha/beta from `alpha`/`beta` when it has such a parameter (the
    /// default when the iterator is exhausted). `None` for an unknown name.
    pub fn from_onnx(
        name: &str,
        alpha: &mut impl Iterator<Item = F>,
        beta: &mut impl Iterator<Item = F>,
    ) -> Option<Activation<F>> {
        let mut a = |d: f64| alpha.next().unwrap_or(F::from_f64(d));
        let mut b = |d: f64| beta.next().unwrap_or(F::from_f64(d));
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

/// Resolve the `activations` attribute of an op with `defaults.len()`
/// functions per direction into one list of `defaults.len() · dirs`
/// functions, direction after direction.
///
/// `names` holds `N · dirs` names, or `N` names repeated for every
/// direction, or is `None` for `defaults`. Alphas and betas are consumed in
/// order by the functions (across directions, the repeated names included)
/// that take such a parameter. Errors on an unknown name or a wrong count.
pub fn resolve_activations<F: Float, S: AsRef<str>>(
    names: Option<&[S]>,
    alphas: &[F],
    betas: &[F],
    defaults: &[Activation<F>],
    dirs: usize,
) -> Result<Vec<Activation<F>>, String> {
    let n = defaults.len();
    let Some(names) = names else { return Ok(defaults.iter().cycle().take(n * dirs).copied().collect()) };
    if names.len() != n * dirs && names.len() != n {
        return Err(format!("`activations` has {} entries, expected {}", names.len(), n * dirs));
    }
    let (mut a, mut b) = (alphas.iter().copied(), betas.iter().copied());
    names
        .iter()
        .cycle()
        .take(n * dirs)
        .map(|name| {
            let name = name.as_ref();
            Activation::from_onnx(name, &mut a, &mut b).ok_or_else(|| format!("unknown activation function {name:?}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    type A = Activation<f32>;

    #[test]
    fn parameters_are_consumed_in_order() {
        let names = ["Affine", "Relu", "LeakyRelu"];
        let got = resolve_activations(Some(&names[..]), &[2.0, 3.0], &[4.0], &[A::Relu; 3], 2).unwrap();
        let want0 =
            [Activation::Affine { alpha: 2.0, beta: 4.0 }, Activation::Relu, Activation::LeakyRelu { alpha: 3.0 }];
        let want1 =
            [Activation::Affine { alpha: 1.0, beta: 0.0 }, Activation::Relu, Activation::LeakyRelu { alpha: 0.01 }];
        assert_eq!(got, [want0, want1].concat());
    }

    #[test]
    fn bad_lists_are_rejected() {
        assert!(resolve_activations(Some(&["Tanh", "Tanh"][..]), &[], &[], &[A::Tanh; 3], 1).is_err());
        assert!(resolve_activations(Some(&["Gelu"][..]), &[], &[], &[A::Tanh; 1], 1).is_err());
        let two = resolve_activations(Some(&["sigmoid"][..]), &[], &[], &[A::Tanh; 1], 2).unwrap();
        assert_eq!(two, [A::Sigmoid; 2]);
        let none = resolve_activations::<f32, &str>(None, &[], &[], &[A::Tanh, A::Relu], 2).unwrap();
        assert_eq!(none, [A::Tanh, A::Relu, A::Tanh, A::Relu]);
    }

    #[test]
    fn stable_forms() {
        assert_eq!(A::Softplus.apply(200.0), 200.0);
        assert!((A::Softplus.apply(0.0) - std::f32::consts::LN_2).abs() < 1e-7);
        assert!((A::Elu { alpha: 1.0 }.apply(-1e-9) + 1e-9).abs() < 1e-15);
    }
}
