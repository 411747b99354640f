//! Frontends: importers that turn models in external formats into edgec IR.

pub mod onnx;
