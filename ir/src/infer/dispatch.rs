//! Inference of `core.bucket_dispatch` (semantics and invariants:
//! [`crate::ops::control::dispatch`]), the one op whose result types come from other
//! functions of the module.

use crate::module::{Function, Module};
use crate::ops::control::dispatch::Dispatch;
use crate::ops::{InferCtx, InferResult, Opcode};
use crate::types::{Dim, Shape, Symbol, TensorType};

/// Inference of `core.bucket_dispatch`: checks every callee against the
/// operands and the attributes; results are the first callee's result types
/// with the sliced axes turned back into their dim symbols.
pub fn bucket_dispatch(ctx: &InferCtx<'_>, m: &Module, caller: &Function) -> InferResult {
    let d = Dispatch::from_attrs(ctx.attrs)?;
    let mut results: Option<Vec<TensorType>> = None;
    for (ci, name) in d.callees.iter().enumerate() {
        let callee = callee(m, caller, name)?;
        check_callee(ctx, &d, callee, &d.combination(ci)).map_err(|e| format!("callee @{name}: {e}"))?;
        let got = &callee.result_types;
        results = Some(match results {
            None => got.clone(),
            Some(prev) => {
                prev.iter().zip(got).map(|(a, b)| crate::ops::control::join_types(a, b)).collect::<Result<_, _>>()?
            }
        });
    }
    let mut results = results.ok_or("no callees")?;
    if results.len() != ctx.num_results {
        return Err(format!("callees yield {} result(s), the op has {}", results.len(), ctx.num_results));
    }
    for r in &d.slices {
        let t = results.get_mut(r.tensor).ok_or_else(|| format!("slice_axes names result #{}", r.tensor))?;
        let mut dims = t.dims().ok_or_else(|| format!("result #{} is unranked", r.tensor))?.to_vec();
        let slot = dims.get_mut(r.axis).ok_or_else(|| format!("result #{} has no axis {}", r.tensor, r.axis))?;
        *slot = Dim::Sym(Symbol::new(&d.dims[r.dim]));
        t.shape = Shape::from_dims(dims);
    }
    Ok(results)
}

fn callee<'m>(m: &'m Module, caller: &Function, name: &str) -> Result<&'m Function, String> {
    let f = m.func(name).ok_or_else(|| format!("callee @{name} is not a function of the module"))?;
    let nested = f.live_ops().iter().any(|&id| f.ops[id].opcode == Opcode::CoreBucketDispatch);
    if name == caller.name || nested {
        return Err(format!("callee @{name} dispatches itself; callees must be plain functions"));
    }
    Ok(f)
}

fn check_callee(ctx: &InferCtx<'_>, d: &Dispatch, f: &Function, sizes: &[u64]) -> Result<(), String> {
    if f.body.params.len() != ctx.num_operands() {
        return Err(format!("takes {} parameter(s), the op passes {}", f.body.params.len(), ctx.num_operands()));
    }
    for (i, &p) in f.body.params.iter().enumerate() {
        let (want, got) = (ctx.input(i)?, f.ty(p));
        if want.dtype != got.dtype || want.rank() != got.rank() {
            return Err(format!("parameter #{i} is {got}, the op passes {want}"));
        }
    }
    for r in &d.pads {
        let p = f.body.params.get(r.tensor).ok_or_else(|| format!("pad_axes names operand #{}", r.tensor))?;
        let dim = f.ty(*p).dims().and_then(|ds| ds.get(r.axis).copied());
        if dim != Some(Dim::Static(sizes[r.dim])) {
            return Err(format!(
                "parameter #{} axis {} must be the bucket size {} of `{}`",
                r.tensor, r.axis, sizes[r.dim], d.dims[r.dim]
            ));
        }
    }
    if d.pad_values.len() != ctx.num_operands() {
        return Err(format!("{} pad value(s) for {} operand(s)", d.pad_values.len(), ctx.num_operands()));
    }
    Ok(())
}
