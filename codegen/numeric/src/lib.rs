//! edgec's numeric core: every formula that the reference interpreter (`ir`),
//! the rewrite rules (`passes`) and the kernel runtime (`edgec-kernels`)
//! must compute identically lives here once.
//!
//! Invariants:
//! - No dependencies: generated model crates get a copy of this crate next to
//!   their copy of the kernel runtime and must build offline.
//! - Bit-exact: each function fixes its operation order; callers that need the
//!   same result (the interpreter and a kernel) call the same function with the
//!   same precision. Where the interpreter computes in f64 and a kernel in f32,
//!   the function is generic over [`Float`] or exists in both precisions; a
//!   caller never gets a formula of another precision than it had.
//! - Inlinable: generated crates build without LTO, so a non-generic function
//!   of this crate that a kernel calls per element (the [`Float`] impls, the
//!   `erf` helpers, the codecs) is `#[inline]`; otherwise it is an opaque call
//!   in the hot loop and the loop does not vectorize (a missing one cost
//!   BERT's GELU layers 22%).

pub mod act;
pub mod attention;
pub mod axis;
pub mod boxes;
pub mod det;
pub mod einsum;
pub mod fixed;
pub mod float;
pub mod float16;
pub mod hash;
pub mod lowp;
pub mod quant;
pub mod reduce;
pub mod resize;
pub mod rnn;
pub mod sample;
pub mod signal;
pub mod slice;
pub mod special;
pub mod unary;
pub mod window;

pub use float::Float;
