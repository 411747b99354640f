//! Conv-family kernels: Conv, ConvTranspose and Col2Im node tests, DeformConv, fused `core.conv`.

mod deform;
mod fused;
mod onnx;
