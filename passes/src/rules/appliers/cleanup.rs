//! Appliers and conditions of the `cleanup` rule family, plus the appliers of
//! the `legalize` family (prefixed `legalize_`; legalize has no file of its own).
//!
//! Cleanup appliers are exact: the class they return computes bit-for-bit the
//! value of the matched class. Legalize appliers rewrite an op the target
//! lacks into ops it has; `legalize_gelu_tanh` is an approximation (see its doc).

use super::ApplierDef;
use crate::egraph::lang::ENode;
use crate::rules::args::ArgVal;
use crate::rules::conds::{norm_axes, CondDef};
use crate::rules::env::{ApplyEnv, Env};
use egg::Id;
use ir::{Attr, Attrs, Constant, DType, Opcode};

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "cleanup_transpose_compose",
        arity: 3..=3,
        signature: "x, inner_attrs, outer_attrs",
        doc: "Transpose(Transpose(x, p1), p2) as one Transpose(x, p1∘p2); declines when the composition is the identity",
        apply: transpose_compose,
    },
    ApplierDef {
        name: "cleanup_sink_transpose",
        arity: 4..=4,
        signature: "x, perm_attrs, c, Add|Sub|Mul",
        doc: "op(Transpose(x, p), c) as Transpose(op(x, c'), p), c' the constant c (rank-padded) transposed by p⁻¹; \
          declines when c would widen the result",
        apply: sink_transpose,
    },
    ApplierDef {
        name: "cleanup_sink_transpose_pair",
        arity: 4..=4,
        signature: "a, perm_attrs_a, b, perm_attrs_b",
        doc: "Add(Transpose(a, p), Transpose(b, p)) as Transpose(Add(a, b), p) for a and b of one type; declines on \
          different permutations or shapes",
        apply: sink_transpose_pair,
    },
    ApplierDef {
        name: "cleanup_reshape_reshape",
        arity: 3..=3,
        signature: "x, outer_shape, outer_attrs",
        doc: "Reshape(Reshape(x, s1), s2) as Reshape(x, s2), or as Reshape(x, static result shape) when s2 copies dims (0 entries)",
        apply: reshape_reshape,
    },
    ApplierDef {
        name: "legalize_gelu_tanh",
        arity: 1..=1,
        signature: "x",
        doc: "Gelu(x) as Gelu{approximate=tanh}(x) (max abs error ~4.8e-4); declines if the target cannot run that either",
        apply: gelu_tanh,
    },
    ApplierDef {
        name: "legalize_layer_norm",
        arity: 4..=4,
        signature: "x, scale, bias, attrs",
        doc: "LayerNormalization as ReduceMean/Sub/Mul/ReduceMean/Add/Sqrt/Div/Mul(/Add), f32 only",
        apply: layer_norm,
    },
];

/// Conditions only this family uses (shared ones live in `rules::conds`).
pub static CONDS: &[CondDef] = &[
    CondDef {
        name: "cleanup_perms_cancel",
        arity: 3..=3,
        signature: "inner_attrs, outer_attrs, x",
        doc: "Transpose(Transpose(x, inner), outer) is the identity permutation",
        check: perms_cancel,
    },
    CondDef {
        name: "cleanup_is_false",
        arity: 1..=1,
        signature: "x",
        doc: "x is a non-empty bool constant whose elements are all false",
        check: is_false,
    },
    CondDef {
        name: "cleanup_axes_equal",
        arity: 3..=3,
        signature: "a, b, x",
        doc: "constant axes a and b name the same axes of x (both normalized against rank(x))",
        check: axes_equal,
    },
    CondDef {
        name: "cleanup_positive_steps",
        arity: 1..=1,
        signature: "steps",
        doc: "Slice steps are omitted (all 1) or a constant whose entries are all > 0",
        check: positive_steps,
    },
];

/// The permutation of a Transpose's attributes for an input of rank `rank`
/// (ONNX default: reversed axes); `None` if it is not a permutation of `0..rank`.
fn perm_of(attrs: &Attrs, rank: usize) -> Option<Vec<usize>> {
    let p: Vec<usize> = match attrs.ints("perm") {
        Some(p) => p.iter().map(|&v| usize::try_from(v).ok()).collect::<Option<_>>()?,
        None => (0..rank).rev().collect(),
    };
    let mut seen = vec![false; rank];
    let ok = p.len() == rank && p.iter().all(|&v| v < rank && !std::mem::replace(&mut seen[v], true));
    ok.then_some(p)
}

/// The permutation of the Transpose attributes bound to `arg`, or why not.
fn perm_arg(e: &Env<'_>, arg: &ArgVal, rank: usize) -> Result<Vec<usize>, String> {
    perm_of(e.attrs(arg).ok_or("perm attributes are not bound")?, rank).ok_or_else(|| "malformed perm".into())
}

/// `outer ∘ inner`: `result[j] = inner[outer[j]]` (dim `j` of the outer
/// result is dim `inner[outer[j]]` of `x`). `None` if either is malformed.
fn composed_perm(e: &Env<'_>, inner: &ArgVal, outer: &ArgVal, x: &ArgVal) -> Option<Vec<usize>> {
    let rank = e.ty(x)?.rank()?;
    let p1 = perm_of(e.attrs(inner)?, rank)?;
    let p2 = perm_of(e.attrs(outer)?, rank)?;
    Some(p2.iter().map(|&j| p1[j]).collect())
}

fn perms_cancel(e: &Env<'_>, a: &[ArgVal]) -> bool {
    composed_perm(e, &a[0], &a[1], &a[2]).is_some_and(|q| q.iter().enumerate().all(|(i, &v)| v == i))
}

fn is_false(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let Some(c) = e.konst(&a[0]) else { return false };
    c.ty.dtype == DType::Bool && c.bytes().is_some_and(|b| !b.is_empty() && b.iter().all(|&x| x == 0))
}

fn axes_equal(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let Some(r) = e.ty(&a[2]).and_then(|t| t.rank()) else { return false };
    match (norm_axes(e, &a[0], r as i64), norm_axes(e, &a[1], r as i64)) {
        (Some(x), Some(y)) => !x.is_empty() && x == y,
        _ => false,
    }
}

fn positive_steps(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let Some(c) = e.class(&a[0]) else { return false };
    if crate::egraph::analysis::is_absent(e.eg, c) {
        return true;
    }
    e.konst(&a[0]).and_then(|k| k.to_i64s()).is_some_and(|v| v.iter().all(|&s| s > 0))
}

fn transpose_compose(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let q = composed_perm(&env.env(), &a[1], &a[2], &a[0]).ok_or("permutations or the input rank are unknown")?;
    if q.iter().enumerate().all(|(i, &v)| v == i) {
        return Err("the composition is the identity (transpose-transpose-cancel applies)".into());
    }
    let x = env.class(&a[0])?;
    let attrs = Attrs::new().with("perm", Attr::Ints(q.iter().map(|&v| v as i64).collect()));
    env.add_op(Opcode::Transpose, &[x], &attrs)
}

/// `op(Transpose(x, p), c) = Transpose(op(x, c'), p)`: `c` padded to `x`'s
/// rank with leading ones and transposed by `p⁻¹` (both ops on constants,
/// which the analysis folds). Exact: every element meets the same operands.
/// Only when `c` broadcasts into the result without widening it.
fn sink_transpose(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let op = super::op_word(&a[3])?;
    let e = env.env();
    let xt = e.ty(&a[0]).ok_or("x has no type")?;
    let dims = xt.dims().ok_or("x has no known rank")?.to_vec();
    let p = perm_arg(&e, &a[1], dims.len())?;
    let cd = e.ty(&a[2]).and_then(|t| t.shape.static_dims()).ok_or("c has no static shape")?.to_vec();
    let pad = dims.len().checked_sub(cd.len()).ok_or("c has a higher rank than x")?;
    let padded: Vec<u64> = std::iter::repeat_n(1, pad).chain(cd.iter().copied()).collect();
    // Dim j of the transposed result is dim p[j] of x: c's dim j must be 1 or that.
    if padded.iter().enumerate().any(|(j, &d)| d != 1 && dims[p[j]] != ir::Dim::Static(d)) {
        return Err("c widens the result (it broadcasts x)".into());
    }
    let mut inv = vec![0usize; p.len()];
    p.iter().enumerate().for_each(|(j, &pj)| inv[pj] = j);
    let (x, c) = (env.class(&a[0])?, env.class(&a[2])?);
    let vals: Vec<i64> = padded.iter().map(|&d| d as i64).collect();
    let shape = env.add_const(Constant::from_i64s("", &[vals.len() as u64], &vals));
    let cr = env.add_op(Opcode::Reshape, &[c, shape], &Attrs::new())?;
    let perm = |q: &[usize]| Attrs::new().with("perm", Attr::Ints(q.iter().map(|&v| v as i64).collect()));
    let ct = env.add_op(Opcode::Transpose, &[cr], &perm(&inv))?;
    let inner = env.add_op(op, &[x, ct], &Attrs::new())?;
    env.add_op(Opcode::Transpose, &[inner], &perm(&p))
}

/// `Add(Transpose(a, p), Transpose(b, p)) = Transpose(Add(a, b), p)` when
/// `a` and `b` have one type (no broadcasting): exact, elementwise.
fn sink_transpose_pair(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let e = env.env();
    let (ta, tb) = (e.ty(&a[0]).ok_or("a has no type")?, e.ty(&a[2]).ok_or("b has no type")?);
    if ta != tb {
        return Err(format!("operands {ta} and {tb} differ (broadcasting)"));
    }
    let rank = ta.rank().ok_or("unknown rank")?;
    let (p, q) = (perm_arg(&e, &a[1], rank)?, perm_arg(&e, &a[3], rank)?);
    if p != q {
        return Err(format!("permutations {p:?} and {q:?} differ"));
    }
    let attrs = e.attrs(&a[1]).cloned().unwrap_or_default();
    let (x, y) = (env.class(&a[0])?, env.class(&a[2])?);
    let sum = env.add_op(Opcode::Add, &[x, y], &Attrs::new())?;
    env.add_op(Opcode::Transpose, &[sum], &attrs)
}

fn reshape_reshape(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let e = env.env();
    let allowzero = e.attrs(&a[2]).and_then(|t| t.int("allowzero")).unwrap_or(0) != 0;
    let spec_ok = e.konst(&a[1]).and_then(|c| c.to_i64s()).is_some_and(|v| allowzero || !v.contains(&0));
    if spec_ok {
        let (s2, attrs) = (env.class(&a[1])?, e.attrs(&a[2]).cloned().unwrap_or_default());
        return env.add_op(Opcode::Reshape, &[x, s2], &attrs);
    }
    let root = env.eg[env.root].data.ty().and_then(|t| t.shape.static_dims()).map(|d| d.to_vec());
    let dims = root.ok_or("outer shape is not a constant free of 0 entries and the result shape is not static")?;
    let vals: Vec<i64> = dims.iter().map(|&d| d as i64).collect();
    let shape = env.add_const(Constant::from_i64s("", &[vals.len() as u64], &vals));
    env.add_op(Opcode::Reshape, &[x, shape], &Attrs::new())
}

/// GELU with the tanh approximation instead of erf. Not exact: over all real
/// inputs `|gelu_tanh(x) - gelu_erf(x)| <= 4.8e-4` (the maximum, ~4.73e-4, is
/// near x = ±2.7), so tests compare with an absolute tolerance of ~1e-3.
/// Declines when a target is set and does not run the tanh form either (the
/// approximation would then buy nothing).
fn gelu_tanh(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let attrs = Attrs::new().with("approximate", Attr::Str("tanh".into()));
    if let Some(t) = env.target {
        let k = env.eg.analysis.attrs.intern(&attrs);
        let leaf = env.eg.add(ENode::Attrs(k));
        let node = ENode::Op { op: Opcode::Gelu, results: 1, args: [x, leaf].into_iter().collect() };
        t.supports(env.eg, env.root, &node).map_err(|why| format!("the target lacks tanh-GELU too: {why}"))?;
    }
    env.add_op(Opcode::Gelu, &[x], &attrs)
}

/// `LayerNormalization(X, Scale, B) {axis, epsilon}` over axes `[axis, rank)`:
/// `d = X - ReduceMean(X)`, `Y = d / Sqrt(ReduceMean(d*d) + epsilon) * Scale (+ B)`.
/// Equal up to rounding (the decomposed form rounds each step to f32).
/// Declines for non-f32 inputs, unknown rank, `stash_type != 1`, or if the
/// decomposition would not have the root's type.
fn layer_norm(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let (x, scale, bias) = (env.class(&a[0])?, env.class(&a[1])?, env.class(&a[2])?);
    let e = env.env();
    let attrs = e.attrs(&a[3]).cloned().unwrap_or_default();
    let ty = e.ty(&a[0]).ok_or("input type unknown")?.clone();
    if ty.dtype != DType::F32 {
        return Err(format!("only f32 is decomposed (input is {})", ty.dtype));
    }
    if attrs.int("stash_type").is_some_and(|s| s != 1) {
        return Err("stash_type other than 1 (f32) is not decomposed".into());
    }
    let rank = ty.rank().ok_or("input rank unknown")? as i64;
    let axis = attrs.int("axis").unwrap_or(-1);
    let axis = if axis < 0 { axis + rank } else { axis };
    if !(0..rank).contains(&axis) {
        return Err(format!("axis {axis} out of range for rank {rank}"));
    }
    let eps = attrs.float("epsilon").unwrap_or(1e-5);
    let axes: Vec<i64> = (axis..rank).collect();
    let axes = env.add_const(Constant::from_i64s("", &[axes.len() as u64], &axes));
    let eps = env.add_const(Constant::from_f32s("", &[], &[eps]));
    let keep = Attrs::new().with("keepdims", Attr::Int(1));
    let none = Attrs::new();
    let mean = env.add_op(Opcode::ReduceMean, &[x, axes], &keep)?;
    let d = env.add_op(Opcode::Sub, &[x, mean], &none)?;
    let sq = env.add_op(Opcode::Mul, &[d, d], &none)?;
    let var = env.add_op(Opcode::ReduceMean, &[sq, axes], &keep)?;
    let ve = env.add_op(Opcode::Add, &[var, eps], &none)?;
    let std = env.add_op(Opcode::Sqrt, &[ve], &none)?;
    let n = env.add_op(Opcode::Div, &[d, std], &none)?;
    let mut y = env.add_op(Opcode::Mul, &[n, scale], &none)?;
    if !env.absent(bias) {
        y = env.add_op(Opcode::Add, &[y, bias], &none)?;
    }
    let (got, want) = (env.eg[y].data.ty(), env.eg[env.root].data.ty());
    if got != want {
        return Err(format!("decomposition has type {got:?}, the LayerNormalization {want:?}"));
    }
    Ok(y)
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleSet;

    #[test]
    fn builtin_rules_load() {
        let rs = RuleSet::builtin().unwrap_or_else(|e| panic!("{e}"));
        for topic in ["cleanup", "legalize"] {
            assert!(!rs.only_topics(&[topic]).rules.is_empty(), "no {topic} rules");
        }
    }

    #[test]
    fn perm_of_default_and_invalid() {
        let a = ir::Attrs::new();
        assert_eq!(super::perm_of(&a, 3), Some(vec![2, 1, 0]));
        let bad = ir::Attrs::new().with("perm", ir::Attr::Ints(vec![0, 0]));
        assert_eq!(super::perm_of(&bad, 2), None);
    }
}
