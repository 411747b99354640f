//! The mixed-precision policy: which ops compute in int8 and which stay in
//! float, and why. A policy is data (`passes/policy/quant-default.toml` is
//! the default); the user adds to its float list by op type or node name.
//!
//! Invariant: every op the policy keeps in float carries a reason, and the
//! report prints it; an op in neither list stays float as "no int8 form".

use ir::{Function, OpData, OpId, Opcode, Value};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};

/// The default policy's source text.
pub const DEFAULT_POLICY: &str = include_str!("../../policy/quant-default.toml");

/// The built-in policies by name: the default, and the TFLite backend's
/// (its int8 operator forms; `edgec compile --emit tflite` uses it).
pub const BUILTIN_POLICIES: &[(&str, &str)] =
    &[("default", DEFAULT_POLICY), ("tflite", include_str!("../../policy/quant-tflite.toml"))];

/// A parsed policy.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Op names (`core.conv`, `onnx.Add`) computed in int8.
    pub quantize: Vec<String>,
    /// Op names kept in float wherever they appear, with the reason.
    #[serde(default)]
    pub keep_float: BTreeMap<String, String>,
    /// Graph patterns kept in float ([`PATTERNS`]), with the reason.
    #[serde(default)]
    pub patterns: BTreeMap<String, String>,
    /// Op names whose int8 result takes its first input's grid (scale and
    /// zero point) instead of its own calibrated one: ops that only move or
    /// select values, so every result is an input value and the integer
    /// form needs no requantization.
    #[serde(default)]
    pub share_grid: Vec<String>,
    /// Op names whose int8 result is left unquantized when a Relu alone
    /// reads it: only the Relu's result is quantized, and the integer op
    /// clamps at that grid's zero point (one rounding where there were two).
    #[serde(default)]
    pub fuse_relu: Vec<String>,
    /// Op names whose 8-bit result has a fixed grid instead of a calibrated
    /// one (TFLite's int8 Logistic and Softmax write on 1/256 from -128).
    #[serde(default)]
    pub fixed_grid: BTreeMap<String, FixedGrid>,
    /// The same for 16-bit results (symmetric: zero point 0; TFLite's int16
    /// Logistic, Tanh and Softmax write on 1/32768).
    #[serde(default)]
    pub fixed_grid_i16: BTreeMap<String, FixedGrid>,
    /// Graph outputs are stored integers (a TFLite graph's are): a scalar
    /// step producing one is computed in int8, not folded into the grids
    /// of its neighbours (it has no quantized reader to fold into).
    #[serde(default)]
    pub int8_outputs: bool,
    /// Op names with no 16-bit form: `--auto-mixed` never widens a value
    /// they read or write (Vela 5.2 fails on an int16 PRELU).
    #[serde(default)]
    pub narrow_only: Vec<String>,
    /// Whether `--auto-mixed` may move ops back to float once widening is
    /// done (`false` for a target that runs integer ops only: the report
    /// says the goal was not reached instead).
    #[serde(default = "yes")]
    pub float_fallback: bool,
}

fn yes() -> bool {
    true
}

/// A fixed 8-bit grid, given for i8; u8 results take the same reals
/// (zero point + 128). i16 results take `fixed_grid_i16` instead.
#[derive(Clone, Copy, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FixedGrid {
    /// The step.
    pub scale: f32,
    /// The i8 zero point.
    pub zero_point: i32,
}

/// The graph patterns a policy can name.
pub const PATTERNS: &[&str] = &["attention-scores", "output-sigmoid"];

impl Policy {
    /// The built-in default policy.
    pub fn default_policy() -> Policy {
        Policy::builtin("default").unwrap_or_else(|| unreachable!("the default policy is built in"))
    }

    /// The built-in policy `name` ([`BUILTIN_POLICIES`]); the test suite
    /// parses every one, so a parse failure is reported as absent.
    pub fn builtin(name: &str) -> Option<Policy> {
        let (_, src) = BUILTIN_POLICIES.iter().find(|(n, _)| *n == name)?;
        Policy::parse(src, &format!("<{name} policy>")).ok()
    }

    /// Parse a policy; `origin` names the file in errors, which list every
    /// unknown op and pattern.
    pub fn parse(src: &str, origin: &str) -> Result<Policy, String> {
        let p: Policy = toml::from_str(src).map_err(|e| format!("{origin}: {e}"))?;
        let mut errs = Vec::new();
        let listed =
            p.quantize.iter().chain(p.keep_float.keys()).chain(&p.share_grid).chain(&p.fuse_relu).chain(&p.narrow_only);
        for name in listed.chain(p.fixed_grid.keys()).chain(p.fixed_grid_i16.keys()) {
            if Opcode::from_name(name).is_none() {
                errs.push(format!("{origin}: unknown op `{name}` (write it as `onnx.Conv`, `core.conv`, ...)"));
            }
        }
        for name in p.patterns.keys().filter(|n| !PATTERNS.contains(&n.as_str())) {
            errs.push(format!("{origin}: unknown pattern `{name}` (known: {})", PATTERNS.join(", ")));
        }
        for (name, g) in &p.fixed_grid {
            if !(g.scale.is_finite() && g.scale > 0.0 && (-128..=127).contains(&g.zero_point)) {
                errs.push(format!(
                    "{origin}: fixed grid of `{name}`: scale must be positive, zero point in -128..=127"
                ));
            }
        }
        for (name, g) in &p.fixed_grid_i16 {
            if !(g.scale.is_finite() && g.scale > 0.0 && g.zero_point == 0) {
                errs.push(format!("{origin}: 16-bit fixed grid of `{name}`: scale must be positive, zero point 0"));
            }
        }
        if errs.is_empty() {
            Ok(p)
        } else {
            Err(errs.join("\n"))
        }
    }
}

/// Does the user's `--keep-float` name select `op`? By op name (`onnx.Softmax`,
/// `core.conv`), op name without dialect (`Softmax`), or any ONNX node name
/// or op type the op was built from (`Conv` selects a fused `core.conv`).
pub fn selects(name: &str, op: &OpData) -> bool {
    let short = |o: Opcode| o.name().split_once('.').map_or(o.name(), |(_, s)| s);
    if op.opcode.name() == name || short(op.opcode) == name {
        return true;
    }
    // An ONNX op type selects the core form it becomes (`Conv` selects `core.conv`).
    if Opcode::ALL.iter().any(|&o| short(o) == name && ir::ops::core_form(o) == Some(op.opcode)) {
        return true;
    }
    op.loc.onnx_nodes().any(|(node, ty)| node == name || ty == name)
}

/// Ops that move or rescale values without changing what they mean, for
/// following attention scores and outputs through a graph.
fn passes_through(op: Opcode) -> bool {
    matches!(
        op.name(),
        "onnx.Add"
            | "onnx.Sub"
            | "onnx.Mul"
            | "onnx.Div"
            | "onnx.Where"
            | "onnx.Cast"
            | "onnx.Reshape"
            | "onnx.Transpose"
            | "onnx.Squeeze"
            | "onnx.Unsqueeze"
            | "onnx.Flatten"
            | "onnx.Concat"
            | "onnx.Slice"
            | "core.reshape"
            | "core.squeeze"
            | "core.unsqueeze"
            | "core.slice"
    )
}

/// Uses and definitions of the values of a function's body.
pub struct Graph<'f> {
    f: &'f Function,
    users: HashMap<Value, Vec<OpId>>,
    producer: HashMap<Value, OpId>,
}

impl<'f> Graph<'f> {
    /// Index the body of `f` (ops inside regions are not followed).
    pub fn new(f: &'f Function) -> Graph<'f> {
        let (mut users, mut producer) = (HashMap::<Value, Vec<OpId>>::new(), HashMap::new());
        for &id in &f.body.ops {
            for v in f.ops[id].inputs() {
                users.entry(v).or_default().push(id);
            }
            for &r in &f.ops[id].results {
                producer.insert(r, id);
            }
        }
        Graph { f, users, producer }
    }

    /// The ops of the body reading `v`, once per operand.
    pub fn users(&self, v: Value) -> &[OpId] {
        self.users.get(&v).map_or(&[], Vec::as_slice)
    }

    /// The op defining `v` in the body, if any.
    pub fn producer(&self, v: Value) -> Option<OpId> {
        self.producer.get(&v).copied()
    }

    /// Is `v` defined by a `core.const`?
    pub fn is_const(&self, v: Value) -> bool {
        self.producer(v).is_some_and(|p| self.f.ops[p].opcode == Opcode::CoreConst)
    }

    /// Does `v` reach an op with opcode `target` forward (`down`) or come
    /// from one backward, through at most `hops` pass-through ops?
    fn linked(&self, v: Value, target: &str, down: bool, hops: usize) -> bool {
        let next: Vec<OpId> =
            if down { self.users.get(&v).cloned().unwrap_or_default() } else { self.producer(v).into_iter().collect() };
        next.into_iter().any(|id| {
            let op = &self.f.ops[id];
            if op.opcode.name() == target {
                return true;
            }
            if hops == 0 || !passes_through(op.opcode) {
                return false;
            }
            let vals: Vec<Value> = if down { op.results.to_vec() } else { op.inputs().collect() };
            vals.into_iter().any(|w| self.linked(w, target, down, hops - 1))
        })
    }

    /// Does `v` reach a function result through pass-through ops only?
    fn reaches_output(&self, v: Value, hops: usize) -> bool {
        if self.f.body.results.contains(&v) {
            return true;
        }
        hops > 0
            && self.users.get(&v).is_some_and(|us| {
                us.iter().any(|&id| {
                    let op = &self.f.ops[id];
                    passes_through(op.opcode) && op.results.iter().any(|&r| self.reaches_output(r, hops - 1))
                })
            })
    }

    /// The first pattern of `patterns` that `op` matches.
    pub fn pattern<'p>(&self, id: OpId, patterns: &'p BTreeMap<String, String>) -> Option<(&'p str, &'p str)> {
        let op = &self.f.ops[id];
        patterns.iter().map(|(n, r)| (n.as_str(), r.as_str())).find(|(name, _)| match *name {
            "attention-scores" => {
                op.opcode.name() == "onnx.MatMul"
                    && op.inputs().all(|v| !self.is_const(v))
                    && (op.results.iter().any(|&r| self.linked(r, "onnx.Softmax", true, 4))
                        || op.inputs().any(|v| self.linked(v, "onnx.Softmax", false, 4)))
            }
            "output-sigmoid" => {
                let sigmoid = matches!(op.opcode.name(), "onnx.Sigmoid" | "onnx.HardSigmoid")
                    || matches!(op.attrs.get("act"), Some(ir::Attr::Str(a)) if a == "sigmoid" || a == "hard_sigmoid");
                sigmoid && op.results.iter().any(|&r| self.reaches_output(r, 6))
            }
            _ => false,
        })
    }
}
