//! Reference kernels: attention family. The onnx Attention and
//! RotaryEmbedding in [`onnx`]; LinearAttention and FlexAttention in
//! [`linear`]; CausalConvWithState in [`causal_conv`]; the fused
//! `core.attention` in [`fused`] and its tiled form `core.attention_blocked`
//! in [`blocked`]; the window ops (`core.window_partition`,
//! `core.window_merge`, `core.window_attention`) in [`window`].
//!
//! The onnx kernels compute in the `Real` domain (f32 for f32/f16/bf16, f64
//! for f64); the `core.*` kernels are composed from the onnx kernels of other
//! families (MatMul, Mul, Add, Where, Softmax), so they round exactly like the
//! unfused chains they replace (`core.attention_blocked` differs only by
//! summation order, see its docs). Shared here: the attention `window`
//! attribute and a float scalar maker.

use crate::interp::elementwise::num::float_data;
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;

pub mod blocked;
pub mod causal_conv;
pub mod fused;
pub mod linear;
pub mod onnx;
pub mod window;

pub use blocked::attention_blocked;
pub use causal_conv::causal_conv_with_state;
pub use linear::{flex_attention, linear_attention};
pub use onnx::{attention, rotary_embedding};

/// A rank-0 tensor of float type `dt` holding `x` (rounded once to `dt`).
pub(crate) fn scalar(dt: DType, x: f64) -> Result<Tensor, String> {
    Ok(Tensor::new(vec![], float_data(dt, vec![x])?))
}

/// The `window` attribute of an attention op: keys `j` with `|i - j| <= W` only.
pub fn window_attr(ctx: &EvalCtx<'_>) -> Result<Option<usize>, String> {
    match ctx.attrs.int("window") {
        None => Ok(None),
        Some(w) => usize::try_from(w).map(Some).map_err(|_| format!("attribute `window` = {w} must be >= 0")),
    }
}

/// True where query `i` may see key `j` under a window of `w`.
pub fn in_window(i: usize, j: usize, w: usize) -> bool {
    i.abs_diff(j) <= w
}
