//! The fused integer ops that stand for a float op between QDQ pairs, per
//! element by `edgec_numeric::quant` (so bit for bit the interpreter's):
//! `quant.add` / `quant.mul` (`qadd` / `qmul`: the unfused ops' own f32
//! steps; B equal to A or broadcast along A's leading and trailing dims:
//! element `i` of A meets element `(i / block) % len(B)` of B) and `quant.global_avg_pool`
//! (exact i32 plane sums, requantized at `mean_scale`) and `quant.lut` (a
//! 256-entry table: any elementwise unary op between two grids). One pass over bytes
//! where dequantize → f32 op → quantize makes three over f32 tensors.

use edgec_numeric::act::Activation;
use edgec_numeric::quant::{mean_scale, qadd, qmul, qsub, requantize_act};

/// The per-tensor grids of a `quant.add` / `quant.mul`.
#[derive(Copy, Clone, Debug)]
pub struct QGrids {
    /// A's scale.
    pub a_scale: f32,
    /// A's zero point.
    pub a_zero: i32,
    /// B's scale.
    pub b_scale: f32,
    /// B's zero point.
    pub b_zero: i32,
    /// The result's scale.
    pub y_scale: f32,
    /// The result's zero point.
    pub y_zero: i32,
    /// The result's lower clamp (at least the type's minimum; the zero point
    /// for a fused Relu).
    pub y_min: i32,
}

/// Which fused binary op.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum QBinary {
    /// `quant.add`.
    Add,
    /// `quant.sub`.
    Sub,
    /// `quant.mul`.
    Mul,
}

/// An element type the fused ops run on.
pub trait QElem: Copy {
    /// `y[i] = op(a[i], b[(i / block) % b.len()])`.
    fn binary(op: QBinary, p: &QGrids, a: &[Self], b: &[Self], block: usize, y: &mut [Self]);
    /// `y[p] = mean of plane p of x`, on the grids `(sx, zx)` → `(sy, zy)`.
    fn mean(sx: f32, zx: i32, sy: f32, zy: i32, plane: usize, x: &[Self], y: &mut [Self]);
}

/// One op over `a` against `b` broadcast by blocks (`block == 1`: zipped).
macro_rules! blocks {
    ($f:ident, $t:ty, $p:ident, $a:ident, $b:ident, $block:ident, $y:ident, $lo:expr, $hi:expr) => {{
        let p = $p;
        let lo = p.y_min.clamp($lo, $hi);
        let q = |x: $t, w: $t| {
            $f(x as i32, p.a_zero, p.a_scale, w as i32, p.b_zero, p.b_scale, p.y_scale, p.y_zero, lo, $hi) as $t
        };
        if $block == 1 {
            for (ys, xs) in $y.chunks_mut($b.len()).zip($a.chunks($b.len())) {
                for ((o, &x), &w) in ys.iter_mut().zip(xs).zip($b) {
                    *o = q(x, w);
                }
            }
        } else {
            for ((ys, xs), &w) in $y.chunks_mut($block).zip($a.chunks($block)).zip($b.iter().cycle()) {
                for (o, &x) in ys.iter_mut().zip(xs) {
                    *o = q(x, w);
                }
            }
        }
    }};
}

macro_rules! elem {
    ($t:ty, $bin:ident, $mean:ident, $lo:expr, $hi:expr) => {
        crate::multiversion! {
            fn $bin(op: QBinary, p: &QGrids, a: &[$t], b: &[$t], block: usize, y: &mut [$t]) {
                match op {
                    QBinary::Add => blocks!(qadd, $t, p, a, b, block, y, $lo, $hi),
                    QBinary::Sub => blocks!(qsub, $t, p, a, b, block, y, $lo, $hi),
                    QBinary::Mul => blocks!(qmul, $t, p, a, b, block, y, $lo, $hi),
                }
            }
        }
        crate::multiversion! {
            fn $mean(sx: f32, zx: i32, sy: f32, zy: i32, plane: usize, x: &[$t], y: &mut [$t]) {
                let scale = mean_scale(sx, plane);
                if plane == 0 {
                    let v = requantize_act(0, scale, Activation::None, sy, zy, $lo, $hi) as $t;
                    return y.fill(v);
                }
                let bias = zx.wrapping_mul(plane as i32);
                for (o, xs) in y.iter_mut().zip(x.chunks(plane)) {
                    let sum = xs.iter().fold(0i32, |s, &v| s.wrapping_add(v as i32));
                    *o = requantize_act(sum.wrapping_sub(bias), scale, Activation::None, sy, zy, $lo, $hi) as $t;
                }
            }
        }
        impl QElem for $t {
            fn binary(op: QBinary, p: &QGrids, a: &[$t], b: &[$t], block: usize, y: &mut [$t]) {
                $bin(op, p, a, b, block, y)
            }
            fn mean(sx: f32, zx: i32, sy: f32, zy: i32, plane: usize, x: &[$t], y: &mut [$t]) {
                $mean(sx, zx, sy, zy, plane, x, y)
            }
        }
    };
}
elem!(u8, binary_u8, mean_u8, 0, 255);
elem!(i8, binary_i8, mean_i8, -128, 127);

/// The block of `quant_binary` for the shapes of A and B
/// (`edgec_numeric::quant::broadcast_block`), or why there is none.
pub fn broadcast_block(a: &[usize], b: &[usize]) -> Result<usize, String> {
    edgec_numeric::quant::broadcast_block(a, b)
        .ok_or_else(|| format!("B {b:?} neither equals A {a:?} nor broadcasts along its leading and trailing dims"))
}

/// `y = Q(op(DQ(a), DQ(b)))`, `b` broadcast by `block` (asserted:
/// `a.len() == y.len()`, a multiple of `b.len() · block`, both non-zero
/// unless `y` is empty).
pub fn quant_binary<X: QElem>(op: QBinary, p: &QGrids, a: &[X], b: &[X], block: usize, y: &mut [X]) {
    if y.is_empty() && a.is_empty() {
        return;
    }
    let unit = b.len().saturating_mul(block);
    assert!(
        a.len() == y.len() && unit > 0 && y.len().is_multiple_of(unit),
        "quant.{op:?}: {} and {} (block {block}) elements into {}",
        a.len(),
        b.len(),
        y.len()
    );
    X::binary(op, p, a, b, block, y);
}

/// `quant.global_avg_pool` over planes of `plane` elements (asserted:
/// `x.len() == y.len() · plane`); an empty plane sums to 0, as in the
/// interpreter.
pub fn quant_global_avg_pool<X: QElem>(sx: f32, zx: i32, sy: f32, zy: i32, plane: usize, x: &[X], y: &mut [X]) {
    assert!(y.len().checked_mul(plane) == Some(x.len()), "quant.global_avg_pool: {} into {}", x.len(), y.len());
    X::mean(sx, zx, sy, zy, plane, x, y);
}

/// An 8-bit element as a table index: u8 as is, i8 + 128.
pub trait LutIndex: Copy {
    /// The index into a 256-entry table.
    fn index(self) -> usize;
}
impl LutIndex for u8 {
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}
impl LutIndex for i8 {
    #[inline]
    fn index(self) -> usize {
        (self as i32 + 128) as usize
    }
}

/// `quant.lut`: `y[i] = table[x[i]]` (asserted: one length, 256 entries).
pub fn quant_lut<X: LutIndex, Y: Copy>(x: &[X], table: &[Y], y: &mut [Y]) {
    assert!(
        x.len() == y.len() && table.len() == 256,
        "quant.lut: {} into {}, {} entries",
        x.len(),
        y.len(),
        table.len()
    );
    let table: &[Y; 256] = table.try_into().expect("256 entries");
    for (o, &v) in y.iter_mut().zip(x) {
        *o = table[v.index()];
    }
}

/// `quant.lut` with one 256-entry table per channel: `table` holds
/// `table.len() / 256` rows, and element `i` of `x` (`inner` elements per
/// channel and image) reads row `(i / inner) % rows`.
pub fn quant_lut_channels<X: LutIndex, Y: Copy>(x: &[X], table: &[Y], inner: usize, y: &mut [Y]) {
    let rows = table.len() / 256;
    if x.is_empty() && y.is_empty() {
        return;
    }
    assert!(
        x.len() == y.len()
            && rows > 0
            && table.len() == rows * 256
            && inner > 0
            && x.len().is_multiple_of(rows * inner),
        "quant.lut: {} into {}, {} entries, {inner} per channel",
        x.len(),
        y.len(),
        table.len()
    );
    for (k, (xs, ys)) in x.chunks(inner).zip(y.chunks_mut(inner)).enumerate() {
        let row: &[Y; 256] = table[k % rows * 256..][..256].try_into().expect("256 entries");
        for (o, &v) in ys.iter_mut().zip(xs) {
            *o = row[v.index()];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dq(v: i32, z: i32, s: f32) -> f32 {
        ((v as i64 - z as i64) as f64 * s as f64) as f32
    }
    fn q(v: f32, s: f32, z: i32, lo: f32, hi: f32) -> i32 {
        ((v / s).round_ties_even() + z as f32).clamp(lo, hi) as i32
    }

    /// The unfused steps, as the reference interpreter runs them.
    fn unfused(op: QBinary, p: &QGrids, a: i32, b: i32, lo: f32, hi: f32) -> i32 {
        let (da, db) = (dq(a, p.a_zero, p.a_scale), dq(b, p.b_zero, p.b_scale));
        let v = match op {
            QBinary::Add => da + db,
            QBinary::Sub => da - db,
            QBinary::Mul => da * db,
        };
        q(v, p.y_scale, p.y_zero, lo, hi)
    }

    #[test]
    fn per_channel_tables_read_each_channels_row() {
        // Two images of three channels with two elements each; row c maps v to v + c.
        let table: Vec<u8> = (0..3).flat_map(|c| (0..=255u8).map(move |v| v.wrapping_add(c))).collect();
        let x: Vec<u8> = (0..12).map(|i| 10 * i as u8).collect();
        let mut y = vec![0u8; 12];
        quant_lut_channels(&x, &table, 2, &mut y);
        assert_eq!(y, [0, 10, 21, 31, 42, 52, 60, 70, 81, 91, 102, 112]);
    }

    #[test]
    fn every_pair_equals_the_unfused_ops() {
        let p = QGrids {
            a_scale: 0.037,
            a_zero: 120,
            b_scale: 0.0113,
            b_zero: 7,
            y_scale: 0.041,
            y_zero: 90,
            y_min: i32::MIN,
        };
        let (a, b): (Vec<u8>, Vec<u8>) = (0..=255u8).flat_map(|x| (0..=255u8).map(move |w| (x, w))).unzip();
        for op in [QBinary::Add, QBinary::Sub, QBinary::Mul] {
            let mut y = vec![0u8; a.len()];
            quant_binary(op, &p, &a, &b, 1, &mut y);
            for i in 0..a.len() {
                assert_eq!(y[i] as i32, unfused(op, &p, a[i] as i32, b[i] as i32, 0.0, 255.0), "{op:?} {i}");
            }
            let (ai, bi): (Vec<i8>, Vec<i8>) = a.iter().zip(&b).map(|(&x, &w)| (x as i8, w as i8)).unzip();
            let pi = QGrids { a_zero: -8, b_zero: 3, y_zero: -20, ..p };
            let mut yi = vec![0i8; ai.len()];
            quant_binary(op, &pi, &ai, &bi, 1, &mut yi);
            for i in 0..ai.len() {
                assert_eq!(yi[i] as i32, unfused(op, &pi, ai[i] as i32, bi[i] as i32, -128.0, 127.0), "{op:?} {i}");
            }
        }
    }

    /// `y_min = y_zero` is `Q(Relu(op(DQ(a), DQ(b))))` on every pair.
    #[test]
    fn a_lower_clamp_at_the_zero_point_is_a_fused_relu() {
        let p =
            QGrids { a_scale: 0.037, a_zero: 120, b_scale: 0.0113, b_zero: 7, y_scale: 0.041, y_zero: 90, y_min: 90 };
        let (a, b): (Vec<u8>, Vec<u8>) = (0..=255u8).flat_map(|x| (0..=255u8).map(move |w| (x, w))).unzip();
        for op in [QBinary::Add, QBinary::Sub, QBinary::Mul] {
            let mut y = vec![0u8; a.len()];
            quant_binary(op, &p, &a, &b, 1, &mut y);
            let relu = |v: f32| if v < 0.0 { 0.0 } else { v };
            for i in 0..a.len() {
                let (da, db) = (dq(a[i] as i32, p.a_zero, p.a_scale), dq(b[i] as i32, p.b_zero, p.b_scale));
                let v = match op {
                    QBinary::Add => da + db,
                    QBinary::Sub => da - db,
                    QBinary::Mul => da * db,
                };
                assert_eq!(y[i] as i32, q(relu(v), p.y_scale, p.y_zero, 0.0, 255.0), "{op:?} {i}");
            }
            assert!(y.contains(&90) && y.iter().all(|&v| v >= 90), "the clamp never bit: the test could not fail");
        }
    }

    #[test]
    fn blocks_broadcast_b() {
        let p =
            QGrids { a_scale: 0.02, a_zero: 3, b_scale: 0.005, b_zero: 0, y_scale: 0.01, y_zero: 5, y_min: i32::MIN };
        let a: Vec<u8> = (0..60).map(|i| (i * 37 % 256) as u8).collect();
        let b: Vec<u8> = vec![0, 100, 200, 255];
        for op in [QBinary::Add, QBinary::Sub, QBinary::Mul] {
            let mut y = vec![0u8; 60];
            quant_binary(op, &p, &a, &b, 15, &mut y);
            for i in 0..60 {
                assert_eq!(y[i] as i32, unfused(op, &p, a[i] as i32, b[i / 15] as i32, 0.0, 255.0));
            }
            // Repeated: [3, 4, 5] against [4, 1] (block 5) and [4, 5] (block 1).
            for (bl, blk) in [(&b[..], 5), (&a[..20], 1)] {
                quant_binary(op, &p, &a, bl, blk, &mut y);
                for i in 0..60 {
                    let w = bl[(i / blk) % bl.len()] as i32;
                    assert_eq!(y[i] as i32, unfused(op, &p, a[i] as i32, w, 0.0, 255.0), "{i}");
                }
            }
        }
    }

    #[test]
    fn tables_index_by_the_biased_value() {
        let table: Vec<u8> = (0..=255u8).map(|v| v.wrapping_mul(3)).collect();
        let (mut a, mut b) = ([0u8; 4], [0u8; 4]);
        quant_lut(&[0u8, 1, 200, 255], &table, &mut a);
        quant_lut(&[-128i8, -127, 72, 127], &table, &mut b);
        assert_eq!(a, [0, 3, 88, 253]);
        assert_eq!(a, b);
    }

    #[test]
    fn means_sum_exactly_then_requantize() {
        let x: Vec<i8> = (0..3 * 49).map(|i| ((i * 91) % 256) as u8 as i8).collect();
        let mut y = vec![0i8; 3];
        quant_global_avg_pool(0.05, -4, 0.02, 6, 0, &[], &mut y);
        assert_eq!(y, [6; 3], "empty planes: the zero point");
        quant_global_avg_pool(0.05, -4, 0.02, 6, 49, &x, &mut y);
        for (c, &v) in y.iter().enumerate() {
            let sum: i32 = x[c * 49..(c + 1) * 49].iter().map(|&v| v as i32 + 4).sum();
            let want = requantize_act(sum, mean_scale(0.05, 49), Activation::None, 0.02, 6, -128, 127);
            assert_eq!(v as i32, want);
            // Within one step of the real mean's quantization.
            let real = sum as f64 * 0.05 / 49.0 / 0.02 + 6.0;
            assert!((v as f64 - real.clamp(-128.0, 127.0)).abs() <= 0.5 + 1e-4, "{v} vs {real}");
        }
    }
}
