//! The text IR's error type and source positions, shared by the lexer and
//! the parser.

use std::fmt;

/// A 1-based line and column.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct SourcePos {
    /// Line, from 1.
    pub line: u32,
    /// Column in characters, from 1.
    pub col: u32,
}

/// A syntax or name-resolution error at `file:line:col`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// File name as given by the caller (`<stdin>` for standard input).
    pub file: String,
    /// Position of the offending token.
    pub pos: SourcePos,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: error: {}", self.file, self.pos.line, self.pos.col, self.message)
    }
}
