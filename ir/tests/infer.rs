//! Shape and type inference through the op table (`op.def().infer`), one module per op
//! family (`ir::Family::name()`): symbolic dims pass through where an output dim equals an
//! input dim, everything else unknowable is `?`, and bad operands give precise errors.
//!
//! Besides the families: `common` (shared helper sets) and `cross_family` (tests that
//! exercise ops of several families in one function).

#[path = "infer/common/mod.rs"]
mod common;

#[path = "infer/attention.rs"]
mod attention;
#[path = "infer/conv/mod.rs"]
mod conv;
#[path = "infer/elementwise.rs"]
mod elementwise;
#[path = "infer/generate.rs"]
mod generate;
#[path = "infer/index/mod.rs"]
mod index;
#[path = "infer/layout/mod.rs"]
mod layout;
#[path = "infer/linalg.rs"]
mod linalg;
#[path = "infer/loss.rs"]
mod loss;
#[path = "infer/norm.rs"]
mod norm;
#[path = "infer/pool.rs"]
mod pool;
#[path = "infer/quant.rs"]
mod quant;
#[path = "infer/reduce/mod.rs"]
mod reduce;
#[path = "infer/resample/mod.rs"]
mod resample;

#[path = "infer/cross_family.rs"]
mod cross_family;
