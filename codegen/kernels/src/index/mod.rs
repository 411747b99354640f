//! Indexing by data: Gather and GatherElements ([`gather()`],
//! [`gather_elements`]), GatherND, ScatterElements and ScatterND
//! ([`scatter`]), TensorScatter ([`tscatter`]) and OneHot ([`mod@one_hot`];
//! the static-shape form with an `(off, on)` pair is [`fn@one_hot`]).
//!
//! Index operands are `i64` or `i32` (`I: Into<i64>`); a negative index
//! counts from the end of its dim. An index outside `[-n, n)` is a run-time
//! error: the kernel panics with a message naming the op and the index (the
//! generated model's convention for bad data-dependent input).

mod gather;
pub mod one_hot;
pub mod scatter;
pub mod tscatter;

pub use gather::{gather, gather_elements, one_hot};

/// Index `i` into a dim of `n` (negative counting from the end); panics
/// with a message naming `op` when it is out of range.
#[inline]
pub(crate) fn index(op: &str, i: i64, n: usize) -> usize {
    let j = if i < 0 { i + n as i64 } else { i };
    assert!(j >= 0 && (j as usize) < n, "{op}: index {i} is out of range for a dim of size {n}");
    j as usize
}
