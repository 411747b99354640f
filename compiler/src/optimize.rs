//! `edgec opt`: building the optimizing pipeline from the command line and
//! explaining what it did.

use passes::egraph::analysis::FoldBudget;
use passes::egraph::Limits;
use passes::rules::RuleSet;
use passes::target::{OpQuery, Support, TargetProfile};
use passes::PipelineOptions;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Pipeline options for a target name (or profile path) and user rule files.
/// All rule-file errors are reported together.
pub fn pipeline_options(target: &str, rule_files: &[PathBuf]) -> anyhow::Result<(PipelineOptions, Arc<TargetProfile>)> {
    let profile = Arc::new(codegen::targets::load(target)?);
    let mut rules = RuleSet::builtin()?;
    let mut errors = vec![];
    for f in rule_files {
        if let Err(e) = rules.add_file(f) {
            errors.extend(e.0);
        }
    }
    if !errors.is_empty() {
        return Err(passes::rules::RuleErrors(errors).into());
    }
    let opts = PipelineOptions {
        rules,
        target: Some(profile.clone()),
        limits: Limits::default(),
        fold: fold_budget(&profile),
        bucket: None,
        attention_window: None,
    };
    Ok((opts, profile))
}

/// The optimizer's folding budget for `profile` (its `fold_bytes`, if any).
fn fold_budget(profile: &TargetProfile) -> FoldBudget {
    let d = FoldBudget::default();
    match profile.fold_bytes {
        Some(b) => FoldBudget {
            small_bytes: usize::try_from(b).unwrap_or(usize::MAX),
            max_elems: usize::MAX,
            float_fills: true,
            ..d
        },
        None => d,
    }
}

/// Live ops of every function by op name.
pub fn op_histogram(m: &ir::Module) -> BTreeMap<&'static str, usize> {
    let mut h = BTreeMap::new();
    for f in &m.funcs {
        for id in f.live_ops() {
            *h.entry(f.ops[id].opcode.name()).or_default() += 1;
        }
    }
    h
}

/// Call `k` with the profile query of op `op` of `f` (its opcode,
/// attributes, operand and result types, which operands are constants).
pub fn with_query<R>(f: &ir::Function, op: &ir::OpData, k: impl FnOnce(&OpQuery) -> R) -> R {
    let inputs: Vec<Option<&ir::TensorType>> = op.operands.iter().map(|o| o.map(|v| f.ty(v))).collect();
    let outputs: Vec<ir::TensorType> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
    let is_const = |v: ir::Value| matches!(f.values[v].def, ir::ValueDef::Result(d, _) if f.ops[d].opcode == ir::Opcode::CoreConst);
    let consts: Vec<bool> = op.operands.iter().map(|o| o.is_some_and(is_const)).collect();
    k(&OpQuery { opcode: op.opcode, attrs: &op.attrs, inputs: &inputs, outputs: &outputs, consts: &consts })
}

/// Ops of `m` the target does not run natively, grouped by reason.
pub fn unsupported(m: &ir::Module, t: &TargetProfile) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for f in &m.funcs {
        for id in f.live_ops() {
            if let Support::No(why) = with_query(f, &f.ops[id], |q| t.support(q)) {
                *out.entry(why).or_default() += 1;
            }
        }
    }
    out
}

/// The `--explain` text: rules fired and declined, op counts before/after,
/// and what the target will run on its fallback.
pub fn explain(
    before: &BTreeMap<&'static str, usize>,
    after: &ir::Module,
    cx: &passes::PassCx,
    target: &TargetProfile,
) -> String {
    let mut s = String::new();
    for (pass, text) in cx.texts() {
        s += &format!("== pass {pass} ==\n{text}");
    }
    for (pass, r) in cx.egraphs() {
        s += &format!("== pass {pass} ==\n{r}");
    }
    let after_h = op_histogram(after);
    let total = |h: &BTreeMap<&str, usize>| h.values().sum::<usize>();
    s += &format!("== ops: {} -> {} ==\n", total(before), total(&after_h));
    let names: std::collections::BTreeSet<&str> = before.keys().chain(after_h.keys()).copied().collect();
    for n in names {
        let (b, a) = (before.get(n).copied().unwrap_or(0), after_h.get(n).copied().unwrap_or(0));
        if b != a {
            s += &format!("  {n:<28} {b:>5} -> {a:<5}\n");
        }
    }
    let sim = if target.simulated { " (simulated profile)" } else { "" };
    let un = unsupported(after, target);
    if un.is_empty() {
        s += &format!("== target {}{sim}: every op runs natively ==\n", target.name);
    } else {
        s += &format!("== target {}{sim}: {} op(s) fall back ==\n", target.name, un.values().sum::<usize>());
        for (why, n) in un {
            s += &format!("  {n:>5} × {why}\n");
        }
    }
    s
}

/// The `edgec rules` listing: every rule with its origin and documentation,
/// then the conditions and appliers rule files may name.
pub fn list_rules(rules: &RuleSet) -> String {
    let mut s = String::new();
    let mut topic = "";
    for r in &rules.rules {
        if r.topic != topic {
            topic = &r.topic;
            s += &format!("== {topic} ==\n");
        }
        let approx = if r.approximate { "APPROXIMATE, off unless --approximate NAME: " } else { "" };
        s += &format!("{:<32} {approx}{}\n{:<32} ({})\n", r.name, r.doc, "", r.origin);
    }
    s += "== conditions ==\n";
    for c in passes::rules::appliers::all_conds() {
        s += &format!("{}({})\n    {}\n", c.name, c.signature, c.doc);
    }
    s += "== appliers ==\n";
    for a in passes::rules::appliers::all() {
        s += &format!("@{}({})\n    {}\n", a.name, a.signature, a.doc);
    }
    s
}
