//! Import state shared by graph-level (`import`) and node-level (`node`,
//! `convert`, `control`, `contrib`) import: the module being built, name
//! scopes, and where ops are appended.

use super::tensor::constant_of;
use ir::{Attr, Attrs, Function, Loc, Module, OpId, Opcode, TensorType, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

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
    pub(super) unsupported: BTreeMap<String, (usize, String)>,
    pub(super) errors: Vec<String>,
    /// Declared types that contradict inference (inference won), one per value.
    pub(super) warnings: Vec<String>,
    /// Declared symbol names and the inferred symbols they name.
    pub(super) aliases: BTreeSet<(String, String)>,
    /// Declared types of intermediate values (`value_info`), by name.
    pub(super) value_info: HashMap<String, TensorType>,
    pub(super) node_counter: usize,
}

impl Importer<'_> {
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
