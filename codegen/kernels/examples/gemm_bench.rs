//! GEMM micro-benchmark: single-threaded GFLOP/s of `edgec_kernels::gemm`
//! at several sizes against this core's measured FMA peak (a dependency-free
//! FMA loop). Run in release:
//!
//! ```text
//! cargo run --release -p edgec-kernels --example gemm_bench [-- --isa avx2|avx512|scalar]
//! ```
//!
//! Prints one `size=... gflops=...` line per size, then `gemm_gflops=...`
//! (512×512×512), `peak_gflops=...` and `ratio=...`, each on its own line.
#![allow(unsafe_code)] // the peak loop uses SIMD intrinsics

use edgec_kernels::gemm::{self, Epilogue, Gemm, Isa, PackedB};
use std::hint::black_box;
mod bench_util;
use bench_util::best_time;

/// Deterministic pseudo-random values in [-1, 1).
fn fill(n: usize, seed: u64) -> Vec<f32> {
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

/// GFLOP/s of `sgemm` (or `sgemm_packed` if `packed`) at m×n×k.
fn gemm_gflops(m: usize, n: usize, k: usize, packed: bool) -> f64 {
    let (a, b) = (fill(m * k, 1), fill(k * n, 2));
    let mut c = vec![0.0f32; m * n];
    let g = Gemm { m, n, k, trans_a: false, trans_b: false };
    let ep = Epilogue::default();
    let secs = if packed {
        let pb = PackedB::new(&b, k, n, false);
        let mut scratch = vec![0.0f32; gemm::packed_scratch_len(m, &pb)];
        best_time(|| gemm::sgemm_packed(m, black_box(&a), &pb, &mut c, &ep, &mut scratch), 15)
    } else {
        let mut scratch = vec![0.0f32; gemm::scratch_len(&g)];
        best_time(|| gemm::sgemm(&g, black_box(&a), black_box(&b), &mut c, &ep, &mut scratch), 15)
    };
    black_box(&c);
    2.0 * (m * n * k) as f64 / secs / 1e9
}

#[cfg(target_arch = "x86_64")]
mod peak {
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
mod peak {
    /// Not measured on this architecture.
    pub fn gflops() -> (f64, &'static str) {
        (0.0, "unmeasured")
    }
}

/// Benchmarked sizes (m, n, k): square, a ViT-B linear layer, a ResNet 3×3
/// conv as GEMM, a matrix-vector product.
const SIZES: &[(usize, usize, usize)] = &[
    (512, 512, 512),
    (256, 256, 256),
    (1024, 1024, 1024),
    (128, 128, 128),
    (197, 768, 768),
    (64, 3136, 576),
    (1, 4096, 1024),
];

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let isa = match args.iter().position(|a| a == "--isa").and_then(|i| args.get(i + 1)).map(String::as_str) {
        Some("scalar") => Isa::Scalar,
        Some("avx2") => Isa::Avx2,
        Some("avx512") => Isa::Avx512,
        Some("neon") => Isa::Neon,
        Some(other) => panic!("unknown --isa {other}"),
        None => gemm::detected(),
    };
    gemm::with_isa(isa, || {
        println!("isa={isa:?}");
        let (mut main, mut main_packed) = (0.0, 0.0);
        let peak_before = peak::gflops();
        for &(m, n, k) in SIZES {
            let g = gemm_gflops(m, n, k, false);
            let gp = gemm_gflops(m, n, k, true);
            println!("size={m}x{n}x{k} gflops={g:.1} packed_b_gflops={gp:.1}");
            if (m, n, k) == (512, 512, 512) {
                (main, main_packed) = (g, gp);
            }
        }
        // The peak is measured before and after; the better one is the
        // machine's (the other may have lost time slices).
        let (peak_after, kind) = peak::gflops();
        let peak = peak_before.0.max(peak_after);
        println!("peak_kind={kind}");
        println!("gemm_gflops={main:.1}");
        println!("packed_b_gemm_gflops={main_packed:.1}");
        println!("peak_gflops={peak:.1}");
        println!("ratio={:.3}", if peak > 0.0 { main / peak } else { 0.0 });
    });
}
