//! edgec passes: the pass manager, its registry and the IR transformations.
//!
//! Contract of every pass: given a module that passes the verifier, it leaves a
//! module that passes the verifier and computes the same function (checked
//! numerically against the reference interpreter in the test suite).

pub mod approx;
pub mod bucket;
pub mod calibrate;
pub mod egraph;
mod legalize_core;
pub mod manager;
pub mod optimize;
pub mod quantize;
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

/// What a pass leaves for reports (`--explain`) beside the module.
#[derive(Clone, Debug)]
pub enum Note {
    /// A paragraph of text (bucketing, approximations).
    Text(String),
    /// An e-graph run: rules fired and declined, limits, extraction.
    Egraph(egraph::EgraphReport),
}

/// The context a pass runs in: where it leaves its notes, by pass name.
#[derive(Clone, Debug, Default)]
pub struct PassCx {
    /// Every note, in the order the passes left them.
    pub notes: Vec<(&'static str, Note)>,
}

impl PassCx {
    /// Leave a text note.
    pub fn text(&mut self, pass: &'static str, text: String) {
        self.notes.push((pass, Note::Text(text)));
    }
    /// The text notes, by pass name.
    pub fn texts(&self) -> impl Iterator<Item = (&'static str, &str)> + '_ {
        self.notes.iter().filter_map(|(p, n)| match n {
            Note::Text(t) => Some((*p, t.as_str())),
            Note::Egraph(_) => None,
        })
    }
    /// The e-graph reports, by pass name.
    pub fn egraphs(&self) -> impl Iterator<Item = (&'static str, &egraph::EgraphReport)> + '_ {
        self.notes.iter().filter_map(|(p, n)| match n {
            Note::Egraph(r) => Some((*p, r)),
            Note::Text(_) => None,
        })
    }
}

/// What a pass did to the module.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PassResult {
    /// Whether the module changed.
    pub changed: bool,
}

impl PassResult {
    /// The module changed (`true`) or not.
    pub fn changed(changed: bool) -> PassResult {
        PassResult { changed }
    }
}

/// A module transformation.
pub trait Pass {
    /// Registry name (used in `--passes` and dumps).
    fn name(&self) -> &'static str;
    /// Run on `m`, leaving notes in `cx`.
    fn run(&self, m: &mut Module, cx: &mut PassCx) -> Result<PassResult, PassError>;
    /// This pass's failure with `message`.
    fn fail(&self, message: String) -> PassError {
        PassError::Failed { pass: self.name(), message }
    }
}
