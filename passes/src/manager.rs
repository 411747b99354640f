//! The pass manager: runs a pipeline, verifies after each pass, dumps IR on
//! request and records per-pass timing and op counts.
//!
//! Timings are reported, never used to decide anything, so output is
//! deterministic.

use crate::Pass;
use ir::text::{PrintOptions, Printer, WeightsMode};
use ir::verify::{verify, VerifyErrors};
use ir::Module;
use std::fmt;
use std::time::{Duration, Instant};

/// Errors from building or running a pipeline.
#[derive(Debug, thiserror::Error)]
pub enum PassError {
    /// Names in `--passes` that are not registered.
    #[error("unknown pass(es): {}; valid passes are: {}", unknown.join(", "), valid.join(", "))]
    UnknownPasses {
        /// The unknown names, in pipeline order.
        unknown: Vec<String>,
        /// Every registered name.
        valid: Vec<&'static str>,
    },
    /// A pass reported a failure.
    #[error("pass `{pass}` failed: {message}")]
    Failed {
        /// Pass name.
        pass: &'static str,
        /// Its message.
        message: String,
    },
    /// A pass left IR that does not verify (an edgec bug).
    #[error("IR does not verify after pass `{pass}` (this is an edgec bug):\n{rendered}")]
    BrokeIr {
        /// Pass name.
        pass: &'static str,
        /// The errors.
        errors: VerifyErrors,
        /// The module with errors printed inline.
        rendered: String,
    },
}

/// Pass manager options.
#[derive(Clone, Debug)]
pub struct PassOptions {
    /// Run the verifier after every pass (always on in tests).
    pub verify_each: bool,
    /// Dump IR after every pass.
    pub print_after_all: bool,
    /// Dump IR after passes with these names.
    pub print_after: Vec<String>,
}

impl Default for PassOptions {
    fn default() -> Self {
        PassOptions { verify_each: true, print_after_all: false, print_after: Vec::new() }
    }
}

/// What one pass did.
#[derive(Clone, Debug)]
pub struct PassRecord {
    /// Pass name.
    pub name: &'static str,
    /// Whether it changed the module.
    pub changed: bool,
    /// Wall time of the pass (excluding verification).
    pub time: Duration,
    /// Live ops before.
    pub ops_before: usize,
    /// Live ops after.
    pub ops_after: usize,
}

/// Per-pass records of one pipeline run, and the notes the passes left.
#[derive(Clone, Debug, Default)]
pub struct PassReport {
    /// One record per pass, in order.
    pub passes: Vec<PassRecord>,
    /// The notes (`--explain` text, e-graph reports), by pass name.
    pub cx: crate::PassCx,
}

impl fmt::Display for PassReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{:<16} {:>10} {:>8} {:>8}  changed", "pass", "time(ms)", "ops in", "ops out")?;
        for r in &self.passes {
            let ms = r.time.as_secs_f64() * 1e3;
            writeln!(f, "{:<16} {ms:>10.3} {:>8} {:>8}  {}", r.name, r.ops_before, r.ops_after, r.changed)?;
        }
        Ok(())
    }
}

/// Runs a pipeline of passes.
pub struct PassManager {
    passes: Vec<Box<dyn Pass>>,
    opts: PassOptions,
}

fn live_ops(m: &Module) -> usize {
    m.funcs.iter().map(|f| f.live_ops().len()).sum()
}

impl PassManager {
    /// A manager for `passes`.
    pub fn new(passes: Vec<Box<dyn Pass>>, opts: PassOptions) -> Self {
        PassManager { passes, opts }
    }

    /// Run every pass on `m`. IR dumps requested by the options go to `dump`
    /// with a header line naming the pass.
    pub fn run(&self, m: &mut Module, dump: &mut dyn std::io::Write) -> Result<PassReport, PassError> {
        let mut report = PassReport::default();
        for pass in &self.passes {
            let name = pass.name();
            let ops_before = live_ops(m);
            let start = Instant::now();
            let changed = pass.run(m, &mut report.cx)?.changed;
            let time = start.elapsed();
            if self.opts.verify_each {
                if let Err(errors) = verify(m) {
                    let rendered = errors.render(m);
                    return Err(PassError::BrokeIr { pass: name, errors, rendered });
                }
            }
            report.passes.push(PassRecord { name, changed, time, ops_before, ops_after: live_ops(m) });
            if self.opts.print_after_all || self.opts.print_after.iter().any(|p| p == name) {
                let opts = PrintOptions { weights: WeightsMode::Elide { inline_limit: 64 }, locs: true };
                let text = Printer::new(opts).print(m).text;
                let _ = write!(dump, "// ----- IR after {name} -----\n{text}");
            }
        }
        Ok(report)
    }
}
