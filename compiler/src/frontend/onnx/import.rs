//! Graph-level import: opsets, initializers, inputs/outputs, node order,
//! scopes for subgraphs, and problem collection.

use super::convert::{convert_node, NodeCx, NodeError};
use super::proto::{type_proto, GraphProto, ModelProto, NodeProto, ValueInfoProto};
use super::tensor::{constant_of, dtype_of, tensor_from_proto};
use super::{ImportError, Problems};
use ir::{Attr, Attrs, Dim, Function, Loc, Module, OpId, Opcode, Shape, Symbol, TensorType, Value};
use prost::Message;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

/// Oldest and newest default-domain opsets edgec imports.
pub const OPSET_RANGE: (i64, i64) = (1, 27);

/// Import an `.onnx` file; external data is resolved relative to it.
/// Warnings about declared types are dropped; see [`import_file_bound`](super::import_file_bound).
pub fn import_file(path: &Path) -> Result<Module, ImportError> {
    let bytes = std::fs::read(path)
        .map_err(|e| ImportError::Io { path: path.display().to_string(), message: e.to_string() })?;
    let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "model".into());
    import_bytes(&bytes, path.parent(), &name)
}

/// Import a serialized `ModelProto`.
pub fn import_bytes(bytes: &[u8], base_dir: Option<&Path>, name: &str) -> Result<Module, ImportError> {
    let model = ModelProto::decode(bytes).map_err(|e| ImportError::Decode(e.to_string()))?;
    import_model(&model, base_dir, name).map(|i| i.module)
}

/// An imported model and what was said about it.
#[derive(Debug)]
pub struct Imported {
    /// The module (it verifies).
    pub module: Module,
    /// One line per value whose declared type contradicts inference (static
    /// size, rank or element type); inference was used.
    pub warnings: Vec<String>,
}

/// Module attribute: `"declared ~ inferred"` pairs of symbol names the model
/// declares for dims that inference names otherwise (see `declared.rs`).
pub use passes::specialize::DIM_ALIASES;

/// Where ops are appended: the function body or a region of an op.
#[derive(Copy, Clone, Debug)]
pub(super) enum Cursor {
    Body,
    Region(OpId, usize),
}

/// Name → value frames; inner graphs see outer names.
#[derive(Default)]
pub(super) struct Scope {
    frames: Vec<HashMap<String, Value>>,
    /// Outputs of nodes that failed to import: later uses are not reported again.
    pub(super) poisoned: HashSet<String>,
}

impl Scope {
    pub(super) fn get(&self, name: &str) -> Option<Value> {
        self.frames.iter().rev().find_map(|f| f.get(name).copied())
    }
    pub(super) fn define(&mut self, name: &str, v: Value) {
        if let Some(f) = self.frames.last_mut() {
            f.insert(name.to_owned(), v);
        }
    }
    pub(super) fn push(&mut self) {
        self.frames.push(HashMap::new());
    }
    pub(super) fn pop(&mut self) {
        self.frames.pop();
    }
}

/// Module-wide import state.
pub(super) struct Importer<'a> {
    pub(super) m: Module,
    /// Default-domain opset version.
    pub(super) opset: i64,
    pub(super) base_dir: Option<&'a Path>,
    unsupported: BTreeMap<String, (usize, String)>,
    pub(super) errors: Vec<String>,
    /// Declared types that contradict inference (inference won), one per value.
    pub(super) warnings: Vec<String>,
    /// Declared symbol names and the inferred symbols they name.
    aliases: BTreeSet<(String, String)>,
    /// Declared types of intermediate values (`value_info`), by name.
    pub(super) value_info: HashMap<String, TensorType>,
    node_counter: usize,
}

pub(super) fn import_model(model: &ModelProto, base_dir: Option<&Path>, name: &str) -> Result<Imported, ImportError> {
    let graph = model.graph.as_ref().ok_or_else(|| ImportError::Decode("model has no graph".into()))?;
    let mut opset = None;
    for o in &model.opset_import {
        if o.domain.is_empty() || o.domain == "ai.onnx" {
            opset = Some(o.version);
        }
    }
    // IR version 1-2 models have no opset_import; they use opset 1.
    let opset = opset.unwrap_or(1);
    if opset < OPSET_RANGE.0 || opset > OPSET_RANGE.1 {
        let (lo, hi) = OPSET_RANGE;
        return Err(ImportError::Decode(format!("default-domain opset {opset} is outside the supported {lo}..={hi}")));
    }
    let mut m = Module::new(name);
    m.attrs.set("onnx.opset", Attr::Int(opset));
    if !model.producer_name.is_empty() {
        m.attrs.set(
            "onnx.producer",
            Attr::Str(format!("{} {}", model.producer_name, model.producer_version).trim().into()),
        );
    }
    let mut imp = Importer {
        m,
        opset,
        base_dir,
        unsupported: BTreeMap::new(),
        errors: Vec::new(),
        warnings: Vec::new(),
        aliases: BTreeSet::new(),
        value_info: HashMap::new(),
        node_counter: 0,
    };
    let mut f = Function::new("main");
    let mut scope = Scope::default();
    scope.push();
    imp.import_main(graph, &mut f, &mut scope)?;
    imp.m.funcs.push(f);
    if !imp.unsupported.is_empty() || !imp.errors.is_empty() {
        let unsupported = imp.unsupported.into_iter().map(|(op, (n, first))| (op, n, first)).collect();
        return Err(ImportError::Problems(Problems { unsupported, errors: imp.errors }));
    }
    if !imp.aliases.is_empty() {
        let pairs = imp.aliases.iter().map(|(d, i)| format!("{d} ~ {i}")).collect();
        imp.m.attrs.set(DIM_ALIASES, Attr::Strs(pairs));
    }
    Ok(Imported { module: imp.m, warnings: imp.warnings })
}

/// The IR type of an ONNX `ValueInfoProto` (tensors only).
pub(super) fn type_of(vi: &ValueInfoProto) -> Result<Option<TensorType>, String> {
    let Some(tp) = &vi.r#type else { return Ok(None) };
    match &tp.value {
        Some(type_proto::Value::TensorType(t)) => {
            let dtype = dtype_of(t.elem_type).map_err(|e| format!("value \"{}\": {e}", vi.name))?;
            let shape = match &t.shape {
                None => Shape::Unranked,
                Some(s) => Shape::from_dims(s.dim.iter().map(dim_of)),
            };
            Ok(Some(TensorType::new(dtype, shape)))
        }
        None => Ok(None),
        Some(other) => {
            let kind = match other {
                type_proto::Value::SequenceType(_) => "sequence",
                type_proto::Value::MapType(_) => "map",
                type_proto::Value::OptionalType(_) => "optional",
                type_proto::Value::SparseTensorType(_) => "sparse tensor",
                _ => "opaque",
            };
            Err(format!("value \"{}\" has a {kind} type, which is not supported", vi.name))
        }
    }
}

fn dim_of(d: &super::proto::tensor_shape_proto::Dimension) -> Dim {
    use super::proto::tensor_shape_proto::dimension::Value as V;
    match &d.value {
        Some(V::DimValue(n)) if *n >= 0 => Dim::Static(*n as u64),
        Some(V::DimParam(p)) if super::declared::is_named(p) => Dim::Sym(Symbol::new(p)),
        _ => Dim::Unknown,
    }
}

/// The type of a graph input: [`type_of`] with every anonymous dim a fresh
/// symbol (`declared::input_dim`).
fn input_type_of(vi: &ValueInfoProto) -> Result<Option<TensorType>, String> {
    let Some(t) = type_of(vi)? else { return Ok(None) };
    let Some(dims) = t.dims() else { return Ok(Some(t)) };
    let params = vi.r#type.as_ref().and_then(|tp| match &tp.value {
        Some(type_proto::Value::TensorType(tt)) => tt.shape.as_ref(),
        _ => None,
    });
    let param = |axis: usize| {
        use super::proto::tensor_shape_proto::dimension::Value as V;
        match params.and_then(|s| s.dim.get(axis)).and_then(|d| d.value.as_ref()) {
            Some(V::DimParam(p)) => Some(p.as_str()),
            _ => None,
        }
    };
    let dims = dims.iter().enumerate().map(|(k, &d)| super::declared::input_dim(d, param(k), &vi.name, k));
    Ok(Some(TensorType::new(t.dtype, Shape::from_dims(dims))))
}

impl<'a> Importer<'a> {
    fn import_main(&mut self, g: &GraphProto, f: &mut Function, scope: &mut Scope) -> Result<(), ImportError> {
        for vi in &g.value_info {
            if let Ok(Some(t)) = type_of(vi) {
                self.value_info.insert(vi.name.clone(), t);
            }
        }
        let init_names: HashSet<&str> = g.initializer.iter().map(|t| t.name.as_str()).collect();
        for vi in g.input.iter().filter(|vi| !init_names.contains(vi.name.as_str())) {
            match input_type_of(vi) {
                Ok(Some(t)) => {
                    let v = f.add_param(Some(vi.name.clone()), t);
                    scope.define(&vi.name, v);
                }
                Ok(None) => self.errors.push(format!("graph input \"{}\" has no type", vi.name)),
                Err(e) => self.errors.push(format!("graph input {e}")),
            }
        }
        // Initializers that are also graph inputs are defaults: edgec uses their values.
        self.import_initializers(g, f, Cursor::Body, scope)?;
        self.import_nodes(&g.node, f, Cursor::Body, scope);
        let (results, types) = self.graph_outputs(g, f, scope);
        f.body.results = results;
        f.result_types = types;
        f.result_names = g.output.iter().map(|o| Some(o.name.clone())).collect();
        Ok(())
    }

    pub(super) fn import_initializers(
        &mut self,
        g: &GraphProto,
        f: &mut Function,
        cursor: Cursor,
        scope: &mut Scope,
    ) -> Result<(), ImportError> {
        for t in &g.initializer {
            let tensor = tensor_from_proto(t, self.base_dir)?;
            let v = self.add_const(f, cursor, &tensor, &t.name, Loc::Unknown);
            scope.define(&t.name, v);
        }
        if let Some(s) = g.sparse_initializer.first() {
            let name = s.values.as_ref().map(|v| v.name.clone()).unwrap_or_default();
            self.errors.push(format!("sparse initializer \"{name}\" is not supported"));
        }
        Ok(())
    }

    /// Add `tensor` to the pool under a unique name derived from `hint`, and a
    /// `core.const` op producing it at `cursor`.
    pub(super) fn add_const(
        &mut self,
        f: &mut Function,
        cursor: Cursor,
        t: &ir::interp::Tensor,
        hint: &str,
        loc: Loc,
    ) -> Value {
        let base = if hint.is_empty() { "const" } else { hint };
        let mut name = base.to_string();
        let mut k = 1;
        while self.m.const_by_name(&name).is_some() {
            name = format!("{base}_{k}");
            k += 1;
        }
        let c = constant_of(t, name.clone());
        let ty = c.ty.clone();
        let _ = self.m.add_const(c);
        let attrs = Attrs::new().with("value", Attr::Sym(name));
        let op = emit(f, cursor, Opcode::CoreConst, vec![], attrs, vec![ty], loc);
        f.result(op)
    }

    /// Import nodes in dependency order (ONNX requires topological order,
    /// some exporters do not honour it). Failures are collected, not fatal.
    pub(super) fn import_nodes(&mut self, nodes: &[NodeProto], f: &mut Function, cursor: Cursor, scope: &mut Scope) {
        for node in topo_order(nodes, scope) {
            self.node_counter += 1;
            let name = if node.name.is_empty() {
                format!("{}_{}", node.op_type, self.node_counter)
            } else {
                node.name.clone()
            };
            let mut cx = NodeCx { imp: self, f, cursor, scope, node, name: name.clone() };
            match convert_node(&mut cx) {
                Ok(()) => {}
                Err(NodeError::Unsupported(key)) => {
                    let e = self.unsupported.entry(key).or_insert((0, name.clone()));
                    e.0 += 1;
                    poison(scope, node);
                }
                Err(NodeError::Poisoned) => poison(scope, node),
                Err(NodeError::Error(msg)) => {
                    self.errors.push(format!("node \"{name}\" ({}): {msg}", node.op_type));
                    poison(scope, node);
                }
            }
        }
    }

    /// Resolve graph outputs to values and declared types.
    pub(super) fn graph_outputs(
        &mut self,
        g: &GraphProto,
        f: &mut Function,
        scope: &Scope,
    ) -> (Vec<Value>, Vec<TensorType>) {
        let mut results = Vec::new();
        let mut types = Vec::new();
        for vi in &g.output {
            let Some(v) = scope.get(&vi.name) else {
                if !scope.poisoned.contains(&vi.name) {
                    self.errors.push(format!("graph output \"{}\" is not produced by any node", vi.name));
                }
                continue;
            };
            let inferred = f.ty(v).clone();
            let ty = match type_of(vi) {
                Ok(Some(declared)) => {
                    let what = format!("graph output \"{}\"", vi.name);
                    let merged = self.merge_declared(&declared, &inferred, &what);
                    // The producing op's result takes the declared static sizes too
                    // (checked when the model runs), so its consumers see them.
                    if matches!(f.values[v].def, ir::ValueDef::Result(..)) {
                        f.values[v].ty = merged.clone();
                    }
                    merged
                }
                Ok(None) => inferred,
                Err(e) => {
                    self.errors.push(format!("graph output {e}"));
                    inferred
                }
            };
            results.push(v);
            types.push(ty);
        }
        (results, types)
    }
}

impl Importer<'_> {
    /// Merge a declared type into an inferred one (`declared.rs`), recording
    /// the conflict as a warning about `what` and the symbol aliases.
    pub(super) fn merge_declared(&mut self, declared: &TensorType, inferred: &TensorType, what: &str) -> TensorType {
        let merged = super::declared::merge(declared, inferred);
        if let Some(c) = merged.conflict {
            self.warnings
                .push(format!("{what}: declared {declared}, inferred {inferred}: {c}; using the inferred type"));
        }
        for (d, i) in merged.aliases {
            self.aliases.insert((d.as_str().to_string(), i.as_str().to_string()));
        }
        merged.ty
    }
}

fn poison(scope: &mut Scope, node: &NodeProto) {
    for o in node.output.iter().filter(|o| !o.is_empty()) {
        scope.poisoned.insert(o.clone());
    }
}

/// Nodes in an order where each node's inputs are produced earlier (stable:
/// the file order whenever it is already valid). Nodes whose inputs never
/// appear are kept at the end so their error is reported.
fn topo_order<'n>(nodes: &'n [NodeProto], scope: &Scope) -> Vec<&'n NodeProto> {
    let produced: HashSet<&str> = nodes.iter().flat_map(|n| n.output.iter().map(String::as_str)).collect();
    let mut available: HashSet<&str> = HashSet::new();
    let mut done = vec![false; nodes.len()];
    let mut out = Vec::with_capacity(nodes.len());
    loop {
        let mut progress = false;
        for (i, n) in nodes.iter().enumerate() {
            if done[i] {
                continue;
            }
            let ready =
                node_inputs(n).all(|x| !produced.contains(x) || available.contains(x) || scope.get(x).is_some());
            if ready {
                done[i] = true;
                progress = true;
                out.push(n);
                available.extend(n.output.iter().map(String::as_str));
            }
        }
        if !progress {
            break;
        }
    }
    out.extend(nodes.iter().enumerate().filter(|(i, _)| !done[*i]).map(|(_, n)| n));
    out
}

/// All names a node reads, including names its subgraphs capture from outside.
fn node_inputs(n: &NodeProto) -> Box<dyn Iterator<Item = &str> + '_> {
    let direct = n.input.iter().map(String::as_str).filter(|s| !s.is_empty());
    let captured = n.attribute.iter().flat_map(|a| a.g.iter().chain(a.graphs.iter())).flat_map(|g| {
        let local: HashSet<&str> = g
            .input
            .iter()
            .map(|v| v.name.as_str())
            .chain(g.initializer.iter().map(|t| t.name.as_str()))
            .chain(g.node.iter().flat_map(|n| n.output.iter().map(String::as_str)))
            .collect();
        g.node.iter().flat_map(node_inputs).filter(move |x| !local.contains(x)).collect::<Vec<_>>()
    });
    Box::new(direct.chain(captured))
}

/// Create an op at `cursor`.
pub(super) fn emit(
    f: &mut Function,
    cursor: Cursor,
    opcode: Opcode,
    operands: Vec<Option<Value>>,
    attrs: Attrs,
    types: Vec<TensorType>,
    loc: Loc,
) -> OpId {
    let id = f.create_op(opcode, operands, attrs, types, loc);
    place(f, cursor, id);
    id
}

/// Append an already created op to the layout at `cursor`.
pub(super) fn place(f: &mut Function, cursor: Cursor, id: OpId) {
    match cursor {
        Cursor::Body => f.body.ops.push(id),
        Cursor::Region(owner, r) => f.ops[owner].regions[r].ops.push(id),
    }
}
