//! Folding over static (not literal) weights: when a conv's weights or a
//! BatchNormalization's parameters are computed from constants by ops the
//! constant folder leaves alone (large `ConstantOfShape` tensors, as in
//! weight-stripped models), the folded weights are written as static ops
//! over them. Static values cost nothing per inference in the target cost
//! model and backends compute them once (the Rust backend at model
//! construction), so the fused conv wins extraction as with literal weights.

use super::fusable;
use crate::rules::args::ArgVal;
use crate::rules::env::ApplyEnv;
use egg::Id;
use ir::{Attr, Attrs, DType, Opcode, TensorType};

/// The static class of an argument, and its type.
fn static_arg<'e>(a: &'e ApplyEnv<'_>, arg: &ArgVal, what: &str) -> Result<(Id, &'e TensorType), String> {
    let c = a.class(arg)?;
    if !a.eg[c].data.is_static {
        return Err(format!("{what} is not static"));
    }
    Ok((c, a.eg[c].data.ty().ok_or_else(|| format!("{what} has no type"))?))
}

/// `@fold_batchnorm_static(?f, ?scale, ?B, ?mean, ?var, ?attrs)`: inference
/// BN over a `core.conv` with static weights, as that conv with
/// `W' = W * reshape(s / sqrt(var + eps), [M, 1, ...])` and
/// `b' = (b - mean) * s / sqrt(var + eps) + B` (b absent: `-mean * ...`).
pub fn fold_batchnorm_static(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let f = a.class(&args[0])?;
    let fu = fusable(a, f)?;
    if fu.op != Opcode::CoreConv {
        return Err("folding over static weights is implemented for core.conv".into());
    }
    let literal = |c: Id| a.eg[c].data.konst.is_some();
    let params: Vec<Id> = args[1..5].iter().map(|x| a.class(x)).collect::<Result<_, _>>()?;
    if literal(fu.w) && (a.absent(fu.b) || literal(fu.b)) && params.iter().all(|&c| literal(c)) {
        return Err("every operand is a constant: bn-fold folds it".into());
    }
    if !a.eg[fu.w].data.is_static || !(a.absent(fu.b) || a.eg[fu.b].data.is_static) {
        return Err("the conv weights or bias are not static".into());
    }
    let wt = a.eg[fu.w].data.ty().cloned().ok_or("weights have no type")?;
    let wd = wt.shape.static_dims().ok_or("weights of unknown shape")?;
    let m = *wd.first().ok_or("weights of rank 0")?;
    for (arg, what) in args[1..5].iter().zip(["scale", "B", "mean", "var"]) {
        let (_, t) = static_arg(a, arg, what)?;
        if t.dtype != wt.dtype || t.shape.static_dims() != Some(vec![m]) {
            return Err(format!("BN {what} is {t}, not a [{m}] vector of the weights' type"));
        }
    }
    let attrs = a.env().attrs(&args[5]).cloned().ok_or("BN attributes are not bound")?;
    if attrs.int("training_mode").unwrap_or(0) != 0 {
        return Err("training-mode BatchNormalization".into());
    }
    let eps = attrs.float("epsilon").unwrap_or(1e-5);
    if wt.dtype != DType::F32 {
        return Err("static folding rewrites f32 weights only".into());
    }
    let (s, bb, mean, var) = (params[0], params[1], params[2], params[3]);
    let none = Attrs::new();
    let k = a.add_const(ir::Constant::from_f32s("", &[], &[eps]));
    let ve = a.add_op(Opcode::Add, &[var, k], &none)?;
    let sd = a.add_op(Opcode::Sqrt, &[ve], &none)?;
    let factor = a.add_op(Opcode::Div, &[s, sd], &none)?;
    let shape: Vec<i64> = std::iter::once(m as i64).chain(wd[1..].iter().map(|_| 1)).collect();
    let f4 = a.add_op(Opcode::CoreReshape, &[factor], &Attrs::new().with("shape", Attr::Ints(shape)))?;
    let w2 = a.add_op(Opcode::Mul, &[fu.w, f4], &none)?;
    let centered = if a.absent(fu.b) {
        a.add_op(Opcode::Neg, &[mean], &none)?
    } else {
        a.add_op(Opcode::Sub, &[fu.b, mean], &none)?
    };
    let scaled = a.add_op(Opcode::Mul, &[centered, factor], &none)?;
    let b2 = a.add_op(Opcode::Add, &[scaled, bb], &none)?;
    a.add_op(Opcode::CoreConv, &[fu.x, w2, b2], &fu.attrs)
}
