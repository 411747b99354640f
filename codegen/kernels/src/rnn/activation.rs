//! The recurrent ops' activation functions in f32: the numeric core's
//! [`edgec_numeric::rnn`] (shared with the interpreter), resolved into one
//! fixed-size list per direction for the cells.

/// A recurrent-op activation function, in f32.
pub type Activation = edgec_numeric::rnn::Activation<f32>;

/// Resolve the `activations` attribute of an op with `N` functions per
/// direction into `[forward, reverse]` lists (`dirs` is 1 or 2; with one
/// direction both lists are that direction's); see
/// [`edgec_numeric::rnn::resolve_activations`] for the attribute rules.
pub fn resolve_activations<const N: usize>(
    names: Option<&[&str]>,
    alphas: &[f32],
    betas: &[f32],
    defaults: [Activation; N],
    dirs: usize,
) -> Result<[[Activation; N]; 2], String> {
    if !(1..=2).contains(&dirs) {
        return Err(format!("{dirs} directions (expected 1 or 2)"));
    }
    let flat = edgec_numeric::rnn::resolve_activations(names, alphas, betas, &defaults, dirs)?;
    let mut out = [defaults; 2];
    for (i, a) in flat.into_iter().enumerate() {
        out[i / N][i % N] = a;
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
    fn one_list_per_direction() {
        let names = ["Affine", "Relu", "LeakyRelu"];
        let got = resolve_activations(Some(&names), &[2.0, 3.0], &[4.0], [Activation::Relu; 3], 2).unwrap();
        let want0 =
            [Activation::Affine { alpha: 2.0, beta: 4.0 }, Activation::Relu, Activation::LeakyRelu { alpha: 3.0 }];
        let want1 =
            [Activation::Affine { alpha: 1.0, beta: 0.0 }, Activation::Relu, Activation::LeakyRelu { alpha: 0.01 }];
        assert_eq!(got, [want0, want1]);
        let one = resolve_activations(Some(&["sigmoid"]), &[], &[], [Activation::Tanh; 1], 1).unwrap();
        assert_eq!(one, [[Activation::Sigmoid]; 2]);
        assert!(resolve_activations(Some(&["Tanh"]), &[], &[], [Activation::Tanh; 1], 3).is_err());
    }
}
