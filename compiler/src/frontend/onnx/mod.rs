//! The ONNX frontend: decodes a model (`proto`, hand-written `prost` messages,
//! no `protoc`) and lowers it to the IR's `onnx.*` dialect (`import`).
//!
//! Imported ops use the newest opset's signatures; `convert` upgrades older
//! opset forms (attributes that became operands, changed defaults) so later
//! stages see one form per op. Every op keeps its ONNX node name and op type
//! as provenance. Problems are collected: one error lists every unsupported
//! op type (with its count and first node) and every malformed node.
//!
//! onnxruntime's `com.microsoft` contrib ops (and its default-domain
//! `SimplifiedLayerNormalization`) are lowered to standard ops by `contrib`;
//! an unknown contrib op is reported as `com.microsoft::Op`.

mod bind;
mod contrib;
mod control;
mod convert;
mod declared;
mod import;
mod importer;
pub mod lenient;
mod node;
pub mod proto;
pub mod tensor;
mod upgrade;
mod value_info;

pub use bind::{bind_inputs, import_file_bound, BOUND_INPUTS};
pub use import::{import_bytes, import_file, Imported, DIM_ALIASES};

use std::fmt;

/// Why a model could not be imported.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The bytes are not a valid ONNX protobuf.
    #[error("not a valid ONNX model: {0}")]
    Decode(String),
    /// A tensor (initializer, constant, attribute) is malformed or unsupported.
    #[error("{0}")]
    Tensor(String),
    /// Reading the model file failed.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// Everything wrong with the graph, collected.
    #[error("{0}")]
    Problems(Problems),
}

/// All problems found while importing one model.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Problems {
    /// Unsupported op types: `(domain::op_type, count, first node name)`, sorted.
    pub unsupported: Vec<(String, usize, String)>,
    /// Other errors, each naming its node (`node "n" (OpType): message`).
    pub errors: Vec<String>,
}

impl fmt::Display for Problems {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.unsupported.is_empty() {
            let total: usize = self.unsupported.iter().map(|u| u.1).sum();
            writeln!(f, "{} unsupported op type(s) ({total} node(s)):", self.unsupported.len())?;
            for (op, count, first) in &self.unsupported {
                writeln!(f, "  {op}: {count} node(s), first \"{first}\"")?;
            }
        }
        for e in &self.errors {
            writeln!(f, "{e}")?;
        }
        write!(f, "{} problem(s) in total", self.unsupported.len() + self.errors.len())
    }
}
