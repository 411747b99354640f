//! `Einsum` as the loop nest the compiler derives from the equation
//! (`ir::interp::nn::einsum::loop_nest`): one loop per label, output labels
//! first; each output element is the sum over the remaining loops of the
//! product of one element of every operand. Sums and products run in the
//! element type in loop order (f32 for f32, f64 for f64, wrapping integers),
//! exactly like the interpreter.

use crate::ew::Num;

/// Most loops (distinct labels) an Einsum may have.
pub const EINSUM_MAX_LOOPS: usize = 16;

/// A static Einsum loop nest.
#[derive(Copy, Clone, Debug)]
pub struct Einsum<'a> {
    /// Size of every loop.
    pub dims: &'a [usize],
    /// The leading loops that index the output.
    pub n_out: usize,
    /// Per operand, `(loop, stride)` of each of its axes.
    pub access: &'a [&'a [(usize, usize)]],
}

/// `y` = the Einsum of `xs` (one slice per operand).
pub fn einsum<T: Num>(p: &Einsum<'_>, xs: &[&[T]], y: &mut [T]) {
    let n = p.dims.len();
    assert!(n <= EINSUM_MAX_LOOPS && p.n_out <= n, "Einsum: {n} loops");
    assert_eq!(xs.len(), p.access.len(), "Einsum: operand count");
    assert_eq!(y.len(), p.dims[..p.n_out].iter().product::<usize>(), "Einsum: output length");
    let (zero, one) = (T::from_count(0), T::from_count(1));
    if p.dims.contains(&0) {
        return y.fill(zero);
    }
    let sum_len: usize = p.dims[p.n_out..].iter().product();
    let mut idx = [0usize; EINSUM_MAX_LOOPS];
    for o in y.iter_mut() {
        let mut acc = zero;
        for _ in 0..sum_len {
            let term =
                p.access.iter().zip(xs).fold(one, |prod, (axes, x)| {
                    T::mul(prod, x[axes.iter().map(|&(l, st)| idx[l] * st).sum::<usize>()])
                });
            acc = T::add(acc, term);
            super::next_index(&mut idx[..n], p.dims);
        }
        *o = acc;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matmul_and_trace() {
        // "ij,jk->ik" with i=2, j=2, k=1: loops (i, k, j).
        let p = Einsum { dims: &[2, 1, 2], n_out: 2, access: &[&[(0, 2), (2, 1)], &[(2, 1), (1, 0)]] };
        let mut y = [0.0f32; 2];
        einsum(&p, &[&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0]], &mut y);
        assert_eq!(y, [17.0, 39.0]);
        // "ii->" (trace) of a 2x2: one loop i, the operand strides 2 + 1.
        let t = Einsum { dims: &[2], n_out: 0, access: &[&[(0, 2), (0, 1)]] };
        let mut s = [0i32; 1];
        einsum(&t, &[&[1, 2, 3, 4]], &mut s);
        assert_eq!(s, [5]);
    }
}
