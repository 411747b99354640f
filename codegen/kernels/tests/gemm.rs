//! GEMM, MatMul and linear kernels against the reference interpreter, for
//! every micro-kernel family this CPU runs.

mod common;

use common::*;
use edgec_kernels::act::Act;
use edgec_kernels::gemm::{self, Bias, Epilogue, Gemm, PackedB};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// Run `f` once per available micro-kernel family and compare each result.
fn each_isa(want: &[f32], what: &str, f: impl Fn() -> Vec<f32>) {
    for isa in isas() {
        let got = gemm::with_isa(isa, &f);
        assert_close(&got, want, &format!("{what} [{isa:?}]"));
    }
}

/// The onnx.Gemm C operand shape of bias kind `kind`, and the kernel bias.
fn gemm_bias(kind: u8, m: usize, n: usize, c: &[f32]) -> (Option<Vec<usize>>, Bias<'_>) {
    match kind {
        0 => (None, Bias::None),
        1 => (Some(vec![]), Bias::Scalar(c[0])),
        2 => (Some(vec![n]), Bias::PerCol(&c[..n])),
        3 => (Some(vec![m, 1]), Bias::PerRow(&c[..m])),
        _ => (Some(vec![m, n]), Bias::Full(&c[..m * n])),
    }
}

/// `onnx.Gemm` against `sgemm` for sizes, transposes, alpha/beta and C shape.
fn check_gemm(g: Gemm, alpha: f32, beta: f32, kind: u8, seed: u64) {
    let Gemm { m, n, k, trans_a, trans_b } = g;
    let (a, b, cv) = (values(m * k, seed), values(k * n, seed + 1), values(m * n + 1, seed + 2));
    let (c_shape, bias) = gemm_bias(kind, m, n, &cv);
    let a_shape = if trans_a { [k, m] } else { [m, k] };
    let b_shape = if trans_b { [n, k] } else { [k, n] };
    let c_in = c_shape.as_ref().map(|s| t(s, cv[..s.iter().product::<usize>()].to_vec()).unwrap());
    let attrs = Attrs::new()
        .with("alpha", Attr::Float(alpha))
        .with("beta", Attr::Float(beta))
        .with("transA", Attr::Int(trans_a as i64))
        .with("transB", Attr::Int(trans_b as i64));
    let (shape, want) = oracle(Opcode::Gemm, &[t(&a_shape, a.clone()), t(&b_shape, b.clone()), c_in], attrs);
    assert_eq!(shape, [m, n]);
    let ep = Epilogue { alpha, beta, bias, act: Act::None };
    each_isa(&want, &format!("{g:?} alpha {alpha} beta {beta} C {c_shape:?}"), || {
        let mut c = vec![f32::NAN; m * n];
        let mut scratch = vec![f32::NAN; gemm::scratch_len(&g)];
        gemm::sgemm(&g, &a, &b, &mut c, &ep, &mut scratch);
        c
    });
}

fn scale() -> impl Strategy<Value = f32> {
    prop_oneof![Just(1.0f32), Just(0.0), Just(0.5), Just(-1.5), Just(2.0)]
}

/// Batch dims of two operands that broadcast together (each a right-aligned
/// suffix of `full`, some dims replaced by 1).
fn batch_pair() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (prop::collection::vec(1usize..=3, 0..=3), 0usize..=3, 0usize..=3, any::<u8>(), any::<u8>()).prop_map(
        |(full, ra, rb, ma, mb)| {
            let pick = |r: usize, mask: u8| -> Vec<usize> {
                let r = r.min(full.len());
                let s = &full[full.len() - r..];
                s.iter().enumerate().map(|(i, &d)| if mask >> i & 1 == 1 { 1 } else { d }).collect()
            };
            (pick(ra, ma), pick(rb, mb))
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn gemm_matches_onnx_gemm(
        m in 1usize..=40, n in 1usize..=70, k in 0usize..=40,
        trans_a in any::<bool>(), trans_b in any::<bool>(),
        alpha in scale(), beta in scale(), kind in 0u8..5, seed in any::<u64>(),
    ) {
        check_gemm(Gemm { m, n, k, trans_a, trans_b }, alpha, beta, kind, seed);
    }

    #[test]
    fn matmul_matches_core_linear(
        (ab, bb) in batch_pair(), m in 1usize..=20, n in 1usize..=40, k in 1usize..=24,
        trans_b in any::<bool>(), bias_kind in 0u8..5, act in act_strategy(), seed in any::<u64>(),
    ) {
        let a_shape: Vec<usize> = ab.iter().copied().chain([m, k]).collect();
        let b_shape: Vec<usize> = bb.iter().copied().chain(if trans_b { [n, k] } else { [k, n] }).collect();
        let (na, nb) = (a_shape.iter().product::<usize>(), b_shape.iter().product::<usize>());
        let (a, b, bv) = (values(na, seed), values(nb, seed + 1), values(m * n + 1, seed + 2));
        let (bias_shape, bias) = gemm_bias(bias_kind, m, n, &bv);
        let bias_in = bias_shape.as_ref().map(|s| t(s, bv[..s.iter().product::<usize>()].to_vec()).unwrap());
        let attrs = act_attrs(act, Attrs::new().with("trans_b", Attr::Int(trans_b as i64)));
        let (shape, want) = oracle(Opcode::CoreLinear, &[t(&a_shape, a.clone()), t(&b_shape, b.clone()), bias_in], attrs);
        let ep = Epilogue { bias, act, ..Epilogue::default() };
        each_isa(&want, &format!("linear {a_shape:?} {b_shape:?} -> {shape:?} bias {bias_shape:?} {act:?}"), || {
            let mut c = vec![f32::NAN; want.len()];
            let mut scratch = vec![f32::NAN; gemm::matmul_scratch_len(&a_shape, &b_shape, trans_b)];
            gemm::matmul(&a_shape, &a, &b_shape, &b, trans_b, &mut c, &ep, &mut scratch);
            c
        });
    }

    #[test]
    fn packed_b_matches_onnx_matmul(
        m in 1usize..=40, n in 1usize..=80, k in 0usize..=40, trans_b in any::<bool>(),
        bias_kind in 0u8..5, act in act_strategy(), seed in any::<u64>(),
    ) {
        let (a, b, bv) = (values(m * k, seed), values(k * n, seed + 1), values(m * n + 1, seed + 2));
        let b_shape = if trans_b { [n, k] } else { [k, n] };
        let (bias_shape, bias) = gemm_bias(bias_kind, m, n, &bv);
        let bias_in = bias_shape.as_ref().map(|s| t(s, bv[..s.iter().product::<usize>()].to_vec()).unwrap());
        let attrs = act_attrs(act, Attrs::new().with("trans_b", Attr::Int(trans_b as i64)));
        let (_, want) = oracle(Opcode::CoreLinear, &[t(&[m, k], a.clone()), t(&b_shape, b.clone()), bias_in], attrs);
        let ep = Epilogue { bias, act, ..Epilogue::default() };
        each_isa(&want, &format!("packed {m}x{n}x{k} trans_b {trans_b} bias {bias_shape:?} {act:?}"), || {
            let pb = PackedB::new(&b, k, n, trans_b);
            let mut c = vec![f32::NAN; m * n];
            let mut scratch = vec![f32::NAN; gemm::packed_scratch_len(m, &pb)];
            gemm::sgemm_packed(m, &a, &pb, &mut c, &ep, &mut scratch);
            c
        });
    }
}

/// Sizes past every cache block (KC, MC, NC of every family) and tile edges.
#[test]
fn gemm_crosses_cache_blocks() {
    for (m, n, k) in [(101, 1030, 263), (13, 33, 520), (200, 17, 9)] {
        check_gemm(Gemm { m, n, k, trans_a: false, trans_b: false }, 1.0, 1.0, 2, 7);
        check_gemm(Gemm { m, n, k, trans_a: true, trans_b: true }, 0.5, -2.0, 4, 8);
    }
}

/// `PackedB` over several depth blocks, reused for several products.
#[test]
fn packed_b_reused_across_depth_blocks() {
    let (m, n, k) = (70, 45, 600);
    let b = values(k * n, 3);
    for isa in isas() {
        gemm::with_isa(isa, || {
            let pb = PackedB::new(&b, k, n, false);
            for seed in 0..3 {
                let a = values(m * k, seed);
                let (_, want) = oracle(Opcode::MatMul, &[t(&[m, k], a.clone()), t(&[k, n], b.clone())], Attrs::new());
                let mut c = vec![0.0; m * n];
                let mut scratch = vec![0.0; gemm::packed_scratch_len(m, &pb)];
                gemm::sgemm_packed(m, &a, &pb, &mut c, &Epilogue::default(), &mut scratch);
                assert_close(&c, &want, &format!("packed reuse [{isa:?}]"));
            }
        });
    }
}

/// Every column of C is computed by the same sequence of operations whatever
/// its position (full or edge tile, any depth block): with identical columns
/// of B, the columns of C are bit-identical. A model with uniform weights
/// (the ONNX light models) relies on this: its logits are equal only if the
/// edge tile rounds like the others, and softmax amplifies any difference.
#[test]
fn columns_are_position_invariant() {
    for (m, n, k) in [(1, 1000, 4096), (7, 45, 600), (13, 1030, 263)] {
        // Inexact values (not quarter-integers), so sums round.
        let inexact = |v: Vec<f32>| v.into_iter().map(|x| x * 0.37 + 0.013).collect::<Vec<_>>();
        let col = inexact(values(k, 11));
        let b: Vec<f32> = (0..k * n).map(|i| col[i / n]).collect();
        let a = inexact(values(m * k, 12));
        for isa in isas() {
            gemm::with_isa(isa, || {
                let pb = PackedB::new(&b, k, n, false);
                let mut c = vec![0.0; m * n];
                let mut scratch = vec![0.0; gemm::packed_scratch_len(m, &pb)];
                gemm::sgemm_packed(m, &a, &pb, &mut c, &Epilogue::default(), &mut scratch);
                for (i, row) in c.chunks(n).enumerate() {
                    let bad = row.iter().position(|v| v.to_bits() != row[0].to_bits());
                    assert_eq!(bad, None, "{m}x{n}x{k} [{isa:?}] row {i}: {:?} vs {}", bad.map(|j| row[j]), row[0]);
                }
            });
        }
    }
}

#[test]
#[should_panic(expected = "scratch")]
fn short_scratch_is_a_bug() {
    let g = Gemm { m: 4, n: 4, k: 4, trans_a: false, trans_b: false };
    let (a, b) = (vec![1.0; 16], vec![1.0; 16]);
    let mut c = vec![0.0; 16];
    gemm::sgemm(&g, &a, &b, &mut c, &Epilogue::default(), &mut []);
}

/// One row against a packed B (a linear layer on one token) and a packed A
/// against one column (a 1×1 conv on a 1×1 map) take the matrix-vector
/// path: rows of every length, depths around its chains of 4, bias and
/// activation; equal weight rows give bit-equal results wherever their
/// panel ends.
#[test]
fn matrix_vector_products_match() {
    for (n, k) in [(1, 0), (1, 1), (5, 3), (33, 7), (64, 288), (100, 513), (17, 4), (1100, 9)] {
        for act in [Act::None, Act::HardSwish] {
            let (a, b, bias) = (values(k, 1), values(k * n, 2), values(n, 3));
            let attrs = act_attrs(act, Attrs::new().with("trans_b", Attr::Int(0)));
            let inputs = [t(&[1, k], a.clone()), t(&[k, n], b.clone()), t(&[n], bias.clone())];
            let (_, want) = oracle(Opcode::CoreLinear, &inputs, attrs);
            let ep = Epilogue { bias: Bias::PerCol(&bias), act, ..Epilogue::default() };
            each_isa(&want, &format!("row x packed B 1x{n}x{k} {act:?}"), || {
                let pb = PackedB::new(&b, k, n, false);
                let mut c = vec![f32::NAN; n];
                gemm::sgemm_packed(1, &a, &pb, &mut c, &ep, &mut vec![f32::NAN; gemm::packed_scratch_len(1, &pb)]);
                c
            });
            // The same row times B unpacked (a run-time operand): the same
            // sums in the same order, so bit-equal to the packed product.
            let raw = || {
                let g = Gemm { m: 1, n, k, trans_a: false, trans_b: false };
                let mut c = vec![f32::NAN; n];
                gemm::sgemm(&g, &a, &b, &mut c, &ep, &mut vec![f32::NAN; gemm::scratch_len(&g)]);
                c
            };
            each_isa(&want, &format!("row x raw B 1x{n}x{k} {act:?}"), raw);
            // B stored transposed (an RNN's weights): dot products.
            let bt: Vec<f32> = (0..n * k).map(|i| b[(i % k) * n + i / k]).collect();
            each_isa(&want, &format!("row x raw B^T 1x{n}x{k} {act:?}"), || {
                let g = Gemm { m: 1, n, k, trans_a: false, trans_b: true };
                let mut c = vec![f32::NAN; n];
                gemm::sgemm(&g, &a, &bt, &mut c, &ep, &mut vec![f32::NAN; gemm::scratch_len(&g)]);
                c
            });
            if k > 0 {
                let pb = PackedB::new(&b, k, n, false);
                let mut packed = vec![f32::NAN; n];
                gemm::sgemm_packed(1, &a, &pb, &mut packed, &ep, &mut vec![0.0; gemm::packed_scratch_len(1, &pb)]);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
                assert_eq!(bits(&raw()), bits(&packed), "raw and packed B, 1x{n}x{k} {act:?}");
            }
        }
    }
}
