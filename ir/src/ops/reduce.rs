//! Reductions.

use super::{InferCtx, InferResult};

macro_rules! stub { ($($n:ident),*) => { $( #[allow(missing_docs)] pub fn $n(_ctx: &InferCtx<'_>) -> InferResult { Err("shape inference not implemented".into()) } )* } }
stub!(reduce, arg_reduce);
