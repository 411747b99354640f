//! The TFLite backend: an INT8 TFLite flatbuffer written from a quantized
//! edgec module ([`emit`]), in the form Arm's Vela compiles for Ethos-U
//! NPUs, and a listing of any TFLite file ([`inspect`]).
//!
//! Invariants: only builtin operators are written; activations are int8
//! (asymmetric), weights int8 per output channel with zero point 0, biases
//! int32 on `input scale × weight scale`; rank-4 activations are NHWC; the
//! same module gives the same bytes.

pub mod emit;
pub mod inspect;
pub mod schema;

pub use emit::{emit, has_cpu_form, has_form, EmitError, Emitted};
pub use inspect::{inspect, InspectError};
