//! Shape inference of the layout ops (Reshape, Transpose, Concat, Split, Slice, Squeeze,
//! Unsqueeze, Flatten, Expand, Shape, Pad, Tile): symbolic dims, constant and non-constant
//! operands, errors.

use crate::common::dims::*;

// ---------------------------------------------------------------- Reshape

#[test]
fn reshape_zero_copies_symbolic_dims() {
    let x = f32t(&[s("batch"), s("seq"), d(768)]);
    let r = one(Opcode::Reshape, &[t(x), c(&[0, 0, 12, 64])], &[]);
    assert_eq!(r, f32t(&[s("batch"), s("seq"), d(12), d(64)]));
}

#[test]
fn reshape_minus_one_divides_symbolically() {
    let x = f32t(&[s("batch"), s("seq"), d(12), d(64)]);
    assert_eq!(one(Opcode::Reshape, &[t(x), c(&[0, 0, -1])], &[]), f32t(&[s("batch"), s("seq"), d(768)]));
    let x = f32t(&[s("seq"), d(4)]);
    assert_eq!(one(Opcode::Reshape, &[t(x.clone()), c(&[4, -1])], &[]), f32t(&[d(4), s("seq")]));
    // seq * 4 is not a single symbol.
    assert_eq!(one(Opcode::Reshape, &[t(x), c(&[-1])], &[]), f32t(&[U]));
    // batch * seq has two symbols.
    let x = f32t(&[s("batch"), s("seq"), d(768)]);
    assert_eq!(one(Opcode::Reshape, &[t(x), c(&[-1, 768])], &[]), f32t(&[U, d(768)]));
    // seq * 3 / 2 is not determined.
    assert_eq!(one(Opcode::Reshape, &[t(f32t(&[s("seq"), d(3)])), c(&[2, -1])], &[]), f32t(&[d(2), U]));
}

#[test]
fn reshape_static_and_unknown_inputs() {
    let x = f32t(&[d(2), d(3), d(4)]);
    assert_eq!(one(Opcode::Reshape, &[t(x.clone()), c(&[-1, 4])], &[]), f32t(&[d(6), d(4)]));
    assert_eq!(one(Opcode::Reshape, &[t(x.clone()), c(&[0, -1])], &[]), f32t(&[d(2), d(12)]));
    assert_eq!(one(Opcode::Reshape, &[t(x), c(&[24])], &[]), f32t(&[d(24)]));
    // An unknown input dim makes -1 unknown.
    assert_eq!(one(Opcode::Reshape, &[t(f32t(&[U, d(4)])), c(&[2, -1])], &[]), f32t(&[d(2), U]));
    // Unranked input: literal dims survive, copies and -1 are unknown.
    let x = TensorType::unranked(DType::F32);
    assert_eq!(one(Opcode::Reshape, &[t(x), c(&[0, -1, 5])], &[]), f32t(&[U, U, d(5)]));
    // A zero-sized input makes -1 zero.
    assert_eq!(one(Opcode::Reshape, &[t(f32t(&[s("b"), d(0)])), c(&[3, -1])], &[]), f32t(&[d(3), d(0)]));
}

#[test]
fn reshape_non_constant_shape() {
    let x = f32t(&[d(2), d(3)]);
    assert_eq!(one(Opcode::Reshape, &[t(x.clone()), dyn_ints(3)], &[]), f32t(&[U, U, U]));
    let r = one(Opcode::Reshape, &[t(x), t(ty(DType::I64, &[U]))], &[]);
    assert_eq!(r, TensorType::unranked(DType::F32));
}

#[test]
fn reshape_allowzero() {
    let x = f32t(&[d(0), d(3)]);
    assert_eq!(one(Opcode::Reshape, &[t(x), c(&[3, 0])], &[("allowzero", int(1))]), f32t(&[d(3), d(0)]));
    let x = f32t(&[d(2), d(3)]);
    assert_eq!(one(Opcode::Reshape, &[t(x.clone()), c(&[0, 3])], &[("allowzero", int(0))]), f32t(&[d(2), d(3)]));
    err(Opcode::Reshape, &[t(x.clone()), c(&[0, 3])], &[("allowzero", int(1))], "cannot reshape");
    err(Opcode::Reshape, &[t(x), c(&[0, -1])], &[("allowzero", int(1))], "both 0 and -1");
}

#[test]
fn reshape_errors() {
    let x = f32t(&[d(2), d(3)]);
    err(Opcode::Reshape, &[t(x.clone()), c(&[-1, -1])], &[], "more than one -1");
    err(Opcode::Reshape, &[t(x.clone()), c(&[4, 2])], &[], "cannot reshape");
    err(Opcode::Reshape, &[t(x.clone()), c(&[-1, 4])], &[], "cannot reshape");
    err(Opcode::Reshape, &[t(x.clone()), c(&[0, 0, 0])], &[], "copies dim 2");
    err(Opcode::Reshape, &[t(x.clone()), c(&[-2, 3])], &[], "negative entry -2");
    err(Opcode::Reshape, &[t(x.clone()), t(f32t(&[d(2)]))], &[], "`shape` has element type f32");
    err(Opcode::Reshape, &[t(x), t(ty(DType::I64, &[d(2), d(1)]))], &[], "must be 1-D");
}

// ---------------------------------------------------------------- Transpose

#[test]
fn transpose_default_and_explicit() {
    let x = f32t(&[s("a"), d(3), d(4)]);
    assert_eq!(one(Opcode::Transpose, &[t(x.clone())], &[]), f32t(&[d(4), d(3), s("a")]));
    let r = one(Opcode::Transpose, &[t(x)], &[("perm", Attr::Ints(vec![0, 2, 1]))]);
    assert_eq!(r, f32t(&[s("a"), d(4), d(3)]));
    let u = TensorType::unranked(DType::F32);
    assert_eq!(one(Opcode::Transpose, &[t(u.clone())], &[]), u);
    assert_eq!(one(Opcode::Transpose, &[t(u)], &[("perm", Attr::Ints(vec![1, 0]))]), f32t(&[U, U]));
}

#[test]
fn transpose_bad_perm() {
    let x = f32t(&[d(2), d(3), d(4)]);
    err(Opcode::Transpose, &[t(x.clone())], &[("perm", Attr::Ints(vec![0, 0, 1]))], "not a permutation");
    err(Opcode::Transpose, &[t(x.clone())], &[("perm", Attr::Ints(vec![0, 1, 3]))], "not a permutation");
    err(Opcode::Transpose, &[t(x)], &[("perm", Attr::Ints(vec![1, 0]))], "has rank 3");
}

// ---------------------------------------------------------------- Concat

#[test]
fn concat_negative_axis_and_symbolic_dims() {
    let (a, b) = (f32t(&[s("b"), d(3)]), f32t(&[s("b"), d(5)]));
    assert_eq!(one(Opcode::Concat, &[t(a), t(b)], &[("axis", int(-1))]), f32t(&[s("b"), d(8)]));
    // Non-axis dims merge: unknown takes the symbol or the number.
    let (a, b) = (f32t(&[s("b"), d(4)]), f32t(&[U, d(4)]));
    assert_eq!(one(Opcode::Concat, &[t(a), t(b)], &[("axis", int(1))]), f32t(&[s("b"), d(8)]));
    let (a, b) = (f32t(&[s("b"), d(4)]), f32t(&[d(2), d(4)]));
    assert_eq!(one(Opcode::Concat, &[t(a), t(b)], &[("axis", int(1))]), f32t(&[d(2), d(8)]));
    // Symbolic axis dims: unknown sum, unless the others are all zero.
    let (a, b) = (f32t(&[s("n"), d(4)]), f32t(&[d(2), d(4)]));
    assert_eq!(one(Opcode::Concat, &[t(a.clone()), t(b)], &[("axis", int(0))]), f32t(&[U, d(4)]));
    let z = f32t(&[d(0), d(4)]);
    assert_eq!(one(Opcode::Concat, &[t(a.clone()), t(z)], &[("axis", int(0))]), f32t(&[s("n"), d(4)]));
    assert_eq!(one(Opcode::Concat, &[t(a)], &[("axis", int(0))]), f32t(&[s("n"), d(4)]));
}

#[test]
fn concat_with_unranked_operand() {
    let a = f32t(&[d(2), d(4)]);
    let r = one(Opcode::Concat, &[t(a), t(TensorType::unranked(DType::F32))], &[("axis", int(0))]);
    assert_eq!(r, f32t(&[U, d(4)]));
}

#[test]
fn concat_errors() {
    let (a, b) = (f32t(&[d(2), d(3)]), f32t(&[d(3), d(3)]));
    err(Opcode::Concat, &[t(a.clone()), t(b)], &[("axis", int(1))], "dim 0: dims 2 and 3 differ");
    err(Opcode::Concat, &[t(a.clone()), t(f32t(&[d(2)]))], &[("axis", int(0))], "rank");
    err(Opcode::Concat, &[t(a.clone()), t(ty(DType::I64, &[d(2), d(3)]))], &[("axis", int(0))], "element type");
    err(Opcode::Concat, &[t(a.clone())], &[("axis", int(2))], "out of range");
    err(Opcode::Concat, &[t(a)], &[], "missing attribute `axis`");
}

// ---------------------------------------------------------------- Split

fn split(args: &[Arg], at: &[(&str, Attr)], n: usize) -> Result<Vec<TensorType>, String> {
    run(Opcode::Split, args, &attrs(at), n, None)
}

#[test]
fn split_with_split_operand() {
    let x = f32t(&[s("b"), d(6)]);
    let r = split(&[t(x.clone()), c(&[2, 4])], &[("axis", int(1))], 2).unwrap();
    assert_eq!(r, vec![f32t(&[s("b"), d(2)]), f32t(&[s("b"), d(4)])]);
    let r = split(&[t(x.clone()), c(&[2, 4])], &[("axis", int(-1))], 2).unwrap();
    assert_eq!(r[1], f32t(&[s("b"), d(4)]));
    assert!(split(&[t(x.clone()), c(&[2, 3])], &[("axis", int(1))], 2).unwrap_err().contains("does not sum"));
    assert!(split(&[t(x.clone()), c(&[2, 2, 2])], &[("axis", int(1))], 2).unwrap_err().contains("2 results"));
    // Non-constant split: sizes unknown.
    let r = split(&[t(x), dyn_ints(2)], &[("axis", int(1))], 2).unwrap();
    assert_eq!(r, vec![f32t(&[s("b"), U]); 2]);
}

#[test]
fn split_equal_parts() {
    let x = f32t(&[d(7), s("c")]);
    let r = split(&[t(x.clone())], &[("num_outputs", int(3))], 3).unwrap();
    assert_eq!(r, vec![f32t(&[d(3), s("c")]), f32t(&[d(3), s("c")]), f32t(&[d(1), s("c")])]);
    let r = split(&[t(f32t(&[d(4)]))], &[], 2).unwrap();
    assert_eq!(r, vec![f32t(&[d(2)]); 2]);
    // Symbolic split dim: parts unknown.
    let r = split(&[t(x.clone())], &[("axis", int(1)), ("num_outputs", int(2))], 2).unwrap();
    assert_eq!(r, vec![f32t(&[d(7), U]); 2]);
    assert!(split(&[t(x)], &[("num_outputs", int(3))], 2).unwrap_err().contains("`num_outputs` is 3"));
    // Uneven: ceil(5/4) = 2 per part, clamped to what is left (the ONNX reference's split).
    let r = split(&[t(f32t(&[d(5)]))], &[], 4).unwrap();
    assert_eq!(r, vec![f32t(&[d(2)]), f32t(&[d(2)]), f32t(&[d(1)]), f32t(&[d(0)])]);
}

// ---------------------------------------------------------------- Slice

fn slice(x: TensorType, starts: &[i64], ends: &[i64], axes: Option<&[i64]>, steps: Option<&[i64]>) -> TensorType {
    one(Opcode::Slice, &[t(x), c(starts), c(ends), axes.and_then(c), steps.and_then(c)], &[])
}

#[test]
fn slice_static_negative_indices_and_steps() {
    let x = f32t(&[d(10)]);
    assert_eq!(slice(x.clone(), &[-3], &[-1], None, None), f32t(&[d(2)]));
    assert_eq!(slice(x.clone(), &[8], &[1], None, Some(&[-2])), f32t(&[d(4)]));
    assert_eq!(slice(x.clone(), &[-1], &[i64::MIN], None, Some(&[-1])), f32t(&[d(10)]));
    assert_eq!(slice(x.clone(), &[20], &[-20], None, Some(&[-3])), f32t(&[d(4)]));
    assert_eq!(slice(x.clone(), &[10], &[20], None, None), f32t(&[d(0)]));
    assert_eq!(slice(x.clone(), &[5], &[2], None, None), f32t(&[d(0)]));
    assert_eq!(slice(x, &[1], &[i64::MAX], None, Some(&[3])), f32t(&[d(3)]));
}

#[test]
fn slice_huge_ends_and_axes_operand() {
    let x = f32t(&[d(10), d(20)]);
    assert_eq!(slice(x.clone(), &[2], &[i64::MAX], Some(&[1]), None), f32t(&[d(10), d(18)]));
    let x = f32t(&[d(4), d(5), d(6)]);
    assert_eq!(slice(x.clone(), &[1], &[3], Some(&[-1]), None), f32t(&[d(4), d(5), d(2)]));
    assert_eq!(slice(x.clone(), &[1, 0], &[3, 2], Some(&[2, 0]), None), f32t(&[d(2), d(5), d(2)]));
    // Default axes are the leading ones.
    assert_eq!(slice(x, &[1, 1], &[3, 2], None, None), f32t(&[d(2), d(1), d(6)]));
}

#[test]
fn slice_symbolic_full_range_keeps_symbol() {
    let x = f32t(&[s("seq"), d(8)]);
    assert_eq!(slice(x.clone(), &[0], &[i64::MAX], Some(&[0]), None), x);
    assert_eq!(slice(x.clone(), &[-1], &[i64::MIN], Some(&[0]), Some(&[-1])), x);
    assert_eq!(slice(x.clone(), &[1], &[i64::MAX], Some(&[0]), None), f32t(&[U, d(8)]));
    assert_eq!(slice(x.clone(), &[0], &[i64::MAX], Some(&[0]), Some(&[2])), f32t(&[U, d(8)]));
    assert_eq!(slice(x, &[0], &[4], Some(&[0]), None), f32t(&[U, d(8)]));
}

#[test]
fn slice_non_constant_operands() {
    let x = f32t(&[d(4), d(5), d(6)]);
    let r = one(Opcode::Slice, &[t(x.clone()), dyn_ints(1), c(&[3]), c(&[1]), NONE], &[]);
    assert_eq!(r, f32t(&[d(4), U, d(6)]));
    let r = one(Opcode::Slice, &[t(x.clone()), c(&[0]), c(&[3]), dyn_ints(1), NONE], &[]);
    assert_eq!(r, f32t(&[U, U, U]));
    let r = one(Opcode::Slice, &[t(TensorType::unranked(DType::F32)), c(&[0]), c(&[3]), NONE, NONE], &[]);
    assert_eq!(r, TensorType::unranked(DType::F32));
}

#[test]
fn slice_errors() {
    let x = f32t(&[d(4), d(5)]);
    err(Opcode::Slice, &[t(x.clone()), c(&[0]), c(&[3]), NONE, c(&[0])], &[], "must not contain 0");
    err(Opcode::Slice, &[t(x.clone()), c(&[0, 1]), c(&[3]), NONE, NONE], &[], "different lengths");
    err(Opcode::Slice, &[t(x.clone()), c(&[0]), c(&[3]), c(&[2]), NONE], &[], "out of range");
    err(Opcode::Slice, &[t(x.clone()), c(&[0, 0]), c(&[3, 3]), c(&[1, -1]), NONE], &[], "repeated");
    err(Opcode::Slice, &[t(x), c(&[0, 0, 0]), c(&[1, 1, 1]), NONE, NONE], &[], "rank 2");
}

// ---------------------------------------------------------------- Squeeze / Unsqueeze

#[test]
fn squeeze_shapes() {
    let x = f32t(&[d(1), s("a"), d(1), d(3)]);
    assert_eq!(one(Opcode::Squeeze, &[t(x.clone()), c(&[-2, 0])], &[]), f32t(&[s("a"), d(3)]));
    assert_eq!(one(Opcode::Squeeze, &[t(f32t(&[d(1), d(3), d(1)])), NONE], &[]), f32t(&[d(3)]));
    // Without axes a symbolic dim might be 1: the rank is unknown.
    assert_eq!(one(Opcode::Squeeze, &[t(x.clone())], &[]), TensorType::unranked(DType::F32));
    // A symbolic dim named in axes is removed (it must be 1).
    assert_eq!(one(Opcode::Squeeze, &[t(x.clone()), c(&[1])], &[]), f32t(&[d(1), d(1), d(3)]));
    assert_eq!(one(Opcode::Squeeze, &[t(x.clone()), dyn_ints(2)], &[]), f32t(&[U, U]));
    err(Opcode::Squeeze, &[t(x.clone()), c(&[3])], &[], "cannot squeeze axis 3 of size 3");
    err(Opcode::Squeeze, &[t(x.clone()), c(&[0, -4])], &[], "repeated");
    err(Opcode::Squeeze, &[t(x), c(&[4])], &[], "out of range");
}

#[test]
fn unsqueeze_shapes() {
    let x = f32t(&[s("a"), d(3)]);
    assert_eq!(one(Opcode::Unsqueeze, &[t(x.clone()), c(&[0, -1])], &[]), f32t(&[d(1), s("a"), d(3), d(1)]));
    assert_eq!(one(Opcode::Unsqueeze, &[t(x.clone()), c(&[3, 1])], &[]), f32t(&[s("a"), d(1), d(3), d(1)]));
    assert_eq!(one(Opcode::Unsqueeze, &[t(TensorType::scalar(DType::F32)), c(&[0])], &[]), f32t(&[d(1)]));
    assert_eq!(one(Opcode::Unsqueeze, &[t(x.clone()), dyn_ints(2)], &[]), f32t(&[U, U, U, U]));
    err(Opcode::Unsqueeze, &[t(x.clone()), c(&[4])], &[], "out of range");
    err(Opcode::Unsqueeze, &[t(x), c(&[1, -3])], &[], "repeated");
}

// ---------------------------------------------------------------- Flatten

#[test]
fn flatten_shapes() {
    let x = f32t(&[d(2), d(3), d(4)]);
    assert_eq!(one(Opcode::Flatten, &[t(x.clone())], &[("axis", int(0))]), f32t(&[d(1), d(24)]));
    assert_eq!(one(Opcode::Flatten, &[t(x.clone())], &[("axis", int(3))]), f32t(&[d(24), d(1)]));
    assert_eq!(one(Opcode::Flatten, &[t(x.clone())], &[("axis", int(-1))]), f32t(&[d(6), d(4)]));
    let x = f32t(&[s("b"), d(3), d(4)]);
    assert_eq!(one(Opcode::Flatten, &[t(x.clone())], &[]), f32t(&[s("b"), d(12)]));
    let x = f32t(&[d(1), s("b"), d(1)]);
    assert_eq!(one(Opcode::Flatten, &[t(x)], &[("axis", int(0))]), f32t(&[d(1), s("b")]));
    let x = f32t(&[d(2), s("b"), d(3)]);
    assert_eq!(one(Opcode::Flatten, &[t(x.clone())], &[]), f32t(&[d(2), U]));
    err(Opcode::Flatten, &[t(x)], &[("axis", int(-4))], "out of range");
    let u = TensorType::unranked(DType::F32);
    assert_eq!(one(Opcode::Flatten, &[t(u)], &[]), f32t(&[U, U]));
}

// ---------------------------------------------------------------- Expand

#[test]
fn expand_broadcasts_both_ways() {
    assert_eq!(one(Opcode::Expand, &[t(f32t(&[d(3), d(1)])), c(&[2, 1, 4])], &[]), f32t(&[d(2), d(3), d(4)]));
    assert_eq!(one(Opcode::Expand, &[t(f32t(&[d(1), d(4)])), c(&[3, 1])], &[]), f32t(&[d(3), d(4)]));
    assert_eq!(one(Opcode::Expand, &[t(f32t(&[s("b"), d(1)])), c(&[1, 5])], &[]), f32t(&[s("b"), d(5)]));
    assert_eq!(one(Opcode::Expand, &[t(f32t(&[s("b"), d(1)])), c(&[3, 5])], &[]), f32t(&[d(3), d(5)]));
    // Non-constant shape: static non-1 input dims survive, the rest is unknown.
    assert_eq!(one(Opcode::Expand, &[t(f32t(&[d(5), s("b")])), dyn_ints(3)], &[]), f32t(&[U, d(5), U]));
    assert_eq!(one(Opcode::Expand, &[t(f32t(&[d(2), d(5), s("b")])), dyn_ints(1)], &[]), f32t(&[d(2), d(5), U]));
    err(Opcode::Expand, &[t(f32t(&[d(3)])), c(&[4])], &[], "broadcast");
    err(Opcode::Expand, &[t(f32t(&[d(3)])), c(&[-1])], &[], "negative");
}

// ---------------------------------------------------------------- Shape

#[test]
fn shape_of_with_start_end() {
    let x = t(f32t(&[s("a"), s("b"), d(3)]));
    let i64v = |n| ty(DType::I64, &[d(n)]);
    assert_eq!(one(Opcode::Shape, std::slice::from_ref(&x), &[]), i64v(3));
    assert_eq!(one(Opcode::Shape, std::slice::from_ref(&x), &[("start", int(-2))]), i64v(2));
    assert_eq!(one(Opcode::Shape, std::slice::from_ref(&x), &[("start", int(1)), ("end", int(-1))]), i64v(1));
    assert_eq!(one(Opcode::Shape, std::slice::from_ref(&x), &[("start", int(5))]), i64v(0));
    assert_eq!(one(Opcode::Shape, std::slice::from_ref(&x), &[("start", int(-9)), ("end", int(9))]), i64v(3));
    assert_eq!(one(Opcode::Shape, std::slice::from_ref(&x), &[("start", int(2)), ("end", int(1))]), i64v(0));
    assert_eq!(one(Opcode::Shape, &[t(TensorType::unranked(DType::F32))], &[]), ty(DType::I64, &[U]));
}

// ---------------------------------------------------------------- Pad / Tile / ConstantOfShape

#[test]
fn pad_shapes() {
    let x = f32t(&[s("b"), d(3), d(4)]);
    let r = one(Opcode::Pad, &[t(x.clone()), c(&[0, 1, 2, 0, 1, 2])], &[("mode", Attr::Str("reflect".into()))]);
    assert_eq!(r, f32t(&[s("b"), d(5), d(8)]));
    assert_eq!(one(Opcode::Pad, &[t(x.clone()), c(&[1, 0, 0, 0, 0, -1])], &[]), f32t(&[U, d(3), d(3)]));
    let cv = t(TensorType::scalar(DType::F32));
    assert_eq!(one(Opcode::Pad, &[t(x.clone()), c(&[2, 3]), cv, c(&[-1])], &[]), f32t(&[s("b"), d(3), d(9)]));
    assert_eq!(one(Opcode::Pad, &[t(x.clone()), c(&[2, 3]), NONE, c(&[0])], &[]), f32t(&[U, d(3), d(4)]));
    assert_eq!(one(Opcode::Pad, &[t(x.clone()), dyn_ints(2), NONE, c(&[1])], &[]), f32t(&[s("b"), U, d(4)]));
    let u = TensorType::unranked(DType::F32);
    assert_eq!(one(Opcode::Pad, &[t(u), c(&[1, 1, 1, 1])], &[]), f32t(&[U, U]));
    err(Opcode::Pad, &[t(x.clone()), c(&[1, 1])], &[], "expected 6");
    err(Opcode::Pad, &[t(x.clone()), c(&[0, -4, 0, 0, 0, 0])], &[], "negative");
    err(Opcode::Pad, &[t(x.clone()), c(&[0, 0, 0, 0, 0, 0]), t(TensorType::scalar(DType::I64))], &[], "constant_value");
    err(Opcode::Pad, &[t(x), c(&[1, 1, 1])], &[], "odd length");
}

#[test]
fn tile_shapes() {
    let x = f32t(&[s("b"), d(3)]);
    assert_eq!(one(Opcode::Tile, &[t(x.clone()), c(&[1, 2])], &[]), f32t(&[s("b"), d(6)]));
    assert_eq!(one(Opcode::Tile, &[t(x.clone()), c(&[2, 0])], &[]), f32t(&[U, d(0)]));
    assert_eq!(one(Opcode::Tile, &[t(x.clone()), dyn_ints(2)], &[]), f32t(&[U, U]));
    err(Opcode::Tile, &[t(x.clone()), c(&[2])], &[], "`repeats` has 1 entries");
    err(Opcode::Tile, &[t(x), c(&[1, -2])], &[], "negative");
}
