//! What conditions and appliers see: the e-graph, the match and the target.

use super::args::ArgVal;
use super::syntax::Lit;
use crate::egraph::analysis::{infer_node, is_absent, EAnalysis, EG};
use crate::egraph::lang::ENode;
use crate::egraph::TargetInfo;
use egg::{Id, Subst};
use ir::{Attrs, Constant, Opcode, TensorType};
use smallvec::SmallVec;
use std::sync::Arc;

/// Read-only view of one match, for conditions.
pub struct Env<'a> {
    /// The e-graph.
    pub eg: &'a EG,
    /// The matched class.
    pub root: Id,
    /// Variable bindings.
    pub subst: &'a Subst,
    /// The root op of the rule's left-hand side.
    pub lhs_op: Option<Opcode>,
    /// The compilation target, if any.
    pub target: Option<&'a dyn TargetInfo>,
}

/// Resolve an argument naming a class: a variable, or the word `root`.
pub fn class_of(root: Id, subst: &Subst, a: &ArgVal) -> Option<Id> {
    match a {
        ArgVal::Var(v) => subst.get(*v).copied(),
        ArgVal::Word(w) if w == "root" => Some(root),
        _ => None,
    }
}

impl Env<'_> {
    /// Whose integer arithmetic the target computes (edgec's without one).
    pub fn arithmetic(&self) -> edgec_numeric::fixed::Arithmetic {
        self.target.map_or(edgec_numeric::fixed::Arithmetic::Single, |t| t.arithmetic())
    }

    /// The class an argument names.
    pub fn class(&self, a: &ArgVal) -> Option<Id> {
        class_of(self.root, self.subst, a).map(|c| self.eg.find(c))
    }
    /// The type of the class an argument names.
    pub fn ty(&self, a: &ArgVal) -> Option<&TensorType> {
        self.eg[self.class(a)?].data.ty()
    }
    /// The constant value of the class an argument names.
    pub fn konst(&self, a: &ArgVal) -> Option<&Arc<Constant>> {
        EAnalysis::const_of(self.eg, self.class(a)?)
    }
    /// The attributes bound to an argument.
    pub fn attrs(&self, a: &ArgVal) -> Option<&Attrs> {
        EAnalysis::attrs_of(self.eg, self.class(a)?)
    }
}

/// A literal or word argument as a number.
pub fn num(a: &ArgVal) -> Option<f64> {
    match a {
        ArgVal::Lit(Lit::Int(i)) => Some(*i as f64),
        ArgVal::Lit(Lit::Float(x)) => Some(*x),
        _ => None,
    }
}

/// A literal or word argument as text.
pub fn text(a: &ArgVal) -> Option<&str> {
    match a {
        ArgVal::Lit(Lit::Str(s)) | ArgVal::Word(s) => Some(s),
        _ => None,
    }
}

/// Mutable view of one match, for appliers.
pub struct ApplyEnv<'a> {
    /// The e-graph.
    pub eg: &'a mut EG,
    /// The matched class.
    pub root: Id,
    /// Variable bindings.
    pub subst: &'a Subst,
    /// The compilation target, if any.
    pub target: Option<&'a dyn TargetInfo>,
    /// Facts about this rewrite for the report (e.g. memory before/after);
    /// kept only if the rewrite is applied.
    pub notes: Vec<String>,
}

impl ApplyEnv<'_> {
    /// Record a fact about this rewrite for `--explain`.
    pub fn note(&mut self, text: String) {
        self.notes.push(text);
    }
    /// A read-only view.
    pub fn env(&self) -> Env<'_> {
        Env { eg: self.eg, root: self.root, subst: self.subst, lhs_op: None, target: self.target }
    }
    /// The class an argument names (an error if unbound).
    pub fn class(&self, a: &ArgVal) -> Result<Id, String> {
        class_of(self.root, self.subst, a)
            .map(|c| self.eg.find(c))
            .ok_or_else(|| format!("argument {a:?} names no class"))
    }
    /// A node of `op` in class `c`, with its operand classes and attributes.
    pub fn find_op(&self, c: Id, ops: &[Opcode]) -> Option<(Opcode, Vec<Id>, Attrs)> {
        self.eg[c].nodes.iter().find_map(|n| match n {
            ENode::Op { op, results: 1, args } if ops.contains(op) => {
                let (a, operands) = args.split_last()?;
                let attrs = EAnalysis::attrs_of(self.eg, *a)?.clone();
                Some((*op, operands.iter().map(|&x| self.eg.find(x)).collect(), attrs))
            }
            _ => None,
        })
    }
    /// True if class `c` is the omitted-operand leaf.
    pub fn absent(&self, c: Id) -> bool {
        is_absent(self.eg, c)
    }
    /// The omitted-operand leaf.
    pub fn none(&mut self) -> Id {
        self.eg.add(ENode::Absent)
    }
    /// Add a constant.
    pub fn add_const(&mut self, c: Constant) -> Id {
        let k = self.eg.analysis.consts.intern(Arc::new(c), None);
        self.eg.add(ENode::Const(k))
    }
    /// Add an op node after checking that it type-checks; returns its class.
    /// Missing trailing optional operands are filled with the absent leaf.
    pub fn add_op(&mut self, op: Opcode, operands: &[Id], attrs: &Attrs) -> Result<Id, String> {
        let mut args: SmallVec<[Id; 4]> = operands.iter().copied().collect();
        let variadic = op.def().operands.iter().any(|s| matches!(s.slot, ir::ops::Slot::Variadic(_)));
        while !variadic && args.len() < op.def().operands.len() {
            args.push(self.none());
        }
        let a = self.eg.analysis.attrs.intern(attrs);
        args.push(self.eg.add(ENode::Attrs(a)));
        infer_node(self.eg, op, 1, &args).map_err(|e| format!("{} would not type-check: {e}", op.name()))?;
        Ok(self.eg.add(ENode::Op { op, results: 1, args }))
    }
}
