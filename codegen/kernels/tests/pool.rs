//! Pooling kernels against the reference interpreter.

mod common;

use common::*;
use edgec_kernels::pool::{self, Pool2d, PoolNd};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// One spatial axis: (input, kernel, stride, dilation, pad begin, pad end).
type AxisSpec = (usize, usize, usize, usize, usize, usize);

fn axis() -> impl Strategy<Value = AxisSpec> {
    (1usize..=8, 1usize..=3, 1usize..=3, 1usize..=2, 0usize..=2, 0usize..=2)
        // ONNX requires pads smaller than the kernel.
        .prop_map(|(i, k, s, d, b, e)| (i + 2, k, s, d, b.min(k - 1), e.min(k - 1)))
}

/// Run MaxPool, AveragePool or LpPool in the interpreter (`extra` is
/// `count_include_pad` or `p`); `None` if it rejects the geometry.
fn pool_oracle(
    op: Opcode,
    n: usize,
    c: usize,
    axes: &[AxisSpec],
    ceil: bool,
    extra: i64,
    seed: u64,
) -> Option<(Vec<f32>, Vec<usize>, Vec<f32>)> {
    let shape: Vec<usize> = [n, c].into_iter().chain(axes.iter().map(|a| a.0)).collect();
    let x = values(shape.iter().product(), seed);
    let pads: Vec<usize> = axes.iter().map(|a| a.4).chain(axes.iter().map(|a| a.5)).collect();
    let mut attrs = Attrs::new()
        .with("kernel_shape", ints(&axes.iter().map(|a| a.1).collect::<Vec<_>>()))
        .with("strides", ints(&axes.iter().map(|a| a.2).collect::<Vec<_>>()))
        .with("dilations", ints(&axes.iter().map(|a| a.3).collect::<Vec<_>>()))
        .with("pads", ints(&pads))
        .with("ceil_mode", Attr::Int(ceil as i64));
    match op {
        Opcode::AveragePool => attrs.set("count_include_pad", Attr::Int(extra)),
        Opcode::LpPool => attrs.set("p", Attr::Int(extra)),
        _ => {}
    }
    let out = ir::interp::eval_op(op, &[t(&shape, x.clone())], attrs, 1).ok()?;
    let y = out.into_iter().next()?;
    let ir::interp::Data::F32(v) = y.data else { return None };
    Some((x, y.shape, v))
}

fn nd(n: usize, c: usize, axes: &[AxisSpec], out: &[usize]) -> PoolNd {
    PoolNd {
        n,
        c,
        spatial: axes.iter().map(|a| a.0).collect(),
        kernel: axes.iter().map(|a| a.1).collect(),
        stride: axes.iter().map(|a| a.2).collect(),
        dilation: axes.iter().map(|a| a.3).collect(),
        pads: axes.iter().map(|a| a.4).chain(axes.iter().map(|a| a.5)).collect(),
        out: out.to_vec(),
    }
}

fn two_d(n: usize, c: usize, a: &[AxisSpec], out: &[usize]) -> Pool2d {
    Pool2d {
        n,
        c,
        h: a[0].0,
        w: a[1].0,
        kh: a[0].1,
        kw: a[1].1,
        stride_h: a[0].2,
        stride_w: a[1].2,
        pad_top: a[0].4,
        pad_left: a[1].4,
        pad_bottom: a[0].5,
        pad_right: a[1].5,
        dil_h: a[0].3,
        dil_w: a[1].3,
        out_h: out[0],
        out_w: out[1],
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn max_pool_matches(
        n in 1usize..=2, c in 1usize..=3, axes in prop::collection::vec(axis(), 1..=3),
        ceil in any::<bool>(), seed in any::<u64>(),
    ) {
        let r = pool_oracle(Opcode::MaxPool, n, c, &axes, ceil, 0, seed);
        prop_assume!(r.is_some(), "geometry the interpreter rejects");
        let (x, shape, want) = r.unwrap();
        let mut y = vec![f32::NAN; want.len()];
        pool::max_pool_nd(&nd(n, c, &axes, &shape[2..]), &x, &mut y);
        assert_close(&y, &want, &format!("max_pool_nd {axes:?} ceil {ceil}"));
        if axes.len() == 2 {
            let mut y = vec![f32::NAN; want.len()];
            pool::max_pool2d(&two_d(n, c, &axes, &shape[2..]), &x, &mut y);
            assert_close(&y, &want, &format!("max_pool2d {axes:?} ceil {ceil}"));
        }
    }

    /// 2×2 windows at stride 2 (the direct halving kernel): the same
    /// maxima and sums as the interpreter, bit for bit, on sizes across
    /// its 16-output blocks, odd sizes included.
    #[test]
    fn halving_pools_match(n in 1usize..=2, c in 1usize..=3, h in 2usize..=9, w in 2usize..=70, seed in any::<u64>()) {
        let axes = [(h, 2, 2, 1, 0, 0), (w, 2, 2, 1, 0, 0)];
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for op in [Opcode::MaxPool, Opcode::AveragePool] {
            let (x, shape, want) = pool_oracle(op, n, c, &axes, false, 0, seed).expect("a valid pool");
            let mut y = vec![f32::NAN; want.len()];
            let p = two_d(n, c, &axes, &shape[2..]);
            match op {
                Opcode::MaxPool => pool::max_pool2d(&p, &x, &mut y),
                _ => pool::avg_pool2d(&p, false, &x, &mut y),
            }
            prop_assert_eq!(bits(&y), bits(&want), "{:?} {:?}", op, p);
        }
    }

    #[test]
    fn avg_pool_matches(
        n in 1usize..=2, c in 1usize..=3, axes in prop::collection::vec(axis(), 1..=3),
        ceil in any::<bool>(), include_pad in any::<bool>(), seed in any::<u64>(),
    ) {
        let r = pool_oracle(Opcode::AveragePool, n, c, &axes, ceil, include_pad as i64, seed);
        prop_assume!(r.is_some(), "geometry the interpreter rejects");
        let (x, shape, want) = r.unwrap();
        let mut y = vec![f32::NAN; want.len()];
        pool::avg_pool_nd(&nd(n, c, &axes, &shape[2..]), include_pad, &x, &mut y);
        assert_close(&y, &want, &format!("avg_pool_nd {axes:?} ceil {ceil} pad {include_pad}"));
        if axes.len() == 2 {
            let mut y = vec![f32::NAN; want.len()];
            pool::avg_pool2d(&two_d(n, c, &axes, &shape[2..]), include_pad, &x, &mut y);
            assert_close(&y, &want, &format!("avg_pool2d {axes:?} ceil {ceil} pad {include_pad}"));
        }
    }

    #[test]
    fn lp_pool_matches(
        n in 1usize..=2, c in 1usize..=3, axes in prop::collection::vec(axis(), 1..=3),
        ceil in any::<bool>(), p in 1i64..=3, seed in any::<u64>(),
    ) {
        let r = pool_oracle(Opcode::LpPool, n, c, &axes, ceil, p, seed);
        prop_assume!(r.is_some(), "geometry the interpreter rejects");
        let (x, shape, want) = r.unwrap();
        let mut y = vec![f32::NAN; want.len()];
        pool::lp_pool_nd(&nd(n, c, &axes, &shape[2..]), p as u32, &x, &mut y);
        assert_close(&y, &want, &format!("lp_pool_nd {axes:?} ceil {ceil} p {p}"));
    }

    #[test]
    fn global_pools_match(
        n in 1usize..=2, c in 1usize..=4, spatial in prop::collection::vec(1usize..=12, 1..=3),
        nan_at in prop::option::of(0usize..1000), seed in any::<u64>(),
    ) {
        let shape: Vec<usize> = [n, c].into_iter().chain(spatial.iter().copied()).collect();
        let mut x = values(shape.iter().product(), seed);
        if let Some(i) = nan_at {
            let len = x.len();
            x[i % len] = f32::NAN;
        }
        for (op, f) in [
            (Opcode::GlobalAveragePool, pool::global_avg_pool as fn(&[usize], &[f32], &mut [f32])),
            (Opcode::GlobalMaxPool, pool::global_max_pool),
        ] {
            let (out_shape, want) = oracle(op, &[t(&shape, x.clone())], Attrs::new());
            prop_assert_eq!(out_shape.iter().product::<usize>(), n * c);
            let mut y = vec![0.0; n * c];
            f(&shape, &x, &mut y);
            assert_close(&y, &want, &format!("{op:?} {shape:?}"));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn max_pool_indices_match(
        nc in (1usize..3, 1usize..3), rank in 1usize..3, col_major in any::<bool>(),
        geo in prop::collection::vec((2usize..7, 1usize..4, 1usize..3, 1usize..3, 0usize..2), 2),
        seed in any::<u64>(),
    ) {
        let geo = &geo[..rank];
        // The pads are smaller than the window extent, so every window holds an input tap.
        prop_assume!(geo.iter().all(|&(i, k, _, d, p)| i + 2 * p > d * (k - 1) && p <= d * (k - 1)));
        let input: Vec<usize> = geo.iter().map(|g| g.0).collect();
        let kernel: Vec<usize> = geo.iter().map(|g| g.1).collect();
        let stride: Vec<usize> = geo.iter().map(|g| g.2).collect();
        let dilation: Vec<usize> = geo.iter().map(|g| g.3).collect();
        let pads: Vec<usize> = geo.iter().map(|g| g.4).collect();
        let out: Vec<usize> = geo.iter().map(|&(i, k, s, d, p)| (i + 2 * p - (d * (k - 1) + 1)) / s + 1).collect();
        let xs = [vec![nc.0, nc.1], input.clone()].concat();
        // Coarse values: ties, where the first maximum must win.
        let x: Vec<f32> = values(numel(&xs), seed).iter().map(|v| v.round()).collect();
        let a = attrs(&[
            ("kernel_shape", ints(&kernel)), ("strides", ints(&stride)), ("dilations", ints(&dilation)),
            ("pads", ints(&[pads.clone(), pads.clone()].concat())), ("storage_order", Attr::Int(col_major as i64)),
        ]);
        let want = run(Opcode::MaxPool, &[t_(&xs, &x)], a, 2);
        let p = edgec_kernels::pool::indices::PoolIndices {
            planes: nc.0 * nc.1, input: &input, out: &out, kernel: &kernel, stride: &stride,
            dilation: &dilation, pads: &pads, col_major,
        };
        let mut y = vec![0i64; nc.0 * nc.1 * numel(&out)];
        edgec_kernels::pool::indices::max_pool_indices(&p, &x, &mut y);
        prop_assert_eq!(y, i64s(&want[1]));
    }
}
