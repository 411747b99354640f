//! Target profiles: what a device can run and what it costs.
//!
//! A [`TargetProfile`] is read from a small TOML file (the format is documented
//! key by key in `codegen/targets/README.md`; the shipped profiles live beside
//! it). It answers two questions about one op with known operand and result
//! types ([`OpQuery`]):
//!
//! * [`TargetProfile::support`]: can the device run it, and if not, why not
//!   (unsupported op, dynamic shape, rank, element type, attribute value);
//! * [`TargetProfile::cost_ns`]: an estimated run time in nanoseconds, used by
//!   e-graph extraction. Unsupported ops cost their CPU-fallback time plus the
//!   transfer of their operands and results and a fixed boundary latency.
//!
//! Invariants of a parsed profile: every cost coefficient is finite and `>= 0`
//! (so [`TargetProfile::cost_ns`] is finite, `>= 0` and monotone in tensor
//! sizes), `transfer.bytes_per_ns > 0`, every op rule names a known opcode, and
//! every attribute constraint names an attribute of its op with values of the
//! attribute's kind. Parsing reports every problem it finds, each with
//! `file:line:col`.

pub mod cycles;
pub mod limits;
mod parse;
mod support;
#[cfg(test)]
mod tests;
pub mod work;

pub use edgec_numeric::fixed::Arithmetic;
use ir::{Attr, Attrs, DType, Opcode, TensorType};
use std::collections::BTreeMap;
use std::fmt;

pub use cycles::{CycleModel, Cycles, Form, Fusion, OpCycles};
pub use work::{Work, NOMINAL_DIM, NOMINAL_UNRANKED_ELEMS};

/// Extra cost of an unsupported op on a profile without a `fallback` target:
/// large enough that extraction avoids such ops whenever an alternative exists.
pub const NO_FALLBACK_PENALTY_NS: f64 = 1.0e12;

/// Fallback compute costs used when a profile has no `[fallback_costs]` table
/// (one modern CPU core, see the shipped `cpu` profile).
pub const DEFAULT_FALLBACK_COSTS: CostModel = CostModel { ns_per_mac: 0.02, ns_per_elem: 0.3, ns_fixed: 50.0 };

/// One op as the cost model sees it: opcode, attributes, operand types
/// (`None` for an omitted optional operand) and result types.
#[derive(Copy, Clone, Debug)]
pub struct OpQuery<'a> {
    /// The op.
    pub opcode: Opcode,
    /// Its attributes.
    pub attrs: &'a Attrs,
    /// Operand types in schema order; `None` where an optional operand is omitted.
    pub inputs: &'a [Option<&'a TensorType>],
    /// Result types.
    pub outputs: &'a [TensorType],
    /// Whether each operand is known when the model is built (a constant,
    /// or computed from constants only); empty when the caller cannot tell
    /// (a limit measuring it then fails).
    pub consts: &'a [bool],
}

/// Whether a target can run an op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Support {
    /// The device runs the op.
    Yes,
    /// The op runs on the fallback target instead; the string says why.
    No(String),
}

impl Support {
    /// True for [`Support::Yes`].
    pub fn is_yes(&self) -> bool {
        matches!(self, Support::Yes)
    }
}

/// A linear cost model: `ns_fixed + ns_per_mac * MACs + ns_per_elem * elements`.
/// Invariant (for parsed profiles): all three are finite and `>= 0`.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct CostModel {
    /// Nanoseconds per multiply-accumulate (ops with a MAC count, see [`work`]).
    pub ns_per_mac: f64,
    /// Nanoseconds per element of work (see [`Work::elems`]).
    pub ns_per_elem: f64,
    /// Fixed nanoseconds per op (launch / dispatch overhead).
    pub ns_fixed: f64,
}

impl CostModel {
    /// The cost of `w` under this model.
    pub fn eval(&self, w: &Work) -> f64 {
        self.ns_fixed + self.ns_per_mac * w.macs + self.ns_per_elem * w.elems
    }
}

/// Host <-> device copies, charged when an op falls back.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Transfer {
    /// Copy bandwidth in bytes per nanosecond (GB/s); `> 0`.
    pub bytes_per_ns: f64,
    /// Fixed cost per fallback boundary crossing; `>= 0`.
    pub latency_ns: f64,
}

/// An allowed-values constraint on one attribute of one op.
#[derive(Clone, Debug, PartialEq)]
pub struct AttrRule {
    /// Attribute name (an attribute of the op's schema).
    pub name: String,
    /// The values the device supports (`Attr::Int` or `Attr::Str`); non-empty.
    pub allow: Vec<Attr>,
    /// Value assumed when the op does not carry the attribute (the ONNX
    /// default); without it an absent attribute does not satisfy the rule.
    pub default: Option<Attr>,
    /// Why other values are unsupported (shown in support reports).
    pub reason: Option<String>,
}

/// What a target says about one op (or, as `[default]`, about unlisted ops).
#[derive(Clone, Debug, PartialEq)]
pub struct OpRule {
    /// Whether the device runs the op at all.
    pub supported: bool,
    /// Why not, if unsupported.
    pub reason: Option<String>,
    /// Device cost (fields not given for an op are inherited from `[default]`).
    pub cost: CostModel,
    /// Element types allowed for this op, overriding the profile's `dtypes`.
    pub dtypes: Option<Vec<DType>>,
    /// Maximum tensor rank for this op, overriding the profile's `max_rank`.
    pub max_rank: Option<u32>,
    /// Attribute constraints, all of which must hold.
    pub attrs: Vec<AttrRule>,
    /// Window limits (`limits = [...]`), all of which must hold.
    pub limits: Vec<limits::Limit>,
}

/// A parsed and validated target profile (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct TargetProfile {
    /// Target name (`cpu`, `rk3588-npu`).
    pub name: String,
    /// One-line description.
    pub description: String,
    /// The file the profile was read from (for messages).
    pub source: String,
    /// True if there is no hardware backend: costs are estimates only.
    pub simulated: bool,
    /// True if ops with symbolic or unknown dims cannot run on the device.
    pub static_shapes: bool,
    /// Element types the device computes in; `None` accepts every type.
    pub dtypes: Option<Vec<DType>>,
    /// Element types accepted because the toolchain converts them to a device
    /// type before deployment (e.g. `f32` quantized to `i8` or cast to `f16`).
    pub convert_from: Vec<DType>,
    /// Maximum tensor rank the device handles; `None`: unlimited.
    pub max_rank: Option<u32>,
    /// Name of the target unsupported ops run on (`None`: there is none).
    pub fallback: Option<String>,
    /// The backend that generates code for this target (`rust`); its op
    /// table decides support and costs (`codegen::backend`). `None`: the
    /// target has no code generator (a simulated NPU).
    pub backend: Option<String>,
    /// Copy costs charged when an op falls back.
    pub transfer: Transfer,
    /// On-chip memory in bytes, if the device has a scratchpad.
    pub onchip_bytes: Option<u64>,
    /// Rule for ops without their own entry.
    pub default: OpRule,
    /// Per-op rules.
    pub ops: BTreeMap<Opcode, OpRule>,
    /// CPU cost model for ops that fall back.
    pub fallback_costs: CostModel,
    /// Vela's `--accelerator-config` for this target (`edgec compile --emit
    /// vela` needs one).
    pub vela_accelerator: Option<String>,
    /// Values computed from constants alone fold into constants up to this
    /// many bytes each (`None`: the optimizer's default budget; a target
    /// with no runtime to compute them at start-up, as a TFLite graph,
    /// folds them all).
    pub fold_bytes: Option<u64>,
    /// Whose integer arithmetic the device computes (`arithmetic`): the
    /// `quant-fold` pass gives its integer ops that rounding, so the
    /// interpreter computes what the device does.
    pub arithmetic: Arithmetic,
    /// The NPU's cycle model (`[cycles]`), for `edgec report`'s per-op
    /// estimates; extraction uses the linear costs above.
    pub cycles: Option<CycleModel>,
}

/// One problem in a profile file, with its position (1-based line and column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// File name as given to the parser.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: {}", self.file, self.line, self.col, self.message)
    }
}

/// Why a target profile could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// The file could not be read.
    #[error("cannot read target profile {path}: {source}")]
    Io {
        /// The path.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid profile; every problem found, in file order.
    #[error("{}", join_lines(.0))]
    Invalid(Vec<Diagnostic>),
    /// The profile names a backend that does not exist.
    #[error("{file}: unknown backend `{name}` (backends: {known})")]
    UnknownBackend {
        /// The profile file.
        file: String,
        /// What it names.
        name: String,
        /// The backend names, comma-separated.
        known: String,
    },
    /// Neither a builtin target name nor a path to a `.toml` file.
    #[error("unknown target `{name}` (builtin targets: {known}; or give a path to a .toml profile)")]
    Unknown {
        /// What was asked for.
        name: String,
        /// The builtin names, comma-separated.
        known: String,
    },
}

fn join_lines(d: &[Diagnostic]) -> String {
    d.iter().map(|d| d.to_string()).collect::<Vec<_>>().join("\n")
}

impl TargetProfile {
    /// Parse and validate a profile; `file` names it in diagnostics. The
    /// `fallback` name is not checked (see [`TargetProfile::parse_with_targets`]).
    pub fn parse(src: &str, file: &str) -> Result<TargetProfile, TargetError> {
        parse::parse(src, file, None)
    }

    /// Like [`TargetProfile::parse`], and `fallback` must be one of `targets`.
    pub fn parse_with_targets(src: &str, file: &str, targets: &[&str]) -> Result<TargetProfile, TargetError> {
        parse::parse(src, file, Some(targets))
    }

    /// The rule for `op`: its own entry, else `[default]`.
    pub fn rule(&self, op: Opcode) -> &OpRule {
        self.ops.get(&op).unwrap_or(&self.default)
    }

    /// Whether the device runs `q`, checking in order: the op rule, static
    /// shapes, rank, element types (of the results and of the first operand,
    /// the data operand in ONNX signatures), then attribute constraints. The
    /// reason names the op and the first failed check. `core.const` is always
    /// supported.
    pub fn support(&self, q: &OpQuery) -> Support {
        match self.failure(q) {
            None => Support::Yes,
            Some(f) => Support::No(format!("{}: {}", q.opcode.name(), f.describe(self))),
        }
    }

    /// Like [`TargetProfile::support`] without building the reason.
    pub fn supports(&self, q: &OpQuery) -> bool {
        self.failure(q).is_none()
    }

    /// Estimated time of `q` in nanoseconds: the device cost if supported,
    /// else [`TargetProfile::fallback_cost_ns`]. `core.const` costs 0.
    /// Finite, `>= 0`, and never smaller for larger tensors.
    pub fn cost_ns(&self, q: &OpQuery) -> f64 {
        if q.opcode.name() == "core.const" {
            return 0.0;
        }
        if self.supports(q) {
            self.rule(q.opcode).cost.eval(&Work::estimate(q))
        } else {
            self.fallback_cost_ns(q)
        }
    }

    /// Cost of running `q` on the fallback target: `[fallback_costs]` compute
    /// time plus copying all operand and result bytes at `transfer.bytes_per_ns`
    /// plus `transfer.latency_ns`; plus [`NO_FALLBACK_PENALTY_NS`] if the
    /// profile has no fallback target.
    pub fn fallback_cost_ns(&self, q: &OpQuery) -> f64 {
        let w = Work::estimate(q);
        let copy = (w.bytes_in + w.bytes_out) / self.transfer.bytes_per_ns + self.transfer.latency_ns;
        let penalty = if self.fallback.is_some() { 0.0 } else { NO_FALLBACK_PENALTY_NS };
        self.fallback_costs.eval(&w) + copy + penalty
    }
}
