//! The node being imported (`NodeCx`): its inputs, attributes and outputs,
//! and how its ops are emitted; shared by every node-level importer.

use super::importer::{place, Cursor, Importer, Scope};
use super::proto::{attribute_proto::AttributeType as AT, AttributeProto, NodeProto};
use super::tensor::{dtype_of, tensor_from_proto};
use ir::interp::{Data, Tensor};
use ir::{Attr, AttrKind, Attrs, DType, Function, Loc, Opcode, TensorType, Value};

/// Why a node could not be imported.
pub(super) enum NodeError {
    /// The op (`domain::op_type` key) has no importer.
    Unsupported(String),
    /// An input comes from a node that already failed (reported there).
    Poisoned,
    /// Anything else, with a message.
    Error(String),
}

impl From<String> for NodeError {
    fn from(s: String) -> Self {
        NodeError::Error(s)
    }
}

impl From<&str> for NodeError {
    fn from(s: &str) -> Self {
        NodeError::Error(s.to_owned())
    }
}

pub(super) type NResult<T> = Result<T, NodeError>;

/// The node being imported and where its ops go.
pub(super) struct NodeCx<'i, 'a, 'f> {
    pub(super) imp: &'i mut Importer<'a>,
    pub(super) f: &'f mut Function,
    pub(super) cursor: Cursor,
    pub(super) scope: &'f mut Scope,
    pub(super) node: &'f NodeProto,
    pub(super) name: String,
}

/// Attributes dropped on import because they have no effect in inference
/// (legacy optimization hints and training-only switches).
const IGNORED_ATTRS: &[&str] = &["consumed_inputs", "is_test"];

impl NodeCx<'_, '_, '_> {
    pub(super) fn loc(&self) -> Loc {
        Loc::onnx(self.name.clone(), self.node.op_type.clone())
    }
    fn opset(&self) -> i64 {
        self.imp.opset
    }
    pub(super) fn attr(&self, name: &str) -> Option<&AttributeProto> {
        self.node.attribute.iter().find(|a| a.name == name)
    }
    pub(super) fn inputs(&self) -> NResult<Vec<Option<Value>>> {
        let mut out = Vec::new();
        for name in &self.node.input {
            if name.is_empty() {
                out.push(None);
            } else if let Some(v) = self.scope.get(name) {
                out.push(Some(v));
            } else if self.scope.poisoned.contains(name) {
                return Err(NodeError::Poisoned);
            } else {
                return Err(format!("input \"{name}\" is not produced by any node, initializer or graph input").into());
            }
        }
        Ok(out)
    }
    pub(super) fn num_outputs(&self) -> usize {
        self.node.output.iter().rposition(|o| !o.is_empty()).map_or(0, |i| i + 1)
    }

    /// Add a constant (from a tensor) at the node's position.
    pub(super) fn constant(&mut self, t: &Tensor, hint: &str) -> Value {
        let hint = format!("{}.{hint}", self.name);
        let loc = self.loc();
        self.imp.add_const(self.f, self.cursor, t, &hint, loc)
    }
    pub(super) fn const_i64s(&mut self, vals: &[i64], hint: &str) -> Value {
        self.constant(&Tensor::from_i64s(vals.to_vec()), hint)
    }

    /// Emit an op, inferring its result types (refined by `value_info` when
    /// `outputs` names them). Returns the result values.
    pub(super) fn emit(
        &mut self,
        opcode: Opcode,
        operands: Vec<Option<Value>>,
        attrs: Attrs,
        n: usize,
        outputs: &[String],
    ) -> NResult<Vec<Value>> {
        // Create the op unplaced with placeholder result types, infer, then
        // give it the inferred (and value_info-refined) types and place it.
        let placeholder = vec![TensorType::unranked(DType::F32); n];
        let loc = self.loc();
        let op = self.f.create_op(opcode, operands, attrs, placeholder, loc);
        let inferred =
            ir::infer::infer_op(&self.imp.m, self.f, &self.f.ops[op]).map_err(|e| format!("{}: {e}", opcode.name()))?;
        let results = self.f.ops[op].results.to_vec();
        if inferred.len() != results.len() {
            return Err(
                format!("{}: inference gives {} results for {} outputs", opcode.name(), inferred.len(), n).into()
            );
        }
        for (i, (t, &v)) in inferred.into_iter().zip(&results).enumerate() {
            self.f.values[v].ty = self.declared(outputs.get(i), t);
        }
        place(self.f, self.cursor, op);
        Ok(results)
    }

    /// The type of node output `output` inferred as `inferred`, merged with
    /// its `value_info` declaration if any (warnings go to the importer).
    pub(super) fn declared(&mut self, output: Option<&String>, inferred: TensorType) -> TensorType {
        let Some(name) = output else { return inferred };
        let Some(d) = self.imp.value_info.get(name).cloned() else { return inferred };
        let what = format!("node \"{}\" ({}): output \"{name}\"", self.name, self.node.op_type);
        self.imp.merge_declared(&d, &inferred, &what)
    }

    /// Emit the node's main op and bind its outputs.
    pub(super) fn emit_outputs(&mut self, opcode: Opcode, operands: Vec<Option<Value>>, attrs: Attrs) -> NResult<()> {
        let n = self.num_outputs();
        let outputs = self.node.output.clone();
        let vals = self.emit(opcode, operands, attrs, n, &outputs)?;
        self.bind(&vals);
        Ok(())
    }
    pub(super) fn bind(&mut self, vals: &[Value]) {
        for (name, &v) in self.node.output.iter().zip(vals) {
            if !name.is_empty() {
                self.scope.define(name, v);
            }
        }
    }

    /// Convert the node's attributes per the op's schema, skipping `skip`.
    pub(super) fn attrs(&mut self, opcode: Opcode, skip: &[&str]) -> NResult<Attrs> {
        let mut out = Attrs::new();
        let node = self.node;
        for a in &node.attribute {
            if skip.contains(&a.name.as_str()) || IGNORED_ATTRS.contains(&a.name.as_str()) {
                continue;
            }
            if !a.ref_attr_name.is_empty() {
                return Err(format!("attribute `{}` refers to a function attribute", a.name).into());
            }
            let Some(spec) = opcode.def().attr(&a.name) else {
                let msg =
                    format!("attribute `{}` is not supported for {} (opset {})", a.name, node.op_type, self.opset());
                return Err(msg.into());
            };
            let v = self.attr_value(a, spec.kind)?;
            out.set(a.name.clone(), v);
        }
        Ok(out)
    }

    fn attr_value(&mut self, a: &AttributeProto, kind: AttrKind) -> NResult<Attr> {
        let ty = AT::try_from(a.r#type).unwrap_or(AT::Undefined);
        let bad = || {
            NodeError::Error(format!(
                "attribute `{}` has ONNX type {}, expected {}",
                a.name,
                ty.as_str_name(),
                kind.describe()
            ))
        };
        let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
        Ok(match (kind, ty) {
            (AttrKind::Int, AT::Int) => Attr::Int(a.i),
            (AttrKind::Float, AT::Float) => Attr::Float(a.f),
            (AttrKind::Float, AT::Int) => Attr::Float(a.i as f32),
            (AttrKind::Str | AttrKind::Enum(_), AT::String) => Attr::Str(s(&a.s)),
            (AttrKind::Ints, AT::Ints) => Attr::Ints(a.ints.clone()),
            (AttrKind::Floats, AT::Floats) => Attr::Floats(a.floats.clone()),
            (AttrKind::Strs, AT::Strings) => Attr::Strs(a.strings.iter().map(|b| s(b)).collect()),
            (AttrKind::Type, AT::Int) => {
                Attr::Type(dtype_of(a.i as i32).map_err(|e| format!("attribute `{}`: {e}", a.name))?)
            }
            (AttrKind::Sym, AT::Tensor) => {
                let t = a.t.as_ref().ok_or_else(bad)?;
                let t = tensor_from_proto(t, self.imp.base_dir).map_err(|e| e.to_string())?;
                let v = self.constant(&t, &a.name);
                let name = match self.f.ops[value_op(self.f, v)].attrs.get("value") {
                    Some(Attr::Sym(s)) => s.clone(),
                    _ => return Err(bad()),
                };
                Attr::Sym(name)
            }
            _ => return Err(bad()),
        })
    }
}

fn value_op(f: &Function, v: Value) -> ir::OpId {
    match f.values[v].def {
        ir::ValueDef::Result(op, _) => op,
        _ => unreachable!("constants are op results"),
    }
}

/// Helpers for the opset upgrade rules in `upgrade.rs`.
impl NodeCx<'_, '_, '_> {
    /// Emit `opcode` with `operands`, converting the node's attributes except `skip`, plus `extra`.
    pub(super) fn emit_with(
        &mut self,
        opcode: Opcode,
        operands: Vec<Option<Value>>,
        skip: &[&str],
        extra: Attrs,
    ) -> NResult<()> {
        let mut attrs = self.attrs(opcode, skip)?;
        for (k, v) in extra.iter() {
            attrs.set(k, v.clone());
        }
        self.emit_outputs(opcode, operands, attrs)
    }
    /// Emit an intermediate op (not bound to node outputs).
    pub(super) fn emit_tmp(&mut self, opcode: Opcode, operands: Vec<Option<Value>>, attrs: Attrs) -> NResult<Value> {
        Ok(self.emit(opcode, operands, attrs, 1, &[])?[0])
    }
    /// Integer-list attribute as a constant operand, if present.
    pub(super) fn ints_operand(&mut self, name: &str) -> Option<Value> {
        let vals = self.attr(name)?.ints.clone();
        Some(self.const_i64s(&vals, name))
    }
    /// A scalar constant of `dt` holding `x`.
    pub(super) fn scalar(&mut self, dt: DType, x: f64, hint: &str) -> NResult<Value> {
        let t = Tensor::new(vec![], Data::F64(vec![x]));
        let t = ir::interp::eval_op(Opcode::Cast, &[Some(t)], Attrs::new().with("to", Attr::Type(dt)), 1)
            .map_err(|e| format!("cannot make a {dt} constant: {e}"))?;
        Ok(self.constant(&t[0], hint))
    }
    /// The type of a value.
    pub(super) fn ty(&self, v: Value) -> &TensorType {
        self.f.ty(v)
    }
    /// The ONNX opset in effect.
    pub(super) fn version(&self) -> i64 {
        self.opset()
    }
}
