//! `edgec quantize` and `compile --quantize int8`: calibrate an optimized
//! module on a data set, quantize it by the mixed-precision policy
//! (optionally `--auto-mixed`), evaluate it against the float module and
//! report per output, per layer and per clipped activation.
//!
//! The evaluation set is `--eval DIR`, else the calibration set (the report
//! says so: agreement on the data calibrated on is optimistic).
//!
//! Unless `--qdq` is given, the QDQ module is then folded into integer ops
//! for the target (`quant-fold`: `quant.conv` with fixed-point requantize)
//! and that module is the result: `outputs` are the integer module's, and
//! `integer` says what was folded, what was not and why, and how far the
//! integer outputs are from the QDQ module's (rounding only).

use anyhow::{anyhow, Context, Result};
use indicatif::{ProgressBar, ProgressStyle};
use ir::Module;
use passes::calibrate::{observe_with, Method, QType};
use passes::quantize::eval::{auto_mixed, compare_folded, evaluate, Goal, Mixed, Moved, MovedTo};
use passes::quantize::{quantize_corrected, Correction, Options, Policy, Quantized};
use std::io::IsTerminal;
use std::path::PathBuf;

mod report;
pub use report::*;
use report::{output_names, output_rows, report};

/// What the user asked for.
#[derive(Clone, Debug)]
pub struct Request {
    /// Calibration data directory.
    pub calib: PathBuf,
    /// Evaluation data directory (default: the calibration set).
    pub eval: Option<PathBuf>,
    /// `minmax`, `percentile:P`, `entropy` or `mse`.
    pub method: String,
    /// `u8`, `i8` or `i16`.
    pub act_type: String,
    /// Weights per tensor instead of per channel.
    pub per_tensor: bool,
    /// Weights on ±64 instead of ±127 (`--reduce-range`).
    pub reduce_range: bool,
    /// Ops kept in float, by op type or node name.
    pub keep_float: Vec<String>,
    /// Ops whose results are quantized as i16, by op type or node name.
    pub i16: Vec<String>,
    /// `--auto-mixed COSINE`.
    pub auto_mixed: Option<f64>,
    /// A policy file replacing the default.
    pub policy: Option<PathBuf>,
    /// Fold QDQ patterns into integer ops for `target` (else keep the QDQ form).
    pub integer: bool,
    /// The target profile whose support decides what folds (`cpu`, a .toml path).
    pub target: String,
    /// Correct each int8 layer's bias for the mean shift its rounding
    /// causes, measured on the calibration set (`--no-bias-correction` clears it).
    pub bias_correction: bool,
    /// Equalize the channel ranges of convs feeding a depthwise conv by
    /// powers of two before calibrating (`--no-equalize` clears it; with
    /// per-channel weights only).
    pub equalize: bool,
}

/// Calibrate, quantize and evaluate `m` (an optimized module) as asked.
/// Returns the QDQ quantization, the report and the module to write (the
/// integer one unless `req.integer` is false).
pub fn run(m: &Module, req: &Request) -> Result<(Quantized, Report, Module)> {
    let opts = options(req)?;
    passes::quantize::check_keep_float(m, &opts)?;
    let names = input_names(m)?;
    let read = |dir: &PathBuf| crate::calib::read_set(dir, &names).map_err(|e| anyhow!(e.join("\n")));
    let calib = read(&req.calib)?;
    let eval_set = req.eval.as_ref().map(read).transpose()?;
    let (equalized_m, equalized) = match req.equalize && !req.per_tensor {
        true => {
            let bar = progress(calib.len(), "equalizing");
            let r = passes::quantize::equalize(m, &calib, &mut || bar.inc(1))?;
            bar.finish_and_clear();
            r
        }
        false => (m.clone(), vec![]),
    };
    // From here on the equalized module is the float model: the same float bits.
    let m = &equalized_m;
    let bar = progress(2 * calib.len(), "calibrating");
    let obs = observe_with(m, &calib, &mut || bar.inc(1)).context("calibration")?;
    bar.finish_and_clear();
    let corr = req.bias_correction.then(|| Correction::new(&calib));
    let data = eval_set.as_ref().unwrap_or(&calib);
    let (popts, _) = crate::optimize::pipeline_options(&req.target, &[])?;
    let Mixed { q, ev, moved, sensitivity } = match req.auto_mixed {
        Some(th) => {
            let bar = progress(2 * data.len() + corr.as_ref().map_or(0, Correction::runs), "auto-mixed: evaluating");
            let terminal = std::io::stderr().is_terminal();
            let mut event = |e: Option<&Moved>| match e {
                None => bar.inc(1),
                Some(mv) => {
                    let what = if mv.to == MovedTo::I16 { "result" } else { "op" };
                    let line = format!(
                        "edgec: auto-mixed: {} ({}) {what} to {}; outputs now {:.5}",
                        mv.name,
                        mv.kind,
                        mv.to.name(),
                        mv.cosine_after
                    );
                    if terminal {
                        bar.println(line);
                    } else {
                        eprintln!("{line}");
                    }
                }
            };
            // The integer module, when delivered, must reach the goal too.
            let goal = Goal { cosine: th, fold: req.integer.then_some(&popts) };
            let r = auto_mixed(m, &obs, &opts, corr.as_ref(), data, goal, &mut event)?;
            bar.finish_and_clear();
            if r.ev.min_cosine() < th {
                let why = if opts.policy.float_fallback { "" } else { " (this policy moves no op to float)" };
                eprintln!(
                    "edgec: warning: auto-mixed: outputs reach {:.5}, below the goal {th}{why}",
                    r.ev.min_cosine()
                );
            }
            r
        }
        None => {
            let bar = progress(corr.as_ref().map_or(0, Correction::runs), "bias correction");
            let q = quantize_corrected(m, &obs, &opts, corr.as_ref(), &mut || bar.inc(1))?;
            bar.finish_and_clear();
            let bar = progress(2 * data.len(), "evaluating");
            let ev = evaluate(m, &q, data, &mut || bar.inc(1)).context("evaluation")?;
            bar.finish_and_clear();
            Mixed { q, ev, moved: vec![], sensitivity: vec![] }
        }
    };
    let eval_data = match &req.eval {
        Some(d) => d.display().to_string(),
        None => format!("{} (the calibration set)", req.calib.display()),
    };
    let mut report = report(m, &q, &ev, (&moved, &sensitivity), req, &obs, (calib.len(), data.len(), eval_data));
    report.equalized = equalized
        .into_iter()
        .map(|e| EqualizedRow {
            producer: e.producer,
            consumer: e.consumer,
            channels: e.channels,
            spread_before: e.spread.0,
            spread_after: e.spread.1,
        })
        .collect();
    if !req.integer {
        return Ok((q.clone(), report, q.module));
    }
    let (folded, fr) = passes::quantize::fold_integer(&q.module, &popts).map_err(|e| anyhow!("{e}"))?;
    let bar = progress(data.len(), "evaluating the integer module");
    let (vs_fp, vs_qdq) = compare_folded(&folded, &ev, data, &mut || bar.inc(1)).context("evaluation")?;
    bar.finish_and_clear();
    let names = output_names(m);
    let mut not_folded: std::collections::BTreeMap<String, usize> = Default::default();
    for (why, n) in fr.declined {
        *not_folded.entry(why).or_default() += n;
    }
    report.integer = Some(IntegerRow {
        target: req.target.clone(),
        ops: fr.integer_ops,
        not_folded: not_folded.into_iter().collect(),
        limit_hit: fr.limit_hit,
        qdq_outputs: std::mem::replace(&mut report.outputs, output_rows(&names, &vs_fp)),
        vs_qdq: output_rows(&names, &vs_qdq),
    });
    Ok((q, report, folded))
}

fn options(req: &Request) -> Result<Options> {
    let method = Method::parse(&req.method).map_err(|e| anyhow!(e))?;
    let act = match req.act_type.as_str() {
        "u8" => QType::U8,
        "i8" => QType::I8,
        "i16" => QType::I16,
        t => return Err(anyhow!("--act-type {t}: expected u8, i8 or i16")),
    };
    // A bare name (no directory, no extension) names a built-in policy.
    let named = req.policy.as_ref().filter(|p| p.extension().is_none() && p.components().count() == 1);
    let policy = match (&req.policy, named) {
        (None, _) => Policy::default_policy(),
        (Some(_), Some(n)) => Policy::builtin(&n.to_string_lossy()).ok_or_else(|| {
            let known: Vec<&str> = passes::quantize::BUILTIN_POLICIES.iter().map(|(n, _)| *n).collect();
            anyhow!(
                "--policy {}: no such built-in policy ({}; a policy file ends in .toml)",
                n.display(),
                known.join(", ")
            )
        })?,
        (Some(p), None) => {
            let src = std::fs::read_to_string(p).with_context(|| format!("{}", p.display()))?;
            Policy::parse(&src, &p.display().to_string()).map_err(|e| anyhow!(e))?
        }
    };
    if let Some(th) = req.auto_mixed.filter(|t| !(0.0..=1.0).contains(t)) {
        return Err(anyhow!("--auto-mixed {th}: the target cosine must lie in [0, 1]"));
    }
    Ok(Options {
        method,
        act,
        per_channel: !req.per_tensor,
        reduce_range: req.reduce_range,
        keep_float: req.keep_float.clone(),
        i16: req.i16.clone(),
        policy,
        ..Options::default()
    })
}

/// The names of `@main`'s inputs, as calibration directories name their files.
fn input_names(m: &Module) -> Result<Vec<String>> {
    let f = m.func("main").ok_or_else(|| anyhow!("the module has no @main function"))?;
    Ok(f.body
        .params
        .iter()
        .enumerate()
        .map(|(i, &p)| f.values[p].name.clone().unwrap_or(format!("input_{i}")))
        .collect())
}

/// A progress bar on a terminal; one plain line otherwise.
fn progress(n: usize, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        eprintln!("edgec: {what} ({n} runs of the interpreter)");
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(n as u64).with_message(what.to_string());
    if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})") {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}
