//! Depthwise 3×3 stride-1 convolution against its roofline, single-threaded.
//!
//! The bound of one layer is the slower of its arithmetic at this core's
//! measured FMA peak and its compulsory data movement (input read once,
//! output written once, weights) at the bandwidth this core reaches when
//! it streams a buffer of the same size through the same levels of the
//! memory hierarchy (a `memcpy` of the input's footprint, measured in the
//! same run). The ratio is `bound time / measured time`: 1.0 is a kernel
//! that computes as fast as the data can move. Run in release:
//!
//! ```text
//! cargo run --release -p edgec-kernels --example dw_bench
//! ```
//!
//! Prints one `layer=CxHxW ... ratio=...` line per MobileNet-class layer, then
//! `dw_min_ratio=...` (the worst layer: the gated figure) and
//! `dw_geomean_ratio=...`. Arguments `CxHxW ...` time those layers instead
//! (for profiling one shape).

use edgec_kernels::act::Act;
use edgec_kernels::conv::{self, Conv2d, PackedConv};
use std::hint::black_box;
mod bench_util;
use bench_util::{best_time, fill, peak};

/// MobileNet v2/v3-class depthwise layers (channels, height, width).
const LAYERS: &[(usize, usize, usize)] =
    &[(32, 112, 112), (96, 112, 112), (144, 56, 56), (192, 28, 28), (384, 14, 14), (576, 14, 14), (960, 7, 7)];

fn geometry(c: usize, h: usize, w: usize) -> Conv2d {
    let (k, s) = shape_env();
    Conv2d {
        n: 1,
        c_in: c,
        h,
        w,
        c_out: c,
        kh: k,
        kw: k,
        stride_h: s,
        stride_w: s,
        pad_top: k / 2,
        pad_left: k / 2,
        pad_bottom: k / 2,
        pad_right: k / 2,
        dil_h: 1,
        dil_w: 1,
        groups: c,
    }
}

/// Kernel side and stride: 3 and 1, or `DW_K` and `DW_S` from the
/// environment (for profiling other shapes; the gated figures are 3×3
/// stride 1).
fn shape_env() -> (usize, usize) {
    let get = |v: &str, d: usize| std::env::var(v).ok().and_then(|s| s.parse().ok()).unwrap_or(d);
    (get("DW_K", 3), get("DW_S", 1))
}

/// Seconds per depthwise layer (bias and ReLU fused, as in a MobileNet).
fn depthwise_secs(p: &Conv2d) -> f64 {
    let x = fill(p.c_in * p.h * p.w, 1);
    let w = PackedConv::new(p, &fill(p.c_out * p.kh * p.kw, 2));
    let bias = fill(p.c_out, 3);
    let mut y = vec![0.0f32; p.c_out * p.out_h() * p.out_w()];
    let mut scratch = vec![0.0f32; conv::conv2d_scratch_len(p)];
    // `DW_ACT=hardswish` for PP-LCNet/MobileNetV3-style layers.
    let act = if std::env::var("DW_ACT").is_ok_and(|a| a == "hardswish") { Act::HardSwish } else { Act::Relu };
    let secs = best_time(|| conv::conv2d(p, black_box(&x), &w, Some(&bias), act, &mut y, &mut scratch), 15);
    black_box(&y);
    secs
}

/// Bytes per second of copying `n` floats (one read, one write each) with
/// the C library's `memcpy`, the fastest stream this core runs.
fn stream_bytes_per_sec(n: usize) -> f64 {
    let x = fill(n, 4);
    let mut y = vec![0.0f32; n];
    let secs = best_time(|| y.copy_from_slice(black_box(&x)), 15);
    black_box(&y);
    (8 * n) as f64 / secs
}

fn main() {
    let (peak_gflops, kind) = peak::gflops();
    println!("peak_kind={kind} peak_gflops={peak_gflops:.1}");
    let (mut worst, mut log_sum) = (f64::INFINITY, 0.0);
    let layers = layers();
    for &(c, h, w) in &layers {
        let p = geometry(c, h, w);
        let secs = depthwise_secs(&p);
        let (elems, outs, taps) = (c * h * w, c * p.out_h() * p.out_w(), p.kh * p.kw);
        let flops = (2 * taps * outs) as f64;
        let bytes = (4 * (elems + outs) + 4 * (taps + 1) * c) as f64;
        let bw = stream_bytes_per_sec(elems);
        let bound = (bytes / bw).max(if peak_gflops > 0.0 { flops / (peak_gflops * 1e9) } else { 0.0 });
        let ratio = bound / secs;
        println!(
            "layer={c}x{h}x{w} us={:.1} gflops={:.1} stream_gbps={:.1} bound_us={:.1} ratio={ratio:.3}",
            secs * 1e6,
            flops / secs / 1e9,
            bw / 1e9,
            bound * 1e6
        );
        worst = worst.min(ratio);
        log_sum += ratio.ln();
    }
    println!("dw_min_ratio={worst:.3}");
    println!("dw_geomean_ratio={:.3}", (log_sum / layers.len() as f64).exp());
}

/// The layers named on the command line (`CxHxW`), or [`LAYERS`].
fn layers() -> Vec<(usize, usize, usize)> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.is_empty() {
        return LAYERS.to_vec();
    }
    let parse = |a: &str| -> Option<(usize, usize, usize)> {
        let d: Vec<usize> = a.split('x').map(|v| v.parse().ok()).collect::<Option<_>>()?;
        match d[..] {
            [c, h, w] if c * h * w > 0 => Some((c, h, w)),
            _ => None,
        }
    };
    args.iter()
        .map(|a| parse(a).unwrap_or_else(|| panic!("dw_bench: `{a}` is not a layer CxHxW (e.g. 32x112x112)")))
        .collect()
}
