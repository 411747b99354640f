//! The op table and the per-family semantics it points to.
//!
//! Every op is declared exactly once in [`table`]: its name, operand and result
//! schema, attribute schema, flags, region count, doc line and shape-inference
//! function. Name lookup, printing, parsing, verification and (later) the e-graph
//! language are all driven by that one table, so they cannot drift apart.
//!
//! `onnx.*` ops follow the newest opset's signature (e.g. `axes` as an operand
//! for `Squeeze`/`Reduce*`); importers upgrade older opsets to that form.

pub mod canonical;
pub mod control;
pub mod conv;
pub mod dispatch;
pub mod elementwise;
pub mod fused;
pub mod loss;
pub mod nn;
pub mod qlinear;
pub mod reduce;
pub mod shape;
pub mod signal;
mod table;
#[cfg(test)]
mod tests;
pub mod window;

pub use table::{Opcode, OP_TABLE};

/// The `core.*` form of an `onnx.*` op that always has one: the same
/// operands and attributes compute the same values, the core op's own
/// attributes (a fused activation) absent. From the `core` phase on, such an
/// op appears only in its core form, so a backend lowers one of the two.
pub fn core_form(op: Opcode) -> Option<Opcode> {
    match op {
        Opcode::Conv => Some(Opcode::CoreConv),
        Opcode::ConvTranspose => Some(Opcode::CoreConvTranspose),
        _ => None,
    }
}

use crate::attr::{AttrKind, Attrs};
use crate::constant::Constant;
use crate::types::{DType, TensorType};

/// An op family. Each family's code has one home per tree, named after
/// [`Family::name`]: shape inference in `ir/src/ops/<name>`, the reference
/// kernel in `ir/src/interp/<name>`, the Rust lowering in
/// `codegen/src/rust/ops/<name>` and the run-time kernels in
/// `codegen/kernels/src/<name>` (a file, or a directory for a large family).
/// The repository test `families` holds every tree to it.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    /// Ops with regions and the bucket dispatch: If, Loop, Scan.
    Control,
    /// One output element from the same-index elements of broadcast inputs:
    /// arithmetic, comparison, logic, bitwise, casts, activations.
    Elementwise,
    /// Integer (quantized) arithmetic and the (de)quantizers.
    Quant,
    /// Matrix products and their kin: MatMul, Gemm, Einsum, Det.
    Linalg,
    /// Convolutions (plain, transposed, deformable) and Col2Im.
    Conv,
    /// Pooling and unpooling.
    Pool,
    /// Normalizations and the softmaxes.
    Norm,
    /// Attention, rotary embeddings, linear attention, windowed attention.
    Attention,
    /// Recurrent layers: RNN, GRU, LSTM.
    Rnn,
    /// Sampling at computed coordinates: Resize, GridSample, RoiAlign, AffineGrid.
    Resample,
    /// Data movement without arithmetic, and shape queries.
    Layout,
    /// Gather and scatter by index tensors, OneHot.
    Index,
    /// Ops whose result depends on comparing the data: TopK, NonZero,
    /// Compress, Unique, NonMaxSuppression.
    Select,
    /// Reductions over axes, arg-reductions and cumulative sums/products.
    Reduce,
    /// Tensors made from attributes and scalars: constants, Range, EyeLike, Trilu.
    Generate,
    /// Signal processing: DFT, STFT, windows, mel filter banks.
    Signal,
    /// Training losses.
    Loss,
    /// String ops.
    Strings,
}

impl Family {
    /// Every family, in declaration order.
    pub const ALL: &'static [Family] = &[
        Family::Control,
        Family::Elementwise,
        Family::Quant,
        Family::Linalg,
        Family::Conv,
        Family::Pool,
        Family::Norm,
        Family::Attention,
        Family::Rnn,
        Family::Resample,
        Family::Layout,
        Family::Index,
        Family::Select,
        Family::Reduce,
        Family::Generate,
        Family::Signal,
        Family::Loss,
        Family::Strings,
    ];
    /// The module name of the family in every tree.
    pub fn name(self) -> &'static str {
        match self {
            Family::Control => "control",
            Family::Elementwise => "elementwise",
            Family::Quant => "quant",
            Family::Linalg => "linalg",
            Family::Conv => "conv",
            Family::Pool => "pool",
            Family::Norm => "norm",
            Family::Attention => "attention",
            Family::Rnn => "rnn",
            Family::Resample => "resample",
            Family::Layout => "layout",
            Family::Index => "index",
            Family::Select => "select",
            Family::Reduce => "reduce",
            Family::Generate => "generate",
            Family::Signal => "signal",
            Family::Loss => "loss",
            Family::Strings => "strings",
        }
    }
}

/// How many values an operand (or result) slot takes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Exactly one value.
    Required,
    /// Zero or one value; an omitted one in the middle prints as `none`.
    Optional,
    /// Any number ≥ the given minimum; only allowed as the last slot.
    Variadic(u32),
}

/// One operand or result slot of an op schema.
#[derive(Copy, Clone, Debug)]
pub struct SlotSpec {
    /// Name as in the ONNX spec (used in diagnostics).
    pub name: &'static str,
    /// Arity.
    pub slot: Slot,
}

/// A required slot.
pub const fn req(name: &'static str) -> SlotSpec {
    SlotSpec { name, slot: Slot::Required }
}
/// An optional slot.
pub const fn opt(name: &'static str) -> SlotSpec {
    SlotSpec { name, slot: Slot::Optional }
}
/// A variadic slot with a minimum count.
pub const fn var(name: &'static str, min: u32) -> SlotSpec {
    SlotSpec { name, slot: Slot::Variadic(min) }
}

/// One attribute in an op's schema.
#[derive(Copy, Clone, Debug)]
pub struct AttrSpec {
    /// Attribute name.
    pub name: &'static str,
    /// Expected kind.
    pub kind: AttrKind,
    /// Whether the attribute must be present.
    pub required: bool,
}

/// An optional attribute.
pub const fn a(name: &'static str, kind: AttrKind) -> AttrSpec {
    AttrSpec { name, kind, required: false }
}
/// A required attribute.
pub const fn a_req(name: &'static str, kind: AttrKind) -> AttrSpec {
    AttrSpec { name, kind, required: true }
}

/// Op property flags.
pub mod flags {
    /// No side effects: removable when unused, foldable when inputs are constant.
    pub const PURE: u32 = 1;
    /// Applies a scalar function per element (after broadcasting).
    pub const ELEMENTWISE: u32 = 2;
    /// Operands may be swapped without changing the result.
    pub const COMMUTATIVE: u32 = 4;
}

/// Shape/type inference result.
pub type InferResult = Result<Vec<TensorType>, String>;
/// Shape/type inference function of an op.
pub type InferFn = fn(&InferCtx<'_>) -> InferResult;

/// Everything an op's inference function may look at.
pub struct InferCtx<'a> {
    /// Operand types in schema order (`None` for omitted optional operands).
    pub operands: &'a [Option<&'a TensorType>],
    /// Constant contents of operands produced by `core.const`, by position.
    pub consts: &'a [Option<&'a Constant>],
    /// The op's attributes.
    pub attrs: &'a Attrs,
    /// Number of results the op declares (for variadic results).
    pub num_results: usize,
    /// The constant named by the op's `value` symbol attribute, if any.
    pub attr_const: Option<&'a Constant>,
}

impl<'a> InferCtx<'a> {
    /// The type of operand `i`, or an error naming it if it is missing.
    pub fn input(&self, i: usize) -> Result<&'a TensorType, String> {
        self.operands.get(i).copied().flatten().ok_or_else(|| format!("missing operand #{i}"))
    }
    /// The type of operand `i` if present.
    pub fn opt_input(&self, i: usize) -> Option<&'a TensorType> {
        self.operands.get(i).copied().flatten()
    }
    /// Number of operand positions (including omitted optional ones).
    pub fn num_operands(&self) -> usize {
        self.operands.len()
    }
    /// Integer contents of operand `i` if it is a known constant.
    pub fn const_ints(&self, i: usize) -> Option<Vec<i64>> {
        self.consts.get(i).copied().flatten()?.to_i64s()
    }
    /// Float contents of operand `i` if it is a known constant.
    pub fn const_floats(&self, i: usize) -> Option<Vec<f64>> {
        self.consts.get(i).copied().flatten()?.to_f64s()
    }
    /// Integer attribute with a default.
    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attrs.int(name).unwrap_or(default)
    }
    /// String attribute with a default.
    pub fn str(&self, name: &str, default: &'a str) -> &'a str {
        self.attrs.str(name).unwrap_or(default)
    }
}

/// The static description of one op.
#[derive(Copy, Clone)]
pub struct OpDef {
    /// Full name, `dialect.Name`.
    pub name: &'static str,
    /// One-line description.
    pub doc: &'static str,
    /// Operand slots.
    pub operands: &'static [SlotSpec],
    /// Result slots.
    pub results: &'static [SlotSpec],
    /// Attribute schema.
    pub attrs: &'static [AttrSpec],
    /// Bitwise OR of [`flags`].
    pub flags: u32,
    /// Number of nested regions the op owns.
    pub regions: u32,
    /// Shape and type inference.
    pub infer: InferFn,
    /// Inference for ops with regions: sees the regions' parameter and yield types.
    pub infer_regions: Option<RegionInferFn>,
    /// The family the op belongs to: where its code lives in every tree.
    pub family: Family,
}

/// Parameter and yielded types of one region of an op.
#[derive(Clone, Debug, Default)]
pub struct RegionTypes {
    /// Types of the region's parameters.
    pub params: Vec<TensorType>,
    /// Types of the values it yields.
    pub results: Vec<TensorType>,
}

/// Shape/type inference of an op with regions.
pub type RegionInferFn = fn(&InferCtx<'_>, &[RegionTypes]) -> InferResult;

impl std::fmt::Debug for OpDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl OpDef {
    /// The dialect prefix (`onnx`, `core`, ...).
    pub fn dialect(&self) -> &'static str {
        self.name.split_once('.').map(|(d, _)| d).unwrap_or("")
    }
    /// True if the flag is set.
    pub fn has(&self, flag: u32) -> bool {
        self.flags & flag != 0
    }
    /// The schema of attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&AttrSpec> {
        self.attrs.iter().find(|a| a.name == name)
    }
    /// Check a slot count against a schema; returns a message on mismatch.
    pub fn check_arity(slots: &[SlotSpec], present: &[bool], what: &str) -> Result<(), String> {
        let mut i = 0;
        for (si, s) in slots.iter().enumerate() {
            match s.slot {
                Slot::Required => {
                    match present.get(i) {
                        Some(true) => {}
                        Some(false) => return Err(format!("required {what} `{}` (#{i}) is omitted", s.name)),
                        None => return Err(format!("missing required {what} `{}` (#{i})", s.name)),
                    }
                    i += 1;
                }
                Slot::Optional => i += 1,
                Slot::Variadic(min) => {
                    debug_assert_eq!(si, slots.len() - 1, "variadic slot must be last");
                    let rest = present.len().saturating_sub(i);
                    if rest < min as usize {
                        return Err(format!("{what} `{}` needs at least {min} values, found {rest}", s.name));
                    }
                    if present[i.min(present.len())..].iter().any(|p| !p) {
                        return Err(format!("variadic {what} `{}` cannot contain `none`", s.name));
                    }
                    return Ok(());
                }
            }
        }
        if present.len() > i {
            return Err(format!("too many {what}s: expected at most {i}, found {}", present.len()));
        }
        Ok(())
    }
}

impl Opcode {
    /// The op's static description.
    pub fn def(self) -> &'static OpDef {
        &OP_TABLE[self as usize]
    }
    /// The op's full name.
    pub fn name(self) -> &'static str {
        self.def().name
    }
    /// The op's family.
    pub fn family(self) -> Family {
        self.def().family
    }
    /// Look an op up by full name.
    pub fn from_name(name: &str) -> Option<Opcode> {
        use std::collections::HashMap;
        use std::sync::OnceLock;
        static MAP: OnceLock<HashMap<&'static str, Opcode>> = OnceLock::new();
        MAP.get_or_init(|| Opcode::ALL.iter().map(|&op| (op.name(), op)).collect()).get(name).copied()
    }
}

/// Helper for inference functions: require a dtype predicate on an operand.
pub fn expect_dtype(t: &TensorType, what: &str, ok: impl Fn(DType) -> bool, allowed: &str) -> Result<(), String> {
    if ok(t.dtype) {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {allowed}", t.dtype))
    }
}
