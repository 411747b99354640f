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
    optimize_and_compare_approx(m, pipeline, target, &[], inputs, tol)
}

/// [`optimize_and_compare`] with the `approximate` rules named in `approx`
/// enabled.
pub fn optimize_and_compare_approx(
    m: &Module,
    pipeline: &str,
    target: Option<&str>,
    approx: &[&str],
    inputs: &[Tensor],
    tol: Tolerance,
) -> Result<RuleRun, String> {
    let mut opts = options(target)?;
    let names: Vec<String> = approx.iter().map(|s| s.to_string()).collect();
    opts.rules.enable_approximations(&names)?;
    let passes = parse_pipeline_with(pipeline, &opts).map_err(|e| e.to_string())?;
    let mut out = m.clone();
    let live = |m: &Module| m.funcs.iter().map(|f| f.live_ops().len()).sum::<usize>();
    let before_ops = live(m);
    let report = PassManager::new(passes, PassOptions { verify_each: true, ..Default::default() })
        .run(&mut out, &mut std::io::sink())
        .map_err(|e| e.to_string())?;
    let mut fired = BTreeMap::new();
    for (_, r) in report.cx.egraphs() {
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

/// SplitMix64: a tiny deterministic generator, seeded from a proptest value,
/// that the rule tests use to build random graphs and data.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `0..n` (0 for `n == 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.bits() % n.max(1) as u64) as usize
    }
    /// A fair coin.
    pub fn coin(&mut self) -> bool {
        self.bits() & 1 == 1
    }
    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo + 1) as usize) as i64
    }
    /// `lo + k * step` for a random `k` with the result in `[lo, hi]`.
    pub fn grid(&mut self, lo: f32, hi: f32, step: f32) -> f32 {
        let n = ((hi - lo) / step).round() as usize;
        lo + self.below(n + 1) as f32 * step
    }
    /// A random element of `v`.
    pub fn pick<T: Copy>(&mut self, v: &[T]) -> T {
        v[self.below(v.len())]
    }
    /// Shuffle `v` in place (Fisher–Yates).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i + 1));
        }
    }
    /// A random permutation of `0..n`.
    pub fn perm(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        self.shuffle(&mut p);
        p
    }
}

/// The IR text of a static tensor type, e.g. `f32[2, 3]`.
pub fn ty(dtype: &str, shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("{dtype}[{}]", dims.join(", "))
}
