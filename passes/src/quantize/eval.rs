//! Accuracy of a quantized module against its float original: per output,
//! per quantized activation (as the next layer reads it) and the share of
//! values each calibrated range clips; the sensitivity of the outputs to
//! each activation's rounding alone; and `--auto-mixed`, which widens the
//! most sensitive activations to i16, then moves the int8 ops that lose
//! most back to float, until the outputs agree.

use super::{quantize_corrected, Correction, Options, Precision, Quantized};
use crate::calibrate::{CalibError, Observer, QType};
use crate::optimize::PipelineOptions;
use ir::interp::{Data, Tensor};
use ir::{Module, OpId, Opcode, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

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

/// Where `--auto-mixed` moved something.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MovedTo {
    /// An activation quantized as i16 instead of 8 bits.
    I16,
    /// An op computing in float.
    Float,
}

impl MovedTo {
    /// `i16` or `float`.
    pub fn name(self) -> &'static str {
        match self {
            MovedTo::I16 => "i16",
            MovedTo::Float => "float",
        }
    }
}

/// An activation `--auto-mixed` widened to i16, or an op it moved back to float.
#[derive(Clone, Debug)]
pub struct Moved {
    /// The op's label (for an activation, its producer's).
    pub name: String,
    /// Its op name.
    pub kind: &'static str,
    /// What it became.
    pub to: MovedTo,
    /// Cosine it cost: for an op, its inputs' worst cosine minus its
    /// output's; for an activation, 1 − the outputs' worst cosine with that
    /// activation alone quantized ([`sensitivity`]).
    pub drop: f64,
    /// The worst output cosine after moving it: the QDQ module's, or,
    /// once that reaches a goal that folds, the lower of it and the
    /// integer module's.
    pub cosine_after: f64,
}

/// What [`auto_mixed`] ended with.
#[derive(Clone, Debug)]
pub struct Mixed {
    /// The last quantization.
    pub q: Quantized,
    /// Its evaluation.
    pub ev: Eval,
    /// The moves, in order.
    pub moved: Vec<Moved>,
    /// The 8-bit activations of the first quantization by what their
    /// rounding alone costs, worst first (empty when it met the target).
    pub sensitivity: Vec<Sensitive>,
}

/// One activation of [`sensitivity`], labelled.
#[derive(Clone, Debug)]
pub struct Sensitive {
    /// Its producer's label.
    pub name: String,
    /// Its producer's op name.
    pub kind: &'static str,
    /// The outputs' worst cosine with this activation alone quantized.
    pub cosine: f64,
}

/// Samples [`sensitivity`] runs on.
const SENSITIVITY_SAMPLES: usize = 2;

/// An activation is widened when its own rounding alone costs at least this
/// share of what the whole quantization costs.
const WIDEN_SHARE: f64 = 0.1;

/// What [`auto_mixed`] aims at.
#[derive(Clone, Copy)]
pub struct Goal<'a> {
    /// The outputs' worst cosine with the float model to reach.
    pub cosine: f64,
    /// When the integer module is what the user gets, the folding options:
    /// it must reach the cosine too (requantization rounds differently
    /// from the QDQ form the search measures).
    pub fold: Option<&'a PipelineOptions>,
}

/// Quantize (bias-corrected on `corr` when given, each time), then, while
/// the worst output cosine is below the goal's: first widen to i16, one at
/// a time, the 8-bit activations whose rounding alone costs most
/// ([`sensitivity`], [`widen`]), then move int8 ops back to float, one at a
/// time: of the [`MOVE_TRIALS`] whose outputs lose most cosine relative to
/// their inputs, the one whose move leaves the best outputs, until the QDQ module
/// and, when the goal folds, the integer module reach it, or no int8 op is
/// left. `event` hears of interpreter runs (`None`) and every move.
pub fn auto_mixed(
    fp: &Module,
    obs: &BTreeMap<Value, Observer>,
    opts: &Options,
    corr: Option<&Correction<'_>>,
    samples: &[Vec<Tensor>],
    goal: Goal<'_>,
    event: &mut dyn FnMut(Option<&Moved>),
) -> Result<Mixed, super::QuantError> {
    let target = goal.cosine;
    let run_err = |e: CalibError| super::QuantError::Eval(e.to_string());
    // The worst output cosine of what is delivered: the QDQ module's, and
    // the integer module's too once the QDQ module reaches the goal.
    let delivered = |q: &Quantized, ev: &Eval| -> Result<f64, super::QuantError> {
        let Some(p) = goal.fold.filter(|_| ev.min_cosine() >= target) else { return Ok(ev.min_cosine()) };
        let (folded, _) = super::fold_integer(&q.module, p).map_err(|e| super::QuantError::Eval(e.to_string()))?;
        let (vs_fp, _) = compare_folded(&folded, ev, samples, &mut || {}).map_err(run_err)?;
        Ok(vs_fp.iter().map(Agreement::cosine).fold(ev.min_cosine(), f64::min))
    };
    let mut opts = opts.clone();
    let mut q = quantize_corrected(fp, obs, &opts, corr, &mut || event(None))?;
    // Widening and moving ops to float only remove 8-bit tensors: the first
    // quantization's tensors are all the reference needs to keep.
    let watch = q.acts.keys().copied().collect();
    let reference = Reference::new(fp, samples, &watch, &mut || event(None)).map_err(run_err)?;
    let mut ev = reference.compare(&q, samples, &mut || event(None)).map_err(run_err)?;
    let mut moved = Vec::new();
    let mut labelled = Vec::new();
    if ev.min_cosine() < target && opts.act != QType::I16 {
        let cx = WidenCx { fp, obs, corr, samples, reference: &reference };
        let sens = sensitivity(fp, &q, &reference, samples, &opts, &mut || event(None))?;
        labelled = sens
            .iter()
            .map(|&(v, cosine)| {
                let (name, kind) = producer_label(fp, v);
                Sensitive { name, kind, cosine }
            })
            .collect();
        (q, ev) = widen(&cx, &mut opts, (q, ev), sens, target, &mut moved, event)?;
    }
    let mut score = delivered(&q, &ev)?;
    while score < target {
        // The worst layers left, each moved on top of the current
        // quantization side by side; the best kept (a move is not undone).
        let cands: Vec<(OpId, f64)> = worst_layers(fp, &q, &ev).into_iter().take(MOVE_TRIALS).collect();
        let trial = |&(op, _): &(OpId, f64)| {
            let mut o = opts.clone();
            o.keep_ops.insert(op);
            let tq = quantize_corrected(fp, obs, &o, corr, &mut || {})?;
            let tev = reference.compare(&tq, samples, &mut || {}).map_err(run_err)?;
            let score = delivered(&tq, &tev)?;
            Ok(((tq, tev), score))
        };
        let tried = par_map(&cands, trial, &mut || event(None))?;
        // Scored by what is delivered.
        let (mut tried, scores): (Vec<(Quantized, Eval)>, Vec<f64>) = tried.into_iter().unzip();
        let Some(i) = best(&scores) else { break };
        let (op, drop) = cands[i];
        let layer = q.layers.iter().find(|l| l.op == op).cloned();
        opts.keep_ops.insert(op);
        (q, ev) = tried.swap_remove(i);
        score = scores[i];
        if let Some(l) = layer {
            let mv = Moved { name: l.name, kind: l.kind, to: MovedTo::Float, drop, cosine_after: score };
            event(Some(&mv));
            moved.push(mv);
        }
    }
    Ok(Mixed { q, ev, moved, sensitivity: labelled })
}

/// What [`widen`] quantizes and evaluates with.
struct WidenCx<'a> {
    fp: &'a Module,
    obs: &'a BTreeMap<Value, Observer>,
    corr: Option<&'a Correction<'a>>,
    samples: &'a [Vec<Tensor>],
    reference: &'a Reference,
}

/// Candidates [`widen`] tries per step (in parallel, one per core).
const WIDEN_TRIALS: usize = 4;

/// Ops [`auto_mixed`]'s float phase tries per step (in parallel).
const MOVE_TRIALS: usize = 4;

/// The widening phase of [`auto_mixed`]: per step, the [`WIDEN_TRIALS`]
/// most sensitive 8-bit activations left (of those costing at least
/// [`WIDEN_SHARE`] of the loss) are each widened on top of the current
/// quantization and the one raising the worst output cosine most is kept;
/// it stops at `target` or when none raises it (roundings interact: bias
/// correction rebalances every layer, so the most sensitive activation
/// alone is not always the best to widen).
fn widen(
    cx: &WidenCx<'_>,
    opts: &mut Options,
    (mut q, mut ev): (Quantized, Eval),
    sens: Vec<(Value, f64)>,
    target: f64,
    moved: &mut Vec<Moved>,
    event: &mut dyn FnMut(Option<&Moved>),
) -> Result<(Quantized, Eval), super::QuantError> {
    let loss = 1.0 - ev.min_cosine();
    let mut pending: Vec<(Value, f64)> = sens.into_iter().take_while(|&(_, c)| 1.0 - c >= WIDEN_SHARE * loss).collect();
    while ev.min_cosine() < target {
        // Values widened with a value of their affine chain are done.
        pending.retain(|(v, _)| !q.acts.get(v).is_some_and(|a| a.qtype == QType::I16));
        let trials: Vec<Value> = pending.iter().take(WIDEN_TRIALS).map(|&(v, _)| v).collect();
        let trial = |&v: &Value| {
            let mut o = opts.clone();
            o.wide.insert(v);
            let wq = quantize_corrected(cx.fp, cx.obs, &o, cx.corr, &mut || {})?;
            let wev = cx.reference.compare(&wq, cx.samples, &mut || {});
            Ok((wq, wev.map_err(|e| super::QuantError::Eval(e.to_string()))?))
        };
        let mut tried = par_map(&trials, trial, &mut || event(None))?;
        let scores: Vec<f64> = tried.iter().map(|t| t.1.min_cosine()).collect();
        let Some(i) = best(&scores).filter(|&i| scores[i] > ev.min_cosine()) else { break };
        let (v, cos) = pending.remove(i);
        opts.wide.insert(v);
        (q, ev) = tried.swap_remove(i);
        let (name, kind) = producer_label(cx.fp, v);
        let mv = Moved { name, kind, to: MovedTo::I16, drop: 1.0 - cos, cosine_after: ev.min_cosine() };
        event(Some(&mv));
        moved.push(mv);
    }
    Ok((q, ev))
}

/// Per 8-bit activation of `q`, the worst output cosine of `fp` with only
/// that activation quantized (on its grid in `q`), over the first
/// [`SENSITIVITY_SAMPLES`] samples of `reference`: what its own rounding
/// costs, apart from every other's (the accumulated per-tensor cosines of
/// [`Eval::layers`] blame the layers downstream of a loss). Worst first,
/// ties by value; `tick` after each interpreter run.
pub fn sensitivity(
    fp: &Module,
    q: &Quantized,
    reference: &Reference,
    samples: &[Vec<Tensor>],
    opts: &Options,
    tick: &mut dyn FnMut(),
) -> Result<Vec<(Value, f64)>, super::QuantError> {
    let alone = |v: Value, act: &super::ActQ| -> Result<f64, super::QuantError> {
        let one = super::rewrite::apply(fp, Vec::new(), &BTreeMap::from([(v, (act.qtype, act.params))]), opts)?;
        let mut worst = 1.0f64;
        for (sample, (inputs, (fo, _))) in samples.iter().zip(&reference.runs).take(SENSITIVITY_SAMPLES).enumerate() {
            let qo = ir::interp::run(&one.module, "main", inputs.clone())
                .map_err(|source| super::QuantError::Eval(CalibError::Run { sample, source }.to_string()))?;
            for (a, b) in fo.iter().zip(&qo) {
                if let (Some(x), Some(y)) = (f32s(a), f32s(b)) {
                    let mut agg = Agreement::default();
                    agg.add(x, y, 0);
                    worst = worst.min(agg.cosine());
                }
            }
        }
        Ok(worst)
    };
    let runs = samples.len().min(reference.runs.len()).min(SENSITIVITY_SAMPLES);
    let cands: Vec<(Value, super::ActQ)> =
        q.acts.iter().filter(|(_, a)| a.qtype != QType::I16).map(|(&v, &a)| (v, a)).collect();
    let cosines = par_map(&cands, |(v, a)| alone(*v, a), &mut || (0..runs).for_each(|_| tick()))?;
    let mut out: Vec<(Value, f64)> = cands.iter().map(|c| c.0).zip(cosines).collect();
    out.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    Ok(out)
}

/// `f` on every item, as many at once as there are cores, results in
/// order (each call is independent, so they do not depend on the machine);
/// `done` after each. The first error, or a panic as one, ends it.
fn par_map<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Result<R, super::QuantError> + Sync,
    done: &mut dyn FnMut(),
) -> Result<Vec<R>, super::QuantError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = Vec::with_capacity(items.len());
    for batch in items.chunks(threads) {
        let results: Vec<Result<R, super::QuantError>> = std::thread::scope(|s| {
            let f = &f;
            let handles: Vec<_> = batch.iter().map(|x| s.spawn(move || f(x))).collect();
            let panicked = || Err(super::QuantError::Eval("an evaluation thread panicked".into()));
            handles.into_iter().map(|h| h.join().unwrap_or_else(|_| panicked())).collect()
        });
        for r in results {
            out.push(r?);
            done();
        }
    }
    Ok(out)
}

/// The label and op name of `v`'s producer in `fp` (the input's name for a
/// function argument).
fn producer_label(fp: &Module, v: Value) -> (String, &'static str) {
    let Some(f) = fp.func("main") else { return (format!("{v}"), "input") };
    match f.values[v].def {
        ir::ValueDef::Result(op, _) => (super::label(&f.ops[op], op), f.ops[op].opcode.name()),
        _ => (format!("input {v}"), "input"),
    }
}

/// The int8 ops of `q` by the cosine drop from their quantized inputs to
/// their quantized results (inputs not quantized count as exact).
fn worst_layers(fp: &Module, q: &Quantized, ev: &Eval) -> Vec<(OpId, f64)> {
    let Some(f) = fp.func("main") else { return vec![] };
    let cos = |v: Value| ev.layers.get(&v).map(Agreement::cosine);
    let mut out: Vec<(OpId, f64)> = q
        .layers
        .iter()
        .filter(|l| l.precision == Precision::Int8)
        .map(|l| {
            let op = &f.ops[l.op];
            let input = op.inputs().filter_map(cos).fold(1.0, f64::min);
            let output = op.results.iter().filter_map(|&r| cos(r)).fold(1.0, f64::min);
            (l.op, input - output)
        })
        .collect();
    // Worst first; the earlier layer among equals.
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

/// The index of the highest score, the earliest among equals.
fn best(scores: &[f64]) -> Option<usize> {
    (0..scores.len()).fold(None, |b: Option<usize>, i| match b {
        Some(j) if scores[j] >= scores[i] => Some(j),
        _ => Some(i),
    })
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
