//! `core.*` ops in their exact ONNX forms: the fused conv and linear ops
//! become the ONNX op plus their activation epilogue; the canonical layout
//! and reduction ops get their attribute lists back as int64 operands.

use super::{attribute, Graph};
use crate::frontend::onnx::proto::AttributeProto;
use ir::ops::elementwise::Activation;
use ir::{Attr, OpData, Opcode};

/// Emit the ONNX nodes computing `op` from `inputs` into `outputs`.
pub(super) fn expand(g: &mut Graph<'_>, op: &OpData, inputs: Vec<String>, outputs: Vec<String>) -> Result<(), String> {
    let ints = |name: &str| match op.attrs.get(name) {
        Some(Attr::Ints(v)) => Ok(v.clone()),
        _ => Err(format!("missing `{name}`")),
    };
    let out = outputs.first().cloned().ok_or("no result")?;
    match op.opcode {
        Opcode::CoreConv | Opcode::CoreConvTranspose => {
            let ty = if op.opcode == Opcode::CoreConv { "Conv" } else { "ConvTranspose" };
            let attrs = op
                .attrs
                .iter()
                .filter(|(k, _)| !k.starts_with("act"))
                .map(|(k, a)| attribute(k, a))
                .collect::<Result<Vec<_>, _>>()?;
            let inputs: Vec<String> = trim(inputs);
            with_act(g, op, out, |g, pre| g.node(ty, inputs, vec![pre], attrs))
        }
        Opcode::CoreLinear => {
            let (a, b) = (inputs[0].clone(), inputs[1].clone());
            let trans_b = matches!(op.attrs.get("trans_b"), Some(Attr::Int(1)));
            let bias = inputs.get(2).filter(|s| !s.is_empty()).cloned();
            with_act(g, op, out, |g, pre| {
                let b = if trans_b {
                    let rank = g.rank(op.operand(1));
                    let mut perm: Vec<i64> = (0..rank as i64).collect();
                    perm.swap(rank.saturating_sub(2), rank.saturating_sub(1));
                    let t = g.temp("trans_b");
                    g.node("Transpose", vec![b], vec![t.clone()], vec![ints_attr("perm", perm)]);
                    t
                } else {
                    b
                };
                match bias {
                    None => g.node("MatMul", vec![a, b], vec![pre], vec![]),
                    Some(bias) => {
                        let mm = g.temp("matmul");
                        g.node("MatMul", vec![a, b], vec![mm.clone()], vec![]);
                        g.node("Add", vec![mm, bias], vec![pre], vec![]);
                    }
                }
            })
        }
        Opcode::CoreReshape | Opcode::CoreExpand => {
            let shape = g.ints("shape", &ints("shape")?);
            let ty = if op.opcode == Opcode::CoreReshape { "Reshape" } else { "Expand" };
            g.node(ty, vec![inputs[0].clone(), shape], vec![out], vec![]);
            Ok(())
        }
        Opcode::CoreSqueeze | Opcode::CoreUnsqueeze => {
            let axes = g.ints("axes", &ints("axes")?);
            let ty = if op.opcode == Opcode::CoreSqueeze { "Squeeze" } else { "Unsqueeze" };
            g.node(ty, vec![inputs[0].clone(), axes], vec![out], vec![]);
            Ok(())
        }
        Opcode::CoreSlice => {
            let names = ["starts", "ends", "axes", "steps"];
            let mut ins = vec![inputs[0].clone()];
            for n in names {
                ins.push(g.ints(n, &ints(n)?));
            }
            g.node("Slice", ins, vec![out], vec![]);
            Ok(())
        }
        Opcode::CoreSilu => {
            let s = g.temp("sigmoid");
            g.node("Sigmoid", vec![inputs[0].clone()], vec![s.clone()], vec![]);
            g.node("Mul", vec![inputs[0].clone(), s], vec![out], vec![]);
            Ok(())
        }
        Opcode::CoreReduce => reduce(g, op, inputs, out),
        other => Err(format!("`{}` has no ONNX form yet", other.name())),
    }
}

/// Drop trailing omitted optional inputs.
fn trim(mut v: Vec<String>) -> Vec<String> {
    while v.last().is_some_and(String::is_empty) {
        v.pop();
    }
    v
}

fn ints_attr(name: &str, v: Vec<i64>) -> AttributeProto {
    attribute(name, &Attr::Ints(v)).unwrap_or_default()
}

fn reduce(g: &mut Graph<'_>, op: &OpData, inputs: Vec<String>, out: String) -> Result<(), String> {
    let kind = match op.attrs.get("kind") {
        Some(Attr::Str(k)) => k.as_str(),
        _ => return Err("missing `kind`".into()),
    };
    let ty = match kind {
        "mean" => "ReduceMean",
        "sum" => "ReduceSum",
        "max" => "ReduceMax",
        "min" => "ReduceMin",
        "prod" => "ReduceProd",
        "l1" => "ReduceL1",
        "l2" => "ReduceL2",
        "sum_square" => "ReduceSumSquare",
        "log_sum" => "ReduceLogSum",
        "log_sum_exp" => "ReduceLogSumExp",
        k => return Err(format!("reduction kind `{k}`")),
    };
    let axes = match op.attrs.get("axes") {
        Some(Attr::Ints(v)) => v.clone(),
        _ => return Err("missing `axes`".into()),
    };
    let keep = match op.attrs.get("keepdims") {
        Some(Attr::Int(k)) => *k,
        _ => 1,
    };
    let axes = g.ints("axes", &axes);
    let attrs = vec![attribute("keepdims", &Attr::Int(keep))?];
    g.node(ty, vec![inputs[0].clone(), axes], vec![out], attrs);
    Ok(())
}

/// Emit the main node into a temporary (through `emit`), then `op`'s
/// activation epilogue into `out` (or the main node straight into `out`).
fn with_act(
    g: &mut Graph<'_>,
    op: &OpData,
    out: String,
    emit: impl FnOnce(&mut Graph<'_>, String),
) -> Result<(), String> {
    let act = Activation::from_attrs(&op.attrs)?;
    if act == Activation::None {
        emit(g, out);
        return Ok(());
    }
    let pre = g.temp("pre_act");
    emit(g, pre.clone());
    let float = |n: &str, x: f32| attribute(n, &Attr::Float(x));
    match act {
        Activation::None => {}
        Activation::Relu => g.node("Relu", vec![pre], vec![out], vec![]),
        Activation::Sigmoid => g.node("Sigmoid", vec![pre], vec![out], vec![]),
        Activation::HardSwish => g.node("HardSwish", vec![pre], vec![out], vec![]),
        Activation::Tanh => g.node("Tanh", vec![pre], vec![out], vec![]),
        Activation::HardSigmoid { alpha, beta } => {
            g.node("HardSigmoid", vec![pre], vec![out], vec![float("alpha", alpha)?, float("beta", beta)?])
        }
        Activation::LeakyRelu { alpha } => g.node("LeakyRelu", vec![pre], vec![out], vec![float("alpha", alpha)?]),
        Activation::Clip { min, max } => {
            let lo = if min.is_finite() { g.scalar("clip_min", min) } else { String::new() };
            let hi = if max.is_finite() { g.scalar("clip_max", max) } else { String::new() };
            g.node("Clip", trim(vec![pre, lo, hi]), vec![out], vec![]);
        }
        Activation::Silu => {
            let s = g.temp("sigmoid");
            g.node("Sigmoid", vec![pre.clone()], vec![s.clone()], vec![]);
            g.node("Mul", vec![pre, s], vec![out], vec![]);
        }
        Activation::Gelu => g.node("Gelu", vec![pre], vec![out], vec![]),
        Activation::GeluTanh => {
            g.node("Gelu", vec![pre], vec![out], vec![attribute("approximate", &Attr::Str("tanh".into()))?])
        }
    }
    Ok(())
}
