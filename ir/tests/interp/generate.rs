//! ConstantOfShape, Range, EyeLike and Trilu.

use crate::common::shape::*;
use ir::interp::Data;
use ir::{ConstData, Constant, DType, Function, Loc, Module, TensorType};

/// Run ConstantOfShape on `shape` with `value` naming a module constant (if given).
fn constant_of_shape(shape: &[i64], value: Option<Tensor>) -> Result<Tensor, String> {
    let mut m = Module::new("t");
    let mut f = Function::new("main");
    let sc = Constant::from_i64s("shape", &[shape.len() as u64], shape);
    let st = sc.ty.clone();
    m.add_const(sc)?;
    let c = f.append_op(Opcode::CoreConst, [], attrs(&[("value", Attr::Sym("shape".into()))]), [st], Loc::Unknown);
    let mut at = Attrs::new();
    let dt = value.as_ref().map_or(DType::F32, |v| v.dtype());
    if let Some(v) = value {
        let data = ConstData::Bytes(v.to_le_bytes().expect("numeric").into());
        m.add_const(Constant { name: "v".into(), ty: v.ty(), data })?;
        at.set("value", Attr::Sym("v".into()));
    }
    let dims: Vec<u64> = shape.iter().map(|&d| d.max(0) as u64).collect();
    let ty = TensorType::fixed(dt, &dims);
    let op = f.append_op(Opcode::ConstantOfShape, [Some(f.result(c))], at, [ty.clone()], Loc::Unknown);
    f.body.results = vec![f.result(op)];
    f.result_types = vec![ty];
    m.funcs.push(f);
    ir::interp::run(&m, "main", vec![]).map(|mut v| v.remove(0)).map_err(|e| e.to_string())
}

#[test]
fn constant_of_shape_values() {
    // test_constantofshape_float_ones / int_zeros / int_shape_zero
    let r = constant_of_shape(&[4, 3, 2], Some(f32t(&[1], &[1.]))).unwrap();
    eq_f32(&r, &[4, 3, 2], &[1.; 24]);
    let r = constant_of_shape(&[10, 6], Some(i32t(&[1], &[0]))).unwrap();
    assert_eq!(r, i32t(&[10, 6], &[0; 60]));
    let r = constant_of_shape(&[0], Some(i32t(&[1], &[0]))).unwrap();
    assert_eq!(r, i32t(&[0], &[]));
    let r = constant_of_shape(&[2], None).unwrap();
    eq_f32(&r, &[2], &[0., 0.]);
    let r = constant_of_shape(&[], Some(boolt(&[1], &[true]))).unwrap();
    assert_eq!(r, boolt(&[], &[true]));
    assert!(constant_of_shape(&[2], Some(f32t(&[2], &[1., 2.]))).is_err());
}

#[test]
fn range_dtypes_and_edges() {
    let rg = |s: Tensor, l: Tensor, d: Tensor| run1(Opcode::Range, vec![s, l, d], &[]);
    let f = |x: f32| f32t(&[], &[x]);
    eq_f32(&rg(f(1.), f(5.), f(2.)), &[2], &[1., 3.]);
    let i = |x: i32| i32t(&[], &[x]);
    assert_eq!(rg(i(10), i(6), i(-3)), i32t(&[2], &[10, 7]));
    assert_eq!(rg(i(3), i(9), i(3)), i32t(&[2], &[3, 6]));
    assert_eq!(rg(i(5), i(1), i(1)), i32t(&[0], &[]));
    // f16: computed in f32 (stash_type default) from the f16 inputs, rounded once.
    let h = |x: f32| f16t(&[], &[x]);
    let d = half::f16::from_f32(0.3).to_f32();
    assert_eq!(rg(h(0.), h(1.), h(0.3)), f16t(&[4], &[0., d, 2. * d, 3. * d]));
    let b = |x: f32| bf16t(&[], &[x]);
    assert_eq!(rg(b(1.), b(5.), b(2.)), bf16t(&[2], &[1., 3.]));
    let l = |x: i64| scalar_i64(x);
    eq_i64(&rg(l(i64::MAX - 2), l(i64::MAX), l(1)), &[2], &[i64::MAX - 2, i64::MAX - 1]);
    let f64s = |x: f64| t(&[], Data::F64(vec![x]));
    assert_eq!(rg(f64s(0.), f64s(-1.), f64s(-0.25)), t(&[4], Data::F64(vec![0., -0.25, -0.5, -0.75])));
    fails(Opcode::Range, vec![Some(f(1.)), Some(f(5.)), Some(f(0.))], &[], 1);
    fails(Opcode::Range, vec![Some(f(1.)), Some(i(5)), Some(f(1.))], &[], 1);
    fails(
        Opcode::Range,
        vec![Some(t(&[], Data::U8(vec![0]))), Some(t(&[], Data::U8(vec![2]))), Some(t(&[], Data::U8(vec![1])))],
        &[],
        1,
    );
}

#[test]
fn eye_like_node_tests() {
    let r = run1(Opcode::EyeLike, vec![i32t(&[4, 4], &[5; 16])], &[]);
    let want: Vec<i32> = (0..16).map(|i| i32::from(i % 5 == 0)).collect();
    assert_eq!(r, i32t(&[4, 4], &want));
    let r = run1(Opcode::EyeLike, vec![f32t(&[3, 4], &[0.; 12])], &[("dtype", Attr::Type(DType::F64))]);
    let want: Vec<f64> = (0..12).map(|i| f64::from(u8::from(i / 4 == i % 4))).collect();
    assert_eq!(r, t(&[3, 4], Data::F64(want)));
    // test_eyelike_populate_off_main_diagonal: k = 1 on [4, 5].
    let r = run1(Opcode::EyeLike, vec![i32t(&[4, 5], &[0; 20])], &[("k", int(1)), ("dtype", Attr::Type(DType::F32))]);
    let want: Vec<f32> = (0..20).map(|i| f32::from(u8::from(i % 5 == i / 5 + 1))).collect();
    eq_f32(&r, &[4, 5], &want);
    let r = run1(Opcode::EyeLike, vec![boolt(&[2, 2], &[false; 4])], &[("k", int(-1))]);
    assert_eq!(r, boolt(&[2, 2], &[false, false, true, false]));
    fails(Opcode::EyeLike, vec![Some(f32t(&[3], &[0.; 3]))], &[], 1);
}

fn trilu_x() -> Tensor {
    i64t(&[4, 5], &[4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 9, 4, 0, 8, 7, 4, 3, 4, 2, 4])
}

fn trilu(upper: bool, k: Option<i64>) -> Tensor {
    let args = vec![Some(trilu_x()), k.map(scalar_i64)];
    run(Opcode::Trilu, args, &[("upper", int(upper as i64))], 1).unwrap().remove(0)
}

#[test]
fn trilu_node_tests() {
    eq_i64(&trilu(true, None), &[4, 5], &[4, 7, 3, 7, 9, 0, 2, 8, 6, 9, 0, 0, 0, 8, 7, 0, 0, 0, 2, 4]);
    eq_i64(&trilu(true, Some(-1)), &[4, 5], &[4, 7, 3, 7, 9, 1, 2, 8, 6, 9, 0, 4, 0, 8, 7, 0, 0, 4, 2, 4]);
    eq_i64(&trilu(true, Some(2)), &[4, 5], &[0, 0, 3, 7, 9, 0, 0, 0, 6, 9, 0, 0, 0, 0, 7, 0, 0, 0, 0, 0]);
    assert_eq!(trilu(true, Some(-7)), trilu_x());
    eq_i64(&trilu(true, Some(6)), &[4, 5], &[0; 20]);
    eq_i64(&trilu(false, None), &[4, 5], &[4, 0, 0, 0, 0, 1, 2, 0, 0, 0, 9, 4, 0, 0, 0, 4, 3, 4, 2, 0]);
    eq_i64(&trilu(false, Some(-1)), &[4, 5], &[0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 9, 4, 0, 0, 0, 4, 3, 4, 0, 0]);
    eq_i64(&trilu(false, Some(2)), &[4, 5], &[4, 7, 3, 0, 0, 1, 2, 8, 6, 0, 9, 4, 0, 8, 7, 4, 3, 4, 2, 4]);
    // Batched square, empty and string inputs.
    let sq = run1(Opcode::Trilu, vec![iota(&[2, 2, 2])], &[]);
    eq_f32(&sq, &[2, 2, 2], &[0., 1., 0., 3., 4., 5., 0., 7.]);
    assert_eq!(run1(Opcode::Trilu, vec![f32t(&[0, 5], &[])], &[]).shape, vec![0, 5]);
    let s = run1(Opcode::Trilu, vec![strt(&[2, 2], &["a", "b", "c", "d"])], &[("upper", int(0))]);
    assert_eq!(s, strt(&[2, 2], &["a", "", "c", "d"]));
    fails(Opcode::Trilu, vec![Some(f32t(&[3], &[0.; 3]))], &[], 1);
}
