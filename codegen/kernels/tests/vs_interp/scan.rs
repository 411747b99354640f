//! CumSum/CumProd and BitCast vs the interpreter: f32 (accumulated in f64
//! and rounded once per output, so bit-exact), wrapping i32, and byte
//! reinterpretation between f32 and i32 (NaN payloads and -0 included), Det
//! Einsum, AffineGrid, TensorScatter and MaxUnpool.

use super::common::*;
use edgec_kernels::elementwise::bitcast;
use edgec_kernels::reduce::cum::{cum, Cum, Fold};
use ir::interp::{Data, Tensor};
use ir::{Attr, DType, Opcode};
use proptest::prelude::*;

fn params(s: &[usize], ax: usize, fold: Fold, exclusive: bool, reverse: bool) -> Cum {
    Cum { fold, outer: numel(&s[..ax]), n: s[ax], inner: numel(&s[ax + 1..]), exclusive, reverse }
}

fn run_interp(fold: Fold, x: Tensor, ax: usize, exclusive: bool, reverse: bool) -> Tensor {
    let op = if fold == Fold::Sum { Opcode::CumSum } else { Opcode::CumProd };
    let at = attrs(vec![("exclusive", Attr::Int(exclusive as i64)), ("reverse", Attr::Int(reverse as i64))]);
    interp(op, vec![Some(x), Some(i64t(&[], &[ax as i64]))], at, 1).remove(0)
}

fn fold() -> impl Strategy<Value = Fold> {
    prop::sample::select(vec![Fold::Sum, Fold::Prod])
}

/// A shape and an axis of it.
fn shape_axis() -> impl Strategy<Value = (Vec<usize>, usize)> {
    shape(1..=4, 5).prop_flat_map(|s| {
        let r = s.len();
        (Just(s), 0..r)
    })
}

/// Einsum equations with operand shapes built from sizes `a`, `b`, `c`.
fn einsum_case(k: usize, a: usize, b: usize, c: usize) -> (&'static str, Vec<Vec<usize>>) {
    match k {
        0 => ("ij,jk->ik", vec![vec![a, b], vec![b, c]]),
        1 => ("bij,bjk->bik", vec![vec![c, a, b], vec![c, b, a]]),
        2 => ("ii->i", vec![vec![a, a]]),
        3 => ("ij->", vec![vec![a, b]]),
        4 => ("...ii->...i", vec![vec![c, b, b]]),
        5 => ("i,i", vec![vec![a], vec![a]]),
        _ => ("ij->ji", vec![vec![a, b]]),
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn max_unpool_matches(grow in 0usize..2, picks in prop::collection::vec(0usize..16, 4), x in prop::collection::vec(-5.0f32..5.0, 4)) {
        // X, I [1, 1, 2, 2], kernel 2, stride 2: unpooled [1, 1, 4, 4]; output_shape grows it.
        let idx: Vec<i64> = picks.iter().map(|&p| p as i64).collect();
        let shape = [1usize, 1, 4 + grow, 4 + grow];
        let at = attrs(vec![("kernel_shape", Attr::Ints(vec![2, 2])), ("strides", Attr::Ints(vec![2, 2]))]);
        let os: Vec<i64> = shape.iter().map(|&d| d as i64).collect();
        let want = as_f32(&interp(Opcode::MaxUnpool, vec![Some(f32t(&[1, 1, 2, 2], &x)), Some(i64t(&[1, 1, 2, 2], &idx)), Some(ints(&os))], at, 1)[0]);
        let mut y = vec![1.0f32; numel(&shape)];
        edgec_kernels::pool::unpool::max_unpool(&[1, 1, 4, 4], &shape, &x, &idx, &mut y);
        prop_assert_eq!(y, want);
    }

    #[test]
    fn affine_grid_matches_bitwise(r in 2usize..4, align in any::<bool>(), n in 1usize..3, d in 1usize..4,
                                   th in prop::collection::vec(-2.0f32..2.0, 24)) {
        let spatial = vec![d + 1; r];
        let theta = &th[..n * r * (r + 1)];
        let mut size = vec![n as i64, 1];
        size.extend(spatial.iter().map(|&s| s as i64));
        let at = attrs(vec![("align_corners", Attr::Int(align as i64))]);
        let want = as_f32(&interp(Opcode::AffineGrid, vec![Some(f32t(&[n, r, r + 1], theta)), Some(ints(&size))], at, 1)[0]);
        let mut y = vec![0.0f32; want.len()];
        edgec_kernels::resample::affine::affine_grid(&spatial, align, theta, &mut y);
        prop_assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn tensor_scatter_matches(circular in any::<bool>(), seq in 1usize..4, starts in prop::collection::vec(0i64..6, 2),
                              x in prop::collection::vec(-5.0f32..5.0, 2 * 2 * 5 * 3)) {
        use edgec_kernels::index::tscatter::{tensor_scatter, TensorScatter};
        // past [2, 2, 5, 3], update [2, 2, seq, 3] on axis 2.
        let starts: Vec<i64> = if circular { starts } else { starts.iter().map(|&s| s % (6 - seq as i64)).collect() };
        let past = &x[..60];
        let update = &x[..2 * 2 * seq * 3];
        let at = attrs(vec![("axis", Attr::Int(2)), ("mode", Attr::Str(if circular { "circular" } else { "linear" }.into()))]);
        let want = as_f32(&interp(Opcode::TensorScatter, vec![Some(f32t(&[2, 2, 5, 3], past)), Some(f32t(&[2, 2, seq, 3], update)), Some(ints(&starts))], at, 1)[0]);
        let p = TensorScatter { outer: 4, per_batch: 2, max_seq: 5, seq, inner: 3, circular };
        let mut y = vec![0.0f32; 60];
        tensor_scatter(&p, past, update, Some(&starts), &mut y);
        prop_assert_eq!(y, want);
    }

    #[test]
    fn einsum_matches_bitwise(k in 0usize..7, a in 1usize..4, b in 1usize..4, c in 1usize..4,
                              seed in prop::collection::vec(-2.0f32..2.0, 64)) {
        use edgec_kernels::linalg::einsum::{einsum, Einsum};
        let (eq, shapes) = einsum_case(k, a, b, c);
        let data: Vec<Vec<f32>> = shapes.iter().enumerate().map(|(i, s)| seed[i * 27..i * 27 + numel(s)].to_vec()).collect();
        let ins = shapes.iter().zip(&data).map(|(s, d)| Some(f32t(s, d))).collect();
        let want = as_f32(&interp(Opcode::Einsum, ins, attrs(vec![("equation", Attr::Str(eq.into()))]), 1)[0]);
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let nest = edgec_numeric::einsum::loop_nest(eq, &refs).unwrap();
        let access: Vec<&[(usize, usize)]> = nest.access.iter().map(Vec::as_slice).collect();
        let p = Einsum { dims: &nest.dims, n_out: nest.out_shape.len(), access: &access };
        let xs: Vec<&[f32]> = data.iter().map(Vec::as_slice).collect();
        let mut y = vec![0.0f32; want.len()];
        einsum(&p, &xs, &mut y);
        prop_assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "{}", eq);
    }

    #[test]
    fn det_matches_bitwise(n in 1usize..6, batch in 1usize..4, seed in prop::collection::vec(-4.0f32..4.0, 100)) {
        let x = &seed[..batch * n * n];
        let want = as_f32(&interp(Opcode::Det, vec![Some(f32t(&[batch, n, n], x))], attrs(vec![]), 1)[0]);
        let mut y = vec![0.0f32; batch];
        edgec_kernels::linalg::det::det(n, x, &mut y);
        prop_assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn scans_along_a_runtime_axis_match(f in fold(), ex in any::<bool>(), rev in any::<bool>(), (s, ax) in shape_axis(),
                                        neg in any::<bool>(), seed in prop::collection::vec(-3.0f32..3.0, 625)) {
        // The axis as a model input would give it (possibly negative), normalized when the model runs.
        let given = if neg { ax as i64 - s.len() as i64 } else { ax as i64 };
        let a = edgec_kernels::shape::axis("CumSum", given, s.len()).unwrap();
        let x = &seed[..numel(&s)];
        let want = as_f32(&run_interp(f, f32t(&s, x), ax, ex, rev));
        let mut y = vec![0.0f32; x.len()];
        cum(&Cum::along(f, &s, a, ex, rev), x, &mut y);
        prop_assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
        prop_assert!(edgec_kernels::shape::axis("CumSum", s.len() as i64, s.len()).is_err());
    }

    #[test]
    fn f32_scans_match_bitwise(f in fold(), ex in any::<bool>(), rev in any::<bool>(),
                               (s, ax) in shape_axis(), seed in prop::collection::vec(-3.0f32..3.0, 625)) {
        let x = &seed[..numel(&s)];
        let want = as_f32(&run_interp(f, f32t(&s, x), ax, ex, rev));
        let mut y = vec![0.0f32; x.len()];
        cum(&params(&s, ax, f, ex, rev), x, &mut y);
        prop_assert_eq!(y.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), want.iter().map(|v| v.to_bits()).collect::<Vec<_>>());
    }

    #[test]
    fn i32_scans_wrap_like_the_interpreter(f in fold(), ex in any::<bool>(), rev in any::<bool>(),
                                           (s, ax) in shape_axis(), seed in prop::collection::vec(any::<i32>(), 625)) {
        let x = &seed[..numel(&s)];
        let Data::I32(want) = run_interp(f, i32t(&s, x), ax, ex, rev).data else { panic!("not i32") };
        let mut y = vec![0i32; x.len()];
        cum(&params(&s, ax, f, ex, rev), x, &mut y);
        prop_assert_eq!(y, want);
    }

    #[test]
    fn bitcast_f32_i32_round_trips_like_the_interpreter(bits in prop::collection::vec(any::<u32>(), 0..40)) {
        let x: Vec<f32> = bits.iter().map(|&b| f32::from_bits(b)).collect();
        let at = attrs(vec![("to", Attr::Type(DType::I32))]);
        let out = interp(Opcode::BitCast, vec![Some(f32t(&[x.len()], &x))], at, 1).remove(0);
        let Data::I32(want) = out.data else { panic!("not i32") };
        let mut y = vec![0i32; x.len()];
        bitcast(&x, &mut y);
        prop_assert_eq!(&y, &want);
        let mut back = vec![0.0f32; x.len()];
        bitcast(&y, &mut back);
        prop_assert_eq!(back.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), bits);
    }
}
