//! AffineGrid.

use crate::common::loss::*;

const AG: Opcode = Opcode::AffineGrid;

fn theta3() -> Tensor {
    f32t(&[1, 3, 4], &[1.0, 0.2, -0.1, 0.3, 0.0, 0.9, 0.4, -0.2, 0.5, -0.3, 1.1, 0.05])
}

/// 3-D grid without and with align_corners (reference values).
#[test]
fn affine_grid_3d() {
    let size = || Some(ints(&[1, 1, 2, 2, 3]));
    let out = run(AG, &[Some(theta3()), size()], &[], 1);
    check(&out[0], &parse(&[1, 2, 2, 3, 3], "-0.41666666 -0.85000002 -0.68333334 0.25 -0.85000002 -0.34999999 0.91666669 -0.85000002 -0.016666671 -0.21666665 0.049999982 -0.98333335 0.45000002 0.049999982 -0.65000004 1.1166667 0.049999982 -0.31666669 -0.51666665 -0.44999999 0.41666669 0.15000001 -0.44999999 0.75 0.81666666 -0.44999999 1.0833334 -0.31666666 0.44999999 0.11666667 0.35000002 0.44999999 0.45000002 1.0166667 0.44999999 0.78333336"));
    let out = run(AG, &[Some(theta3()), size()], &[("align_corners", int(1))], 1);
    check(&out[0], &parse(&[1, 2, 2, 3, 3], "-0.80000001 -1.5 -1.25 0.20000002 -1.5 -0.75 1.2 -1.5 -0.25 -0.39999998 0.29999995 -1.85 0.60000002 0.29999995 -1.35 1.6 0.29999995 -0.85000002 -1.0 -0.69999999 0.95000005 7.4505806e-09 -0.69999999 1.4500000 1.0 -0.69999999 1.95 -0.59999996 1.1 0.35000002 0.40000001 1.1 0.85000002 1.4 1.1 1.35"));
}

/// 2-D grid `[N, H, W, 2]` (reference values) and the f64 path.
#[test]
fn affine_grid_2d() {
    let theta = [0.5, -0.25, 0.1, 0.3, 1.0, -0.4];
    let theta64 = [0.5, -0.25, 0.1, 0.3, 1.0, -0.4];
    let want = [
        0.016666668,
        -1.2166667,
        0.51666665,
        -0.9166667,
        -0.14999999,
        -0.55,
        0.35,
        -0.25,
        -0.31666666,
        0.11666665,
        0.18333334,
        0.41666666,
    ];
    let out = run(AG, &[Some(f32t(&[1, 2, 3], &theta)), Some(ints(&[1, 7, 3, 2]))], &[], 1);
    check(&out[0], &f32t(&[1, 3, 2, 2], &want));
    let out = run(AG, &[Some(f64t(&[1, 2, 3], &theta64)), Some(ints(&[1, 7, 3, 2]))], &[], 1);
    // x = ±1/2, y = -2/3, 0, 2/3 exactly.
    let mut exact = Vec::new();
    for y in [-2.0 / 3.0, 0.0, 2.0 / 3.0] {
        for x in [-0.5, 0.5] {
            exact.push(0.5 * x - 0.25 * y + 0.1);
            exact.push(0.3 * x + 1.0 * y - 0.4);
        }
    }
    check(&out[0], &f64t(&[1, 3, 2, 2], &exact));
}

/// A single position with align_corners is -1 (no division by zero); empty sizes give empty grids.
#[test]
fn affine_grid_degenerate_sizes() {
    let identity = || Some(f32t(&[1, 2, 3], &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0]));
    let out = run(AG, &[identity(), Some(ints(&[1, 1, 1, 2]))], &[("align_corners", int(1))], 1);
    check(&out[0], &f32t(&[1, 1, 2, 2], &[-1.0, -1.0, 1.0, -1.0]));
    let out = run(AG, &[identity(), Some(ints(&[1, 1, 1, 1]))], &[], 1);
    check(&out[0], &f32t(&[1, 1, 1, 2], &[0.0, 0.0]));
    let out = run(AG, &[identity(), Some(ints(&[1, 1, 0, 3]))], &[], 1);
    check(&out[0], &f32t(&[1, 0, 3, 2], &[]));
}

/// Mismatched theta/size and bad sizes are errors.
#[test]
fn affine_grid_errors() {
    let e = run_err(AG, &[Some(theta3()), Some(ints(&[1, 1, 2, 2]))], &[], 1);
    assert!(e.contains("theta"), "{e}");
    let e = run_err(AG, &[Some(theta3()), Some(ints(&[2, 1, 2, 2, 2]))], &[], 1);
    assert!(e.contains("disagree"), "{e}");
    let e = run_err(AG, &[Some(theta3()), Some(ints(&[1, 1, 2, -2, 2]))], &[], 1);
    assert!(e.contains("negative"), "{e}");
    let e = run_err(AG, &[Some(theta3()), Some(ints(&[1, 1, 2]))], &[], 1);
    assert!(e.contains("entries"), "{e}");
}
