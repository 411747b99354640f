//! The textual IR: printer and parser. Grammar and examples: `docs/ir.md`.
//!
//! The printer renumbers op results densely (`%0`, `%1`, ...) in program order
//! and prints attributes sorted by name, so equal modules print identically.

mod error;
mod lexer;
mod parse;
mod print;

pub use error::{ParseError, SourcePos};
pub use parse::{parse_module, ParsedModule};
pub use print::{print_module, PrintOptions, Printer, WeightsMode};

pub use crate::syntax::{is_bare_ident, write_quoted, write_symbol};

use crate::module::{ConstId, OpId};

/// A place in the printed module that diagnostics attach to (the printer
/// renders notes under it; the parser records where each one starts).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Anchor {
    /// The module header.
    Module,
    /// A constant.
    Const(ConstId),
    /// A function header, by function index.
    Func(usize),
    /// An op in function `usize`.
    Op(usize, OpId),
    /// The `return` of function `usize`.
    Return(usize),
}
