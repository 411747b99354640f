//! Reference kernels: signal family (DFT, STFT, the window generators and
//! MelWeightMatrix).
//!
//! Transforms are naive O(n²) sums computed in f64 (twiddle factors from a table
//! indexed by `k * t mod n`, so large indices lose no accuracy) and rounded once
//! to the tensor's element type. Argument rules are shared with inference
//! (`ops::signal`).

pub mod dft;
pub mod window;

pub use dft::{dft, stft};
pub use window::{blackman_window, hamming_window, hann_window, mel_weight_matrix};

use super::Tensor;
use crate::types::DType;

/// The value of a rank-0 integer tensor of one of the `allowed` types.
fn scalar_int(t: &Tensor, name: &str, allowed: &[DType]) -> Result<i64, String> {
    if !allowed.contains(&t.dtype()) {
        let names: Vec<&str> = allowed.iter().map(|d| d.name()).collect();
        return Err(format!("`{name}` has element type {}, expected {}", t.dtype(), names.join(" or ")));
    }
    if t.rank() != 0 {
        return Err(format!("`{name}` must be a scalar, found shape {:?}", t.shape));
    }
    Ok(t.data.get_i64(0))
}

/// Check that a result of `shape` holds at most 2^28 elements (guards against
/// runaway allocations from bad length operands); returns the element count.
fn check_size(shape: &[usize]) -> Result<usize, String> {
    const LIMIT: usize = 1 << 28;
    shape
        .iter()
        .try_fold(1usize, |n, &d| n.checked_mul(d).filter(|&n| n <= LIMIT))
        .ok_or_else(|| format!("result shape {shape:?} is too large"))
}

/// The value of a rank-0 float tensor.
fn scalar_float(t: &Tensor, name: &str) -> Result<f64, String> {
    if !t.dtype().is_float() {
        return Err(format!("`{name}` has element type {}, expected a float type", t.dtype()));
    }
    if t.rank() != 0 {
        return Err(format!("`{name}` must be a scalar, found shape {:?}", t.shape));
    }
    Ok(t.data.get_f64(0))
}
