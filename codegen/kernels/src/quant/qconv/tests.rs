//! Every integer micro-kernel this CPU has against a direct reference
//! (centered operands, wrapping i32 sums, `edgec_numeric::quant::requantize`)
//! over geometries that reach every path and tail: pointwise, im2col with
//! stride/dilation/asymmetric padding, grouped, depthwise, channel counts off
//! the MR/NR blocks, u8 and i8 activations, saturating sums.

use super::*;
use edgec_numeric::quant::quantize_multiplier;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

fn reference<X: QAct>(p: &Conv2d, q: &QReq, x: &[X], w: &[i8], b: &[i32], e: QEpilogue<'_>) -> Vec<X> {
    let (oh, ow) = (p.out_h(), p.out_w());
    let (cg, mg) = (p.c_in / p.groups, p.c_out / p.groups);
    let mut y = Vec::new();
    for n in 0..p.n {
        for m in 0..p.c_out {
            let g = m / mg;
            for oy in 0..oh {
                for ox in 0..ow {
                    let mut acc = b[m];
                    for c in 0..cg {
                        for ky in 0..p.kh {
                            for kx in 0..p.kw {
                                let iy = (oy * p.stride_h + ky * p.dil_h) as isize - p.pad_top as isize;
                                let ix = (ox * p.stride_w + kx * p.dil_w) as isize - p.pad_left as isize;
                                if iy < 0 || ix < 0 || iy as usize >= p.h || ix as usize >= p.w {
                                    continue;
                                }
                                let xv = x[((n * p.c_in + g * cg + c) * p.h + iy as usize) * p.w + ix as usize].value();
                                let wv = w[((m * cg + c) * p.kh + ky) * p.kw + kx] as i32;
                                acc = acc.wrapping_add((xv - q.x_zero) * wv);
                            }
                        }
                    }
                    let v = match e {
                        QEpilogue::Fixed { mult, shift } => {
                            requantize(acc, mult[m], shift[m], q.y_zero, q.qmin, q.qmax)
                        }
                        QEpilogue::Float { acc_scale, act, y_scale } => {
                            requantize_act(acc, acc_scale[m], act, y_scale, q.y_zero, q.qmin, q.qmax)
                        }
                    };
                    y.push(X::from_i32(v));
                }
            }
        }
    }
    y
}

#[allow(clippy::too_many_arguments)]
fn geometry(
    n: usize,
    c_in: usize,
    c_out: usize,
    hw: (usize, usize),
    k: (usize, usize),
    stride: usize,
    dil: usize,
    pads: [usize; 4],
    groups: usize,
) -> Conv2d {
    Conv2d {
        n,
        c_in,
        h: hw.0,
        w: hw.1,
        c_out,
        kh: k.0,
        kw: k.1,
        stride_h: stride,
        stride_w: stride,
        pad_top: pads[0],
        pad_left: pads[1],
        pad_bottom: pads[2],
        pad_right: pads[3],
        dil_h: dil,
        dil_w: dil,
        groups,
    }
}

fn cases() -> Vec<Conv2d> {
    vec![
        geometry(1, 16, 24, (7, 9), (1, 1), 1, 1, [0; 4], 1),
        geometry(2, 3, 8, (11, 10), (3, 3), 2, 1, [1, 1, 1, 1], 1),
        geometry(1, 5, 13, (9, 8), (3, 2), 1, 2, [2, 0, 1, 1], 1),
        geometry(1, 8, 12, (6, 6), (3, 3), 1, 1, [1, 1, 1, 1], 4),
        geometry(1, 12, 12, (10, 9), (3, 3), 1, 1, [1, 1, 1, 1], 12),
        geometry(2, 7, 7, (9, 11), (5, 5), 2, 1, [2, 2, 2, 2], 7),
        geometry(1, 6, 6, (8, 8), (3, 3), 1, 2, [0, 3, 2, 0], 6),
        geometry(1, 64, 40, (5, 7), (1, 1), 1, 1, [0; 4], 1),
        geometry(2, 5, 7, (3, 6), (1, 1), 1, 1, [0; 4], 1),
        geometry(1, 4, 9, (1, 37), (1, 5), 1, 1, [0, 2, 0, 2], 1),
        geometry(1, 9, 9, (13, 7), (3, 3), 2, 1, [1, 1, 1, 1], 9),
        geometry(2, 5, 5, (6, 11), (3, 3), 2, 1, [0, 1, 1, 0], 5),
        geometry(1, 4, 4, (1, 9), (1, 3), 3, 1, [0, 1, 0, 1], 4),
        geometry(1, 3, 3, (5, 5), (5, 5), 1, 1, [2, 2, 2, 2], 3),
        // Depthwise rows long enough for whole vector blocks (stride 2 and 1).
        geometry(1, 3, 3, (5, 70), (3, 3), 2, 1, [1, 1, 1, 1], 3),
        geometry(1, 2, 2, (4, 41), (5, 5), 1, 1, [2, 2, 2, 2], 2),
        // Deep enough for several L1 chunks of 2 panels (the last one odd),
        // 108 positions: one 4-panel transpose, two single ones, a tail of 12.
        geometry(1, 300, 20, (9, 12), (3, 3), 1, 1, [1, 1, 1, 1], 1),
        // Pointwise over 130 positions (the planes as tap rows): two 4-panel
        // transposes and a tail of 2.
        geometry(2, 40, 17, (10, 13), (1, 1), 1, 1, [0; 4], 1),
    ]
}

/// Weights over the whole i8 range, or within ±64 (`--reduce-range`: the
/// AVX2 kernel then multiplies the bytes through `vpmaddubsw`).
#[derive(Copy, Clone, PartialEq)]
enum Weights {
    Full,
    Reduced,
}

fn check<X: QAct + crate::quant::conv::Q8 + PartialEq + std::fmt::Debug>(wide: bool, float: bool, ws: Weights) {
    let mut rng = Lcg(7);
    for p in cases() {
        let (cg, k) = (p.c_in / p.groups, p.kh * p.kw);
        let x: Vec<X> = (0..p.n * p.c_in * p.h * p.w).map(|_| X::from_i32(rng.next() as u8 as i32 - X::BIAS)).collect();
        let w: Vec<i8> = (0..p.c_out * cg * k)
            .map(|_| match ws {
                Weights::Full => rng.next() as i8,
                Weights::Reduced => ((rng.next() % 129) as i32 - 64) as i8,
            })
            .collect();
        let b: Vec<i32> = (0..p.c_out).map(|_| (rng.next() % 20001) as i32 - 10000).collect();
        // Wide multipliers saturate most outputs: checks the clamp too.
        let (mult, shift): (Vec<i32>, Vec<i32>) = (0..p.c_out)
            .map(|_| {
                let r = if wide { 0.5 } else { 1e-3 + (rng.next() % 1000) as f64 * 1e-5 };
                quantize_multiplier(r).unwrap()
            })
            .unzip();
        let (lo, hi) = (-X::BIAS, 255 - X::BIAS);
        let q =
            QReq { x_zero: (rng.next() % 200) as i32 + 20 - X::BIAS, y_zero: 3 - X::BIAS, qmin: lo + 2, qmax: hi - 1 };
        let acc_scale: Vec<f32> = mult.iter().map(|&m| m as f32 * 2e-15).collect();
        let epi = match float {
            false => QEpilogue::Fixed { mult: &mult, shift: &shift },
            true => QEpilogue::Float { acc_scale: &acc_scale, act: Act::HardSwish, y_scale: 0.02 },
        };
        let want = reference(&p, &q, &x, &w, &b, epi);
        let distinct: std::collections::BTreeSet<i32> = want.iter().map(|v| v.value()).collect();
        assert!(distinct.len() >= 3 || wide, "degenerate case {p:?}: outputs {distinct:?}");
        let packed = PackedQConv::new(&p, &w, Some(&b), epi);
        assert_eq!(packed.bytes_fit, ws == Weights::Reduced, "{p:?}");
        for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
            let mut y = vec![X::default(); want.len()];
            with_isa(isa, || quant_conv2d(&p, &q, &packed, &x, &mut y));
            assert_eq!(y, want, "{isa:?} {p:?}");
        }
        let (input, kernel, output) = ([p.h, p.w], [p.kh, p.kw], [p.out_h(), p.out_w()]);
        let (strides, dilations, pads) = ([p.stride_h, p.stride_w], [p.dil_h, p.dil_w], [p.pad_top, p.pad_left]);
        let win = crate::conv::window::Window {
            input: &input,
            kernel: &kernel,
            output: &output,
            strides: &strides,
            dilations: &dilations,
            pads: &pads,
        };
        let ci = crate::quant::conv::ConvInt { n: p.n, c: p.c_in, m: p.c_out, group: p.groups, win };
        let mut y = vec![X::default(); want.len()];
        quant_conv_nd(&ci, &q, &x, &w, Some(&b), epi, &mut y);
        assert_eq!(y, want, "direct {p:?}");
    }
}

#[test]
fn every_kernel_equals_the_direct_reference_u8() {
    for ws in [Weights::Full, Weights::Reduced] {
        check::<u8>(false, false, ws);
        check::<u8>(true, false, ws);
        check::<u8>(false, true, ws);
    }
}

#[test]
fn every_kernel_equals_the_direct_reference_i8() {
    for ws in [Weights::Full, Weights::Reduced] {
        check::<i8>(false, false, ws);
        check::<i8>(true, false, ws);
        check::<i8>(false, true, ws);
    }
}

#[test]
fn byte_pairs_fit_up_to_the_saturation_bound() {
    use super::micro::bytes_fit;
    assert!(bytes_fit(&[64, 64, -64, -64]) && bytes_fit(&[127, 1, -128, 0]) && bytes_fit(&[127, -128, -128, 127]));
    assert!(!bytes_fit(&[65, 64, 0, 0]) && !bytes_fit(&[0, 0, -65, -64]) && !bytes_fit(&[0, 0, 127, 2]));
}

/// Weight pairs at and past the bound, against the extreme bytes, through
/// every micro-kernel: a saturating product or a check one step too wide
/// would give other sums than the portable kernel's.
#[test]
fn pairs_at_the_bound_multiply_exactly() {
    use super::micro::{bytes_fit, run, split_pairs};
    let steps = 3;
    let pairs = [(64i8, 64i8), (-64, -64), (127, 1), (-128, 0), (127, -128), (65, 64), (-65, -64), (127, 127)];
    for (w0, w1) in pairs {
        let a: Vec<i8> = (0..steps * MR * 4).map(|i| if i % 2 == 0 { w0 } else { w1 }).collect();
        let split = split_pairs(&a);
        let fit = bytes_fit(&a);
        for x in [0u8, 1, 254, 255] {
            let b = vec![x; steps * NR * 4];
            let mut want = [0i32; MR * 2 * NR];
            run(Isa::Scalar, steps, &a, None, &b, &b, &mut want);
            assert_eq!(want[0], steps as i32 * 2 * (i32::from(w0) + i32::from(w1)) * i32::from(x));
            for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
                let mut tile = [0i32; MR * 2 * NR];
                run(isa, steps, &a, Some(&split[..]).filter(|_| !fit), &b, &b, &mut tile);
                // Σ w · (b − offset): the offset times each row's weight sum back.
                let back = isa.offset() * steps as i32 * 2 * (i32::from(w0) + i32::from(w1));
                assert_eq!(tile.map(|v| v + back), want, "{isa:?} ({w0}, {w1}) on {x}");
            }
        }
    }
}

#[test]
fn per_tensor_parameters_broadcast() {
    let p = geometry(1, 3, 5, (4, 4), (3, 3), 1, 1, [1; 4], 1);
    let w: Vec<i8> = (0..5 * 27).map(|i| (i % 7) as i8 - 3).collect();
    let (m, s) = quantize_multiplier(0.01).unwrap();
    let one = PackedQConv::new(&p, &w, None, QEpilogue::Fixed { mult: &[m], shift: &[s] });
    let each = PackedQConv::new(&p, &w, Some(&[0; 5]), QEpilogue::Fixed { mult: &[m; 5], shift: &[s; 5] });
    let x: Vec<u8> = (0..48).map(|i| (i * 5) as u8).collect();
    let q = QReq { x_zero: 128, y_zero: 128, qmin: 0, qmax: 255 };
    let (mut a, mut b) = (vec![0u8; 80], vec![0u8; 80]);
    quant_conv2d(&p, &q, &one, &x, &mut a);
    quant_conv2d(&p, &q, &each, &x, &mut b);
    assert_eq!(a, b);
    assert!(a.iter().any(|&v| v != 128), "the conv computed nothing");
}
