//! Running the op table's shape inference on ops of a function.

mod dispatch;

use crate::module::{Function, Module, OpData, OpId};
use crate::ops::{InferCtx, InferResult, Opcode};
use crate::types::{Dim, Shape, TensorType};

/// Inference of an op that refers to other functions of the module.
type ModuleInferFn = fn(&InferCtx<'_>, &Module, &Function) -> InferResult;

/// The ops whose inference sees the module (their op-table `infer` only
/// says so): inference sits above both the op table and the module.
const MODULE_INFER: &[(Opcode, ModuleInferFn)] = &[(Opcode::CoreBucketDispatch, dispatch::bucket_dispatch)];

/// Infer the result types of `op` from its operand types, attributes and constant operands.
pub fn infer_op(m: &Module, f: &Function, op: &OpData) -> InferResult {
    let operands: Vec<Option<&TensorType>> = op.operands.iter().map(|o| o.map(|v| f.ty(v))).collect();
    let consts: Vec<_> = op.operands.iter().map(|o| o.and_then(|v| defining_const(m, f, v))).collect();
    let attr_const = match op.attrs.get("value") {
        Some(crate::Attr::Sym(name)) => m.const_by_name(name).map(|id| &m.consts[id]),
        _ => None,
    };
    let ctx =
        InferCtx { operands: &operands, consts: &consts, attrs: &op.attrs, num_results: op.results.len(), attr_const };
    let def = op.opcode.def();
    if let Some(&(_, infer_module)) = MODULE_INFER.iter().find(|(o, _)| *o == op.opcode) {
        return infer_module(&ctx, m, f);
    }
    let Some(infer_regions) = def.infer_regions else { return (def.infer)(&ctx) };
    let region_types = |r: &crate::Region| crate::ops::RegionTypes {
        params: r.params.iter().map(|&v| f.ty(v).clone()).collect(),
        results: r.results.iter().map(|&v| f.ty(v).clone()).collect(),
    };
    let regions: Vec<crate::ops::RegionTypes> = op.regions.iter().map(region_types).collect();
    infer_regions(&ctx, &regions)
}

/// The constant behind `v` if `v` is the result of a `core.const` op.
pub fn defining_const<'m>(m: &'m Module, f: &Function, v: crate::Value) -> Option<&'m crate::Constant> {
    match f.values.get(v)?.def {
        crate::ValueDef::Result(op, 0) => m.const_of_op(f.ops.get(op)?),
        _ => None,
    }
}

/// Merge a declared and an inferred dim, keeping the more precise one.
/// `None` if they contradict.
pub fn meet_dim(declared: Dim, inferred: Dim) -> Option<Dim> {
    match (declared, inferred) {
        (a, b) if a == b => Some(a),
        (Dim::Unknown, b) => Some(b),
        (a, Dim::Unknown) => Some(a),
        // A symbol may be specialized to a number (e.g. by bucketing).
        (Dim::Static(n), Dim::Sym(_)) | (Dim::Sym(_), Dim::Static(n)) => Some(Dim::Static(n)),
        _ => None,
    }
}

/// Merge a declared and an inferred type; `Err` describes the contradiction.
pub fn meet_type(declared: &TensorType, inferred: &TensorType) -> Result<TensorType, String> {
    if declared.dtype != inferred.dtype {
        return Err(format!("element type {} does not match inferred {}", declared.dtype, inferred.dtype));
    }
    let shape = match (&declared.shape, &inferred.shape) {
        (Shape::Unranked, s) | (s, Shape::Unranked) => s.clone(),
        (Shape::Ranked(a), Shape::Ranked(b)) => {
            if a.len() != b.len() {
                return Err(format!(
                    "shape {} does not match inferred {} (rank differs)",
                    declared.shape, inferred.shape
                ));
            }
            let dims: Option<Vec<Dim>> = a.iter().zip(b).map(|(x, y)| meet_dim(*x, *y)).collect();
            match dims {
                Some(d) => Shape::from_dims(d),
                None => return Err(format!("shape {} does not match inferred {}", declared.shape, inferred.shape)),
            }
        }
    };
    Ok(TensorType::new(declared.dtype, shape))
}

/// Refine every live op's result types with inference, in program order
/// (an op with regions after the ops of its regions, whose parameters are
/// first refined from its operands). Returns the number of values whose type
/// became more precise, or the first op whose inference failed or
/// contradicted its declared types.
pub fn refine_function(m: &Module, f: &mut Function) -> Result<usize, (OpId, String)> {
    let mut changed = 0;
    let body = f.body.ops.clone();
    refine_ops(m, f, &body, &mut changed)?;
    Ok(changed)
}

fn refine_ops(m: &Module, f: &mut Function, ops: &[OpId], changed: &mut usize) -> Result<(), (OpId, String)> {
    for &id in ops {
        if f.ops[id].opcode == Opcode::CoreConst && f.ops[id].results.is_empty() {
            continue;
        }
        if !f.ops[id].regions.is_empty() {
            *changed += refine_region_params(f, id);
            for k in 0..f.ops[id].regions.len() {
                let inner = f.ops[id].regions[k].ops.clone();
                refine_ops(m, f, &inner, changed)?;
            }
        }
        let inferred = infer_op(m, f, &f.ops[id]).map_err(|e| (id, e))?;
        let results = f.ops[id].results.clone();
        if inferred.len() != results.len() {
            return Err((id, format!("inference gives {} results, op has {}", inferred.len(), results.len())));
        }
        for (v, t) in results.iter().zip(&inferred) {
            let merged = meet_type(f.ty(*v), t).map_err(|e| (id, e))?;
            if &merged != f.ty(*v) {
                f.values[*v].ty = merged;
                *changed += 1;
            }
        }
    }
    Ok(())
}

/// Scan's body parameters from its operands: each state has its initial
/// value's type, each scan slice its input's type without the scan axis.
/// (A declared type that contradicts is left for the verifier.)
fn refine_region_params(f: &mut Function, id: OpId) -> usize {
    let op = &f.ops[id];
    if op.opcode != Opcode::Scan || op.regions.len() != 1 {
        return 0;
    }
    let m = op.attrs.int("num_scan_inputs").unwrap_or(0).max(0) as usize;
    let n = op.operands.len().saturating_sub(m);
    let axes = op.attrs.ints("scan_input_axes").unwrap_or(&[]).to_vec();
    let mut want = Vec::new();
    for (i, (&p, v)) in op.regions[0].params.iter().zip(&op.operands).enumerate() {
        let Some(v) = *v else { continue };
        let t = f.ty(v).clone();
        let t = if i < n { Some(t) } else { sliced(&t, axes.get(i - n).copied().unwrap_or(0)) };
        if let Some(t) = t {
            want.push((p, t));
        }
    }
    let mut changed = 0;
    for (p, t) in want {
        if let Ok(merged) = meet_type(f.ty(p), &t) {
            if &merged != f.ty(p) {
                f.values[p].ty = merged;
                changed += 1;
            }
        }
    }
    changed
}

/// `t` without axis `axis` (negative counts from the end).
fn sliced(t: &TensorType, axis: i64) -> Option<TensorType> {
    let d = t.dims()?;
    let a = if axis < 0 { axis + d.len() as i64 } else { axis };
    let a = usize::try_from(a).ok().filter(|&a| a < d.len())?;
    let mut dims = d.to_vec();
    dims.remove(a);
    Some(TensorType::new(t.dtype, Shape::from_dims(dims)))
}
