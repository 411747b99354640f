//! Rewrite rules as data: loading, validation and compilation to `egg` rewrites.
//!
//! Rule files (`passes/rules/*.rules`, and user files given with `--rules`)
//! hold directional rules in the syntax of [`syntax`]. Conditions and
//! computed right-hand sides are Rust functions registered by name in
//! [`conds`] and [`appliers`]; a rule file can only name registered ones.
//! Loading validates everything (syntax, op names and arities, attribute
//! names, variable binding, condition and applier names and arities) and
//! reports every problem with `file:line:col`.

pub mod appliers;
mod args;
mod compile;
pub mod conds;
pub mod env;
mod parse;
pub mod syntax;

pub use args::ArgVal;
pub use compile::{CompiledRhs, Rule};

use crate::egraph::analysis::Interner;
use std::fmt;
use std::sync::Arc;

/// One problem in a rule file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleError {
    /// File name as given.
    pub file: String,
    /// Position.
    pub pos: syntax::Pos,
    /// Message.
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.pos, self.message)
    }
}

/// Every problem found while loading rule files.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{} error(s) in rule files:\n{}", .0.len(), .0.iter().map(|e| format!("  {e}")).collect::<Vec<_>>().join("\n"))]
pub struct RuleErrors(pub Vec<RuleError>);

/// The built-in rule files, by topic.
pub const BUILTIN: &[(&str, &str)] = &[
    ("cleanup.rules", include_str!("../../rules/cleanup.rules")),
    ("fusion.rules", include_str!("../../rules/fusion.rules")),
    ("recognition.rules", include_str!("../../rules/recognition.rules")),
    ("legalize.rules", include_str!("../../rules/legalize.rules")),
    ("canonical.rules", include_str!("../../rules/canonical.rules")),
    ("resize.rules", include_str!("../../rules/resize.rules")),
    ("attention.rules", include_str!("../../rules/attention.rules")),
    ("window.rules", include_str!("../../rules/window.rules")),
    ("window-lower.rules", include_str!("../../rules/window-lower.rules")),
    ("quant.rules", include_str!("../../rules/quant.rules")),
];

/// A validated set of rules, ready to run.
#[derive(Clone, Default)]
pub struct RuleSet {
    /// Rules in load order (built-in files first, then user files in order).
    pub rules: Vec<Arc<Rule>>,
    /// Attribute literals interned while compiling; seeds every e-graph.
    pub attrs: Interner,
    /// The `approximate` rules that may run (by name); the others never do.
    pub enabled_approximations: std::collections::BTreeSet<String>,
}

impl RuleSet {
    /// The built-in rules.
    pub fn builtin() -> Result<RuleSet, RuleErrors> {
        let mut rs = RuleSet::default();
        for (file, src) in BUILTIN {
            rs.add_source(&format!("passes/rules/{file}"), src)?;
        }
        Ok(rs)
    }

    /// Parse, validate and add the rules of one file. On error nothing is added.
    pub fn add_source(&mut self, file: &str, src: &str) -> Result<(), RuleErrors> {
        let topic = std::path::Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or(file).to_owned();
        let (asts, syntax_errors) = parse::parse_file(src);
        let mut errors: Vec<RuleError> =
            syntax_errors.into_iter().map(|(pos, message)| RuleError { file: file.to_owned(), pos, message }).collect();
        let mut attrs = self.attrs.clone();
        let mut new_rules: Vec<Arc<Rule>> = vec![];
        for ast in asts {
            let dup = self.rules.iter().chain(&new_rules).find(|r| r.name == ast.name);
            if let Some(prev) = dup {
                let message = format!("duplicate rule name `{}` (first defined at {})", ast.name, prev.origin);
                errors.push(RuleError { file: file.to_owned(), pos: ast.pos, message });
                continue;
            }
            match compile::compile(&ast, file, &topic, &mut attrs) {
                Ok(r) => new_rules.push(Arc::new(r)),
                Err(es) => errors.extend(es.into_iter().map(|(pos, message)| RuleError {
                    file: file.to_owned(),
                    pos,
                    message,
                })),
            }
        }
        if !errors.is_empty() {
            errors.sort_by_key(|e| (e.pos.line, e.pos.col));
            return Err(RuleErrors(errors));
        }
        self.attrs = attrs;
        self.rules.extend(new_rules);
        Ok(())
    }

    /// Read and add a rule file from disk.
    pub fn add_file(&mut self, path: &std::path::Path) -> Result<(), RuleErrors> {
        let file = path.display().to_string();
        let src = std::fs::read_to_string(path).map_err(|e| {
            RuleErrors(vec![RuleError { file: file.clone(), pos: syntax::Pos::default(), message: e.to_string() }])
        })?;
        self.add_source(&file, &src)
    }

    /// Keep only the rules whose topic is in `topics` (e.g. `["cleanup"]`).
    pub fn only_topics(&self, topics: &[&str]) -> RuleSet {
        let rules = self.rules.iter().filter(|r| topics.contains(&r.topic.as_str())).cloned().collect();
        RuleSet { rules, ..self.clone() }
    }

    /// Let the `approximate` rules named in `names` run. Every name must be
    /// one; all unknown names are reported together.
    pub fn enable_approximations(&mut self, names: &[String]) -> Result<(), String> {
        let mut errs = Vec::new();
        for n in names {
            match self.rules.iter().find(|r| &r.name == n) {
                Some(r) if r.approximate => {
                    self.enabled_approximations.insert(n.clone());
                }
                Some(r) => errs.push(format!("rule `{n}` ({}) is exact, not an approximation", r.origin)),
                None => {
                    errs.push(format!("no approximate rule `{n}` (approximate rules: {})", self.approximate_names()))
                }
            }
        }
        match errs.is_empty() {
            true => Ok(()),
            false => Err(errs.join("\n")),
        }
    }

    /// The names of the `approximate` rules, comma-separated.
    pub fn approximate_names(&self) -> String {
        let v: Vec<&str> = self.rules.iter().filter(|r| r.approximate).map(|r| r.name.as_str()).collect();
        v.join(", ")
    }

    /// The rules that may run: exact ones, and the enabled approximations
    /// unless `exact_only` (reference functions stay exact).
    pub fn runnable(&self, exact_only: bool) -> impl Iterator<Item = &Arc<Rule>> {
        self.rules
            .iter()
            .filter(move |r| !r.approximate || (!exact_only && self.enabled_approximations.contains(&r.name)))
    }
}
