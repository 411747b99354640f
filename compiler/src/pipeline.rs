//! The optimizing pipeline as `edgec opt` and `edgec compile` run it: target
//! profile, rules, limits, bucketing and opt-in approximations, with the
//! `--explain` text.

use crate::driver::{load_eir, load_model_with, LoadOptions};
use ir::Module;
use passes::{parse_pipeline_with, PassError, PassManager, PassOptions, PassReport};
use std::path::PathBuf;

/// What to run.
#[derive(Clone, Debug)]
pub struct Request {
    /// Model path (`.onnx`, `.eir`, or `-` for `.eir` on stdin).
    pub file: String,
    /// Pass list.
    pub passes: String,
    /// Target name or profile path.
    pub target: String,
    /// User rule files.
    pub rules: Vec<PathBuf>,
    /// E-graph node limit.
    pub max_enodes: usize,
    /// E-graph iteration limit.
    pub max_iters: usize,
    /// `--bucket` arguments.
    pub bucket: Vec<String>,
    /// `--pad` arguments.
    pub pad: Vec<String>,
    /// `--buckets-max`.
    pub buckets_max: usize,
    /// `--attention-window`.
    pub attention_window: Option<u64>,
    /// `--approximate NAME`: approximate rules allowed to run.
    pub approximate: Vec<String>,
    /// `--const NAME=FILE` arguments (graph inputs fixed to a `.npy` or
    /// `.pb` TensorProto value before import).
    pub consts: Vec<String>,
    /// `--shape NAME=D0,D1,...` arguments.
    pub shapes: Vec<String>,
    /// `--dim SYMBOL=N` arguments.
    pub dims: Vec<String>,
}

/// Parse `--const NAME=FILE` arguments into tensors (`.npy`, else a
/// serialized TensorProto); every bad argument is reported.
pub fn read_consts(args: &[String]) -> Result<Vec<(String, ir::interp::Tensor)>, crate::driver::DriverError> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for a in args {
        let Some((name, file)) = a.split_once('=') else {
            errors.push(format!("--const {a}: expected NAME=FILE"));
            continue;
        };
        let t = if file.ends_with(".npy") {
            std::fs::read(file).map_err(|e| format!("{file}: {e}")).and_then(|b| crate::npy::read_npy(&b))
        } else {
            crate::check::read_tensor_pb(std::path::Path::new(file))
        };
        match t {
            Ok(t) => out.push((name.to_string(), t)),
            Err(e) => errors.push(format!("--const {name}: {e}")),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(crate::driver::DriverError::Usage(errors.join("\n")))
    }
}

/// Parse `--shape` and `--dim` arguments (every bad one is reported).
pub fn shape_spec(
    shapes: &[String],
    dims: &[String],
) -> Result<passes::specialize::ShapeSpec, crate::driver::DriverError> {
    passes::specialize::ShapeSpec::parse(shapes, dims).map_err(|e| crate::driver::DriverError::Usage(e.join("\n")))
}

/// A static-shape target needs every input dim fixed: say which flags do it
/// (rather than leaving its rewrites undone on symbolic sizes).
fn static_inputs(m: &Module, target: &str) -> Result<(), String> {
    let Some(f) = m.func("main") else { return Ok(()) };
    let mut lines = Vec::new();
    for &p in &f.body.params {
        let ty = f.ty(p);
        let syms = passes::specialize::symbols_in(std::iter::once(ty));
        if syms.is_empty() {
            continue;
        }
        let name = f.values[p].name.clone().unwrap_or_default();
        let example: Vec<String> = ty
            .dims()
            .unwrap_or(&[])
            .iter()
            .map(|d| d.as_static().map_or_else(|| format!("<{d}>"), |n| n.to_string()))
            .collect();
        let dims: Vec<String> = syms.iter().map(|s| format!("--dim {}=N", s.as_str())).collect();
        lines.push(format!("  input `{name}`: {ty}: pass --shape {name}={} or {}", example.join(","), dims.join(" ")));
    }
    if lines.is_empty() {
        return Ok(());
    }
    Err(format!(
        "target `{target}` needs static shapes, and these inputs have symbolic dims:\n{}\n  (or --bucket DIM=SIZES to compile one static variant per size)",
        lines.join("\n")
    ))
}

/// A failure, split like the CLI's exit codes.
#[derive(Debug)]
pub enum Failure {
    /// Bad input (exit 1).
    User(anyhow::Error),
    /// A bug in edgec (exit 2).
    Internal(anyhow::Error),
}

impl From<crate::driver::DriverError> for Failure {
    fn from(e: crate::driver::DriverError) -> Self {
        Failure::User(e.into())
    }
}

impl From<PassError> for Failure {
    fn from(e: PassError) -> Self {
        match e {
            PassError::UnknownPasses { .. } => Failure::User(e.into()),
            _ => Failure::Internal(e.into()),
        }
    }
}

/// The result of a pipeline run.
pub struct Outcome {
    /// The optimized module.
    pub module: Module,
    /// Per-pass timings and op counts.
    pub timings: PassReport,
    /// The `--explain` text.
    pub explain: String,
    /// Approximations applied (each also warned about by the CLI).
    pub approximations: Vec<String>,
    /// The target, loaded once.
    pub profile: std::sync::Arc<passes::target::TargetProfile>,
}

fn with_pass(passes: String, name: &str, first: bool) -> String {
    if passes.split(',').any(|p| p.trim() == name) {
        passes
    } else if first {
        format!("{name},{passes}")
    } else {
        format!("{passes},{name}")
    }
}

/// Load the model and run the pipeline `req` describes.
pub fn run(req: &Request, popts_pass: PassOptions) -> Result<Outcome, Failure> {
    let (mut popts, profile) = crate::optimize::pipeline_options(&req.target, &req.rules).map_err(Failure::User)?;
    popts.limits.max_enodes = req.max_enodes;
    popts.limits.max_iters = req.max_iters;
    popts.rules.enable_approximations(&req.approximate).map_err(|e| Failure::User(anyhow::anyhow!(e)))?;
    let (spec, autos) = crate::bucket::bucket_spec(&req.bucket, &req.pad, req.buckets_max)?;
    let load = LoadOptions { consts: read_consts(&req.consts)?, shapes: shape_spec(&req.shapes, &req.dims)? };
    let mut m = if req.file == "-" && load.consts.is_empty() && load.shapes.is_empty() {
        load_eir(&req.file)?.module
    } else {
        load_model_with(&req.file, &load)?
    };
    if profile.static_shapes && spec.dims.is_empty() {
        static_inputs(&m, &profile.name).map_err(|e| Failure::User(anyhow::anyhow!(e)))?;
    }
    let mut passes = req.passes.clone();
    if !spec.dims.is_empty() {
        spec.check(&m, "main").map_err(|e| Failure::User(anyhow::anyhow!(e.join("\n"))))?;
        popts.bucket = Some(spec);
        passes = with_pass(passes, "bucket", true);
    }
    if let Some(w) = req.attention_window {
        popts.attention_window = Some(w);
        passes = with_pass(passes, "attention-window", false);
    }
    let pipeline = parse_pipeline_with(&passes, &popts)?;
    let before = crate::optimize::op_histogram(&m);
    let timings = PassManager::new(pipeline, popts_pass).run(&mut m, &mut std::io::stderr())?;
    let approximations = match m.attrs.get(passes::approx::APPROXIMATIONS) {
        Some(ir::Attr::Strs(a)) => a.clone(),
        _ => vec![],
    };
    let mut explain: String = autos.iter().map(|a| format!("== {a}")).collect();
    explain += &crate::optimize::explain(&before, &m, &timings.cx, &profile);
    Ok(Outcome { module: m, timings, explain, approximations, profile })
}
