//! Declared types are hints: merging what a model declares (graph outputs,
//! `value_info`, subgraph inputs) with what inference derives.
//!
//! Exporters write symbolic names that are stale after graph surgery
//! (`unk__315` where inference has `unk__314`), names that differ per site
//! (`p2o.DynamicDimension.3`) and sometimes plainly wrong shapes. As in
//! onnxruntime, a declaration never rejects a model. Per dim, with `d`
//! declared and `i` inferred:
//!
//! | d \ i          | static `b`            | symbol `t`           | unknown |
//! |----------------|-----------------------|----------------------|---------|
//! | static `a`     | `b` (warn if a ≠ b)   | `a` (run-time check) | unknown |
//! | symbol `s`     | `b`                   | `t` (alias s ~ t)    | unknown |
//! | unknown        | `b`                   | `t`                  | unknown |
//!
//! A declared symbol never enters the IR: a stale name would assert an
//! equality between sizes that the model does not have. Nor does a declared
//! size inference knows nothing about: exporters write the sizes they traced
//! with (a recognizer's time axis declared 25 for any image width, a
//! squeezed output declared `[]` from batch 1), and the model runs at
//! others. A differing element type or rank is a warning and inference
//! wins. Graph inputs are the one place where declarations define the
//! symbols ([`input_dim`]).

use ir::{Dim, Shape, Symbol, TensorType};

/// The outcome of merging one declared type with an inferred one.
pub(super) struct Merged {
    /// The type to use.
    pub ty: TensorType,
    /// A description of a static-size, rank or element-type conflict.
    pub conflict: Option<String>,
    /// Declared symbols that name an inferred symbol: `(declared, inferred)`.
    pub aliases: Vec<(Symbol, Symbol)>,
}

/// Merge `declared` into `inferred` by the rules of the module docs.
pub(super) fn merge(declared: &TensorType, inferred: &TensorType) -> Merged {
    let keep = |conflict: String| Merged { ty: inferred.clone(), conflict: Some(conflict), aliases: vec![] };
    if declared.dtype != inferred.dtype {
        return keep(format!("element type {} differs from the inferred {}", declared.dtype, inferred.dtype));
    }
    let (d, i) = match (&declared.shape, &inferred.shape) {
        (Shape::Ranked(d), Shape::Ranked(i)) => (d, i),
        _ => return Merged { ty: inferred.clone(), conflict: None, aliases: vec![] },
    };
    if d.len() != i.len() {
        return keep(format!("rank {} differs from the inferred rank {}", d.len(), i.len()));
    }
    let mut aliases = Vec::new();
    let mut clashes = Vec::new();
    let dims: Vec<Dim> = d
        .iter()
        .zip(i.iter())
        .enumerate()
        .map(|(axis, (&d, &i))| match (d, i) {
            (Dim::Static(a), Dim::Static(b)) => {
                if a != b {
                    clashes.push(format!("axis {axis}: {a} declared, {b} inferred"));
                }
                i
            }
            (Dim::Static(_), Dim::Sym(_)) => d,
            (Dim::Sym(s), Dim::Sym(t)) => {
                if s != t {
                    aliases.push((s, t));
                }
                i
            }
            _ => i,
        })
        .collect();
    let conflict = (!clashes.is_empty()).then(|| clashes.join(", "));
    Merged { ty: TensorType::new(inferred.dtype, Shape::from_dims(dims)), conflict, aliases }
}

/// True if a `dim_param` is a name users could mean to share between inputs;
/// `""`, `"?"`, `"-1"` and `"None"` are exporters' ways of saying "unknown".
pub(super) fn is_named(param: &str) -> bool {
    param.chars().any(|c| c.is_ascii_alphabetic())
        && !matches!(param.to_ascii_lowercase().as_str(), "none" | "null" | "unk" | "unknown")
}

/// The dim of axis `axis` of graph input `input` given its declared
/// `dim_param` / `dim_value`: a named parameter is a symbol shared by every
/// input that uses it; an anonymous dim (no value, an empty or nameless
/// parameter, a negative value) is a fresh symbol named after its input and
/// axis (`x.d2`), so it constrains nothing and users can refer to it.
pub(super) fn input_dim(declared: Dim, param: Option<&str>, input: &str, axis: usize) -> Dim {
    match (declared, param) {
        (Dim::Static(_), _) => declared,
        (_, Some(p)) if is_named(p) => Dim::Sym(Symbol::new(p)),
        _ => Dim::Sym(Symbol::new(&format!("{input}.d{axis}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ir::DType;

    fn ty(dims: &[Dim]) -> TensorType {
        TensorType::new(DType::F32, Shape::from_dims(dims.iter().copied()))
    }
    fn sym(s: &str) -> Dim {
        Dim::Sym(Symbol::new(s))
    }

    #[test]
    fn static_inferred_wins_and_conflicts_are_reported() {
        let m = merge(&ty(&[Dim::Static(1), Dim::Static(5)]), &ty(&[Dim::Static(1), Dim::Static(4)]));
        assert_eq!(m.ty, ty(&[Dim::Static(1), Dim::Static(4)]));
        assert_eq!(m.conflict.as_deref(), Some("axis 1: 5 declared, 4 inferred"));
    }

    #[test]
    fn declared_static_refines_and_symbols_alias_silently() {
        let m = merge(
            &ty(&[Dim::Static(2), sym("unk__315"), sym("stale"), Dim::Unknown, Dim::Static(25)]),
            &ty(&[sym("batch"), sym("unk__314"), Dim::Unknown, sym("n"), Dim::Unknown]),
        );
        // A declared size refines a symbol, never a dim inference knows nothing about.
        assert_eq!(m.ty, ty(&[Dim::Static(2), sym("unk__314"), Dim::Unknown, sym("n"), Dim::Unknown]));
        assert!(m.conflict.is_none());
        assert_eq!(m.aliases, vec![(Symbol::new("unk__315"), Symbol::new("unk__314"))]);
    }

    #[test]
    fn rank_and_type_conflicts_keep_the_inferred_type() {
        let inferred = ty(&[Dim::Static(24), Dim::Static(1), Dim::Static(8210)]);
        let m = merge(&ty(&[Dim::Static(1), sym("seqlen")]), &inferred);
        assert_eq!(m.ty, inferred);
        assert!(m.conflict.unwrap().contains("rank 2"));
        let m = merge(&TensorType::new(DType::I64, inferred.shape.clone()), &inferred);
        assert_eq!(m.ty, inferred);
        assert!(m.conflict.unwrap().contains("element type i64"));
    }

    #[test]
    fn anonymous_input_dims_are_fresh_symbols() {
        assert_eq!(input_dim(Dim::Unknown, None, "x", 2), sym("x.d2"));
        assert_eq!(input_dim(Dim::Unknown, Some("?"), "x", 3), sym("x.d3"));
        assert_eq!(input_dim(Dim::Unknown, Some("-1"), "x", 0), sym("x.d0"));
        assert_eq!(input_dim(Dim::Unknown, Some("None"), "x", 0), sym("x.d0"));
        assert_eq!(input_dim(Dim::Unknown, Some("batch"), "x", 0), sym("batch"));
        assert_eq!(input_dim(Dim::Static(3), None, "x", 1), Dim::Static(3));
    }
}
