//! edgec's intermediate representation.
//!
//! A [`Module`] holds a constant pool and [`Function`]s; a function holds values
//! and ops in typed arenas ([`entity`]) and a body [`Region`] giving program
//! order. Ops are described once in the op table ([`ops`]), which drives
//! printing, parsing, verification and shape inference. The text form
//! ([`text`]) round-trips: `print(parse(print(m))) == print(m)`.
//!
//! Phases: a module is in phase `onnx` (as imported), `core` (canonical) or
//! `target` (lowered); the verifier checks which dialects each phase allows.

pub mod attr;
pub mod constant;
pub mod entity;
pub mod infer;
pub mod interp;
pub mod lowp;
pub mod module;
pub mod ops;
pub mod syntax;
pub mod text;
pub mod types;
pub mod verify;
pub mod weights;

pub use attr::{Attr, AttrKind, Attrs};
pub use module::{ConstData, ConstId, Constant, Function, Loc, Module, OpData, OpId, Phase, Region, Value, ValueDef};
pub use ops::{Family, OpDef, Opcode};
pub use types::{DType, Dim, Shape, Symbol, TensorType};
