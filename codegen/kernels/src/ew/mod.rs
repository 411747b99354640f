//! Elementwise kernels: one-input math and activations ([`unary()`]),
//! broadcasting arithmetic for f32/i64/i32 ([`binary()`], in place or not, and
//! the variadic ops), comparisons and logic to/on `bool`, `Where`, and `Cast`.
//!
//! Broadcasting follows numpy: every operand comes with its shape, the caller
//! gives the output shape (the broadcast of the operand shapes), and the
//! generic machinery in [`mod@broadcast`] serves any element type.

pub mod binary;
pub mod broadcast;
pub mod cast;
pub mod logic;
pub mod unary;

pub use binary::{binary, binary_inplace, binary_inplace_rev, variadic, Binary, Num, Variadic};
pub use broadcast::{broadcast_shape, map1, zip2, zip2_inplace, zip3};
pub use cast::{cast, CastFrom};
pub use logic::{compare, is_inf, is_nan, logic, not, where_, Compare, Logic};
pub use unary::{unary, unary_inplace, Unary};
