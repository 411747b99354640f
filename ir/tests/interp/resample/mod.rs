//! Resample-family kernels: Resize and Upsample (hand-checked and the ONNX node tests),
//! GridSample, RoiAlign, AffineGrid.

mod affine_grid;
mod grid_roi;
mod resize;
mod resize_node;
mod resize_node_up;
