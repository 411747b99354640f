//! Integer folding: the `quant-fold` pass (the `quant` rule topic with its
//! approximations enabled, `passes/rules/quant.rules`) and [`fold_integer`],
//! which `edgec quantize` runs on the QDQ module it wrote.
//!
//! Invariants: the pass enters the `core` phase first (the `quant` dialect
//! is a core-phase dialect, so it legalizes like `legalize-core`); it
//! replaces a QDQ pattern only where the target runs the integer op (the
//! extraction decides by the target's costs, so a target without
//! `quant.conv` keeps the QDQ form); the rewrite is recorded as an
//! approximation, with the QDQ function kept as `@main.reference`.

use crate::egraph::EgraphReport;
use crate::optimize::{EgraphPass, PipelineOptions};
use crate::{Note, Pass, PassCx, PassError, PassResult};
use ir::Module;

/// The `quant-fold` pass (see the module docs).
pub struct QuantFold {
    inner: EgraphPass,
}

impl QuantFold {
    /// The pass over `opts`' rules and target, with the quant topic's
    /// approximate rules enabled.
    pub fn new(opts: &PipelineOptions) -> QuantFold {
        let mut o = opts.clone();
        let names: Vec<String> =
            o.rules.rules.iter().filter(|r| r.topic == "quant" && r.approximate).map(|r| r.name.clone()).collect();
        // Built-in, approximate rules: enabling them by name cannot fail.
        o.rules.enable_approximations(&names).unwrap_or_else(|e| panic!("built-in quant rules: {e}"));
        QuantFold { inner: EgraphPass::new("quant-fold", Some(&["quant"]), false, &o) }
    }
}

impl Pass for QuantFold {
    fn name(&self) -> &'static str {
        "quant-fold"
    }
    fn run(&self, m: &mut Module, cx: &mut PassCx) -> Result<PassResult, PassError> {
        let entered = crate::LegalizeCore.run(m, cx)?;
        let folded = self.inner.run(m, cx)?;
        Ok(PassResult::changed(entered.changed || folded.changed))
    }
}

/// What [`fold_integer`] did.
#[derive(Clone, Debug, Default)]
pub struct FoldReport {
    /// `quant.*` ops in `@main` after folding.
    pub integer_ops: usize,
    /// Why patterns were not folded, with counts (from the rule report).
    pub declined: Vec<(String, usize)>,
    /// Whether the e-graph stopped at a limit.
    pub limit_hit: bool,
}

/// `m` (a QDQ module) with the integer ops folded in for `opts`' target,
/// dead QDQ nodes removed.
pub fn fold_integer(m: &Module, opts: &PipelineOptions) -> Result<(Module, FoldReport), PassError> {
    let mut out = m.clone();
    let mut cx = PassCx::default();
    QuantFold::new(opts).run(&mut out, &mut cx)?;
    crate::simplify::Dce.run(&mut out, &mut cx)?;
    let mut report = FoldReport::default();
    if let Some(f) = out.func("main") {
        report.integer_ops = f.live_ops().iter().filter(|&&o| f.ops[o].opcode.name().starts_with("quant.")).count();
    }
    for (_, note) in &cx.notes {
        if let Note::Egraph(r) = note {
            report.limit_hit |= egraph_limit(r);
            for reasons in r.rules.declined.values() {
                report.declined.extend(reasons.iter().map(|(why, &n)| (why.clone(), n)));
            }
        }
    }
    Ok((out, report))
}

fn egraph_limit(r: &EgraphReport) -> bool {
    r.funcs.iter().any(|f| f.limit_hit)
}
