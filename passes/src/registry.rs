//! The one registry of pass names. `--passes a,b,c` is resolved here.

use crate::manager::PassError;
use crate::simplify::{Canonicalize, Dce, ShapeInfer};
use crate::Pass;

/// A registered pass.
pub struct PassInfo {
    /// Name used in pipelines.
    pub name: &'static str,
    /// One-line description for `--help` and error messages.
    pub description: &'static str,
    /// Constructor.
    pub make: fn() -> Box<dyn Pass>,
}

/// Every pass edgec knows, in the order they are listed to users.
pub static REGISTRY: &[PassInfo] = &[
    PassInfo {
        name: "canonicalize",
        description:
            "fold trivial identities (Identity, inference Dropout, no-op Transpose/Reshape/Cast/Expand, x+0, x*1)",
        make: || Box::new(Canonicalize),
    },
    PassInfo { name: "dce", description: "remove unused pure ops and unreferenced constants", make: || Box::new(Dce) },
    PassInfo {
        name: "shape-infer",
        description: "refine every value's type with shape inference (symbolic dims included)",
        make: || Box::new(ShapeInfer),
    },
];

/// Build the passes named in a comma-separated pipeline string.
/// All unknown names are reported at once, with the list of valid names.
pub fn parse_pipeline(spec: &str) -> Result<Vec<Box<dyn Pass>>, PassError> {
    let mut passes = Vec::new();
    let mut unknown = Vec::new();
    for name in spec.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        match REGISTRY.iter().find(|p| p.name == name) {
            Some(info) => passes.push((info.make)()),
            None => unknown.push(name.to_owned()),
        }
    }
    if !unknown.is_empty() {
        return Err(PassError::UnknownPasses { unknown, valid: REGISTRY.iter().map(|p| p.name).collect() });
    }
    Ok(passes)
}
