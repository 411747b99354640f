//! NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss over `[N, C, d...]`
//! inputs and `[N, d...]` targets.
//!
//! The arithmetic follows the reference interpreter's f32 path step by step
//! (the same summation order), so results agree bit for bit.

use crate::strided::numel;

/// The `reduction` attribute of the losses.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Reduction {
    /// One loss per target element (`[N, d...]`).
    None,
    /// The sum of the losses (a scalar).
    Sum,
    /// The sum divided by the sum of the applied weights (a scalar; NaN when
    /// every target is ignored).
    Mean,
}

/// The parameters of a loss: input shape `[N, C, d...]`, optional class
/// weights `[C]`, the ignored target value and the reduction.
#[derive(Copy, Clone, Debug)]
pub struct Loss<'a> {
    /// `[N, C, d...]` (rank ≥ 2).
    pub shape: &'a [usize],
    /// One weight per class, or `None` for all ones.
    pub weight: Option<&'a [f32]>,
    /// Targets equal to this contribute 0 and no weight.
    pub ignore_index: Option<i64>,
    /// How the per-element losses are combined.
    pub reduction: Reduction,
}

impl Loss<'_> {
    /// Elements of the output: `N · d` for `Reduction::None`, else 1.
    pub fn out_len(&self) -> usize {
        match self.reduction {
            Reduction::None => self.shape[0] * numel(&self.shape[2..]),
            _ => 1,
        }
    }
}

/// `NegativeLogLikelihoodLoss`: `-logp[n, t, d] · weight[t]` at each target
/// `t = target[n, d]` (0 where `t` is the ignored value), then reduced.
/// Panics (a run-time error) on a target outside `[0, C)` that is not
/// ignored.
pub fn nll_loss<I: Copy + Into<i64>>(p: &Loss<'_>, logp: &[f32], target: &[I], out: &mut [f32]) {
    assert!(p.shape.len() >= 2, "nll_loss: input shape {:?} needs rank >= 2", p.shape);
    let (n, c, d) = (p.shape[0], p.shape[1], numel(&p.shape[2..]));
    assert_eq!(logp.len(), n * c * d, "nll_loss: input holds {} elements for {:?}", logp.len(), p.shape);
    assert_eq!(target.len(), n * d, "nll_loss: target holds {} elements for {:?}", target.len(), p.shape);
    assert_eq!(out.len(), p.out_len(), "nll_loss: out holds {} elements", out.len());
    if let Some(w) = p.weight {
        assert_eq!(w.len(), c, "nll_loss: {} weights for {c} classes", w.len());
    }
    let (mut total, mut wsum) = (0f32, 0f32);
    for i in 0..n {
        for j in 0..d {
            let t: i64 = target[i * d + j].into();
            let loss = if p.ignore_index == Some(t) {
                0.0
            } else {
                assert!(
                    t >= 0 && (t as usize) < c,
                    "NegativeLogLikelihoodLoss: target value {t} is out of range for {c} classes"
                );
                let w = p.weight.map_or(1.0, |w| w[t as usize]);
                wsum += w;
                -logp[(i * c + t as usize) * d + j] * w
            };
            match p.reduction {
                Reduction::None => out[i * d + j] = loss,
                _ => total += loss,
            }
        }
    }
    match p.reduction {
        Reduction::None => {}
        Reduction::Sum => out[0] = total,
        Reduction::Mean => out[0] = total / wsum,
    }
}

/// Log-softmax over the class axis 1 of `[N, C, d...]`:
/// `x - max - ln(Σ exp(x - max))` (max NaN-propagating, as the interpreter).
pub fn log_softmax_classes(shape: &[usize], x: &[f32], y: &mut [f32]) {
    assert!(shape.len() >= 2, "log_softmax_classes: shape {shape:?} needs rank >= 2");
    let (n, c, d) = (shape[0], shape[1], numel(&shape[2..]));
    assert!(x.len() == n * c * d && y.len() == x.len(), "log_softmax_classes: lengths for {shape:?}");
    for i in 0..n {
        for j in 0..d {
            let at = |k: usize| (i * c + k) * d + j;
            let max = (0..c).map(|k| x[at(k)]).fold(f32::NEG_INFINITY, max_nan);
            let sum: f32 = (0..c).map(|k| (x[at(k)] - max).exp()).sum();
            let ln = sum.ln();
            for k in 0..c {
                y[at(k)] = x[at(k)] - max - ln;
            }
        }
    }
}

/// NaN-propagating maximum.
fn max_nan(a: f32, b: f32) -> f32 {
    if a.is_nan() || b.is_nan() {
        f32::NAN
    } else if b > a {
        b
    } else {
        a
    }
}

/// Scratch `f32`s [`softmax_cross_entropy`] needs for `shape`.
pub fn softmax_cross_entropy_scratch_len(shape: &[usize]) -> usize {
    numel(shape)
}

/// `SoftmaxCrossEntropyLoss`: [`nll_loss`] of the log-softmax of `scores`
/// over the class axis (computed into `scratch`, at least
/// [`softmax_cross_entropy_scratch_len`] long).
pub fn softmax_cross_entropy<I: Copy + Into<i64>>(
    p: &Loss<'_>,
    scores: &[f32],
    target: &[I],
    out: &mut [f32],
    scratch: &mut [f32],
) {
    let n = numel(p.shape);
    assert!(scratch.len() >= n, "softmax_cross_entropy: scratch of {} for {n}", scratch.len());
    let logp = &mut scratch[..n];
    log_softmax_classes(p.shape, scores, logp);
    nll_loss(p, logp, target, out);
}
