//! Integer GEMM micro-benchmark: single-threaded GOP/s (2 ops per
//! multiply-accumulate) of `quant_conv2d` on a 1×1 conv (a GEMM with the
//! im2col packing and the requantize epilogue counted) at several sizes,
//! against this core's measured peak of the best int8 dot-product instruction
//! it has (a dependency-free loop of `vpdpbusd` on zmm with AVX-512 VNNI,
//! on ymm with AVX-VNNI; with other kernel families the family is named and
//! no peak is measured). Run:
//!
//! ```text
//! cargo run --release -p edgec-kernels --example qgemm_bench
//! ```
//!
//! Prints one `size=... gops=...` line per size, then `qgemm_gops=...`
//! (the largest size, best of a few rounds alternating with the peak's),
//! `reduced_gops=...` (the largest size with weights
//! within ±64, as `--reduce-range` writes them: AVX2 then multiplies bytes
//! through `vpmaddubsw`), `isa=...`, `peak_gops=...` and `ratio=...`.
#![allow(unsafe_code)] // the peak loop uses SIMD intrinsics

use edgec_kernels::conv::Conv2d;
use edgec_kernels::quant::qconv::{self, PackedQConv, QEpilogue, QReq};
use std::hint::black_box;
mod bench_util;
use bench_util::best_time;

/// GOP/s of an m×n×k integer GEMM as a 1×1 conv (`k` input channels, `m`
/// output channels, `n` positions), weights over all of i8 or within ±64.
fn qgemm_gops(m: usize, n: usize, k: usize, reduced: bool) -> f64 {
    let p = Conv2d {
        n: 1,
        c_in: k,
        h: 1,
        w: n,
        c_out: m,
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
    let hash = |i: usize| i.wrapping_mul(2654435761) >> 7;
    let w: Vec<i8> =
        (0..m * k).map(|i| if reduced { ((hash(i) % 129) as i32 - 64) as i8 } else { hash(i) as i8 }).collect();
    let x: Vec<u8> = (0..k * n).map(|i| (i.wrapping_mul(40503) >> 3) as u8).collect();
    let (mult, shift) = edgec_numeric::quant::quantize_multiplier(1e-4).expect("multiplier");
    let pw = PackedQConv::new(&p, &w, None, QEpilogue::Fixed { mult: &[mult], shift: &[shift] });
    let q = QReq { x_zero: 128, y_zero: 128, qmin: 0, qmax: 255 };
    let mut y = vec![0u8; m * n];
    let secs = best_time(|| qconv::quant_conv2d(&p, &q, &pw, black_box(&x), &mut y), 15);
    black_box(&y);
    2.0 * (m * n * k) as f64 / secs / 1e9
}

#[cfg(target_arch = "x86_64")]
mod peak {
    use std::arch::x86_64::*;

    /// Independent accumulators: enough to cover vpdpbusd latency × throughput.
    const ACC: usize = 16;

    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    fn dpbusd(iters: usize) -> i32 {
        // Opaque operands: the loop must not constant-fold.
        let (x, y) = (std::hint::black_box(_mm512_set1_epi8(3)), std::hint::black_box(_mm512_set1_epi8(-2)));
        let mut acc = [_mm512_setzero_si512(); ACC];
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = _mm512_dpbusd_epi32(*a, x, y);
            }
        }
        let mut s = _mm512_setzero_si512();
        for a in acc {
            s = _mm512_add_epi32(s, a);
        }
        _mm512_reduce_add_epi32(s)
    }

    /// The same loop on ymm (AVX-VNNI's VEX-coded `vpdpbusd`).
    #[target_feature(enable = "avx2,avxvnni")]
    fn dpbusd_ymm(iters: usize) -> i32 {
        let (x, y) = (std::hint::black_box(_mm256_set1_epi8(3)), std::hint::black_box(_mm256_set1_epi8(-2)));
        let mut acc = [_mm256_setzero_si256(); ACC];
        for _ in 0..iters {
            for a in acc.iter_mut() {
                *a = _mm256_dpbusd_avx_epi32(*a, x, y);
            }
        }
        let mut s = _mm256_setzero_si256();
        for a in acc {
            s = _mm256_add_epi32(s, a);
        }
        _mm256_extract_epi32::<0>(s)
    }

    /// GOP/s of `loop_(ITERS)`, which runs `ITERS · ACC` instructions of
    /// `macs` multiply-accumulates each.
    fn gops(macs: f64, loop_: impl Fn(usize) -> i32) -> f64 {
        let secs = super::best_time(
            || {
                std::hint::black_box(loop_(ITERS));
            },
            5,
        );
        2.0 * macs * (ITERS * ACC) as f64 / secs / 1e9
    }

    const ITERS: usize = 20_000_000 / ACC;

    /// Peak GOP/s of the ymm `vpdpbusd` (32 multiply-accumulates per instruction).
    pub fn avx_vnni_gops() -> Option<f64> {
        // SAFETY: the feature was detected first.
        is_x86_feature_detected!("avxvnni").then(|| gops(32.0, |n| unsafe { dpbusd_ymm(n) }))
    }

    /// Peak GOP/s of `vpdpbusd` (64 multiply-accumulates per instruction).
    pub fn vnni_gops() -> Option<f64> {
        let has = is_x86_feature_detected!("avx512vnni") && is_x86_feature_detected!("avx512bw");
        // SAFETY: the features were detected first.
        has.then(|| gops(64.0, |n| unsafe { dpbusd(n) }))
    }
}

fn main() {
    let sizes = [(64, 3136, 64), (128, 784, 576), (256, 196, 1152), (512, 512, 512)];
    for &(m, n, k) in &sizes[..sizes.len() - 1] {
        println!("size={m}x{n}x{k} gops={:.1}", qgemm_gops(m, n, k, false));
    }
    // The largest size and the peak alternate over a few rounds and the
    // best of each is kept, so a slow spell on a shared machine (its clock
    // moves by 10%) lowers both or neither rather than skewing their ratio.
    let (m, n, k) = sizes[sizes.len() - 1];
    let isa = qconv::detected();
    let (mut last, mut peak) = (0.0f64, None::<f64>);
    for _ in 0..ROUNDS {
        last = last.max(qgemm_gops(m, n, k, false));
        #[cfg(target_arch = "x86_64")]
        let p = match isa {
            qconv::Isa::Vnni512 => peak::vnni_gops(),
            qconv::Isa::AvxVnni => peak::avx_vnni_gops(),
            _ => None,
        };
        #[cfg(not(target_arch = "x86_64"))]
        let p = None;
        if let Some(p) = p {
            peak = Some(peak.map_or(p, |q| q.max(p)));
        }
    }
    println!("size={m}x{n}x{k} gops={last:.1}");
    println!("qgemm_gops={last:.1}");
    println!("reduced_gops={:.1}", qgemm_gops(m, n, k, true));
    println!("isa={isa:?}");
    if let Some(peak) = peak {
        println!("peak_gops={peak:.1}");
        println!("ratio={:.3}", last / peak);
    }
}

/// Alternating rounds of the largest size and the peak.
const ROUNDS: usize = 4;
