//! Numpy broadcasting, generic over element types: every broadcasting kernel
//! (arithmetic, comparisons, logic, `Where`, `Expand`) is one of these maps
//! with an element function.
//!
//! Fast paths: operands laid out like the output (same element count) and
//! one-element operands are plain loops; everything else is coalesced into
//! rows (the crate's strided-iteration core) whose innermost loop reads each operand
//! either contiguously or as a repeated scalar — per-channel `[C, 1, 1]` and
//! trailing-vector `[D]` operands both end up there.

use crate::strided::{assert_broadcasts, bcast_stride, for_each_row, numel, stride};

/// Check an operand's length against its shape and that it broadcasts to `out`.
fn check<T>(what: &str, shape: &[usize], v: &[T], out: &[usize]) {
    assert_eq!(v.len(), numel(shape), "{what} holds {} elements, shape {shape:?} needs {}", v.len(), numel(shape));
    assert_broadcasts(shape, out);
}

/// `out[i] = f(x[j])` where `x` of shape `x_shape` broadcasts to `out_shape`
/// (`Expand` is `map1` with the identity).
pub fn map1<A: Copy, O>(x_shape: &[usize], x: &[A], out_shape: &[usize], out: &mut [O], f: impl Fn(A) -> O) {
    check("x", x_shape, x, out_shape);
    check("out", out_shape, out, out_shape);
    if x.len() == out.len() {
        return out.iter_mut().zip(x).for_each(|(o, &a)| *o = f(a));
    }
    let r = out_shape.len();
    for_each_row(
        r,
        |d| (out_shape[d], [stride(out_shape, d), bcast_stride(x_shape, r, d)]),
        |[oo, ox], [_, sx], len| {
            let o = &mut out[oo as usize..oo as usize + len];
            match sx {
                0 => o.iter_mut().for_each(|o| *o = f(x[ox as usize])),
                _ => o.iter_mut().zip(&x[ox as usize..ox as usize + len]).for_each(|(o, &a)| *o = f(a)),
            }
        },
    );
}

/// `out[i] = f(a[j], b[k])` with `a` and `b` broadcast to `out_shape`.
pub fn zip2<A: Copy, B: Copy, O>(
    a_shape: &[usize],
    a: &[A],
    b_shape: &[usize],
    b: &[B],
    out_shape: &[usize],
    out: &mut [O],
    f: impl Fn(A, B) -> O,
) {
    check("a", a_shape, a, out_shape);
    check("b", b_shape, b, out_shape);
    check("out", out_shape, out, out_shape);
    let n = out.len();
    match (a.len() == n, b.len() == n) {
        (true, true) => return out.iter_mut().zip(a.iter().zip(b)).for_each(|(o, (&a, &b))| *o = f(a, b)),
        (true, false) if b.len() == 1 => return out.iter_mut().zip(a).for_each(|(o, &a)| *o = f(a, b[0])),
        (false, true) if a.len() == 1 => return out.iter_mut().zip(b).for_each(|(o, &b)| *o = f(a[0], b)),
        _ => {}
    }
    let r = out_shape.len();
    for_each_row(
        r,
        |d| (out_shape[d], [stride(out_shape, d), bcast_stride(a_shape, r, d), bcast_stride(b_shape, r, d)]),
        |[oo, oa, ob], [_, sa, sb], len| {
            let o = &mut out[oo as usize..oo as usize + len];
            let (oa, ob) = (oa as usize, ob as usize);
            match (sa, sb) {
                (1, 1) => o.iter_mut().zip(a[oa..oa + len].iter().zip(&b[ob..ob + len])).for_each(|(o, (&a, &b))| {
                    *o = f(a, b);
                }),
                (1, _) => o.iter_mut().zip(&a[oa..oa + len]).for_each(|(o, &a)| *o = f(a, b[ob])),
                (_, 1) => o.iter_mut().zip(&b[ob..ob + len]).for_each(|(o, &b)| *o = f(a[oa], b)),
                _ => o.iter_mut().for_each(|o| *o = f(a[oa], b[ob])),
            }
        },
    );
}

/// `acc[i] = f(acc[i], b[k])` with `b` broadcast to `acc`'s shape `out_shape`
/// (in-place binary ops on a buffer the memory planner reuses).
pub fn zip2_inplace<T: Copy, B: Copy>(
    out_shape: &[usize],
    acc: &mut [T],
    b_shape: &[usize],
    b: &[B],
    f: impl Fn(T, B) -> T,
) {
    check("acc", out_shape, acc, out_shape);
    check("b", b_shape, b, out_shape);
    if b.len() == acc.len() {
        return acc.iter_mut().zip(b).for_each(|(o, &b)| *o = f(*o, b));
    }
    if b.len() == 1 {
        return acc.iter_mut().for_each(|o| *o = f(*o, b[0]));
    }
    let r = out_shape.len();
    for_each_row(
        r,
        |d| (out_shape[d], [stride(out_shape, d), bcast_stride(b_shape, r, d)]),
        |[oo, ob], [_, sb], len| {
            let o = &mut acc[oo as usize..oo as usize + len];
            let ob = ob as usize;
            match sb {
                1 => o.iter_mut().zip(&b[ob..ob + len]).for_each(|(o, &b)| *o = f(*o, b)),
                _ => o.iter_mut().for_each(|o| *o = f(*o, b[ob])),
            }
        },
    );
}

/// `out[i] = f(a[j], b[k], c[l])` with three-way broadcasting.
pub fn zip3<A: Copy, B: Copy, C: Copy, O>(
    (a_shape, a): (&[usize], &[A]),
    (b_shape, b): (&[usize], &[B]),
    (c_shape, c): (&[usize], &[C]),
    out_shape: &[usize],
    out: &mut [O],
    f: impl Fn(A, B, C) -> O,
) {
    check("a", a_shape, a, out_shape);
    check("b", b_shape, b, out_shape);
    check("c", c_shape, c, out_shape);
    check("out", out_shape, out, out_shape);
    let n = out.len();
    if a.len() == n && b.len() == n && c.len() == n {
        return out.iter_mut().enumerate().for_each(|(i, o)| *o = f(a[i], b[i], c[i]));
    }
    let r = out_shape.len();
    let dim = |d| {
        let st = [stride(out_shape, d), bcast_stride(a_shape, r, d), bcast_stride(b_shape, r, d)];
        (out_shape[d], [st[0], st[1], st[2], bcast_stride(c_shape, r, d)])
    };
    for_each_row(r, dim, |[oo, oa, ob, oc], [_, sa, sb, sc], len| {
        let o = &mut out[oo as usize..oo as usize + len];
        for (i, o) in o.iter_mut().enumerate() {
            let i = i as isize;
            *o = f(a[(oa + i * sa) as usize], b[(ob + i * sb) as usize], c[(oc + i * sc) as usize]);
        }
    });
}

/// The numpy broadcast of two shapes, or `None` if they do not broadcast (a
/// helper for callers and tests; kernels take the output shape as given).
pub fn broadcast_shape(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let r = a.len().max(b.len());
    let dim = |s: &[usize], i: usize| if i + s.len() >= r { s[i + s.len() - r] } else { 1 };
    (0..r)
        .map(|i| match (dim(a, i), dim(b, i)) {
            (x, y) if x == y || y == 1 => Some(x),
            (1, y) => Some(y),
            _ => None,
        })
        .collect()
}
