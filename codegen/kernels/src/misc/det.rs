//! `Det`: determinants of the square matrices in the last two axes, by
//! Gaussian elimination with partial pivoting in `f64` (the first largest
//! pivot wins ties, as the interpreter picks it), rounded once to the
//! element type.
//!
//! Each matrix is copied to a stack buffer, so there is no allocation per
//! inference; the compiler only emits matrices up to [`DET_MAX`] × [`DET_MAX`].

use crate::lowp::Real;

/// Largest matrix order the kernel takes.
pub const DET_MAX: usize = 32;

/// Determinant of the row-major `n × n` matrix in `a[..n * n]` (destroyed).
fn determinant(a: &mut [f64], n: usize) -> f64 {
    let mut det = 1.0;
    for c in 0..n {
        // The last of the largest |a[i][c]| (as `Iterator::max_by` picks).
        let p = (c..n).max_by(|&i, &j| a[i * n + c].abs().total_cmp(&a[j * n + c].abs())).unwrap_or(c);
        if a[p * n + c] == 0.0 {
            return 0.0;
        }
        if p != c {
            for k in 0..n {
                a.swap(p * n + k, c * n + k);
            }
            det = -det;
        }
        let pivot = a[c * n + c];
        det *= pivot;
        for r in c + 1..n {
            let f = a[r * n + c] / pivot;
            for k in c..n {
                a[r * n + k] -= f * a[c * n + k];
            }
        }
    }
    det
}

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
