//! Kernels of several small families against the reference interpreter: the losses
//! (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss with its log_prob),
//! ScatterElements / ScatterND (every reduction, negative indices,
//! duplicates), GatherND (batch dims), TopK (ties, NaN, both directions),
//! Trilu, EyeLike and OneHot, over random shapes and
//! values; out-of-range indices must be reported, not read.

mod common;

use common::*;
use edgec_kernels::index::{one_hot, scatter};
use edgec_kernels::select::top_k;
use edgec_kernels::{generate, loss};
use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// The interpreter's results of `op` (panics if it rejects the case).
fn run(op: Opcode, inputs: &[Option<Tensor>], attrs: Attrs, n: usize) -> Vec<Tensor> {
    eval_op(op, inputs, attrs, n).unwrap_or_else(|e| panic!("interpreter rejected {op:?}: {e}"))
}

fn f32s(t: &Tensor) -> Vec<f32> {
    match &t.data {
        Data::F32(v) => v.clone(),
        d => panic!("expected f32, got {:?}", d.dtype()),
    }
}

fn i64s(t: &Tensor) -> Vec<i64> {
    match &t.data {
        Data::I64(v) => v.clone(),
        d => panic!("expected i64, got {:?}", d.dtype()),
    }
}

fn ti(shape: &[usize], v: Vec<i64>) -> Option<Tensor> {
    Some(Tensor::new(shape.to_vec(), Data::I64(v)))
}

/// `n` deterministic integers in `lo..hi` from `seed`.
fn rand_ints(n: usize, seed: u64, lo: i64, hi: i64) -> Vec<i64> {
    let mut s = seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + ((s >> 11) % (hi - lo).max(1) as u64) as i64
        })
        .collect()
}

fn numel(s: &[usize]) -> usize {
    s.iter().product()
}

fn attrs(items: &[(&str, Attr)]) -> Attrs {
    let mut a = Attrs::new();
    for (k, v) in items {
        a.set(*k, v.clone());
    }
    a
}

#[derive(Clone, Debug)]
struct LossCase {
    shape: Vec<usize>,
    weight: bool,
    ignore: Option<i64>,
    reduction: &'static str,
    seed: u64,
}

fn loss_case() -> impl Strategy<Value = LossCase> {
    (
        1usize..4,
        1usize..5,
        prop::collection::vec(1usize..4, 0..3),
        any::<bool>(),
        prop::option::of(-1i64..4),
        prop_oneof![Just("none"), Just("sum"), Just("mean")],
        any::<u64>(),
    )
        .prop_map(|(n, c, d, weight, ignore, reduction, seed)| {
            let shape = [vec![n, c], d].concat();
            LossCase { shape, weight, ignore, reduction, seed }
        })
}

impl LossCase {
    /// Targets in range, plus the ignored value where there is one.
    fn targets(&self) -> Vec<i64> {
        let c = self.shape[1] as i64;
        let tlen = numel(&self.shape) / self.shape[1];
        let mut t = rand_ints(tlen, self.seed ^ 7, 0, c);
        if let Some(ig) = self.ignore {
            t.iter_mut().step_by(3).for_each(|v| *v = ig);
        }
        t
    }
    fn check(&self, sce: bool) {
        let s = &self.shape;
        let x = values(numel(s), self.seed);
        let w: Vec<f32> = values(s[1], self.seed ^ 3).iter().map(|v| v.abs() + 0.25).collect();
        let tg = self.targets();
        let tshape: Vec<usize> = s.iter().enumerate().filter(|&(i, _)| i != 1).map(|(_, &d)| d).collect();
        let mut a = vec![("reduction", Attr::Str(self.reduction.into()))];
        if let Some(ig) = self.ignore {
            a.push(("ignore_index", Attr::Int(ig)));
        }
        let op = if sce { Opcode::SoftmaxCrossEntropyLoss } else { Opcode::NegativeLogLikelihoodLoss };
        let inputs = [t_(s, &x), ti(&tshape, tg.clone()), self.weight.then(|| t(&[s[1]], w.clone()).unwrap())];
        let want = run(op, &inputs, attrs(&a), if sce { 2 } else { 1 });
        let p = loss::Loss {
            shape: s,
            weight: self.weight.then_some(&w[..]),
            ignore_index: self.ignore,
            reduction: match self.reduction {
                "none" => loss::Reduction::None,
                "sum" => loss::Reduction::Sum,
                _ => loss::Reduction::Mean,
            },
        };
        let mut got = vec![0f32; p.out_len()];
        if sce {
            let mut scratch = vec![0f32; loss::softmax_cross_entropy_scratch_len(s)];
            loss::softmax_cross_entropy(&p, &x, &tg, &mut got, &mut scratch);
            let mut logp = vec![0f32; x.len()];
            loss::log_softmax_classes(s, &x, &mut logp);
            assert_close(&logp, &f32s(&want[1]), "log_prob");
        } else {
            loss::nll_loss(&p, &x, &tg, &mut got);
        }
        assert_eq!(want[0].shape.iter().product::<usize>(), got.len(), "loss shape");
        assert_close(&got, &f32s(&want[0]), "loss");
    }
}

fn t_(shape: &[usize], v: &[f32]) -> Option<Tensor> {
    t(shape, v.to_vec())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn nll_loss_matches(c in loss_case()) {
        c.check(false);
    }

    #[test]
    fn softmax_cross_entropy_matches(c in loss_case()) {
        c.check(true);
    }
}

#[test]
#[should_panic(expected = "target value 5 is out of range")]
fn nll_loss_rejects_out_of_range_targets() {
    let p = loss::Loss { shape: &[1, 3], weight: None, ignore_index: None, reduction: loss::Reduction::Sum };
    loss::nll_loss(&p, &[0.0; 3], &[5i64], &mut [0.0]);
}

/// A shape of rank 1..=3 with dims 1..=4.
fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..5, 1..4)
}

fn reduction() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("none"), Just("add"), Just("mul"), Just("max"), Just("min")]
}

fn combine_f32(r: &str) -> fn(f32, f32) -> f32 {
    match r {
        "none" => scatter::overwrite,
        "add" => scatter::ScatterReduction::Add.combine(),
        "mul" => scatter::ScatterReduction::Mul.combine(),
        "max" => scatter::ScatterReduction::Max.combine(),
        _ => scatter::ScatterReduction::Min.combine(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn scatter_elements_matches(s in shape(), ax in 0usize..3, shrink in prop::collection::vec(0usize..3, 3), r in reduction(), seed in any::<u64>()) {
        let ax = ax % s.len();
        let is: Vec<usize> = s.iter().enumerate().map(|(d, &n)| if d == ax { 1 + shrink[d] } else { (n - shrink[d].min(n - 1)).max(1) }).collect();
        let n = s[ax] as i64;
        let idx = rand_ints(numel(&is), seed, -n, n);
        let (x, u) = (values(numel(&s), seed ^ 1), values(numel(&is), seed ^ 2));
        let a = attrs(&[("axis", Attr::Int(ax as i64)), ("reduction", Attr::Str(r.into()))]);
        let want = run(Opcode::ScatterElements, &[t_(&s, &x), ti(&is, idx.clone()), t_(&is, &u)], a, 1);
        let mut y = vec![0f32; x.len()];
        scatter::scatter_elements(&s, ax, &x, &is, &idx, &u, combine_f32(r), &mut y);
        assert_close(&y, &f32s(&want[0]), "scatter_elements");
        // The run-time shape check accepts exactly what fits.
        prop_assert!(scatter::scatter_check(&s, Some(ax), &is, &is).is_ok());
        let mut wide = is.clone();
        wide[(ax + 1) % s.len()] = s[(ax + 1) % s.len()] + 1;
        prop_assert_eq!(scatter::scatter_check(&s, Some(ax), &wide, &wide).is_ok(), s.len() == 1);
        prop_assert!(scatter::scatter_check(&s, Some(ax), &is, &[is.clone(), vec![1]].concat()).is_err());
    }

    #[test]
    fn scatter_nd_matches(s in shape(), k in 1usize..4, rows in prop::collection::vec(1usize..4, 0..2), r in reduction(), seed in any::<u64>()) {
        let k = k.min(s.len());
        let is = [rows.clone(), vec![k]].concat();
        let us = [rows, s[k..].to_vec()].concat();
        let mut idx = Vec::new();
        for row in 0..numel(&is) / k {
            for (j, &d) in s[..k].iter().enumerate() {
                idx.push(rand_ints(1, seed ^ (row * 8 + j) as u64, -(d as i64), d as i64)[0]);
            }
        }
        let (x, u) = (values(numel(&s), seed ^ 1), values(numel(&us), seed ^ 2));
        let a = attrs(&[("reduction", Attr::Str(r.into()))]);
        let want = run(Opcode::ScatterND, &[t_(&s, &x), ti(&is, idx.clone()), t_(&us, &u)], a, 1);
        let mut y = vec![0f32; x.len()];
        scatter::scatter_nd(&s, &x, &is, &idx, &u, combine_f32(r), &mut y);
        assert_close(&y, &f32s(&want[0]), "scatter_nd");
        prop_assert!(scatter::scatter_check(&s, None, &is, &us).is_ok());
        prop_assert!(scatter::scatter_check(&s, None, &is, &[us.clone(), vec![2]].concat()).is_err());
        prop_assert!(scatter::scatter_check(&s, None, &[is[..is.len() - 1].to_vec(), vec![s.len() + 1]].concat(), &us).is_err());
    }

    #[test]
    fn gather_nd_matches(s in prop::collection::vec(1usize..4, 2..4), b in 0usize..2, k in 1usize..3, rows in 1usize..4, seed in any::<u64>()) {
        let b = b.min(s.len() - 1);
        let k = k.min(s.len() - b);
        let is = [s[..b].to_vec(), vec![rows, k]].concat();
        let idx: Vec<i64> = (0..numel(&is)).map(|f| {
            let d = s[b + f % k] as i64;
            rand_ints(1, seed ^ f as u64, -d, d)[0]
        }).collect();
        let x: Vec<i64> = (0..numel(&s) as i64).collect();
        let a = attrs(&[("batch_dims", Attr::Int(b as i64))]);
        let want = run(Opcode::GatherND, &[ti(&s, x.clone()), ti(&is, idx.clone())], a, 1);
        let mut y = vec![0i64; numel(&want[0].shape)];
        scatter::gather_nd(&s, b, &x, &is, &idx, &mut y);
        prop_assert_eq!(y, i64s(&want[0]));
    }

    #[test]
    fn top_k_matches(s in shape(), ax in 0usize..3, k in 0usize..5, largest in any::<bool>(), nan in any::<bool>(), seed in any::<u64>()) {
        let ax = ax % s.len();
        let k = k.min(s[ax]);
        // Few distinct values: many ties.
        let mut x: Vec<f32> = values(numel(&s), seed).iter().map(|v| (v * 0.5).round()).collect();
        if nan {
            x.iter_mut().step_by(4).for_each(|v| *v = f32::NAN);
        }
        let a = attrs(&[("axis", Attr::Int(ax as i64)), ("largest", Attr::Int(largest as i64))]);
        let want = run(Opcode::TopK, &[t_(&s, &x), ti(&[1], vec![k as i64])], a, 2);
        let p = top_k::TopK { shape: &s, axis: ax, k, largest };
        let n = numel(&want[0].shape);
        let (mut v, mut i) = (vec![0f32; n], vec![0i64; n]);
        top_k::top_k_values(&p, &x, &mut v);
        top_k::top_k_indices(&p, &x, &mut i);
        assert_close(&v, &f32s(&want[0]), "top_k values");
        prop_assert_eq!(i, i64s(&want[1]));
    }

    #[test]
    fn trilu_matches(s in prop::collection::vec(1usize..5, 2..4), upper in any::<bool>(), k in -4i64..5, seed in any::<u64>()) {
        let x = values(numel(&s), seed);
        let a = attrs(&[("upper", Attr::Int(upper as i64))]);
        let want = run(Opcode::Trilu, &[t_(&s, &x), ti(&[], vec![k])], a, 1);
        let mut y = vec![9f32; x.len()];
        generate::trilu(&s, upper, k, 0.0, &x, &mut y);
        assert_close(&y, &f32s(&want[0]), "trilu");
    }

    #[test]
    fn eye_like_matches(rows in 1usize..6, cols in 1usize..6, k in -6i64..7) {
        let want = run(Opcode::EyeLike, &[t_(&[rows, cols], &vec![0.0; rows * cols])], attrs(&[("k", Attr::Int(k))]), 1);
        let mut y = vec![9f32; rows * cols];
        generate::eye_like(rows, cols, k, 1.0, 0.0, &mut y);
        assert_close(&y, &f32s(&want[0]), "eye_like");
    }

    #[test]
    fn one_hot_matches(s in prop::collection::vec(1usize..4, 0..3), ax in 0usize..4, depth in 1usize..5, seed in any::<u64>()) {
        let ax = ax % (s.len() + 1);
        let d = depth as i64;
        let idx = rand_ints(numel(&s), seed, -d - 1, d + 2);
        let vals = [-1.5f32, 2.5];
        let a = attrs(&[("axis", Attr::Int(ax as i64))]);
        let want = run(Opcode::OneHot, &[ti(&s, idx.clone()), ti(&[], vec![d]), t_(&[2], &vals)], a, 1);
        let mut y = vec![0f32; numel(&want[0].shape)];
        one_hot::one_hot(&s, ax, depth, &idx, &vals, &mut y);
        assert_close(&y, &f32s(&want[0]), "one_hot");
    }
}

#[test]
#[should_panic(expected = "ScatterElements: index 3 is out of range")]
fn scatter_elements_rejects_out_of_range_indices() {
    let mut y = [0f32; 3];
    scatter::scatter_elements(&[3], 0, &[1.0; 3], &[1], &[3i64], &[2.0], scatter::overwrite, &mut y);
}

#[test]
#[should_panic(expected = "GatherND: index -3 is out of range")]
fn gather_nd_rejects_out_of_range_indices() {
    let mut y = [0f32; 1];
    scatter::gather_nd(&[2], 0, &[1.0; 2], &[1, 1], &[-3i64], &mut y);
}

#[test]
#[should_panic(expected = "ScatterND: index 2 is out of range")]
fn scatter_nd_rejects_out_of_range_indices() {
    let mut y = [0i64; 4];
    scatter::scatter_nd(&[2, 2], &[0; 4], &[1, 2], &[0i32, 2], &[5], scatter::overwrite, &mut y);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn reverse_sequence_matches(s in prop::collection::vec(1usize..5, 2..4), swap in any::<bool>(), seed in any::<u64>()) {
        let (b, t) = if swap { (0, 1) } else { (1, 0) };
        let lens = rand_ints(s[b], seed, 0, s[t] as i64 + 1);
        let x = values(numel(&s), seed ^ 1);
        let a = attrs(&[("batch_axis", Attr::Int(b as i64)), ("time_axis", Attr::Int(t as i64))]);
        let want = run(Opcode::ReverseSequence, &[t_(&s, &x), ti(&[s[b]], lens.clone())], a, 1);
        let mut y = vec![0f32; x.len()];
        edgec_kernels::layout::reverse_sequence(&s, b, t, &lens, &x, &mut y);
        assert_close(&y, &f32s(&want[0]), "reverse_sequence");
    }

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

#[test]
#[should_panic(expected = "ReverseSequence: sequence length 4 is out of range")]
fn reverse_sequence_rejects_long_sequences() {
    let mut y = [0f32; 6];
    edgec_kernels::layout::reverse_sequence(&[3, 2], 1, 0, &[1i64, 4], &[0.0; 6], &mut y);
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn grid_sample_matches(
        n in 1usize..3, c in 1usize..3, dims in prop::collection::vec(1usize..5, 1..4), outs in prop::collection::vec(1usize..4, 1..3),
        mode in 0usize..3, padding in 0usize..3, align in any::<bool>(), seed in any::<u64>(),
    ) {
        use edgec_kernels::resample::grid::{self, GridMode, GridPadding};
        let r = dims.len();
        let out: Vec<usize> = (0..r).map(|i| outs[i % outs.len()]).collect();
        let xs = [vec![n, c], dims.clone()].concat();
        let gs = [vec![n], out.clone(), vec![r]].concat();
        let x = values(numel(&xs), seed);
        // Normalized coordinates in about [-1.6, 1.6], some outside the image.
        let g: Vec<f32> = values(numel(&gs), seed ^ 3).iter().map(|v| v * 0.8 + 0.05).collect();
        let (m, mn) = [(GridMode::Nearest, "nearest"), (GridMode::Linear, "linear"), (GridMode::Cubic, "cubic")][mode];
        let (pd, pn) = [(GridPadding::Zeros, "zeros"), (GridPadding::Border, "border"), (GridPadding::Reflection, "reflection")][padding];
        let a = attrs(&[("mode", Attr::Str(mn.into())), ("padding_mode", Attr::Str(pn.into())), ("align_corners", Attr::Int(align as i64))]);
        let want = run(Opcode::GridSample, &[t_(&xs, &x), t_(&gs, &g)], a, 1);
        let p = grid::GridSample { n, c, dims: &dims, outs: numel(&out), mode: m, padding: pd, align_corners: align };
        let mut y = vec![0f32; n * c * numel(&out)];
        grid::grid_sample(&p, &x, &g, &mut y);
        assert_close(&y, &f32s(&want[0]), "grid_sample");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn dft_matches(
        dims in prop::collection::vec(1usize..6, 1..3), parts in 1usize..3, ax in 0usize..2,
        len in prop::option::of(1usize..8), inverse in any::<bool>(), onesided in any::<bool>(), seed in any::<u64>(),
    ) {
        let a = ax % dims.len();
        // RFFT takes a real input, IRFFT a complex one (and a default length of at least 1).
        let parts = match (onesided, inverse) {
            (true, false) => 1,
            (true, true) => 2,
            _ => parts,
        };
        prop_assume!(!(onesided && inverse && len.is_none() && dims[a] < 2));
        let m = dims[a];
        let n = len.unwrap_or(if inverse && onesided { 2 * (m - 1) } else { m });
        let out_len = if onesided && !inverse { n / 2 + 1 } else { n };
        let xs = [dims.clone(), vec![parts]].concat();
        let x = values(numel(&xs), seed);
        let mut dims_nd = dims.clone();
        dims_nd.insert(0, 1);
        let xs_nd = [dims_nd.clone(), vec![parts]].concat();
        let at = attrs(&[("axis", Attr::Int(a as i64 + 1)), ("inverse", Attr::Int(inverse as i64)), ("onesided", Attr::Int(onesided as i64))]);
        let dl = len.map(|l| ti(&[], vec![l as i64]).unwrap());
        let want = run(Opcode::DFT, &[t_(&xs_nd, &x), dl], at, 1);
        let p = edgec_kernels::signal::dft::Dft { dims: &dims_nd, parts, axis: a + 1, n, out_len, inverse, irfft: inverse && onesided };
        let mut y = vec![0f32; numel(&want[0].shape)];
        edgec_kernels::signal::dft::dft(&p, &x, &mut y);
        assert_close(&y, &f32s(&want[0]), "dft");
    }
}
