//! Reference kernels: constants and shape-manipulation, indexing and string ops.
//!
//! Most kernels here only move elements: they compute, for every output element,
//! the flat index of its source and gather, so every element type (strings and
//! bools included) is supported without per-type code. Arithmetic (scatter
//! reductions, Range, ...) goes through the wide numeric domain of [`common`].

use super::{EvalCtx, Tensor};
use crate::attr::Attr;

pub mod common;
pub mod generate;
pub mod index;
pub mod layout;
pub mod nms;
pub mod scatter;
pub mod slicing;
pub mod sort;
pub mod strings;

pub use generate::{constant_of_shape, eye_like, range, trilu};
pub use index::{compress, gather, gather_elements, gather_nd, non_zero, one_hot};
pub use layout::{concat, expand, flatten, reshape, shape, size, split, squeeze, tile, transpose, unsqueeze};
pub use nms::non_max_suppression;
pub use scatter::{scatter_elements, scatter_nd};
pub use slicing::{center_crop_pad, pad, reverse_sequence, slice};
pub use sort::{top_k, unique};
pub use strings::{string_concat, string_normalizer, string_split};

/// `core.const`: the referenced pool constant.
pub fn core_const(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let Some(Attr::Sym(name)) = ctx.attrs.get("value") else { return Err("missing `value`".into()) };
    let id = ctx.module.const_by_name(name).ok_or_else(|| format!("undefined constant @{name}"))?;
    Ok(vec![Tensor::from_constant(&ctx.module.consts[id])?])
}
