//! Reference kernels: constants and shape-manipulation ops.

use super::{EvalCtx, Tensor};
use crate::attr::Attr;

/// `core.const`: the referenced pool constant.
pub fn core_const(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let Some(Attr::Sym(name)) = ctx.attrs.get("value") else { return Err("missing `value`".into()) };
    let id = ctx.module.const_by_name(name).ok_or_else(|| format!("undefined constant @{name}"))?;
    Ok(vec![Tensor::from_constant(&ctx.module.consts[id])?])
}
