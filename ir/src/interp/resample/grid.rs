//! AffineGrid (opset 20).

use crate::interp::tensor::real::{next_index, to_tensor};
use crate::interp::tensor::wide::{check_size, int_operand};
use crate::interp::{EvalCtx, Tensor};
use edgec_numeric::sample::affine_base as base;

/// Check `theta [N, r, r + 1]` against `size [N, C, spatial...]` (r = 2 or 3);
/// returns the spatial sizes.
fn check_operands(theta: &Tensor, size: &[i64]) -> Result<Vec<usize>, String> {
    if !theta.dtype().is_float() {
        return Err(format!("`theta` has element type {}, expected a float type", theta.dtype()));
    }
    let r = match size.len() {
        4 => 2,
        5 => 3,
        l => return Err(format!("`size` has {l} entries, expected 4 ([N, C, H, W]) or 5 ([N, C, D, H, W])")),
    };
    if theta.rank() != 3 || theta.shape[1..] != [r, r + 1] {
        return Err(format!("`theta` {:?} must be [N, {r}, {}] for a {r}-D grid", theta.shape, r + 1));
    }
    if let Some(bad) = size.iter().find(|&&s| s < 0) {
        return Err(format!("`size` {size:?} contains the negative size {bad}"));
    }
    if size[0] as usize != theta.shape[0] {
        return Err(format!("`theta` {:?} and `size` {size:?} disagree on N", theta.shape));
    }
    Ok(size[2..].iter().map(|&s| s as usize).collect())
}

/// `onnx.AffineGrid`: `grid[n, (d,) h, w] = theta[n] @ [x_w, y_h, (z_d,) 1]` where the
/// coordinates are the normalized positions of the output grid (innermost axis first).
/// Computed in f64 and rounded once to theta's element type.
pub fn affine_grid(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let theta = ctx.input(0)?;
    let size = int_operand(ctx.input(1)?, "size")?;
    let spatial = check_operands(theta, &size)?;
    let align = ctx.int("align_corners", 0) != 0;
    let (n, r) = (theta.shape[0], spatial.len());
    let mut shape = vec![n];
    shape.extend(&spatial);
    shape.push(r);
    check_size(&shape)?;
    let th = theta.to_f64s();
    let mut out = Vec::with_capacity(shape.iter().product());
    for b in 0..n {
        let mut idx = vec![0; r];
        let mut more = spatial.iter().all(|&s| s > 0);
        while more {
            // Homogeneous position: coordinates from the innermost axis out, then 1.
            let mut h: Vec<f64> = (0..r).rev().map(|a| base(idx[a], spatial[a], align)).collect();
            h.push(1.0);
            for row in 0..r {
                let m = &th[(b * r + row) * (r + 1)..(b * r + row + 1) * (r + 1)];
                out.push(m.iter().zip(&h).map(|(a, b)| a * b).sum::<f64>());
            }
            more = next_index(&mut idx, &spatial);
        }
    }
    Ok(vec![to_tensor::<f64>(theta.dtype(), shape, out)?])
}
