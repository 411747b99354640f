//! Appliers of the `recognition` rule family: LayerNorm, Softmax and
//! scaled dot-product attention recognized from their decomposed forms
//! (GELU needs no applier: its rules rewrite to a plain pattern).
//!
//! Invariant of every applier here: the node it returns has a type that meets
//! the matched class's type (checked before the node is added), so a
//! recognition never records a type conflict in the e-graph; anything that
//! cannot be checked declines with a reason.

use super::ApplierDef;
use crate::egraph::analysis::{infer_node, tensor_to_const, EAnalysis};
use crate::egraph::lang::ENode;
use crate::rules::args::ArgVal;
use crate::rules::conds::{norm_axes, CondDef};
use crate::rules::env::{text, ApplyEnv, Env};
use egg::Id;
use ir::infer::meet_type;
use ir::interp::{eval_op, Tensor};
use ir::{Attr, Attrs, Constant, DType, Opcode, TensorType};
use smallvec::SmallVec;
use std::sync::Arc;

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "layer_norm",
        arity: 3..=3,
        signature: "x, axes, eps",
        doc: "LayerNormalization(x, Scale = ones){axis = -len(axes), epsilon = eps}: the normalization core",
        apply: layer_norm,
    },
    ApplierDef {
        name: "ln_affine",
        arity: 4..=4,
        signature: "x, ln_attrs, gamma, beta|none",
        doc: "LayerNormalization(x, gamma, beta){ln_attrs}, gamma/beta materialized to the normalized shape",
        apply: ln_affine,
    },
    ApplierDef {
        name: "softmax",
        arity: 2..=2,
        signature: "x, axes",
        doc: "Softmax(x){axis} for a single constant axis (negative form)",
        apply: softmax,
    },
    ApplierDef {
        name: "attention",
        arity: 5..=9,
        signature: "q, kt, v, mask|none, softmax_attrs, (mul|div, factor)*",
        doc: "core.attention(Q, K, V, mask){scale = product of the factors}, K = Kt with the last two dims swapped",
        apply: attention,
    },
];

/// Conditions only this family uses (shared ones live in `rules::conds`).
pub static CONDS: &[CondDef] = &[
    CondDef {
        name: "recog_same_axes",
        arity: 3..=3,
        signature: "a, b, x",
        doc: "constant axes a and b name the same axes of x (after normalizing negative axes)",
        check: same_axes,
    },
    CondDef {
        name: "recog_types_meet",
        arity: 2..=2,
        signature: "x, y",
        doc: "x and y have the same element type and rank and no contradicting dim",
        check: types_meet,
    },
];

fn same_axes(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let Some(r) = e.ty(&a[2]).and_then(|t| t.rank()) else { return false };
    match (norm_axes(e, &a[0], r as i64), norm_axes(e, &a[1], r as i64)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

fn types_meet(e: &Env<'_>, a: &[ArgVal]) -> bool {
    match (e.ty(&a[0]), e.ty(&a[1])) {
        (Some(x), Some(y)) => x.rank().is_some() && meet_type(x, y).is_ok(),
        _ => false,
    }
}

/// The type of class `c`, if it is a single value.
pub(crate) fn ty(env: &ApplyEnv<'_>, c: Id) -> Option<TensorType> {
    env.eg[c].data.ty().cloned()
}

/// The constant value of class `c`.
pub(crate) fn konst(env: &ApplyEnv<'_>, c: Id) -> Option<Arc<Constant>> {
    EAnalysis::const_of(env.eg, c).cloned()
}

/// The value of a one-element numeric constant.
pub(crate) fn scalar_value(env: &ApplyEnv<'_>, c: Id, what: &str) -> Result<f64, String> {
    let k = konst(env, c).ok_or_else(|| format!("{what} is not a constant"))?;
    match k.to_f64s().as_deref() {
        Some([v]) => Ok(*v),
        _ => Err(format!("{what} is not a one-element numeric constant")),
    }
}

/// Add `op(operands){attrs}` after checking that its type meets the matched
/// class's type; trailing optional operands are padded with the absent leaf.
pub(crate) fn add_checked(env: &mut ApplyEnv<'_>, op: Opcode, operands: &[Id], attrs: &Attrs) -> Result<Id, String> {
    let mut args: SmallVec<[Id; 4]> = operands.iter().copied().collect();
    while args.len() < op.def().operands.len() {
        args.push(env.none());
    }
    let a = env.eg.analysis.attrs.intern(attrs);
    args.push(env.eg.add(ENode::Attrs(a)));
    let tys = infer_node(env.eg, op, 1, &args).map_err(|e| format!("{} would not type-check: {e}", op.name()))?;
    if let Some(want) = env.eg[env.root].data.ty() {
        meet_type(want, &tys[0]).map_err(|e| format!("{} would change the type: {e}", op.name()))?;
    }
    Ok(env.eg.add(ENode::Op { op, results: 1, args }))
}

/// Evaluate one op on constant tensors.
pub(crate) fn eval1(op: Opcode, inputs: Vec<Tensor>, attrs: Attrs) -> Result<Tensor, String> {
    let inputs: Vec<Option<Tensor>> = inputs.into_iter().map(Some).collect();
    eval_op(op, &inputs, attrs, 1)?.pop().ok_or_else(|| format!("{} produced no result", op.name()))
}

/// A constant of `dtype` and shape `dims` with every element `v`.
pub(crate) fn filled(dtype: DType, dims: &[u64], v: f32) -> Result<Constant, String> {
    let one = eval1(Opcode::Cast, vec![Tensor::scalar_f32(v)], Attrs::new().with("to", Attr::Type(dtype)))?;
    let shape = Tensor::from_i64s(dims.iter().map(|&d| d as i64).collect());
    let t = eval1(Opcode::Expand, vec![one, shape], Attrs::new())?;
    tensor_to_const(&t).ok_or_else(|| "cannot store the constant".to_owned())
}

/// The static normalized dims of `x` (its last `k`).
fn normalized_dims(x: &TensorType, k: usize) -> Result<Vec<u64>, String> {
    let dims = x.dims().ok_or("x has an unknown rank")?;
    if k == 0 || k > dims.len() {
        return Err(format!("cannot normalize {k} axes of a rank-{} tensor", dims.len()));
    }
    dims[dims.len() - k..]
        .iter()
        .map(|d| d.as_static())
        .collect::<Option<Vec<u64>>>()
        .ok_or_else(|| format!("the normalized dims of {x} are not static"))
}

fn layer_norm(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let (x, axes, eps) = (env.class(&a[0])?, env.class(&a[1])?, env.class(&a[2])?);
    let xt = ty(env, x).ok_or("x has no type")?;
    if !xt.dtype.is_float() {
        return Err(format!("x has the non-float type {xt}"));
    }
    let k = konst(env, axes).ok_or("the axes are not constant")?.num_elements();
    let ndims = normalized_dims(&xt, k)?;
    let eps = scalar_value(env, eps, "epsilon")?;
    let ones = env.add_const(filled(xt.dtype, &ndims, 1.0)?);
    let attrs = Attrs::new().with("axis", Attr::Int(-(k as i64))).with("epsilon", Attr::Float(eps as f32));
    add_checked(env, Opcode::LayerNormalization, &[x, ones], &attrs)
}

/// `gamma`/`beta` with exactly the normalized shape `nd` of a rank-`r` input:
/// the class itself if it already has that type, else a constant broadcast
/// to it; `Err` if it would broadcast over non-normalized dims.
fn materialize(env: &mut ApplyEnv<'_>, c: Id, r: usize, nd: &[u64], dtype: DType) -> Result<Id, String> {
    let t = ty(env, c).ok_or("it has no type")?;
    if t.dtype != dtype {
        return Err(format!("its type {t} differs from x's element type {dtype}"));
    }
    let gd = t.shape.static_dims().ok_or_else(|| format!("its type {t} is not static"))?;
    if gd == nd {
        return Ok(c);
    }
    let k =
        konst(env, c).ok_or_else(|| format!("it is not a constant and its type {t} is not the normalized shape"))?;
    let lead = r - nd.len();
    let fits = gd.len() <= r
        && gd.iter().enumerate().all(|(i, &d)| {
            let j = r - gd.len() + i;
            if j < lead {
                d == 1
            } else {
                d == 1 || d == nd[j - lead]
            }
        });
    if !fits {
        return Err(format!("{t} does not broadcast to the normalized shape {nd:?} alone"));
    }
    let tail: Vec<i64> = gd[gd.len().saturating_sub(nd.len())..].iter().map(|&d| d as i64).collect();
    let reshaped = eval1(Opcode::Reshape, vec![Tensor::from_constant(&k)?, Tensor::from_i64s(tail)], Attrs::new())?;
    let shape = Tensor::from_i64s(nd.iter().map(|&d| d as i64).collect());
    let full = eval1(Opcode::Expand, vec![reshaped, shape], Attrs::new())?;
    Ok(env.add_const(tensor_to_const(&full).ok_or("cannot store the constant")?))
}

fn ln_affine(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let attrs = env.env().attrs(&a[1]).cloned().ok_or("no LayerNormalization attributes")?;
    let xt = ty(env, x).ok_or("x has no type")?;
    let r = xt.rank().ok_or("x has an unknown rank")?;
    let axis = attrs.int("axis").unwrap_or(-1);
    let axis = if axis < 0 { axis + r as i64 } else { axis };
    if !(0..r as i64).contains(&axis) {
        return Err(format!("axis {axis} out of range for rank {r}"));
    }
    let nd = normalized_dims(&xt, r - axis as usize)?;
    let mut operands = vec![x];
    for (i, what) in [(2, "gamma"), (3, "beta")] {
        if matches!(&a[i], ArgVal::Word(w) if w == "none") {
            continue;
        }
        let c = env.class(&a[i])?;
        operands.push(materialize(env, c, r, &nd, xt.dtype).map_err(|e| format!("{what}: {e}"))?);
    }
    add_checked(env, Opcode::LayerNormalization, &operands, &attrs)
}

fn softmax(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let r = ty(env, x).and_then(|t| t.rank()).ok_or("x has an unknown rank")? as i64;
    let axes = norm_axes(&env.env(), &a[1], r).ok_or("the axes are not constant axes of x")?;
    let [axis] = axes[..] else { return Err(format!("softmax needs exactly one axis, found {axes:?}")) };
    add_checked(env, Opcode::Softmax, &[x], &Attrs::new().with("axis", Attr::Int(axis - r)))
}

/// Permutation swapping the last two of `r` dims.
fn swap_last_two(r: usize) -> Vec<i64> {
    let mut p: Vec<i64> = (0..r as i64).collect();
    p.swap(r - 2, r - 1);
    p
}

/// K such that Kt = K with its last two dims swapped: the input of a
/// swapping Transpose in Kt's class, else a Transpose composed with one found
/// there, else a new Transpose of Kt.
pub(crate) fn untranspose(env: &mut ApplyEnv<'_>, kt: Id) -> Result<Id, String> {
    let r = ty(env, kt).and_then(|t| t.rank()).ok_or("Kt has an unknown rank")?;
    if r < 2 {
        return Err(format!("Kt has rank {r} < 2"));
    }
    let swap = swap_last_two(r);
    let transposes: Vec<(Id, Vec<i64>)> = env.eg[kt]
        .nodes
        .iter()
        .filter_map(|n| match n {
            ENode::Op { op: Opcode::Transpose, results: 1, .. } => {
                let perm = EAnalysis::attrs_of(env.eg, n.attrs_id()?)?.ints("perm")?.to_vec();
                Some((env.eg.find(*n.operands().first()?), perm))
            }
            _ => None,
        })
        .filter(|(_, p)| p.len() == r)
        .collect();
    if let Some((k, _)) = transposes.iter().find(|(_, p)| *p == swap) {
        return Ok(*k);
    }
    let (src, perm) = match transposes.first() {
        Some((y, p)) => (*y, swap.iter().map(|&i| p[i as usize]).collect::<Vec<i64>>()),
        None => (kt, swap),
    };
    if perm.iter().enumerate().all(|(i, &p)| p == i as i64) {
        return Ok(src);
    }
    env.add_op(Opcode::Transpose, &[src], &Attrs::new().with("perm", Attr::Ints(perm)))
}

/// The product of the `(mul|div, factor)*` scale arguments.
pub(crate) fn scale_of(env: &ApplyEnv<'_>, args: &[ArgVal]) -> Result<f64, String> {
    if !args.len().is_multiple_of(2) {
        return Err("scale factors come in (mul|div, factor) pairs".into());
    }
    let mut scale = 1.0;
    for pair in args.chunks(2) {
        let v = scalar_value(env, env.class(&pair[1])?, "the scale")?;
        match text(&pair[0]) {
            Some("mul") => scale *= v,
            Some("div") if v != 0.0 => scale /= v,
            Some("div") => return Err("division by a zero scale".into()),
            other => return Err(format!("unknown scale mode {other:?} (expected mul or div)")),
        }
    }
    if !scale.is_finite() {
        return Err(format!("the scale {scale} is not finite"));
    }
    Ok(scale)
}

fn attention(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let (q, kt, v) = (env.class(&a[0])?, env.class(&a[1])?, env.class(&a[2])?);
    let mask = match &a[3] {
        ArgVal::Word(w) if w == "none" => None,
        m => Some(env.class(m)?),
    };
    let rq = ty(env, q).and_then(|t| t.rank()).ok_or("Q has an unknown rank")?;
    let rk = ty(env, kt).and_then(|t| t.rank()).ok_or("Kt has an unknown rank")?;
    if rq < 2 || rk < 2 {
        return Err(format!("Q (rank {rq}) and Kt (rank {rk}) must have rank >= 2"));
    }
    let scores_rank = rq.max(rk) as i64;
    let axis = env.env().attrs(&a[4]).and_then(|x| x.int("axis")).unwrap_or(-1);
    if axis != -1 && axis != scores_rank - 1 {
        return Err(format!("Softmax axis {axis} is not the last axis of the rank-{scores_rank} scores"));
    }
    let scale = scale_of(env, &a[5..])?;
    let k = untranspose(env, kt)?;
    let mut operands = vec![q, k, v];
    operands.extend(mask);
    add_checked(env, Opcode::CoreAttention, &operands, &Attrs::new().with("scale", Attr::Float(scale as f32)))
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleSet;

    #[test]
    fn recognition_rules_load() {
        let rs = RuleSet::builtin().expect("built-in rules load");
        let n = rs.rules.iter().filter(|r| r.topic == "recognition").count();
        assert!(n >= 25, "only {n} recognition rules");
    }

    #[test]
    fn filled_constant_has_shape_and_value() {
        let c = super::filled(ir::DType::F32, &[2, 3], 1.0).expect("constant");
        assert_eq!(c.ty.to_string(), "f32[2, 3]");
        assert_eq!(c.to_f64s(), Some(vec![1.0; 6]));
    }
}
