//! MatMulInteger and QLinearMatMul.

use super::{centered, param_map, q8_values, round_to, saturate, scale_values};
use crate::interp::linalg::matmul::{plan, Plan};
use crate::interp::{Data, EvalCtx, Tensor};

/// The batched product on i32 with wrapping accumulation.
fn product(p: &Plan, a: &[i32], b: &[i32]) -> Vec<i32> {
    let mut out = Vec::with_capacity(p.offsets.len() * p.m * p.n);
    for &(ao, bo) in &p.offsets {
        for i in 0..p.m {
            for j in 0..p.n {
                let mut acc = 0i32;
                for l in 0..p.k {
                    acc = acc.wrapping_add(a[ao + i * p.k + l].wrapping_mul(b[bo + l * p.n + j]));
                }
                out.push(acc);
            }
        }
    }
    out
}

/// `onnx.MatMulInteger`: `(A - a_zero_point) @ (B - b_zero_point)` in i32 with numpy
/// batching. A 1-D `a_zero_point` of several values is per row of A (`[M]`), a 1-D
/// `b_zero_point` per column of B (`[N]`); N-D zero points broadcast (`[.., M, 1]`, `[.., 1, N]`).
pub fn matmul_integer(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let p = plan(&a.shape, &b.shape, "matmul")?;
    let av = centered(a, ctx.opt(2), &p.a_shape, a.rank() >= 2, "a_zero_point")?;
    let bv = centered(b, ctx.opt(3), &p.b_shape, false, "b_zero_point")?;
    Ok(vec![Tensor::new(p.out_shape.clone(), Data::I32(product(&p, &av, &bv)))])
}

/// `onnx.QLinearMatMul`: the integer product of the centered operands, requantized
/// with `a_scale * b_scale / y_scale` (computed in the scales' type) and `y_zero_point`.
/// `a`'s scale and zero point are per tensor or per row, `b`'s per tensor or per
/// column; `y`'s broadcast against the result.
pub fn qlinear_matmul(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b) = (ctx.input(0)?, ctx.input(3)?);
    let p = plan(&a.shape, &b.shape, "matmul")?;
    let row = a.rank() >= 2;
    let av = centered(a, Some(ctx.input(2)?), &p.a_shape, row, "a_zero_point")?;
    let bv = centered(b, Some(ctx.input(5)?), &p.b_shape, false, "b_zero_point")?;
    let c = product(&p, &av, &bv);
    let (a_s, b_s, y_s, y_zp) = (ctx.input(1)?, ctx.input(4)?, ctx.input(6)?, ctx.input(7)?);
    let ((asv, dt), (bsv, _), (ysv, _)) =
        (scale_values(a_s, "a_scale")?, scale_values(b_s, "b_scale")?, scale_values(y_s, "y_scale")?);
    let zv = q8_values(y_zp, "y_zero_point")?;
    let (ma, mb) = (param_map(a_s, &p.full, row, "a_scale")?, param_map(b_s, &p.full, false, "b_scale")?);
    let (my, mz) = (param_map(y_s, &p.full, false, "y_scale")?, param_map(y_zp, &p.full, false, "y_zero_point")?);
    let out: Vec<f64> = (0..c.len())
        .map(|i| {
            let mult = round_to(dt, round_to(dt, asv[ma[i]] * bsv[mb[i]]) / ysv[my[i]]);
            c[i] as f64 * mult as f64 + zv[mz[i]] as f64
        })
        .collect();
    Ok(vec![saturate(y_zp.dtype(), p.out_shape, &out)?])
}
