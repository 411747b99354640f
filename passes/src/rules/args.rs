//! Resolved arguments of condition and applier calls, and rule literals as
//! attribute values: what conditions, appliers and the rule compiler share.

use super::syntax::Lit;
use egg::Var;
use ir::Attr;

/// A resolved argument of a condition or applier.
#[derive(Clone, Debug)]
pub enum ArgVal {
    /// A pattern variable (bound on the left-hand side).
    Var(Var),
    /// A literal.
    Lit(Lit),
    /// A bare word; `root` names the matched class.
    Word(String),
}

/// A literal as an attribute value (kind coerced later by the schema).
pub fn lit_to_attr(l: &Lit) -> Option<Attr> {
    Some(match l {
        Lit::Int(i) => Attr::Int(*i),
        Lit::Float(x) => Attr::Float(*x as f32),
        Lit::Str(s) => Attr::Str(s.clone()),
        Lit::List(v) if v.iter().all(|x| matches!(x, Lit::Int(_))) => {
            Attr::Ints(v.iter().map(|x| if let Lit::Int(i) = x { *i } else { 0 }).collect())
        }
        Lit::List(v) if v.iter().all(|x| matches!(x, Lit::Int(_) | Lit::Float(_))) => Attr::Floats(
            v.iter()
                .map(|x| {
                    if let Lit::Float(f) = x {
                        *f as f32
                    } else if let Lit::Int(i) = x {
                        *i as f32
                    } else {
                        0.0
                    }
                })
                .collect(),
        ),
        Lit::List(v) if v.iter().all(|x| matches!(x, Lit::Str(_))) => {
            Attr::Strs(v.iter().map(|x| if let Lit::Str(s) = x { s.clone() } else { String::new() }).collect())
        }
        Lit::List(_) => return None,
    })
}
