//! Timing, data and the measured FMA peak shared by the kernel
//! micro-benchmarks.
#![allow(unsafe_code)] // the peak loop uses SIMD intrinsics
#![allow(dead_code)] // each benchmark uses a part

use std::time::Instant;

/// Best time (seconds) of `reps` timed batches of `f`, each batch running
/// long enough (≥ ~20 ms) to be measurable. The best of many short batches
/// filters out time slices lost to other processes on a shared machine.
pub fn best_time(mut f: impl FnMut(), reps: usize) -> f64 {
    f();
    let t = Instant::now();
    f();
    let once = t.elapsed().as_secs_f64().max(1e-7);
    let inner = ((0.02 / once) as usize).max(1);
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..inner {
            f();
        }
        best = best.min(t.elapsed().as_secs_f64() / inner as f64);
    }
    best
}

/// Deterministic pseudo-random values in [-1, 1).
pub fn fill(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect()
}

#[cfg(target_arch = "x86_64")]
pub mod peak {
    use std::arch::x86_64::*;

    /// Independent accumulators: enough to cover FMA latency × throughput.
    const ACC: usize = 16;

    #[target_feature(enable = "avx512f")]
    fn loop512(iters: usize) -> f32 {
        let (x, y) = (_mm512_set1_ps(0.999_99), _mm512_set1_ps(1e-3));
        let mut acc = [_mm512_set1_ps(1.0); ACC];
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = _mm512_fmadd_ps(*a, x, y);
            }
        }
        acc.iter().map(|&a| _mm512_reduce_add_ps(a)).sum()
    }

    #[target_feature(enable = "avx2,fma")]
    fn loop256(iters: usize) -> f32 {
        let (x, y) = (_mm256_set1_ps(0.999_99), _mm256_set1_ps(1e-3));
        let mut acc = [_mm256_set1_ps(1.0); ACC];
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = _mm256_fmadd_ps(*a, x, y);
            }
        }
        let mut out = [0.0f32; 8];
        // SAFETY: `out` holds exactly 8 f32s.
        unsafe {
            _mm256_storeu_ps(out.as_mut_ptr(), acc.iter().fold(_mm256_setzero_ps(), |s, &a| _mm256_add_ps(s, a)))
        };
        out.iter().sum()
    }

    /// Peak GFLOP/s of the widest FMA this CPU has and `EDGEC_SIMD_LEVEL`
    /// allows (and its name).
    pub fn gflops() -> (f64, &'static str) {
        let iters = 200_000;
        let level = edgec_kernels::simd::level();
        if level >= 3 && is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F (checked just above).
            let secs =
                super::best_time(|| _ = std::hint::black_box(unsafe { loop512(std::hint::black_box(iters)) }), 15);
            let avx512 = (iters * ACC * 16 * 2) as f64 / secs / 1e9;
            (avx512.max(avx2()), "avx512")
        } else if level >= 2 && is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") {
            (avx2(), "avx2")
        } else {
            (0.0, "none")
        }
    }

    fn avx2() -> f64 {
        let iters = 200_000;
        if !(is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma")) {
            return 0.0;
        }
        // SAFETY: the CPU has AVX2 and FMA (checked just above).
        let secs = super::best_time(|| _ = std::hint::black_box(unsafe { loop256(std::hint::black_box(iters)) }), 15);
        (iters * ACC * 8 * 2) as f64 / secs / 1e9
    }
}

#[cfg(not(target_arch = "x86_64"))]
pub mod peak {
    /// Not measured on this architecture.
    pub fn gflops() -> (f64, &'static str) {
        (0.0, "unmeasured")
    }
}
