//! Graph-level import: opsets, initializers, inputs/outputs, node order,
//! scopes for subgraphs, and problem collection.

use super::convert::convert_node;
use super::importer::{Cursor, Importer, Scope};
use super::node::{NodeCx, NodeError};
use super::proto::{type_proto, GraphProto, ModelProto, NodeProto, ValueInfoProto};
use super::tensor::tensor_from_proto;
use super::value_info::type_of;
use super::{ImportError, Problems};
use ir::{Attr, Function, Loc, Module, Shape, TensorType, Value};
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
