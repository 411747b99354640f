//! The e-graph passes (`optimize`, `cleanup`, `const-fold`, `cse`) and the
//! options they share.

use crate::egraph::analysis::FoldBudget;
use crate::egraph::{Limits, TargetInfo};
use crate::rules::RuleSet;
use crate::saturate::optimize_module;
use crate::Pass;
use ir::Module;
use std::sync::Arc;

/// Options for building a pipeline: the rules, the target and the limits the
/// e-graph passes use. Passes leave their reports in the `PassCx` the
/// manager gives them (`PassReport::cx`).
#[derive(Clone)]
pub struct PipelineOptions {
    /// Rules (built-ins plus user files).
    pub rules: RuleSet,
    /// Extraction target; `None` extracts by op count.
    pub target: Option<Arc<dyn TargetInfo>>,
    /// Saturation limits.
    pub limits: Limits,
    /// Constant-folding budget.
    pub fold: FoldBudget,
    /// What the `bucket` pass specializes (`None`: the pass refuses to run).
    pub bucket: Option<crate::bucket::BucketSpec>,
    /// The window of the opt-in `attention-window` approximation.
    pub attention_window: Option<u64>,
}

impl Default for PipelineOptions {
    fn default() -> Self {
        PipelineOptions {
            // The built-in rule files are compiled in and tested; failing to load them is an edgec bug.
            rules: RuleSet::builtin().unwrap_or_else(|e| panic!("built-in rules do not load: {e}")),
            target: None,
            limits: Limits::default(),
            fold: FoldBudget::default(),
            bucket: None,
            attention_window: None,
        }
    }
}

/// One e-graph pass: a name, the rule topics it runs and whether it folds.
pub struct EgraphPass {
    name: &'static str,
    rules: RuleSet,
    fold: FoldBudget,
    opts: PipelineOptions,
}

impl EgraphPass {
    /// A pass running the rules of `topics` (`None`: all rules).
    pub fn new(name: &'static str, topics: Option<&[&str]>, fold: bool, opts: &PipelineOptions) -> Self {
        let rules = match topics {
            Some(t) => opts.rules.only_topics(t),
            None => opts.rules.clone(),
        };
        let fold = FoldBudget { enabled: fold, ..opts.fold };
        EgraphPass { name, rules, fold, opts: opts.clone() }
    }
}

impl Pass for EgraphPass {
    fn name(&self) -> &'static str {
        self.name
    }
    fn run(&self, m: &mut Module, cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let before = fingerprint(m);
        // An enabled approximation may fire: keep the exact function first.
        let exact = match self.rules.runnable(false).any(|r| r.approximate) {
            true => Some(m.clone()),
            false => None,
        };
        let report = optimize_module(m, &self.rules, self.opts.target.clone(), &self.opts.limits, self.fold)
            .map_err(|e| self.fail(e))?;
        let approximated: Vec<String> = self
            .rules
            .rules
            .iter()
            .filter(|r| r.approximate)
            .filter_map(|r| report.rules.fired.get(&r.name).map(|n| format!("{} ({n}×): {}", r.name, r.doc)))
            .collect();
        if let (false, Some(mut exact)) = (approximated.is_empty(), exact) {
            crate::approx::keep_reference(&mut exact);
            let name = crate::bucket::reference_name("main");
            if m.func(&name).is_none() {
                if let Some(r) = exact.func(&name) {
                    m.funcs.push(r.clone());
                }
            }
            for what in approximated {
                crate::approx::record(m, what);
            }
        }
        cx.notes.push((self.name, crate::Note::Egraph(report)));
        Ok(crate::PassResult::changed(fingerprint(m) != before))
    }
}

/// The module text without weight contents (enough to tell whether a pass changed it).
fn fingerprint(m: &Module) -> String {
    use ir::text::{PrintOptions, Printer, WeightsMode};
    Printer::new(PrintOptions { weights: WeightsMode::Elide { inline_limit: 0 }, locs: true }).print(m).text
}
