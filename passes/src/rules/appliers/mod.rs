//! Named Rust appliers: right-hand sides that compute (new weights, derived
//! attributes, several new nodes). Each returns the class to merge with the
//! match, or `Err(reason)` to decline (reported by `--explain`).

use super::args::ArgVal;
use super::conds::CondDef;
use super::env::ApplyEnv;
use egg::Id;
use std::ops::RangeInclusive;

/// An applier function.
pub type ApplyFn = fn(&mut ApplyEnv<'_>, &[ArgVal]) -> Result<Id, String>;

/// A registered applier.
pub struct ApplierDef {
    /// Name used in rule files (after `@`).
    pub name: &'static str,
    /// Accepted argument counts.
    pub arity: RangeInclusive<usize>,
    /// Argument list for messages and docs.
    pub signature: &'static str,
    /// One-line meaning.
    pub doc: &'static str,
    /// The function.
    pub apply: ApplyFn,
}

impl std::fmt::Debug for ApplierDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The op a bare word names in a rule (`Add`, `Relu`, `silu`): `onnx.WORD`,
/// else `core.WORD`.
pub(crate) fn op_word(arg: &ArgVal) -> Result<ir::Opcode, String> {
    match arg {
        ArgVal::Word(w) => ir::Opcode::from_name(&format!("onnx.{w}"))
            .or_else(|| ir::Opcode::from_name(&format!("core.{w}")))
            .ok_or_else(|| format!("no op {w}")),
        other => Err(format!("expected an op name, got {other:?}")),
    }
}

pub mod attention;
pub mod canonical;
pub mod cleanup;
pub mod fusion;
pub mod quant;
pub mod recognition;
pub mod resize;
pub mod window;
pub mod window_lower;

/// Every applier, by name: the families' tables in order.
pub fn all() -> impl Iterator<Item = &'static ApplierDef> {
    cleanup::APPLIERS
        .iter()
        .chain(fusion::APPLIERS)
        .chain(recognition::APPLIERS)
        .chain(canonical::APPLIERS)
        .chain(resize::APPLIERS)
        .chain(attention::APPLIERS)
        .chain(window::APPLIERS)
        .chain(window_lower::APPLIERS)
        .chain(quant::APPLIERS)
}

/// Every condition: the shared ones (`conds::CONDS`), then the families' own.
pub fn all_conds() -> impl Iterator<Item = &'static CondDef> {
    super::conds::CONDS
        .iter()
        .chain(cleanup::CONDS)
        .chain(fusion::CONDS)
        .chain(recognition::CONDS)
        .chain(canonical::CONDS)
        .chain(resize::CONDS)
        .chain(attention::CONDS)
        .chain(window::CONDS)
        .chain(window_lower::CONDS)
        .chain(quant::CONDS)
}
