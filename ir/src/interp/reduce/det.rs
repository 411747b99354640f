//! Det: determinants of square matrices in the last two axes.

use crate::interp::shape::common::{from_wide, numel, to_wide, Wide};
use crate::interp::{EvalCtx, Tensor};

/// Determinant of a row-major `n x n` matrix by Gaussian elimination with
/// partial pivoting, in f64.
pub fn determinant(mut a: Vec<f64>, n: usize) -> f64 {
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

/// `onnx.Det`: `[*, M, M]` float input to `[*]` determinants (computed in f64,
/// rounded once).
pub fn det(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let r = x.rank();
    if r < 2 || x.shape[r - 1] != x.shape[r - 2] || !x.dtype().is_float() {
        return Err(format!("Det needs float [*, M, M] input, found {} {:?}", x.dtype(), x.shape));
    }
    let m = x.shape[r - 1];
    let vals: Vec<f64> = to_wide(&x.data)?.iter().map(|w| w.f()).collect();
    let shape = x.shape[..r - 2].to_vec();
    let out: Vec<Wide> =
        (0..numel(&shape)).map(|b| Wide::F(determinant(vals[b * m * m..(b + 1) * m * m].to_vec(), m))).collect();
    Ok(vec![Tensor::new(shape, from_wide(x.dtype(), &out))])
}
