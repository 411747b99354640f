//! Shape/type inference of elementwise ops: numpy broadcasting with symbolic
//! and unknown dims, dtype rules, optional operands.

use ir::ops::InferCtx;
use ir::{Attr, Attrs, Constant, DType, Dim, Opcode, Shape, Symbol, TensorType};

fn s(name: &str) -> Dim {
    Dim::Sym(Symbol::new(name))
}

fn d(n: u64) -> Dim {
    Dim::Static(n)
}

const U: Dim = Dim::Unknown;

fn ty(dt: DType, dims: &[Dim]) -> TensorType {
    TensorType::new(dt, Shape::from_dims(dims.iter().copied()))
}

fn infer_with(
    op: Opcode,
    operands: &[Option<&TensorType>],
    attrs: &Attrs,
    nres: usize,
) -> Result<Vec<TensorType>, String> {
    let consts: Vec<Option<&Constant>> = vec![None; operands.len()];
    let ctx = InferCtx { operands, consts: &consts, attrs, num_results: nres, attr_const: None };
    (op.def().infer)(&ctx)
}

fn infer(op: Opcode, operands: &[&TensorType]) -> Result<TensorType, String> {
    let ops: Vec<Option<&TensorType>> = operands.iter().map(|t| Some(*t)).collect();
    infer_with(op, &ops, &Attrs::new(), 1).map(|mut v| v.remove(0))
}

#[test]
fn broadcast_static_numpy_rules() {
    let a = ty(DType::F32, &[d(2), d(1), d(4)]);
    let b = ty(DType::F32, &[d(3), d(1)]);
    assert_eq!(infer(Opcode::Add, &[&a, &b]).unwrap(), ty(DType::F32, &[d(2), d(3), d(4)]));
    let scalar = ty(DType::F32, &[]);
    assert_eq!(infer(Opcode::Mul, &[&scalar, &a]).unwrap(), a);
}

#[test]
fn broadcast_mismatch_is_an_error_naming_both_shapes() {
    let a = ty(DType::F32, &[d(2), d(3)]);
    let b = ty(DType::F32, &[d(4)]);
    let e = infer(Opcode::Sub, &[&a, &b]).unwrap_err();
    assert!(e.contains("[2, 3] vs [4]"), "{e}");
}

#[test]
fn symbolic_dims_pass_through_broadcasting() {
    let a = ty(DType::F32, &[s("batch"), s("seq"), d(768)]);
    let b = ty(DType::F32, &[d(768)]);
    assert_eq!(infer(Opcode::Add, &[&a, &b]).unwrap(), a);
    // A symbol against 1 stays the symbol; against a number > 1 it must equal that number.
    let c = ty(DType::F32, &[d(1), s("seq"), d(1)]);
    let e = ty(DType::F32, &[d(4), d(1), d(768)]);
    assert_eq!(infer(Opcode::Mul, &[&c, &e]).unwrap(), ty(DType::F32, &[d(4), s("seq"), d(768)]));
    // Two different symbols: either could be 1, so the result is unknown, never a guess.
    let x = ty(DType::F32, &[s("a")]);
    let y = ty(DType::F32, &[s("b")]);
    assert_eq!(infer(Opcode::Add, &[&x, &y]).unwrap(), ty(DType::F32, &[U]));
    // The same symbol twice is that symbol.
    assert_eq!(infer(Opcode::Add, &[&x, &x]).unwrap(), x);
}

#[test]
fn unknown_and_unranked_operands() {
    let a = ty(DType::F32, &[U, d(3)]);
    let b = ty(DType::F32, &[d(5), d(1)]);
    assert_eq!(infer(Opcode::Div, &[&a, &b]).unwrap(), ty(DType::F32, &[d(5), d(3)]));
    let u = TensorType::unranked(DType::F32);
    assert_eq!(infer(Opcode::Add, &[&a, &u]).unwrap(), u);
}

#[test]
fn dtype_rules() {
    let f = ty(DType::F32, &[d(2)]);
    let i = ty(DType::I64, &[d(2)]);
    let bl = ty(DType::Bool, &[d(2)]);
    assert!(infer(Opcode::Add, &[&f, &i]).unwrap_err().contains("f32 vs i64"));
    assert_eq!(infer(Opcode::Less, &[&i, &i]).unwrap().dtype, DType::Bool);
    assert_eq!(infer(Opcode::And, &[&bl, &bl]).unwrap().dtype, DType::Bool);
    assert!(infer(Opcode::And, &[&f, &f]).is_err());
    assert!(infer(Opcode::Sigmoid, &[&i]).unwrap_err().contains("float"));
    assert_eq!(infer(Opcode::Abs, &[&i]).unwrap(), i);
    // Pow keeps the base type even with an integer exponent.
    assert_eq!(infer(Opcode::Pow, &[&f, &i]).unwrap(), f);
}

#[test]
fn variadic_max_broadcasts_all_operands() {
    let a = ty(DType::F32, &[d(3), d(1)]);
    let b = ty(DType::F32, &[d(1), d(4)]);
    let c = ty(DType::F32, &[s("n"), d(1), d(1)]);
    assert_eq!(infer(Opcode::Max, &[&a, &b, &c]).unwrap(), ty(DType::F32, &[s("n"), d(3), d(4)]));
}

#[test]
fn where_broadcasts_three_ways() {
    let c = ty(DType::Bool, &[d(2), d(1), d(1)]);
    let x = ty(DType::F16, &[d(3), d(1)]);
    let y = ty(DType::F16, &[d(1), d(5)]);
    assert_eq!(infer(Opcode::Where, &[&c, &x, &y]).unwrap(), ty(DType::F16, &[d(2), d(3), d(5)]));
    assert!(infer(Opcode::Where, &[&x, &x, &y]).unwrap_err().contains("bool"));
}

#[test]
fn clip_bounds_are_optional_scalars() {
    let x = ty(DType::F32, &[s("n"), d(8)]);
    let lo = ty(DType::F32, &[]);
    let attrs = Attrs::new();
    assert_eq!(infer_with(Opcode::Clip, &[Some(&x), None, Some(&lo)], &attrs, 1).unwrap(), vec![x.clone()]);
    let vec_bound = ty(DType::F32, &[d(8)]);
    let e = infer_with(Opcode::Clip, &[Some(&x), Some(&vec_bound), None], &attrs, 1).unwrap_err();
    assert!(e.contains("scalar"), "{e}");
}

#[test]
fn cast_changes_dtype_keeps_symbolic_shape() {
    let x = ty(DType::F32, &[s("batch"), U, d(3)]);
    let attrs = Attrs::new().with("to", Attr::Type(DType::F16));
    let out = infer_with(Opcode::Cast, &[Some(&x)], &attrs, 1).unwrap();
    assert_eq!(out, vec![ty(DType::F16, &[s("batch"), U, d(3)])]);
}

#[test]
fn prelu_slope_broadcasts_to_x() {
    let x = ty(DType::F32, &[d(1), d(8), d(4), d(4)]);
    let slope = ty(DType::F32, &[d(8), d(1), d(1)]);
    assert_eq!(infer(Opcode::PRelu, &[&x, &slope]).unwrap(), x);
    let too_big = ty(DType::F32, &[d(2), d(1), d(8), d(4), d(4)]);
    assert!(infer(Opcode::PRelu, &[&x, &too_big]).is_err());
}

#[test]
fn dropout_optional_mask_result() {
    let x = ty(DType::F32, &[s("n"), d(4)]);
    let out = infer_with(Opcode::Dropout, &[Some(&x)], &Attrs::new(), 2).unwrap();
    assert_eq!(out, vec![x.clone(), ty(DType::Bool, &[s("n"), d(4)])]);
}
