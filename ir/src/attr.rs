//! Op attributes: typed static parameters such as `axis` or `strides`.
//!
//! An op's attributes are kept sorted by name, so printing is canonical and
//! lookups are deterministic. Which names and kinds an op accepts is declared
//! in its [`crate::ops::OpDef`] schema and checked by the verifier.

use crate::types::DType;
use std::fmt;

/// One attribute value.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// Integer.
    Int(i64),
    /// Float (ONNX attributes are 32-bit).
    Float(f32),
    /// String.
    Str(String),
    /// List of integers.
    Ints(Vec<i64>),
    /// List of floats.
    Floats(Vec<f32>),
    /// List of strings.
    Strs(Vec<String>),
    /// An element type (e.g. the target type of a cast).
    Type(DType),
    /// A reference to a module-level symbol such as a constant (`@name`).
    Sym(String),
}

/// The kind of value an attribute schema expects.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum AttrKind {
    /// [`Attr::Int`].
    Int,
    /// [`Attr::Float`].
    Float,
    /// [`Attr::Str`].
    Str,
    /// [`Attr::Ints`].
    Ints,
    /// [`Attr::Floats`].
    Floats,
    /// [`Attr::Strs`].
    Strs,
    /// [`Attr::Type`].
    Type,
    /// [`Attr::Sym`].
    Sym,
    /// A string restricted to the listed values.
    Enum(&'static [&'static str]),
}

impl AttrKind {
    /// Short name used in diagnostics.
    pub fn describe(self) -> String {
        match self {
            AttrKind::Int => "int".into(),
            AttrKind::Float => "float".into(),
            AttrKind::Str => "string".into(),
            AttrKind::Ints => "int list".into(),
            AttrKind::Floats => "float list".into(),
            AttrKind::Strs => "string list".into(),
            AttrKind::Type => "element type".into(),
            AttrKind::Sym => "symbol reference".into(),
            AttrKind::Enum(vals) => format!("one of {}", vals.join("|")),
        }
    }
}

impl Attr {
    /// Check this value against a schema kind; returns a reason on mismatch.
    pub fn check(&self, kind: AttrKind) -> Result<(), String> {
        let ok = match (self, kind) {
            (Attr::Int(_), AttrKind::Int)
            | (Attr::Float(_), AttrKind::Float)
            | (Attr::Str(_), AttrKind::Str)
            | (Attr::Ints(_), AttrKind::Ints)
            | (Attr::Floats(_), AttrKind::Floats)
            | (Attr::Strs(_), AttrKind::Strs)
            | (Attr::Type(_), AttrKind::Type)
            | (Attr::Sym(_), AttrKind::Sym) => true,
            (Attr::Str(s), AttrKind::Enum(vals)) => {
                if vals.contains(&s.as_str()) {
                    true
                } else {
                    return Err(format!("value \"{s}\" is not {}", kind.describe()));
                }
            }
            _ => false,
        };
        if ok {
            Ok(())
        } else {
            Err(format!("expected {}, found {}", kind.describe(), self.kind_name()))
        }
    }

    /// Coerce a parsed value to the schema kind where the text form is
    /// ambiguous (`1` for a float, `[]` for any list). Returns `self` otherwise.
    pub fn coerce(self, kind: AttrKind) -> Attr {
        match (self, kind) {
            (Attr::Int(i), AttrKind::Float) => Attr::Float(i as f32),
            (Attr::Ints(v), AttrKind::Floats) => Attr::Floats(v.into_iter().map(|i| i as f32).collect()),
            (Attr::Ints(v), AttrKind::Strs) if v.is_empty() => Attr::Strs(vec![]),
            (a, _) => a,
        }
    }

    fn kind_name(&self) -> &'static str {
        match self {
            Attr::Int(_) => "int",
            Attr::Float(_) => "float",
            Attr::Str(_) => "string",
            Attr::Ints(_) => "int list",
            Attr::Floats(_) => "float list",
            Attr::Strs(_) => "string list",
            Attr::Type(_) => "element type",
            Attr::Sym(_) => "symbol reference",
        }
    }
}

/// Write a float so that parsing it back yields the same bits (except NaN payloads).
pub fn write_f32(f: &mut impl fmt::Write, x: f32) -> fmt::Result {
    if x.is_nan() {
        f.write_str("nan")
    } else if x.is_infinite() {
        f.write_str(if x > 0.0 { "inf" } else { "-inf" })
    } else {
        write!(f, "{x:?}")
    }
}

impl fmt::Display for Attr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn list<T>(
            f: &mut fmt::Formatter<'_>,
            v: &[T],
            mut w: impl FnMut(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
        ) -> fmt::Result {
            f.write_str("[")?;
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                w(f, x)?;
            }
            f.write_str("]")
        }
        match self {
            Attr::Int(i) => write!(f, "{i}"),
            Attr::Float(x) => write_f32(f, *x),
            Attr::Str(s) => crate::syntax::write_quoted(f, s),
            Attr::Ints(v) => list(f, v, |f, x| write!(f, "{x}")),
            Attr::Floats(v) => list(f, v, |f, x| write_f32(f, *x)),
            Attr::Strs(v) => list(f, v, |f, s| crate::syntax::write_quoted(f, s)),
            Attr::Type(t) => write!(f, "{t}"),
            Attr::Sym(s) => crate::syntax::write_symbol(f, s),
        }
    }
}

/// An op's attributes, sorted by name, at most one value per name.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attrs(Vec<(String, Attr)>);

impl Attrs {
    /// No attributes.
    pub fn new() -> Self {
        Self::default()
    }
    /// Set `name` to `value`, replacing any previous value.
    pub fn set(&mut self, name: impl Into<String>, value: Attr) {
        let name = name.into();
        match self.0.binary_search_by(|(n, _)| n.as_str().cmp(&name)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (name, value)),
        }
    }
    /// Builder form of [`Attrs::set`].
    pub fn with(mut self, name: impl Into<String>, value: Attr) -> Self {
        self.set(name, value);
        self
    }
    /// The value of `name`.
    pub fn get(&self, name: &str) -> Option<&Attr> {
        self.0.binary_search_by(|(n, _)| n.as_str().cmp(name)).ok().map(|i| &self.0[i].1)
    }
    /// Remove `name`, returning its value.
    pub fn remove(&mut self, name: &str) -> Option<Attr> {
        let i = self.0.binary_search_by(|(n, _)| n.as_str().cmp(name)).ok()?;
        Some(self.0.remove(i).1)
    }
    /// All `(name, value)` pairs in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Attr)> {
        self.0.iter().map(|(n, a)| (n.as_str(), a))
    }
    /// True if there are no attributes.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Integer attribute, if present with that kind.
    pub fn int(&self, name: &str) -> Option<i64> {
        match self.get(name)? {
            Attr::Int(i) => Some(*i),
            _ => None,
        }
    }
    /// Float attribute, if present with that kind.
    pub fn float(&self, name: &str) -> Option<f32> {
        match self.get(name)? {
            Attr::Float(x) => Some(*x),
            _ => None,
        }
    }
    /// String (or enum) attribute, if present with that kind.
    pub fn str(&self, name: &str) -> Option<&str> {
        match self.get(name)? {
            Attr::Str(s) => Some(s),
            _ => None,
        }
    }
    /// Integer-list attribute, if present with that kind.
    pub fn ints(&self, name: &str) -> Option<&[i64]> {
        match self.get(name)? {
            Attr::Ints(v) => Some(v),
            _ => None,
        }
    }
    /// Float-list attribute, if present with that kind.
    pub fn floats(&self, name: &str) -> Option<&[f32]> {
        match self.get(name)? {
            Attr::Floats(v) => Some(v),
            _ => None,
        }
    }
    /// Element-type attribute, if present with that kind.
    pub fn dtype(&self, name: &str) -> Option<DType> {
        match self.get(name)? {
            Attr::Type(t) => Some(*t),
            _ => None,
        }
    }
}
