//! Equality saturation: runs a [`RuleSet`] over every function of a module in
//! an e-graph (`egraph`), then extracts for the target (see the `egraph`
//! module docs for the stages).

use crate::egraph::analysis::{EAnalysis, FoldBudget, EG};
use crate::egraph::bridge::{emit, import};
use crate::egraph::extract::{extract, own_costs, CostModel, OpCount};
use crate::egraph::lang::ENode;
use crate::egraph::regions;
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
/// by op count without one): each body, then each region inside it (see
/// `egraph::regions`). Fails if a rule proved unsound (see the analysis).
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
        let sat = Saturator { rules, shared: &shared, rewrites, limits, fold };
        let mut run = sat.scope(m, fi, false)?;
        if run.regions > 0 {
            // Regions took copies of the constants they capture.
            crate::simplify::dce_function(&mut m.funcs[fi]);
        }
        run.report.func = m.funcs[fi].name.clone();
        run.report.ops_before = ops_before;
        run.report.ops_after = m.funcs[fi].live_ops().len();
        run.report.regions = run.regions;
        run.report.ifs_folded = run.ifs_folded;
        run.report.limit_hit |= !run.region_limits.is_empty();
        run.report.region_limits = run.region_limits;
        run.report.region_kept = run.region_kept;
        report.funcs.push(run.report);
    }
    report.rules = shared.stats.lock().unwrap_or_else(|e| e.into_inner()).clone();
    Ok(report)
}

/// Rounds of re-optimizing a body whose constant `If`s were inlined.
const IF_ROUNDS: usize = 4;

/// One function's rewrites and limits, applied to its body and regions.
struct Saturator<'a> {
    rules: &'a RuleSet,
    shared: &'a Arc<Shared>,
    rewrites: &'a [Rewrite<ENode, EAnalysis>],
    limits: &'a Limits,
    fold: FoldBudget,
}

/// What optimizing one scope (a body and the regions inside it) did.
struct ScopeRun {
    /// The body's own run (its last round).
    report: FuncReport,
    /// Regions optimized inside it, at any depth.
    regions: usize,
    /// Constant `If`s replaced by their taken branch, at any depth.
    ifs_folded: usize,
    /// Regions whose run stopped on a limit.
    region_limits: Vec<String>,
    /// Regions left as they were, and why.
    region_kept: Vec<String>,
}

impl Saturator<'_> {
    /// Optimize the current body of function `fi`; inline the `If`s whose
    /// condition became constant and optimize again (bounded); then each
    /// region of the result, innermost scopes last.
    fn scope(&self, m: &mut Module, fi: usize, in_region: bool) -> Result<ScopeRun, String> {
        let mut run = ScopeRun {
            report: self.body(m, fi, in_region)?,
            regions: 0,
            ifs_folded: 0,
            region_limits: vec![],
            region_kept: vec![],
        };
        for _ in 0..IF_ROUNDS {
            let n = regions::fold_const_ifs(m, fi);
            if n == 0 {
                break;
            }
            run.ifs_folded += n;
            run.report = self.body(m, fi, in_region)?;
        }
        let owners: Vec<_> =
            m.funcs[fi].body.ops.iter().copied().filter(|&o| !m.funcs[fi].ops[o].regions.is_empty()).collect();
        for op in owners {
            for ri in 0..m.funcs[fi].ops[op].regions.len() {
                let name = regions::name(m, fi, op, ri);
                let before = m.funcs[fi].clone();
                let scope = regions::enter(m, fi, op, ri);
                let sub = self.scope(m, fi, true);
                regions::leave(m, fi, scope);
                // A region whose nodes do not type under the body's shapes is
                // a branch that cannot run with them: it is kept as it was.
                let sub = match sub {
                    Ok(sub) => sub,
                    Err(e) => {
                        m.funcs[fi] = before;
                        run.region_kept
                            .push(format!("{name}: {}", e.lines().map(str::trim).collect::<Vec<_>>().join(" ")));
                        continue;
                    }
                };
                run.regions += 1 + sub.regions;
                run.ifs_folded += sub.ifs_folded;
                if sub.report.limit_hit {
                    run.region_limits.push(format!("{name} ({})", sub.report.stop));
                }
                run.region_limits.extend(sub.region_limits);
                run.region_kept.extend(sub.region_kept);
            }
        }
        Ok(run)
    }

    /// One equality-saturation run over the current body of function `fi`.
    fn body(&self, m: &mut Module, fi: usize, in_region: bool) -> Result<FuncReport, String> {
        let analysis = EAnalysis { attrs: self.rules.attrs.clone(), fold: self.fold, ..Default::default() };
        let mut imp = import(m, &m.funcs[fi], analysis)?;
        let limits = self.limits;
        let runner = Runner::<ENode, EAnalysis, ()>::default()
            .with_egraph(imp.eg)
            .with_node_limit(limits.max_enodes)
            .with_iter_limit(limits.max_iters)
            .with_time_limit(Duration::from_secs(limits.safety_time_s))
            .with_scheduler(BackoffScheduler::default().with_initial_match_limit(limits.max_matches_per_rule))
            .run(self.rewrites);
        let (stop, limit_hit) = stop_text(&runner.stop_reason);
        let iterations = runner.iterations.len();
        imp.eg = runner.egraph;
        if !imp.eg.analysis.conflicts.is_empty() {
            let mut c = imp.eg.analysis.conflicts.clone();
            c.dedup();
            // The body's types were verified: a node that does not type is a
            // rewrite's fault. A region's are looser (an If branch may not
            // type under shapes with which it never runs).
            let what = match in_region {
                true => "its ops do not type under these shapes".to_string(),
                false => format!("unsound rewrite detected in @{}", m.funcs[fi].name),
            };
            return Err(format!("{what}:\n  {}", c.join("\n  ")));
        }
        let model: Box<dyn CostModel + '_> = match &self.shared.target {
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
        Ok(FuncReport {
            func: m.funcs[fi].name.clone(),
            stop,
            limit_hit,
            iterations,
            enodes: imp.eg.total_number_of_nodes(),
            eclasses: imp.eg.number_of_classes(),
            ops_before: 0,
            ops_after: 0,
            regions: 0,
            ifs_folded: 0,
            region_limits: vec![],
            region_kept: vec![],
        })
    }
}
