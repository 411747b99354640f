//! `Det`: determinants of the square matrices in the last two axes, by
//! Gaussian elimination with partial pivoting in `f64` (the first largest
//! pivot wins ties, as the interpreter picks it), rounded once to the
//! element type.
//!
//! Each matrix is copied to a stack buffer, so there is no allocation per
//! inference; the compiler only emits matrices up to [`DET_MAX`] × [`DET_MAX`].

use crate::lowp::Real;
use edgec_numeric::det::determinant;

/// Largest matrix order the kernel takes.
pub const DET_MAX: usize = 32;

/// `y[b]` = det of the `b`-th `n × n` matrix of `x`.
pub fn det<T: Real>(n: usize, x: &[T], y: &mut [T]) {
    assert!(n <= DET_MAX, "Det: order {n} above {DET_MAX}");
    assert_eq!(x.len(), y.len() * n * n, "Det: x holds {} elements for {} matrices of order {n}", x.len(), y.len());
    let mut buf = [0f64; DET_MAX * DET_MAX];
    for (b, out) in y.iter_mut().enumerate() {
        for (d, &v) in buf.iter_mut().zip(&x[b * n * n..(b + 1) * n * n]) {
            *d = v.to_f64();
        }
        *out = T::from_f64(determinant(&mut buf[..n * n], n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn determinants() {
        let mut y = [0.0f32; 2];
        det(2, &[1.0, 2.0, 3.0, 4.0, 0.0, 1.0, 1.0, 0.0], &mut y);
        assert_eq!(y, [-2.0, -1.0]);
        let mut z = [0.0f64; 1];
        det(3, &[2.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 4.0], &mut z);
        assert_eq!(z, [24.0]);
    }
}
