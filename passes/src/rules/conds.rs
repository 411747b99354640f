//! Conditions rules may name in `if` clauses. Each is a pure predicate over
//! the match; a condition that cannot evaluate (unbound class, non-constant
//! operand) is false, so a rule never fires on facts it could not check.

use super::args::{lit_to_attr, ArgVal};
use super::env::{num, text, Env};
use crate::egraph::lang::ENode;
use ir::{Attr, DType, Dim};
use std::ops::RangeInclusive;

/// A registered condition.
pub struct CondDef {
    /// Name used in rule files.
    pub name: &'static str,
    /// Accepted argument counts.
    pub arity: RangeInclusive<usize>,
    /// Argument list for messages and docs.
    pub signature: &'static str,
    /// One-line meaning.
    pub doc: &'static str,
    /// The predicate.
    pub check: fn(&Env<'_>, &[ArgVal]) -> bool,
}

impl std::fmt::Debug for CondDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

macro_rules! conds {
    ($( $name:literal ($($sig:tt)*) [$lo:literal ..= $hi:literal] $doc:literal => $f:expr; )*) => {
        /// Every condition, by name.
        pub static CONDS: &[CondDef] = &[
            $( CondDef { name: $name, arity: $lo..=$hi, signature: stringify!($($sig)*), doc: $doc, check: $f }, )*
        ];
    };
}

conds! {
    "is_const" (x) [1..=1] "x is a constant" => |e, a| e.konst(&a[0]).is_some();
    "is_static" (x) [1..=1] "x depends on constants only (computed once, e.g. ConstantOfShape weights)" =>
        |e, a| e.class(&a[0]).is_some_and(|c| e.eg[c].data.is_static);
    "is_scalar" (x) [1..=1] "x has exactly one element" => |e, a| e.ty(&a[0]).and_then(|t| t.shape.num_elements()) == Some(1);
    "is_splat" (x, value) [2..=2] "x is a constant whose elements all equal value (0 matches both signed zeros)" =>
        |e, a| splat(e, &a[0]).zip(num(&a[1])).is_some_and(|(s, v)| s == v);
    "is_neg_zero" (x) [1..=1] "x is a constant whose elements are all -0.0 (x + -0.0 == x exactly)" =>
        |e, a| splat(e, &a[0]).is_some_and(|s| s == 0.0 && s.is_sign_negative());
    "approx" (x, value, tol) [3..=3] "x is a constant whose elements are all within tol of value" =>
        |e, a| splat(e, &a[0]).zip(num(&a[1])).zip(num(&a[2])).is_some_and(|((s, v), t)| (s - v).abs() <= t);
    "same_type" (x, y) [2..=2] "x and y have the same type, with no unknown dim" => |e, a| same_type(e, &a[0], &a[1]);
    "keeps_type" (x, k, y) [3..=3] "y = x op k has x's type: y has it with no unknown dim, or k's dims are all 1 and its rank is at most x's (broadcasting k changes nothing)" => keeps_type;
    "static_shape" (x) [1..=1] "every dim of x is a known number" => |e, a| e.ty(&a[0]).is_some_and(|t| t.shape.static_dims().is_some());
    "dtype_is" (x, dtype) [2..=2] "x has element type dtype (e.g. f32)" =>
        |e, a| e.ty(&a[0]).zip(text(&a[1])).is_some_and(|(t, d)| t.dtype.to_string() == d);
    "is_float" (x) [1..=1] "x has a floating-point element type" => |e, a| e.ty(&a[0]).is_some_and(|t| t.dtype.is_float());
    "rank_is" (x, n) [2..=2] "x has rank n" => |e, a| e.ty(&a[0]).and_then(|t| t.rank()).zip(num(&a[1])).is_some_and(|(r, n)| r as f64 == n);
    "uses_at_most" (x, n) [2..=2] "x has at most n uses in the input graph (classes made by rules count as single-use)" =>
        |e, a| e.class(&a[0]).zip(num(&a[1])).is_some_and(|(c, n)| e.eg[c].data.orig_uses as f64 <= n);
    "single_use" (x) [1..=1] "x has at most one use in the input graph" =>
        |e, a| e.class(&a[0]).is_some_and(|c| e.eg[c].data.orig_uses <= 1);
    "attr_eq" (attrs, key, value, default) [3..=4] "attribute key equals value (the default applies when absent)" => attr_eq;
    "perm_identity" (attrs) [1..=1] "the `perm` attribute is the identity" =>
        |e, a| e.attrs(&a[0]).and_then(|x| x.ints("perm")).is_some_and(|p| p.iter().enumerate().all(|(i, &v)| v == i as i64));
    "same_axes" (a, b, x) [3..=3] "constant axes a and b name the same axes of a rank-(rank(x)+len) tensor" => same_axes;
    "axes_from" (attrs, n) [2..=2] "every entry of the `axes` attribute (non-negative, as core ops store it) is at least n" =>
        |e, a| e.attrs(&a[0]).and_then(|x| x.ints("axes")).zip(num(&a[1])).is_some_and(|(v, n)| !v.is_empty() && v.iter().all(|&x| x as f64 >= n));
    "axes_trailing" (axes, x) [2..=2] "constant axes are exactly the last len(axes) dims of x" => axes_trailing;
    "cast_noop" (x, attrs) [2..=2] "a Cast with these attributes leaves x unchanged" =>
        |e, a| e.ty(&a[0]).zip(e.attrs(&a[1]).and_then(|x| x.dtype("to"))).is_some_and(|(t, d)| t.dtype == d);
    "no_activation" (x) [1..=1] "x is a fusable conv/linear without an activation yet" => no_activation;
    "arithmetic_is" (name) [1..=1] "the target computes this integer arithmetic (`single`, also without a target; `tflite`: LiteRT's kernels)" =>
        |e, a| text(&a[0]).is_some_and(|n| e.arithmetic().name() == n);
    "target_supports" (x) [1..=1] "the target runs the left-hand side's root op of class x natively" => target_supports;
}

/// The value every element of a constant has, if they agree.
pub fn splat(e: &Env<'_>, a: &ArgVal) -> Option<f64> {
    let c = e.konst(a)?;
    if c.ty.dtype == DType::Bool {
        return None;
    }
    let v = c.to_f64s()?;
    let first = *v.first()?;
    v.iter().all(|x| x.to_bits() == first.to_bits()).then_some(first)
}

fn same_type(e: &Env<'_>, a: &ArgVal, b: &ArgVal) -> bool {
    match (e.ty(a), e.ty(b)) {
        (Some(x), Some(y)) => x == y && x.dims().is_some_and(|d| !d.contains(&Dim::Unknown)),
        _ => false,
    }
}

fn keeps_type(e: &Env<'_>, a: &[ArgVal]) -> bool {
    if same_type(e, &a[0], &a[2]) {
        return true;
    }
    let (Some(x), Some(k), Some(y)) = (e.ty(&a[0]), e.ty(&a[1]), e.ty(&a[2])) else { return false };
    let (Some(xr), Some(kd)) = (x.rank(), k.dims()) else { return false };
    x.dtype == y.dtype && kd.len() <= xr && kd.iter().all(|d| *d == Dim::Static(1))
}

fn attr_eq(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let (Some(attrs), Some(key)) = (e.attrs(&a[0]), text(&a[1])) else { return false };
    let want = &a[2];
    let got = attrs.get(key).cloned().or_else(|| a.get(3).and_then(arg_attr));
    match (got, want) {
        (Some(Attr::Str(s)), w) => text(w) == Some(s.as_str()),
        (Some(Attr::Int(i)), w) => num(w) == Some(i as f64),
        (Some(Attr::Float(x)), w) => num(w).is_some_and(|v| (v as f32) == x),
        (Some(g), w) => arg_attr(w).is_some_and(|w| w == g),
        (None, _) => false,
    }
}

fn arg_attr(a: &ArgVal) -> Option<Attr> {
    match a {
        ArgVal::Lit(l) => lit_to_attr(l),
        ArgVal::Word(w) => Some(Attr::Str(w.clone())),
        ArgVal::Var(_) => None,
    }
}

/// Constant axes normalized against `rank`, sorted.
pub fn norm_axes(e: &Env<'_>, a: &ArgVal, rank: i64) -> Option<Vec<i64>> {
    let mut v: Vec<i64> = e.konst(a)?.to_i64s()?.into_iter().map(|x| if x < 0 { x + rank } else { x }).collect();
    v.sort_unstable();
    v.iter().all(|&x| (0..rank).contains(&x)).then_some(v)
}

fn same_axes(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let Some(r) = e.ty(&a[2]).and_then(|t| t.rank()) else { return false };
    let n = e.konst(&a[0]).map_or(0, |c| c.num_elements()) as i64;
    match (norm_axes(e, &a[0], r as i64 + n), norm_axes(e, &a[1], r as i64 + n)) {
        (Some(x), Some(y)) => x == y,
        _ => false,
    }
}

fn axes_trailing(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let Some(r) = e.ty(&a[1]).and_then(|t| t.rank()) else { return false };
    let Some(axes) = norm_axes(e, &a[0], r as i64) else { return false };
    !axes.is_empty() && axes.iter().enumerate().all(|(i, &x)| x == (r - axes.len() + i) as i64)
}

/// The ops activation epilogues fuse into.
pub const FUSABLE: &[ir::Opcode] = &[ir::Opcode::CoreConv, ir::Opcode::CoreConvTranspose, ir::Opcode::CoreLinear];

fn no_activation(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let Some(c) = e.class(&a[0]) else { return false };
    e.eg[c].nodes.iter().any(|n| match n {
        ENode::Op { op, args, .. } if FUSABLE.contains(op) => {
            crate::egraph::analysis::EAnalysis::attrs_of(e.eg, args[args.len() - 1])
                .is_some_and(|x| x.str("act").is_none_or(|s| s == "none"))
        }
        _ => false,
    })
}

fn target_supports(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let (Some(t), Some(c)) = (e.target, e.class(&a[0])) else { return true };
    e.eg[c]
        .nodes
        .iter()
        .filter(|n| matches!(n, ENode::Op { op, .. } if Some(*op) == e.lhs_op))
        .all(|n| t.supports(e.eg, c, n).is_ok())
}
