//! The e-class analysis: result types, constant value and provenance of every
//! class, plus constant folding through the reference interpreter.
//!
//! Invariant: all e-nodes of a class compute the same tensor. The merge
//! checks what it can of that (types must meet, integer constants must be
//! identical, float constants equal up to rounding) and records a conflict
//! instead of guessing; the pass turns conflicts into an error, so an unsound
//! rule fails loudly in tests.
//!
//! Float constants are compared up to rounding because folding runs the
//! interpreter on each form a rule equates: a fused op (Gemm for MatMul and
//! Add) sums in another order than the ops it replaces, so two folds of one
//! value may differ in the last bits. The class keeps the constant it had.

use super::lang::ENode;
use egg::{Analysis, DidMerge, EGraph, Id};
use ir::infer::meet_type;
use ir::interp::Tensor;
use ir::ops::flags::PURE;
use ir::ops::InferCtx;
use ir::{Attrs, ConstData, Constant, Loc, Opcode, TensorType};
use smallvec::SmallVec;
use std::collections::HashMap;
use std::sync::Arc;

/// The e-graph type used by every rewrite.
pub type EG = EGraph<ENode, EAnalysis>;

/// Interned attribute dictionaries; ids are positions, stable for a run.
#[derive(Clone, Debug, Default)]
pub struct Interner {
    items: Vec<Attrs>,
    index: HashMap<String, u32>,
}

impl Interner {
    /// The id of `a`, interning it if new.
    pub fn intern(&mut self, a: &Attrs) -> u32 {
        let key = format!("{a:?}");
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.items.len() as u32;
        self.items.push(a.clone());
        self.index.insert(key, i);
        i
    }
    /// The dictionary with id `i`.
    pub fn get(&self, i: u32) -> &Attrs {
        &self.items[i as usize]
    }
}

/// One interned constant: its contents and, for module constants, the pool name.
#[derive(Clone, Debug)]
pub struct ConstEntry {
    /// Contents (the `name` field is meaningless for folded constants).
    pub value: Arc<Constant>,
    /// Name in the module pool, if the constant came from there.
    pub pool_name: Option<String>,
}

/// Constants interned by content, so equal constants are one e-class.
#[derive(Clone, Debug, Default)]
pub struct ConstTable {
    /// Entries by id.
    pub entries: Vec<ConstEntry>,
    index: HashMap<(String, Vec<u8>), u32>,
}

fn const_key(c: &Constant) -> (String, Vec<u8>) {
    let bytes = match &c.data {
        ConstData::Bytes(b) => b.to_vec(),
        ConstData::Strings(s) => s.join("\u{0}").into_bytes(),
    };
    (c.ty.to_string(), bytes)
}

impl ConstTable {
    /// Intern `c`; a pool name is kept for the first constant with that content.
    pub fn intern(&mut self, c: Arc<Constant>, pool_name: Option<String>) -> u32 {
        let key = const_key(&c);
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        let i = self.entries.len() as u32;
        self.entries.push(ConstEntry { value: c, pool_name });
        self.index.insert(key, i);
        i
    }
    /// The constant with id `i`.
    pub fn get(&self, i: u32) -> &Arc<Constant> {
        &self.entries[i as usize].value
    }
}

/// Limits on constant folding, so that folding never bloats the weights.
///
/// A fold is kept when its result has at most `max_elems` elements and its
/// byte size is at most the larger of `small_bytes` and the largest constant
/// operand. So `Shape`/`Gather`/`Concat` chains and transposed weights fold,
/// while an `Expand` of a scalar into a large tensor does not.
#[derive(Copy, Clone, Debug)]
pub struct FoldBudget {
    /// Whether to fold at all.
    pub enabled: bool,
    /// Maximum elements of a folded result.
    pub max_elems: usize,
    /// Results up to this many bytes always fold.
    pub small_bytes: usize,
    /// Whether float fills named by attributes (`ConstantOfShape` of a float
    /// value) fold too; by default they stay ops computed once at start-up.
    pub float_fills: bool,
}

impl Default for FoldBudget {
    fn default() -> Self {
        FoldBudget { enabled: true, max_elems: 1 << 20, small_bytes: 4096, float_fills: false }
    }
}

/// Per-class facts.
#[derive(Clone, Debug, Default)]
pub struct Data {
    /// Result types: one for a value, several for a multi-result tuple, none
    /// for attrs/absent leaves or when inference failed.
    pub tys: SmallVec<[TensorType; 1]>,
    /// The class's value, if constant.
    pub konst: Option<u32>,
    /// For attrs leaves, the interned dictionary.
    pub attrs: Option<u32>,
    /// Provenance of the ops merged into this class.
    pub loc: Loc,
    /// Number of uses in the imported function (0 for classes made by rules).
    pub orig_uses: u32,
    /// The value depends on constants only (a constant, or a pure op of
    /// static operands, e.g. `ConstantOfShape` weights too large to fold):
    /// it is computed once, when the model is built, not per inference.
    pub is_static: bool,
}

impl Data {
    /// The single result type, if this class is a value.
    pub fn ty(&self) -> Option<&TensorType> {
        (self.tys.len() == 1).then(|| &self.tys[0])
    }
}

/// The analysis state shared by all classes of one e-graph.
#[derive(Clone, Debug, Default)]
pub struct EAnalysis {
    /// Attribute interner.
    pub attrs: Interner,
    /// Constant table.
    pub consts: ConstTable,
    /// Folding limits.
    pub fold: FoldBudget,
    /// Parameter types of the function.
    pub params: Vec<TensorType>,
    /// Result types of opaque ops, by opaque index.
    pub opaque_types: Vec<SmallVec<[TensorType; 1]>>,
    /// Contradictions found (unsound rules); the pass fails if non-empty.
    pub conflicts: Vec<String>,
    /// Module constants named by `Sym` attributes (e.g. ConstantOfShape's `value`).
    pub sym_consts: HashMap<String, Arc<Constant>>,
}

impl EAnalysis {
    /// The attribute dictionary of an attrs class.
    pub fn attrs_of(eg: &EG, id: Id) -> Option<&Attrs> {
        eg[id].data.attrs.map(|i| eg.analysis.attrs.get(i))
    }
    /// The constant value of a class.
    pub fn const_of(eg: &EG, id: Id) -> Option<&Arc<Constant>> {
        eg[id].data.konst.map(|i| eg.analysis.consts.get(i))
    }
}

/// Infer the result types of an `Op` node from its children's facts.
pub fn infer_node(eg: &EG, op: Opcode, results: u32, args: &[Id]) -> Result<SmallVec<[TensorType; 1]>, String> {
    let (attrs_id, operands) = args.split_last().ok_or("op node without attrs leaf")?;
    let attrs = EAnalysis::attrs_of(eg, *attrs_id).ok_or("op node whose last child is not attrs")?;
    let mut tys = Vec::with_capacity(operands.len());
    let mut consts = Vec::with_capacity(operands.len());
    for &c in operands {
        let d = &eg[c].data;
        if d.attrs.is_some() {
            return Err("attrs leaf used as an operand".into());
        }
        tys.push(d.ty());
        consts.push(d.konst.map(|k| &**eg.analysis.consts.get(k)));
    }
    let attr_const = match attrs.get("value") {
        Some(ir::Attr::Sym(name)) => eg.analysis.sym_consts.get(name).map(|c| &**c),
        _ => None,
    };
    let ctx = InferCtx { operands: &tys, consts: &consts, attrs, num_results: results as usize, attr_const };
    let out = (op.def().infer)(&ctx)?;
    if out.len() != results as usize {
        return Err(format!("{} infers {} results, node declares {results}", op.name(), out.len()));
    }
    Ok(out.into_iter().collect())
}

impl Analysis<ENode> for EAnalysis {
    type Data = Data;

    fn make(eg: &mut EG, enode: &ENode, _id: Id) -> Data {
        let mut d = Data::default();
        match enode {
            ENode::Op { op, results, args } => {
                match infer_node(eg, *op, *results, args) {
                    Ok(t) => d.tys = t,
                    Err(e) => eg.analysis.conflicts.push(format!("cannot type a {} node: {e}", op.name())),
                }
                let operands = &args[..args.len().saturating_sub(1)];
                let all_static = operands.iter().all(|&c| eg[c].data.is_static || is_absent(eg, c));
                let some = operands.iter().any(|&c| !is_absent(eg, c));
                d.is_static = op.def().has(ir::ops::flags::PURE) && all_static && some;
            }
            ENode::Proj { index, arg } => {
                if let Some(t) = eg[arg[0]].data.tys.get(*index as usize) {
                    d.tys.push(t.clone());
                }
                d.is_static = eg[arg[0]].data.is_static;
            }
            ENode::Attrs(i) => d.attrs = Some(*i),
            ENode::Absent => {}
            ENode::Param(i) => d.tys.push(eg.analysis.params[*i as usize].clone()),
            ENode::Const(i) => {
                d.tys.push(eg.analysis.consts.get(*i).ty.clone());
                d.konst = Some(*i);
                d.is_static = true;
            }
            ENode::Opaque { index, .. } => d.tys = eg.analysis.opaque_types[*index as usize].clone(),
        }
        d
    }

    fn merge(&mut self, a: &mut Data, b: Data) -> DidMerge {
        let before_a = (a.tys.clone(), a.konst, a.attrs);
        if a.tys.is_empty() {
            a.tys = b.tys.clone();
        } else if !b.tys.is_empty() {
            match meet_all(&a.tys, &b.tys) {
                Ok(t) => a.tys = t,
                Err(e) => self.conflicts.push(format!("merged classes disagree on type: {e}")),
            }
        }
        match (a.konst, b.konst) {
            (Some(x), Some(y)) if x != y => {
                if let Err(e) = same_up_to_rounding(self.consts.get(x), self.consts.get(y)) {
                    self.conflicts.push(format!("merged classes hold different constants (#{x} vs #{y}): {e}"));
                }
            }
            (None, Some(_)) => a.konst = b.konst,
            _ => {}
        }
        merge_id(&mut a.attrs, b.attrs, "attributes", &mut self.conflicts);
        a.orig_uses = a.orig_uses.max(b.orig_uses);
        let static_changed = !a.is_static && b.is_static;
        a.is_static |= b.is_static;
        let loc_changed = fuse_into(&mut a.loc, &b.loc);
        let a_changed = loc_changed || static_changed || before_a != (a.tys.clone(), a.konst, a.attrs);
        let b_changed =
            a.tys != b.tys || a.konst != b.konst || a.attrs != b.attrs || a.loc != b.loc || a.is_static != b.is_static;
        DidMerge(a_changed, b_changed)
    }

    fn modify(eg: &mut EG, id: Id) {
        if !eg.analysis.fold.enabled || eg[id].data.konst.is_some() || eg[id].data.tys.len() != 1 {
            return;
        }
        let nodes = eg[id].nodes.clone();
        for n in &nodes {
            if let Some(c) = fold_node(eg, id, n) {
                let k = eg.analysis.consts.intern(Arc::new(c), None);
                let cid = eg.add(ENode::Const(k));
                eg.union(id, cid);
                return;
            }
        }
    }
}

fn meet_all(a: &[TensorType], b: &[TensorType]) -> Result<SmallVec<[TensorType; 1]>, String> {
    if a.len() != b.len() {
        return Err(format!("{} results vs {}", a.len(), b.len()));
    }
    a.iter().zip(b).map(|(x, y)| meet_type(x, y).map_err(|e| format!("{x} vs {y}: {e}"))).collect()
}

fn merge_id(a: &mut Option<u32>, b: Option<u32>, what: &str, conflicts: &mut Vec<String>) {
    match (*a, b) {
        (None, Some(_)) => *a = b,
        (Some(x), Some(y)) if x != y => conflicts.push(format!("merged classes hold different {what} (#{x} vs #{y})")),
        _ => {}
    }
}

/// How far two folds of one float value may differ, in units of the dtype's
/// epsilon relative to the larger magnitude (of the two elements and of the
/// whole tensor, since a sum's rounding error scales with its terms, not its
/// result). Reassociating a dot product of length k moves it by about
/// `sqrt(k)` units; an unsound rule moves it by far more.
pub const ROUNDING_EPS: f64 = 64.0;

/// `Ok` when `x` and `y` are the same constant up to float rounding (same
/// type; identical if not float); else the first element that differs.
pub fn same_up_to_rounding(x: &Constant, y: &Constant) -> Result<(), String> {
    if x.ty != y.ty {
        return Err(format!("types {} vs {}", x.ty, y.ty));
    }
    let eps = match x.ty.dtype {
        ir::DType::F64 => f64::EPSILON,
        ir::DType::F32 => f32::EPSILON as f64,
        ir::DType::F16 => 2f64.powi(-10),
        ir::DType::BF16 => 2f64.powi(-7),
        _ => 0.0,
    };
    let (Some(a), Some(b)) = (x.to_f64s(), y.to_f64s()) else {
        return Err("contents differ".into());
    };
    if a.len() != b.len() {
        return Err("contents differ".into());
    }
    // Integers, infinities and NaNs must match exactly (eps or scale 0).
    let scale = a.iter().chain(&b).fold(0f64, |m, v| m.max(v.abs()));
    let tol = if scale.is_finite() { ROUNDING_EPS * eps * scale } else { 0.0 };
    let close = |p: f64, q: f64| tol > 0.0 && (p - q).abs() <= tol;
    let same = |p: f64, q: f64| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()) || close(p, q);
    let bad = a.iter().zip(&b).position(|(&p, &q)| !same(p, q));
    match bad {
        None => Ok(()),
        Some(i) => Err(format!("element {i}: {} vs {}", a[i], b[i])),
    }
}

/// Most provenances one class keeps. Exporters repeat a constant once per use,
/// and all copies merge into one class; listing hundreds of sources helps no one.
pub const MAX_LOCS: usize = 16;

/// Add the provenances of `b` to `a` without repeats, in first-seen order, up
/// to [`MAX_LOCS`]; in place, so merging k duplicates costs O(k), not O(k²).
/// Returns whether `a` changed.
pub fn fuse_into(a: &mut Loc, b: &Loc) -> bool {
    let items: &[Loc] = match b {
        Loc::Unknown => return false,
        Loc::Fused(v) => v,
        l => std::slice::from_ref(l),
    };
    let mut changed = false;
    for l in items {
        match &mut *a {
            Loc::Unknown => *a = l.clone(),
            Loc::Fused(v) => {
                if v.len() < MAX_LOCS && !v.contains(l) {
                    v.push(l.clone());
                } else {
                    continue;
                }
            }
            single => {
                if *single == *l {
                    continue;
                }
                *single = Loc::Fused(vec![single.clone(), l.clone()]);
            }
        }
        changed = true;
    }
    changed
}

/// Evaluate `n` if all its operands are constants (or it only reads a static
/// shape) and the result fits the folding budget.
fn fold_node(eg: &EG, id: Id, n: &ENode) -> Option<Constant> {
    let ENode::Op { op, results: 1, args } = n else { return None };
    let def = op.def();
    if !def.has(PURE) || def.regions > 0 || *op == Opcode::CoreConst {
        return None;
    }
    let (attrs_id, operands) = args.split_last()?;
    let attrs = EAnalysis::attrs_of(eg, *attrs_id)?.clone();
    if let Some(c) = fold_shape_query(eg, *op, operands, &attrs) {
        return Some(c);
    }
    ir::interp::kernel(*op)?;
    let mut inputs = Vec::with_capacity(operands.len());
    let mut largest = 0usize;
    for &c in operands {
        if is_absent(eg, c) {
            inputs.push(None);
            continue;
        }
        let k = eg.analysis.consts.get(eg[c].data.konst?);
        largest = largest.max(k.bytes().map_or(0, |b| b.len()));
        inputs.push(Some(Tensor::from_constant(k).ok()?));
    }
    let out_ty = eg[id].data.ty()?;
    let elems = out_ty.shape.num_elements()? as usize;
    let bytes = elems * out_ty.dtype.size_bytes().unwrap_or(8);
    let budget = &eg.analysis.fold;
    if elems > budget.max_elems || bytes > budget.small_bytes.max(largest) {
        return None;
    }
    // Attributes naming pool constants (ConstantOfShape's `value`) come along
    // for integer results (shape data, which later shapes depend on); float
    // fills stay construction-time weights that the weight rules
    // (bn-fold-static) see.
    let names_const = attrs.iter().any(|(_, a)| matches!(a, ir::Attr::Sym(_)));
    if names_const && !(out_ty.dtype.is_int() || out_ty.dtype == ir::DType::Bool || budget.float_fills) {
        return None;
    }
    let named: Vec<Constant> = attrs
        .iter()
        .filter_map(|(_, a)| match a {
            ir::Attr::Sym(name) => eg.analysis.sym_consts.get(name).map(|c| (**c).clone()),
            _ => None,
        })
        .collect();
    let out = ir::interp::eval_op_with(*op, &inputs, attrs, 1, &named).ok()?.pop()?;
    tensor_to_const(&out)
}

/// True if class `id` is the omitted-operand leaf.
pub fn is_absent(eg: &EG, id: Id) -> bool {
    eg[id].nodes.iter().any(|n| matches!(n, ENode::Absent))
}

/// `Shape` and `Size` of a value whose shape is static are constants.
fn fold_shape_query(eg: &EG, op: Opcode, operands: &[Id], attrs: &Attrs) -> Option<Constant> {
    if op != Opcode::Shape && op != Opcode::Size {
        return None;
    }
    let dims: Vec<i64> = eg[*operands.first()?].data.ty()?.shape.static_dims()?.iter().map(|&d| d as i64).collect();
    if op == Opcode::Size {
        return Some(Constant::from_i64s("", &[], &[dims.iter().product()]));
    }
    let r = dims.len() as i64;
    let clamp = |x: i64| if x < 0 { (x + r).max(0) } else { x.min(r) };
    let start = clamp(attrs.int("start").unwrap_or(0));
    let end = clamp(attrs.int("end").unwrap_or(r)).max(start);
    let v = &dims[start as usize..end as usize];
    Some(Constant::from_i64s("", &[v.len() as u64], v))
}

/// A tensor as an (unnamed) constant.
pub fn tensor_to_const(t: &Tensor) -> Option<Constant> {
    let data = match &t.data {
        ir::interp::Data::String(s) => ConstData::Strings(s.clone().into()),
        _ => ConstData::Bytes(t.to_le_bytes()?.into()),
    };
    Some(Constant { name: String::new(), ty: t.ty(), data })
}
