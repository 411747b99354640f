//! Shared harness for rule tests: optimize a module with a pipeline (and
//! optionally a target), check the result verifies, run both versions in the
//! reference interpreter on the same inputs and compare within tolerance.
//! Returns how often each rule fired, so tests can assert that the pattern
//! they built was really rewritten (a test whose rule never fires is a defect).

use compiler::check::{compare, Tolerance};
use ir::interp::Tensor;
use ir::Module;
use passes::{parse_pipeline_with, PassManager, PassOptions, PipelineOptions};
use std::collections::BTreeMap;

/// What one optimization did.
#[derive(Debug, Default)]
pub struct RuleRun {
    /// Rule name → times fired (summed over the e-graph passes of the pipeline).
    pub fired: BTreeMap<String, usize>,
    /// Live ops before and after.
    pub ops: (usize, usize),
    /// The optimized module.
    pub optimized: Module,
}

impl RuleRun {
    /// How often `rule` fired.
    pub fn count(&self, rule: &str) -> usize {
        self.fired.get(rule).copied().unwrap_or(0)
    }
}

/// Options for [`optimize_and_compare`].
pub fn options(target: Option<&str>) -> Result<PipelineOptions, String> {
    let mut opts = PipelineOptions::default();
    if let Some(t) = target {
        opts.target = Some(std::sync::Arc::new(codegen::targets::load(t).map_err(|e| e.to_string())?));
    }
    Ok(opts)
}

/// Optimize `m` with `pipeline` (e.g. `"shape-infer,optimize,dce"`) for
/// `target`, then compare interpreter outputs of function `main` on `inputs`.
pub fn optimize_and_compare(
    m: &Module,
    pipeline: &str,
    target: Option<&str>,
    inputs: &[Tensor],
    tol: Tolerance,
) -> Result<RuleRun, String> {
    let opts = options(target)?;
    let passes = parse_pipeline_with(pipeline, &opts).map_err(|e| e.to_string())?;
    let mut out = m.clone();
    let live = |m: &Module| m.funcs.iter().map(|f| f.live_ops().len()).sum::<usize>();
    let before_ops = live(m);
    PassManager::new(passes, PassOptions { verify_each: true, ..Default::default() })
        .run(&mut out, &mut std::io::sink())
        .map_err(|e| e.to_string())?;
    let mut fired = BTreeMap::new();
    for (_, r) in opts.reports.lock().map_err(|e| e.to_string())?.iter() {
        for (k, v) in &r.rules.fired {
            *fired.entry(k.clone()).or_default() += v;
        }
    }
    let want = ir::interp::run(m, "main", inputs.to_vec()).map_err(|e| format!("original: {e}"))?;
    let got = ir::interp::run(&out, "main", inputs.to_vec()).map_err(|e| format!("optimized: {e}"))?;
    if want.len() != got.len() {
        return Err(format!("{} outputs before, {} after", want.len(), got.len()));
    }
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let c = compare(i, g, w, tol);
        if let Some(why) = c.failure {
            return Err(format!("output {i} differs after optimization: {why}\n{}", ir::text::print_module(&out)));
        }
    }
    let after = live(&out);
    Ok(RuleRun { fired, ops: (before_ops, after), optimized: out })
}
