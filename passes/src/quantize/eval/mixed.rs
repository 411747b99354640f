//! `--auto-mixed`: the search for a mixed-precision quantization that
//! reaches a goal (sensitivity analysis, i16 widening, float moves).

use super::{compare_folded, f32s, Agreement, Eval, Reference};
use crate::calibrate::{CalibError, Observer, QType};
use crate::optimize::PipelineOptions;
use crate::quantize::{quantize_corrected, Correction, Options, Precision, QuantError, Quantized};
use ir::interp::Tensor;
use ir::{Module, OpId, Value};
use std::collections::{BTreeMap, HashSet};

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
) -> Result<Mixed, QuantError> {
    let mut opts = opts.clone();
    let mut q = quantize_corrected(fp, obs, &opts, corr, &mut || event(None))?;
    // Widening and moving ops to float only remove 8-bit tensors: the first
    // quantization's tensors are all the reference needs to keep.
    let watch = q.acts.keys().copied().collect();
    let reference = Reference::new(fp, samples, &watch, &mut || event(None)).map_err(eval_err)?;
    let mut ev = reference.compare(&q, samples, &mut || event(None)).map_err(eval_err)?;
    let cx = SearchCx { fp, obs, corr, samples, reference: &reference, goal };
    let mut moved = Vec::new();
    let mut labelled = Vec::new();
    if ev.min_cosine() < goal.cosine && opts.act != QType::I16 {
        let sens = sensitivity(fp, &q, &reference, samples, &opts, &mut || event(None))?;
        labelled = sens
            .iter()
            .map(|&(v, cosine)| {
                let (name, kind) = producer_label(fp, v);
                Sensitive { name, kind, cosine }
            })
            .collect();
        (q, ev) = widen(&cx, &mut opts, (q, ev), sens, &mut moved, event)?;
    }
    if opts.policy.float_fallback {
        (q, ev) = to_float(&cx, &mut opts, (q, ev), &mut moved, event)?;
    }
    Ok(Mixed { q, ev, moved, sensitivity: labelled })
}

fn eval_err(e: CalibError) -> QuantError {
    QuantError::Eval(e.to_string())
}

/// What [`auto_mixed`]'s phases quantize and evaluate with.
struct SearchCx<'a> {
    fp: &'a Module,
    obs: &'a BTreeMap<Value, Observer>,
    corr: Option<&'a Correction<'a>>,
    samples: &'a [Vec<Tensor>],
    reference: &'a Reference,
    goal: Goal<'a>,
}

impl SearchCx<'_> {
    /// `opts` quantized (bias-corrected) and compared with the reference.
    fn trial(&self, opts: &Options) -> Result<(Quantized, Eval), QuantError> {
        let q = quantize_corrected(self.fp, self.obs, opts, self.corr, &mut || {})?;
        let ev = self.reference.compare(&q, self.samples, &mut || {}).map_err(eval_err)?;
        Ok((q, ev))
    }

    /// The worst output cosine of what is delivered: the QDQ module's, and
    /// the integer module's too once the QDQ module reaches the goal.
    fn delivered(&self, q: &Quantized, ev: &Eval) -> Result<f64, QuantError> {
        let Some(p) = self.goal.fold.filter(|_| ev.min_cosine() >= self.goal.cosine) else {
            return Ok(ev.min_cosine());
        };
        let (folded, _) = crate::quantize::fold_integer(&q.module, p).map_err(|e| QuantError::Eval(e.to_string()))?;
        let (vs_fp, _) = compare_folded(&folded, ev, self.samples, &mut || {}).map_err(eval_err)?;
        Ok(vs_fp.iter().map(Agreement::cosine).fold(ev.min_cosine(), f64::min))
    }
}

/// The float phase of [`auto_mixed`]: while what is delivered is below
/// the goal, the [`MOVE_TRIALS`] int8 ops losing most cosine across
/// themselves are each moved on top of the current quantization, side by
/// side, and the one leaving the best delivered outputs is kept (a move is
/// not undone), until none is left.
fn to_float(
    cx: &SearchCx<'_>,
    opts: &mut Options,
    (mut q, mut ev): (Quantized, Eval),
    moved: &mut Vec<Moved>,
    event: &mut dyn FnMut(Option<&Moved>),
) -> Result<(Quantized, Eval), QuantError> {
    let mut score = cx.delivered(&q, &ev)?;
    while score < cx.goal.cosine {
        let cands: Vec<(OpId, f64)> = worst_layers(cx.fp, &q, &ev).into_iter().take(MOVE_TRIALS).collect();
        let trial = |&(op, _): &(OpId, f64)| {
            let mut o = opts.clone();
            o.keep_ops.insert(op);
            let (tq, tev) = cx.trial(&o)?;
            let score = cx.delivered(&tq, &tev)?;
            Ok(((tq, tev), score))
        };
        let (mut tried, scores): (Vec<(Quantized, Eval)>, Vec<f64>) =
            par_map(&cands, trial, &mut || event(None))?.into_iter().unzip();
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
    Ok((q, ev))
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
    cx: &SearchCx<'_>,
    opts: &mut Options,
    (mut q, mut ev): (Quantized, Eval),
    sens: Vec<(Value, f64)>,
    moved: &mut Vec<Moved>,
    event: &mut dyn FnMut(Option<&Moved>),
) -> Result<(Quantized, Eval), QuantError> {
    let loss = 1.0 - ev.min_cosine();
    let mut pending: Vec<(Value, f64)> = sens.into_iter().take_while(|&(_, c)| 1.0 - c >= WIDEN_SHARE * loss).collect();
    let narrow = narrow_only_values(cx.fp, &opts.policy.narrow_only);
    pending.retain(|(v, _)| !narrow.contains(v));
    while ev.min_cosine() < cx.goal.cosine {
        // Values widened with a value of their affine chain are done.
        pending.retain(|(v, _)| !q.acts.get(v).is_some_and(|a| a.qtype == QType::I16));
        let trials: Vec<Value> = pending.iter().take(WIDEN_TRIALS).map(|&(v, _)| v).collect();
        let trial = |&v: &Value| {
            let mut o = opts.clone();
            o.wide.insert(v);
            cx.trial(&o)
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

/// The values of `fp`'s `@main` an op of `names` (ops with no 16-bit form)
/// reads or writes.
fn narrow_only_values(fp: &Module, names: &[String]) -> HashSet<Value> {
    let listed = |op: &&ir::OpData| names.iter().any(|n| n == op.opcode.name());
    let main = fp.funcs.iter().find(|f| f.name == "main");
    let ops = main.into_iter().flat_map(|f| f.body.ops.iter().map(move |&id| &f.ops[id]));
    ops.filter(listed).flat_map(|op| op.inputs().chain(op.results.iter().copied())).collect()
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
) -> Result<Vec<(Value, f64)>, QuantError> {
    let alone = |v: Value, act: &crate::quantize::ActQ| -> Result<f64, QuantError> {
        let one =
            crate::quantize::rewrite::apply(fp, Vec::new(), &BTreeMap::from([(v, (act.qtype, act.params))]), opts)?;
        let mut worst = 1.0f64;
        for (sample, (inputs, (fo, _))) in samples.iter().zip(&reference.runs).take(SENSITIVITY_SAMPLES).enumerate() {
            let qo = ir::interp::run(&one.module, "main", inputs.clone())
                .map_err(|source| QuantError::Eval(CalibError::Run { sample, source }.to_string()))?;
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
    let cands: Vec<(Value, crate::quantize::ActQ)> =
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
    f: impl Fn(&T) -> Result<R, QuantError> + Sync,
    done: &mut dyn FnMut(),
) -> Result<Vec<R>, QuantError> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = Vec::with_capacity(items.len());
    for batch in items.chunks(threads) {
        let results: Vec<Result<R, QuantError>> = std::thread::scope(|s| {
            let f = &f;
            let handles: Vec<_> = batch.iter().map(|x| s.spawn(move || f(x))).collect();
            let panicked = || Err(QuantError::Eval("an evaluation thread panicked".into()));
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
        ir::ValueDef::Result(op, _) => (crate::quantize::label(&f.ops[op], op), f.ops[op].opcode.name()),
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
