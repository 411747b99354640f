//! Convolution kernels against the reference interpreter (`core.conv`,
//! `core.conv_transpose`, `onnx.Conv`), for every GEMM family this CPU runs.

mod common;

use common::*;
use edgec_kernels::act::Act;
use edgec_kernels::conv::{self, Conv2d, ConvNd, ConvTranspose2d, ConvTransposeNd, PackedConv};
use edgec_kernels::gemm;
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// The interpreter's `core.conv` / `core.conv_transpose` with explicit attributes.
fn conv_oracle(
    op: Opcode,
    x: (&[usize], &[f32]),
    w: (&[usize], &[f32]),
    bias: Option<&[f32]>,
    attrs: Attrs,
) -> (Vec<usize>, Vec<f32>) {
    let b = bias.map(|b| t(&[b.len()], b.to_vec()).unwrap());
    oracle(op, &[t(x.0, x.1.to_vec()), t(w.0, w.1.to_vec()), b], attrs)
}

fn window_attrs(strides: &[usize], pads: &[usize], dil: &[usize], groups: usize, act: Act) -> Attrs {
    act_attrs(
        act,
        Attrs::new()
            .with("strides", ints(strides))
            .with("pads", ints(pads))
            .with("dilations", ints(dil))
            .with("group", Attr::Int(groups as i64)),
    )
}

/// Check `conv2d` on `p` against `core.conv`, for every GEMM family.
fn check_conv2d(p: Conv2d, act: Act, with_bias: bool, seed: u64) {
    check_conv2d_packed_as(p, p, act, with_bias, seed);
}

/// [`check_conv2d`] with the weights packed for `packed` (the same weights
/// at another input size: a model with symbolic dims packs at a
/// placeholder size and runs at the inputs' size).
fn check_conv2d_packed_as(p: Conv2d, packed: Conv2d, act: Act, with_bias: bool, seed: u64) {
    let ek = |k: usize, d: usize| d * (k - 1) + 1;
    if p.h + p.pad_top + p.pad_bottom < ek(p.kh, p.dil_h) || p.w + p.pad_left + p.pad_right < ek(p.kw, p.dil_w) {
        return;
    }
    let x_shape = [p.n, p.c_in, p.h, p.w];
    let w_shape = [p.c_out, p.c_in / p.groups, p.kh, p.kw];
    let x = values(x_shape.iter().product(), seed);
    let w = values(w_shape.iter().product(), seed + 1);
    let bias = with_bias.then(|| values(p.c_out, seed + 2));
    let pads = [p.pad_top, p.pad_left, p.pad_bottom, p.pad_right];
    let attrs = window_attrs(&[p.stride_h, p.stride_w], &pads, &[p.dil_h, p.dil_w], p.groups, act);
    let (shape, want) = conv_oracle(Opcode::CoreConv, (&x_shape, &x), (&w_shape, &w), bias.as_deref(), attrs);
    assert_eq!(shape, [p.n, p.c_out, p.out_h(), p.out_w()]);
    for isa in isas() {
        let got = gemm::with_isa(isa, || {
            let pw = PackedConv::new(&packed, &w);
            let mut y = vec![f32::NAN; want.len()];
            let mut scratch = vec![f32::NAN; conv::conv2d_scratch_len(&p)];
            conv::conv2d(&p, &x, &pw, bias.as_deref(), act, &mut y, &mut scratch);
            y
        });
        assert_close(&got, &want, &format!("{p:?} {act:?} [{isa:?}]"));
    }
}

/// A general 2-D convolution: groups, strides, dilations, asymmetric pads.
fn conv2d_strategy() -> impl Strategy<Value = Conv2d> {
    (
        (1usize..=2, 1usize..=3, 1usize..=3, 1usize..=4, 1usize..=9, 1usize..=9),
        (1usize..=3, 1usize..=3, 1usize..=3, 1usize..=3, 1usize..=2, 1usize..=2),
        (0usize..=2, 0usize..=2, 0usize..=2, 0usize..=2),
    )
        .prop_map(|((n, groups, cg, mg, h, w), (kh, kw, sh, sw, dh, dw), (pt, pl, pb, pr))| Conv2d {
            n,
            c_in: groups * cg,
            h,
            w,
            c_out: groups * mg,
            kh,
            kw,
            stride_h: sh,
            stride_w: sw,
            pad_top: pt,
            pad_left: pl,
            pad_bottom: pb,
            pad_right: pr,
            dil_h: dh,
            dil_w: dw,
            groups,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn conv2d_matches_core_conv(p in conv2d_strategy(), act in act_strategy(), bias in any::<bool>(), seed in any::<u64>()) {
        check_conv2d(p, act, bias, seed);
    }

    #[test]
    fn conv2d_pointwise_matches(
        n in 1usize..=2, groups in 1usize..=2, cg in 1usize..=20, mg in 1usize..=20, h in 1usize..=10, w in 1usize..=12,
        act in act_strategy(), bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let p = Conv2d {
            n, c_in: groups * cg, h, w, c_out: groups * mg, kh: 1, kw: 1, stride_h: 1, stride_w: 1,
            pad_top: 0, pad_left: 0, pad_bottom: 0, pad_right: 0, dil_h: 1, dil_w: 1, groups,
        };
        check_conv2d(p, act, bias, seed);
    }

    #[test]
    fn conv2d_depthwise_matches(
        base in conv2d_strategy(), c in 1usize..=5, mult in 1usize..=3, k in 1usize..=5,
        act in act_strategy(), bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let p = Conv2d { c_in: c, c_out: c * mult, groups: c, kh: k, kw: k.max(2) - 1, h: base.h + 3, ..base };
        check_conv2d(p, act, bias, seed);
    }

    /// Wide planes: the padded-plane depthwise kernel (column blocks of
    /// 16, strides up to 4 and the fallback above, dilations, any pads).
    #[test]
    fn conv2d_depthwise_wide_matches(
        c in 1usize..=20, mult in 1usize..=2, (kh, kw) in (1usize..=5, 1usize..=5), (h, w) in (1usize..=9, 12usize..=70),
        (sh, sw, dh, dw) in (1usize..=3, 1usize..=5, 1usize..=2, 1usize..=2), pads in (0usize..=3, 0usize..=3, 0usize..=3, 0usize..=3),
        act in act_strategy(), bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let p = Conv2d {
            n: 1, c_in: c, h, w, c_out: c * mult, kh, kw, stride_h: sh, stride_w: sw,
            pad_top: pads.0, pad_left: pads.1, pad_bottom: pads.2, pad_right: pads.3, dil_h: dh, dil_w: dw, groups: c,
        };
        check_conv2d(p, act, bias, seed);
    }

    /// Square 3×3 and 5×5 depthwise kernels of stride 1 and 2 on planes
    /// wider than one column block: the register-blocked kernel (four rows
    /// × two blocks), heights off its four rows, widths off the block size
    /// (a last block stored into the next row, or cut at the plane's end),
    /// odd block counts (a step with one block in vain), any pads, batches.
    #[test]
    fn conv2d_depthwise_square_matches(
        n in 1usize..=2, c in 1usize..=6, mult in 1usize..=2, k in prop::sample::select(vec![3usize, 5]), s in 1usize..=2,
        (h, w) in (1usize..=9, 17usize..=100), pads in (0usize..=2, 0usize..=2, 0usize..=2, 0usize..=2),
        act in act_strategy(), bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let p = Conv2d {
            n, c_in: c, h: h + k, w: w * s, c_out: c * mult, kh: k, kw: k, stride_h: s, stride_w: s,
            pad_top: pads.0, pad_left: pads.1, pad_bottom: pads.2, pad_right: pads.3, dil_h: 1, dil_w: 1, groups: c,
        };
        check_conv2d(p, act, bias, seed);
    }

    /// Shallow and narrow convolutions: the direct kernel (depth up to 32,
    /// or up to 16 output channels on wide planes), im2col beyond.
    #[test]
    fn conv2d_shallow_matches(
        n in 1usize..=2, c_in in 1usize..=8, c_out in 1usize..=20, (kh, kw) in (1usize..=4, 1usize..=4),
        (h, w) in (1usize..=9, 1usize..=40), (sh, sw, dh, dw) in (1usize..=2, 1usize..=5, 1usize..=2, 1usize..=2),
        pads in (0usize..=2, 0usize..=2, 0usize..=2, 0usize..=2), act in act_strategy(), bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let p = Conv2d {
            n, c_in, h, w, c_out, kh, kw, stride_h: sh, stride_w: sw,
            pad_top: pads.0, pad_left: pads.1, pad_bottom: pads.2, pad_right: pads.3, dil_h: dh, dil_w: dw, groups: 1,
        };
        check_conv2d(p, act, bias, seed);
    }

    #[test]
    fn conv_nd_matches_onnx_conv(
        rank in 1usize..=3, groups in 1usize..=2, cg in 1usize..=2, mg in 1usize..=3, n in 1usize..=2,
        dims in prop::collection::vec((1usize..=6, 1usize..=3, 1usize..=2, 1usize..=2, 0usize..=1, 0usize..=2), 3),
        act in act_strategy(), with_bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let d = &dims[..rank];
        let p = ConvNd {
            n, c_in: groups * cg, c_out: groups * mg,
            spatial: d.iter().map(|x| x.0 + 2).collect(), kernel: d.iter().map(|x| x.1).collect(),
            stride: d.iter().map(|x| x.2).collect(), dilation: d.iter().map(|x| x.3).collect(),
            pads: d.iter().map(|x| x.4).chain(d.iter().map(|x| x.5)).collect(), groups,
        };
        prop_assume!((0..rank).all(|i| p.spatial[i] + p.pads[i] + p.pads[rank + i] > p.dilation[i] * (p.kernel[i] - 1)));
        let x_shape: Vec<usize> = [n, p.c_in].into_iter().chain(p.spatial.iter().copied()).collect();
        let w_shape: Vec<usize> = [p.c_out, cg].into_iter().chain(p.kernel.iter().copied()).collect();
        let (x, w) = (values(x_shape.iter().product(), seed), values(w_shape.iter().product(), seed + 1));
        let bias = with_bias.then(|| values(p.c_out, seed + 2));
        let attrs = window_attrs(&p.stride, &p.pads, &p.dilation, groups, act);
        let (shape, want) = conv_oracle(Opcode::CoreConv, (&x_shape, &x), (&w_shape, &w), bias.as_deref(), attrs);
        prop_assert_eq!(&shape[2..], &(0..rank).map(|i| p.out_dim(i)).collect::<Vec<_>>()[..]);
        let mut y = vec![f32::NAN; want.len()];
        conv::conv_nd(&p, &x, &w, bias.as_deref(), act, &mut y);
        assert_close(&y, &want, &format!("{p:?} {act:?}"));
    }

    #[test]
    fn conv_transpose_matches_core_conv_transpose(
        rank in 1usize..=3, groups in 1usize..=2, cg in 1usize..=3, mg in 1usize..=3, n in 1usize..=2,
        dims in prop::collection::vec((1usize..=5, 1usize..=3, 1usize..=3, 1usize..=2, 0usize..=2, 0usize..=2, 0usize..=2), 3),
        act in act_strategy(), with_bias in any::<bool>(), seed in any::<u64>(),
    ) {
        let d = &dims[..rank];
        // output_padding must stay below the stride (or dilation).
        let op: Vec<usize> = d.iter().map(|x| x.6 % x.2.max(x.3)).collect();
        let full = |i: usize| d[i].2 * (d[i].0 - 1) + op[i] + d[i].3 * (d[i].1 - 1) + 1;
        prop_assume!((0..rank).all(|i| full(i) > d[i].4 + d[i].5));
        let spatial: Vec<usize> = d.iter().map(|x| x.0).collect();
        let x_shape: Vec<usize> = [n, groups * cg].into_iter().chain(spatial.iter().copied()).collect();
        let w_shape: Vec<usize> = [groups * cg, mg].into_iter().chain(d.iter().map(|x| x.1)).collect();
        let (x, w) = (values(x_shape.iter().product(), seed), values(w_shape.iter().product(), seed + 1));
        let bias = with_bias.then(|| values(groups * mg, seed + 2));
        let (strides, dil): (Vec<usize>, Vec<usize>) = d.iter().map(|x| (x.2, x.3)).unzip();
        let pads: Vec<usize> = d.iter().map(|x| x.4).chain(d.iter().map(|x| x.5)).collect();
        let attrs = window_attrs(&strides, &pads, &dil, groups, act).with("output_padding", ints(&op));
        let (shape, want) = conv_oracle(Opcode::CoreConvTranspose, (&x_shape, &x), (&w_shape, &w), bias.as_deref(), attrs);
        let p = ConvTransposeNd {
            n, c_in: groups * cg, c_out: groups * mg, spatial: spatial.clone(), kernel: d.iter().map(|x| x.1).collect(),
            stride: strides.clone(), pads_begin: pads[..rank].to_vec(), dilation: dil.clone(), groups, out: shape[2..].to_vec(),
        };
        let mut y = vec![f32::NAN; want.len()];
        conv::conv_transpose_nd(&p, &x, &w, bias.as_deref(), act, &mut y);
        assert_close(&y, &want, &format!("nd {p:?} {act:?}"));
        if rank == 2 {
            let p2 = ConvTranspose2d {
                n, c_in: p.c_in, h: spatial[0], w: spatial[1], c_out: p.c_out, kh: p.kernel[0], kw: p.kernel[1],
                stride_h: strides[0], stride_w: strides[1], pad_top: pads[0], pad_left: pads[1],
                dil_h: dil[0], dil_w: dil[1], groups, out_h: shape[2], out_w: shape[3],
            };
            for isa in isas() {
                let got = gemm::with_isa(isa, || {
                    let mut y = vec![f32::NAN; want.len()];
                    let mut scratch = vec![f32::NAN; conv::conv_transpose2d_scratch_len(&p2)];
                    conv::conv_transpose2d(&p2, &x, &w, bias.as_deref(), act, &mut y, &mut scratch);
                    y
                });
                assert_close(&got, &want, &format!("2d {p2:?} {act:?} [{isa:?}]"));
            }
        }
    }
}

/// The depthwise kernels sum each output's taps in one order (bias, then
/// `ky`, `kx` ascending) with one rounding per tap where the code running
/// has fused multiply-adds: bit-equal to that sum in scalar code, so
/// every kernel (register-blocked square, general padded, channel blocks)
/// gives the same bits, ReLU's −0 and NaN included.
fn depthwise_reference(p: &Conv2d, x: &[f32], w: &[f32], bias: &[f32], relu: bool) -> Vec<f32> {
    let fused = cfg!(target_arch = "aarch64") || edgec_kernels::simd::level() >= 2;
    let (oh, ow) = (p.out_h(), p.out_w());
    let mut y = Vec::with_capacity(p.n * p.c_out * oh * ow);
    for (b, c, oy, ox) in itertools_product(p.n, p.c_out, oh, ow) {
        let mut a = bias[c];
        for ky in 0..p.kh {
            for kx in 0..p.kw {
                let iy = (oy * p.stride_h + ky) as isize - p.pad_top as isize;
                let ix = (ox * p.stride_w + kx) as isize - p.pad_left as isize;
                let inside = iy >= 0 && ix >= 0 && (iy as usize) < p.h && (ix as usize) < p.w;
                let v = if inside { x[((b * p.c_in + c) * p.h + iy as usize) * p.w + ix as usize] } else { 0.0 };
                let wv = w[(c * p.kh + ky) * p.kw + kx];
                a = if fused { v.mul_add(wv, a) } else { a + wv * v };
            }
        }
        y.push(if relu && a < 0.0 { 0.0 } else { a });
    }
    y
}

/// `(a, b, c, d)` over `0..n0 × 0..n1 × 0..n2 × 0..n3`, last fastest.
fn itertools_product(n0: usize, n1: usize, n2: usize, n3: usize) -> impl Iterator<Item = (usize, usize, usize, usize)> {
    (0..n0).flat_map(move |a| (0..n1).flat_map(move |b| (0..n2).flat_map(move |c| (0..n3).map(move |d| (a, b, c, d)))))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    /// Depthwise convs of strides 1 and 2 and every width class (one
    /// block, the register-blocked square kernel, odd block counts)
    /// bit-equal to the scalar sum, with inputs holding −0 and NaN.
    #[test]
    fn depthwise_bits_match_scalar_sum(
        n in 1usize..=2, c in 1usize..=4, k in prop::sample::select(vec![3usize, 5]), s in 1usize..=2,
        (h, w) in (1usize..=9, 5usize..=80), pad in 0usize..=2, relu in any::<bool>(), seed in any::<u64>(), specials in any::<bool>(),
    ) {
        let p = Conv2d {
            n, c_in: c, h: h + k, w: w * s + k, c_out: c, kh: k, kw: k, stride_h: s, stride_w: s,
            pad_top: pad, pad_left: pad, pad_bottom: pad, pad_right: pad, dil_h: 1, dil_w: 1, groups: c,
        };
        let mut x = full_values(p.n * p.c_in * p.h * p.w, seed);
        if specials {
            let mid = x.len() / 2;
            x[0] = -0.0;
            x[mid] = f32::NAN;
        }
        let w = full_values(p.c_out * k * k, seed + 1);
        let bias = full_values(p.c_out, seed + 2);
        let want = depthwise_reference(&p, &x, &w, &bias, relu);
        let act = if relu { Act::Relu } else { Act::None };
        let pw = PackedConv::new(&p, &w);
        let mut y = vec![f32::NAN; want.len()];
        let mut scratch = vec![f32::NAN; conv::conv2d_scratch_len(&p)];
        conv::conv2d(&p, &x, &pw, Some(&bias), act, &mut y, &mut scratch);
        for (i, (g, e)) in y.iter().zip(&want).enumerate() {
            prop_assert!(g.to_bits() == e.to_bits() || (g.is_nan() && e.is_nan()), "{p:?} relu={relu} at {i}: {g} vs {e}");
        }
    }
}

/// A convolution large enough to cross the GEMM's depth and column blocks.
/// One input channel under a wide window (Silero's STFT: frames of 256 at
/// stride 128 into 258 filters), narrow windows (grayscale stems) and
/// multipliers: the GEMM path past 64 taps, the depthwise kernels below.
#[test]
fn one_input_channel() {
    let base = Conv2d {
        n: 2,
        c_in: 1,
        h: 1,
        w: 576,
        c_out: 258,
        kh: 1,
        kw: 256,
        stride_h: 1,
        stride_w: 128,
        pad_top: 0,
        pad_left: 0,
        pad_bottom: 0,
        pad_right: 0,
        dil_h: 1,
        dil_w: 1,
        groups: 1,
    };
    check_conv2d(base, Act::None, true, 7);
    check_conv2d(Conv2d { kh: 8, kw: 9, h: 12, w: 40, stride_w: 3, c_out: 5, ..base }, Act::Relu, false, 8);
    check_conv2d(
        Conv2d { kh: 3, kw: 3, h: 20, w: 70, stride_w: 1, c_out: 16, pad_left: 1, ..base },
        Act::Relu,
        true,
        9,
    );
}

#[test]
fn conv2d_crosses_cache_blocks() {
    let p = Conv2d {
        n: 1,
        c_in: 40,
        h: 30,
        w: 24,
        c_out: 20,
        kh: 3,
        kw: 3,
        stride_h: 1,
        stride_w: 1,
        pad_top: 1,
        pad_left: 1,
        pad_bottom: 1,
        pad_right: 1,
        dil_h: 1,
        dil_w: 1,
        groups: 1,
    };
    check_conv2d(p, Act::Relu, true, 11);
    check_conv2d(
        Conv2d { kh: 1, kw: 1, pad_top: 0, pad_left: 0, pad_bottom: 0, pad_right: 0, c_in: 300, ..p },
        Act::None,
        true,
        12,
    );
}

/// A transposed convolution with more input positions than one GEMM chunk.
#[test]
fn conv_transpose2d_chunks() {
    let p = ConvTranspose2d {
        n: 1,
        c_in: 3,
        h: 20,
        w: 17,
        c_out: 4,
        kh: 3,
        kw: 2,
        stride_h: 2,
        stride_w: 1,
        pad_top: 1,
        pad_left: 0,
        dil_h: 1,
        dil_w: 2,
        groups: 1,
        out_h: 40,
        out_w: 19,
    };
    let (x, w) = (values(3 * 20 * 17, 1), values(3 * 4 * 3 * 2, 2));
    let attrs = window_attrs(&[2, 1], &[1, 0, 0, 0], &[1, 2], 1, Act::None);
    let (shape, want) = conv_oracle(Opcode::ConvTranspose, (&[1, 3, 20, 17], &x), (&[3, 4, 3, 2], &w), None, attrs);
    assert_eq!(shape, [1, 4, 40, 19]);
    let mut y = vec![0.0; want.len()];
    let mut scratch = vec![0.0; conv::conv_transpose2d_scratch_len(&p)];
    conv::conv_transpose2d(&p, &x, &w, None, Act::None, &mut y, &mut scratch);
    assert_close(&y, &want, "conv_transpose2d chunks");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn col2im_matches(
        n in 1usize..3, c in 1usize..3, rank in 1usize..3,
        geo in prop::collection::vec((2usize..7, 1usize..4, 1usize..3, 1usize..3, 0usize..2, 0usize..2), 2),
        seed in any::<u64>(),
    ) {
        let geo = &geo[..rank];
        // Keep cases whose padded image holds at least one block.
        let ok = geo.iter().all(|&(i, k, _, d, p0, p1)| i + p0 + p1 > d * (k - 1));
        prop_assume!(ok);
        let image: Vec<usize> = geo.iter().map(|g| g.0).collect();
        let block: Vec<usize> = geo.iter().map(|g| g.1).collect();
        let strides: Vec<usize> = geo.iter().map(|g| g.2).collect();
        let dilations: Vec<usize> = geo.iter().map(|g| g.3).collect();
        let pads: Vec<usize> = geo.iter().map(|g| g.4).chain(geo.iter().map(|g| g.5)).collect();
        let blocks: Vec<usize> = geo.iter().map(|&(i, k, s, d, p0, p1)| (i + p0 + p1 - (d * (k - 1) + 1)) / s + 1).collect();
        let xs = [n, c * numel(&block), numel(&blocks)];
        let x = values(numel(&xs), seed);
        let a = attrs(&[("strides", ints(&strides)), ("dilations", ints(&dilations)), ("pads", ints(&pads))]);
        let iv = |v: &[usize]| ti(&[v.len()], v.iter().map(|&d| d as i64).collect());
        let want = run(Opcode::Col2Im, &[t_(&xs, &x), iv(&image), iv(&block)], a, 1);
        let g = edgec_kernels::conv::col2im::Col2Im {
            batch: n, channels: c, image: &image, block: &block, blocks: &blocks,
            strides: &strides, dilations: &dilations, pads: &pads[..rank],
        };
        let mut y = vec![7f32; n * c * numel(&image)];
        edgec_kernels::conv::col2im::col2im(&g, &x, &mut y);
        assert_close(&y, &f32s(&want[0]), "col2im");
    }
}

/// 1×1 convs on a 1×1 map (squeeze-excite) take the matrix-vector path:
/// every channel count against every panel height, and output channels
/// with equal weights give bit-equal results wherever their panel ends.
#[test]
fn pointwise_on_one_pixel() {
    let pixel = |n, c_in, c_out, groups| Conv2d {
        n,
        c_in,
        h: 1,
        w: 1,
        c_out,
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
        groups,
    };
    for (c_in, c_out) in [(1, 1), (3, 5), (8, 13), (72, 288), (288, 72), (7, 25), (40, 144)] {
        for groups in [1, c_in.min(c_out).min(2)] {
            if c_in % groups == 0 && c_out % groups == 0 {
                check_conv2d(pixel(2, c_in, c_out, groups), Act::HardSigmoid { alpha: 0.2, beta: 0.5 }, true, 5);
            }
        }
        let p = pixel(1, c_in, c_out, 1);
        let row: Vec<f32> = values(c_in, 9).into_iter().map(|v| v * 0.37 + 0.013).collect();
        let w: Vec<f32> = (0..c_out).flat_map(|_| row.iter().copied()).collect();
        let x: Vec<f32> = values(c_in, 10).into_iter().map(|v| v * 0.29 - 0.07).collect();
        let pw = PackedConv::new(&p, &w);
        let mut y = vec![0.0; c_out];
        conv::conv2d(&p, &x, &pw, None, Act::None, &mut y, &mut vec![0.0; conv::conv2d_scratch_len(&p)]);
        assert!(y.iter().all(|v| v.to_bits() == y[0].to_bits()), "{c_in}->{c_out}: {y:?}");
    }
}

/// Weights packed at a placeholder size (1×1, where no output fits, as a
/// model with symbolic dims packs them) run at other sizes: each kernel the
/// packing allows is chosen at run time with the scratch sized for it (a
/// deep conv packed for the direct loops once overran its scratch at
/// 230×230).
#[test]
fn packed_at_placeholder_size() {
    let conv = |c_in, c_out, k, s, hw| Conv2d {
        n: 1,
        c_in,
        h: hw,
        w: hw,
        c_out,
        kh: k,
        kw: k,
        stride_h: s,
        stride_w: s,
        pad_top: k / 2,
        pad_left: k / 2,
        pad_bottom: k / 2,
        pad_right: k / 2,
        dil_h: 1,
        dil_w: 1,
        groups: 1,
    };
    for (c_in, c_out, k, s) in [(3, 64, 7, 2), (3, 8, 3, 2), (16, 8, 3, 1), (24, 16, 3, 2), (8, 40, 3, 1)] {
        for hw in [5, 9, 40, 67] {
            let p = conv(c_in, c_out, k, s, hw);
            let placeholder = Conv2d { h: 1, w: 1, pad_top: 0, pad_left: 0, pad_bottom: 0, pad_right: 0, ..p };
            check_conv2d_packed_as(p, placeholder, Act::Relu, true, 3);
        }
    }
}
