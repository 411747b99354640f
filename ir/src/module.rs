//! Modules, functions, regions, ops and values.
//!
//! Invariants (checked by [`crate::verify`]):
//! - every op listed in a region's layout was allocated by the same function and
//!   appears in exactly one layout position; ops not in any layout are dead and
//!   ignored by printing, verification and passes;
//! - values are defined before use in program order (regions see values of
//!   enclosing regions defined before the op that owns them);
//! - each value is defined exactly once: as a function parameter, a region
//!   parameter, or one result of one op.

use crate::attr::{Attr, Attrs};
pub use crate::constant::{ConstData, Constant};
use crate::define_id;
use crate::entity::Arena;
use crate::ops::Opcode;
use crate::types::TensorType;
use smallvec::SmallVec;
use std::collections::HashMap;

define_id!(
    /// An SSA value within one function.
    Value,
    "v"
);
define_id!(
    /// An op within one function.
    OpId,
    "op"
);
define_id!(
    /// A constant in the module's pool.
    ConstId,
    "c"
);

/// Where an op came from: the user-facing provenance carried through passes.
#[derive(Clone, Debug, PartialEq, Eq, Default, Hash)]
pub enum Loc {
    /// No provenance recorded.
    #[default]
    Unknown,
    /// An ONNX node, by name and op type.
    Onnx {
        /// Node name (may be empty in the model; importers then synthesize one).
        node: String,
        /// ONNX op type, e.g. `Conv`.
        op_type: String,
    },
    /// An op produced by merging several ops; lists all their provenances.
    Fused(Vec<Loc>),
}

impl Loc {
    /// An ONNX provenance.
    pub fn onnx(node: impl Into<String>, op_type: impl Into<String>) -> Loc {
        Loc::Onnx { node: node.into(), op_type: op_type.into() }
    }
    /// The ONNX (node, op type) pairs this provenance names, in order.
    pub fn onnx_nodes(&self) -> Box<dyn Iterator<Item = (&str, &str)> + '_> {
        match self {
            Loc::Unknown => Box::new(std::iter::empty()),
            Loc::Onnx { node, op_type } => Box::new(std::iter::once((node.as_str(), op_type.as_str()))),
            Loc::Fused(v) => Box::new(v.iter().flat_map(Loc::onnx_nodes)),
        }
    }
    /// Merge provenances, flattening nested fusions and dropping unknowns.
    pub fn fuse(locs: impl IntoIterator<Item = Loc>) -> Loc {
        let mut out = Vec::new();
        for l in locs {
            match l {
                Loc::Unknown => {}
                Loc::Fused(v) => out.extend(v),
                l => out.push(l),
            }
        }
        match out.len() {
            0 => Loc::Unknown,
            1 => out.pop().unwrap_or_default(),
            _ => Loc::Fused(out),
        }
    }
}

impl std::fmt::Display for Loc {
    /// Human form used in diagnostics: `node "conv1" (Conv)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Loc::Unknown => f.write_str("unknown location"),
            Loc::Onnx { node, op_type } => write!(f, "ONNX node \"{node}\" ({op_type})"),
            Loc::Fused(v) => {
                f.write_str("fused from ")?;
                for (i, l) in v.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{l}")?;
                }
                Ok(())
            }
        }
    }
}

/// How a value is defined.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ValueDef {
    /// The `index`-th parameter of the function.
    Param(u32),
    /// The `index`-th parameter of region `region` of op `op`.
    RegionParam {
        /// Owning op.
        op: OpId,
        /// Region index within the op.
        region: u32,
        /// Parameter index within the region.
        index: u32,
    },
    /// The `index`-th result of `op`.
    Result(OpId, u32),
}

/// Per-value data.
#[derive(Clone, Debug)]
pub struct ValueData {
    /// The value's type.
    pub ty: TensorType,
    /// Its definition.
    pub def: ValueDef,
    /// Source name (function parameters keep their ONNX input names).
    pub name: Option<String>,
}

/// An ordered list of ops with parameters and yielded results.
#[derive(Clone, Debug, Default)]
pub struct Region {
    /// Values bound on entry.
    pub params: Vec<Value>,
    /// Ops in program order.
    pub ops: Vec<OpId>,
    /// Values returned (`return` for a function body, `yield` otherwise).
    pub results: Vec<Value>,
}

/// One operation.
#[derive(Clone, Debug)]
pub struct OpData {
    /// What the op is.
    pub opcode: Opcode,
    /// Operands in schema order; `None` marks an omitted optional operand.
    pub operands: SmallVec<[Option<Value>; 4]>,
    /// Results.
    pub results: SmallVec<[Value; 2]>,
    /// Static attributes.
    pub attrs: Attrs,
    /// Nested regions (control flow bodies); empty for most ops.
    pub regions: Vec<Region>,
    /// Provenance.
    pub loc: Loc,
}

impl OpData {
    /// The present operands, skipping omitted optional ones.
    pub fn inputs(&self) -> impl Iterator<Item = Value> + '_ {
        self.operands.iter().flatten().copied()
    }
    /// The operand at `i`, if present.
    pub fn operand(&self, i: usize) -> Option<Value> {
        self.operands.get(i).copied().flatten()
    }
}

/// A function: arenas of values and ops plus the body region.
#[derive(Clone, Debug, Default)]
pub struct Function {
    /// Symbol name (without `@`).
    pub name: String,
    /// All values ever created.
    pub values: Arena<Value, ValueData>,
    /// All ops ever created (only those in a layout are live).
    pub ops: Arena<OpId, OpData>,
    /// The body: parameters are the function's inputs, results its outputs.
    pub body: Region,
    /// Declared result types (the signature), matching `body.results`.
    pub result_types: Vec<TensorType>,
    /// Optional names of the results (ONNX graph output names), by position;
    /// shorter than `result_types` when trailing results are unnamed.
    pub result_names: Vec<Option<String>>,
}

impl Function {
    /// An empty function.
    pub fn new(name: impl Into<String>) -> Self {
        Function { name: name.into(), ..Default::default() }
    }

    /// Append a function parameter.
    pub fn add_param(&mut self, name: Option<String>, ty: TensorType) -> Value {
        let index = self.body.params.len() as u32;
        let v = self.values.push(ValueData { ty, def: ValueDef::Param(index), name });
        self.body.params.push(v);
        v
    }

    /// Create an op (not yet placed in any layout) with fresh result values.
    pub fn create_op(
        &mut self,
        opcode: Opcode,
        operands: impl IntoIterator<Item = Option<Value>>,
        attrs: Attrs,
        result_types: impl IntoIterator<Item = TensorType>,
        loc: Loc,
    ) -> OpId {
        let id = self.ops.push(OpData {
            opcode,
            operands: operands.into_iter().collect(),
            results: SmallVec::new(),
            attrs,
            regions: Vec::new(),
            loc,
        });
        let results: SmallVec<[Value; 2]> = result_types
            .into_iter()
            .enumerate()
            .map(|(i, ty)| self.values.push(ValueData { ty, def: ValueDef::Result(id, i as u32), name: None }))
            .collect();
        self.ops[id].results = results;
        id
    }

    /// Create an op and append it to the body.
    pub fn append_op(
        &mut self,
        opcode: Opcode,
        operands: impl IntoIterator<Item = Option<Value>>,
        attrs: Attrs,
        result_types: impl IntoIterator<Item = TensorType>,
        loc: Loc,
    ) -> OpId {
        let id = self.create_op(opcode, operands, attrs, result_types, loc);
        self.body.ops.push(id);
        id
    }

    /// Add a parameter to region `region` of `op`.
    pub fn add_region_param(&mut self, op: OpId, region: usize, ty: TensorType) -> Value {
        let index = self.ops[op].regions[region].params.len() as u32;
        let def = ValueDef::RegionParam { op, region: region as u32, index };
        let v = self.values.push(ValueData { ty, def, name: None });
        self.ops[op].regions[region].params.push(v);
        v
    }

    /// The type of `v`.
    pub fn ty(&self, v: Value) -> &TensorType {
        &self.values[v].ty
    }

    /// The single result of `op` (panics on multi-result ops: callers know the arity).
    pub fn result(&self, op: OpId) -> Value {
        self.ops[op].results[0]
    }

    /// Replace every use of `old` (operands in all regions and region results) with `new`.
    pub fn replace_all_uses(&mut self, old: Value, new: Value) {
        fn fix_region(r: &mut Region, old: Value, new: Value) {
            for v in r.results.iter_mut().filter(|v| **v == old) {
                *v = new;
            }
        }
        fix_region(&mut self.body, old, new);
        let live: Vec<OpId> = self.live_ops();
        for id in live {
            let op = &mut self.ops[id];
            for v in op.operands.iter_mut().flatten().filter(|v| **v == old) {
                *v = new;
            }
            for r in &mut op.regions {
                fix_region(r, old, new);
            }
        }
    }

    /// All live ops (in the body and nested regions), in program pre-order.
    pub fn live_ops(&self) -> Vec<OpId> {
        let mut out = Vec::new();
        self.walk_region(&self.body, &mut out);
        out
    }

    fn walk_region(&self, r: &Region, out: &mut Vec<OpId>) {
        for &id in &r.ops {
            out.push(id);
            if let Some(op) = self.ops.get(id) {
                for sub in &op.regions {
                    self.walk_region(sub, out);
                }
            }
        }
    }

    /// Remove from every layout (body and nested regions) the ops for which
    /// `drop` returns true. Their data stays in the arena as dead entries.
    pub fn remove_ops(&mut self, mut drop: impl FnMut(OpId) -> bool) {
        fn walk(r: &mut Region, ops: &mut Arena<OpId, OpData>, drop: &mut dyn FnMut(OpId) -> bool) {
            r.ops.retain(|&id| !drop(id));
            for &id in &r.ops {
                let mut regions = std::mem::take(&mut ops[id].regions);
                for sub in &mut regions {
                    walk(sub, ops, drop);
                }
                ops[id].regions = regions;
            }
        }
        walk(&mut self.body, &mut self.ops, &mut drop);
    }

    /// Number of live uses of each value (operands and region results), indexed by value.
    pub fn use_counts(&self) -> Vec<u32> {
        let mut counts = vec![0u32; self.values.len()];
        let mut bump = |v: Value| {
            if let Some(c) = counts.get_mut(v.0 as usize) {
                *c += 1;
            }
        };
        self.body.results.iter().for_each(|&v| bump(v));
        for id in self.live_ops() {
            let op = &self.ops[id];
            op.inputs().for_each(&mut bump);
            op.regions.iter().flat_map(|r| r.results.iter()).for_each(|&v| bump(v));
        }
        counts
    }
}

impl Value {
    /// The raw index of this value (for side tables indexed by value).
    pub fn as_u32(self) -> u32 {
        self.0
    }
}

/// Compilation phase of a module; decides which ops may appear (the
/// verifier enforces it). Phases only move forward: `onnx → core → target`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Phase {
    /// Freshly imported, or being optimized: `onnx.*` and `core.*` ops.
    #[default]
    Onnx,
    /// Canonical: `core.*` and `quant.*` ops, and the `onnx.*` ops that have
    /// no `core.*` form ([`crate::ops::core_form`]); an op with one appears
    /// only as that form. Entered by the `legalize-core` pass.
    Core,
    /// Prepared for one backend: the core phase's ops and `npu.*` ops, each
    /// in the form its backend lowers. Entered when the backend's
    /// preparation passes have run; a backend accepts only this phase.
    Target,
}

impl Phase {
    /// Text spelling.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Onnx => "onnx",
            Phase::Core => "core",
            Phase::Target => "target",
        }
    }
    /// Parse the text spelling.
    pub fn from_name(s: &str) -> Option<Phase> {
        [Phase::Onnx, Phase::Core, Phase::Target].into_iter().find(|p| p.name() == s)
    }
    /// Dialects allowed in this phase.
    pub fn allowed_dialects(self) -> &'static [&'static str] {
        match self {
            Phase::Onnx => &["onnx", "core"],
            Phase::Core => &["core", "quant", "onnx"],
            Phase::Target => &["core", "quant", "npu", "onnx"],
        }
    }
}

/// A module: a constant pool and functions.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// Module name (without `@`).
    pub name: String,
    /// Phase (printed as the `phase` module attribute).
    pub phase: Phase,
    /// Other module attributes (e.g. the ONNX opset), sorted by name.
    pub attrs: Attrs,
    /// Constant pool.
    pub consts: Arena<ConstId, Constant>,
    const_names: HashMap<String, ConstId>,
    /// Functions in definition order.
    pub funcs: Vec<Function>,
}

impl Module {
    /// An empty module.
    pub fn new(name: impl Into<String>) -> Self {
        Module { name: name.into(), ..Default::default() }
    }
    /// Add a constant; returns an error naming the duplicate if the name is taken.
    pub fn add_const(&mut self, c: Constant) -> Result<ConstId, String> {
        if self.const_names.contains_key(&c.name) {
            return Err(format!("duplicate constant @{}", c.name));
        }
        let name = c.name.clone();
        let id = self.consts.push(c);
        self.const_names.insert(name, id);
        Ok(id)
    }
    /// Look a constant up by name.
    pub fn const_by_name(&self, name: &str) -> Option<ConstId> {
        self.const_names.get(name).copied()
    }
    /// Keep only constants for which `keep` is true (ids are reassigned).
    pub fn retain_consts(&mut self, mut keep: impl FnMut(&Constant) -> bool) {
        let old = std::mem::take(&mut self.consts);
        self.const_names.clear();
        for (_, c) in old.iter() {
            if keep(c) {
                let name = c.name.clone();
                let id = self.consts.push(c.clone());
                self.const_names.insert(name, id);
            }
        }
    }
    /// The constant an op of kind `core.const` refers to, if any.
    pub fn const_of_op(&self, op: &OpData) -> Option<&Constant> {
        if op.opcode != Opcode::CoreConst {
            return None;
        }
        match op.attrs.get("value")? {
            Attr::Sym(name) => self.const_by_name(name).map(|id| &self.consts[id]),
            _ => None,
        }
    }
    /// The function named `name`.
    pub fn func(&self, name: &str) -> Option<&Function> {
        self.funcs.iter().find(|f| f.name == name)
    }
}
