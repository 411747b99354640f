//! Double-precision MatMul for models computed in f64 (and 16-bit floats
//! widened exactly to f32): direct loops with the reference interpreter's
//! summation order (sequential from 0), so the results match it to the last
//! bits or within an f64 rounding.
//!
//! Invariants: row-major tensors; MatMul follows numpy (a 1-D operand is
//! promoted to a matrix and the added dim dropped, batch dims broadcast,
//! at most [`MAX_BATCH_RANK`] of them); nothing is allocated.

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
