//! Node-level import: one ONNX node → one or a few `onnx.*` ops, dispatched
//! to `contrib`, `control`, `upgrade` (older opset forms upgraded to the
//! newest signature) and `lenient`, or emitted as is.

use super::node::{NResult, NodeCx, NodeError};
use super::tensor::tensor_from_proto;
use ir::interp::{Data, Tensor};
use ir::Opcode;

/// Import one node.
pub(super) fn convert_node(cx: &mut NodeCx<'_, '_, '_>) -> NResult<()> {
    let node = cx.node;
    // `ai.onnx.preview` ops (e.g. FlexAttention) live in the same table.
    let default_domain = matches!(node.domain.as_str(), "" | "ai.onnx" | "ai.onnx.preview");
    if node.domain == "com.microsoft" || (default_domain && super::contrib::default_domain_op(&node.op_type)) {
        if !super::contrib::is_supported(&node.op_type) {
            return Err(NodeError::Unsupported(format!("{}::{}", node.domain, node.op_type)));
        }
        let inputs = cx.inputs()?;
        return super::contrib::convert(cx, &inputs);
    }
    if !default_domain || (node.domain == "ai.onnx.preview" && !is_known(&node.op_type)) {
        return Err(NodeError::Unsupported(format!("{}::{}", node.domain, node.op_type)));
    }
    if node.op_type == "Constant" {
        return constant_node(cx);
    }
    // Decide support before looking at inputs, so every unsupported node is
    // counted even when it sits downstream of another failure.
    if !is_known(&node.op_type) {
        return Err(NodeError::Unsupported(node.op_type.clone()));
    }
    let inputs = cx.inputs()?;
    if matches!(node.op_type.as_str(), "If" | "Loop" | "Scan") {
        return super::control::import_control(cx, inputs);
    }
    if let Some(done) = super::upgrade::upgrade(cx, &inputs)? {
        return Ok(done);
    }
    if let Some(done) = super::lenient::lenient(cx, &inputs)? {
        return Ok(done);
    }
    let opcode = Opcode::from_name(&format!("onnx.{}", node.op_type))
        .ok_or_else(|| NodeError::Unsupported(node.op_type.clone()))?;
    let attrs = cx.attrs(opcode, &[])?;
    cx.emit_outputs(opcode, inputs, attrs)
}

/// Op types the importer handles: table ops plus those rewritten on import.
fn is_known(op_type: &str) -> bool {
    matches!(op_type, "If" | "Loop" | "Scan" | "Upsample" | "Scatter")
        || Opcode::from_name(&format!("onnx.{op_type}")).is_some()
}

/// `Constant` → a pool constant.
fn constant_node(cx: &mut NodeCx<'_, '_, '_>) -> NResult<()> {
    let a = cx.node.attribute.first().ok_or("Constant node has no value attribute")?;
    let s = |b: &Vec<u8>| String::from_utf8_lossy(b).into_owned();
    let t = match a.name.as_str() {
        "value" => tensor_from_proto(a.t.as_ref().ok_or("`value` holds no tensor")?, cx.imp.base_dir)
            .map_err(|e| e.to_string())?,
        "value_float" => Tensor::new(vec![], Data::F32(vec![a.f])),
        "value_floats" => Tensor::new(vec![a.floats.len()], Data::F32(a.floats.clone())),
        "value_int" => Tensor::new(vec![], Data::I64(vec![a.i])),
        "value_ints" => Tensor::from_i64s(a.ints.clone()),
        "value_string" => Tensor::new(vec![], Data::String(vec![s(&a.s)])),
        "value_strings" => Tensor::new(vec![a.strings.len()], Data::String(a.strings.iter().map(s).collect())),
        "sparse_value" => return Err("sparse constants are not supported".to_string().into()),
        other => return Err(format!("unknown Constant attribute `{other}`").into()),
    };
    let out = cx.node.output.first().cloned().unwrap_or_default();
    let hint = if out.is_empty() { "value".to_string() } else { out.clone() };
    let loc = cx.loc();
    let v = cx.imp.add_const(cx.f, cx.cursor, &t, &hint, loc);
    // A constant's type is its value's: a declaration can only be reported.
    let _ = cx.declared(Some(&out), cx.f.ty(v).clone());
    cx.bind(&[v]);
    Ok(())
}
