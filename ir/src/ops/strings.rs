//! Shape/type inference of the string ops: StringConcat, StringSplit and
//! StringNormalizer.

use super::elementwise::broadcast_shapes;
use super::{expect_dtype, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// Require a string operand.
fn string_input<'a>(ctx: &InferCtx<'a>, i: usize, name: &str) -> Result<&'a TensorType, String> {
    let t = ctx.input(i)?;
    expect_dtype(t, name, |d| d == DType::String, "string")?;
    Ok(t)
}

/// StringConcat: broadcast of two string operands.
pub fn string_concat(ctx: &InferCtx<'_>) -> InferResult {
    let (x, y) = (string_input(ctx, 0, "`X`")?, string_input(ctx, 1, "`Y`")?);
    Ok(vec![TensorType::new(DType::String, broadcast_shapes(&x.shape, &y.shape)?)])
}

/// StringSplit: `Y` adds an unknown trailing dim of parts, `Z` (i64 counts) keeps the shape.
pub fn string_split(ctx: &InferCtx<'_>) -> InferResult {
    let x = string_input(ctx, 0, "`X`")?;
    let y = match x.dims() {
        Some(d) => Shape::from_dims(d.iter().copied().chain([Dim::Unknown])),
        None => Shape::Unranked,
    };
    Ok(vec![TensorType::new(DType::String, y), TensorType::new(DType::I64, x.shape.clone())])
}

/// StringNormalizer: `[C]` to `[C']`, `[1, C]` to `[1, C']`.
pub fn string_normalizer(ctx: &InferCtx<'_>) -> InferResult {
    let x = string_input(ctx, 0, "`X`")?;
    let shape = match x.dims() {
        None => Shape::Unranked,
        Some([_]) => Shape::from_dims([Dim::Unknown]),
        Some([b, _]) if b.as_static().is_none_or(|n| n == 1) => Shape::from_dims([Dim::Static(1), Dim::Unknown]),
        Some(_) => return Err(format!("input must be [C] or [1, C], found {}", x.shape)),
    };
    Ok(vec![TensorType::new(DType::String, shape)])
}
