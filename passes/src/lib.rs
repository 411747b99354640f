//! edgec passes: the pass manager, its registry and the IR transformations.
//!
//! Contract of every pass: given a module that passes the verifier, it leaves a
//! module that passes the verifier and computes the same function (checked
//! numerically against the reference interpreter in the test suite).

pub mod approx;
pub mod bucket;
pub mod egraph;
mod legalize_core;
pub mod manager;
pub mod optimize;
pub mod registry;
pub mod rules;
pub mod saturate;
mod scan_axes;
mod simplify;
pub mod specialize;
pub mod target;
pub mod widen;

pub use legalize_core::LegalizeCore;
pub use manager::{PassError, PassManager, PassOptions, PassRecord, PassReport};
pub use optimize::PipelineOptions;
pub use registry::{parse_pipeline, parse_pipeline_with, PassInfo, DEFAULT_PIPELINE, REGISTRY};

use ir::Module;
use std::sync::{Arc, Mutex};

/// Where non-e-graph passes leave their reports: `(pass name, text)`.
pub type Notes = Arc<Mutex<Vec<(&'static str, String)>>>;

/// A module transformation.
pub trait Pass {
    /// Registry name (used in `--passes` and dumps).
    fn name(&self) -> &'static str;
    /// Run on `m`; returns whether anything changed.
    fn run(&self, m: &mut Module) -> Result<bool, String>;
}
