//! A function's dataflow into an e-graph, and an extracted choice back into
//! the function.
//!
//! Only the body is translated; ops with regions or side effects become
//! `Opaque` nodes that keep their original op (regions untouched here: each is
//! optimized on its own as a scope, see `regions`) and take the values their
//! regions capture as extra children, so extraction keeps those values alive
//! and emission can rewire them.

use super::analysis::{EAnalysis, EG};
use super::lang::ENode;
use egg::{Id, Language};
use ir::infer::meet_type;
use ir::ops::flags::PURE;
use ir::{Attr, Function, Loc, Module, OpId, Opcode, Region, TensorType, Value};
use smallvec::SmallVec;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

/// A function translated into an e-graph.
pub struct Imported {
    /// The e-graph.
    pub eg: EG,
    /// Classes of the function results, in order.
    pub roots: Vec<Id>,
    /// Original op of each opaque node, by opaque index.
    pub opaque: Vec<OpId>,
    /// Captured outer values of each opaque op (children after the operands).
    pub captures: Vec<Vec<Value>>,
    /// Classes of the original ops' results, in program order (emission order hint).
    pub order: Vec<Id>,
    /// Classes of opaque nodes: always emitted (they may have side effects).
    pub opaque_roots: Vec<Id>,
}

/// Translate the body of `f` into a fresh e-graph using `analysis` (whose
/// interner may already hold the rule set's attribute literals).
pub fn import(m: &Module, f: &Function, mut analysis: EAnalysis) -> Result<Imported, String> {
    analysis.params = f.body.params.iter().map(|&p| f.ty(p).clone()).collect();
    let mut eg = EG::new(analysis);
    let uses = f.use_counts();
    let mut cls: HashMap<Value, Id> = HashMap::new();
    for (i, &p) in f.body.params.iter().enumerate() {
        cls.insert(p, eg.add(ENode::Param(i as u32)));
    }
    let absent = eg.add(ENode::Absent);
    let mut imp = Imported { eg, roots: vec![], opaque: vec![], captures: vec![], order: vec![], opaque_roots: vec![] };
    for &id in &f.body.ops {
        let op = &f.ops[id];
        let node = if op.opcode == Opcode::CoreConst {
            const_node(m, &mut imp.eg, op)?
        } else if op.opcode.def().has(PURE) && op.regions.is_empty() {
            let mut args: SmallVec<[Id; 4]> = op.operands.iter().map(|o| o.map_or(absent, |v| cls[&v])).collect();
            // Omitted trailing optionals are explicit `Absent` leaves, so patterns see one arity per op.
            if !is_variadic(op.opcode) {
                args.resize(args.len().max(op.opcode.def().operands.len()), absent);
            }
            for (_, attr) in op.attrs.iter() {
                if let Attr::Sym(name) = attr {
                    if let Some(c) = m.const_by_name(name).map(|id| m.consts[id].clone()) {
                        imp.eg.analysis.sym_consts.insert(name.clone(), Arc::new(c));
                    }
                }
            }
            let a = imp.eg.analysis.attrs.intern(&op.attrs);
            args.push(imp.eg.add(ENode::Attrs(a)));
            ENode::Op { op: op.opcode, results: op.results.len() as u32, args }
        } else {
            opaque_node(f, id, &mut imp, &cls, absent)
        };
        let is_opaque = matches!(node, ENode::Opaque { .. });
        let cid = imp.eg.add(node);
        if is_opaque {
            imp.opaque_roots.push(cid);
        }
        let tys: Vec<TensorType> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
        refine(&mut imp.eg, cid, &tys, &op.loc);
        if op.results.len() == 1 {
            bind(&mut imp, &mut cls, op.results[0], cid, uses[op.results[0].as_u32() as usize]);
        } else {
            for (i, &r) in op.results.iter().enumerate() {
                let p = imp.eg.add(ENode::Proj { index: i as u32, arg: [cid] });
                refine(&mut imp.eg, p, &tys[i..=i], &op.loc);
                bind(&mut imp, &mut cls, r, p, uses[r.as_u32() as usize]);
            }
        }
    }
    imp.roots = f.body.results.iter().map(|v| cls[v]).collect();
    imp.eg.rebuild();
    Ok(imp)
}

/// True if the op's last operand slot is variadic.
pub fn is_variadic(op: Opcode) -> bool {
    op.def().operands.iter().any(|s| matches!(s.slot, ir::ops::Slot::Variadic(_)))
}

fn bind(imp: &mut Imported, cls: &mut HashMap<Value, Id>, v: Value, id: Id, uses: u32) {
    cls.insert(v, id);
    imp.order.push(id);
    imp.eg[id].data.orig_uses += uses;
}

/// Tighten the class types with the declared (verified) types and record provenance.
fn refine(eg: &mut EG, id: Id, declared: &[TensorType], loc: &Loc) {
    let d = &mut eg[id].data;
    if d.tys.len() == declared.len() {
        let met: Option<SmallVec<[TensorType; 1]>> =
            d.tys.iter().zip(declared).map(|(a, b)| meet_type(b, a).ok()).collect();
        d.tys = met.unwrap_or_else(|| declared.iter().cloned().collect());
    } else {
        d.tys = declared.iter().cloned().collect();
    }
    super::analysis::fuse_into(&mut d.loc, loc);
}

fn const_node(m: &Module, eg: &mut EG, op: &ir::OpData) -> Result<ENode, String> {
    let Some(Attr::Sym(name)) = op.attrs.get("value") else { return Err("core.const without value".into()) };
    let c = m.const_of_op(op).ok_or_else(|| format!("core.const refers to unknown constant @{name}"))?;
    let k = eg.analysis.consts.intern(Arc::new(c.clone()), Some(name.clone()));
    Ok(ENode::Const(k))
}

fn opaque_node(f: &Function, id: OpId, imp: &mut Imported, cls: &HashMap<Value, Id>, absent: Id) -> ENode {
    let op = &f.ops[id];
    let index = imp.opaque.len() as u32;
    let mut args: SmallVec<[Id; 4]> = op.operands.iter().map(|o| o.map_or(absent, |v| cls[&v])).collect();
    let caps = captured_values(f, &op.regions);
    args.extend(caps.iter().filter_map(|v| cls.get(v).copied()));
    imp.opaque.push(id);
    imp.captures.push(caps.into_iter().filter(|v| cls.contains_key(v)).collect());
    imp.eg.analysis.opaque_types.push(op.results.iter().map(|&v| f.ty(v).clone()).collect());
    ENode::Opaque { index, args }
}

/// Values used inside `regions` but defined outside them, in first-use order.
pub(crate) fn captured_values(f: &Function, regions: &[Region]) -> Vec<Value> {
    let mut defined = HashSet::new();
    let mut used = Vec::new();
    fn walk(f: &Function, r: &Region, defined: &mut HashSet<Value>, used: &mut Vec<Value>) {
        defined.extend(r.params.iter().copied());
        for &id in &r.ops {
            let op = &f.ops[id];
            used.extend(op.inputs());
            for sub in &op.regions {
                walk(f, sub, defined, used);
            }
            defined.extend(op.results.iter().copied());
        }
        used.extend(r.results.iter().copied());
    }
    for r in regions {
        walk(f, r, &mut defined, &mut used);
    }
    let mut seen = HashSet::new();
    used.into_iter().filter(|v| !defined.contains(v) && seen.insert(*v)).collect()
}

/// Rebuild the body of `m.funcs[fi]` from the chosen node of every needed class.
pub fn emit(m: &mut Module, fi: usize, imp: &Imported, choice: &HashMap<Id, ENode>) -> Result<(), String> {
    let mut e = Emitter { imp, choice, memo: HashMap::new(), layout: vec![], remap: HashMap::new(), fresh: 0 };
    let needed = e.needed()?;
    let order: Vec<Id> = imp.order.iter().chain(&imp.opaque_roots).chain(&imp.roots).copied().collect();
    for c in order {
        let c = imp.eg.find(c);
        if needed.contains(&c) {
            e.emit(m, fi, c)?;
        }
    }
    let results: Vec<Value> = imp.roots.iter().map(|&r| e.value(r)).collect::<Result<_, _>>()?;
    let (layout, remap) = (std::mem::take(&mut e.layout), std::mem::take(&mut e.remap));
    let f = &mut m.funcs[fi];
    f.body.ops = layout;
    f.body.results = results;
    inherit_locs(f);
    for &op in &imp.opaque {
        let mut regions = std::mem::take(&mut f.ops[op].regions);
        for r in &mut regions {
            remap_region(f, r, &remap);
        }
        f.ops[op].regions = regions;
    }
    Ok(())
}

/// Ops a rewrite built that match nothing of the input (the variance chain
/// of a LayerNorm the target re-expands) have no provenance of their own:
/// they take that of their first reader with one (the rewritten op), so an
/// error or a fallback report about them still names an ONNX node.
fn inherit_locs(f: &mut Function) {
    let mut reader: HashMap<Value, Loc> = HashMap::new();
    for &id in f.body.ops.iter().rev() {
        let op = &mut f.ops[id];
        if matches!(op.loc, Loc::Unknown) && op.opcode != Opcode::CoreConst {
            if let Some(l) = op.results.iter().find_map(|r| reader.get(r)) {
                op.loc = l.clone();
            }
        }
        if !matches!(op.loc, Loc::Unknown) {
            for v in op.operands.iter().flatten() {
                reader.insert(*v, op.loc.clone());
            }
        }
    }
}

pub(crate) fn remap_region(f: &mut Function, r: &mut Region, map: &HashMap<Value, Value>) {
    for v in r.results.iter_mut() {
        *v = *map.get(v).unwrap_or(v);
    }
    for &id in &r.ops {
        for v in f.ops[id].operands.iter_mut().flatten() {
            *v = *map.get(v).unwrap_or(v);
        }
        let mut regions = std::mem::take(&mut f.ops[id].regions);
        for sub in &mut regions {
            remap_region(f, sub, map);
        }
        f.ops[id].regions = regions;
    }
}

struct Emitter<'a> {
    imp: &'a Imported,
    choice: &'a HashMap<Id, ENode>,
    memo: HashMap<Id, SmallVec<[Value; 1]>>,
    layout: Vec<OpId>,
    remap: HashMap<Value, Value>,
    fresh: usize,
}

impl Emitter<'_> {
    fn node(&self, c: Id) -> Result<&ENode, String> {
        let c = self.imp.eg.find(c);
        self.choice.get(&c).ok_or_else(|| format!("extraction chose nothing for e-class {c}"))
    }

    /// Classes reachable from the roots through chosen nodes.
    fn needed(&self) -> Result<HashSet<Id>, String> {
        let mut seen = HashSet::new();
        let mut stack: Vec<Id> = self.imp.roots.iter().chain(&self.imp.opaque_roots).copied().collect();
        while let Some(c) = stack.pop() {
            let c = self.imp.eg.find(c);
            if seen.insert(c) {
                stack.extend(self.node(c)?.children().iter().copied());
            }
        }
        Ok(seen)
    }

    fn value(&self, c: Id) -> Result<Value, String> {
        let c = self.imp.eg.find(c);
        match self.memo.get(&c).map(|v| v.as_slice()) {
            Some([v]) => Ok(*v),
            _ => Err(format!("e-class {c} is not a single emitted value")),
        }
    }

    /// Emit class `root` and everything it needs, children first (iteratively:
    /// graphs are deep).
    fn emit(&mut self, m: &mut Module, fi: usize, root: Id) -> Result<(), String> {
        let mut stack = vec![(root, false)];
        let mut on_stack = HashSet::new();
        while let Some((c, expanded)) = stack.pop() {
            let c = self.imp.eg.find(c);
            if self.memo.contains_key(&c) || matches!(self.node(c)?, ENode::Attrs(_) | ENode::Absent) {
                continue;
            }
            if expanded {
                on_stack.remove(&c);
                let vals = self.emit_node(m, fi, c)?;
                self.memo.insert(c, vals);
                continue;
            }
            if !on_stack.insert(c) {
                return Err(format!("extraction produced a cycle through e-class {c}"));
            }
            stack.push((c, true));
            for &ch in self.node(c)?.children().iter().rev() {
                if !self.memo.contains_key(&self.imp.eg.find(ch)) {
                    stack.push((ch, false));
                }
            }
        }
        Ok(())
    }

    fn operand(&self, c: Id) -> Result<Option<Value>, String> {
        match self.node(c)? {
            ENode::Absent => Ok(None),
            _ => self.value(c).map(Some),
        }
    }

    fn emit_node(&mut self, m: &mut Module, fi: usize, c: Id) -> Result<SmallVec<[Value; 1]>, String> {
        let eg = &self.imp.eg;
        let data = &eg[c].data;
        let node = self.node(c)?.clone();
        let vals: SmallVec<[Value; 1]> = match &node {
            ENode::Param(i) => [m.funcs[fi].body.params[*i as usize]].into_iter().collect(),
            ENode::Proj { index, arg } => {
                let t = self.memo.get(&eg.find(arg[0])).ok_or("projection of an unemitted tuple")?;
                [t[*index as usize]].into_iter().collect()
            }
            ENode::Const(k) => {
                let name = self.const_name(m, *k)?;
                let attrs = ir::Attrs::new().with("value", Attr::Sym(name));
                let ty = eg.analysis.consts.get(*k).ty.clone();
                self.push(m, fi, Opcode::CoreConst, vec![], attrs, vec![ty], Loc::Unknown)
            }
            ENode::Op { op, args, .. } => {
                let (a, operands) = args.split_last().ok_or("op node without attrs")?;
                let mut operands: Vec<Option<Value>> =
                    operands.iter().map(|&o| self.operand(o)).collect::<Result<_, _>>()?;
                while operands.last() == Some(&None) {
                    operands.pop();
                }
                let attrs = EAnalysis::attrs_of(eg, *a).ok_or("missing attrs leaf")?.clone();
                if data.tys.is_empty() {
                    return Err(format!("untyped {} node in extraction", op.name()));
                }
                self.push(m, fi, *op, operands, attrs, data.tys.to_vec(), data.loc.clone())
            }
            ENode::Opaque { index, args } => self.emit_opaque(m, fi, *index as usize, args)?,
            ENode::Attrs(_) | ENode::Absent => SmallVec::new(),
        };
        Ok(vals)
    }

    fn emit_opaque(
        &mut self,
        m: &mut Module,
        fi: usize,
        index: usize,
        args: &[Id],
    ) -> Result<SmallVec<[Value; 1]>, String> {
        let op = self.imp.opaque[index];
        let f = &mut m.funcs[fi];
        let n = f.ops[op].operands.len();
        for (i, &a) in args[..n].iter().enumerate() {
            f.ops[op].operands[i] = self.operand(a)?;
        }
        for (old, &a) in self.imp.captures[index].iter().zip(&args[n..]) {
            self.remap.insert(*old, self.value(a)?);
        }
        self.layout.push(op);
        Ok(m.funcs[fi].ops[op].results.iter().copied().collect())
    }

    fn push(
        &mut self,
        m: &mut Module,
        fi: usize,
        op: Opcode,
        operands: Vec<Option<Value>>,
        attrs: ir::Attrs,
        tys: Vec<TensorType>,
        loc: Loc,
    ) -> SmallVec<[Value; 1]> {
        let f = &mut m.funcs[fi];
        let id = f.create_op(op, operands, attrs, tys, loc);
        self.layout.push(id);
        f.ops[id].results.iter().copied().collect()
    }

    /// The pool name of constant `k`, adding folded constants to the pool.
    fn const_name(&mut self, m: &mut Module, k: u32) -> Result<String, String> {
        let entry = &self.imp.eg.analysis.consts.entries[k as usize];
        if let Some(n) = &entry.pool_name {
            if m.const_by_name(n).is_some() {
                return Ok(n.clone());
            }
        }
        loop {
            let name = format!("fold{}", self.fresh);
            self.fresh += 1;
            if m.const_by_name(&name).is_none() {
                let mut c = (*entry.value).clone();
                c.name = name.clone();
                m.add_const(c)?;
                return Ok(name);
            }
        }
    }
}
