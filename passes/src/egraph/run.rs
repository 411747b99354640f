//! Running a rule set over a module: limits, the egg runner, the report.

use super::analysis::{EAnalysis, FoldBudget, EG};
use super::bridge::{emit, import};
use super::extract::{extract, own_costs, CostModel, OpCount};
use super::lang::ENode;
use super::{TargetCost, TargetInfo};
use crate::rules::env::{ApplyEnv, Env};
use crate::rules::{CompiledRhs, Rule, RuleSet};
use egg::{Applier, BackoffScheduler, Id, PatternAst, Rewrite, Runner, StopReason, Subst, Symbol};
use ir::Module;
use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Bounds on one equality-saturation run. All are counts, so a run that
/// stops on a limit stops at the same place on every machine.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Stop when the e-graph holds more e-nodes than this.
    pub max_enodes: usize,
    /// Stop after this many iterations.
    pub max_iters: usize,
    /// Per-rule match budget per iteration before the rule is backed off.
    pub max_matches_per_rule: usize,
    /// Safety net only: wall-clock seconds after which the run stops and the
    /// report says so (output then depends on machine speed).
    pub safety_time_s: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_enodes: 500_000, max_iters: 32, max_matches_per_rule: 100_000, safety_time_s: 600 }
    }
}

/// How often each rule fired and why the others did not.
#[derive(Clone, Debug, Default)]
pub struct RuleStats {
    /// Rule name → number of merges it caused.
    pub fired: BTreeMap<String, usize>,
    /// Rule name → reason → count, for matches that did not rewrite.
    pub declined: BTreeMap<String, BTreeMap<String, usize>>,
    /// Rule name → facts its appliers reported about applied rewrites → count.
    pub notes: BTreeMap<String, BTreeMap<String, usize>>,
}

/// The run over one function.
#[derive(Clone, Debug)]
pub struct FuncReport {
    /// Function name.
    pub func: String,
    /// Why saturation stopped.
    pub stop: String,
    /// Whether a limit (rather than saturation) stopped it.
    pub limit_hit: bool,
    /// Iterations run.
    pub iterations: usize,
    /// E-nodes at the end.
    pub enodes: usize,
    /// E-classes at the end.
    pub eclasses: usize,
    /// Live ops before and after.
    pub ops_before: usize,
    /// Live ops after.
    pub ops_after: usize,
}

/// The report of one optimizer run.
#[derive(Clone, Debug, Default)]
pub struct EgraphReport {
    /// Per function.
    pub funcs: Vec<FuncReport>,
    /// Per rule.
    pub rules: RuleStats,
}

impl fmt::Display for EgraphReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for r in &self.funcs {
            let limit = if r.limit_hit { " (LIMIT HIT: result may be less optimized)" } else { "" };
            writeln!(
                f,
                "e-graph @{}: stop={}{limit}, iterations={}, e-nodes={}, e-classes={}, ops {} -> {}",
                r.func, r.stop, r.iterations, r.enodes, r.eclasses, r.ops_before, r.ops_after
            )?;
        }
        for (name, n) in &self.rules.fired {
            writeln!(f, "  fired {n:>5} × {name}")?;
            for (note, k) in self.rules.notes.get(name).into_iter().flatten() {
                writeln!(f, "          {k:>3} × {note}")?;
            }
            // Where a rule fired, its appliers' refusals still explain the matches it
            // left alone (e.g. a Resize with a non-integer scale); failed conditions
            // are listed only for rules that never fired (they are mostly noise).
            let refused =
                self.rules.declined.get(name).into_iter().flatten().filter(|(w, _)| !w.starts_with("condition "));
            for (why, k) in refused {
                writeln!(f, "          {k:>3} × declined: {why}")?;
            }
        }
        for (name, reasons) in &self.rules.declined {
            if self.rules.fired.contains_key(name) {
                continue;
            }
            for (why, n) in reasons {
                writeln!(f, "  not fired: {name} ({n} match(es)): {why}")?;
            }
        }
        Ok(())
    }
}

struct Shared {
    target: Option<Arc<dyn TargetInfo>>,
    stats: Mutex<RuleStats>,
}

struct RuleApplier {
    rule: Arc<Rule>,
    shared: Arc<Shared>,
}

impl RuleApplier {
    fn decline(&self, why: String) {
        let mut s = self.shared.stats.lock().unwrap_or_else(|e| e.into_inner());
        *s.declined.entry(self.rule.name.clone()).or_default().entry(why).or_default() += 1;
    }
}

impl Applier<ENode, EAnalysis> for RuleApplier {
    fn apply_one(
        &self,
        eg: &mut EG,
        root: Id,
        subst: &Subst,
        _ast: Option<&PatternAst<ENode>>,
        _name: Symbol,
    ) -> Vec<Id> {
        let target = self.shared.target.as_deref();
        let lhs_op = match self.rule.lhs.ast.as_ref().last() {
            Some(egg::ENodeOrVar::ENode(ENode::Op { op, .. })) => Some(*op),
            _ => None,
        };
        let env = Env { eg, root, subst, lhs_op, target };
        if let Some(c) = self.rule.conds.iter().find(|c| (c.def.check)(&env, &c.args) == c.negated) {
            self.decline(format!("condition {}{} does not hold", if c.negated { "!" } else { "" }, c.def.name));
            return vec![];
        }
        let mut notes = Vec::new();
        let new = match &self.rule.rhs {
            CompiledRhs::Pat(p) => Ok(eg.add_instantiation(p, subst)),
            CompiledRhs::Applier(def, args) => {
                let mut a = ApplyEnv { eg, root, subst, target, notes: Vec::new() };
                let r = (def.apply)(&mut a, args);
                notes = a.notes;
                r
            }
        };
        let new = match new {
            Ok(id) => id,
            Err(why) => {
                self.decline(why);
                return vec![];
            }
        };
        if eg[new].data.loc == ir::Loc::Unknown {
            eg[new].data.loc = eg[root].data.loc.clone();
        }
        if eg.union(root, new) {
            let mut s = self.shared.stats.lock().unwrap_or_else(|e| e.into_inner());
            *s.fired.entry(self.rule.name.clone()).or_default() += 1;
            for n in notes {
                *s.notes.entry(self.rule.name.clone()).or_default().entry(n).or_default() += 1;
            }
            vec![new]
        } else {
            vec![]
        }
    }
}

fn stop_text(s: &Option<StopReason>) -> (String, bool) {
    match s {
        Some(StopReason::Saturated) => ("saturated".into(), false),
        Some(StopReason::IterationLimit(n)) => (format!("iteration limit ({n})"), true),
        Some(StopReason::NodeLimit(n)) => (format!("e-node limit ({n})"), true),
        Some(StopReason::TimeLimit(t)) => (format!("safety time limit ({t} s)"), true),
        Some(StopReason::Other(o)) => (o.clone(), true),
        None => ("not run".into(), false),
    }
}

/// Optimize every function of `m` with `rules`, extracting for `target` (or
/// by op count without one). Fails if a rule proved unsound (see the analysis).
pub fn optimize_module(
    m: &mut Module,
    rules: &RuleSet,
    target: Option<Arc<dyn TargetInfo>>,
    limits: &Limits,
    fold: FoldBudget,
) -> Result<EgraphReport, String> {
    let shared = Arc::new(Shared { target, stats: Mutex::new(RuleStats::default()) });
    let rewrites = |exact_only: bool| -> Result<Vec<Rewrite<ENode, EAnalysis>>, String> {
        let build = |r: &Arc<Rule>| {
            let applier = RuleApplier { rule: r.clone(), shared: shared.clone() };
            Rewrite::new(r.name.clone(), r.lhs.clone(), applier).map_err(|e| format!("rule {}: {e}", r.name))
        };
        rules.runnable(exact_only).map(build).collect()
    };
    // Reference functions (`@main.reference`, kept to measure deviations)
    // never take an approximation.
    let (all, exact) = (rewrites(false)?, rewrites(true)?);
    let mut report = EgraphReport::default();
    for fi in 0..m.funcs.len() {
        let rewrites = match m.funcs[fi].name.ends_with(crate::bucket::REFERENCE_SUFFIX) {
            true => &exact,
            false => &all,
        };
        let ops_before = m.funcs[fi].live_ops().len();
        let analysis = EAnalysis { attrs: rules.attrs.clone(), fold, ..Default::default() };
        let mut imp = import(m, &m.funcs[fi], analysis)?;
        let runner = Runner::<ENode, EAnalysis, ()>::default()
            .with_egraph(imp.eg)
            .with_node_limit(limits.max_enodes)
            .with_iter_limit(limits.max_iters)
            .with_time_limit(Duration::from_secs(limits.safety_time_s))
            .with_scheduler(BackoffScheduler::default().with_initial_match_limit(limits.max_matches_per_rule))
            .run(rewrites);
        let (stop, limit_hit) = stop_text(&runner.stop_reason);
        let iterations = runner.iterations.len();
        imp.eg = runner.egraph;
        if !imp.eg.analysis.conflicts.is_empty() {
            let mut c = imp.eg.analysis.conflicts.clone();
            c.dedup();
            return Err(format!("unsound rewrite detected in @{}:\n  {}", m.funcs[fi].name, c.join("\n  ")));
        }
        let model: Box<dyn CostModel + '_> = match &shared.target {
            Some(t) => Box::new(TargetCost(t.as_ref())),
            None => Box::new(OpCount),
        };
        let own = own_costs(&imp.eg, model.as_ref());
        let roots: Vec<Id> = imp.roots.iter().chain(&imp.opaque_roots).copied().collect();
        let greedy = extract(&imp.eg, &own);
        let mut picked: HashMap<Id, usize> = super::rooted::refine(&imp.eg, &own, &roots, &greedy);
        super::refine::refine(&imp.eg, &own, &mut picked, &roots);
        let choice = picked.into_iter().map(|(k, n)| (k, imp.eg[k].nodes[n].clone())).collect();
        emit(m, fi, &imp, &choice)?;
        report.funcs.push(FuncReport {
            func: m.funcs[fi].name.clone(),
            stop,
            limit_hit,
            iterations,
            enodes: imp.eg.total_number_of_nodes(),
            eclasses: imp.eg.number_of_classes(),
            ops_before,
            ops_after: m.funcs[fi].live_ops().len(),
        });
    }
    report.rules = shared.stats.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(report)
}
