//! Bias correction: the shift int8 rounding puts into each layer's mean
//! output, measured on the calibration set and taken out of its bias
//! (Nagel et al., "Data-Free Quantization", 2019; the empirical form).
//!
//! Rounding weights to int8 is unbiased per weight but not per output
//! channel: `E[(Wq − W)·x] = (Wq − W)·E[x]` is a constant offset per
//! channel, and a network of fifty layers adds them up (with i16
//! activations, the PP-OCRv4 recognizer's int8 weights cost it cosine 0.969;
//! corrected, 0.9989). Clipping an activation shifts its mean too. For each conv and
//! linear layer computed in int8, with `μq` the per-input-channel mean of
//! its quantized input and `μ` that of the same value before its
//! quantization, both in the quantized module over the calibration set,
//! the correction is
//!
//! `δ[c] = Σ_{j,taps} Wq[c,j,taps]·μq[j] − W[c,j,taps]·μ[j]`
//!
//! (the weights' rounding and the input's rounding and clipping; the
//! shifts upstream layers pass on are theirs to correct, so all layers are
//! corrected at once from one set of runs), and the layer is quantized
//! again with bias `b − δ` (a layer without a bias gets one). The taps of
//! a window share their input channel's mean: exact away from the padded
//! border. Deterministic: means are summed in sample order.

use super::rewrite::{const_weight, dequantized_weight};
use super::{quantize, Options, QuantError, Quantized};
use crate::calibrate::{CalibError, Observer};
use ir::interp::Tensor;
use ir::{Module, OpId, Opcode, Value};
use std::collections::BTreeMap;

/// The calibration set bias correction measures on.
pub struct Correction<'a> {
    samples: &'a [Vec<Tensor>],
}

impl<'a> Correction<'a> {
    /// Correct on `samples` (the calibration set).
    pub fn new(samples: &'a [Vec<Tensor>]) -> Correction<'a> {
        Correction { samples }
    }

    /// Interpreter runs each [`Correction::apply`] makes.
    pub fn runs(&self) -> usize {
        self.samples.len()
    }

    /// Measure `q`'s input means (one run per sample, `tick` after each)
    /// and quantize `fp` again with the corrected biases.
    pub fn apply(
        &self,
        fp: &Module,
        obs: &BTreeMap<Value, Observer>,
        opts: &Options,
        q: Quantized,
        tick: &mut dyn FnMut(),
    ) -> Result<Quantized, QuantError> {
        let f = fp.func("main").ok_or(QuantError::NoMain)?;
        let fq = q.module.func("main").ok_or(QuantError::NoMain)?;
        // Per layer: its input after quantization and before.
        let watch: Vec<(OpId, Value, Value)> = layers(fp)
            .into_iter()
            .filter(|op| q.weights.iter().any(|w| w.0 == *op))
            .filter_map(|op| {
                let dq = fq.ops[op].operand(0)?;
                let pre = f.ops[op].operand(0).filter(|v| q.acts.contains_key(v)).unwrap_or(dq);
                Some((op, dq, pre))
            })
            .collect();
        let means =
            channel_means(&q.module, &watch, self.samples, tick).map_err(|e| QuantError::Eval(e.to_string()))?;
        let mut opts = opts.clone();
        opts.bias_shift = watch
            .iter()
            .filter_map(|&(op, dq, pre)| Some((op, shift(fp, &q.module, op, means.get(&pre)?, means.get(&dq)?)?)))
            .collect();
        quantize(fp, obs, &opts)
    }
}

/// The ops bias correction applies to: convs and linear layers with a
/// constant weight, in program order.
fn layers(m: &Module) -> Vec<OpId> {
    let Some(f) = m.func("main") else { return vec![] };
    let corrected = |op: &ir::OpData| matches!(op.opcode, Opcode::CoreConv | Opcode::Conv | Opcode::CoreLinear);
    f.body.ops.iter().copied().filter(|&id| corrected(&f.ops[id]) && const_weight(m, f, id).is_some()).collect()
}

/// The axis of an op's input that its weight's input channels run along
/// (negative: from the last).
fn channel_axis(opcode: Opcode) -> isize {
    match opcode {
        Opcode::CoreLinear => -1,
        _ => 1,
    }
}

/// The per-channel means over `samples` of the values `watch` lists (a
/// layer's quantized input and that input before quantization; channels
/// along the layer's [`channel_axis`]), running `m` once per sample.
fn channel_means(
    m: &Module,
    watch: &[(OpId, Value, Value)],
    samples: &[Vec<Tensor>],
    tick: &mut dyn FnMut(),
) -> Result<BTreeMap<Value, Vec<f64>>, CalibError> {
    let Some(f) = m.func("main") else { return Ok(BTreeMap::new()) };
    // Each value once, along the axis of the first layer reading it.
    let values: BTreeMap<Value, isize> =
        watch.iter().rev().flat_map(|&(op, dq, pre)| [dq, pre].map(|v| (v, channel_axis(f.ops[op].opcode)))).collect();
    let stats = super::channels::channel_stats(m, &values, samples, tick)?;
    Ok(stats.into_iter().map(|(v, s)| (v, s.mean)).collect())
}

/// `δ` of the module docs for op `id` of `fp`, with `Wq` as `q` (the
/// quantized module) holds it: one value per output channel, or `None`
/// when the shapes do not line up.
fn shift(fp: &Module, q: &Module, id: OpId, mu: &[f64], muq: &[f64]) -> Option<Vec<f32>> {
    let f = fp.func("main")?;
    let op = &f.ops[id];
    let (dims, w) = const_weight(fp, f, id)?;
    let (qdims, wq) = dequantized_weight(q, q.func("main")?, id)?;
    if qdims != dims {
        return None;
    }
    let dims: Vec<usize> = dims.iter().map(|&d| d as usize).collect();
    let term = |i: usize, j: usize| wq[i] * muq[j] - f64::from(w[i]) * mu[j];
    if mu.len() != muq.len() {
        return None;
    }
    let delta: Vec<f64> = if op.opcode == Opcode::CoreLinear {
        // B is [K, N], or [N, K] with trans_b.
        let trans = matches!(op.attrs.get("trans_b"), Some(ir::Attr::Int(1)));
        let [a, b] = dims[..] else { return None };
        let (k, n) = if trans { (b, a) } else { (a, b) };
        if k != mu.len() {
            return None;
        }
        let at = |kk: usize, nn: usize| if trans { nn * k + kk } else { kk * n + nn };
        (0..n).map(|nn| (0..k).map(|kk| term(at(kk, nn), kk)).sum()).collect()
    } else {
        // W is [M, C / groups, taps...].
        let (m, cg) = (*dims.first()?, *dims.get(1)?);
        let taps: usize = dims[2..].iter().product();
        if cg == 0 || !mu.len().is_multiple_of(cg) || !m.is_multiple_of(mu.len() / cg) {
            return None;
        }
        let mg = m / (mu.len() / cg);
        (0..m)
            .map(|c| {
                let first = (c / mg) * cg;
                (0..cg * taps).map(|t| term(c * cg * taps + t, first + t / taps)).sum()
            })
            .collect()
    };
    Some(delta.into_iter().map(|d| d as f32).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::observe;
    use ir::interp::run;
    use ir::interp::Data;

    /// Rows of `per_row` weights: a 1.0 (the row's scale is then 1/127)
    /// and `(k + 0.4)/127`, which round down by 0.4 of a step: the rounding
    /// shifts every output channel's mean the same way.
    fn biased_weights(rows: usize, per_row: usize) -> String {
        let w = |i: usize| if i.is_multiple_of(per_row) { 1.0 } else { ((i % 7) as f64 - 3.0 + 0.4) / 127.0 };
        (0..rows * per_row).map(|i| format!("{:.7}", w(i))).collect::<Vec<_>>().join(", ")
    }

    fn parse(src: &str) -> Module {
        ir::text::parse_module(src, "correct.eir", None).expect("parses").module
    }

    /// Inputs in [0, 1) (a 64-bit LCG): a mean far from 0.
    fn samples(shape: &[usize], n: u64) -> Vec<Vec<Tensor>> {
        let len = shape.iter().product();
        (0..n)
            .map(|seed| {
                let mut s = seed.wrapping_add(7);
                let xs = (0..len)
                    .map(|_| {
                        s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        (s >> 40) as f32 / (1u64 << 24) as f32
                    })
                    .collect();
                vec![Tensor { shape: shape.to_vec(), data: Data::F32(xs) }]
            })
            .collect()
    }

    /// Per output channel (`axis`), the mean of quantized minus float outputs.
    fn mean_error(fp: &Module, q: &Module, data: &[Vec<Tensor>], axis: usize) -> Vec<f64> {
        let mut sums: Vec<(f64, f64)> = vec![];
        for x in data {
            let (a, b) = (run(fp, "main", x.clone()).unwrap(), run(q, "main", x.clone()).unwrap());
            let shape = &a[0].shape;
            let (Data::F32(a), Data::F32(b)) = (&a[0].data, &b[0].data) else { panic!("f32 outputs") };
            let (c, inner) = (shape[axis], shape[axis + 1..].iter().product::<usize>());
            sums.resize(c, (0.0, 0.0));
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                let s = &mut sums[(i / inner) % c];
                *s = (s.0 + f64::from(y - x), s.1 + 1.0);
            }
        }
        sums.into_iter().map(|(s, n)| s / n).collect()
    }

    /// Quantize `m` with and without correction; the corrected per-channel
    /// mean error must be under a tenth of the uncorrected one.
    fn check(m: &Module, data: &[Vec<Tensor>], axis: usize) {
        let obs = observe(m, data).unwrap();
        let opts = Options::default();
        let plain = quantize(m, &obs, &opts).unwrap();
        let corrected = Correction::new(data).apply(m, &obs, &opts, plain.clone(), &mut || {}).unwrap();
        assert_eq!((plain.bias_corrected, corrected.bias_corrected), (0, 1));
        let (before, after) = (mean_error(m, &plain.module, data, axis), mean_error(m, &corrected.module, data, axis));
        for (b, a) in before.iter().zip(&after) {
            assert!(b.abs() > 1e-3 && a.abs() < 0.1 * b.abs(), "mean error {b} before, {a} after");
        }
    }

    #[test]
    fn a_conv_without_bias_gets_one_that_cancels_its_rounding_shift() {
        let src = format!(
            r#"module @m attributes {{phase = "core"}} {{
  const @w : f32[4, 3, 3, 3] = dense<[{}]>
  func @main(%x: f32[1, 3, 8, 8]) -> (f32[1, 4, 6, 6]) {{
    %w = core.const {{value = @w}} : f32[4, 3, 3, 3]
    %0 = core.conv %x, %w : f32[1, 4, 6, 6] loc("conv" op "Conv")
    return %0
  }}
}}"#,
            biased_weights(4, 27)
        );
        check(&parse(&src), &samples(&[1, 3, 8, 8], 8), 1);
    }

    #[test]
    fn a_transposed_linear_layer_is_corrected_per_output_feature() {
        let src = format!(
            r#"module @m attributes {{phase = "core"}} {{
  const @w : f32[3, 18] = dense<[{}]>
  const @b : f32[3] = dense<[0.1, -0.2, 0.3]>
  func @main(%x: f32[5, 18]) -> (f32[5, 3]) {{
    %w = core.const {{value = @w}} : f32[3, 18]
    %b = core.const {{value = @b}} : f32[3]
    %0 = core.linear %x, %w, %b {{trans_b = 1}} : f32[5, 3] loc("fc" op "Gemm")
    return %0
  }}
}}"#,
            biased_weights(3, 18)
        );
        check(&parse(&src), &samples(&[5, 18], 8), 1);
    }
}
