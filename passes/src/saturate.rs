//! Equality saturation: runs a [`RuleSet`] over every function of a module in
//! an e-graph (`egraph`), then extracts for the target (see the `egraph`
//! module docs for the stages).

use crate::egraph::analysis::{EAnalysis, FoldBudget, EG};
use crate::egraph::bridge::{emit, import};
use crate::egraph::extract::{extract, own_costs, CostModel, OpCount};
use crate::egraph::lang::ENode;
use crate::egraph::{EgraphReport, FuncReport, Limits, RuleStats, TargetCost, TargetInfo};
use crate::rules::env::{ApplyEnv, Env};
use crate::rules::{CompiledRhs, Rule, RuleSet};
use egg::{Applier, BackoffScheduler, Id, PatternAst, Rewrite, Runner, StopReason, Subst, Symbol};
use ir::Module;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

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
        let mut picked: HashMap<Id, usize> = crate::egraph::rooted::refine(&imp.eg, &own, &roots, &greedy);
        crate::egraph::refine::refine(&imp.eg, &own, &mut picked, &roots);
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
