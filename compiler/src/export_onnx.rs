//! The ONNX writer: an edgec module back to an ONNX model that onnxruntime
//! runs (the cross-check of quantization; the tools issue extends it).
//!
//! `onnx.*` ops become nodes of the default domain with their attributes;
//! `core.const` values become initializers (one per module constant); the
//! `core.*` ops that have an exact ONNX form expand into it ([`core`]).
//! The opset declared is [`OPSET`]: the `onnx.*` dialect holds every op in
//! its newest signature, so the model's original opset does not apply.
//!
//! Invariants: value names are unique and stable (inputs and outputs keep
//! their names, other values are `v<N>` by value id); the same module
//! always gives the same bytes; anything without an ONNX form (regions,
//! ops of other dialects, sub-byte constants) is an error naming the op,
//! all of them listed at once.

mod core;

use crate::frontend::onnx::proto::{
    self, tensor_proto, tensor_shape_proto, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto,
    OperatorSetIdProto, TensorProto, TypeProto, ValueInfoProto,
};
use ir::{Attr, ConstData, DType, Dim, Function, Module, OpData, Opcode, TensorType, Value};
use prost::Message;
use std::collections::{BTreeMap, HashSet};

/// The default-domain opset of exported models.
pub const OPSET: i64 = 21;

/// What could not be exported, one line per op.
#[derive(Debug, thiserror::Error)]
#[error("cannot export to ONNX:\n  {}", .0.join("\n  "))]
pub struct ExportError(pub Vec<String>);

/// The bytes of the ONNX model for `m`'s `@main`.
pub fn to_bytes(m: &Module) -> Result<Vec<u8>, ExportError> {
    Ok(to_model(m)?.encode_to_vec())
}

/// The ONNX model for `m`'s `@main`.
pub fn to_model(m: &Module) -> Result<ModelProto, ExportError> {
    let f = m.func("main").ok_or_else(|| ExportError(vec!["the module has no @main function".into()]))?;
    let mut g = Graph::new(m, f);
    let mut errs = Vec::new();
    for &id in &f.body.ops {
        let op = &f.ops[id];
        if let Err(e) = g.op(op) {
            errs.push(format!("{} ({}): {e}", op.opcode.name(), op.loc));
        }
    }
    let inputs = f.body.params.iter().map(|&p| value_info(&g.name(p), f.ty(p))).collect();
    let mut outputs = Vec::new();
    for (i, &r) in f.body.results.iter().enumerate() {
        let want = f.result_names.get(i).cloned().flatten().unwrap_or_else(|| format!("output_{i}"));
        let have = g.name(r);
        if have != want {
            // A result read elsewhere, or an input returned as is: name it through Identity.
            g.node("Identity", vec![have], vec![want.clone()], vec![]);
        }
        outputs.push(value_info(&want, &f.result_types[i]));
    }
    if !errs.is_empty() {
        return Err(ExportError(errs));
    }
    let graph = GraphProto {
        node: g.nodes,
        name: m.name.clone(),
        initializer: g.inits.into_values().collect(),
        input: inputs,
        output: outputs,
        ..Default::default()
    };
    Ok(ModelProto {
        ir_version: 10,
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: OPSET }],
        producer_name: "edgec".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        graph: Some(graph),
        ..Default::default()
    })
}

/// The graph being written.
struct Graph<'m> {
    m: &'m Module,
    f: &'m Function,
    nodes: Vec<NodeProto>,
    /// Initializers by name (sorted, so output order is stable).
    inits: BTreeMap<String, TensorProto>,
    /// Names given to values defined by `core.const` (the constant's name).
    aliases: BTreeMap<Value, String>,
    /// Names taken by inputs and outputs (other values avoid them).
    reserved: HashSet<String>,
    fresh: usize,
}

impl<'m> Graph<'m> {
    fn new(m: &'m Module, f: &'m Function) -> Graph<'m> {
        let mut reserved: HashSet<String> = f.body.params.iter().filter_map(|&p| f.values[p].name.clone()).collect();
        reserved.extend(f.result_names.iter().flatten().cloned());
        Graph { m, f, nodes: vec![], inits: BTreeMap::new(), aliases: BTreeMap::new(), reserved, fresh: 0 }
    }

    /// The ONNX name of `v`: an input's name, the result name it is returned
    /// under, its constant's name, or `v<N>`.
    fn name(&self, v: Value) -> String {
        if let Some(a) = self.aliases.get(&v) {
            return a.clone();
        }
        if let Some(n) = self.f.values[v].name.clone().filter(|_| self.f.body.params.contains(&v)) {
            return n;
        }
        if let Some(i) = self.f.body.results.iter().position(|&r| r == v) {
            let returned_once = self.f.body.results.iter().filter(|&&r| r == v).count() == 1;
            if let Some(Some(n)) = self.f.result_names.get(i).filter(|_| returned_once) {
                return n.clone();
            }
        }
        let mut n = format!("v{}", v.as_u32());
        while self.reserved.contains(&n) {
            n.push('_');
        }
        n
    }

    /// The rank of `v`'s type (0 when unknown).
    fn rank(&self, v: Option<Value>) -> usize {
        v.and_then(|v| self.f.ty(v).shape.dims().map(|d| d.len())).unwrap_or(0)
    }

    /// A fresh name for an intermediate of an expansion.
    fn temp(&mut self, base: &str) -> String {
        self.fresh += 1;
        let mut n = format!("{base}.{}", self.fresh);
        while self.reserved.contains(&n) {
            n.push('_');
        }
        n
    }

    fn node(&mut self, op_type: &str, input: Vec<String>, output: Vec<String>, attribute: Vec<AttributeProto>) {
        let name = format!("{op_type}_{}", self.nodes.len());
        self.nodes.push(NodeProto { input, output, name, op_type: op_type.into(), attribute, ..Default::default() });
    }

    /// An int64 initializer (shapes, axes) under a fresh name.
    fn ints(&mut self, base: &str, xs: &[i64]) -> String {
        let name = self.temp(base);
        let t = TensorProto {
            dims: vec![xs.len() as i64],
            data_type: tensor_proto::DataType::Int64 as i32,
            name: name.clone(),
            raw_data: xs.iter().flat_map(|x| x.to_le_bytes()).collect(),
            ..Default::default()
        };
        self.inits.insert(name.clone(), t);
        name
    }

    /// A scalar f32 initializer under a fresh name.
    fn scalar(&mut self, base: &str, x: f32) -> String {
        let name = self.temp(base);
        let t = TensorProto {
            data_type: tensor_proto::DataType::Float as i32,
            name: name.clone(),
            raw_data: x.to_le_bytes().to_vec(),
            ..Default::default()
        };
        self.inits.insert(name.clone(), t);
        name
    }

    fn op(&mut self, op: &OpData) -> Result<(), String> {
        if !op.regions.is_empty() {
            return Err("ops with regions (If, Loop, Scan) are not exported yet".into());
        }
        if op.opcode == Opcode::CoreConst {
            return self.constant(op);
        }
        let inputs: Vec<String> = op.operands.iter().map(|v| v.map(|v| self.name(v)).unwrap_or_default()).collect();
        let outputs: Vec<String> = op.results.iter().map(|&r| self.name(r)).collect();
        match op.opcode.name().split_once('.').map_or("", |(d, _)| d) {
            "onnx" => {
                let short = op.opcode.name().trim_start_matches("onnx.");
                let attrs = op
                    .attrs
                    .iter()
                    .map(|(k, a)| match a {
                        // Tensor-valued attributes (ConstantOfShape's `value`) live in the constant pool.
                        Attr::Sym(sym) => self.tensor_attribute(k, sym),
                        _ => attribute(k, a),
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                self.node(short, inputs, outputs, attrs);
                Ok(())
            }
            "core" => core::expand(self, op, inputs, outputs),
            d => Err(format!("dialect `{d}` has no ONNX form")),
        }
    }

    /// A `core.const`: its module constant becomes one initializer, shared by
    /// every op that reads it.
    fn constant(&mut self, op: &OpData) -> Result<(), String> {
        let c = self.m.const_of_op(op).ok_or("constant symbol not found")?;
        let r = op.results[0];
        self.aliases.insert(r, c.name.clone());
        if self.inits.contains_key(&c.name) {
            return Ok(());
        }
        let t = tensor(c)?;
        self.inits.insert(c.name.clone(), t);
        Ok(())
    }

    /// A TENSOR attribute holding module constant `sym`.
    fn tensor_attribute(&self, name: &str, sym: &str) -> Result<AttributeProto, String> {
        let id = self.m.const_by_name(sym).ok_or_else(|| format!("attribute `{name}`: no constant @{sym}"))?;
        let t = tensor(&self.m.consts[id])?;
        let ty = proto::attribute_proto::AttributeType::Tensor as i32;
        Ok(AttributeProto { name: name.into(), r#type: ty, t: Some(t), ..Default::default() })
    }
}

/// A module constant as a TensorProto (byte-sized element types).
fn tensor(c: &ir::Constant) -> Result<TensorProto, String> {
    let dims = c.ty.shape.static_dims().ok_or("constant without a static shape")?;
    let (ConstData::Bytes(b), Some(_)) = (&c.data, c.ty.dtype.size_bytes()) else {
        return Err(format!("{} constants are not exported yet", c.ty.dtype));
    };
    if c.ty.dtype.is_low_int() || c.ty.dtype.is_low_float() {
        return Err(format!("{} constants are not exported yet", c.ty.dtype));
    }
    Ok(TensorProto {
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: data_type(c.ty.dtype)?,
        name: c.name.clone(),
        raw_data: b.to_vec(),
        ..Default::default()
    })
}

/// The ONNX element-type code of `d` (the inverse of the importer's table).
fn data_type(d: DType) -> Result<i32, String> {
    (1..=26)
        .find(|&c| crate::frontend::onnx::tensor::dtype_of(c).is_ok_and(|x| x == d))
        .ok_or_else(|| format!("element type {d} has no ONNX code"))
}

fn value_info(name: &str, ty: &TensorType) -> ValueInfoProto {
    let dims = ty.shape.dims().map(|ds| {
        ds.iter()
            .map(|d| tensor_shape_proto::Dimension {
                value: Some(match d {
                    Dim::Static(n) => tensor_shape_proto::dimension::Value::DimValue(*n as i64),
                    other => tensor_shape_proto::dimension::Value::DimParam(other.to_string()),
                }),
                ..Default::default()
            })
            .collect()
    });
    let tensor = type_proto::Tensor {
        elem_type: data_type(ty.dtype).unwrap_or(0),
        shape: dims.map(|dim| proto::TensorShapeProto { dim }),
    };
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(tensor)), ..Default::default() }),
        ..Default::default()
    }
}

/// An IR attribute as an ONNX attribute.
fn attribute(name: &str, a: &Attr) -> Result<AttributeProto, String> {
    use proto::attribute_proto::AttributeType as T;
    let mut p = AttributeProto { name: name.into(), ..Default::default() };
    let ty = match a {
        Attr::Int(i) => {
            p.i = *i;
            T::Int
        }
        Attr::Float(f) => {
            p.f = *f;
            T::Float
        }
        Attr::Str(s) => {
            p.s = s.as_bytes().to_vec();
            T::String
        }
        Attr::Ints(v) => {
            p.ints = v.clone();
            T::Ints
        }
        Attr::Floats(v) => {
            p.floats = v.clone();
            T::Floats
        }
        Attr::Strs(v) => {
            p.strings = v.iter().map(|s| s.as_bytes().to_vec()).collect();
            T::Strings
        }
        Attr::Type(d) => {
            p.i = i64::from(data_type(*d)?);
            T::Int
        }
        Attr::Sym(s) => return Err(format!("attribute `{name}` refers to symbol @{s}")),
    };
    p.r#type = ty as i32;
    Ok(p)
}
