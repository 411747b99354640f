//! The compile report (`edgec compile --report FILE.json`): memory plan
//! figures per function, the ops emitted, the weights size.

use super::emit::Emitter;
use super::{EmitOptions, Entry};
use crate::plan::Plan;
use ir::Function;
use serde::Serialize;
use std::collections::BTreeMap;

/// Memory figures of one emitted function.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FuncReport {
    /// Function name.
    pub name: String,
    /// Ops emitted (constants included).
    pub ops: usize,
    /// Bytes of its arena plan.
    pub arena_bytes: usize,
    /// The lower bound: most bytes live at one program point.
    pub lower_bound_bytes: usize,
    /// Bytes of all its intermediates without reuse.
    pub intermediates_bytes: usize,
    /// Results written in place over an operand.
    pub in_place: usize,
    /// Bytes of the values it hoists to construction (computed once from constants).
    pub hoisted_bytes: usize,
    /// Ops hoisted to construction.
    pub hoisted_ops: usize,
}

impl FuncReport {
    /// The figures of `f` under `plan`.
    pub fn of(f: &Function, plan: &Plan) -> FuncReport {
        FuncReport {
            name: f.name.clone(),
            ops: plan.schedule.len(),
            arena_bytes: plan.arena_bytes(),
            lower_bound_bytes: plan.lower_bound_bytes(),
            intermediates_bytes: plan.total_bytes(),
            in_place: plan.in_place.len(),
            hoisted_bytes: plan.const_bytes(),
            hoisted_ops: plan.hoist_schedule.len(),
        }
    }
}

/// What `edgec compile --emit rust` generated.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Report {
    /// Crate name.
    pub name: String,
    /// Source model.
    pub source: String,
    /// Per emitted function.
    pub functions: Vec<FuncReport>,
    /// Bytes of the model's arenas (largest function plus dispatcher outputs).
    pub arena_bytes: usize,
    /// Largest lower bound over the functions.
    pub lower_bound_bytes: usize,
    /// Bytes of the weights file.
    pub weights_bytes: usize,
    /// Ops emitted, by name.
    pub ops: BTreeMap<String, usize>,
    /// Bucketed dims and their buckets.
    pub buckets: Vec<(String, Vec<u64>)>,
    /// `@main` has symbolic dims: its memory is planned when the model runs,
    /// once per set of sizes (the arena figures above are then zero).
    pub dynamic: bool,
}

impl Report {
    /// Build the report; `arena_bytes` is the model's whole arena and
    /// `extra_bytes` what it holds beyond the largest function plan (the
    /// dispatcher's output buffers), which also counts towards the bound.
    pub fn new(
        opts: &EmitOptions,
        entry: &Entry<'_>,
        functions: Vec<FuncReport>,
        e: &Emitter<'_>,
        (arena_bytes, extra_bytes): (usize, usize),
        weights_bytes: usize,
    ) -> Report {
        let lower_bound_bytes = functions.iter().map(|f| f.lower_bound_bytes).max().unwrap_or(0) + extra_bytes;
        let buckets = entry
            .dispatch
            .as_ref()
            .map_or(vec![], |(_, d)| d.dims.iter().cloned().zip(d.buckets.iter().cloned()).collect());
        Report {
            name: opts.name.clone(),
            source: opts.source.clone(),
            functions,
            arena_bytes,
            lower_bound_bytes,
            weights_bytes,
            ops: e.ops.clone(),
            buckets,
            dynamic: entry.dynamic,
        }
    }

    /// The ratio of arena bytes to the lower bound (1.0 when both are 0).
    pub fn plan_ratio(&self) -> f64 {
        if self.lower_bound_bytes == 0 {
            1.0
        } else {
            self.arena_bytes as f64 / self.lower_bound_bytes as f64
        }
    }
}
