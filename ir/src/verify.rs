//! The verifier. It checks, collecting every violation rather than stopping:
//!
//! - layout: each op in a region layout exists and appears once;
//! - arity: operands, results and regions match the op schema;
//! - SSA: every used value is defined, by a live op or parameter, before use
//!   in program order (regions see enclosing definitions made before their op);
//! - attributes: no unknown names, kinds match the schema, required ones
//!   present, symbol references resolve to module constants;
//! - phase: the op's dialect is allowed in the module's phase;
//! - types: declared result types agree with shape inference, returned values
//!   agree with the function signature, constants' bytes match their type.

use crate::attr::Attr;
use crate::infer::{infer_op, meet_type};
use crate::module::{Function, Module, OpId, Phase, Region, Value, ValueDef};
use crate::ops::OpDef;
pub use crate::text::Anchor;
use crate::text::{PrintOptions, Printer, SourcePos, WeightsMode};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// One verifier finding.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Where in the IR.
    pub anchor: Anchor,
    /// Provenance of the op (ONNX node), if known.
    pub loc: crate::Loc,
    /// Short op/entity description, e.g. `onnx.Conv`.
    pub subject: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.subject, self.message)?;
        if self.loc != crate::Loc::Unknown {
            write!(f, " [{}]", self.loc)?;
        }
        Ok(())
    }
}

/// All problems found in a module.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct VerifyErrors(pub Vec<Diagnostic>);

impl fmt::Display for VerifyErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for d in &self.0 {
            writeln!(f, "error: {d}")?;
        }
        write!(f, "{} verifier error(s)", self.0.len())
    }
}

impl VerifyErrors {
    /// Reprint the module with each error under the line it concerns.
    pub fn render(&self, m: &Module) -> String {
        let mut notes: HashMap<Anchor, Vec<String>> = HashMap::new();
        for d in &self.0 {
            notes.entry(d.anchor).or_default().push(format!("error: {d}"));
        }
        let opts = PrintOptions { weights: WeightsMode::Elide { inline_limit: 16 }, locs: true };
        let mut s = Printer::new(opts).with_notes(&notes).print(m).text;
        s.push_str(&format!("// {} verifier error(s)\n", self.0.len()));
        s
    }
    /// One `file:line:col: error: ...` line per diagnostic, using parse spans.
    pub fn with_spans(&self, file: &str, spans: &HashMap<Anchor, SourcePos>) -> String {
        let mut out = String::new();
        for d in &self.0 {
            let pos = spans.get(&d.anchor).copied().unwrap_or_default();
            out.push_str(&format!("{file}:{}:{}: error: {d}\n", pos.line, pos.col));
        }
        out
    }
}

/// Verify `m`, returning every problem found.
pub fn verify(m: &Module) -> Result<(), VerifyErrors> {
    let mut v = Verifier { m, errs: Vec::new() };
    v.consts();
    for (fidx, f) in m.funcs.iter().enumerate() {
        v.func(fidx, f);
    }
    if v.errs.is_empty() {
        Ok(())
    } else {
        Err(VerifyErrors(v.errs))
    }
}

struct Verifier<'m> {
    m: &'m Module,
    errs: Vec<Diagnostic>,
}

struct FuncState<'f> {
    fidx: usize,
    f: &'f Function,
    /// Scopes of defined values (innermost last).
    defined: Vec<HashSet<Value>>,
    placed: HashSet<OpId>,
}

impl<'m> Verifier<'m> {
    fn consts(&mut self) {
        for (id, c) in self.m.consts.iter() {
            let bad = match (&c.data, c.expected_bytes()) {
                (crate::ConstData::Bytes(b), Some(n)) => {
                    (b.len() != n).then(|| format!("has {} bytes, type {} needs {n}", b.len(), c.ty))
                }
                (crate::ConstData::Strings(s), None) => (s.len() != c.num_elements())
                    .then(|| format!("has {} strings, type {} needs {}", s.len(), c.ty, c.num_elements())),
                _ => Some(format!("contents do not match element type {}", c.ty.dtype)),
            };
            let bad =
                bad.or_else(|| c.ty.shape.static_dims().is_none().then(|| "must have a static shape".to_string()));
            if let Some(msg) = bad {
                self.errs.push(Diagnostic {
                    anchor: Anchor::Const(id),
                    loc: crate::Loc::Unknown,
                    subject: format!("constant @{}", c.name),
                    message: msg,
                });
            }
        }
    }

    fn func(&mut self, fidx: usize, f: &Function) {
        let mut st =
            FuncState { fidx, f, defined: vec![f.body.params.iter().copied().collect()], placed: HashSet::new() };
        self.region_ops(&mut st, &f.body);
        let subject = format!("return of @{}", f.name);
        let anchor = Anchor::Return(fidx);
        if f.body.results.len() != f.result_types.len() {
            self.push(
                anchor,
                &subject,
                format!(
                    "returns {} value(s) but the signature declares {}",
                    f.body.results.len(),
                    f.result_types.len()
                ),
            );
        }
        for (i, (&v, want)) in f.body.results.iter().zip(&f.result_types).enumerate() {
            if self.check_use(&st, v, anchor, &subject, &format!("returned value #{i}")) {
                if let Err(e) = meet_type(want, f.ty(v)) {
                    self.push(
                        anchor,
                        &subject,
                        format!("returned value #{i} has type {}, signature declares {want}: {e}", f.ty(v)),
                    );
                }
            }
        }
    }

    fn push(&mut self, anchor: Anchor, subject: &str, message: String) {
        let loc = match anchor {
            Anchor::Op(fidx, id) => self.m.funcs[fidx].ops.get(id).map(|o| o.loc.clone()).unwrap_or_default(),
            _ => crate::Loc::Unknown,
        };
        self.errs.push(Diagnostic { anchor, loc, subject: subject.to_owned(), message });
    }

    /// Check that `v` exists and is defined in scope; returns true if usable.
    fn check_use(&mut self, st: &FuncState<'_>, v: Value, anchor: Anchor, subject: &str, what: &str) -> bool {
        let Some(data) = st.f.values.get(v) else {
            self.push(anchor, subject, format!("{what} refers to nonexistent value {v}"));
            return false;
        };
        if st.defined.iter().any(|s| s.contains(&v)) {
            return true;
        }
        let msg = match data.def {
            ValueDef::Result(op, _) if !st.placed.contains(&op) && !self.is_live(st.f, op) => {
                format!("{what} uses a result of an op that is no longer in the function")
            }
            ValueDef::Result(..) => format!("{what} is used before its definition"),
            _ => format!("{what} is not in scope here"),
        };
        self.push(anchor, subject, msg);
        false
    }

    fn is_live(&self, f: &Function, op: OpId) -> bool {
        f.live_ops().contains(&op)
    }

    fn region_ops(&mut self, st: &mut FuncState<'_>, r: &Region) {
        for &id in &r.ops {
            let anchor = Anchor::Op(st.fidx, id);
            let Some(op) = st.f.ops.get(id) else {
                self.push(Anchor::Func(st.fidx), "layout", format!("refers to nonexistent op {id}"));
                continue;
            };
            let def = op.opcode.def();
            if !st.placed.insert(id) {
                self.push(anchor, def.name, "op appears twice in the layout".into());
                continue;
            }
            let mut operands_ok = true;
            for (i, v) in op.operands.iter().enumerate() {
                if let Some(v) = v {
                    let name = def.operands.get(i.min(def.operands.len().saturating_sub(1))).map_or("?", |s| s.name);
                    operands_ok &= self.check_use(st, *v, anchor, def.name, &format!("operand #{i} (`{name}`)"));
                }
            }
            let arity_ok = self.arity(anchor, def, op);
            let attrs_ok = self.attrs(anchor, def, op);
            self.phase(anchor, def, op.opcode);
            for (ri, sub) in op.regions.iter().enumerate() {
                st.defined.push(sub.params.iter().copied().collect());
                self.region_ops(st, sub);
                for &v in &sub.results {
                    self.check_use(st, v, anchor, def.name, &format!("value yielded by region #{ri}"));
                }
                st.defined.pop();
            }
            // Inference reads the attributes, so with a malformed one it would only
            // repeat the problem (or misreport it, e.g. as a missing attribute).
            if operands_ok && arity_ok && attrs_ok {
                self.types(anchor, def, st.f, id);
            }
            st.defined.last_mut().expect("scope").extend(op.results.iter().copied());
        }
    }

    fn arity(&mut self, anchor: Anchor, def: &OpDef, op: &crate::OpData) -> bool {
        let present: Vec<bool> = op.operands.iter().map(Option::is_some).collect();
        let mut ok = true;
        if let Err(e) = OpDef::check_arity(def.operands, &present, "operand") {
            self.push(anchor, def.name, e);
            ok = false;
        }
        if let Err(e) = OpDef::check_arity(def.results, &vec![true; op.results.len()], "result") {
            self.push(anchor, def.name, e);
            ok = false;
        }
        if op.regions.len() != def.regions as usize {
            self.push(anchor, def.name, format!("has {} region(s), expected {}", op.regions.len(), def.regions));
            ok = false;
        }
        ok
    }

    /// Check the attributes; returns false if a schema attribute is missing,
    /// has the wrong kind or names an undefined constant (unknown extra
    /// attributes are reported but do not affect inference).
    fn attrs(&mut self, anchor: Anchor, def: &OpDef, op: &crate::OpData) -> bool {
        let mut ok = true;
        for (name, value) in op.attrs.iter() {
            let Some(spec) = def.attr(name) else {
                let known: Vec<&str> = def.attrs.iter().map(|a| a.name).collect();
                let hint = if known.is_empty() {
                    "it takes no attributes".to_string()
                } else {
                    format!("expected one of: {}", known.join(", "))
                };
                self.push(anchor, def.name, format!("unknown attribute `{name}` ({hint})"));
                continue;
            };
            if let Err(e) = value.check(spec.kind) {
                self.push(anchor, def.name, format!("attribute `{name}`: {e}"));
                ok = false;
            } else if let Attr::Sym(s) = value {
                if self.m.const_by_name(s).is_none() {
                    self.push(anchor, def.name, format!("attribute `{name}` refers to undefined constant @{s}"));
                    ok = false;
                }
            }
        }
        for spec in def.attrs.iter().filter(|a| a.required) {
            if op.attrs.get(spec.name).is_none() {
                self.push(
                    anchor,
                    def.name,
                    format!("missing required attribute `{}` ({})", spec.name, spec.kind.describe()),
                );
                ok = false;
            }
        }
        ok
    }

    fn phase(&mut self, anchor: Anchor, def: &OpDef, opcode: crate::ops::Opcode) {
        let allowed = self.m.phase.allowed_dialects();
        if !allowed.contains(&def.dialect()) {
            let msg = format!(
                "dialect `{}` is not allowed in phase `{}` (allowed: {})",
                def.dialect(),
                self.m.phase.name(),
                allowed.join(", ")
            );
            self.push(anchor, def.name, msg);
        }
        if self.m.phase >= Phase::Core {
            if let Some(core) = crate::ops::core_form(opcode) {
                let msg = format!(
                    "`{}` is not allowed in phase `{}`: it has the core form `{}` (the `legalize-core` pass converts it)",
                    def.name,
                    self.m.phase.name(),
                    core.name()
                );
                self.push(anchor, def.name, msg);
            }
        }
    }

    fn types(&mut self, anchor: Anchor, def: &OpDef, f: &Function, id: OpId) {
        let op = &f.ops[id];
        match infer_op(self.m, f, op) {
            Err(e) => self.push(anchor, def.name, e),
            Ok(inferred) => {
                if inferred.len() != op.results.len() {
                    self.push(
                        anchor,
                        def.name,
                        format!("declares {} result(s), inference gives {}", op.results.len(), inferred.len()),
                    );
                    return;
                }
                for (i, (&r, t)) in op.results.iter().zip(&inferred).enumerate() {
                    if let Err(e) = meet_type(f.ty(r), t) {
                        self.push(anchor, def.name, format!("result #{i} declared {}: {e}", f.ty(r)));
                    }
                }
            }
        }
    }
}
