//! Shape-manipulation ops: reshape, transpose, concat, split, slice, gather, ...

use super::{InferCtx, InferResult};

/// `core.const`: the type of the referenced constant.
pub fn core_const(ctx: &InferCtx<'_>) -> InferResult {
    let c = ctx.attr_const.ok_or("`value` does not name a constant in the module")?;
    Ok(vec![c.ty.clone()])
}

macro_rules! stub { ($($n:ident),*) => { $( #[allow(missing_docs)] pub fn $n(_ctx: &InferCtx<'_>) -> InferResult { Err("shape inference not implemented".into()) } )* } }
stub!(
    reshape,
    transpose,
    concat,
    split,
    slice,
    gather,
    squeeze,
    unsqueeze,
    flatten,
    expand,
    shape_of,
    pad,
    tile,
    constant_of_shape
);
