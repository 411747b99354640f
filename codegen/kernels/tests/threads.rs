//! The worker pool, and kernels split across it: every result is
//! bit-identical to the single-threaded kernel's for any thread count (the
//! single-threaded kernels are checked against the interpreter elsewhere).
//! Operands are full-precision random floats here, so a split that changed
//! any element's summation order would show.

mod common;

use common::*;
use edgec_kernels::act::Act;
use edgec_kernels::conv::{self, Conv2d, ConvTranspose2d, PackedConv};
use edgec_kernels::gemm::{self, Bias, Epilogue, Gemm, PackedB};
use edgec_kernels::pool::{self, Pool2d};
use edgec_kernels::threads::{self, Pool};
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `f()` on 1, 2, 3 and 4 threads: every result equal bit for bit.
fn same_on_any_threads(what: &str, f: impl Fn() -> Vec<f32>) {
    let one = f();
    for n in 2..=4 {
        let pool = Pool::new(n).expect("threads");
        assert_eq!(pool.threads(), n);
        let got = pool.install(&f);
        let same = got.len() == one.len() && got.iter().zip(&one).all(|(a, b)| a.to_bits() == b.to_bits());
        assert!(same, "{what}: {n} threads differ from one");
    }
}

#[test]
fn every_task_runs_once_on_any_pool() {
    for n in 1..=4 {
        let pool = Pool::new(n).unwrap();
        for tasks in [0, 1, 2, 5, 64] {
            let hits: Vec<AtomicUsize> = (0..tasks).map(|_| AtomicUsize::new(0)).collect();
            pool.install(|| threads::run(tasks, &|t| _ = hits[t].fetch_add(1, Ordering::Relaxed)));
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1), "{n} threads, {tasks} tasks");
        }
    }
}

#[test]
fn pool_is_seen_only_inside_install_and_not_by_tasks() {
    assert_eq!(threads::current_threads(), 1);
    let pool = Pool::new(3).unwrap();
    pool.install(|| {
        assert_eq!(threads::current_threads(), 3);
        let inner = AtomicUsize::new(0);
        threads::run(4, &|_| _ = inner.fetch_max(threads::current_threads(), Ordering::Relaxed));
        assert_eq!(inner.load(Ordering::Relaxed), 1, "a task sees no pool (nested work runs inline)");
        assert_eq!(threads::current_threads(), 3);
    });
    assert_eq!(threads::current_threads(), 1);
}

#[test]
fn a_panicking_task_panics_the_caller_and_the_pool_survives() {
    let pool = Pool::new(2).unwrap();
    for bad in [0, 7] {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.install(|| threads::run(8, &|t| assert_ne!(t, bad, "task {t} fails")));
        }));
        assert!(r.is_err(), "task {bad}'s panic reached the caller");
    }
    let count = AtomicUsize::new(0);
    pool.install(|| threads::run(10, &|_| _ = count.fetch_add(1, Ordering::Relaxed)));
    assert_eq!(count.load(Ordering::Relaxed), 10);
}

#[test]
fn chunks_cover_the_slice() {
    let pool = Pool::new(3).unwrap();
    let mut v = vec![0usize; 103];
    pool.install(|| threads::for_each_chunk(&mut v, 10, 0, &|i, c, _| c.iter_mut().for_each(|x| *x += i + 1)));
    assert!(v.iter().enumerate().all(|(j, &x)| x == j / 10 + 1));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Big enough to split (≥ 2^18 multiply-adds), shapes not tile multiples.
    #[test]
    fn sgemm_is_bit_identical_on_any_threads(
        m in 1usize..=150, n in 1usize..=300, k in 16usize..=300,
        trans_a in any::<bool>(), trans_b in any::<bool>(), bias in 0u8..3, act in act_strategy(),
        seed in any::<u64>(),
    ) {
        let g = Gemm { m, n, k, trans_a, trans_b };
        let (a, b, bv) = (floats(m * k, seed), floats(k * n, seed + 1), floats(m.max(n), seed + 2));
        let bias = match bias { 0 => Bias::None, 1 => Bias::PerRow(&bv[..m]), _ => Bias::PerCol(&bv[..n]) };
        let ep = Epilogue { bias, act, ..Epilogue::default() };
        for isa in isas() {
            same_on_any_threads(&format!("{g:?} {act:?} [{isa:?}]"), || gemm::with_isa(isa, || {
                let mut c = vec![f32::NAN; m * n];
                let mut s = vec![f32::NAN; gemm::scratch_len(&g)];
                gemm::sgemm(&g, &a, &b, &mut c, &ep, &mut s);
                c
            }));
            let pb = gemm::with_isa(isa, || PackedB::new(&b, k, n, trans_b));
            same_on_any_threads(&format!("packed {g:?} [{isa:?}]"), || gemm::with_isa(isa, || {
                let mut c = vec![f32::NAN; m * n];
                let mut s = vec![f32::NAN; gemm::packed_scratch_len(m, &pb)];
                gemm::sgemm_packed(m, &a[..m * k], &pb, &mut c, &ep, &mut s);
                c
            }));
        }
    }

    /// Convolutions through every path (im2col, 1×1, direct, depthwise of
    /// each kind) on maps large enough to split.
    #[test]
    fn conv2d_is_bit_identical_on_any_threads(
        (c_in, c_out, groups) in prop_oneof![
            (1usize..=48, 1usize..=48).prop_map(|(a, b)| (a, b, 1)),
            (16usize..=80).prop_map(|c| (c, c, c)),
            (16usize..=40).prop_map(|c| (c, 2 * c, c)),
        ],
        k in prop_oneof![Just(1usize), Just(3), Just(5), Just(7)],
        stride in 1usize..=2, pad in 0usize..=2, hw in 8usize..=40, wide in 0usize..=70,
        batch in 1usize..=2, act in act_strategy(), seed in any::<u64>(),
    ) {
        let pad = pad.min(k - 1);
        let p = Conv2d {
            n: batch, c_in, c_out, h: hw, w: hw + wide, kh: k, kw: k,
            stride_h: stride, stride_w: stride, dil_h: 1, dil_w: 1,
            pad_top: pad, pad_left: pad, pad_bottom: pad, pad_right: pad, groups,
        };
        let x = floats(batch * c_in * p.h * p.w, seed);
        let w = floats(c_out * (c_in / groups) * k * k, seed + 1);
        let bias = floats(c_out, seed + 2);
        for isa in isas() {
            let pw = gemm::with_isa(isa, || PackedConv::new(&p, &w));
            same_on_any_threads(&format!("{p:?} {act:?} [{isa:?}]"), || gemm::with_isa(isa, || {
                let mut y = vec![f32::NAN; batch * c_out * p.out_h() * p.out_w()];
                let mut s = vec![f32::NAN; conv::conv2d_scratch_len(&p)];
                conv::conv2d(&p, &x, &pw, Some(&bias), act, &mut y, &mut s);
                y
            }));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Max and average pooling (padded, strided, dilated) split by planes.
    #[test]
    fn pool2d_is_bit_identical_on_any_threads(
        c in 1usize..=40, hw in 10usize..=40, k in 2usize..=9, stride in 1usize..=2, pad in 0usize..=2,
        avg in any::<bool>(), seed in any::<u64>(),
    ) {
        let pad = pad.min(k / 2);
        let out = |n: usize| (n + 2 * pad - k) / stride + 1;
        let p = Pool2d {
            n: 1, c, h: hw, w: hw + 3, kh: k, kw: k, stride_h: stride, stride_w: stride,
            pad_top: pad, pad_left: pad, pad_bottom: pad, pad_right: pad, dil_h: 1, dil_w: 1,
            out_h: out(hw), out_w: out(hw + 3),
        };
        let x = floats(c * p.h * p.w, seed);
        same_on_any_threads(&format!("{p:?} avg {avg}"), || {
            let mut y = vec![f32::NAN; c * p.out_h * p.out_w];
            if avg { pool::avg_pool2d(&p, true, &x, &mut y) } else { pool::max_pool2d(&p, &x, &mut y) }
            y
        });
    }
}

/// A transposed conv (the column scatter splits by output channel).
#[test]
fn conv_transpose2d_is_bit_identical_on_any_threads() {
    for (c_in, c_out, k, s) in [(16, 24, 2, 2), (8, 33, 3, 2), (24, 16, 4, 1)] {
        let p = ConvTranspose2d {
            n: 1,
            c_in,
            c_out,
            h: 20,
            w: 23,
            kh: k,
            kw: k,
            stride_h: s,
            stride_w: s,
            dil_h: 1,
            dil_w: 1,
            pad_top: 1,
            pad_left: 0,
            groups: 1,
            out_h: (20 - 1) * s + k - 1,
            out_w: (23 - 1) * s + k,
        };
        let (x, w, b) = (floats(c_in * 20 * 23, 1), floats(c_in * c_out * k * k, 2), floats(c_out, 3));
        same_on_any_threads(&format!("{p:?}"), || {
            let mut y = vec![f32::NAN; c_out * p.out_h * p.out_w];
            let mut s = vec![f32::NAN; conv::conv_transpose2d_scratch_len(&p)];
            conv::conv_transpose2d(&p, &x, &w, Some(&b), Act::None, &mut y, &mut s);
            y
        });
    }
}

/// Tasks really run on the workers, not only on the caller.
#[test]
fn tasks_run_on_every_thread() {
    let pool = Pool::new(2).unwrap();
    let seen = std::sync::Mutex::new(std::collections::BTreeSet::new());
    pool.install(|| {
        for _ in 0..50 {
            threads::run(4, &|_| {
                seen.lock().unwrap().insert(format!("{:?}", std::thread::current().id()));
                std::thread::sleep(std::time::Duration::from_micros(300));
            });
        }
    });
    assert_eq!(seen.lock().unwrap().len(), 2, "both threads ran tasks");
}
