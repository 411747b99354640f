//! `If`, `Loop` and `Scan`: subgraph attributes become regions of the op.
//! Subgraphs see every name of the enclosing graphs (captured values).

use super::importer::Cursor;
use super::node::{NodeCx, NodeError};
use super::proto::GraphProto;
use super::value_info::type_of;
use ir::{DType, Dim, OpId, Opcode, Shape, TensorType, Value};

type NResult<T> = Result<T, NodeError>;

/// Import a control-flow node.
pub(super) fn import_control(cx: &mut NodeCx<'_, '_, '_>, inputs: Vec<Option<Value>>) -> NResult<()> {
    let (opcode, graphs): (Opcode, &[&str]) = match cx.node.op_type.as_str() {
        "If" => (Opcode::If, &["then_branch", "else_branch"]),
        "Loop" => (Opcode::Loop, &["body"]),
        "Scan" if cx.version() >= 9 => (Opcode::Scan, &["body"]),
        other => return Err(NodeError::Unsupported(format!("{other} (opset {})", cx.version()))),
    };
    let attrs = cx.attrs(opcode, graphs)?;
    let n = cx.num_outputs();
    let placeholder = vec![TensorType::unranked(DType::F32); n];
    let op = cx.f.create_op(opcode, inputs.clone(), attrs, placeholder, cx.loc());
    for (r, attr) in graphs.iter().enumerate() {
        let node = cx.node;
        let g = node.attribute.iter().find(|a| a.name == *attr).and_then(|a| a.g.as_ref());
        let g = g.ok_or_else(|| format!("missing graph attribute `{attr}`"))?;
        cx.f.ops[op].regions.push(ir::Region::default());
        let defaults = param_defaults(cx, opcode, &inputs);
        import_region(cx, g, op, r, &defaults)?;
    }
    let types = ir::infer::infer_op(&cx.imp.m, cx.f, &cx.f.ops[op]).map_err(|e| format!("{}: {e}", opcode.name()))?;
    let results = cx.f.ops[op].results.clone();
    for (i, (&v, t)) in results.iter().zip(types).enumerate() {
        let output = cx.node.output.get(i).cloned();
        cx.f.values[v].ty = cx.declared(output.as_ref(), t);
    }
    super::importer::place(cx.f, cx.cursor, op);
    cx.bind(&results);
    Ok(())
}

/// Types of the body parameters, used where the subgraph leaves them untyped.
fn param_defaults(cx: &NodeCx<'_, '_, '_>, opcode: Opcode, inputs: &[Option<Value>]) -> Vec<TensorType> {
    let ty = |v: &Option<Value>| v.map_or(TensorType::unranked(DType::F32), |v| cx.f.ty(v).clone());
    match opcode {
        Opcode::Loop => {
            let mut v = vec![TensorType::scalar(DType::I64), TensorType::scalar(DType::Bool)];
            v.extend(inputs.iter().skip(2).map(ty));
            v
        }
        Opcode::Scan => {
            let m = cx.attr("num_scan_inputs").map_or(0, |a| a.i.max(0) as usize);
            let n = inputs.len().saturating_sub(m);
            let axes = cx.attr("scan_input_axes").map(|a| a.ints.clone()).unwrap_or_default();
            let mut v: Vec<TensorType> = inputs[..n].iter().map(ty).collect();
            for (j, x) in inputs[n..].iter().enumerate() {
                v.push(slice_type(&ty(x), axes.get(j).copied().unwrap_or(0)));
            }
            v
        }
        _ => vec![],
    }
}

/// The type of one slice of `t` along `axis` (the axis removed).
fn slice_type(t: &TensorType, axis: i64) -> TensorType {
    match t.dims() {
        Some(d) if !d.is_empty() => {
            let r = d.len() as i64;
            let ax = if axis < 0 { axis + r } else { axis };
            if !(0..r).contains(&ax) {
                return TensorType::unranked(t.dtype);
            }
            let dims: Vec<Dim> = d.iter().enumerate().filter(|(i, _)| *i as i64 != ax).map(|(_, x)| *x).collect();
            TensorType::new(t.dtype, Shape::from_dims(dims))
        }
        _ => TensorType::unranked(t.dtype),
    }
}

fn import_region(
    cx: &mut NodeCx<'_, '_, '_>,
    g: &GraphProto,
    op: OpId,
    r: usize,
    defaults: &[TensorType],
) -> NResult<()> {
    cx.scope.push();
    for (i, vi) in g.input.iter().enumerate() {
        let declared = type_of(vi)?;
        let ty = match (declared, defaults.get(i)) {
            (Some(d), Some(def)) => {
                let what = format!("node \"{}\" ({}): subgraph input \"{}\"", cx.name, cx.node.op_type, vi.name);
                cx.imp.merge_declared(&d, def, &what)
            }
            (Some(d), None) => d,
            (None, Some(def)) => def.clone(),
            (None, None) => return Err(format!("subgraph input \"{}\" has no type", vi.name).into()),
        };
        let v = cx.f.add_region_param(op, r, ty);
        cx.scope.define(&vi.name, v);
    }
    let cursor = Cursor::Region(op, r);
    cx.imp.import_initializers(g, cx.f, cursor, cx.scope).map_err(|e| e.to_string())?;
    cx.imp.import_nodes(&g.node, cx.f, cursor, cx.scope);
    let (results, _types) = cx.imp.graph_outputs(g, cx.f, cx.scope);
    cx.f.ops[op].regions[r].results = results;
    cx.scope.pop();
    Ok(())
}
