//! `AffineGrid`: for each batch entry, the `[spatial..., r]` grid of
//! `theta · (x, y[, z], 1)` over the normalized base coordinates of a
//! `spatial` output (`r` = 2 or 3), in `f64` and rounded once, as the
//! interpreter computes it. Coordinates run from the innermost axis out.

use crate::lowp::Real;
use edgec_numeric::sample::affine_base as base;

/// The batch `N` of an AffineGrid: `theta`'s, which `size[0]` must equal
/// (an error naming the op otherwise).
pub fn batch(size_n: i64, theta_n: usize) -> Result<usize, crate::rt::Error> {
    if size_n == theta_n as i64 {
        Ok(theta_n)
    } else {
        Err(crate::rt::Error(format!("AffineGrid: `size` says N = {size_n}, theta holds {theta_n} matrices")))
    }
}

/// `y` (`[N, spatial..., r]`) from `theta` (`[N, r, r + 1]`).
pub fn affine_grid<T: Real>(spatial: &[usize], align_corners: bool, theta: &[T], y: &mut [T]) {
    let r = spatial.len();
    assert!(r == 2 || r == 3, "AffineGrid: {r} spatial dims");
    let n = theta.len() / (r * (r + 1));
    let points: usize = spatial.iter().product();
    assert_eq!(y.len(), n * points * r, "AffineGrid: output length");
    let mut at = 0;
    for b in 0..n {
        for flat in 0..points {
            // Homogeneous position, innermost axis first.
            let mut h = [1.0f64; 4];
            let mut rem = flat;
            for a in (0..r).rev() {
                h[r - 1 - a] = base(rem % spatial[a], spatial[a], align_corners);
                rem /= spatial[a];
            }
            for row in 0..r {
                let m = &theta[(b * r + row) * (r + 1)..][..r + 1];
                y[at] = T::from_f64(m.iter().zip(&h).map(|(a, c)| a.to_f64() * c).sum::<f64>());
                at += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_theta_gives_the_base_grid() {
        let mut y = [0.0f32; 8];
        affine_grid(&[2, 2], true, &[1.0, 0.0, 0.0, 0.0, 1.0, 0.0], &mut y);
        assert_eq!(y, [-1.0, -1.0, 1.0, -1.0, -1.0, 1.0, 1.0, 1.0]);
    }
}
