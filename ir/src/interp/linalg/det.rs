//! Det: determinants of square matrices in the last two axes.

use crate::interp::tensor::wide::{from_wide, numel, to_wide, Wide};
use crate::interp::{EvalCtx, Tensor};
use edgec_numeric::det::determinant;

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
        (0..numel(&shape)).map(|b| Wide::F(determinant(&mut vals[b * m * m..(b + 1) * m * m].to_vec(), m))).collect();
    Ok(vec![Tensor::new(shape, from_wide(x.dtype(), &out))])
}
