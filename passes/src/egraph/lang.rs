//! The e-graph language, derived from the op table.
//!
//! Every op of [`ir::OP_TABLE`] is an e-node operator (`Op`), so the language
//! and the table cannot drift. Conventions every other module relies on:
//! - an `Op` node's children are its operands in schema order (an omitted
//!   optional operand is the `Absent` leaf) followed by exactly one `Attrs`
//!   leaf, so patterns can bind or match attributes like any operand;
//! - an `Op` node with one result denotes that result; with several results it
//!   denotes the tuple, and `Proj(i)` selects result `i`;
//! - ops that cannot be rewritten (regions, side effects) are `Opaque` nodes
//!   that keep a reference to the original op; their children are the operands
//!   followed by values captured from outside their regions.

use egg::{Id, Language};
use ir::Opcode;
use smallvec::SmallVec;
use std::fmt;

/// An e-node.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ENode {
    /// An op of the table: operands then the attrs leaf; `results` is the
    /// number of results the op declares.
    Op {
        /// The op.
        op: Opcode,
        /// Declared result count.
        results: u32,
        /// Operands then the attrs leaf.
        args: SmallVec<[Id; 4]>,
    },
    /// Result `index` of a multi-result node.
    Proj {
        /// Result index.
        index: u32,
        /// The tuple class.
        arg: [Id; 1],
    },
    /// An interned attribute dictionary (see [`super::analysis::Interner`]).
    Attrs(u32),
    /// An omitted optional operand.
    Absent,
    /// Function parameter by position.
    Param(u32),
    /// An interned constant (see [`super::analysis::ConstTable`]).
    Const(u32),
    /// An original op kept as is, by index into the bridge's opaque table.
    Opaque {
        /// Index into the opaque table.
        index: u32,
        /// Operands (with `Absent` leaves) then captured values.
        args: SmallVec<[Id; 4]>,
    },
}

impl ENode {
    /// The operand children of an `Op` node (without the attrs leaf).
    pub fn operands(&self) -> &[Id] {
        match self {
            ENode::Op { args, .. } => &args[..args.len() - 1],
            ENode::Opaque { args, .. } => args,
            ENode::Proj { arg, .. } => arg,
            _ => &[],
        }
    }
    /// The attrs leaf of an `Op` node.
    pub fn attrs_id(&self) -> Option<Id> {
        match self {
            ENode::Op { args, .. } => args.last().copied(),
            _ => None,
        }
    }
}

impl Language for ENode {
    type Discriminant = (u8, u32, u32, usize);

    fn discriminant(&self) -> Self::Discriminant {
        match self {
            ENode::Op { op, results, args } => (0, *op as u32, *results, args.len()),
            ENode::Proj { index, .. } => (1, *index, 0, 1),
            ENode::Attrs(i) => (2, *i, 0, 0),
            ENode::Absent => (3, 0, 0, 0),
            ENode::Param(i) => (4, *i, 0, 0),
            ENode::Const(i) => (5, *i, 0, 0),
            ENode::Opaque { index, args } => (6, *index, 0, args.len()),
        }
    }

    fn matches(&self, other: &Self) -> bool {
        self.discriminant() == other.discriminant()
    }

    fn children(&self) -> &[Id] {
        match self {
            ENode::Op { args, .. } | ENode::Opaque { args, .. } => args,
            ENode::Proj { arg, .. } => arg,
            _ => &[],
        }
    }

    fn children_mut(&mut self) -> &mut [Id] {
        match self {
            ENode::Op { args, .. } | ENode::Opaque { args, .. } => args,
            ENode::Proj { arg, .. } => arg,
            _ => &mut [],
        }
    }
}

impl fmt::Display for ENode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ENode::Op { op, .. } => f.write_str(op.name()),
            ENode::Proj { index, .. } => write!(f, "proj{index}"),
            ENode::Attrs(i) => write!(f, "attrs#{i}"),
            ENode::Absent => f.write_str("none"),
            ENode::Param(i) => write!(f, "param{i}"),
            ENode::Const(i) => write!(f, "const#{i}"),
            ENode::Opaque { index, .. } => write!(f, "opaque#{index}"),
        }
    }
}
