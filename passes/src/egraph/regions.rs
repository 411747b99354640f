//! Regions (the bodies of `If`, `Loop`, `Scan`) as e-graph scopes, and
//! constant `If` folding.
//!
//! A region is optimized as if it were a function body of its own: its
//! parameters, then the values it captures from enclosing scopes, are the
//! e-graph's parameters (leaves), so nothing inside can be rewritten in terms
//! of what it does not own. Captured constants are the exception: each region
//! gets its own `core.const` op for every constant it captures, so folding
//! sees their values (slices of captured weights, shape arithmetic on
//! captured shapes). While a region is entered, it *is* the function body
//! (the enclosing body waits in the [`Scope`]); [`leave`] always restores the
//! enclosing body, the captured values keep their identity, and the region's
//! own parameters stay first and unchanged.

use super::bridge::{captured_values, remap_region};
use ir::{Module, OpId, Opcode, Region, ValueDef};
use std::collections::HashMap;

/// An entered region: where it lives and the enclosing body it replaced.
pub struct Scope {
    outer: Region,
    op: OpId,
    region: usize,
    own_params: usize,
}

/// Make region `region` of `op` (an op of the current body of function `fi`)
/// the function body. Captured constants become ops of the region; the other
/// captured values are appended to its parameters.
pub fn enter(m: &mut Module, fi: usize, op: OpId, region: usize) -> Scope {
    let f = &mut m.funcs[fi];
    let mut r = std::mem::take(&mut f.ops[op].regions[region]);
    let own_params = r.params.len();
    let mut params = r.params.clone();
    let mut ops = Vec::new();
    let mut remap = HashMap::new();
    for v in captured_values(f, std::slice::from_ref(&r)) {
        let def = match f.values[v].def {
            ValueDef::Result(d, 0) if f.ops[d].opcode == Opcode::CoreConst => Some(d),
            _ => None,
        };
        match def {
            Some(d) => {
                let (attrs, loc, ty) = (f.ops[d].attrs.clone(), f.ops[d].loc.clone(), f.ty(v).clone());
                let copy = f.create_op(Opcode::CoreConst, [], attrs, [ty], loc);
                ops.push(copy);
                remap.insert(v, f.ops[copy].results[0]);
            }
            None => params.push(v),
        }
    }
    remap_region(f, &mut r, &remap);
    ops.extend(r.ops);
    let body = Region { params, ops, results: r.results };
    let outer = std::mem::replace(&mut f.body, body);
    Scope { outer, op, region, own_params }
}

/// Put the (rewritten) region back into its op and restore the enclosing body.
pub fn leave(m: &mut Module, fi: usize, s: Scope) {
    let f = &mut m.funcs[fi];
    let mut body = std::mem::replace(&mut f.body, s.outer);
    body.params.truncate(s.own_params);
    f.ops[s.op].regions[s.region] = body;
}

/// A name for region `region` of `op` in reports: its ONNX node, else its opcode.
pub fn name(m: &Module, fi: usize, op: OpId, region: usize) -> String {
    let d = &m.funcs[fi].ops[op];
    let node = d.loc.onnx_nodes().next().map(|(n, _)| n.to_string());
    format!("{} region {region}", node.unwrap_or_else(|| d.opcode.name().to_string()))
}

/// Replace every `If` of the current body whose condition is a constant by
/// the ops of the branch it takes (the other branch is dropped). Returns how
/// many were folded.
pub fn fold_const_ifs(m: &mut Module, fi: usize) -> usize {
    let mut folded = 0;
    let mut i = 0;
    while i < m.funcs[fi].body.ops.len() {
        let id = m.funcs[fi].body.ops[i];
        let Some(branch) = constant_branch(m, fi, id) else {
            i += 1;
            continue;
        };
        let f = &mut m.funcs[fi];
        let taken = std::mem::take(&mut f.ops[id].regions[branch]);
        let n = taken.ops.len();
        f.body.ops.splice(i..=i, taken.ops);
        for (res, y) in f.ops[id].results.clone().into_iter().zip(taken.results) {
            f.replace_all_uses(res, y);
        }
        folded += 1;
        i += n;
    }
    folded
}

/// The branch an `If` takes when its condition is a one-element constant
/// and each branch result has the dtype of the `If` result it replaces.
fn constant_branch(m: &Module, fi: usize, id: OpId) -> Option<usize> {
    let f = &m.funcs[fi];
    let op = &f.ops[id];
    if op.opcode != Opcode::If || op.regions.len() != 2 {
        return None;
    }
    let cond = op.operand(0)?;
    let ValueDef::Result(def, 0) = f.values[cond].def else { return None };
    if f.ops[def].opcode != Opcode::CoreConst {
        return None;
    }
    let v = m.const_of_op(&f.ops[def])?.to_f64s()?;
    let branch = match v.as_slice() {
        [c] if *c != 0.0 => 0,
        [_] => 1,
        _ => return None,
    };
    let r = &op.regions[branch];
    let same = r.results.len() == op.results.len()
        && r.results.iter().zip(&op.results).all(|(&y, &res)| f.ty(y).dtype == f.ty(res).dtype);
    same.then_some(branch)
}
