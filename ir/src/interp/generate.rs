//! Reference kernels: generate family, the ops that make tensors from
//! attributes, shapes or scalars: `core.const`, ConstantOfShape, Range,
//! EyeLike, Trilu.

use crate::attr::Attr;
use crate::interp::tensor::wide::{check_size, from_wide, int_operand, numel, pick, scalar_int, unravel, Wide};
use crate::interp::{Data, EvalCtx, Tensor};
use crate::ops::generate::{range_len_float, range_len_int};
use crate::types::DType;

type Out = Result<Vec<Tensor>, String>;

/// `core.const`: the referenced pool constant.
pub fn core_const(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let Some(Attr::Sym(name)) = ctx.attrs.get("value") else { return Err("missing `value`".into()) };
    let id = ctx.module.const_by_name(name).ok_or_else(|| format!("undefined constant @{name}"))?;
    Ok(vec![Tensor::from_constant(&ctx.module.consts[id])?])
}

/// The non-negative dims in a 1-D shape operand.
fn shape_operand(t: &Tensor, name: &str) -> Result<Vec<usize>, String> {
    let v = int_operand(t, name)?;
    if t.rank() > 1 || v.iter().any(|&d| d < 0) {
        return Err(format!("`{name}` must be a 1-D list of non-negative dims, found {v:?}"));
    }
    let shape: Vec<usize> = v.iter().map(|&d| d as usize).collect();
    check_size(&shape)?;
    Ok(shape)
}

/// `onnx.ConstantOfShape`: fill the shape with the one-element constant named by
/// `value` (default: f32 zero).
pub fn constant_of_shape(ctx: &EvalCtx<'_>) -> Out {
    let shape = shape_operand(ctx.input(0)?, "input")?;
    let value = match ctx.attrs.get("value") {
        Some(Attr::Sym(name)) => {
            let id = ctx.module.const_by_name(name).ok_or_else(|| format!("undefined constant @{name}"))?;
            Tensor::from_constant(&ctx.module.consts[id])?
        }
        Some(other) => return Err(format!("`value` must name a constant, found {other}")),
        None => Tensor::scalar_f32(0.0),
    };
    if value.len() != 1 {
        return Err(format!("`value` must have exactly one element, found shape {:?}", value.shape));
    }
    let n = numel(&shape);
    Ok(vec![Tensor::new(shape, value.data.gather(&vec![0; n]))])
}

/// The single value of a Range operand.
fn range_operand(t: &Tensor, name: &str, dt: DType) -> Result<Wide, String> {
    if t.len() != 1 || t.dtype() != dt {
        return Err(format!("`{name}` must be one {dt} value, found {} {:?}", t.dtype(), t.shape));
    }
    Ok(crate::interp::tensor::wide::to_wide(&t.data)?[0])
}

/// `onnx.Range`: `start + i * delta` for `i < max(ceil((limit - start) / delta), 0)`.
/// Floats are computed in f64 and rounded once; f16/bf16 use `stash_type`
/// precision (f32 by default, 11 = f64); integers are exact.
pub fn range(ctx: &EvalCtx<'_>) -> Out {
    let dt = ctx.input(0)?.dtype();
    if !matches!(dt, DType::F32 | DType::F64 | DType::F16 | DType::BF16 | DType::I16 | DType::I32 | DType::I64) {
        return Err(format!("Range does not support element type {dt}"));
    }
    let start = range_operand(ctx.input(0)?, "start", dt)?;
    let limit = range_operand(ctx.input(1)?, "limit", dt)?;
    let delta = range_operand(ctx.input(2)?, "delta", dt)?;
    let count = match (start, limit, delta) {
        (Wide::I(s), Wide::I(l), Wide::I(d)) => range_len_int(s, l, d)?,
        (s, l, d) => range_len_float(s.f(), l.f(), d.f())?,
    };
    let n = check_size(&[count as usize])?;
    let stash = ctx.int("stash_type", 1);
    if !matches!(stash, 1 | 11) {
        return Err(format!("`stash_type` {stash} is not 1 (f32) or 11 (f64)"));
    }
    let low_precision_f32 = matches!(dt, DType::F16 | DType::BF16) && stash == 1;
    let vals: Vec<Wide> = (0..n)
        .map(|i| match (start, delta) {
            (Wide::I(s), Wide::I(d)) => Wide::I(s + i as i128 * d),
            (s, d) if low_precision_f32 => Wide::F((s.f() as f32 + i as f32 * d.f() as f32) as f64),
            (s, d) => Wide::F(s.f() + i as f64 * d.f()),
        })
        .collect();
    Ok(vec![Tensor::new(vec![n], from_wide(dt, &vals))])
}

/// `onnx.EyeLike`: ones on diagonal `k` of a 2-D tensor shaped like the input,
/// of element type `dtype` (default: the input's).
pub fn eye_like(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let dt = ctx.attrs.dtype("dtype").unwrap_or(x.dtype());
    if x.rank() != 2 || dt == DType::String {
        return Err(format!("EyeLike needs a 2-D input and a non-string type, found {dt} {:?}", x.shape));
    }
    let k = ctx.int("k", 0) as i128;
    let cols = x.shape[1];
    let vals: Vec<Wide> =
        (0..x.len()).map(|i| Wide::I(i128::from((i % cols) as i128 - (i / cols) as i128 == k))).collect();
    Ok(vec![Tensor::new(x.shape.clone(), from_wide(dt, &vals))])
}

/// `onnx.Trilu`: keep the upper (`j - i >= k`) or lower (`j - i <= k`) triangle of
/// the last two axes, zeroing the rest.
pub fn trilu(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    if x.rank() < 2 {
        return Err(format!("Trilu needs rank >= 2, found {:?}", x.shape));
    }
    let k = ctx.opt(1).map(|t| scalar_int(t, "k")).transpose()?.unwrap_or(0) as i128;
    let upper = ctx.int("upper", 1) != 0;
    let r = x.rank();
    let picks: Vec<(usize, usize)> = (0..x.len())
        .map(|f| {
            let idx = unravel(f, &x.shape);
            let diff = idx[r - 1] as i128 - idx[r - 2] as i128;
            let keep = if upper { diff >= k } else { diff <= k };
            if keep {
                (0, f)
            } else {
                (1, 0)
            }
        })
        .collect();
    let zero = Data::zeros(x.dtype(), 1);
    Ok(vec![Tensor::new(x.shape.clone(), pick(&[&x.data, &zero], &picks)?)])
}
