//! The quantization report: its rows (JSON with `--report`) and its text form.

use super::Request;
use ir::Module;
use passes::quantize::eval::{Agreement, Eval, Moved, Sensitive};
use passes::quantize::{Precision, Quantized};
use serde::Serialize;

/// The quantization report (`--report R.json`).
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Calibration method.
    pub method: String,
    /// Activation element type.
    pub act_type: String,
    /// Weights per channel.
    pub per_channel: bool,
    /// The largest weight magnitude: 127, or 64 with `--reduce-range`.
    pub weight_max: u8,
    /// Calibration samples.
    pub calib_samples: usize,
    /// Evaluation samples.
    pub eval_samples: usize,
    /// Where the evaluation data came from.
    pub eval_data: String,
    /// Per output of `@main`.
    pub outputs: Vec<OutputRow>,
    /// Per quantized activation, worst cosine first.
    pub layers: Vec<LayerRow>,
    /// Per quantized activation clipping more than nothing, worst first.
    pub clipping: Vec<ClipRow>,
    /// Ops kept in float and why.
    pub kept_float: Vec<KeptRow>,
    /// What `--auto-mixed` widened to i16 or moved back to float, in order.
    pub moved: Vec<MovedRow>,
    /// `--auto-mixed`'s sensitivity analysis: per 8-bit activation, the
    /// outputs' worst cosine with it alone quantized, worst first (empty
    /// without `--auto-mixed` or when the first quantization met the target).
    pub sensitivity: Vec<SensitiveRow>,
    /// Ops computed in int8.
    pub int8_ops: usize,
    /// Affine steps by a constant scalar, folded into their neighbours' requantization.
    pub folded_ops: usize,
    /// Int8 layers whose bias was corrected for the mean shift of rounding.
    pub bias_corrected: usize,
    /// Layers with output channels whose weight scale was raised so their
    /// bias fits i32 (at input scale × weight scale), and how many.
    pub bias_fitted: Vec<FittedRow>,
    /// Conv → depthwise pairs whose channels were rescaled by powers of two
    /// (exact in float) so the activation between them shares one grid better.
    pub equalized: Vec<EqualizedRow>,
    /// Share of multiply-accumulates in int8 ops.
    pub int8_mac_share: f64,
    /// Warnings (unrepresentative calibration data, evaluation on it).
    pub warnings: Vec<String>,
    /// The integer folding, unless `--qdq`.
    pub integer: Option<IntegerRow>,
}

/// What the integer folding did.
#[derive(Clone, Debug, Serialize)]
pub struct IntegerRow {
    /// The target that decided.
    pub target: String,
    /// `quant.*` ops in the result.
    pub ops: usize,
    /// QDQ patterns left as they were, by reason.
    pub not_folded: Vec<(String, usize)>,
    /// Whether the e-graph stopped at a limit.
    pub limit_hit: bool,
    /// Per output, the QDQ module's agreement with float (the integer
    /// module's is `outputs`).
    pub qdq_outputs: Vec<OutputRow>,
    /// Per output, the integer module against the QDQ module (rounding).
    pub vs_qdq: Vec<OutputRow>,
}

/// Agreement of one output.
#[derive(Clone, Debug, Serialize)]
pub struct OutputRow {
    /// Output name.
    pub name: String,
    /// Cosine similarity with the float output.
    pub cosine: f64,
    /// Largest absolute difference.
    pub max_abs: f64,
    /// Signal-to-noise ratio in dB (null when identical).
    pub snr_db: Option<f64>,
    /// Share of last-axis rows whose arg-max agrees.
    pub top1_agree: Option<f64>,
}

/// Agreement of one quantized tensor, as the next layer reads it.
#[derive(Clone, Debug, Serialize)]
pub struct LayerRow {
    /// The producing op's label (or the input's name).
    pub tensor: String,
    /// The producer's op name.
    pub op: String,
    /// Cosine with the float tensor.
    pub cosine: f64,
    /// Scale and zero point.
    pub scale: f32,
    /// Zero point.
    pub zero_point: i32,
}

/// Clipping of one activation.
#[derive(Clone, Debug, Serialize)]
pub struct ClipRow {
    /// The tensor.
    pub tensor: String,
    /// Fraction of evaluation values outside the calibrated range.
    pub fraction: f64,
    /// Fraction of calibration values outside it (ranges chosen by `mse`,
    /// `percentile` or `entropy` clip tails on purpose).
    pub calib_fraction: f64,
    /// The calibrated range.
    pub range: [f32; 2],
}

/// An op kept in float.
#[derive(Clone, Debug, Serialize)]
pub struct KeptRow {
    /// Its label.
    pub layer: String,
    /// Its op name.
    pub op: String,
    /// Why.
    pub reason: String,
}

/// An op `--auto-mixed` moved.
#[derive(Clone, Debug, Serialize)]
pub struct MovedRow {
    /// Its label.
    pub layer: String,
    /// Its op name.
    pub op: String,
    /// `i16` (an activation widened: this op's result) or `float` (the op).
    pub to: String,
    /// Cosine it cost: lost across the op, or the activation's rounding alone.
    pub drop: f64,
    /// The worst output cosine after the move.
    pub cosine_after: f64,
}

/// A conv → depthwise pair equalization rescaled.
#[derive(Clone, Debug, Serialize)]
pub struct EqualizedRow {
    /// The producing conv.
    pub producer: String,
    /// The depthwise conv reading its result.
    pub consumer: String,
    /// Channels rescaled.
    pub channels: usize,
    /// Widest over narrowest channel magnitude before.
    pub spread_before: f64,
    /// The same after.
    pub spread_after: f64,
}

/// A layer whose weight scales were raised for its bias.
#[derive(Clone, Debug, Serialize)]
pub struct FittedRow {
    /// Its label.
    pub layer: String,
    /// Output channels whose scale was raised.
    pub channels: usize,
}

/// An activation of the sensitivity analysis.
#[derive(Clone, Debug, Serialize)]
pub struct SensitiveRow {
    /// Its producer's label.
    pub tensor: String,
    /// Its producer's op name.
    pub op: String,
    /// The outputs' worst cosine with it alone quantized.
    pub cosine: f64,
}

/// Rows of the text report's worst-first lists.
const WORST: usize = 8;

/// How much more of the evaluation values than of the calibration values
/// a range may clip before the calibration set is called unrepresentative.
const CLIP_WARN: f64 = 0.01;

pub(super) fn output_names(m: &Module) -> Vec<String> {
    let f = m.func("main").expect("run checked @main");
    (0..f.body.results.len())
        .map(|i| f.result_names.get(i).cloned().flatten().unwrap_or_else(|| format!("output_{i}")))
        .collect()
}

pub(super) fn output_rows(names: &[String], agg: &[Agreement]) -> Vec<OutputRow> {
    agg.iter()
        .zip(names)
        .map(|(a, name)| OutputRow {
            name: name.clone(),
            cosine: a.cosine(),
            max_abs: a.max_abs,
            snr_db: Some(a.snr_db()).filter(|s| s.is_finite()),
            top1_agree: a.top1(),
        })
        .collect()
}

pub(super) fn report(
    m: &Module,
    q: &Quantized,
    ev: &Eval,
    (moved, sensitivity): (&[Moved], &[Sensitive]),
    req: &Request,
    obs: &std::collections::BTreeMap<ir::Value, passes::calibrate::Observer>,
    (calib_samples, eval_samples, eval_data): (usize, usize, String),
) -> Report {
    let f = m.func("main").expect("run checked @main");
    let tensor = |v: ir::Value| match f.values[v].def {
        ir::ValueDef::Result(op, _) => (passes::quantize::label(&f.ops[op], op), f.ops[op].opcode.name().to_string()),
        _ => (f.values[v].name.clone().unwrap_or_else(|| format!("{v}")), "input".into()),
    };
    let outputs = output_rows(&output_names(m), &ev.outputs);
    let mut layers: Vec<LayerRow> = ev
        .layers
        .iter()
        .map(|(&v, a)| {
            let (t, op) = tensor(v);
            let p = q.acts[&v].params;
            LayerRow { tensor: t, op, cosine: a.cosine(), scale: p.scale, zero_point: p.zero_point }
        })
        .collect();
    layers.sort_by(|a, b| a.cosine.total_cmp(&b.cosine));
    let mut clipping: Vec<ClipRow> = ev
        .clipped
        .iter()
        .filter(|(_, &(out, _))| out > 0)
        .map(|(&v, &(out, n))| {
            let (lo, hi) = q.acts[&v].range();
            let calib_fraction = obs.get(&v).map_or(0.0, |o| o.outside(lo, hi));
            ClipRow { tensor: tensor(v).0, fraction: out as f64 / n.max(1) as f64, calib_fraction, range: [lo, hi] }
        })
        .collect();
    clipping.sort_by(|a, b| b.fraction.total_cmp(&a.fraction));
    let kept_float = q
        .layers
        .iter()
        .filter_map(|l| match &l.precision {
            Precision::Float(r) => Some(KeptRow { layer: l.name.clone(), op: l.kind.into(), reason: r.clone() }),
            Precision::Int8 | Precision::Folded => None,
        })
        .collect();
    let moved = moved
        .iter()
        .map(|mv| MovedRow {
            layer: mv.name.clone(),
            op: mv.kind.into(),
            to: mv.to.name().into(),
            drop: mv.drop,
            cosine_after: mv.cosine_after,
        })
        .collect();
    let mut warnings = Vec::new();
    let bad = clipping.iter().filter(|c| c.fraction > c.calib_fraction + CLIP_WARN).count();
    if bad > 0 && req.eval.is_some() {
        warnings.push(format!(
            "{bad} activations clip over {} percentage points more of the evaluation values than of the calibration values: the calibration set does not represent the evaluation data",
            CLIP_WARN * 100.0
        ));
    }
    if req.eval.is_none() {
        warnings.push("evaluated on the calibration set: pass --eval DIR with other data for an honest figure".into());
    }
    Report {
        method: req.method.clone(),
        act_type: req.act_type.clone(),
        per_channel: !req.per_tensor,
        weight_max: passes::quantize::weight_max(req.reduce_range),
        calib_samples,
        eval_samples,
        eval_data,
        outputs,
        layers,
        clipping,
        kept_float,
        moved,
        sensitivity: sensitivity
            .iter()
            .map(|s| SensitiveRow { tensor: s.name.clone(), op: s.kind.into(), cosine: s.cosine })
            .collect(),
        int8_ops: q.layers.iter().filter(|l| l.precision == Precision::Int8).count(),
        folded_ops: q.layers.iter().filter(|l| l.precision == Precision::Folded).count(),
        bias_corrected: q.bias_corrected,
        bias_fitted: q
            .bias_fitted
            .iter()
            .map(|(&op, &channels)| FittedRow { layer: passes::quantize::label(&f.ops[op], op), channels })
            .collect(),
        equalized: vec![],
        int8_mac_share: ev.int8_mac_share(q),
        warnings,
        integer: None,
    }
}

impl Report {
    /// The human-readable form printed to stderr.
    pub fn text(&self) -> String {
        let mut s = format!(
            "edgec: quantized {} ops to int8 ({:.1}% of MACs; {} scalar affine ops folded into requantization; {} biases corrected); {} calibration on {} samples ({} activations, weights {} on ±{}); evaluated on {} samples of {}\n",
            self.int8_ops,
            100.0 * self.int8_mac_share,
            self.folded_ops,
            self.bias_corrected,
            self.method,
            self.calib_samples,
            self.act_type,
            if self.per_channel { "per channel" } else { "per tensor" },
            self.weight_max,
            self.eval_samples,
            self.eval_data
        );
        let rows = |s: &mut String, title: &str, rows: &[OutputRow]| {
            *s += title;
            for o in rows {
                let snr = o.snr_db.map_or("inf".into(), |x| format!("{x:.1}"));
                let top1 = o.top1_agree.map_or(String::new(), |t| format!("  top-1 agree {:.1}%", 100.0 * t));
                *s +=
                    &format!("  {}: cosine {:.5}  max |diff| {:.4}  SNR {snr} dB{top1}\n", o.name, o.cosine, o.max_abs);
            }
        };
        match &self.integer {
            None => rows(&mut s, "outputs (int8 QDQ vs float):\n", &self.outputs),
            Some(i) => {
                s += &format!(
                    "integer ops for target {}: {} quant.* ops{}\n",
                    i.target,
                    i.ops,
                    if i.limit_hit { " (e-graph limit hit: some patterns may be left)" } else { "" }
                );
                for (why, n) in &i.not_folded {
                    s += &format!("  not folded ({n}×): {why}\n");
                }
                rows(&mut s, "outputs (integer vs float):\n", &self.outputs);
                rows(&mut s, "outputs (QDQ vs float):\n", &i.qdq_outputs);
                rows(&mut s, "outputs (integer vs QDQ: requantize rounding):\n", &i.vs_qdq);
            }
        }
        s += "worst quantized tensors (cosine vs float):\n";
        for l in self.layers.iter().take(WORST) {
            s += &format!("  {:.5}  {} ({})\n", l.cosine, l.tensor, l.op);
        }
        if !self.kept_float.is_empty() {
            s += &format!("kept in float ({}):\n", self.kept_float.len());
            for k in &self.kept_float {
                s += &format!("  {} ({}): {}\n", k.layer, k.op, k.reason);
            }
        }
        if !self.equalized.is_empty() {
            s += "equalized before calibrating (channel ranges by powers of two, exact in float):\n";
            for e in &self.equalized {
                s += &format!(
                    "  {} -> {}: {} channels, ranges {:.1}x apart -> {:.1}x\n",
                    e.producer, e.consumer, e.channels, e.spread_before, e.spread_after
                );
            }
        }
        if !self.bias_fitted.is_empty() {
            let rows: Vec<String> = self.bias_fitted.iter().map(|r| format!("{} ({})", r.layer, r.channels)).collect();
            s += &format!("weight scales raised so the bias fits i32 (channels): {}\n", rows.join(", "));
        }
        if !self.sensitivity.is_empty() {
            s += "most sensitive activations (outputs' worst cosine with each alone quantized):\n";
            for r in self.sensitivity.iter().take(WORST) {
                s += &format!("  {:.5}  {} ({})\n", r.cosine, r.tensor, r.op);
            }
        }
        for mv in &self.moved {
            s += &format!(
                "auto-mixed moved {} ({}){} to {}: it cost {:.5} cosine; outputs now {:.5}\n",
                mv.layer,
                mv.op,
                if mv.to == "i16" { " result" } else { "" },
                mv.to,
                mv.drop,
                mv.cosine_after
            );
        }
        if let Some(c) = self.clipping.first() {
            s += &format!(
                "most clipped: {} ({:.2}% of evaluation values outside [{}, {}], {:.2}% of calibration values)\n",
                c.tensor,
                100.0 * c.fraction,
                c.range[0],
                c.range[1],
                100.0 * c.calib_fraction
            );
        }
        for w in &self.warnings {
            s += &format!("edgec: warning: {w}\n");
        }
        s
    }
}
