//! The ONNX frontend.
//!
//! [`proto`] holds the ONNX protobuf messages (`ModelProto`, `GraphProto`,
//! `TensorProto`, ...) as hand-written `prost` derives, so reading a
//! `.onnx` file needs only `prost::Message::decode` — no `protoc`, no build
//! script. The importer that lowers a decoded `ModelProto` to edgec IR lives
//! beside it.

pub mod proto;
