//! Elementwise kernels: one-input math and activations ([`unary()`]),
//! the same math in f64 for the other float types ([`unary_real()`]),
//! broadcasting arithmetic for every numeric type ([`binary()`], in place or not, and
//! the variadic ops), comparisons and logic to/on `bool`, `Where`, `Cast`
//! (to and from the sub-16-bit types: [`lowp8`]) and `BitCast`.
//!
//! Broadcasting follows numpy: every operand comes with its shape, the caller
//! gives the output shape (the broadcast of the operand shapes), and the
//! generic machinery in [`mod@broadcast`] serves any element type.

pub mod binary;
pub mod bitcast;
pub mod bits;
pub mod broadcast;
pub mod cast;
pub mod logic;
pub mod lowp8;
pub mod pow;
pub mod real;
pub mod unary;

pub use binary::{binary, binary_inplace, binary_inplace_rev, variadic, Binary, Num, Variadic};
pub use bitcast::{bitcast, RawBytes};
pub use bits::{bitwise, bitwise_not, Bits, Bitwise};
pub use broadcast::{broadcast_shape, map1, zip2, zip2_inplace, zip3};
pub use cast::{cast, CastFrom};
pub use logic::{compare, is_inf, is_nan, logic, not, where_, Compare, Logic};
pub use pow::pow_mixed;
pub use real::{clip, unary_real, unary_real_inplace};
pub use unary::{unary, unary_inplace, Unary};
