//! Determinants.

/// Determinant of the row-major `n × n` matrix in `a[..n * n]` (destroyed),
/// by Gaussian elimination with partial pivoting in f64. Among equal largest
/// pivots the last wins (as `Iterator::max_by` picks).
pub fn determinant(a: &mut [f64], n: usize) -> f64 {
    let mut det = 1.0;
    for c in 0..n {
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

#[cfg(test)]
mod tests {
    #[test]
    fn determinants() {
        assert_eq!(super::determinant(&mut [1.0, 2.0, 3.0, 4.0], 2), -2.0);
        assert_eq!(super::determinant(&mut [0.0, 1.0, 1.0, 0.0], 2), -1.0);
        assert_eq!(super::determinant(&mut [1.0, 2.0, 2.0, 4.0], 2), 0.0);
    }
}
