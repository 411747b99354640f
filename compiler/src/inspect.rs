//! `edgec inspect`: a summary of an ONNX model, computed from the protobuf
//! so it works even when the model uses ops edgec cannot import.

use crate::frontend::onnx::proto::{type_proto, GraphProto, ModelProto, ValueInfoProto};
use crate::frontend::onnx::tensor::dtype_of;
use crate::frontend::onnx::{import_file_bound, Imported, DIM_ALIASES};
use prost::Message;
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// Render the summary of the model at `path`.
pub fn inspect(path: &Path) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let model =
        ModelProto::decode(bytes.as_slice()).map_err(|e| format!("{}: not a valid ONNX model: {e}", path.display()))?;
    let g = model.graph.as_ref().ok_or("model has no graph")?;
    let mut out = String::new();
    let _ = writeln!(out, "model: {}", path.display());
    let _ = writeln!(out, "producer: {} {}", model.producer_name, model.producer_version);
    let _ = writeln!(out, "ir_version: {}", model.ir_version);
    for o in &model.opset_import {
        let d = if o.domain.is_empty() { "ai.onnx" } else { &o.domain };
        let _ = writeln!(out, "opset: {d} {}", o.version);
    }
    let inits: std::collections::HashSet<&str> = g.initializer.iter().map(|t| t.name.as_str()).collect();
    let _ = writeln!(out, "inputs:");
    for vi in g.input.iter().filter(|v| !inits.contains(v.name.as_str())) {
        let _ = writeln!(out, "  {}: {}", vi.name, describe_type(vi));
    }
    let _ = writeln!(out, "outputs:");
    for vi in &g.output {
        let _ = writeln!(out, "  {}: {}", vi.name, describe_type(vi));
    }
    let (count, bytes) = parameters(g);
    let _ = writeln!(out, "parameters: {count} elements, {bytes} bytes (initializers and Constant nodes)");
    let mut hist = BTreeMap::new();
    histogram(g, &mut hist);
    let _ = writeln!(out, "ops ({} nodes, subgraphs included):", hist.values().sum::<usize>());
    for (op, n) in &hist {
        let _ = writeln!(out, "  {op:<28} {n}");
    }
    match import_file_bound(path, &[]) {
        Ok(imported) => imported_summary(&imported, &mut out),
        Err(e) => {
            let _ = writeln!(out, "import: FAILED\n{e}");
        }
    }
    Ok(out)
}

/// The signature as edgec imported it (anonymous dims named, outputs as
/// inferred), the symbol aliases and the declaration warnings.
fn imported_summary(imported: &Imported, out: &mut String) {
    let m = &imported.module;
    let _ = writeln!(out, "import: ok");
    if let Some(f) = m.funcs.first() {
        let _ = writeln!(out, "  inputs as imported:");
        for &p in &f.body.params {
            let _ = writeln!(out, "    {}: {}", f.values[p].name.as_deref().unwrap_or("?"), f.ty(p));
        }
        let _ = writeln!(out, "  outputs as imported:");
        for (i, t) in f.result_types.iter().enumerate() {
            let name = f.result_names.get(i).cloned().flatten().unwrap_or_else(|| format!("#{i}"));
            let _ = writeln!(out, "    {name}: {t}");
        }
    }
    if let Some(ir::Attr::Strs(pairs)) = m.attrs.get(DIM_ALIASES) {
        let _ = writeln!(out, "  dim aliases (declared ~ inferred, unified):");
        for p in pairs {
            let _ = writeln!(out, "    {p}");
        }
    }
    for w in &imported.warnings {
        let _ = writeln!(out, "  warning: {w}");
    }
}

fn describe_type(vi: &ValueInfoProto) -> String {
    let Some(tp) = &vi.r#type else { return "?".into() };
    match &tp.value {
        Some(type_proto::Value::TensorType(t)) => {
            let dt = dtype_of(t.elem_type).map(|d| d.to_string()).unwrap_or_else(|e| e);
            let dims = match &t.shape {
                None => "*".to_string(),
                Some(s) => s
                    .dim
                    .iter()
                    .map(|d| {
                        use crate::frontend::onnx::proto::tensor_shape_proto::dimension::Value as V;
                        match &d.value {
                            Some(V::DimValue(n)) => n.to_string(),
                            Some(V::DimParam(p)) => p.clone(),
                            None => "?".into(),
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            format!("{dt}[{dims}]")
        }
        Some(type_proto::Value::SequenceType(_)) => "sequence".into(),
        Some(type_proto::Value::OptionalType(_)) => "optional".into(),
        Some(type_proto::Value::MapType(_)) => "map".into(),
        _ => "other".into(),
    }
}

fn parameters(g: &GraphProto) -> (u64, u64) {
    let mut count = 0u64;
    let mut bytes = 0u64;
    let mut add = |t: &crate::frontend::onnx::proto::TensorProto| {
        let n: u64 = t.dims.iter().map(|&d| d.max(0) as u64).product();
        count += n;
        bytes += n * dtype_of(t.data_type).ok().and_then(|d| d.size_bytes()).unwrap_or(0) as u64;
    };
    g.initializer.iter().for_each(&mut add);
    for n in g.node.iter().filter(|n| n.op_type == "Constant") {
        n.attribute.iter().filter_map(|a| a.t.as_ref()).for_each(&mut add);
    }
    (count, bytes)
}

fn histogram(g: &GraphProto, hist: &mut BTreeMap<String, usize>) {
    for n in &g.node {
        let key = if n.domain.is_empty() || n.domain == "ai.onnx" {
            n.op_type.clone()
        } else {
            format!("{}::{}", n.domain, n.op_type)
        };
        *hist.entry(key).or_default() += 1;
        for a in &n.attribute {
            a.g.iter().chain(a.graphs.iter()).for_each(|sub| histogram(sub, hist));
        }
    }
}
