//! Double-precision paths for models computed in f64: batched MatMul,
//! Softmax/LogSoftmax along one axis, and FlexAttention. Direct loops with
//! the reference interpreter's summation order (sequential from 0), so the
//! results match it to the last bits or within an f64 rounding.
//!
//! Invariants: row-major tensors; MatMul follows numpy (a 1-D operand is
//! promoted to a matrix and the added dim dropped, batch dims broadcast,
//! at most [`MAX_BATCH_RANK`] of them); nothing is allocated except where
//! the caller hands scratch in (FlexAttention's score row).

/// Most batch dims [`matmul`] broadcasts.
pub const MAX_BATCH_RANK: usize = 8;

/// A float type [`matmul`] computes in (`f64`; `f32` for 16-bit floats
/// widened exactly, whose products `f32` holds exactly).
pub trait Float: Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self> {}
impl Float for f32 {}
impl Float for f64 {}

/// numpy `matmul` of `a` (`a_shape`) and `b` (`b_shape`) into `y`.
pub fn matmul<T: Float>(a_shape: &[usize], a: &[T], b_shape: &[usize], b: &[T], y: &mut [T]) {
    assert!(!a_shape.is_empty() && !b_shape.is_empty(), "MatMul: scalar operands");
    // 1-D promotion: [k] is [1, k] on the left and [k, 1] on the right.
    let (m, k) =
        if a_shape.len() == 1 { (1, a_shape[0]) } else { (a_shape[a_shape.len() - 2], a_shape[a_shape.len() - 1]) };
    let (kb, n) =
        if b_shape.len() == 1 { (b_shape[0], 1) } else { (b_shape[b_shape.len() - 2], b_shape[b_shape.len() - 1]) };
    assert_eq!(k, kb, "MatMul: inner dims {a_shape:?} x {b_shape:?}");
    let ab = &a_shape[..a_shape.len().saturating_sub(2)];
    let bb = &b_shape[..b_shape.len().saturating_sub(2)];
    let r = ab.len().max(bb.len());
    assert!(r <= MAX_BATCH_RANK, "MatMul: {r} batch dims (at most {MAX_BATCH_RANK})");
    // Batch dims right-aligned, 1 where an operand has none.
    let (mut da, mut db, mut dy) = ([1usize; MAX_BATCH_RANK], [1usize; MAX_BATCH_RANK], [1usize; MAX_BATCH_RANK]);
    da[r - ab.len()..r].copy_from_slice(ab);
    db[r - bb.len()..r].copy_from_slice(bb);
    for i in 0..r {
        assert!(da[i] == db[i] || da[i] == 1 || db[i] == 1, "MatMul: batch dims {ab:?} and {bb:?} do not broadcast");
        dy[i] = da[i].max(db[i]);
    }
    let batches: usize = dy[..r].iter().product();
    assert_eq!(a.len(), da[..r].iter().product::<usize>() * m * k, "MatMul: a holds {} values", a.len());
    assert_eq!(b.len(), db[..r].iter().product::<usize>() * k * n, "MatMul: b holds {} values", b.len());
    assert_eq!(y.len(), batches * m * n, "MatMul: y holds {} values", y.len());
    for t in 0..batches {
        // Batch index `t` of y mapped into a and b (broadcast dims stay 0).
        let (mut rest, mut ia, mut ib, mut sa, mut sb) = (t, 0, 0, 1, 1);
        for i in (0..r).rev() {
            let c = rest % dy[i];
            rest /= dy[i];
            ia += if da[i] == 1 { 0 } else { c * sa };
            ib += if db[i] == 1 { 0 } else { c * sb };
            sa *= da[i];
            sb *= db[i];
        }
        let (pa, pb, py) = (&a[ia * m * k..(ia + 1) * m * k], &b[ib * k * n..(ib + 1) * k * n], t * m * n);
        for i in 0..m {
            for j in 0..n {
                y[py + i * n + j] = (0..k).fold(T::default(), |acc, l| acc + pa[i * k + l] * pb[l * n + j]);
            }
        }
    }
}

/// Softmax (or with `log`, LogSoftmax) along the middle axis of `x` seen
/// as `[outer, n, inner]`: `exp(x − max) / Σ exp(x − max)`, the max NaN if
/// any element is.
pub fn softmax(outer: usize, n: usize, inner: usize, log: bool, x: &[f64], y: &mut [f64]) {
    assert!(
        x.len() == outer * n * inner && y.len() == x.len(),
        "softmax: buffers do not match [{outer}, {n}, {inner}]"
    );
    for o in 0..outer {
        for i in 0..inner {
            let at = |k: usize| (o * n + k) * inner + i;
            let max = (0..n).map(|k| x[at(k)]).fold(f64::NEG_INFINITY, |m, v| {
                if m.is_nan() || v.is_nan() {
                    f64::NAN
                } else if v > m {
                    v
                } else {
                    m
                }
            });
            if log {
                let sum: f64 = (0..n).map(|k| (x[at(k)] - max).exp()).sum();
                (0..n).for_each(|k| y[at(k)] = x[at(k)] - max - sum.ln());
            } else {
                let mut sum = 0.0;
                for k in 0..n {
                    y[at(k)] = (x[at(k)] - max).exp();
                    sum += y[at(k)];
                }
                (0..n).for_each(|k| y[at(k)] /= sum);
            }
        }
    }
}

/// The geometry of a FlexAttention: `Q [b, hq, l, e]`, `K [b, hkv, s, e]`,
/// `V [b, hkv, s, ev]`, `Y [b, hq, l, ev]`.
#[derive(Copy, Clone, Debug)]
pub struct Flex {
    /// Batch.
    pub b: usize,
    /// Query heads (a multiple of `hkv`).
    pub hq: usize,
    /// Query length.
    pub l: usize,
    /// Query/key head size.
    pub e: usize,
    /// Key/value heads.
    pub hkv: usize,
    /// Key/value length.
    pub s: usize,
    /// Value head size.
    pub ev: usize,
    /// `scale` (Q and K are each multiplied by `sqrt(scale)`, the root taken in f32).
    pub scale: f32,
}

/// f64 FlexAttention without `score_mod`/`prob_mod` (softmax in f64); `row`
/// is scratch of `s` values.
pub fn flex_attention(p: &Flex, q: &[f64], k: &[f64], v: &[f64], row: &mut [f64], y: &mut [f64]) {
    let Flex { b, hq, l, e, hkv, s, ev, .. } = *p;
    assert!(hkv > 0 && hq % hkv == 0, "FlexAttention: {hq} query heads for {hkv} key/value heads");
    assert_eq!(q.len(), b * hq * l * e, "FlexAttention: Q holds {} values", q.len());
    assert_eq!(k.len(), b * hkv * s * e, "FlexAttention: K holds {} values", k.len());
    assert_eq!(v.len(), b * hkv * s * ev, "FlexAttention: V holds {} values", v.len());
    assert_eq!(y.len(), b * hq * l * ev, "FlexAttention: Y holds {} values", y.len());
    let row = &mut row[..s];
    let ss = p.scale.sqrt() as f64;
    let group = hq / hkv;
    for bi in 0..b {
        for h in 0..hq {
            let kvh = bi * hkv + h / group;
            for i in 0..l {
                let qr = &q[((bi * hq + h) * l + i) * e..][..e];
                for (j, r) in row.iter_mut().enumerate() {
                    let kr = &k[(kvh * s + j) * e..][..e];
                    *r = (0..e).fold(0.0, |acc, x| acc + (qr[x] * ss) * (kr[x] * ss));
                }
                let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                row.iter_mut().for_each(|x| *x = (*x - max).exp());
                let sum = row.iter().fold(0.0, |acc, &x| acc + x);
                row.iter_mut().for_each(|x| *x /= sum);
                let out = &mut y[((bi * hq + h) * l + i) * ev..][..ev];
                for (m, o) in out.iter_mut().enumerate() {
                    *o = (0..s).fold(0.0, |acc, j| acc + row[j] * v[(kvh * s + j) * ev + m]);
                }
            }
        }
    }
}
