//! CumProd, Swish and TensorScatter.

use crate::interp::broadcast::norm_axis;
use crate::interp::nn::num::{float_kernel, reals, to_tensor, Real};
use crate::interp::shape::common::{from_wide, int_operand, numel, pick, scalar_int, to_wide, Wide};
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;

type Out = Result<Vec<Tensor>, String>;

/// `onnx.CumProd`: running products along the `axis` operand; `exclusive` leaves
/// out the current element (the first output is 1), `reverse` multiplies from the
/// end. Floats accumulate in f64 and each output is rounded once; integers wrap.
pub fn cum_prod(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let dt = x.dtype();
    if !dt.is_numeric() {
        return Err(format!("element type {dt} is not supported by CumProd (expected a numeric type)"));
    }
    let vals = to_wide(&x.data).map_err(|e| format!("cannot multiply {dt} data: {e}"))?;
    let ax = norm_axis(scalar_int(ctx.input(1)?, "axis")?, x.rank())?;
    let (exclusive, reverse) = (ctx.int("exclusive", 0) != 0, ctx.int("reverse", 0) != 0);
    let n = x.shape[ax];
    let (outer, inner) = (numel(&x.shape[..ax]), numel(&x.shape[ax + 1..]));
    let mut out = vec![Wide::one(dt); vals.len()];
    for o in 0..outer {
        for i in 0..inner {
            let mut acc = Wide::one(dt);
            for step in 0..n {
                let j = if reverse { n - 1 - step } else { step };
                let f = (o * n + j) * inner + i;
                if exclusive {
                    out[f] = acc;
                    acc = acc * vals[f];
                } else {
                    acc = acc * vals[f];
                    out[f] = acc;
                }
            }
        }
    }
    Ok(vec![Tensor::new(x.shape.clone(), from_wide(dt, &out))])
}

fn swish_t<T: Real>(x: &Tensor, alpha: f64) -> Result<Tensor, String> {
    let alpha = T::from_f64(alpha);
    let y = reals::<T>(x).into_iter().map(|v| v * (T::ONE / (T::ONE + (-(alpha * v)).exp()))).collect();
    to_tensor(x.dtype(), x.shape.clone(), y)
}

/// `onnx.Swish` (opset 24): `x * sigmoid(alpha * x)`, `alpha` defaulting to 1.
pub fn swish(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let alpha = ctx.float("alpha", 1.0) as f64;
    Ok(vec![float_kernel!(x.dtype(), swish_t(x, alpha))?])
}

/// The TensorScatter operands: `(axis, write_indices)` after checking that `update`
/// fits `past_cache` (same type and rank, same dims except on `axis`, not longer there).
fn scatter_params(ctx: &EvalCtx<'_>, past: &Tensor, update: &Tensor) -> Result<(usize, Vec<i64>), String> {
    if update.dtype() != past.dtype() {
        return Err(format!("`update` has element type {}, expected {}", update.dtype(), past.dtype()));
    }
    let ax = norm_axis(ctx.int("axis", -2), past.rank())?;
    if ax == 0 {
        return Err("attribute `axis` must not be the batch axis 0".into());
    }
    let fits = update.rank() == past.rank()
        && (0..past.rank()).all(|i| {
            if i == ax {
                update.shape[i] <= past.shape[i]
            } else {
                update.shape[i] == past.shape[i]
            }
        });
    if !fits {
        return Err(format!("`update` {:?} does not fit `past_cache` {:?} (axis {ax})", update.shape, past.shape));
    }
    let wi = match ctx.opt(2) {
        Some(t) if t.dtype() != DType::I64 => return Err(format!("`write_indices` is {}, expected i64", t.dtype())),
        Some(t) if t.shape != [past.shape[0]] => {
            return Err(format!("`write_indices` {:?} must have shape [{}]", t.shape, past.shape[0]))
        }
        Some(t) => int_operand(t, "write_indices")?,
        None => vec![0; past.shape[0]],
    };
    Ok((ax, wi))
}

/// `onnx.TensorScatter` (opset 24): a copy of `past_cache` with `update` written
/// along `axis` starting at `write_indices[b]` for each batch entry `b`; `circular`
/// wraps the positions modulo the axis size, `linear` requires them to fit.
pub fn tensor_scatter(ctx: &EvalCtx<'_>) -> Out {
    let (past, update) = (ctx.input(0)?, ctx.input(1)?);
    let (ax, wi) = scatter_params(ctx, past, update)?;
    let circular = match ctx.str("mode", "linear") {
        "linear" => false,
        "circular" => true,
        other => return Err(format!("attribute `mode` = \"{other}\" must be linear or circular")),
    };
    let (max_seq, seq) = (past.shape[ax], update.shape[ax]);
    let inner = numel(&past.shape[ax + 1..]);
    let per_batch = numel(&past.shape[1..ax]);
    let mut picks: Vec<(usize, usize)> = (0..past.len()).map(|i| (0, i)).collect();
    for p in 0..numel(&past.shape[..ax]) {
        let start = wi[p / per_batch.max(1)];
        for s in 0..seq {
            let mut pos = start + s as i64;
            if circular {
                pos = pos.rem_euclid(max_seq as i64);
            } else if pos < 0 || pos >= max_seq as i64 {
                return Err(format!("write position {pos} is outside the cache axis of size {max_seq} (mode linear)"));
            }
            for k in 0..inner {
                picks[(p * max_seq + pos as usize) * inner + k] = (1, (p * seq + s) * inner + k);
            }
        }
    }
    Ok(vec![Tensor::new(past.shape.clone(), pick(&[&past.data, &update.data], &picks)?)])
}
