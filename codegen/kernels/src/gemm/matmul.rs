//! Batched matrix product with numpy broadcasting over the leading dims.

use super::{isa, run_isa, Bias, Dims, Epilogue, Gemm, Raw};

/// Dim `t` counted from the right of `s` (1 past its rank).
#[inline]
pub(crate) fn dim_r(s: &[usize], t: usize) -> usize {
    if t < s.len() {
        s[s.len() - 1 - t]
    } else {
        1
    }
}

/// Dim `t` (from the right) of the numpy broadcast of `shapes`: the first
/// dim that is not 1 (so a 0 wins over 1), else 1.
#[inline]
pub(crate) fn out_dim_r(shapes: &[&[usize]], t: usize) -> usize {
    shapes.iter().map(|s| dim_r(s, t)).find(|&d| d != 1).unwrap_or(1)
}

/// Assert that `shapes` broadcast numpy-style (each dim equal or 1).
pub(crate) fn check_broadcast(shapes: &[&[usize]], what: &str) {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    for t in 0..rank {
        let o = out_dim_r(shapes, t);
        assert!(
            shapes.iter().all(|s| matches!(dim_r(s, t), 1) || dim_r(s, t) == o),
            "{what}: {shapes:?} do not broadcast"
        );
    }
}

/// Number of elements of the broadcast of `shapes`.
pub(crate) fn broadcast_numel(shapes: &[&[usize]]) -> usize {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    (0..rank).map(|t| out_dim_r(shapes, t)).product()
}

/// The flat index into `shapes[which]` (broadcast) of the element at flat
/// index `flat` of the broadcast of all `shapes`. No allocation.
pub(crate) fn broadcast_index(mut flat: usize, shapes: &[&[usize]], which: usize) -> usize {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let (mut off, mut stride) = (0, 1);
    for t in 0..rank {
        let od = out_dim_r(shapes, t);
        let i = flat % od.max(1);
        flat /= od.max(1);
        let d = dim_r(shapes[which], t);
        if d != 1 {
            off += i * stride;
        }
        stride *= d;
    }
    off
}

/// `(batch dims, rows, cols)` of a rank ≥ 2 shape.
fn split(s: &[usize], what: &str) -> (usize, usize) {
    assert!(s.len() >= 2, "matmul {what} shape {s:?} must have rank ≥ 2");
    (s[s.len() - 2], s[s.len() - 1])
}

/// `(m, k, n)` of a matmul, asserting the inner dims agree.
fn mkn(a_shape: &[usize], b_shape: &[usize], trans_b: bool) -> (usize, usize, usize) {
    let (m, k) = split(a_shape, "A");
    let (r, c) = split(b_shape, "B");
    let (kb, n) = if trans_b { (c, r) } else { (r, c) };
    assert_eq!(k, kb, "matmul inner dims differ: A {a_shape:?}, B {b_shape:?} (trans_b {trans_b})");
    (m, k, n)
}

/// Scratch elements [`matmul`] needs.
pub fn matmul_scratch_len(a_shape: &[usize], b_shape: &[usize], trans_b: bool) -> usize {
    let (m, k, n) = mkn(a_shape, b_shape, trans_b);
    let ab = &a_shape[..a_shape.len() - 2];
    let bb = &b_shape[..b_shape.len() - 2];
    let nb = broadcast_numel(&[ab, bb]);
    super::scratch_len(&Gemm { m: m * nb.max(1), n, k, trans_a: false, trans_b })
}

/// numpy `matmul`: `a [.., m, k] @ b [.., k, n]` (b stored `[.., n, k]` if
/// `trans_b`) into `c [batch.., m, n]`, the batch dims broadcast; the
/// epilogue applies to every `m × n` product (a `PerRow`/`Full` bias is the
/// same for every batch). Shapes have rank ≥ 2 (the caller promotes 1-D
/// operands). Asserts every slice length.
pub fn matmul(
    a_shape: &[usize],
    a: &[f32],
    b_shape: &[usize],
    b: &[f32],
    trans_b: bool,
    c: &mut [f32],
    ep: &Epilogue<'_>,
    scratch: &mut [f32],
) {
    let (m, k, n) = mkn(a_shape, b_shape, trans_b);
    let ab = &a_shape[..a_shape.len() - 2];
    let bb = &b_shape[..b_shape.len() - 2];
    check_broadcast(&[ab, bb], "matmul batch dims");
    let (na, nbb) = (ab.iter().product::<usize>(), bb.iter().product::<usize>());
    let nb = broadcast_numel(&[ab, bb]);
    assert_eq!(a.len(), na * m * k, "A has {} elements, shape {a_shape:?}", a.len());
    assert_eq!(b.len(), nbb * k * n, "B has {} elements, shape {b_shape:?}", b.len());
    assert_eq!(c.len(), nb * m * n, "C has {} elements for {nb} products of {m}×{n}", c.len());
    let isa = isa::current();
    let ldb = if trans_b { k } else { n };
    let per_matrix_bias = matches!(ep.bias, Bias::PerRow(_) | Bias::Full(_));
    if nbb == 1 && na == nb && !per_matrix_bias {
        // One B for every batch: the batch folds into the rows of one GEMM.
        let ra = Raw { data: a, ld: k, trans: false };
        let rb = Raw { data: b, ld: ldb, trans: trans_b };
        run_isa(isa, Dims { m: nb * m, n, k, ldc: n }, &ra, &rb, c, ep, scratch);
        return;
    }
    for (i, cm) in c.chunks_exact_mut((m * n).max(1)).take(nb).enumerate() {
        let (ia, ib) = (broadcast_index(i, &[ab, bb], 0), broadcast_index(i, &[ab, bb], 1));
        let ra = Raw { data: &a[ia * m * k..(ia + 1) * m * k], ld: k, trans: false };
        let rb = Raw { data: &b[ib * k * n..(ib + 1) * k * n], ld: ldb, trans: trans_b };
        run_isa(isa, Dims { m, n, k, ldc: n }, &ra, &rb, cm, ep, scratch);
    }
}
