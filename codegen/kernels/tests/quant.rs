//! Quantization kernels against the interpreter: QuantizeLinear and
//! DequantizeLinear per tensor, per axis and blocked; DynamicQuantizeLinear;
//! MatMulInteger and QLinearMatMul with scalar and per-row/column
//! parameters. Results must be bit-identical (the kernels round exactly as
//! the interpreter does).

use edgec_kernels::quant::{self, QLayout, QMat};
use edgec_kernels::F16;
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

fn u8t(shape: &[usize], v: Vec<u8>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::U8(v)))
}
fn i8t(shape: &[usize], v: Vec<i8>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::I8(v)))
}
fn f32t(shape: &[usize], v: Vec<f32>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::F32(v)))
}

fn run(op: Opcode, inputs: &[Option<Tensor>], attrs: Attrs, n: usize) -> Vec<Tensor> {
    eval_op(op, inputs, attrs, n).unwrap_or_else(|e| panic!("interpreter rejected {op:?}: {e}"))
}

/// A shape of rank 1..=3, an axis, and a block size (0 = per axis).
fn layout_case() -> impl Strategy<Value = (Vec<usize>, usize, usize)> {
    prop::collection::vec(1usize..6, 1..4).prop_flat_map(|s| {
        let r = s.len();
        (Just(s), 0..r, 0usize..4)
    })
}

/// Scale shape and kernel layout for `(shape, axis, block)`; `per_tensor` wins.
fn scale_of(shape: &[usize], ax: usize, block: usize, per_tensor: bool) -> (Vec<usize>, QLayout) {
    let inner = shape[ax + 1..].iter().product();
    if per_tensor {
        (vec![1], QLayout::Tensor)
    } else if block == 0 {
        (vec![shape[ax]], QLayout::Axis { dim: shape[ax], inner })
    } else {
        let mut s = shape.to_vec();
        s[ax] = shape[ax].div_ceil(block);
        (s, QLayout::Block { dim: shape[ax], inner, block })
    }
}

fn qattrs(ax: usize, block: usize) -> Attrs {
    let mut a = Attrs::default();
    a.set("axis", Attr::Int(ax as i64));
    a.set("block_size", Attr::Int(block as i64));
    a
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn quantize_and_dequantize_match_the_interpreter(
        (shape, ax, block) in layout_case(), per_tensor in any::<bool>(), seed in any::<u64>(), signed in any::<bool>()
    ) {
        let (sshape, layout) = scale_of(&shape, ax, block, per_tensor);
        let (n, ns) = (shape.iter().product::<usize>(), sshape.iter().product::<usize>());
        let mut rng = Rng(seed | 1);
        // Odd seeds: quarter-integer values and power-of-two scales, so
        // x / scale often lands exactly on a half (ties round to even).
        let dyadic = seed % 2 == 1;
        let x: Vec<f32> = (0..n)
            .map(|_| if dyadic { (rng.f32_in(-1200.0, 1200.0) as i32) as f32 * 0.25 } else { rng.f32_in(-300.0, 300.0) })
            .collect();
        let scale: Vec<f32> = (0..ns)
            .map(|_| if dyadic { [0.5f32, 1.0, 2.0][(rng.f32_in(0.0, 2.99)) as usize] } else { rng.f32_in(0.05, 3.0) })
            .collect();
        let attrs = || if per_tensor { Attrs::default() } else { qattrs(ax, block) };
        if signed {
            let zp: Vec<i8> = (0..ns).map(|_| rng.f32_in(-20.0, 20.0) as i8).collect();
            let want = run(Opcode::QuantizeLinear, &[f32t(&shape, x.clone()), f32t(&sshape, scale.clone()), i8t(&sshape, zp.clone())], attrs(), 1);
            let mut y = vec![0i8; n];
            quant::quantize(layout, &x, &scale, Some(&zp), &mut y);
            prop_assert_eq!(&want[0].data, &Data::I8(y.clone()));
            let back = run(Opcode::DequantizeLinear, &[i8t(&shape, y.clone()), f32t(&sshape, scale.clone()), i8t(&sshape, zp.clone())], attrs(), 1);
            let mut d = vec![0f32; n];
            quant::dequantize(layout, &y, &scale, Some(&zp), &mut d);
            prop_assert_eq!(&back[0].data, &Data::F32(d));
        } else {
            let zp: Vec<u8> = (0..ns).map(|_| rng.f32_in(0.0, 255.0) as u8).collect();
            let want = run(Opcode::QuantizeLinear, &[f32t(&shape, x.clone()), f32t(&sshape, scale.clone()), u8t(&sshape, zp.clone())], attrs(), 1);
            let mut y = vec![0u8; n];
            quant::quantize(layout, &x, &scale, Some(&zp), &mut y);
            prop_assert_eq!(&want[0].data, &Data::U8(y.clone()));
            let back = run(Opcode::DequantizeLinear, &[u8t(&shape, y.clone()), f32t(&sshape, scale.clone()), None], attrs(), 1);
            let mut d = vec![0f32; n];
            quant::dequantize(layout, &y, &scale, None, &mut d);
            prop_assert_eq!(&back[0].data, &Data::F32(d));
        }
    }

    #[test]
    fn dynamic_quantize_matches_the_interpreter(x in prop::collection::vec(-50f32..50.0, 1..40)) {
        let want = run(Opcode::DynamicQuantizeLinear, &[f32t(&[x.len()], x.clone())], Attrs::default(), 3);
        let (s, z) = quant::dynamic_params(&x);
        let mut y = vec![0u8; x.len()];
        quant::quantize(QLayout::Tensor, &x, &[s], Some(&[z]), &mut y);
        prop_assert_eq!(&want[0].data, &Data::U8(y));
        prop_assert_eq!(&want[1].data, &Data::F32(vec![s]));
        prop_assert_eq!(&want[2].data, &Data::U8(vec![z]));
    }

    #[test]
    fn integer_matmuls_match_the_interpreter(
        (m, k, n) in (1usize..6, 1usize..7, 1usize..6), batch in 1usize..3, per_channel in any::<bool>(), seed in any::<u64>()
    ) {
        let mut rng = Rng(seed | 1);
        let a: Vec<u8> = (0..batch * m * k).map(|_| rng.f32_in(0.0, 255.0) as u8).collect();
        let b: Vec<u8> = (0..k * n).map(|_| rng.f32_in(0.0, 255.0) as u8).collect();
        let (nza, nzb) = if per_channel { (m, n) } else { (1, 1) };
        let za: Vec<u8> = (0..nza).map(|_| rng.f32_in(0.0, 255.0) as u8).collect();
        let zb: Vec<u8> = (0..nzb).map(|_| rng.f32_in(0.0, 255.0) as u8).collect();
        let (ashape, bshape) = (vec![batch, m, k], vec![k, n]);
        let a_off: Vec<usize> = (0..batch).map(|i| i * m * k).collect();
        let b_off = vec![0; batch];
        let want = run(Opcode::MatMulInteger, &[u8t(&ashape, a.clone()), u8t(&bshape, b.clone()), u8t(&[nza], za.clone()), u8t(&[nzb], zb.clone())], Attrs::default(), 1);
        let mut y = vec![0i32; batch * m * n];
        let qa = QMat { data: &a, offsets: &a_off, zero: &za, scale: &[] };
        let qb = QMat { data: &b, offsets: &b_off, zero: &zb, scale: &[] };
        quant::matmul_integer((m, k, n), qa, qb, &mut y);
        prop_assert_eq!(&want[0].data, &Data::I32(y));

        let sa: Vec<f32> = (0..nza).map(|_| rng.f32_in(0.001, 0.05)).collect();
        let sb: Vec<f32> = (0..nzb).map(|_| rng.f32_in(0.001, 0.05)).collect();
        let (sy, zy) = (vec![rng.f32_in(0.01, 0.2)], vec![rng.f32_in(0.0, 255.0) as u8]);
        let want = run(Opcode::QLinearMatMul, &[
            u8t(&ashape, a.clone()), f32t(&[nza], sa.clone()), u8t(&[nza], za.clone()),
            u8t(&bshape, b.clone()), f32t(&[nzb], sb.clone()), u8t(&[nzb], zb.clone()),
            f32t(&[1], sy.clone()), u8t(&[1], zy.clone())], Attrs::default(), 1);
        let mut y = vec![0u8; batch * m * n];
        let qa = QMat { data: &a, offsets: &a_off, zero: &za, scale: &sa };
        let qb = QMat { data: &b, offsets: &b_off, zero: &zb, scale: &sb };
        quant::qlinear_matmul((m, k, n), qa, qb, (&sy, &zy), &mut y);
        prop_assert_eq!(&want[0].data, &Data::U8(y));

        // The same with f16 scales: the multiplier is rounded to f16 twice.
        let h = |v: &[f32]| -> Vec<F16> { v.iter().map(|&x| F16::from_f32(x)).collect() };
        let ht = |shape: &[usize], v: &[F16]| {
            Some(Tensor::new(shape.to_vec(), Data::F16(v.iter().map(|x| half::f16::from_bits(x.to_bits())).collect())))
        };
        let (sa, sb, sy) = (h(&sa), h(&sb), h(&sy));
        let want = run(Opcode::QLinearMatMul, &[
            u8t(&ashape, a.clone()), ht(&[nza], &sa), u8t(&[nza], za.clone()),
            u8t(&bshape, b.clone()), ht(&[nzb], &sb), u8t(&[nzb], zb.clone()),
            ht(&[1], &sy), u8t(&[1], zy.clone())], Attrs::default(), 1);
        let mut y = vec![0u8; batch * m * n];
        let qa = QMat { data: &a, offsets: &a_off, zero: &za, scale: &sa };
        let qb = QMat { data: &b, offsets: &b_off, zero: &zb, scale: &sb };
        quant::qlinear_matmul((m, k, n), qa, qb, (&sy, &zy), &mut y);
        prop_assert_eq!(&want[0].data, &Data::U8(y));
    }
}

/// Uniform floats from a seed (xorshift; proptest shrinks the seed).
struct Rng(u64);

impl Rng {
    fn f32_in(&mut self, lo: f32, hi: f32) -> f32 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let u = (self.0 >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
}
