//! INT8 post-training quantization (issue 16) in QDQ form.
//!
//! Given a module and the calibration [`Observer`]s of its `@main`
//! activations, [`quantize`] decides per op, by a [`Policy`], whether it
//! computes in int8, and rewrites the module so that every int8 op reads
//! and writes quantized tensors:
//!
//! - each float activation entering or leaving an int8 op is followed by
//!   `QuantizeLinear → DequantizeLinear` with its calibrated, asymmetric
//!   per-tensor scale and zero point, and every consumer reads the
//!   dequantized value (so a tensor is quantized once, for all readers);
//! - weights become int8 constants (symmetric, per output channel unless
//!   per-tensor is asked) behind a `DequantizeLinear`, and biases int32
//!   constants with scale `input scale × weight scale` and zero point 0.
//!
//! Values the input module already dequantizes (a pre-quantized model's
//! `DequantizeLinear` results) are not quantized again.
//!
//! The result is the QDQ form onnxruntime and TFLite converters use: the
//! interpreter runs it with ONNX's QDQ semantics bit for bit, so it is the
//! accuracy model of the integer program. Invariants: the module verifies;
//! every op either keeps its float operands or has all of them quantized;
//! values in region bodies are not quantized; constants other than weights
//! and biases of the ops in [`weight_slots`] stay float.

mod channels;
mod correct;
mod equalize;
pub mod eval;
mod fold;
mod policy;
mod rewrite;
#[cfg(test)]
#[path = "quantize/tests.rs"]
mod tests;

pub use correct::Correction;
pub use equalize::{equalize, Equalized};
pub use fold::{fold_integer, FoldReport, QuantFold};
pub use policy::{selects, FixedGrid, Graph, Policy, BUILTIN_POLICIES, DEFAULT_POLICY, PATTERNS};

use crate::calibrate::{Method, Observer, QParams, QType};
use ir::{Module, OpData, OpId, Opcode, Value};
use std::collections::{BTreeMap, BTreeSet};

/// What to quantize and how.
#[derive(Clone, Debug)]
pub struct Options {
    /// How activation ranges are chosen.
    pub method: Method,
    /// Element type of activations (u8 and i8 asymmetric, i16 symmetric).
    pub act: QType,
    /// Weights per output channel (else per tensor).
    pub per_channel: bool,
    /// Weights on `-64..=64` instead of `-127..=127` (onnxruntime's
    /// `reduce_range`): no pair of them can saturate AVX2's `vpmaddubsw`, so
    /// AVX2-only CPUs multiply bytes directly, at the cost of one weight bit.
    pub reduce_range: bool,
    /// Op names, op types or ONNX node names kept in float (see [`selects`]).
    pub keep_float: Vec<String>,
    /// The mixed-precision policy.
    pub policy: Policy,
    /// Ops (ids of the input module) kept in float by `--auto-mixed`.
    pub keep_ops: BTreeSet<OpId>,
    /// Op names, op types or ONNX node names whose results are quantized
    /// as symmetric i16 whatever `act` is (`--i16`, see [`selects`]).
    pub i16: Vec<String>,
    /// Activations (values of the input module) `--auto-mixed` widened:
    /// quantized as symmetric i16 whatever `act` is.
    pub wide: BTreeSet<Value>,
    /// Per op, the shift subtracted from its bias, one value per output
    /// channel ([`Correction`] measures them).
    pub bias_shift: BTreeMap<OpId, Vec<f32>>,
}

/// The largest int8 weight magnitude: 127, or 64 with `reduce_range`
/// (a pair of such weights times bytes ≤ 255 fits `vpmaddubsw`'s i16 sums).
pub fn weight_max(reduce_range: bool) -> u8 {
    if reduce_range {
        64
    } else {
        127
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            method: Method::Mse,
            act: QType::U8,
            per_channel: true,
            reduce_range: false,
            keep_float: Vec::new(),
            policy: Policy::default_policy(),
            keep_ops: BTreeSet::new(),
            i16: Vec::new(),
            wide: BTreeSet::new(),
            bias_shift: BTreeMap::new(),
        }
    }
}

/// The precision chosen for one op of the policy's lists.
#[derive(Clone, Debug, PartialEq)]
pub enum Precision {
    /// Computes on quantized operands.
    Int8,
    /// Stays in float, with the reason.
    Float(String),
    /// An affine step by a constant scalar, folded into the requantization
    /// between its neighbours: its result gets no quantization grid of its own.
    Folded,
}

/// One op the policy considered.
#[derive(Clone, Debug)]
pub struct Layer {
    /// The op (ids are those of the input module).
    pub op: OpId,
    /// Its label: ONNX node names joined by `+`, or the op name and id.
    pub name: String,
    /// The op's name, e.g. `core.conv`.
    pub kind: &'static str,
    /// The chosen precision.
    pub precision: Precision,
}

/// A quantized activation.
#[derive(Copy, Clone, Debug)]
pub struct ActQ {
    /// The dequantized value that replaced it in the quantized module.
    pub dq: Value,
    /// Its element type.
    pub qtype: QType,
    /// Its scale and zero point.
    pub params: QParams,
}

impl ActQ {
    /// The float range the quantized type represents.
    pub fn range(&self) -> (f32, f32) {
        let (lo, hi) = self.qtype.bounds();
        let (s, z) = (self.params.scale, self.params.zero_point);
        ((lo - z) as f32 * s, (hi - z) as f32 * s)
    }
}

/// The quantized module and what was done to it.
#[derive(Clone, Debug)]
pub struct Quantized {
    /// The module in QDQ form.
    pub module: Module,
    /// Every activation quantized, keyed by the value of the input module.
    pub acts: BTreeMap<Value, ActQ>,
    /// Every op of the policy's lists, in program order.
    pub layers: Vec<Layer>,
    /// Weights quantized: (op, operand index), per channel or not.
    pub weights: Vec<(OpId, usize, bool)>,
    /// Ops whose bias took a correction from [`Options::bias_shift`].
    pub bias_corrected: usize,
    /// Per op, the output channels whose weight scale was raised so that
    /// the bias fits i32 at input scale × weight scale.
    pub bias_fitted: BTreeMap<OpId, usize>,
}

/// Why quantization could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum QuantError {
    /// The module has no `@main`.
    #[error("the module has no @main function")]
    NoMain,
    /// `--keep-float` / `--i16` selections (flag, name) that select no op.
    #[error("no op has this name, op type or ONNX node name: {}", .0.iter().map(|(f, n)| format!("{f} {n}")).collect::<Vec<_>>().join(", "))]
    UnknownSelection(Vec<(&'static str, String)>),
    /// `--i16` names whose ops have no quantized result to widen.
    #[error("--i16 selects no op with a quantized result (kept in float, or its result is fused into the next op's grid: name that op instead): {}", .0.join(", "))]
    NothingToWiden(Vec<String>),
    /// Evaluating a quantization on the data failed.
    #[error("evaluation: {0}")]
    Eval(String),
    /// The rewritten module does not verify (an internal error).
    #[error("the quantized module does not verify:\n{0}")]
    Verify(String),
}

/// Where an op keeps its weight and bias, and the weight's output-channel axis.
#[derive(Copy, Clone, Debug)]
pub struct WeightSlots {
    /// Operand index of the weight.
    pub weight: usize,
    /// Operand index of the bias, if the op has one.
    pub bias: Option<usize>,
    /// The weight's output-channel axis (negative: from the last), or
    /// `None` when only per-tensor scales are exact for this op instance
    /// (grouped transposed conv).
    pub axis: Option<isize>,
}

/// The weight layout of the ops that have weights (backend facts keyed by opcode).
pub fn weight_slots(op: &OpData) -> Option<WeightSlots> {
    let int = |name: &str, d: i64| match op.attrs.get(name) {
        Some(ir::Attr::Int(v)) => *v,
        _ => d,
    };
    let (weight, bias, axis) = match op.opcode {
        Opcode::CoreConv | Opcode::Conv => (1, Some(2), Some(0)),
        Opcode::CoreConvTranspose | Opcode::ConvTranspose => (1, Some(2), (int("group", 1) == 1).then_some(1)),
        // B is [..., K, N], or [..., N, K] transposed: the channels are N.
        Opcode::CoreLinear => (1, Some(2), Some(if int("trans_b", 0) == 1 { -2 } else { -1 })),
        Opcode::Gemm => (1, Some(2), Some(if int("transB", 0) == 1 { 0 } else { 1 })),
        Opcode::MatMul => (1, None, Some(-1)),
        // One slope per tensor: TFLite's int8 PRELU takes one grid for its alpha.
        Opcode::PRelu => (1, None, None),
        _ => return None,
    };
    Some(WeightSlots { weight, bias, axis })
}

/// Every `--keep-float` and `--i16` name must select an op of `@main`
/// (checked before calibration too, so a typo fails fast); lists all that
/// select none.
pub fn check_keep_float(m: &Module, opts: &Options) -> Result<(), QuantError> {
    let f = m.func("main").ok_or(QuantError::NoMain)?;
    let flagged = opts.keep_float.iter().map(|n| ("--keep-float", n)).chain(opts.i16.iter().map(|n| ("--i16", n)));
    let unknown: Vec<(&'static str, String)> = flagged
        .filter(|(_, n)| !f.body.ops.iter().any(|&id| selects(n, &f.ops[id])))
        .map(|(flag, n)| (flag, n.clone()))
        .collect();
    match unknown.is_empty() {
        true => Ok(()),
        false => Err(QuantError::UnknownSelection(unknown)),
    }
}

/// Quantize `m`'s `@main` by `opts`, using the activation ranges in `obs`
/// (from [`crate::calibrate::observe`] on the same module).
pub fn quantize(m: &Module, obs: &BTreeMap<Value, Observer>, opts: &Options) -> Result<Quantized, QuantError> {
    check_keep_float(m, opts)?;
    let f = m.func("main").ok_or(QuantError::NoMain)?;
    let graph = Graph::new(f);
    let layers = plan_layers(f, &graph, opts);
    let mut acts = BTreeSet::new();
    for l in layers.iter().filter(|l| l.precision == Precision::Int8) {
        let op = &f.ops[l.op];
        let wslot = weight_slots(op);
        let weight_operands = [wslot.map(|w| w.weight), wslot.and_then(|w| w.bias)];
        for (i, v) in op.operands.iter().enumerate() {
            let Some(v) = *v else { continue };
            if graph.is_const(v) && weight_operands.contains(&Some(i)) {
                continue;
            }
            acts.insert(v);
        }
        acts.extend(op.results.iter().copied());
    }
    // Values a DequantizeLinear of the input model produces are quantized already.
    let dequantized = |v: Value| graph.producer(v).is_some_and(|p| f.ops[p].opcode == Opcode::DequantizeLinear);
    let fused = relu_fused(f, &graph, &layers, &opts.policy);
    let folded: BTreeSet<OpId> = layers.iter().filter(|l| l.precision == Precision::Folded).map(|l| l.op).collect();
    let mut wide = opts.wide.clone();
    for &id in f.body.ops.iter().filter(|&&id| opts.i16.iter().any(|n| selects(n, &f.ops[id]))) {
        wide.extend(f.ops[id].results.iter().copied());
    }
    // Each activation's folded affine chain back to its source, walked once.
    let chains: BTreeMap<Value, Affine> =
        acts.iter().map(|&y| (y, affine_source(m, f, &graph, &folded, y))).filter(|(y, a)| a.0 != *y).collect();
    let wide = wide_closure(&chains, &wide);
    let ty = |v: Value| if wide.contains(&v) { QType::I16 } else { opts.act };
    let params: BTreeMap<Value, (QType, QParams)> = acts
        .iter()
        .filter(|&&v| f.ty(v).dtype == ir::DType::F32 && !graph.is_const(v) && !dequantized(v))
        .filter(|v| !fused.contains(v))
        .filter_map(|v| obs.get(v).map(|o| (*v, act_params(o, ty(*v), opts))))
        .collect();
    let params = share_grids(f, &layers, params, obs, opts);
    let params = affine_grids(&chains, params);
    let params = fixed_grids(f, &layers, params, &opts.policy);
    check_widened(f, opts, &params)?;
    rewrite::apply(m, layers, &params, opts)
}

/// [`quantize`], then bias correction on `corr`'s calibration set when
/// given (`tick` after each of its interpreter runs).
pub fn quantize_corrected(
    m: &Module,
    obs: &BTreeMap<Value, Observer>,
    opts: &Options,
    corr: Option<&Correction<'_>>,
    tick: &mut dyn FnMut(),
) -> Result<Quantized, QuantError> {
    let q = quantize(m, obs, opts)?;
    match corr {
        Some(c) => c.apply(m, obs, opts, q, tick),
        None => Ok(q),
    }
}

/// The results of int8 ops of the policy's `fuse_relu` list that an int8
/// Relu alone reads: left unquantized (the Relu's result carries the grid).
fn relu_fused(f: &ir::Function, graph: &Graph<'_>, layers: &[Layer], pol: &Policy) -> BTreeSet<Value> {
    let int8: BTreeSet<OpId> = layers.iter().filter(|l| l.precision == Precision::Int8).map(|l| l.op).collect();
    let mut fused = BTreeSet::new();
    for &relu in int8.iter().filter(|&&id| f.ops[id].opcode == Opcode::Relu) {
        let Some(v) = f.ops[relu].inputs().next() else { continue };
        let Some(p) = graph.producer(v).filter(|p| int8.contains(p)) else { continue };
        let alone = graph.users(v) == [relu] && !f.body.results.contains(&v);
        if pol.fuse_relu.iter().any(|n| n == f.ops[p].opcode.name()) && alone {
            fused.insert(v);
        }
    }
    fused
}

/// Give each int8 op of the policy's `share_grid` list and its first input
/// one grid: values joined by such ops (chains too) take the grid of the
/// union of their calibrated ranges, so a max pool's result keeps the
/// maxima its own range would have kept and its input loses none.
fn share_grids(
    f: &ir::Function,
    layers: &[Layer],
    mut params: BTreeMap<Value, (QType, QParams)>,
    obs: &BTreeMap<Value, Observer>,
    opts: &Options,
) -> BTreeMap<Value, (QType, QParams)> {
    // Union-find over the joined values, roots kept as the smallest value.
    let mut root: BTreeMap<Value, Value> = BTreeMap::new();
    fn find(root: &BTreeMap<Value, Value>, mut v: Value) -> Value {
        while let Some(&r) = root.get(&v).filter(|&&r| r != v) {
            v = r;
        }
        v
    }
    for l in layers.iter().filter(|l| l.precision == Precision::Int8) {
        let op = &f.ops[l.op];
        if !opts.policy.share_grid.iter().any(|n| n == op.opcode.name()) {
            continue;
        }
        let Some(x) = op.inputs().next().filter(|x| params.contains_key(x)) else { continue };
        for &r in op.results.iter().filter(|r| params.contains_key(r)) {
            let (a, b) = (find(&root, x), find(&root, r));
            root.insert(a, a.min(b));
            root.insert(b, a.min(b));
        }
    }
    let mut ranges: BTreeMap<Value, (f32, f32)> = BTreeMap::new();
    for &v in root.keys() {
        let Some(o) = obs.get(&v) else { continue };
        let (lo, hi) = o.range(opts.method, params.get(&v).map_or(opts.act, |p| p.0));
        let e = ranges.entry(find(&root, v)).or_insert((lo, hi));
        *e = (e.0.min(lo), e.1.max(hi));
    }
    for &v in root.keys() {
        if let (Some(&(lo, hi)), Some(p)) = (ranges.get(&find(&root, v)), params.get_mut(&v)) {
            *p = range_params(lo, hi, p.0);
        }
    }
    params
}

/// The policy's fixed grids on the 8- and 16-bit results of its int8 ops,
/// passed on (in program order) to the results of `share_grid` ops reading
/// them.
fn fixed_grids(
    f: &ir::Function,
    layers: &[Layer],
    mut params: BTreeMap<Value, (QType, QParams)>,
    pol: &Policy,
) -> BTreeMap<Value, (QType, QParams)> {
    let mut fixed = BTreeSet::new();
    for l in layers.iter().filter(|l| l.precision == Precision::Int8) {
        let op = &f.ops[l.op];
        let name = op.opcode.name();
        let (g8, g16) = (pol.fixed_grid.get(name), pol.fixed_grid_i16.get(name));
        let share = pol.share_grid.iter().any(|n| n == name);
        if g8.is_none() && g16.is_none() && !share {
            continue;
        }
        let from = op.inputs().next().filter(|x| fixed.contains(x)).and_then(|x| params.get(&x).copied());
        for r in &op.results {
            let Some(p) = params.get_mut(r) else { continue };
            let grid = if p.0 == QType::I16 { g16 } else { g8 };
            match (grid, from) {
                (Some(g), _) => {
                    let zero_point = if p.0 == QType::U8 { g.zero_point + 128 } else { g.zero_point };
                    p.1 = QParams { scale: g.scale, zero_point };
                }
                (None, Some(src)) if share && src.0 == p.0 => p.1 = src.1,
                _ => continue,
            }
            fixed.insert(*r);
        }
    }
    params
}

/// Give each quantized value that folded scalar affine steps compute from
/// a quantized value (`x · w + b` after a hard_swish: PP-LCNet's learnable
/// affine) the image of that value's grid, when the image holds 0: the
/// requantization between the two grids then only shifts codes by a
/// constant fraction of a step (which bias correction absorbs) where a grid
/// of its own rounds every value a second time. Asymmetric types only.
fn affine_grids(
    chains: &BTreeMap<Value, Affine>,
    mut params: BTreeMap<Value, (QType, QParams)>,
) -> BTreeMap<Value, (QType, QParams)> {
    let targets: Vec<Value> = params.iter().filter(|(_, p)| p.0 != QType::I16).map(|(&v, _)| v).collect();
    for y in targets {
        let Some(&(v, a, c)) = chains.get(&y) else { continue };
        let ok = |p: &&(QType, QParams)| p.0 != QType::I16 && a.is_finite() && a != 0.0 && c.is_finite();
        let Some(&(qt, p)) = params.get(&v).filter(ok) else {
            continue;
        };
        let (lo, hi) = ActQ { dq: v, qtype: qt, params: p }.range();
        let (l, h) = (a * f64::from(lo) + c, a * f64::from(hi) + c);
        let (l, h) = (l.min(h), l.max(h));
        if l <= 0.0 && h >= 0.0 {
            params.insert(y, range_params(l as f32, h as f32, qt));
        }
    }
    params
}

/// `y = a · v + c`: `(v, a, c)`, see [`affine_source`].
type Affine = (Value, f64, f64);

/// `y = a · v + c` through the `folded` scalar affine steps that compute
/// `y`: `(v, a, c)`, with `v` the first value back that no folded step
/// computes (`(y, 1, 0)` when none does).
fn affine_source(m: &Module, f: &ir::Function, graph: &Graph<'_>, folded: &BTreeSet<OpId>, y: Value) -> Affine {
    let scalar = |v: Value| {
        let c = m.const_of_op(&f.ops[graph.producer(v)?])?;
        c.to_f64s().filter(|x| x.len() == 1).map(|x| x[0])
    };
    let (mut a, mut c, mut v) = (1.0f64, 0.0f64, y);
    while let Some(op) = graph.producer(v).filter(|p| folded.contains(p)).map(|p| &f.ops[p]) {
        let ins: Vec<Value> = op.inputs().collect();
        let Some(k) = ins.iter().position(|&i| graph.is_const(i)) else { break };
        let (Some(kv), x) = (scalar(ins[k]), ins[1 - k]) else { break };
        match (op.opcode, k) {
            (Opcode::Mul, _) => a *= kv,
            (Opcode::Div, 1) => a /= kv,
            (Opcode::Add, _) => c += a * kv,
            (Opcode::Sub, 1) => c -= a * kv,
            (Opcode::Sub, _) => (c, a) = (c + a * kv, -a),
            _ => break,
        }
        v = x;
    }
    (v, a, c)
}

/// `wide` closed over folded affine chains: a value and the values folded
/// steps compute from it are widened together (an 8-bit grid on either
/// side would round what the i16 grid keeps).
fn wide_closure(chains: &BTreeMap<Value, Affine>, wide: &BTreeSet<Value>) -> BTreeSet<Value> {
    let mut out = wide.clone();
    out.extend(chains.iter().filter(|(y, _)| wide.contains(y)).map(|(_, a)| a.0));
    let images: Vec<Value> = chains.iter().filter(|(_, a)| out.contains(&a.0)).map(|(&y, _)| y).collect();
    out.extend(images);
    out
}

/// Every `--i16` name must select an op with a result quantized as i16
/// (a result kept in float, or fused into its reader's grid, has no grid
/// to widen; ops `--auto-mixed` moved to float are exempt): lists all
/// that select none.
fn check_widened(
    f: &ir::Function,
    opts: &Options,
    params: &BTreeMap<Value, (QType, QParams)>,
) -> Result<(), QuantError> {
    let widened = |id: &OpId| {
        opts.keep_ops.contains(id)
            || f.ops[*id].results.iter().any(|r| params.get(r).is_some_and(|p| p.0 == QType::I16))
    };
    let idle: Vec<String> = opts
        .i16
        .iter()
        .filter(|n| !f.body.ops.iter().filter(|&&id| selects(n, &f.ops[id])).any(&widened))
        .cloned()
        .collect();
    match idle.is_empty() {
        true => Ok(()),
        false => Err(QuantError::NothingToWiden(idle)),
    }
}

/// The policy's decision for every op of its lists, in program order.
fn plan_layers(f: &ir::Function, graph: &Graph<'_>, opts: &Options) -> Vec<Layer> {
    let pol = &opts.policy;
    let mut layers = Vec::new();
    for &id in &f.body.ops {
        let op = &f.ops[id];
        let kind = op.opcode.name();
        let listed = pol.quantize.iter().any(|n| n == kind);
        let reason = if opts.keep_ops.contains(&id) {
            Some("--auto-mixed: it lost the most accuracy".to_string())
        } else if let Some(r) = pol.keep_float.get(kind) {
            Some(format!("policy: {r}"))
        } else if let Some(n) = opts.keep_float.iter().find(|n| selects(n, op)) {
            Some(format!("--keep-float {n}"))
        } else {
            graph.pattern(id, &pol.patterns).map(|(p, r)| format!("pattern {p}: {r}"))
        };
        if !listed && reason.is_none() {
            continue;
        }
        let precision = match reason {
            Some(r) => Precision::Float(r),
            None if scalar_affine(graph, f, op) && !(pol.int8_outputs && f.body.results.contains(&op.results[0])) => {
                Precision::Folded
            }
            None => Precision::Int8,
        };
        layers.push(Layer { op: id, name: label(op, id), kind, precision });
    }
    layers
}

/// Is `op` an elementwise affine step by a constant scalar (`x * c`, `x + c`,
/// `x - c`, `x / c`)? An integer backend folds it into the requantization
/// between its neighbours' grids, so it gets no grid of its own.
fn scalar_affine(graph: &Graph<'_>, f: &ir::Function, op: &OpData) -> bool {
    let affine = matches!(op.opcode, Opcode::Mul | Opcode::Add | Opcode::Sub | Opcode::Div);
    let scalar_const = |v: Value| graph.is_const(v) && f.ty(v).shape.num_elements() == Some(1);
    affine && op.inputs().count() == 2 && op.inputs().filter(|&v| scalar_const(v)).count() == 1
}

/// An op's label for reports: its ONNX node names, or its op name and id.
pub fn label(op: &OpData, id: OpId) -> String {
    let names: Vec<&str> = op.loc.onnx_nodes().map(|(n, _)| n).collect();
    if names.is_empty() {
        format!("{}#{id}", op.opcode.name())
    } else {
        names.join("+")
    }
}

/// An activation's parameters as `qt` by `opts`' method.
fn act_params(o: &Observer, qt: QType, opts: &Options) -> (QType, QParams) {
    let (lo, hi) = o.range(opts.method, qt);
    range_params(lo, hi, qt)
}

/// The parameters of an activation range as `qt` (i16 symmetric, the
/// 8-bit types asymmetric).
fn range_params(lo: f32, hi: f32, qt: QType) -> (QType, QParams) {
    (qt, crate::calibrate::qparams(lo, hi, qt, qt == QType::I16))
}
