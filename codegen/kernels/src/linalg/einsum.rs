//! `Einsum` as the loop nest the compiler derives from the equation
//! (`edgec_numeric::einsum::loop_nest`): one loop per label, output labels
//! first; each output element is the sum over the remaining loops of the
//! product of one element of every operand. Sums and products run in the
//! element type in loop order (f32 for f32, f64 for f64, wrapping integers),
//! exactly like the interpreter.

use crate::elementwise::Num;
use crate::rt::Error;
use crate::strided::next_index;

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
            next_index(&mut idx[..n], p.dims);
        }
        *o = acc;
    }
}

/// Most operands, and most axes per operand, of an Einsum sized when the
/// model runs.
pub const EINSUM_MAX_OPERANDS: usize = 8;

/// An Einsum whose sizes are known only when the model runs: the loop of
/// every operand axis (output loops first), as the compiler numbers them.
#[derive(Copy, Clone, Debug)]
pub struct EinsumLabels<'a> {
    /// Per operand, the loop of each axis.
    pub loops: &'a [&'a [usize]],
    /// Number of loops.
    pub n_loops: usize,
    /// The leading loops that index the output.
    pub n_out: usize,
}

/// The size a label takes from the dims it labels: they agree, or are 1
/// (broadcast).
pub fn label_size(what: &str, dims: &[usize]) -> Result<usize, Error> {
    let mut size = 1;
    for &d in dims {
        match (size, d) {
            (_, 1) => {}
            (1, d) => size = d,
            (s, d) if s == d => {}
            (s, d) => return Err(Error(format!("{what}: one label has sizes {s} and {d}"))),
        }
    }
    Ok(size)
}

/// [`einsum`] with loop sizes and strides from the operands' `shapes`.
pub fn einsum_rt<T: Num>(
    what: &str,
    p: &EinsumLabels<'_>,
    shapes: &[&[usize]],
    xs: &[&[T]],
    y: &mut [T],
) -> Result<(), Error> {
    let n_ops = p.loops.len();
    let fits = n_ops <= EINSUM_MAX_OPERANDS && p.n_loops <= EINSUM_MAX_LOOPS && shapes.len() == n_ops;
    if !fits || p.loops.iter().zip(shapes).any(|(l, s)| l.len() != s.len() || l.len() > EINSUM_MAX_LOOPS) {
        return Err(Error(format!("{what}: operands do not match the equation")));
    }
    let mut dims = [1usize; EINSUM_MAX_LOOPS];
    for (l, d) in dims.iter_mut().enumerate().take(p.n_loops) {
        let mut seen = [0usize; EINSUM_MAX_LOOPS * EINSUM_MAX_OPERANDS];
        let mut n = 0;
        for (loops, shape) in p.loops.iter().zip(shapes) {
            for (&ll, &s) in loops.iter().zip(shape.iter()) {
                if ll == l {
                    seen[n] = s;
                    n += 1;
                }
            }
        }
        *d = label_size(what, &seen[..n])?;
    }
    let mut access = [[(0usize, 0usize); EINSUM_MAX_LOOPS]; EINSUM_MAX_OPERANDS];
    for (o, (loops, shape)) in p.loops.iter().zip(shapes).enumerate() {
        let mut stride = 1;
        for a in (0..shape.len()).rev() {
            access[o][a] = (loops[a], if shape[a] == 1 { 0 } else { stride });
            stride *= shape[a];
        }
        if xs[o].len() != stride {
            return Err(Error(format!("{what}: operand {o} holds {} elements, its shape {stride}", xs[o].len())));
        }
    }
    let refs: [&[(usize, usize)]; EINSUM_MAX_OPERANDS] =
        std::array::from_fn(|o| &access[o][..shapes.get(o).map_or(0, |s| s.len())]);
    let out: usize = dims[..p.n_out].iter().product();
    if y.len() != out {
        return Err(Error(format!("{what}: the result holds {} elements, the equation gives {out}", y.len())));
    }
    einsum(&Einsum { dims: &dims[..p.n_loops], n_out: p.n_out, access: &refs[..n_ops] }, xs, y);
    Ok(())
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

    #[test]
    fn sizes_from_run_time_shapes() {
        // "ij,jk->ik" again, sized from the shapes.
        let p = EinsumLabels { loops: &[&[0, 2], &[2, 1]], n_loops: 3, n_out: 2 };
        let mut y = [0.0f32; 2];
        einsum_rt("e", &p, &[&[2, 2], &[2, 1]], &[&[1.0, 2.0, 3.0, 4.0], &[5.0, 6.0]], &mut y).unwrap();
        assert_eq!(y, [17.0, 39.0]);
        assert!(einsum_rt("e", &p, &[&[2, 3], &[2, 1]], &[&[0.0; 6], &[0.0; 2]], &mut y).is_err());
        assert_eq!(label_size("e", &[1, 4, 1, 4]), Ok(4));
    }
}
