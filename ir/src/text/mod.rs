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

use std::fmt;

/// True if `s` can be printed without quotes as a symbol, value or dim name.
///
/// `inf` and `nan` lex as float literals, so they are always quoted.
pub fn is_bare_ident(s: &str) -> bool {
    if s == "inf" || s == "nan" {
        return false;
    }
    let mut chars = s.chars();
    match chars.next() {
        Some(c) if c.is_ascii_alphabetic() || c == '_' => {}
        _ => return false,
    }
    chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
}

/// Write `s` as a double-quoted string with escapes.
pub fn write_quoted(f: &mut impl fmt::Write, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c if (c as u32) < 0x20 || c == '\u{7f}' => write!(f, "\\u{{{:x}}}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// Write `@name`, quoting the name if needed.
pub fn write_symbol(f: &mut impl fmt::Write, name: &str) -> fmt::Result {
    f.write_char('@')?;
    if is_bare_ident(name) {
        f.write_str(name)
    } else {
        write_quoted(f, name)
    }
}
