//! The op table and the per-family semantics it points to.
//!
//! Every op is declared exactly once in [`table`]: its name, operand and result
//! schema, attribute schema, flags, region count, doc line, family and
//! shape-inference function. Name lookup, printing, parsing, verification and
//! (later) the e-graph language are all driven by that one table, so they
//! cannot drift apart.
//!
//! Each op's inference lives in the module of its [`Family`], named
//! [`Family::name`] (`control`, `elementwise`, `quant`, ..., `strings`); the
//! table's `infer:` entries name that module. Besides the family modules there
//! are only `table` (the table itself), `tests` (table-wide tests) and this
//! module, which holds the schema types, [`InferCtx`], and the inference
//! helpers shared by several families: axis normalization, reading shape-like
//! operands ([`int_list`]), dim arithmetic and element-type checks.
//!
//! The fused and canonical `core.*` ops that the e-graph rules produce live
//! in their families' modules too (`core.conv` in `conv`, `core.linear` in
//! `linalg`, `core.attention` in `attention`, `core.reshape` in `layout`, ...).
//! Each is defined as the composition of the `onnx.*` ops it replaces,
//! evaluated exactly as the reference interpreter evaluates that chain, so a
//! rewrite never changes interpreter results.
//!
//! `onnx.*` ops follow the newest opset's signature (e.g. `axes` as an operand
//! for `Squeeze`/`Reduce*`); importers upgrade older opsets to that form.

pub mod attention;
pub mod control;
pub mod conv;
pub mod elementwise;
pub mod generate;
pub mod index;
pub mod layout;
pub mod linalg;
pub mod loss;
pub mod norm;
pub mod pool;
pub mod quant;
pub mod reduce;
pub mod resample;
pub mod rnn;
pub mod select;
pub mod signal;
pub mod strings;
mod table;
#[cfg(test)]
mod tests;

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
use crate::types::{DType, Dim, Shape, TensorType};

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

// ---------------------------------------------------------------------------
// Inference helpers shared by several families.

/// Normalize a possibly negative `axis` against `rank`: valid values are `[-rank, rank)`.
pub fn norm_axis(axis: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    edgec_numeric::axis::normalize_axis(axis, rank)
        .ok_or_else(|| format!("axis {axis} is out of range for rank {rank} (expected [{}, {}])", -r, r - 1))
}

/// Normalize a list of axes against `rank` (see [`norm_axis`]), rejecting duplicates.
/// The order of `axes` is kept.
pub fn norm_axes(axes: &[i64], rank: usize) -> Result<Vec<usize>, String> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let n = norm_axis(a, rank)?;
        if out.contains(&n) {
            return Err(format!("axis {a} is repeated in {axes:?} (rank {rank})"));
        }
        out.push(n);
    }
    Ok(out)
}

/// Normalize `axis` into `[0, rank)`; `what` names the attribute in the error.
pub(crate) fn normalize_axis(axis: i64, rank: usize, what: &str) -> Result<usize, String> {
    let r = rank as i64;
    edgec_numeric::axis::normalize_axis(axis, rank)
        .ok_or_else(|| format!("{what} = {axis} is out of range [{}, {}] for rank {rank}", -r, r - 1))
}

/// Error unless `axis` lies in `[-r, r)`.
pub(crate) fn check_axis(axis: i64, rank: usize, what: &str) -> Result<usize, String> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return Err(format!("{what} = {axis} is out of range for rank {rank}"));
    }
    Ok((if axis < 0 { axis + r } else { axis }) as usize)
}

/// What is known about a 1-D integer operand such as `shape`, `axes` or `pads`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntList {
    /// The operand is a constant with these contents.
    Known(Vec<i64>),
    /// Not constant, but its length is static.
    Len(usize),
    /// Neither contents nor length are known.
    Unknown,
}

impl IntList {
    /// The list length, if known.
    pub fn known_len(&self) -> Option<usize> {
        match self {
            IntList::Known(v) => Some(v.len()),
            IntList::Len(n) => Some(*n),
            IntList::Unknown => None,
        }
    }
    /// The contents, if constant.
    pub fn known(&self) -> Option<&[i64]> {
        match self {
            IntList::Known(v) => Some(v),
            _ => None,
        }
    }
}

/// Read operand `i` (called `name` in diagnostics) as a 1-D integer list.
/// `None` if the operand is omitted. Its element type must be in `allowed`
/// and its rank at most 1 (a scalar counts as a one-element list).
pub fn int_list(ctx: &InferCtx<'_>, i: usize, name: &str, allowed: &[DType]) -> Result<Option<IntList>, String> {
    let Some(t) = ctx.opt_input(i) else { return Ok(None) };
    let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
    expect_dtype(t, &format!("`{name}`"), |d| allowed.contains(&d), &names.join(" or "))?;
    if let Some(r) = t.rank().filter(|&r| r > 1) {
        return Err(format!("`{name}` must be 1-D, found rank {r} ({})", t.shape));
    }
    if let Some(v) = ctx.const_ints(i) {
        return Ok(Some(IntList::Known(v)));
    }
    Ok(Some(match t.dims() {
        Some([]) => IntList::Len(1),
        Some([Dim::Static(n)]) if *n > MAX_RANK as u64 => {
            return Err(format!("`{name}` has {n} entries; tensors of rank above {MAX_RANK} are not supported"))
        }
        Some([Dim::Static(n)]) => IntList::Len(*n as usize),
        _ => IntList::Unknown,
    }))
}

/// Largest tensor rank shape inference accepts from a shape-like operand.
pub const MAX_RANK: usize = 64;

/// Integer element types accepted for i64-only shape operands.
pub const I64_ONLY: &[DType] = &[DType::I64];

/// Integer element types accepted for index-like operands (`Tind`).
pub const I32_I64: &[DType] = &[DType::I32, DType::I64];

/// Check that an index operand has one of the allowed integer types.
pub(crate) fn index_dtype(t: &TensorType, name: &str, allowed: &[DType]) -> Result<(), String> {
    let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
    expect_dtype(t, &format!("`{name}`"), |d| allowed.contains(&d), &names.join(" or "))
}

/// A ranked shape of `rank` unknown dims.
pub fn unknown_dims(rank: usize) -> Shape {
    Shape::from_dims(std::iter::repeat_n(Dim::Unknown, rank))
}

/// The dims of `t`, or `rank` unknown dims if `t` is unranked.
pub(crate) fn dims_or_unknown(t: &TensorType, rank: usize) -> Vec<Dim> {
    t.dims().map(<[Dim]>::to_vec).unwrap_or_else(|| vec![Dim::Unknown; rank])
}

/// Merge two dims that must be equal at runtime: keep the more precise one.
pub fn merge_equal_dims(a: Dim, b: Dim) -> Result<Dim, String> {
    Ok(match (a, b) {
        (Dim::Static(x), Dim::Static(y)) if x != y => return Err(format!("dims {x} and {y} differ")),
        (Dim::Static(x), _) | (_, Dim::Static(x)) => Dim::Static(x),
        (Dim::Unknown, y) => y,
        (x, Dim::Unknown) => x,
        // Two different symbols must be equal at run time, but neither name is
        // more right than the other: keep the dim unknown rather than pick one.
        (x, y) if x == y => x,
        _ => Dim::Unknown,
    })
}

/// Merge two dims that must agree, naming both operands on a contradiction.
pub(crate) fn merge_dims(a: Dim, b: Dim, what: impl FnOnce() -> String) -> Result<Dim, String> {
    merge_equal_dims(a, b).map_err(|e| format!("{}: {e}", what()))
}

/// A dim times a constant (symbols survive multiplication by 1 only).
pub(crate) fn dim_mul(d: Dim, k: u64) -> Dim {
    match d {
        _ if k == 1 => d,
        Dim::Static(x) => x.checked_mul(k).map_or(Dim::Unknown, Dim::Static),
        _ => Dim::Unknown,
    }
}

/// A dim divided by a constant that must divide a static dim exactly.
pub(crate) fn dim_div(d: Dim, k: u64, what: &str) -> Result<Dim, String> {
    Ok(match d {
        _ if k == 1 => d,
        Dim::Static(x) if x % k == 0 => Dim::Static(x / k),
        Dim::Static(x) => return Err(format!("{what} {x} is not divisible by {k}")),
        _ => Dim::Unknown,
    })
}

/// Shape from dims.
pub(crate) fn shape(d: impl IntoIterator<Item = Dim>) -> Shape {
    Shape::from_dims(d)
}

/// Error unless `what` (type `t`) has element type `dt` (that of `of`).
pub(crate) fn expect_same(t: &TensorType, what: &str, dt: DType, of: &str) -> Result<(), String> {
    if t.dtype == dt {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {dt} (the type of {of})", t.dtype))
    }
}

/// Error unless `t` has element type `dt`.
pub(crate) fn same_type(t: &TensorType, what: &str, dt: DType) -> Result<(), String> {
    if t.dtype == dt {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {dt}", t.dtype))
    }
}

/// Check that `src` broadcasts unidirectionally to `target` (numpy rules, only `src`
/// may stretch). Returns `target` with unknown dims refined from static non-1 dims of `src`.
pub(crate) fn broadcast_to(src: &TensorType, what: &str, target: &[Dim]) -> Result<Vec<Dim>, String> {
    let mut out = target.to_vec();
    let Some(sd) = src.dims() else { return Ok(out) };
    let bad = || format!("{what} {src} does not broadcast to {}", Shape::from_dims(target.iter().copied()));
    let off = target.len().checked_sub(sd.len()).ok_or_else(bad)?;
    for (j, &d) in sd.iter().enumerate() {
        match (d, out[off + j]) {
            (Dim::Static(a), Dim::Static(b)) if a != 1 && a != b => return Err(bad()),
            (Dim::Static(a), Dim::Unknown) if a != 1 => out[off + j] = Dim::Static(a),
            _ => {}
        }
    }
    Ok(out)
}
