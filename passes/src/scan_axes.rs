//! Scan along axis 0 only (part of `canonicalize`): a scan input sliced
//! along axis `a ≠ 0` becomes a Transpose bringing `a` to the front, and a
//! scan output stacked along axis `b ≠ 0` is stacked along axis 0 and then
//! transposed into place. The identity:
//! `Scan(x, in_axis=a, out_axis=b) = T_b(Scan(T_a(x), in_axis=0, out_axis=0))`
//! with `T_a` moving axis `a` to 0 and `T_b` moving axis 0 to `b`. Backends
//! then only ever slice and stack the leading axis.

use ir::{Attr, Dim, Function, OpId, Opcode, Shape, TensorType, Value};

/// Rewrite every Scan of `f` with a nonzero scan axis; true if any changed.
/// A Scan whose axes refer to operands or results of unknown rank is left
/// as it is.
pub fn normalize_scans(f: &mut Function) -> bool {
    let scans: Vec<OpId> = f
        .live_ops()
        .into_iter()
        .filter(|&id| {
            let op = &f.ops[id];
            let nonzero = |k: &str| op.attrs.ints(k).is_some_and(|v| v.iter().any(|&a| a != 0));
            op.opcode == Opcode::Scan && (nonzero("scan_input_axes") || nonzero("scan_output_axes"))
        })
        .collect();
    let mut changed = false;
    for id in scans {
        changed |= normalize(f, id);
    }
    changed
}

/// `axis` (possibly negative) of a rank-`r` tensor, if in range.
fn norm(axis: i64, r: usize) -> Option<usize> {
    let a = if axis < 0 { axis + r as i64 } else { axis };
    usize::try_from(a).ok().filter(|&a| a < r)
}

/// `t` with its dims reordered: dim `j` of the result is dim `perm[j]` of `t`.
fn permuted(t: &TensorType, perm: &[usize]) -> TensorType {
    let d: Vec<Dim> = t.dims().map(|d| perm.iter().map(|&p| d[p]).collect()).unwrap_or_default();
    TensorType::new(t.dtype, Shape::from_dims(d))
}

/// The permutation moving axis `a` of `r` axes to the front.
fn to_front(a: usize, r: usize) -> Vec<usize> {
    std::iter::once(a).chain((0..r).filter(|&i| i != a)).collect()
}

fn normalize(f: &mut Function, id: OpId) -> bool {
    let op = &f.ops[id];
    let m = op.attrs.int("num_scan_inputs").unwrap_or(0).max(0) as usize;
    let Some(n) = op.operands.len().checked_sub(m) else { return false };
    let in_axes = op.attrs.ints("scan_input_axes").unwrap_or(&[]).to_vec();
    let out_axes = op.attrs.ints("scan_output_axes").unwrap_or(&[]).to_vec();
    let rank = |v: Option<Value>| v.and_then(|v| f.ty(v).rank());
    // Every axis resolved first: nothing changes unless all of them are known.
    let mut ins = Vec::new();
    for (q, &a) in in_axes.iter().enumerate() {
        let x = op.operand(n + q);
        match (x, rank(x).and_then(|r| norm(a, r))) {
            (Some(x), Some(a)) if a != 0 => ins.push((n + q, x, a)),
            (_, Some(_)) => {}
            _ => return false,
        }
    }
    let mut outs = Vec::new();
    for (k, &b) in out_axes.iter().enumerate() {
        let Some(&y) = op.results.get(n + k) else { return false };
        match rank(Some(y)).and_then(|r| norm(b, r)) {
            Some(b) if b != 0 => outs.push((y, b)),
            Some(_) => {}
            None => return false,
        }
    }
    let loc = op.loc.clone();
    let (parent, mut at) = match position(f, id) {
        Some(p) => p,
        None => return false,
    };
    for (slot, x, a) in ins {
        let perm = to_front(a, f.ty(x).rank().unwrap_or(0));
        let ty = permuted(f.ty(x), &perm);
        let p: Vec<i64> = perm.iter().map(|&i| i as i64).collect();
        let t =
            f.create_op(Opcode::Transpose, [Some(x)], ir::Attrs::new().with("perm", Attr::Ints(p)), [ty], loc.clone());
        region_ops(f, parent).insert(at, t);
        at += 1;
        f.ops[id].operands[slot] = Some(f.result(t));
    }
    for (y, b) in outs {
        let old = f.ty(y).clone();
        let r = old.rank().unwrap_or(0);
        f.values[y].ty = permuted(&old, &to_front(b, r));
        // Back in place: dim j of the result is dim back[j] of the stacked value.
        let back: Vec<i64> = (0..r).map(|j| if j < b { j + 1 } else if j == b { 0 } else { j } as i64).collect();
        let t = f.create_op(
            Opcode::Transpose,
            [Some(y)],
            ir::Attrs::new().with("perm", Attr::Ints(back)),
            [old],
            loc.clone(),
        );
        let tv = f.result(t);
        f.replace_all_uses(y, tv);
        f.ops[t].operands[0] = Some(y);
        region_ops(f, parent).insert(at + 1, t);
    }
    let attrs = &mut f.ops[id].attrs;
    attrs.remove("scan_input_axes");
    attrs.remove("scan_output_axes");
    true
}

/// Where `id` sits: its region (`None` for the body, else the op and region
/// index) and its index there.
fn position(f: &Function, id: OpId) -> Option<(Option<(OpId, usize)>, usize)> {
    if let Some(i) = f.body.ops.iter().position(|&o| o == id) {
        return Some((None, i));
    }
    f.live_ops().into_iter().find_map(|p| {
        f.ops[p]
            .regions
            .iter()
            .enumerate()
            .find_map(|(r, reg)| reg.ops.iter().position(|&o| o == id).map(|i| (Some((p, r)), i)))
    })
}

fn region_ops(f: &mut Function, parent: Option<(OpId, usize)>) -> &mut Vec<OpId> {
    match parent {
        None => &mut f.body.ops,
        Some((p, r)) => &mut f.ops[p].regions[r].ops,
    }
}
