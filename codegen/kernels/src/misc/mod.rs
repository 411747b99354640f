//! Losses ([`loss`]), scatter/gather by index ([`scatter`]), selection and
//! generation (TopK, Trilu, EyeLike, OneHot: [`select`]), ReverseSequence
//! and Col2Im ([`seq`]), GridSample ([`grid`]), DFT ([`dft`]), CumSum and
//! CumProd ([`cum`]), MaxPool's indices ([`argmax`]), ops whose result size
//! depends on the data (NonZero, Compress, Unique: [`dynamic`];
//! NonMaxSuppression: [`nms`]), Range, windows and MelWeightMatrix
//! ([`generate`]), RoiAlign ([`roi`]); bitwise ops are in [`crate::ew`].
//!
//! Index operands are `i64` or `i32` (`I: Into<i64>`); a negative index
//! counts from the end of its dim. An index outside `[-n, n)` is a run-time
//! error: the kernel panics with a message naming the op and the index (the
//! generated model's convention for bad data-dependent input, as `Gather`).

pub mod affine;
pub mod argmax;
pub mod cum;
pub mod det;
pub mod dft;
pub mod dynamic;
pub mod einsum;
pub mod generate;
pub mod grid;
pub mod loss;
pub mod nms;
pub mod roi;
pub mod scatter;
pub mod select;
pub mod seq;
pub mod tscatter;
pub mod unpool;

/// Advance the row-major multi-index `idx` over `dims` (the last axis
/// fastest), wrapping to all zeros after the last index.
#[inline]
pub(crate) fn next_index(idx: &mut [usize], dims: &[usize]) {
    for a in (0..dims.len()).rev() {
        idx[a] += 1;
        if idx[a] < dims[a] {
            return;
        }
        idx[a] = 0;
    }
}

/// Index `i` into a dim of `n` (negative counting from the end); panics
/// with a message naming `op` when it is out of range.
#[inline]
pub(crate) fn index(op: &str, i: i64, n: usize) -> usize {
    let j = if i < 0 { i + n as i64 } else { i };
    assert!(j >= 0 && (j as usize) < n, "{op}: index {i} is out of range for a dim of size {n}");
    j as usize
}
