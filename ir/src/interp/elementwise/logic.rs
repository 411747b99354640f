//! Comparison, boolean, selection and bitwise kernels.

use super::num::*;
use crate::interp::{Data, EvalCtx, Tensor};
use crate::types::DType;
use std::cmp::Ordering;

/// Broadcast the two operands and order each pair of elements (`None` when
/// unordered, i.e. a NaN is involved). Bool and string operands are only
/// allowed if `any_type` (equality).
fn pair_orderings(ctx: &EvalCtx<'_>, any_type: bool) -> Result<(Vec<usize>, Vec<Option<Ordering>>), String> {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    same_dtype(&[a, b])?;
    let (shape, maps) = broadcast_all(&[a, b])?;
    let idx = maps[0].iter().zip(&maps[1]);
    let ords = match (&a.data, &b.data) {
        (Data::Bool(x), Data::Bool(y)) if any_type => idx.map(|(&i, &j)| Some(x[i].cmp(&y[j]))).collect(),
        (Data::String(x), Data::String(y)) if any_type => idx.map(|(&i, &j)| Some(x[i].cmp(&y[j]))).collect(),
        _ => match (numeric(a)?, numeric(b)?) {
            (Nums::F(x), Nums::F(y)) => idx.map(|(&i, &j)| x[i].partial_cmp(&y[j])).collect(),
            (Nums::I(x), Nums::I(y)) => idx.map(|(&i, &j)| Some(x[i].cmp(&y[j]))).collect(),
            _ => return Err("operands must have the same element type".into()),
        },
    };
    Ok((shape, ords))
}

fn compare(ctx: &EvalCtx<'_>, any_type: bool, pred: impl Fn(Ordering) -> bool) -> KResult {
    let (shape, ords) = pair_orderings(ctx, any_type)?;
    let out = ords.into_iter().map(|o| o.is_some_and(&pred)).collect();
    Ok(vec![Tensor::new(shape, Data::Bool(out))])
}

/// `onnx.Equal`: any element type including bool and string (NaN ≠ NaN).
pub fn equal(ctx: &EvalCtx<'_>) -> KResult {
    compare(ctx, true, Ordering::is_eq)
}

/// `onnx.Less` (numeric types; false if either side is NaN).
pub fn less(ctx: &EvalCtx<'_>) -> KResult {
    compare(ctx, false, Ordering::is_lt)
}

/// `onnx.LessOrEqual`.
pub fn less_or_equal(ctx: &EvalCtx<'_>) -> KResult {
    compare(ctx, false, Ordering::is_le)
}

/// `onnx.Greater`.
pub fn greater(ctx: &EvalCtx<'_>) -> KResult {
    compare(ctx, false, Ordering::is_gt)
}

/// `onnx.GreaterOrEqual`.
pub fn greater_or_equal(ctx: &EvalCtx<'_>) -> KResult {
    compare(ctx, false, Ordering::is_ge)
}

/// A broadcasting binary op on bool tensors.
fn logic(ctx: &EvalCtx<'_>, f: impl Fn(bool, bool) -> bool) -> KResult {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let (x, y) = (bool_input(a, "A")?, bool_input(b, "B")?);
    let (shape, maps) = broadcast_all(&[a, b])?;
    let out = maps[0].iter().zip(&maps[1]).map(|(&i, &j)| f(x[i], y[j])).collect();
    Ok(vec![Tensor::new(shape, Data::Bool(out))])
}

/// `onnx.And`.
pub fn and(ctx: &EvalCtx<'_>) -> KResult {
    logic(ctx, |a, b| a && b)
}

/// `onnx.Or`.
pub fn or(ctx: &EvalCtx<'_>) -> KResult {
    logic(ctx, |a, b| a || b)
}

/// `onnx.Xor`.
pub fn xor(ctx: &EvalCtx<'_>) -> KResult {
    logic(ctx, |a, b| a != b)
}

/// `onnx.Not`.
pub fn not(ctx: &EvalCtx<'_>) -> KResult {
    let x = ctx.input(0)?;
    let v = bool_input(x, "X")?;
    Ok(vec![Tensor::new(x.shape.clone(), Data::Bool(v.iter().map(|b| !b).collect()))])
}

/// `onnx.Where`: `condition ? X : Y` with three-way broadcasting, any element type.
pub fn where_(ctx: &EvalCtx<'_>) -> KResult {
    let (c, x, y) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let cond = bool_input(c, "condition")?;
    same_dtype(&[x, y])?;
    let (shape, maps) = broadcast_all(&[c, x, y])?;
    let pick: Vec<bool> = maps[0].iter().map(|&i| cond[i]).collect();
    let (xs, ys) = (x.data.gather(&maps[1]), y.data.gather(&maps[2]));
    macro_rules! select {
        ($($var:ident),*) => {
            match (xs, ys) {
                $( (Data::$var(a), Data::$var(b)) => Data::$var(
                    a.into_iter().zip(b).zip(&pick).map(|((a, b), &p)| if p { a } else { b }).collect()
                ), )*
                _ => return Err("X and Y must have the same element type".into()),
            }
        };
    }
    let out = select!(F32, F16, BF16, F64, I8, U8, I16, U16, I32, U32, I64, U64, Bool, String);
    Ok(vec![Tensor::new(shape, out)])
}

/// A broadcasting binary op on two integer tensors of one type (bitwise ops
/// on the sign-extended values, narrowed back by wrapping).
fn int_binary(ctx: &EvalCtx<'_>, f: impl Fn(i128, i128) -> i128) -> KResult {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    let dt = same_dtype(&[a, b])?;
    let (x, y) = (int_input(a, "A")?, int_input(b, "B")?);
    let (shape, maps) = broadcast_all(&[a, b])?;
    let out = maps[0].iter().zip(&maps[1]).map(|(&i, &j)| f(x[i], y[j])).collect();
    Ok(vec![Tensor::new(shape, int_data(dt, out)?)])
}

/// `onnx.BitwiseAnd`.
pub fn bitwise_and(ctx: &EvalCtx<'_>) -> KResult {
    int_binary(ctx, |a, b| a & b)
}

/// `onnx.BitwiseOr`.
pub fn bitwise_or(ctx: &EvalCtx<'_>) -> KResult {
    int_binary(ctx, |a, b| a | b)
}

/// `onnx.BitwiseXor`.
pub fn bitwise_xor(ctx: &EvalCtx<'_>) -> KResult {
    int_binary(ctx, |a, b| a ^ b)
}

/// `onnx.BitwiseNot`.
pub fn bitwise_not(ctx: &EvalCtx<'_>) -> KResult {
    let x = ctx.input(0)?;
    let v = int_input(x, "X")?;
    Ok(vec![Tensor::new(x.shape.clone(), int_data(x.dtype(), v.into_iter().map(|e| !e).collect())?)])
}

/// `onnx.BitShift` on unsigned integers: `X << Y` or `X >> Y` per `direction`;
/// bits shifted past the width are lost (a shift by the width or more gives 0).
pub fn bit_shift(ctx: &EvalCtx<'_>) -> KResult {
    let dt = ctx.input(0)?.dtype();
    if !matches!(dt, DType::U8 | DType::U16 | DType::U32 | DType::U64) {
        return Err(format!("BitShift needs an unsigned integer type, got {dt}"));
    }
    let bits = dt.size_bytes().unwrap_or(8) as i128 * 8;
    let left = match ctx.str("direction", "") {
        "LEFT" => true,
        "RIGHT" => false,
        d => return Err(format!("`direction` must be LEFT or RIGHT, got {d:?}")),
    };
    int_binary(ctx, |x, s| match (s >= bits, left) {
        (true, _) => 0,
        (false, true) => x << s,
        (false, false) => x >> s,
    })
}
