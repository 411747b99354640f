//! The foundation passes: `dce`, `canonicalize` and `shape-infer`.

use crate::Pass;
use ir::infer::{defining_const, refine_function};
use ir::ops::flags::PURE;
use ir::{Attr, DType, Function, Module, OpId, Opcode, Value};
use std::collections::HashSet;

/// Dead-code elimination: drops pure ops none of whose results is used, then
/// constants no `core.const` refers to.
pub struct Dce;

impl Pass for Dce {
    fn name(&self) -> &'static str {
        "dce"
    }
    fn run(&self, m: &mut Module, _cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let mut changed = false;
        for f in &mut m.funcs {
            changed |= dce_function(f);
        }
        let used: HashSet<String> = m
            .funcs
            .iter()
            .flat_map(|f| f.live_ops().into_iter().map(move |id| &f.ops[id]))
            .flat_map(|op| {
                op.attrs.iter().filter_map(|(_, a)| if let Attr::Sym(s) = a { Some(s.clone()) } else { None })
            })
            .collect();
        let before = m.consts.len();
        m.retain_consts(|c| used.contains(&c.name));
        Ok(crate::PassResult::changed(changed || m.consts.len() != before))
    }
}

/// Remove dead pure ops until none is left; returns whether any was removed.
pub(crate) fn dce_function(f: &mut Function) -> bool {
    let mut any = false;
    loop {
        let uses = f.use_counts();
        let dead: HashSet<OpId> = f
            .live_ops()
            .into_iter()
            .filter(|&id| {
                let op = &f.ops[id];
                op.opcode.def().has(PURE) && op.results.iter().all(|v| uses[v.as_u32() as usize] == 0)
            })
            .collect();
        if dead.is_empty() {
            return any;
        }
        f.remove_ops(|id| dead.contains(&id));
        any = true;
    }
}

/// Trivial identities that forward an operand unchanged. Each rewrite fires
/// only when the forwarded value has exactly the result's type, so no
/// broadcasting or type change is lost.
pub struct Canonicalize;

impl Pass for Canonicalize {
    fn name(&self) -> &'static str {
        "canonicalize"
    }
    fn run(&self, m: &mut Module, _cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let mut changed = false;
        for fi in 0..m.funcs.len() {
            changed |= crate::scan_axes::normalize_scans(&mut m.funcs[fi]);
            let mut forwarded = HashSet::new();
            // Forwarding only redirects uses of an op's first result, so the
            // use counts of other results stay valid for the whole loop.
            let uses = m.funcs[fi].use_counts();
            for id in m.funcs[fi].live_ops() {
                if let Some(src) = forward_of(m, &m.funcs[fi], id, &uses) {
                    let f = &mut m.funcs[fi];
                    let res = f.ops[id].results[0];
                    f.replace_all_uses(res, src);
                    forwarded.insert(id);
                }
            }
            if !forwarded.is_empty() {
                m.funcs[fi].remove_ops(|id| forwarded.contains(&id));
                changed = true;
            }
        }
        Ok(crate::PassResult::changed(changed))
    }
}

/// If `id` computes one of its operands unchanged, that operand.
/// `uses` holds the use count of every value, indexed by value.
fn forward_of(m: &Module, f: &Function, id: OpId, uses: &[u32]) -> Option<Value> {
    let op = &f.ops[id];
    let x = op.operand(0)?;
    let res = *op.results.first()?;
    let other_results_unused = op.results[1..].iter().all(|v| uses[v.as_u32() as usize] == 0);
    // Equal types with no unknown dim denote equal runtime shapes (a symbol is
    // the same size wherever it appears in a function).
    let same_type = f.ty(x) == f.ty(res) && f.ty(x).dims().is_some_and(|d| !d.contains(&ir::Dim::Unknown));
    let fires = match op.opcode {
        Opcode::Identity => true,
        Opcode::Dropout => other_results_unused && training_off(m, f, op.operand(2)),
        Opcode::Transpose => {
            op.attrs.ints("perm").is_some_and(|p| p.iter().enumerate().all(|(i, &a)| a == i as i64))
                || f.ty(x).rank() == Some(1)
        }
        Opcode::Cast => op.attrs.dtype("to") == Some(f.ty(x).dtype),
        Opcode::Reshape | Opcode::Expand => same_type,
        // x + (-0.0) and x - (+0.0) are exact for every x (x + 0.0 is not: -0.0 + 0.0 = +0.0).
        Opcode::Add => {
            same_type && splat_of(m, f, op.operand(1)).is_some_and(|c| is_neutral_zero(c, true, f.ty(x).dtype))
        }
        Opcode::Sub => {
            same_type && splat_of(m, f, op.operand(1)).is_some_and(|c| is_neutral_zero(c, false, f.ty(x).dtype))
        }
        Opcode::Mul | Opcode::Div => same_type && splat_of(m, f, op.operand(1)) == Some(1.0),
        _ => false,
    };
    (fires && f.ty(x).dtype == f.ty(res).dtype).then_some(x)
}

/// True if the Dropout `training_mode` operand is absent or a constant false.
fn training_off(m: &Module, f: &Function, v: Option<Value>) -> bool {
    match v {
        None => true,
        Some(v) => defining_const(m, f, v).and_then(|c| c.to_f64s()).is_some_and(|vals| vals.iter().all(|&x| x == 0.0)),
    }
}

/// True if adding (`add`) or subtracting the constant `c` leaves every value
/// unchanged: any zero for integers; `-0.0` to add and `+0.0` to subtract for floats.
fn is_neutral_zero(c: f64, add: bool, dt: DType) -> bool {
    c == 0.0 && (!dt.is_float() || c.is_sign_negative() == add)
}

/// The value of a constant whose elements are all equal (and numeric).
fn splat_of(m: &Module, f: &Function, v: Option<Value>) -> Option<f64> {
    let c = defining_const(m, f, v?)?;
    if c.ty.dtype == DType::Bool {
        return None;
    }
    let vals = c.to_f64s()?;
    let first = *vals.first()?;
    vals.iter().all(|x| x.to_bits() == first.to_bits()).then_some(first)
}

/// Refines value types with shape inference, and the function signatures with
/// the refined types of the returned values.
pub struct ShapeInfer;

impl Pass for ShapeInfer {
    fn name(&self) -> &'static str {
        "shape-infer"
    }
    fn run(&self, m: &mut Module, _cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let mut changed = false;
        for fi in 0..m.funcs.len() {
            let mut f = std::mem::take(&mut m.funcs[fi]);
            let res = refine_function(m, &mut f);
            if let Ok(n) = res {
                changed |= n > 0;
                changed |= refine_signature(&mut f);
            }
            m.funcs[fi] = f;
            if let Err((id, msg)) = res {
                let op = &m.funcs[fi].ops[id];
                return Err(self.fail(format!("{} [{}]: {msg}", op.opcode.name(), op.loc)));
            }
        }
        Ok(crate::PassResult::changed(changed))
    }
}

fn refine_signature(f: &mut Function) -> bool {
    let mut changed = false;
    for (i, &v) in f.body.results.iter().enumerate() {
        if let Ok(t) = ir::infer::meet_type(&f.result_types[i], f.ty(v)) {
            if t != f.result_types[i] {
                f.result_types[i] = t;
                changed = true;
            }
        }
    }
    changed
}
