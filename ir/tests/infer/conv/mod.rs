//! Shape inference of the Conv family.

mod deform;
mod onnx;
