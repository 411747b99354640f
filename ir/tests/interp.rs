//! Reference kernels of `ir::interp`, run through `ir::interp::eval_op` (so inference,
//! verification and the runtime type check are exercised too), one module per op family
//! (`ir::Family::name()`). Expected values mirror the ONNX node tests or small hand-checked
//! cases; the larger ones were computed with the ONNX reference implementation (or
//! onnxruntime where the reference lacks a feature) and hard-coded, so no Python is needed.
//!
//! Besides the families: `common` (shared helper sets), `dtypes`, `errors`, `props` and
//! `lowp`, which each cover ops of many families (see their module docs).

// Expected values are written with the digits the reference printed.
#![allow(clippy::approx_constant, clippy::excessive_precision)]

#[path = "interp/common/mod.rs"]
mod common;

#[path = "interp/attention/mod.rs"]
mod attention;
#[path = "interp/conv/mod.rs"]
mod conv;
#[path = "interp/elementwise/mod.rs"]
mod elementwise;
#[path = "interp/generate.rs"]
mod generate;
#[path = "interp/index/mod.rs"]
mod index;
#[path = "interp/layout/mod.rs"]
mod layout;
#[path = "interp/linalg/mod.rs"]
mod linalg;
#[path = "interp/loss.rs"]
mod loss;
#[path = "interp/norm/mod.rs"]
mod norm;
#[path = "interp/pool.rs"]
mod pool;
#[path = "interp/quant/mod.rs"]
mod quant;
#[path = "interp/reduce/mod.rs"]
mod reduce;
#[path = "interp/resample/mod.rs"]
mod resample;
#[path = "interp/rnn.rs"]
mod rnn;
#[path = "interp/select/mod.rs"]
mod select;
#[path = "interp/signal.rs"]
mod signal;
#[path = "interp/strings.rs"]
mod strings;

#[path = "interp/dtypes.rs"]
mod dtypes;
#[path = "interp/errors/mod.rs"]
mod errors;
#[path = "interp/lowp.rs"]
mod lowp;
#[path = "interp/props/mod.rs"]
mod props;
