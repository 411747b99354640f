//! Reference kernels: resample family. Resize and the opset-9 Upsample in
//! [`resize`]; GridSample and RoiAlign in [`sample`]; AffineGrid in [`grid`].
//!
//! Interpolation is computed in f64 following the ONNX reference
//! implementations and stored once in the tensor's element type. The kernels
//! are re-exported here so the op table can name them `ik::resample::<kernel>`.

pub mod grid;
pub mod resize;
pub mod sample;

pub use grid::affine_grid;
pub use resize::{resize, upsample};
pub use sample::{grid_sample, roi_align};
