//! Appliers and conditions of the `fusion` rule family (`passes/rules/fusion.rules`):
//! canonicalization of `onnx.Conv`/`ConvTranspose`/`MatMul`/`Gemm` into the fused
//! `core.conv`/`core.conv_transpose`/`core.linear`, then bias, scale and
//! BatchNormalization folding into their weights and activation epilogues.
//!
//! Invariant of every applier: it only rebuilds a *fusable* node (one of
//! [`FUSABLE`] whose `act` is `none`) found in the class the rule names, with the
//! same input `X`/`A`, so the result is the matched value up to floating-point
//! rounding; weight and bias constants are computed in `f64` and rounded once to
//! the element type (`f32` or `f64`; other types decline).

mod symbolic;
mod weights;

use super::ApplierDef;
use crate::egraph::analysis::EAnalysis;
use crate::egraph::lang::ENode;
use crate::rules::args::ArgVal;
use crate::rules::conds::{CondDef, FUSABLE};
use crate::rules::env::{num, text, ApplyEnv, Env};
use egg::Id;
use ir::ops::elementwise::Activation;
use ir::{Attr, Attrs, Opcode};

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "fuse_activation",
        arity: 2..=4,
        signature: "f, act, [alpha | attrs], [beta]",
        doc: "rebuild the fusable conv/linear of class f with activation act; parameters are numbers, scalar \
              constants, absent operands, or the attrs of the activation op (alpha/beta/approximate)",
        apply: fuse_activation,
    },
    ApplierDef {
        name: "fuse_bias",
        arity: 2..=3,
        signature: "f, c, [sub]",
        doc: "add (or with `sub`, subtract) the per-output-channel constant c to the bias of the fusable op of f",
        apply: weights::fuse_bias,
    },
    ApplierDef {
        name: "fold_scale",
        arity: 2..=3,
        signature: "f, k, [div]",
        doc: "multiply (or with `div`, divide) the weights and bias of the fusable op of f by the per-output-channel \
              constant k",
        apply: weights::fold_scale,
    },
    ApplierDef {
        name: "fold_batchnorm",
        arity: 6..=6,
        signature: "f, scale, B, mean, var, attrs",
        doc:
            "fold an inference BatchNormalization (epsilon from attrs) into the weights and bias of the fusable op of f",
        apply: weights::fold_batchnorm,
    },
    ApplierDef {
        name: "fold_batchnorm_static",
        arity: 6..=6,
        signature: "f, scale, B, mean, var, attrs",
        doc: "fold an inference BatchNormalization into a core.conv whose weights or BN parameters are static but \
              not constants: the folded weights and bias as static ops (computed once)",
        apply: symbolic::fold_batchnorm_static,
    },
    ApplierDef {
        name: "gemm_to_linear",
        arity: 4..=4,
        signature: "A, B, C, attrs",
        doc: "onnx.Gemm with transA = 0, alpha = 1 and beta = 1 (or no C, or beta = 0) as core.linear; C must be \
              a row vector ([N], [1, N] or a scalar)",
        apply: gemm_to_linear,
    },
];

/// Conditions only this family uses (shared ones live in `rules::conds`).
pub static CONDS: &[CondDef] = &[
    CondDef {
        name: "fusion_uses_inside",
        arity: 2..=2,
        signature: "root, f",
        doc: "every use of f in the input graph lies inside root's expression (reached through values used once), \
              e.g. both uses of x in x * Sigmoid(x)",
        check: uses_inside,
    },
    CondDef {
        name: "fusion_attr_approx",
        arity: 4..=5,
        signature: "attrs, key, value, tol, default",
        doc: "float attribute key (or default when absent) is within tol of value",
        check: attr_approx,
    },
    CondDef {
        name: "fusion_bcast_scalar",
        arity: 2..=2,
        signature: "k, x",
        doc: "k is a one-element constant whose rank is at most x's, so broadcasting k against x keeps x's shape",
        check: bcast_scalar,
    },
];

/// How deep [`uses_inside`] follows the matched expression.
const INSIDE_DEPTH: usize = 6;
/// Bound on the e-nodes [`uses_inside`] visits, so a large e-graph cannot make it slow.
const INSIDE_BUDGET: usize = 512;

/// `fusion_uses_inside(root, f)`: every use of `f` in the input graph lies in
/// the expression of `root`. Counts the references to `f` reachable from a
/// node of `root` through classes used at most once (constants excluded), at
/// most [`INSIDE_DEPTH`] deep, taking the largest count over each class's
/// nodes; holds if that count reaches `f`'s use count. So `Relu(f)` with `f`
/// single-use holds, and so does a `Gelu(f)` recognized from a decomposition
/// that used `f` twice; an outside use (or a shared intermediate) makes the
/// count fall short.
fn uses_inside(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let (Some(root), Some(f)) = (e.class(&a[0]), e.class(&a[1])) else { return false };
    let want = e.eg[f].data.orig_uses.max(1) as usize;
    let mut budget = INSIDE_BUDGET;
    let best = e.eg[root].nodes.iter().map(|n| refs_to(e, n, f, INSIDE_DEPTH, &mut budget)).max();
    budget > 0 && best.is_some_and(|c| c >= want)
}

/// References to `f` from the operands of `n` through single-use classes.
fn refs_to(e: &Env<'_>, n: &ENode, f: Id, depth: usize, budget: &mut usize) -> usize {
    if *budget == 0 {
        return 0;
    }
    *budget -= 1;
    let mut count = 0;
    for &c in n.operands() {
        let c = e.eg.find(c);
        let d = &e.eg[c].data;
        if c == f {
            count += 1;
        } else if depth > 0 && d.konst.is_none() && d.orig_uses <= 1 {
            let nodes = &e.eg[c].nodes;
            count += nodes.iter().map(|m| refs_to(e, m, f, depth - 1, budget)).max().unwrap_or(0);
        }
    }
    count
}

fn attr_approx(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let (Some(attrs), Some(key), Some(want), Some(tol)) = (e.attrs(&a[0]), text(&a[1]), num(&a[2]), num(&a[3])) else {
        return false;
    };
    let got = attrs.float(key).map(f64::from).or_else(|| a.get(4).and_then(num));
    got.is_some_and(|g| (g - want).abs() <= tol)
}

fn bcast_scalar(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let (Some(k), Some(x)) = (e.konst(&a[0]), e.ty(&a[1])) else { return false };
    k.num_elements() == 1 && x.rank().zip(k.ty.rank()).is_some_and(|(rx, rk)| rk <= rx)
}

/// A fusable node: `core.conv`, `core.conv_transpose` or `core.linear` without
/// an activation, with its operand classes (`b` may be the absent leaf).
struct Fusable {
    op: Opcode,
    x: Id,
    w: Id,
    b: Id,
    attrs: Attrs,
}

/// The first fusable node without activation in class `c`.
fn fusable(a: &ApplyEnv<'_>, c: Id) -> Result<Fusable, String> {
    a.eg[c]
        .nodes
        .iter()
        .find_map(|n| match n {
            ENode::Op { op, results: 1, args } if FUSABLE.contains(op) && args.len() == 4 => {
                let attrs = EAnalysis::attrs_of(a.eg, args[3])?;
                matches!(Activation::from_attrs(attrs), Ok(Activation::None)).then(|| Fusable {
                    op: *op,
                    x: a.eg.find(args[0]),
                    w: a.eg.find(args[1]),
                    b: a.eg.find(args[2]),
                    attrs: attrs.clone(),
                })
            }
            _ => None,
        })
        .ok_or_else(|| "no core.conv/conv_transpose/linear without activation in the fused class".into())
}

/// One activation parameter given as an applier argument: a number, a
/// one-element constant, or an absent operand (`None`).
fn param(a: &ApplyEnv<'_>, arg: &ArgVal) -> Result<Option<f64>, String> {
    if let Some(v) = num(arg) {
        return Ok(Some(v));
    }
    let c = a.class(arg)?;
    if a.absent(c) {
        return Ok(None);
    }
    let k = EAnalysis::const_of(a.eg, c).ok_or("activation parameter is not a constant")?;
    match k.to_f64s().as_deref() {
        Some([v]) => Ok(Some(*v)),
        _ => Err("activation parameter is not a one-element constant".into()),
    }
}

/// `v` as an `f32` attribute value, if representable exactly.
fn exact_f32(v: f64) -> Result<f32, String> {
    let f = v as f32;
    if f as f64 == v || v.is_nan() {
        Ok(f)
    } else {
        Err(format!("activation parameter {v} is not representable as an f32 attribute"))
    }
}

/// The activation `act` with parameters from `extra` (see `fuse_activation`).
fn activation(a: &ApplyEnv<'_>, act: &str, extra: &[ArgVal]) -> Result<Activation, String> {
    let attrs = extra.first().and_then(|x| a.env().attrs(x).cloned());
    let from_attrs = |key: &str, default: f32| attrs.as_ref().and_then(|x| x.float(key)).unwrap_or(default);
    let positional = |i: usize| -> Result<Option<f32>, String> {
        match extra.get(i) {
            Some(arg) if attrs.is_none() => param(a, arg)?.map(exact_f32).transpose(),
            _ => Ok(None),
        }
    };
    Ok(match act {
        "relu" => Activation::Relu,
        "sigmoid" => Activation::Sigmoid,
        "tanh" => Activation::Tanh,
        "hard_swish" => Activation::HardSwish,
        "silu" => Activation::Silu,
        "gelu" => match attrs.as_ref().and_then(|x| x.str("approximate")) {
            Some("tanh") => Activation::GeluTanh,
            _ => Activation::Gelu,
        },
        "gelu_tanh" => Activation::GeluTanh,
        "leaky_relu" => Activation::LeakyRelu { alpha: positional(0)?.unwrap_or(from_attrs("alpha", 0.01)) },
        "hard_sigmoid" => Activation::HardSigmoid {
            alpha: positional(0)?.unwrap_or(from_attrs("alpha", 0.2)),
            beta: positional(1)?.unwrap_or(from_attrs("beta", 0.5)),
        },
        "clip" => Activation::Clip {
            min: positional(0)?.unwrap_or(f32::NEG_INFINITY),
            max: positional(1)?.unwrap_or(f32::INFINITY),
        },
        other => return Err(format!("unknown activation `{other}`")),
    })
}

/// `@fuse_activation(?f, act, params...)`: the fusable node of `?f` with `act`.
fn fuse_activation(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let f = a.class(&args[0])?;
    let act_name = text(&args[1]).ok_or("the activation must be a word")?;
    let act = activation(a, act_name, &args[2..])?;
    let fu = fusable(a, f)?;
    let mut attrs = fu.attrs.clone();
    act.to_attrs(&mut attrs);
    a.add_op(fu.op, &[fu.x, fu.w, fu.b], &attrs)
}

/// `@gemm_to_linear(?a, ?b, ?c, ?attrs)`: `Gemm` as `core.linear`.
fn gemm_to_linear(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let attrs = a.env().attrs(&args[3]).cloned().ok_or("Gemm attributes are not bound")?;
    if attrs.int("transA").unwrap_or(0) != 0 {
        return Err("transA = 1 has no core.linear form".into());
    }
    if attrs.float("alpha").unwrap_or(1.0) != 1.0 {
        return Err("alpha != 1".into());
    }
    let (ga, gb, gc) = (a.class(&args[0])?, a.class(&args[1])?, a.class(&args[2])?);
    let beta = attrs.float("beta").unwrap_or(1.0);
    let bias = if a.absent(gc) || beta == 0.0 {
        a.none()
    } else if beta == 1.0 {
        let dims = a.eg[gc].data.ty().and_then(|t| t.dims().map(|d| d.to_vec())).ok_or("C has no known rank")?;
        let row = match dims.as_slice() {
            [] | [_] => true,
            [r, _] => r.as_static() == Some(1),
            _ => false,
        };
        if !row {
            return Err("C is not a row vector ([N], [1, N] or a scalar)".into());
        }
        gc
    } else {
        return Err(format!("beta = {beta} is neither 0 nor 1"));
    };
    if !a.eg[ga].data.ty().is_some_and(|t| t.dtype.is_float()) {
        return Err("core.linear needs float operands".into());
    }
    let mut out = Attrs::new();
    if attrs.int("transB").unwrap_or(0) != 0 {
        out.set("trans_b", Attr::Int(1));
    }
    a.add_op(Opcode::CoreLinear, &[ga, gb, bias], &out)
}

#[cfg(test)]
mod tests {
    use crate::rules::{RuleSet, BUILTIN};

    #[test]
    fn fusion_rules_load() {
        let (file, src) = BUILTIN.iter().find(|(f, _)| *f == "fusion.rules").expect("fusion.rules is built in");
        let mut fusion = RuleSet::default();
        fusion.add_source(file, src).unwrap_or_else(|e| panic!("{e}"));
        assert!(fusion.rules.len() >= 30, "only {} fusion rules", fusion.rules.len());
        for r in &fusion.rules {
            assert!(!r.doc.trim().is_empty(), "rule {} has no identity comment", r.name);
        }
    }
}
