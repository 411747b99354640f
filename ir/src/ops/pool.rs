//! Pooling and unpooling: MaxPool, AveragePool (also LpPool), the global
//! pools (also GlobalLpPool) and MaxUnpool.
//!
//! Pooling windows are parsed by [`Window`] as the convolutions' are
//! (`kernel_shape` required); output sizes follow the same ONNX formulas, plus
//! `ceil_mode`.

use super::conv::Window;
use super::{dims_or_unknown, expect_dtype, same_type, shape, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// MaxPool / AveragePool: `X [N, C, D...]` → `Y [N, C, out...]`; a second result
/// (MaxPool's `Indices`) is i64 with Y's shape. Accepts float, i8 and u8 (MaxPool's set).
pub fn pool(ctx: &InferCtx<'_>) -> InferResult {
    let ok = |d: DType| d.is_float() || matches!(d, DType::I8 | DType::U8);
    pool_with(ctx, ok, "a float, i8 or u8 type")
}

/// AveragePool: like [`pool`] but float inputs only, and no `Indices` result.
pub fn avg_pool(ctx: &InferCtx<'_>) -> InferResult {
    pool_with(ctx, DType::is_float, "a float type")
}

fn pool_with(ctx: &InferCtx<'_>, ok: impl Fn(DType) -> bool, allowed: &str) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", ok, allowed)?;
    let n = ctx.attrs.ints("kernel_shape").ok_or("missing required attribute `kernel_shape`")?.len();
    if x.rank().is_some_and(|r| r != n + 2) || n == 0 {
        return Err(format!("X {x} must have rank {} (N, C and one axis per `kernel_shape` entry)", n + 2));
    }
    let xd = dims_or_unknown(x, n + 2);
    let win = Window::parse(ctx, n, None)?;
    let mut out = vec![xd[0], xd[1]];
    for i in 0..n {
        out.push(win.out_dim(i, xd[i + 2])?);
    }
    let y = TensorType::new(x.dtype, Shape::from_dims(out));
    let mut res = vec![y.clone()];
    if ctx.num_results > 1 {
        res.push(TensorType::new(DType::I64, y.shape));
    }
    Ok(res)
}

/// GlobalAveragePool / GlobalMaxPool: `X [N, C, D...]` → `[N, C, 1...]`.
pub fn global_pool(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    let shape = match x.dims() {
        None => Shape::Unranked,
        Some(d) if d.len() < 2 => return Err(format!("X {x} must have rank ≥ 2 (N, C, spatial...)")),
        Some(d) => Shape::from_dims(d.iter().enumerate().map(|(i, &d)| if i < 2 { d } else { Dim::Static(1) })),
    };
    Ok(vec![TensorType::new(x.dtype, shape)])
}

/// MaxUnpool: float X `[N, C, D...]`, i64 `I` of X's shape; output dims from a constant
/// `output_shape`, else `(in - 1) * stride - pads + kernel` (unknown if `output_shape`
/// is given but not constant).
pub fn max_unpool(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    same_type(ctx.input(1)?, "I", DType::I64)?;
    let ks = ctx.attrs.ints("kernel_shape").ok_or("missing required attribute `kernel_shape`")?;
    let n = ks.len();
    if x.rank().is_some_and(|r| r != n + 2) {
        return Err(format!("X {x} must have rank {} to match `kernel_shape`", n + 2));
    }
    if let Some(os) = ctx.opt_input(2) {
        same_type(os, "output_shape", DType::I64)?;
        let dims = match ctx.const_ints(2) {
            Some(v) if v.len() == n + 2 && v.iter().all(|&d| d >= 0) => {
                v.iter().map(|&d| Dim::Static(d as u64)).collect()
            }
            Some(v) => return Err(format!("`output_shape` = {v:?} must hold {} sizes", n + 2)),
            None => vec![Dim::Unknown; n + 2],
        };
        return Ok(vec![TensorType::new(x.dtype, shape(dims))]);
    }
    let strides = ctx.attrs.ints("strides").map_or_else(|| vec![1; n], <[i64]>::to_vec);
    let pads = ctx.attrs.ints("pads").map_or_else(|| vec![0; 2 * n], <[i64]>::to_vec);
    if strides.len() != n || pads.len() != 2 * n || strides.iter().any(|&s| s < 1) || pads.iter().any(|&p| p < 0) {
        return Err(format!("attributes `strides` {strides:?} / `pads` {pads:?} do not match kernel_shape {ks:?}"));
    }
    let Some(d) = x.dims() else { return Ok(vec![TensorType::unranked(x.dtype)]) };
    let mut out = vec![d[0], d[1]];
    for i in 0..n {
        out.push(match d[i + 2] {
            Dim::Static(v) => {
                let o = (v as i64 - 1) * strides[i] - pads[i] - pads[i + n] + ks[i];
                Dim::Static(u64::try_from(o).map_err(|_| format!("spatial axis {i}: unpooled size {o} is negative"))?)
            }
            _ => Dim::Unknown,
        });
    }
    Ok(vec![TensorType::new(x.dtype, shape(out))])
}
