//! Neural-network ops: matmul, gemm, convolution, pooling, normalization, softmax, resize.

use super::{InferCtx, InferResult};

macro_rules! stub { ($($n:ident),*) => { $( #[allow(missing_docs)] pub fn $n(_ctx: &InferCtx<'_>) -> InferResult { Err("shape inference not implemented".into()) } )* } }
stub!(matmul, gemm, conv, conv_transpose, pool, global_pool, batch_norm, layer_norm, softmax, resize);
