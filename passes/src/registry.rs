//! The one registry of pass names. `--passes a,b,c` is resolved here.

use crate::manager::PassError;
use crate::optimize::{EgraphPass, PipelineOptions};
use crate::simplify::{Canonicalize, Dce, ShapeInfer};
use crate::Pass;

/// A registered pass.
pub struct PassInfo {
    /// Name used in pipelines.
    pub name: &'static str,
    /// One-line description for `--help` and error messages.
    pub description: &'static str,
    /// Constructor.
    pub make: fn(&PipelineOptions) -> Box<dyn Pass>,
}

/// Every pass edgec knows, in the order they are listed to users.
pub static REGISTRY: &[PassInfo] = &[
    PassInfo {
        name: "canonicalize",
        description:
            "fold trivial identities (Identity, inference Dropout, no-op Transpose/Reshape/Cast/Expand, x+0, x*1); Scan along axis 0 only (other scan axes become Transposes)",
        make: |_| Box::new(Canonicalize),
    },
    PassInfo { name: "dce", description: "remove unused pure ops and unreferenced constants", make: |_| Box::new(Dce) },
    PassInfo {
        name: "shape-infer",
        description: "refine every value's type with shape inference (symbolic dims included)",
        make: |_| Box::new(ShapeInfer),
    },
    PassInfo {
        name: "optimize",
        description: "equality saturation with every rule (cleanup, fusion, recognition, legalization, canonicalization, resize, attention, window), constant folding, CSE and DCE; extraction by the target's cost model",
        make: |o| Box::new(EgraphPass::new("optimize", None, true, o)),
    },
    PassInfo {
        name: "cleanup",
        description: "e-graph run with the cleanup rules only (layout and identity cleanups), folding, CSE and DCE",
        make: |o| Box::new(EgraphPass::new("cleanup", Some(&["cleanup"]), true, o)),
    },
    PassInfo {
        name: "fuse",
        description: "e-graph run with the fusion rules only (conv/linear + bias + activation, BN folding)",
        make: |o| Box::new(EgraphPass::new("fuse", Some(&["fusion"]), true, o)),
    },
    PassInfo {
        name: "recognize",
        description: "e-graph run with the recognition rules only (LayerNorm, GELU, Softmax, attention, HardSwish forms)",
        make: |o| Box::new(EgraphPass::new("recognize", Some(&["recognition"]), true, o)),
    },
    PassInfo {
        name: "legalize",
        description: "e-graph run with the target legalization rules only (e.g. GELU erf -> tanh where the target lacks Erf)",
        make: |o| Box::new(EgraphPass::new("legalize", Some(&["legalize"]), true, o)),
    },
    PassInfo {
        name: "canonicalize-core",
        description: "e-graph run with the canonical rules only (constant shape/axes operands of Reshape, Squeeze, Unsqueeze, Reduce*, Slice, Expand become static attributes of core.* ops)",
        make: |o| Box::new(EgraphPass::new("canonicalize-core", Some(&["canonical"]), true, o)),
    },
    PassInfo {
        name: "legalize-core",
        description: "enter the core phase: onnx ops with a core form (Conv, ConvTranspose) become it; the verifier then rejects the onnx forms",
        make: |_| Box::new(crate::LegalizeCore),
    },
    PassInfo {
        name: "resize-to-conv",
        description: "e-graph run with the resize rules only, forced (as if the target had no Resize): integer-factor Resize/Upsample become a nearest upsample (depthwise conv_transpose) + edge Pad + fixed depthwise conv",
        make: |o| {
            let forced = forced_target(o, crate::rules::appliers::resize::lower_resize_target);
            Box::new(EgraphPass::new("resize-to-conv", Some(&["resize"]), true, &forced))
        },
    },
    PassInfo {
        name: "quant-fold",
        description: "APPROXIMATION (rounding only; run by `quantize`): e-graph run with the quant rules enabled: enters the core phase, then QDQ patterns around convs become integer quant.conv with fixed-point requantization where the target runs it; recorded in the module's `approximations`, @main.reference keeps the QDQ function",
        make: |o| Box::new(crate::quantize::QuantFold::new(o)),
    },
    PassInfo {
        name: "attention-blocked",
        description: "e-graph run with the attention rules only, forced: every core.attention with static Sq/Sk/D/Dv becomes core.attention_blocked (online softmax over tiles sized to the target's onchip_bytes, 256 KiB without one)",
        make: |o| {
            let forced = forced_target(o, crate::rules::appliers::attention::blocked_target);
            Box::new(EgraphPass::new("attention-blocked", Some(&["attention"]), true, &forced))
        },
    },
    PassInfo {
        name: "window-lower",
        description: "e-graph run with the window-lower rules only, forced (as if the target had no window ops): core.window_partition/merge become rank-4 reshape + transpose (+ slice/concat rolls), core.window_attention batched matmuls with one folded bias+mask constant",
        make: |o| {
            let forced = forced_target(o, crate::rules::appliers::window_lower::window_lower_target);
            Box::new(EgraphPass::new("window-lower", Some(&["window-lower"]), true, &forced))
        },
    },
    PassInfo {
        name: "const-fold",
        description: "fold ops with constant operands (and Shape/Size of static shapes) within the folding budget; also CSE and DCE",
        make: |o| Box::new(EgraphPass::new("const-fold", Some(&[]), true, o)),
    },
    PassInfo {
        name: "cse",
        description: "common-subexpression elimination (and DCE) without folding",
        make: |o| Box::new(EgraphPass::new("cse", Some(&[]), false, o)),
    },
    PassInfo {
        name: "attention-window",
        description: "APPROXIMATION, opt-in (--attention-window W): every self-attention sees only keys |i - j| <= W (sliding window); recorded in the module's `approximations`, @main.reference keeps the exact function",
        make: |o| Box::new(crate::approx::AttentionWindow::new(o.attention_window)),
    },
    PassInfo {
        name: "bucket",
        description: "shape bucketing: @main becomes a core.bucket_dispatch over one static specialization per bucket combination of the --bucket dims (inputs padded, outputs sliced back); @main.reference keeps the unbucketed body",
        make: |o| Box::new(crate::bucket::Bucket::new(o.bucket.clone())),
    },
];

/// The pipeline `edgec opt` runs when `--passes` is not given.
pub const DEFAULT_PIPELINE: &str = "shape-infer,canonicalize,optimize,dce,shape-infer";

/// Build the passes named in a comma-separated pipeline string.
/// All unknown names are reported at once, with the list of valid names.
pub fn parse_pipeline(spec: &str) -> Result<Vec<Box<dyn Pass>>, PassError> {
    parse_pipeline_with(spec, &PipelineOptions::default())
}

/// [`parse_pipeline`] with explicit options for the e-graph passes.
pub fn parse_pipeline_with(spec: &str, opts: &PipelineOptions) -> Result<Vec<Box<dyn Pass>>, PassError> {
    let mut passes = Vec::new();
    let mut unknown = Vec::new();
    for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match REGISTRY.iter().find(|p| p.name == name) {
            Some(info) => passes.push((info.make)(opts)),
            None => unknown.push(name.to_owned()),
        }
    }
    if !unknown.is_empty() {
        return Err(PassError::UnknownPasses { unknown, valid: REGISTRY.iter().map(|p| p.name).collect() });
    }
    Ok(passes)
}

/// A pipeline target, shared.
type Target = std::sync::Arc<dyn crate::egraph::TargetInfo>;

/// `o` with its target replaced by `force(o.target)` (a target view that
/// declares some ops unsupported, so a pass's rules must rewrite them).
fn forced_target(o: &PipelineOptions, force: fn(Option<Target>) -> Target) -> PipelineOptions {
    PipelineOptions { target: Some(force(o.target.clone())), ..o.clone() }
}
