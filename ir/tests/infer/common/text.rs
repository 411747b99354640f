//! Inference helpers taking operand types as text (`f32[N, 3]`) and an `Attrs`: `infer`,
//! `ok`, `err` and attribute builders (used by the Linalg, Conv, Pool, Norm and Resample tests).

pub use ir::ops::InferCtx;
pub use ir::{Attr, Attrs, Constant, DType, Dim, Opcode, Shape, Symbol, TensorType};

/// Parse a type like `f32[1, 3, seq, ?]` (`?` unknown, names symbolic, `[*]` unranked).
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

/// Run `op`'s inference. Operands are type strings, `""` for an omitted one.
pub fn infer_full(
    op: Opcode,
    operands: &[&str],
    consts: &[Option<&Constant>],
    attrs: &Attrs,
    num_results: usize,
) -> Result<Vec<String>, String> {
    let types: Vec<Option<TensorType>> = operands.iter().map(|s| (!s.is_empty()).then(|| ty(s))).collect();
    let refs: Vec<Option<&TensorType>> = types.iter().map(Option::as_ref).collect();
    let ctx = InferCtx { operands: &refs, consts, attrs, num_results, attr_const: None };
    let out = (op.def().infer)(&ctx)?;
    assert_eq!(out.len(), num_results, "{} returned {} results", op.name(), out.len());
    Ok(out.iter().map(ToString::to_string).collect())
}

/// Single-result inference without constants, as a string.
pub fn infer(op: Opcode, operands: &[&str], attrs: &Attrs) -> Result<String, String> {
    infer_full(op, operands, &[], attrs, 1).map(|mut v| v.remove(0))
}

pub fn ok(op: Opcode, operands: &[&str], attrs: &Attrs) -> String {
    infer(op, operands, attrs).unwrap_or_else(|e| panic!("{}: unexpected error: {e}", op.name()))
}

/// Assert an error whose message contains `needle`.
pub fn err(op: Opcode, operands: &[&str], attrs: &Attrs, needle: &str) {
    match infer(op, operands, attrs) {
        Ok(t) => panic!("{}: expected an error containing {needle:?}, got {t}", op.name()),
        Err(e) => assert!(e.contains(needle), "error {e:?} does not contain {needle:?}"),
    }
}

pub fn none() -> Attrs {
    Attrs::new()
}

pub fn ints(pairs: &[(&str, &[i64])]) -> Attrs {
    pairs.iter().fold(Attrs::new(), |a, (n, v)| a.with(*n, Attr::Ints(v.to_vec())))
}

pub fn int(a: Attrs, name: &str, v: i64) -> Attrs {
    a.with(name, Attr::Int(v))
}

pub fn string(a: Attrs, name: &str, v: &str) -> Attrs {
    a.with(name, Attr::Str(v.into()))
}
