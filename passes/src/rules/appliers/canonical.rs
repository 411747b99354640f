//! Appliers and conditions of the `canonical` rule family
//! (`passes/rules/canonical.rules`): ONNX shape and reduction ops whose shape
//! or axes parameters are constant operands become the canonical `core.*` ops
//! with those parameters as static, normalized attributes
//! (see `ir::ops::layout::canonical` and `ir::ops::reduce`).
//!
//! Invariant of every applier: the node it adds computes bit for bit the value
//! of the matched onnx op, because the core op is defined as that onnx op
//! applied to constant operands, and each normalization (resolving 0 and -1
//! reshape entries, making axes non-negative and sorted, clamping slice
//! bounds) preserves the onnx op's result for every input of the matched type.
//! An applier declines (with the reason) when it cannot normalize, e.g. when a
//! needed rank or dim is unknown.

use super::ApplierDef;
use crate::egraph::analysis::is_absent;
use crate::rules::args::ArgVal;
use crate::rules::conds::CondDef;
use crate::rules::env::{text, ApplyEnv, Env};
use egg::Id;
use ir::{Attr, Attrs, Dim, Opcode};

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "canon_reshape",
        arity: 3..=3,
        signature: "x, shape, attrs",
        doc: "Reshape(x, const shape) as core.reshape: the result's static dims, or the shape with 0 entries \
              (allowzero = 0) resolved from x's static dims; a single dynamic copied dim becomes -1 when x's other \
              dims are static and pin it down",
        apply: reshape,
    },
    ApplierDef {
        name: "canon_squeeze",
        arity: 2..=2,
        signature: "x, axes",
        doc: "Squeeze(x, const axes) as core.squeeze with sorted non-negative axes; omitted axes are x's static \
              size-1 dims",
        apply: squeeze,
    },
    ApplierDef {
        name: "canon_unsqueeze",
        arity: 2..=2,
        signature: "x, axes",
        doc: "Unsqueeze(x, const axes) as core.unsqueeze with sorted non-negative output positions",
        apply: unsqueeze,
    },
    ApplierDef {
        name: "canon_reduce",
        arity: 4..=4,
        signature: "kind, x, axes, attrs",
        doc: "Reduce<kind>(x, const axes){keepdims} as core.reduce{kind, axes, keepdims}; omitted or empty axes are \
              all axes (declines with noop_with_empty_axes = 1)",
        apply: reduce,
    },
    ApplierDef {
        name: "canon_slice",
        arity: 5..=5,
        signature: "x, starts, ends, axes, steps",
        doc: "Slice with constant operands as core.slice: axes non-negative and sorted, steps explicit, starts and \
              ends clamped into range where the dim is static",
        apply: slice,
    },
    ApplierDef {
        name: "canon_expand",
        arity: 2..=2,
        signature: "x, shape",
        doc: "Expand(x, const shape) as core.expand; the shape is the result's dims when they are static",
        apply: expand,
    },
];

/// Conditions only this family uses (shared ones live in `rules::conds`).
pub static CONDS: &[CondDef] = &[CondDef {
    name: "canon_const_or_absent",
    arity: 1..=1,
    signature: "x",
    doc: "x is a constant or an omitted optional operand",
    check: const_or_absent,
}];

fn const_or_absent(e: &Env<'_>, a: &[ArgVal]) -> bool {
    e.konst(&a[0]).is_some() || e.class(&a[0]).is_some_and(|c| is_absent(e.eg, c))
}

/// The integer contents of a constant argument.
fn const_ints(e: &Env<'_>, a: &ArgVal, what: &str) -> Result<Vec<i64>, String> {
    e.konst(a).and_then(|c| c.to_i64s()).ok_or_else(|| format!("`{what}` is not an integer constant"))
}

/// Whether an argument names the omitted-operand leaf.
fn absent(e: &Env<'_>, a: &ArgVal) -> bool {
    e.class(a).is_some_and(|c| is_absent(e.eg, c))
}

/// The dims of the class an argument names, if ranked.
fn dims(e: &Env<'_>, a: &ArgVal) -> Option<Vec<Dim>> {
    e.ty(a).and_then(|t| t.dims()).map(<[Dim]>::to_vec)
}

/// The matched value's dims, if all static.
fn root_static_dims(e: &Env<'_>) -> Option<Vec<i64>> {
    let d = e.eg[e.root].data.ty()?.shape.static_dims()?;
    Some(d.into_iter().map(|x| x as i64).collect())
}

/// `axes` made non-negative against `rank` (needed only if some are negative)
/// and sorted; errors on out-of-range or repeated axes and on an empty list.
fn norm_sorted(axes: &[i64], rank: Option<usize>) -> Result<Vec<i64>, String> {
    let mut v = Vec::with_capacity(axes.len());
    for &x in axes {
        let n = match (x < 0, rank) {
            (false, _) => x,
            (true, Some(r)) => x + r as i64,
            (true, None) => return Err(format!("negative axis {x} with unknown rank")),
        };
        if n < 0 || rank.is_some_and(|r| n >= r as i64) {
            return Err(format!("axis {x} is out of range for rank {rank:?}"));
        }
        v.push(n);
    }
    v.sort_unstable();
    if v.is_empty() || v.windows(2).any(|w| w[0] == w[1]) {
        return Err(format!("axes {axes:?} are empty or repeat an axis"));
    }
    Ok(v)
}

/// Add `op(x)` with `attrs`, returning its class.
fn add(env: &mut ApplyEnv<'_>, op: Opcode, x: &ArgVal, attrs: Attrs) -> Result<Id, String> {
    let x = env.class(x)?;
    env.add_op(op, &[x], &attrs)
}

/// The core.reshape shape for onnx `spec` on input dims `inp`: 0 entries
/// (allowzero = 0) copy the input dim, which must be static, except that one
/// dynamic copied dim becomes -1 if the spec has no -1 and the other input dims
/// are static with the same non-zero product as the other output entries (so
/// the -1 can only resolve to the copied dim).
pub fn resolve_reshape(spec: &[i64], allowzero: bool, inp: Option<&[Dim]>) -> Result<Vec<i64>, String> {
    let mut out = spec.to_vec();
    let mut dynamic = None;
    if !allowzero {
        for (i, v) in out.iter_mut().enumerate().filter(|(_, v)| **v == 0) {
            let d = inp.and_then(|d| d.get(i)).ok_or("a 0 entry copies an input dim of unknown rank")?;
            match d.as_static() {
                Some(n) => *v = n as i64,
                None if dynamic.is_none() => dynamic = Some(i),
                None => return Err("two 0 entries copy dynamic input dims".into()),
            }
        }
    }
    let (Some(i), Some(inp)) = (dynamic, inp) else { return Ok(out) };
    if spec.contains(&-1) {
        return Err("a 0 entry copies a dynamic input dim and another entry is -1".into());
    }
    let rest_in: Option<u64> = inp.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, d)| d.as_static()).product();
    let rest_out: i64 = out.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, &v)| v).product();
    if rest_out <= 0 || rest_in != Some(rest_out as u64) {
        return Err("a 0 entry copies a dynamic input dim that the other dims do not pin down".into());
    }
    out[i] = -1;
    Ok(out)
}

fn reshape(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let e = env.env();
    let shape = match root_static_dims(&e) {
        Some(d) => d,
        None => {
            let spec = const_ints(&e, &a[1], "shape")?;
            let allowzero = e.attrs(&a[2]).and_then(|t| t.int("allowzero")).unwrap_or(0) != 0;
            resolve_reshape(&spec, allowzero, dims(&e, &a[0]).as_deref())?
        }
    };
    add(env, Opcode::CoreReshape, &a[0], Attrs::new().with("shape", Attr::Ints(shape)))
}

fn squeeze(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let e = env.env();
    let d = dims(&e, &a[0]);
    let axes = if absent(&e, &a[1]) {
        let d = d.ok_or("axes omitted and the input rank is unknown")?;
        if d.iter().any(|x| x.as_static().is_none()) {
            return Err("axes omitted and the input has dynamic dims".into());
        }
        let ones: Vec<i64> = (0..d.len()).filter(|&i| d[i] == Dim::Static(1)).map(|i| i as i64).collect();
        if ones.is_empty() {
            return Err("axes omitted and the input has no size-1 dim".into());
        }
        ones
    } else {
        norm_sorted(&const_ints(&e, &a[1], "axes")?, d.map(|d| d.len()))?
    };
    add(env, Opcode::CoreSqueeze, &a[0], Attrs::new().with("axes", Attr::Ints(axes)))
}

fn unsqueeze(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let e = env.env();
    let axes = const_ints(&e, &a[1], "axes")?;
    let rank = e.ty(&a[0]).and_then(|t| t.rank()).map(|r| r + axes.len());
    let axes = norm_sorted(&axes, rank)?;
    add(env, Opcode::CoreUnsqueeze, &a[0], Attrs::new().with("axes", Attr::Ints(axes)))
}

fn reduce(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let e = env.env();
    let kind = text(&a[0]).ok_or("the reduction kind must be a word")?.to_owned();
    let attrs = e.attrs(&a[3]).cloned().unwrap_or_default();
    let rank = e.ty(&a[1]).and_then(|t| t.rank());
    let axes = if absent(&e, &a[2]) { vec![] } else { const_ints(&e, &a[2], "axes")? };
    let axes = if !axes.is_empty() {
        norm_sorted(&axes, rank)?
    } else if attrs.int("noop_with_empty_axes").unwrap_or(0) != 0 {
        return Err("empty axes with noop_with_empty_axes = 1".into());
    } else {
        let r = rank.ok_or("empty axes (all axes) and the input rank is unknown")?;
        if r == 0 {
            return Err("reduction of a rank-0 input over all (no) axes".into());
        }
        (0..r as i64).collect()
    };
    let keepdims = i64::from(attrs.int("keepdims").unwrap_or(1) != 0);
    let out =
        Attrs::new().with("kind", Attr::Str(kind)).with("axes", Attr::Ints(axes)).with("keepdims", Attr::Int(keepdims));
    add(env, Opcode::CoreReduce, &a[1], out)
}

/// `(start, end)` of a slice over a static dim `n` with step `step`, clamped
/// exactly as ONNX clamps them: `[0, n]` for positive steps; for negative
/// steps the start is in `[0, n-1]` and the end in `[0, n-1]`, or `i64::MIN`
/// for "through index 0". An empty range has `end == start`.
pub fn clamp_slice(n: i64, start: i64, end: i64, step: i64) -> (i64, i64) {
    let adj = |x: i64| if x < 0 { x + n } else { x };
    if n == 0 {
        return (0, 0);
    }
    if step > 0 {
        let s = adj(start).clamp(0, n);
        (s, adj(end).clamp(0, n).max(s))
    } else {
        let s = adj(start).clamp(0, n - 1);
        let e = adj(end).clamp(-1, n - 1).min(s);
        (s, if e < 0 { i64::MIN } else { e })
    }
}

/// The constant list `a`, or `default` if the operand is omitted.
fn list_or(e: &Env<'_>, a: &ArgVal, what: &str, default: impl FnOnce() -> Vec<i64>) -> Result<Vec<i64>, String> {
    if absent(e, a) {
        Ok(default())
    } else {
        const_ints(e, a, what)
    }
}

fn slice(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let e = env.env();
    let d = dims(&e, &a[0]).ok_or("the input rank is unknown")?;
    let (starts, ends) = (const_ints(&e, &a[1], "starts")?, const_ints(&e, &a[2], "ends")?);
    let n = starts.len();
    let axes = list_or(&e, &a[3], "axes", || (0..n as i64).collect())?;
    let steps = list_or(&e, &a[4], "steps", || vec![1; n])?;
    if ends.len() != n || axes.len() != n || steps.len() != n || steps.contains(&0) {
        return Err("starts, ends, axes and steps differ in length or a step is 0".into());
    }
    norm_sorted(&axes, Some(d.len()))?;
    let mut rows: Vec<[i64; 4]> = Vec::with_capacity(n);
    for k in 0..n {
        let ax = if axes[k] < 0 { axes[k] + d.len() as i64 } else { axes[k] };
        let (s, en) = match d[ax as usize].as_static() {
            Some(len) => clamp_slice(len as i64, starts[k], ends[k], steps[k]),
            None => (starts[k], ends[k]),
        };
        rows.push([ax, s, en, steps[k]]);
    }
    rows.sort_unstable_by_key(|r| r[0]);
    let col = |i: usize| Attr::Ints(rows.iter().map(|r| r[i]).collect());
    let attrs = Attrs::new().with("axes", col(0)).with("starts", col(1)).with("ends", col(2)).with("steps", col(3));
    add(env, Opcode::CoreSlice, &a[0], attrs)
}

fn expand(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let e = env.env();
    let shape = match root_static_dims(&e) {
        Some(d) => d,
        None => const_ints(&e, &a[1], "shape")?,
    };
    add(env, Opcode::CoreExpand, &a[0], Attrs::new().with("shape", Attr::Ints(shape)))
}

#[cfg(test)]
mod tests {
    use super::{clamp_slice, norm_sorted, resolve_reshape};
    use crate::rules::RuleSet;
    use ir::Dim;

    #[test]
    fn canonical_rules_load() {
        let rs = RuleSet::builtin().unwrap_or_else(|e| panic!("{e}"));
        assert!(rs.only_topics(&["canonical"]).rules.len() >= 15);
    }

    #[test]
    fn reshape_resolution() {
        let s = |n| Dim::Static(n);
        let d = Dim::Unknown;
        assert_eq!(resolve_reshape(&[0, 0, 4, 16], false, Some(&[s(1), d, s(64)])), Ok(vec![1, -1, 4, 16]));
        assert_eq!(resolve_reshape(&[0, -1], false, Some(&[s(2), s(3), s(4)])), Ok(vec![2, -1]));
        assert!(resolve_reshape(&[0, 0, 64], false, Some(&[d, d, s(64)])).is_err());
        assert!(resolve_reshape(&[0, -1], false, Some(&[d, s(3), s(4)])).is_err());
        assert!(resolve_reshape(&[0, 3], false, Some(&[d, s(4)])).is_err());
        assert_eq!(resolve_reshape(&[0, 3], true, None), Ok(vec![0, 3]));
        assert!(resolve_reshape(&[0, 3], false, None).is_err());
    }

    #[test]
    fn slice_clamping() {
        assert_eq!(clamp_slice(5, -2, i64::MAX, 1), (3, 5));
        assert_eq!(clamp_slice(5, 4, 1, 1), (4, 4));
        assert_eq!(clamp_slice(5, -1, i64::MIN, -1), (4, i64::MIN));
        assert_eq!(clamp_slice(5, 9, -9, -2), (4, i64::MIN));
        assert_eq!(clamp_slice(5, 1, 3, -1), (1, 1));
        assert_eq!(clamp_slice(0, 1, 3, -1), (0, 0));
    }

    #[test]
    fn axes_normalization() {
        assert_eq!(norm_sorted(&[-1, 0], Some(3)), Ok(vec![0, 2]));
        assert!(norm_sorted(&[-1, 2], Some(3)).is_err());
        assert!(norm_sorted(&[], Some(3)).is_err());
        assert!(norm_sorted(&[-1], None).is_err());
        assert_eq!(norm_sorted(&[2, 1], None), Ok(vec![1, 2]));
    }
}
