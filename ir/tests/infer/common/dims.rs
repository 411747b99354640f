//! Inference helpers building operand types from `Dim` lists, with constant operands (`c`)
//! and non-constant ones (`dyn_ints`): `run`, `one`, `err` (used by the Layout, Index,
//! Generate and Reduce tests).

pub use ir::ops::{InferCtx, InferResult};
pub use ir::{Attr, Attrs, Constant, DType, Dim, Opcode, Shape, Symbol, TensorType};

// ---------------------------------------------------------------- helpers

pub fn s(name: &str) -> Dim {
    Dim::Sym(Symbol::new(name))
}

pub fn d(n: u64) -> Dim {
    Dim::Static(n)
}

pub const U: Dim = Dim::Unknown;

pub fn ty(dt: DType, dims: &[Dim]) -> TensorType {
    TensorType::new(dt, Shape::from_dims(dims.iter().copied()))
}

pub fn f32t(dims: &[Dim]) -> TensorType {
    ty(DType::F32, dims)
}

/// One operand: its type and, if it comes from a constant, the constant.
pub type Arg = Option<(TensorType, Option<Constant>)>;

/// A non-constant operand of type `t`.
pub fn t(t: TensorType) -> Arg {
    Some((t, None))
}

/// A constant 1-D i64 operand.
pub fn c(vals: &[i64]) -> Arg {
    let k = Constant::from_i64s("k", &[vals.len() as u64], vals);
    Some((k.ty.clone(), Some(k)))
}

/// A non-constant 1-D i64 operand of static length `n`.
pub fn dyn_ints(n: u64) -> Arg {
    t(ty(DType::I64, &[d(n)]))
}

/// An omitted optional operand.
pub const NONE: Arg = None;

pub fn attrs(list: &[(&str, Attr)]) -> Attrs {
    list.iter().fold(Attrs::new(), |a, (n, v)| a.with(*n, v.clone()))
}

pub fn int(v: i64) -> Attr {
    Attr::Int(v)
}

pub fn run(op: Opcode, args: &[Arg], at: &Attrs, num_results: usize, attr_const: Option<&Constant>) -> InferResult {
    let operands: Vec<Option<&TensorType>> = args.iter().map(|a| a.as_ref().map(|(t, _)| t)).collect();
    let consts: Vec<Option<&Constant>> = args.iter().map(|a| a.as_ref().and_then(|(_, c)| c.as_ref())).collect();
    let ctx = InferCtx { operands: &operands, consts: &consts, attrs: at, num_results, attr_const };
    (op.def().infer)(&ctx)
}

/// Infer a single-result op, panicking on error.
pub fn one(op: Opcode, args: &[Arg], at: &[(&str, Attr)]) -> TensorType {
    let r = run(op, args, &attrs(at), 1, None).unwrap_or_else(|e| panic!("{}: {e}", op.name()));
    assert_eq!(r.len(), 1);
    r.into_iter().next().unwrap()
}

/// Infer and expect an error containing `needle`.
pub fn err(op: Opcode, args: &[Arg], at: &[(&str, Attr)], needle: &str) {
    match run(op, args, &attrs(at), 1, None) {
        Ok(r) => panic!("{}: expected error containing {needle:?}, got {r:?}", op.name()),
        Err(e) => assert!(e.contains(needle), "{}: error {e:?} lacks {needle:?}", op.name()),
    }
}
