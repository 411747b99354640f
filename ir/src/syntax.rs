//! The lexical rules the text form and the `Display` impls of attributes and
//! types share: which names print bare, and how strings and symbols are quoted.

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
