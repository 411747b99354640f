//! Property tests: MatMul, Conv and Einsum against independent naive formulas.

use crate::common::nn::*;
use proptest::prelude::*;
use proptest::test_runner::Config;

/// Small integer-valued floats, so sums are exact and comparisons can be strict.
fn vals(n: usize) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec((-4i8..5).prop_map(f32::from), n)
}

/// `A [b, m, k] @ B [k, n]` the textbook way.
fn naive_matmul(a: &[f32], b: &[f32], (bt, m, k, n): (usize, usize, usize, usize)) -> Vec<f32> {
    let mut out = vec![0.0; bt * m * n];
    for p in 0..bt {
        for i in 0..m {
            for j in 0..n {
                out[(p * m + i) * n + j] = (0..k).map(|l| a[(p * m + i) * k + l] * b[l * n + j]).sum();
            }
        }
    }
    out
}

/// Direct 2-D convolution with symmetric padding `p` and stride `s`.
fn naive_conv(
    x: &[f32],
    w: &[f32],
    (c, h, wd): (usize, usize, usize),
    (m, kh, kw): (usize, usize, usize),
    p: usize,
    s: usize,
) -> (usize, usize, Vec<f32>) {
    let (oh, ow) = ((h + 2 * p - kh) / s + 1, (wd + 2 * p - kw) / s + 1);
    let mut out = vec![0.0; m * oh * ow];
    for mo in 0..m {
        for y in 0..oh {
            for xo in 0..ow {
                let mut acc = 0.0;
                for ci in 0..c {
                    for i in 0..kh {
                        for j in 0..kw {
                            let (yy, xx) = ((y * s + i) as isize - p as isize, (xo * s + j) as isize - p as isize);
                            if yy >= 0 && xx >= 0 && (yy as usize) < h && (xx as usize) < wd {
                                acc +=
                                    x[(ci * h + yy as usize) * wd + xx as usize] * w[((mo * c + ci) * kh + i) * kw + j];
                            }
                        }
                    }
                }
                out[(mo * oh + y) * ow + xo] = acc;
            }
        }
    }
    (oh, ow, out)
}

fn matmul_case() -> impl Strategy<Value = ((usize, usize, usize, usize), Vec<f32>, Vec<f32>)> {
    (1usize..3, 1usize..4, 1usize..4, 1usize..4).prop_flat_map(|d| (Just(d), vals(d.0 * d.1 * d.2), vals(d.2 * d.3)))
}

/// Conv case dims: `(C, H, W, M, kH, kW, pad, stride)`.
type ConvDims = (usize, usize, usize, usize, usize, usize, usize, usize);

fn conv_case() -> impl Strategy<Value = (ConvDims, Vec<f32>, Vec<f32>)> {
    (1usize..3, 3usize..6, 3usize..6, 1usize..3, 1usize..4, 1usize..4, 0usize..2, 1usize..3)
        .prop_flat_map(|d| (Just(d), vals(d.0 * d.1 * d.2), vals(d.3 * d.0 * d.4 * d.5)))
}

proptest! {
    #![proptest_config(Config { cases: 64, ..Config::default() })]

    /// Batched MatMul with a broadcast 2-D B equals the naive product.
    #[test]
    fn matmul_matches_naive((dims, a, b) in matmul_case()) {
        let (bt, m, k, n) = dims;
        let out = run(Opcode::MatMul, &[Some(f32t(&[bt, m, k], &a)), Some(f32t(&[k, n], &b))], &[], 1);
        check(&out[0], &f32t(&[bt, m, n], &naive_matmul(&a, &b, dims)));
    }

    /// Einsum `bij,jk->bik` agrees with MatMul on integer operands (wrapping i32).
    #[test]
    fn einsum_matches_matmul((dims, a, b) in matmul_case()) {
        let (bt, m, k, n) = dims;
        let ai: Vec<i32> = a.iter().map(|&v| v as i32).collect();
        let bi: Vec<i32> = b.iter().map(|&v| v as i32).collect();
        let ins = [Some(i32t(&[bt, m, k], &ai)), Some(i32t(&[k, n], &bi))];
        let e = run(Opcode::Einsum, &ins, &[("equation", Attr::Str("bij,jk->bik".into()))], 1);
        check(&e[0], &run(Opcode::MatMul, &ins, &[], 1)[0]);
    }

    /// 2-D Conv with symmetric pads and strides equals the direct formula.
    #[test]
    fn conv_matches_naive((d, x, w) in conv_case()) {
        let (c, h, wd, m, kh, kw, p, s) = d;
        prop_assume!(h + 2 * p >= kh && wd + 2 * p >= kw);
        let (oh, ow, want) = naive_conv(&x, &w, (c, h, wd), (m, kh, kw), p, s);
        let attrs = [
            ("pads", Attr::Ints(vec![p as i64; 4])),
            ("strides", Attr::Ints(vec![s as i64; 2])),
        ];
        let out = run(Opcode::Conv, &[Some(f32t(&[1, c, h, wd], &x)), Some(f32t(&[m, c, kh, kw], &w))], &attrs, 1);
        check(&out[0], &f32t(&[1, m, oh, ow], &want));
    }
}
