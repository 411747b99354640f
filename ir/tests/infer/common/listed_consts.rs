//! Inference helpers taking operand types as text, attributes as a `(name, Attr)` list and
//! constant 1-D i64 operands by position: `infer_c`, `infer`, `one`, `err`.

pub use ir::ops::InferCtx;
pub use ir::{Constant, Dim, Shape, Symbol, TensorType};

pub use ir::{Attr, Attrs, DType, Opcode};

/// Attributes from `(name, value)` pairs.
pub fn attrs(list: &[(&str, Attr)]) -> Attrs {
    list.iter().fold(Attrs::new(), |a, (k, v)| a.with(*k, v.clone()))
}

/// An integer attribute.
pub fn int(v: i64) -> Attr {
    Attr::Int(v)
}
/// A string attribute.
pub fn s(v: &str) -> Attr {
    Attr::Str(v.into())
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

/// Inferred result types as strings (operands `""` are omitted); `consts` gives
/// constant 1-D i64 contents of some operands by position.
pub fn infer_c(
    op: Opcode,
    operands: &[&str],
    consts: &[(usize, &[i64])],
    list: &[(&str, Attr)],
    n: usize,
) -> Result<Vec<String>, String> {
    let types: Vec<Option<TensorType>> = operands.iter().map(|s| (!s.is_empty()).then(|| ty(s))).collect();
    let refs: Vec<Option<&TensorType>> = types.iter().map(Option::as_ref).collect();
    let ks: Vec<Option<Constant>> = (0..operands.len())
        .map(|i| consts.iter().find(|c| c.0 == i).map(|c| Constant::from_i64s("k", &[c.1.len() as u64], c.1)))
        .collect();
    let krefs: Vec<Option<&Constant>> = ks.iter().map(Option::as_ref).collect();
    let a = attrs(list);
    let ctx = InferCtx { operands: &refs, consts: &krefs, attrs: &a, num_results: n, attr_const: None };
    Ok((op.def().infer)(&ctx)?.iter().map(ToString::to_string).collect())
}

pub fn infer(op: Opcode, operands: &[&str], list: &[(&str, Attr)], n: usize) -> Result<Vec<String>, String> {
    infer_c(op, operands, &[], list, n)
}

pub fn one(op: Opcode, operands: &[&str], list: &[(&str, Attr)]) -> String {
    infer(op, operands, list, 1).unwrap_or_else(|e| panic!("{}: {e}", op.name())).remove(0)
}

pub fn err(op: Opcode, operands: &[&str], list: &[(&str, Attr)]) -> String {
    infer(op, operands, list, 1).expect_err("inference should fail")
}
