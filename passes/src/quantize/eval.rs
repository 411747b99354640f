//! Accuracy of a quantized module against its float original: per output,
//! per quantized activation (as the next layer reads it) and the share of
//! values each calibrated range clips; the sensitivity of the outputs to
//! each activation's rounding alone; and `--auto-mixed`, which widens the
//! most sensitive activations to i16, then moves the int8 ops that lose
//! most back to float, until the outputs agree.

use super::{Precision, Quantized};
use crate::calibrate::{CalibError, QType};
use ir::interp::{Data, Tensor};
use ir::{Module, OpId, Opcode, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

mod mixed;
pub use mixed::{auto_mixed, sensitivity, Goal, Mixed, Moved, MovedTo, Sensitive};

/// Running agreement between a reference tensor stream and a test one.
#[derive(Clone, Debug, Default)]
pub struct Agreement {
    dot: f64,
    ref2: f64,
    test2: f64,
    err2: f64,
    /// Largest absolute difference.
    pub max_abs: f64,
    /// Elements compared.
    pub count: u64,
    rows: u64,
    rows_agree: u64,
}

impl Agreement {
    /// Add one pair of tensors; rows of `row` elements (the last axis)
    /// count toward top-1 agreement.
    pub fn add(&mut self, reference: &[f32], test: &[f32], row: usize) {
        for (&a, &b) in reference.iter().zip(test) {
            let (a, b) = (f64::from(a), f64::from(b));
            if !(a.is_finite() && b.is_finite()) {
                continue;
            }
            self.dot += a * b;
            self.ref2 += a * a;
            self.test2 += b * b;
            self.err2 += (a - b) * (a - b);
            self.max_abs = self.max_abs.max((a - b).abs());
            self.count += 1;
        }
        if row > 1 {
            for (ra, rb) in reference.chunks_exact(row).zip(test.chunks_exact(row)) {
                self.rows += 1;
                self.rows_agree += u64::from(argmax(ra) == argmax(rb));
            }
        }
    }
    /// Cosine similarity (1 when both are all zero, 0 when only one is).
    pub fn cosine(&self) -> f64 {
        match (self.ref2 > 0.0, self.test2 > 0.0) {
            (false, false) => 1.0,
            (true, true) => self.dot / (self.ref2.sqrt() * self.test2.sqrt()),
            _ => 0.0,
        }
    }
    /// Signal-to-noise ratio in dB (infinite when identical).
    pub fn snr_db(&self) -> f64 {
        if self.err2 == 0.0 {
            f64::INFINITY
        } else {
            10.0 * (self.ref2 / self.err2).log10()
        }
    }
    /// Share of last-axis rows whose arg-max agrees, when rows have more than one element.
    pub fn top1(&self) -> Option<f64> {
        (self.rows > 0).then(|| self.rows_agree as f64 / self.rows as f64)
    }
}

fn argmax(xs: &[f32]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x > xs[best] {
            best = i;
        }
    }
    best
}

/// How a quantized module compares with its float original over a data set.
#[derive(Clone, Debug, Default)]
pub struct Eval {
    /// Per f32 output of `@main`, by position.
    pub outputs: Vec<Agreement>,
    /// Per quantized activation (original value), the float tensor against
    /// the dequantized one the readers see.
    pub layers: BTreeMap<Value, Agreement>,
    /// Per quantized activation, (values outside the calibrated range, values).
    pub clipped: BTreeMap<Value, (u64, u64)>,
    /// Multiply-accumulates per op of the float module, on the first sample.
    pub macs: BTreeMap<OpId, u64>,
    /// Per sample, the float module's outputs and the quantized module's
    /// (what [`compare_folded`] measures an integer module against).
    pub runs: Vec<(Vec<Tensor>, Vec<Tensor>)>,
}

impl Eval {
    /// The worst output cosine (1 when there is no f32 output).
    pub fn min_cosine(&self) -> f64 {
        self.outputs.iter().filter(|a| a.count > 0).map(Agreement::cosine).fold(1.0, f64::min)
    }
    /// The share of multiply-accumulates in int8 ops (not those reading or
    /// writing an i16 activation).
    pub fn int8_mac_share(&self, q: &Quantized) -> f64 {
        let total: u64 = self.macs.values().sum();
        let wide_dq: HashSet<Value> = q.acts.values().filter(|a| a.qtype == QType::I16).map(|a| a.dq).collect();
        let f = q.module.func("main");
        let narrow = |op: OpId| {
            let Some(f) = f else { return false };
            let o = &f.ops[op];
            let wide_result = o.results.iter().any(|r| q.acts.get(r).is_some_and(|a| a.qtype == QType::I16));
            !wide_result && !o.inputs().any(|v| wide_dq.contains(&v))
        };
        let int8: u64 = q
            .layers
            .iter()
            .filter(|l| l.precision == Precision::Int8 && narrow(l.op))
            .filter_map(|l| self.macs.get(&l.op))
            .sum();
        if total == 0 {
            0.0
        } else {
            int8 as f64 / total as f64
        }
    }
}

/// The row length for top-1 agreement: the last axis of a `[batch, classes]`
/// output or of rows that are probability distributions (non-negative,
/// summing to 1, as after a Softmax); 0 (no top-1) for anything else, such
/// as detection maps whose last axis is a position.
pub(super) fn class_rows(shape: &[usize], xs: &[f32]) -> usize {
    let row = shape.last().copied().unwrap_or(0);
    if row < 2 {
        return 0;
    }
    let probabilities = xs
        .chunks_exact(row)
        .all(|r| r.iter().all(|&p| p >= 0.0) && (r.iter().map(|&p| f64::from(p)).sum::<f64>() - 1.0).abs() < 1e-3);
    if shape.len() == 2 || probabilities {
        row
    } else {
        0
    }
}

fn f32s(t: &Tensor) -> Option<&[f32]> {
    match &t.data {
        Data::F32(v) => Some(v),
        _ => None,
    }
}

/// The float module's outputs and watched tensors on a data set, computed
/// once and compared with any number of quantizations of it.
pub struct Reference {
    /// Per sample, the outputs and the watched values' tensors.
    runs: Vec<(Vec<Tensor>, HashMap<Value, Tensor>)>,
    macs: BTreeMap<OpId, u64>,
}

impl Reference {
    /// Run `fp` on every sample, keeping the tensors of `watch`.
    pub fn new(
        fp: &Module,
        samples: &[Vec<Tensor>],
        watch: &std::collections::BTreeSet<Value>,
        tick: &mut dyn FnMut(),
    ) -> Result<Reference, CalibError> {
        let mut runs = Vec::new();
        let mut macs_ = BTreeMap::new();
        for (sample, inputs) in samples.iter().enumerate() {
            let (outs, mut env) = ir::interp::run_traced(fp, "main", inputs.clone())
                .map_err(|source| CalibError::Run { sample, source })?;
            if sample == 0 {
                macs_ = macs(fp, &env);
            }
            env.retain(|v, _| watch.contains(v));
            runs.push((outs, env));
            tick();
        }
        Ok(Reference { runs, macs: macs_ })
    }

    /// Run `q.module` on the samples this reference was made from and compare.
    pub fn compare(&self, q: &Quantized, samples: &[Vec<Tensor>], tick: &mut dyn FnMut()) -> Result<Eval, CalibError> {
        let mut ev = Eval { macs: self.macs.clone(), ..Eval::default() };
        for (sample, (inputs, (fo, fenv))) in samples.iter().zip(&self.runs).enumerate() {
            let (qo, qenv) = ir::interp::run_traced(&q.module, "main", inputs.clone())
                .map_err(|source| CalibError::Run { sample, source })?;
            ev.outputs.resize(fo.len(), Agreement::default());
            for ((a, b), agg) in fo.iter().zip(&qo).zip(&mut ev.outputs) {
                if let (Some(x), Some(y)) = (f32s(a), f32s(b)) {
                    agg.add(x, y, class_rows(&a.shape, x));
                }
            }
            ev.runs.push((fo.clone(), qo));
            for (v, act) in &q.acts {
                let (Some(x), Some(y)) = (fenv.get(v).and_then(f32s), qenv.get(&act.dq).and_then(f32s)) else {
                    continue;
                };
                ev.layers.entry(*v).or_default().add(x, y, 0);
                let (lo, hi) = act.range();
                let out = x.iter().filter(|&&x| x < lo || x > hi).count() as u64;
                let c = ev.clipped.entry(*v).or_default();
                *c = (c.0 + out, c.1 + x.len() as u64);
            }
            tick();
        }
        Ok(ev)
    }
}

/// Run `fp` and `q.module` on every sample and compare them; `tick` is
/// called after each of the `2 × samples` runs.
pub fn evaluate(
    fp: &Module,
    q: &Quantized,
    samples: &[Vec<Tensor>],
    tick: &mut dyn FnMut(),
) -> Result<Eval, CalibError> {
    let watch = q.acts.keys().copied().collect();
    Reference::new(fp, samples, &watch, tick)?.compare(q, samples, tick)
}

/// Multiply-accumulates of the conv and matmul ops of `@main`, from the
/// tensors of one run.
pub fn macs(m: &Module, env: &HashMap<Value, Tensor>) -> BTreeMap<OpId, u64> {
    let Some(f) = m.func("main") else { return BTreeMap::new() };
    let numel = |v: Option<Value>| v.and_then(|v| env.get(&v)).map_or(0, |t| t.shape.iter().product::<usize>() as u64);
    let dim = |v: Option<Value>, i: usize| {
        v.and_then(|v| env.get(&v)).and_then(|t| t.shape.get(i).copied()).map_or(0, |d| d as u64)
    };
    let last = |v: Option<Value>| v.and_then(|v| env.get(&v)).and_then(|t| t.shape.last().copied()).unwrap_or(0) as u64;
    let mut out = BTreeMap::new();
    for &id in &f.body.ops {
        let op = &f.ops[id];
        let (x, w, y) = (op.operand(0), op.operand(1), op.results.first().copied());
        let n = match op.opcode {
            Opcode::CoreConv | Opcode::Conv => numel(y) * numel(w) / dim(w, 0).max(1),
            Opcode::CoreConvTranspose | Opcode::ConvTranspose => numel(x) * numel(w) / dim(w, 0).max(1),
            Opcode::CoreLinear | Opcode::MatMul | Opcode::Gemm => numel(y) * last(x),
            _ => continue,
        };
        out.insert(id, n);
    }
    out
}

/// The integer module `folded` run on `samples` against the float and QDQ
/// outputs `ev` recorded on the same samples (one run per sample; `tick`
/// after each): `(vs float, vs QDQ)` per output.
pub fn compare_folded(
    folded: &Module,
    ev: &Eval,
    samples: &[Vec<Tensor>],
    tick: &mut dyn FnMut(),
) -> Result<(Vec<Agreement>, Vec<Agreement>), CalibError> {
    let (mut vs_fp, mut vs_qdq) = (Vec::new(), Vec::new());
    for (sample, (inputs, (fo, qo))) in samples.iter().zip(&ev.runs).enumerate() {
        let io =
            ir::interp::run(folded, "main", inputs.clone()).map_err(|source| CalibError::Run { sample, source })?;
        tick();
        vs_fp.resize(fo.len(), Agreement::default());
        vs_qdq.resize(fo.len(), Agreement::default());
        for (i, y) in io.iter().enumerate() {
            let Some(y) = f32s(y) else { continue };
            for (reference, agg) in [(fo, &mut vs_fp), (qo, &mut vs_qdq)] {
                if let Some(x) = reference.get(i).and_then(f32s) {
                    agg[i].add(x, y, class_rows(&reference[i].shape, x));
                }
            }
        }
    }
    Ok((vs_fp, vs_qdq))
}
