//! The support checks behind [`TargetProfile::support`], without allocation
//! until a reason is shown.

use super::{AttrRule, OpQuery, OpRule, TargetProfile};
use ir::{Attr, DType, TensorType};
use std::fmt;

/// An operand or result position.
#[derive(Copy, Clone, Debug)]
pub(super) enum Slot {
    Operand(usize),
    Result(usize),
}

impl fmt::Display for Slot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Slot::Operand(i) => write!(f, "operand #{i}"),
            Slot::Result(i) => write!(f, "result #{i}"),
        }
    }
}

/// The first check an op fails.
pub(super) enum Failure<'a> {
    /// The rule says `supported = false`.
    Unsupported(&'a OpRule),
    /// A non-static type on a `static_shapes` target.
    Dynamic(Slot, &'a TensorType),
    /// A rank above the limit.
    Rank(Slot, &'a TensorType, u32),
    /// An element type outside `allowed` and `convert_from`.
    DType(Slot, &'a TensorType, &'a [DType]),
    /// An attribute constraint that does not hold (value or absent).
    Attr(&'a AttrRule, Option<&'a Attr>),
    /// A window limit exceeded (the value, if it could be measured).
    Limit(&'a super::limits::Limit, Option<i64>),
}

/// Operand and result types of `q` with their positions.
fn tensors<'a>(q: &'a OpQuery<'_>) -> impl Iterator<Item = (Slot, &'a TensorType)> + 'a {
    let ins = q.inputs.iter().enumerate().filter_map(|(i, t)| t.map(|t| (Slot::Operand(i), t)));
    ins.chain(q.outputs.iter().enumerate().map(|(i, t)| (Slot::Result(i), t)))
}

impl TargetProfile {
    /// The first failed support check of `q`, if any (see [`TargetProfile::support`]).
    pub(super) fn failure<'a>(&'a self, q: &'a OpQuery<'_>) -> Option<Failure<'a>> {
        if q.opcode.name() == "core.const" {
            return None;
        }
        let rule = self.rule(q.opcode);
        if !rule.supported {
            return Some(Failure::Unsupported(rule));
        }
        if self.static_shapes {
            if let Some((s, t)) = tensors(q).find(|(_, t)| t.shape.static_dims().is_none()) {
                return Some(Failure::Dynamic(s, t));
            }
        }
        if let Some(max) = rule.max_rank.or(self.max_rank) {
            if let Some((s, t)) = tensors(q).find(|(_, t)| t.rank().is_some_and(|r| r > max as usize)) {
                return Some(Failure::Rank(s, t, max));
            }
        }
        if let Some(allowed) = rule.dtypes.as_deref().or(self.dtypes.as_deref()) {
            let ok = |d: DType| allowed.contains(&d) || self.convert_from.contains(&d);
            let first = q.inputs.first().copied().flatten().map(|t| (Slot::Operand(0), t));
            let results = q.outputs.iter().enumerate().map(|(i, t)| (Slot::Result(i), t));
            if let Some((s, t)) = first.into_iter().chain(results).find(|(_, t)| !ok(t.dtype)) {
                return Some(Failure::DType(s, t, allowed));
            }
        }
        let attr = rule.attrs.iter().find_map(|r| {
            let value = q.attrs.get(&r.name).or(r.default.as_ref());
            (!value.is_some_and(|v| r.allow.contains(v))).then_some(Failure::Attr(r, value))
        });
        attr.or_else(|| rule.limits.iter().find_map(|l| l.violated(q).map(|v| Failure::Limit(l, v))))
    }
}

fn join<T: fmt::Display>(v: &[T]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

impl Failure<'_> {
    /// The reason shown to users (without the op name).
    pub(super) fn describe(&self, p: &TargetProfile) -> String {
        match self {
            Failure::Unsupported(rule) => rule.reason.clone().unwrap_or_else(|| format!("not supported by {}", p.name)),
            Failure::Dynamic(s, t) => format!("dynamic shape: {s} has type {t}; {} needs static shapes", p.name),
            Failure::Rank(s, t, max) => {
                format!("{s} has rank {} ({t}); {} handles rank <= {max}", t.rank().unwrap_or(0), p.name)
            }
            Failure::DType(s, t, allowed) => {
                let conv = if p.convert_from.is_empty() {
                    String::new()
                } else {
                    format!("; converted from: {}", join(&p.convert_from))
                };
                format!("{s} has element type {} ({} computes in: {}{conv})", t.dtype, p.name, join(allowed))
            }
            Failure::Attr(r, value) => {
                let shown = value.map_or_else(|| "absent".to_string(), |v| v.to_string());
                let why = r.reason.as_ref().map(|s| format!(": {s}")).unwrap_or_default();
                format!("{} = {shown} is not supported (supported: {}){why}", r.name, join(&r.allow))
            }
            Failure::Limit(l, v) => l.describe(*v),
        }
    }
}
