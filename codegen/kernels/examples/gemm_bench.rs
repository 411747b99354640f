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
use edgec_kernels::gemm::{self, Epilogue, Gemm, Isa, PackedB};
use std::hint::black_box;
mod bench_util;
use bench_util::{best_time, fill, peak};

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
