//! Weights packed when the model is compiled (`blob`, then `prepacked`), for
//! every GEMM family, whether or not this CPU runs it: used in place when
//! it does, recovered and packed again when it does not; either way the
//! results are bit-identical to weights packed at construction for the
//! family that ends up running.

mod common;

use common::values;
use edgec_kernels::act::Act;
use edgec_kernels::conv::{self, Conv2d, PackedConv};
use edgec_kernels::gemm::{self, Epilogue, Isa, PackedB};
use edgec_kernels::rt::Section;
use proptest::prelude::*;
use std::borrow::Cow;

/// `blob` as embedded weights are: borrowed for the program's lifetime.
fn embedded(blob: Vec<f32>) -> Section<f32> {
    Cow::Borrowed(Box::leak(blob.into_boxed_slice()))
}

/// The family a blob packed for `isa` runs with here.
fn runs_as(isa: Isa) -> Isa {
    if isa.available() {
        isa
    } else {
        gemm::current()
    }
}

fn conv(p: &Conv2d, x: &[f32], pw: &PackedConv) -> Vec<f32> {
    let mut y = vec![f32::NAN; p.n * p.c_out * p.out_h() * p.out_w()];
    let mut scratch = vec![f32::NAN; conv::conv2d_scratch_len(p)];
    conv::conv2d(p, x, pw, None, Act::Relu, &mut y, &mut scratch);
    y
}

/// Convolutions of every path: depthwise, 1×1, direct (shallow) and im2col
/// (deep), grouped or not.
fn conv_strategy() -> impl Strategy<Value = Conv2d> {
    (0usize..4, 1usize..=3, 1usize..=24, 1usize..=20, 1usize..=3, 1usize..=2, 3usize..=9).prop_map(
        |(kind, groups, cg, mg, k, s, hw)| {
            let (groups, cg, mg, k) = match kind {
                0 => (groups * 4, 1, 1, k.max(2)),
                1 => (groups, cg, mg, 1),
                2 => (1, cg.min(3), mg, k),
                _ => (groups, cg + 20, mg, k.max(2)),
            };
            let pad = k / 2;
            Conv2d {
                n: 1,
                c_in: groups * cg,
                h: hw,
                w: hw + 1,
                c_out: groups * mg,
                kh: k,
                kw: k,
                stride_h: s,
                stride_w: s,
                pad_top: pad,
                pad_left: pad,
                pad_bottom: pad,
                pad_right: pad,
                dil_h: 1,
                dil_w: 1,
                groups,
            }
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn prepacked_conv_matches_packing_at_construction(p in conv_strategy(), seed in any::<u64>()) {
        let x = values(p.n * p.c_in * p.h * p.w, seed);
        let w = values(p.c_out * p.c_in / p.groups * p.kh * p.kw, seed + 1);
        for isa in Isa::ALL {
            let blob = PackedConv::new_for(isa, &p, &w).blob();
            let pw = PackedConv::prepacked(&p, isa, embedded(blob)).unwrap();
            let want = conv(&p, &x, &PackedConv::new_for(runs_as(isa), &p, &w));
            let got = conv(&p, &x, &pw);
            prop_assert!(got.iter().zip(&want).all(|(a, b)| a.to_bits() == b.to_bits()), "{p:?} packed for {isa:?}");
        }
    }

    #[test]
    fn prepacked_b_matches_packing_at_construction(
        m in 1usize..=30, n in 1usize..=70, k in 1usize..=40, trans_b in any::<bool>(), seed in any::<u64>(),
    ) {
        let (a, b) = (values(m * k, seed), values(k * n, seed + 1));
        let run = |pb: &PackedB| {
            let mut c = vec![f32::NAN; m * n];
            let mut scratch = vec![f32::NAN; gemm::packed_scratch_len(m, pb)];
            gemm::sgemm_packed(m, &a, pb, &mut c, &Epilogue::default(), &mut scratch);
            c
        };
        for isa in Isa::ALL {
            let blob = PackedB::new_for(isa, &b, k, n, trans_b).blob();
            prop_assert_eq!(blob.len() % gemm::PIECE_ALIGN, 0);
            let pb = PackedB::prepacked(isa, embedded(blob), k, n).unwrap();
            prop_assert_eq!(pb.isa(), runs_as(isa));
            let want = run(&PackedB::new_for(runs_as(isa), &b, k, n, trans_b));
            let got = run(&pb);
            prop_assert!(got.iter().zip(&want).all(|(x, y)| x.to_bits() == y.to_bits()), "{m}x{n}x{k} packed for {isa:?}");
        }
    }
}

#[test]
fn a_blob_of_the_wrong_size_is_an_error() {
    let b = values(12, 1);
    let blob = PackedB::new_for(Isa::Scalar, &b, 3, 4, false).blob();
    let e = PackedB::prepacked(Isa::Scalar, embedded(blob[..8].to_vec()), 3, 4).unwrap_err();
    assert!(e.0.contains("do not hold 3×4"), "{e:?}");
    let p = Conv2d {
        n: 1,
        c_in: 2,
        h: 4,
        w: 4,
        c_out: 3,
        kh: 1,
        kw: 1,
        stride_h: 1,
        stride_w: 1,
        pad_top: 0,
        pad_left: 0,
        pad_bottom: 0,
        pad_right: 0,
        dil_h: 1,
        dil_w: 1,
        groups: 1,
    };
    let e = PackedConv::prepacked(&p, Isa::Neon, embedded(vec![0.0; 5])).unwrap_err();
    assert!(e.0.contains("do not fit"), "{e:?}");
}
