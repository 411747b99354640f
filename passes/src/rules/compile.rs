//! Validation and compilation of one [`RuleAst`] into a [`Rule`].

use super::appliers::ApplierDef;
use super::args::{lit_to_attr, ArgVal};
use super::conds::CondDef;
use super::syntax::{Arg, AttrPat, Call, Lit, Pat, Pos, Rhs, RuleAst};
use crate::egraph::analysis::Interner;
use crate::egraph::lang::ENode;
use egg::{ENodeOrVar, Id, Pattern, PatternAst, Var};
use ir::ops::Slot;
use ir::{Attrs, Opcode};
use smallvec::SmallVec;
use std::collections::HashMap;

/// A compiled right-hand side.
#[derive(Clone, Debug)]
pub enum CompiledRhs {
    /// Instantiate this pattern and merge it with the matched class.
    Pat(PatternAst<ENode>),
    /// Call a Rust applier.
    Applier(&'static ApplierDef, Vec<ArgVal>),
}

/// A compiled condition call.
#[derive(Clone, Debug)]
pub struct CondCall {
    /// The predicate.
    pub def: &'static CondDef,
    /// Its arguments.
    pub args: Vec<ArgVal>,
    /// Whether the result is negated.
    pub negated: bool,
}

/// A validated rule.
#[derive(Clone, Debug)]
pub struct Rule {
    /// Unique name.
    pub name: String,
    /// Documentation: the identity the rule applies.
    pub doc: String,
    /// `file:line` where it is defined.
    pub origin: String,
    /// Topic (the file stem: `fusion`, `cleanup`, ...).
    pub topic: String,
    /// Left-hand side.
    pub lhs: Pattern<ENode>,
    /// Right-hand side.
    pub rhs: CompiledRhs,
    /// Conditions, all of which must hold.
    pub conds: Vec<CondCall>,
    /// Not an exact identity: runs only when enabled by name
    /// (`--approximate NAME`), and is then recorded in the module.
    pub approximate: bool,
}

#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum VarKind {
    Operand,
    Attrs,
}

struct Cx<'a> {
    attrs: &'a mut Interner,
    errors: Vec<(Pos, String)>,
    vars: HashMap<String, VarKind>,
    fresh: usize,
}

/// Validate and compile `ast`; every problem is returned.
pub fn compile(ast: &RuleAst, file: &str, topic: &str, attrs: &mut Interner) -> Result<Rule, Vec<(Pos, String)>> {
    let mut cx = Cx { attrs, errors: vec![], vars: HashMap::new(), fresh: 0 };
    if ast.doc.trim().is_empty() {
        cx.errors.push((ast.pos, format!("rule `{}` needs a comment line above it stating its identity", ast.name)));
    }
    let mut lhs = PatternAst::default();
    if !matches!(ast.lhs, Pat::Op { .. }) {
        cx.errors.push((ast.pos, "the left-hand side must be an op pattern `(op ...)`".into()));
    }
    cx.pat(&ast.lhs, &mut lhs, true);
    let conds: Vec<CondCall> = ast.conds.iter().filter_map(|c| cx.cond(c)).collect();
    let rhs = match &ast.rhs {
        Rhs::Pat(p) => {
            let mut out = PatternAst::default();
            cx.pat(p, &mut out, false);
            CompiledRhs::Pat(out)
        }
        Rhs::Applier(call) => match cx.applier(call) {
            Some((def, args)) => CompiledRhs::Applier(def, args),
            None => CompiledRhs::Pat(PatternAst::default()),
        },
    };
    if !cx.errors.is_empty() {
        return Err(cx.errors);
    }
    let origin = format!("{file}:{}", ast.pos.line);
    Ok(Rule {
        name: ast.name.clone(),
        doc: ast.doc.clone(),
        origin,
        topic: topic.to_owned(),
        lhs: Pattern::new(lhs),
        rhs,
        conds,
        approximate: ast.approximate,
    })
}

impl Cx<'_> {
    fn var(&mut self, pos: Pos, name: &str, kind: VarKind, lhs: bool) -> Option<Var> {
        match self.vars.get(name) {
            Some(&k) if k != kind => {
                let (had, want) =
                    if k == VarKind::Attrs { ("attributes", "an operand") } else { ("an operand", "attributes") };
                self.errors.push((pos, format!("`?{name}` is bound to {had} but used as {want}")));
                return None;
            }
            None if !lhs => {
                self.errors.push((pos, format!("variable `?{name}` is not bound by the left-hand side")));
                return None;
            }
            None => {
                self.vars.insert(name.to_owned(), kind);
            }
            _ => {}
        }
        format!("?{name}").parse().ok()
    }

    fn fresh_var(&mut self) -> Var {
        self.fresh += 1;
        format!("?__anon{}", self.fresh).parse().expect("valid variable name")
    }

    fn pat(&mut self, p: &Pat, out: &mut PatternAst<ENode>, lhs: bool) -> Id {
        match p {
            Pat::Var(pos, v) => match self.var(*pos, v, VarKind::Operand, lhs) {
                Some(var) => out.add(ENodeOrVar::Var(var)),
                None => out.add(ENodeOrVar::ENode(ENode::Absent)),
            },
            Pat::Wild(pos) => {
                if !lhs {
                    self.errors.push((*pos, "`_` cannot appear on the right-hand side".into()));
                }
                let v = self.fresh_var();
                out.add(ENodeOrVar::Var(v))
            }
            Pat::Absent(_) => out.add(ENodeOrVar::ENode(ENode::Absent)),
            Pat::Op { pos, op, args, attrs } => self.op_pat(*pos, op, args, attrs, out, lhs),
        }
    }

    fn op_pat(
        &mut self,
        pos: Pos,
        op: &str,
        args: &[Pat],
        attrs: &AttrPat,
        out: &mut PatternAst<ENode>,
        lhs: bool,
    ) -> Id {
        let mut ids: SmallVec<[Id; 4]> = args.iter().map(|a| self.pat(a, out, lhs)).collect();
        let Some(opcode) = Opcode::from_name(op) else {
            self.errors.push((pos, format!("unknown op `{op}`")));
            return out.add(ENodeOrVar::ENode(ENode::Absent));
        };
        let def = opcode.def();
        let variadic = def.operands.iter().any(|s| matches!(s.slot, Slot::Variadic(_)));
        let present: Vec<bool> = args.iter().map(|a| !matches!(a, Pat::Absent(_))).collect();
        if let Err(e) = ir::OpDef::check_arity(def.operands, &present, "operand") {
            self.errors.push((pos, format!("`{op}`: {e}")));
        }
        if !variadic {
            while ids.len() < def.operands.len() {
                ids.push(out.add(ENodeOrVar::ENode(ENode::Absent)));
            }
        }
        let a = match attrs {
            AttrPat::Var(p, v) => match self.var(*p, v, VarKind::Attrs, lhs) {
                Some(var) => ENodeOrVar::Var(var),
                None => ENodeOrVar::ENode(ENode::Attrs(0)),
            },
            AttrPat::Omitted if lhs => ENodeOrVar::Var(self.fresh_var()),
            AttrPat::Omitted => ENodeOrVar::ENode(ENode::Attrs(self.attrs.intern(&Attrs::new()))),
            AttrPat::Lits(lits) => ENodeOrVar::ENode(ENode::Attrs(self.attr_lits(opcode, lits))),
        };
        ids.push(out.add(a));
        // Patterns denote single-result nodes (multi-result ops are matched through `Proj`).
        out.add(ENodeOrVar::ENode(ENode::Op { op: opcode, results: 1, args: ids }))
    }

    fn attr_lits(&mut self, op: Opcode, lits: &[(Pos, String, Lit)]) -> u32 {
        let mut attrs = Attrs::new();
        for (pos, key, lit) in lits {
            let Some(spec) = op.def().attr(key) else {
                let known: Vec<&str> = op.def().attrs.iter().map(|a| a.name).collect();
                self.errors
                    .push((*pos, format!("`{}` has no attribute `{key}` (it has: {})", op.name(), known.join(", "))));
                continue;
            };
            let value = lit_to_attr(lit).map(|a| a.coerce(spec.kind));
            match value.map(|v| v.check(spec.kind).map(|_| v)) {
                Some(Ok(v)) => attrs.set(key.clone(), v),
                Some(Err(e)) => self.errors.push((*pos, format!("attribute `{key}` of `{}`: {e}", op.name()))),
                None => self.errors.push((*pos, format!("attribute `{key}`: mixed-type lists are not attributes"))),
            }
        }
        self.attrs.intern(&attrs)
    }

    fn args(&mut self, args: &[Arg]) -> Vec<ArgVal> {
        args.iter()
            .filter_map(|a| match a {
                Arg::Var(p, v) => {
                    let kind = self.vars.get(v).copied().unwrap_or(VarKind::Operand);
                    self.var(*p, v, kind, false).map(ArgVal::Var)
                }
                Arg::Lit(_, l) => Some(ArgVal::Lit(l.clone())),
                Arg::Word(_, w) => Some(ArgVal::Word(w.clone())),
            })
            .collect()
    }

    fn cond(&mut self, c: &Call) -> Option<CondCall> {
        let args = self.args(&c.args);
        let Some(def) = super::appliers::all_conds().find(|d| d.name == c.name) else {
            let known: Vec<&str> = super::appliers::all_conds().map(|d| d.name).collect();
            self.errors.push((c.pos, format!("unknown condition `{}` (known: {})", c.name, known.join(", "))));
            return None;
        };
        if !def.arity.contains(&c.args.len()) {
            self.errors.push((c.pos, arity_msg("condition", def.name, &def.arity, c.args.len(), def.signature)));
            return None;
        }
        Some(CondCall { def, args, negated: c.negated })
    }

    fn applier(&mut self, c: &Call) -> Option<(&'static ApplierDef, Vec<ArgVal>)> {
        let args = self.args(&c.args);
        let Some(def) = super::appliers::all().find(|d| d.name == c.name) else {
            let known: Vec<&str> = super::appliers::all().map(|d| d.name).collect();
            self.errors.push((c.pos, format!("unknown applier `@{}` (known: {})", c.name, known.join(", "))));
            return None;
        };
        if !def.arity.contains(&c.args.len()) {
            self.errors.push((c.pos, arity_msg("applier", def.name, &def.arity, c.args.len(), def.signature)));
            return None;
        }
        Some((def, args))
    }
}

fn arity_msg(what: &str, name: &str, arity: &std::ops::RangeInclusive<usize>, got: usize, sig: &str) -> String {
    let want = if arity.start() == arity.end() {
        arity.start().to_string()
    } else {
        format!("{}..={}", arity.start(), arity.end())
    };
    format!("{what} `{name}` takes {want} argument(s), found {got}: {name}({sig})")
}
