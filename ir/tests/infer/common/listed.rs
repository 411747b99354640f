//! Inference helpers taking operand types as text and attributes as a `(name, Attr)` list,
//! without constant operands: `infer`, `one`, `ok`, `err` (used by the Quant, Attention and
//! cross-family tests).

pub use ir::ops::InferCtx;
pub use ir::{Dim, Shape, Symbol, TensorType};

pub use ir::{Attr, Attrs, DType, Opcode};

/// Attributes from `(name, value)` pairs.
pub fn attrs(list: &[(&str, Attr)]) -> Attrs {
    list.iter().fold(Attrs::new(), |a, (k, v)| a.with(*k, v.clone()))
}

/// Parse `f32[1, N, ?]` (`?` unknown, names symbolic, `[*]` unranked).
pub fn ty(s: &str) -> TensorType {
    let (dt, rest) = s.split_once('[').expect("missing `[`");
    let dtype = DType::from_name(dt).expect("bad dtype");
    let inner = rest.strip_suffix(']').expect("missing `]`");
    if inner == "*" {
        return TensorType::unranked(dtype);
    }
    let dims = inner.split(',').map(str::trim).filter(|d| !d.is_empty()).map(|d| match d {
        "?" => Dim::Unknown,
        _ => d.parse().map(Dim::Static).unwrap_or_else(|_| Dim::Sym(Symbol::new(d))),
    });
    TensorType::new(dtype, Shape::from_dims(dims))
}

/// Inferred result types as strings (operands `""` are omitted).
pub fn infer(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize) -> Result<Vec<String>, String> {
    let types: Vec<Option<TensorType>> = operands.iter().map(|s| (!s.is_empty()).then(|| ty(s))).collect();
    let refs: Vec<Option<&TensorType>> = types.iter().map(Option::as_ref).collect();
    let a = attrs(list);
    let ctx = InferCtx { operands: &refs, consts: &[], attrs: &a, num_results: n, attr_const: None };
    Ok((op.def().infer)(&ctx)?.iter().map(ToString::to_string).collect())
}

pub fn one(op: Opcode, operands: &[&str], list: &[(&str, Attr)]) -> String {
    infer(op, operands, list, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name())).remove(0)
}

pub fn ok(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize) -> String {
    infer(op, operands, list, n).unwrap_or_else(|e| panic!("{}: {e}", op.name())).join(" ")
}

pub fn err(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize, needle: &str) {
    match infer(op, operands, list, n) {
        Ok(t) => panic!("{}: expected an error containing {needle:?}, got {t:?}", op.name()),
        Err(e) => assert!(e.contains(needle), "error {e:?} does not contain {needle:?}"),
    }
}
