//! CumProd: exclusive / reverse modes, 2-D and integer inputs.

use crate::common::loss::*;

const CP: Opcode = Opcode::CumProd;

/// The CumProd doc example in every exclusive/reverse combination (test_cumprod_1d_*).
#[test]
fn cum_prod_1d_modes() {
    let x = || Some(f64t(&[5], &[1.0, 2.0, 3.0, 4.0, 5.0]));
    let axis = || Some(i32t(&[], &[0]));
    let cases: [(i64, i64, [f64; 5]); 4] = [
        (0, 0, [1.0, 2.0, 6.0, 24.0, 120.0]),
        (1, 0, [1.0, 1.0, 2.0, 6.0, 24.0]),
        (0, 1, [120.0, 120.0, 60.0, 20.0, 5.0]),
        (1, 1, [120.0, 60.0, 20.0, 5.0, 1.0]),
    ];
    for (exclusive, reverse, want) in cases {
        let out = run(CP, &[x(), axis()], &[("exclusive", int(exclusive)), ("reverse", int(reverse))], 1);
        check(&out[0], &f64t(&[5], &want));
    }
}

/// 2-D along either axis, negative axis, i32 (test_cumprod_2d_*), and integer wrapping.
#[test]
fn cum_prod_2d_and_ints() {
    let x = || Some(i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]));
    check(&run(CP, &[x(), Some(i32t(&[], &[0]))], &[], 1)[0], &i32t(&[2, 3], &[1, 2, 3, 4, 10, 18]));
    check(&run(CP, &[x(), Some(i64t(&[], &[-1]))], &[], 1)[0], &i32t(&[2, 3], &[1, 2, 6, 4, 20, 120]));
    let big = t(&[3], Data::U8(vec![16, 16, 3]));
    check(&run(CP, &[Some(big), Some(i64t(&[], &[0]))], &[], 1)[0], &t(&[3], Data::U8(vec![16, 0, 0])));
    let x = f32t(&[2, 2], &[0.5, -2.0, 3.0, 0.25]);
    let out = run(CP, &[Some(x), Some(i64t(&[], &[1]))], &[("exclusive", int(1))], 1);
    check(&out[0], &f32t(&[2, 2], &[1.0, 0.5, 1.0, 3.0]));
    let e = run_err(CP, &[Some(f32t(&[2], &[1.0, 2.0])), Some(i64t(&[], &[1]))], &[], 1);
    assert!(e.contains("out of range"), "{e}");
}
