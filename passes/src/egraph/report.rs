//! What an equality-saturation run reports, and the limits that bound it.

use std::collections::BTreeMap;
use std::fmt;

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
    /// Regions (`If`/`Loop`/`Scan` bodies, at any depth) optimized as scopes
    /// of their own; the other figures are the body's.
    pub regions: usize,
    /// `If`s whose condition folded to a constant, replaced by their branch.
    pub ifs_folded: usize,
    /// Regions whose run stopped on a limit (name and why); `limit_hit` is
    /// also set when this is not empty.
    pub region_limits: Vec<String>,
    /// Regions left unoptimized, with the reason (a region whose ops do not
    /// type under the function's shapes is a branch that cannot run with them).
    pub region_kept: Vec<String>,
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
            if r.regions > 0 {
                writeln!(f, "  + {} region(s) optimized as scopes, {} constant If(s) folded", r.regions, r.ifs_folded)?;
            }
            for l in &r.region_limits {
                writeln!(f, "  LIMIT HIT in {l}")?;
            }
            for k in &r.region_kept {
                writeln!(f, "  region left unoptimized: {k}")?;
            }
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
