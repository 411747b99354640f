//! The Rust backend: a module optimized for the `cpu` target becomes a
//! standalone Cargo crate.
//!
//! The crate holds `src/lib.rs` (a `Model` whose constructor decodes and
//! checks the embedded weights, packs constant operands and allocates one
//! arena per element type; `run` writes every intermediate at the offsets of
//! the memory plan and allocates nothing), `src/main.rs` (a CLI: `--input
//! NAME=FILE.npy`, `-o DIR`, `--bench N`), `weights.bin`, and a copy of the
//! kernel runtime in `kernels/` (its only dependency) and of the numeric core
//! in `numeric/` (the runtime's only dependency), so it builds offline
//! without the edgec checkout. Bucketed modules dispatch by size in `run`;
//! reference functions are not emitted.
//!
//! Output is deterministic: the same module gives byte-identical files.

mod cli;
pub use cli::cargo_toml_shared;
mod control;
mod dynamic;
mod emit;
mod func;
mod model;
pub mod ops;
mod report;
mod shapes;
mod sz;
mod threads;
mod weights;

pub use report::{FuncReport, Report};

use crate::plan::{plan_function, Plan, PlanOptions};
use emit::{Emitter, FuncCx};
use ir::{Module, Opcode};
use std::collections::BTreeMap;

include!(concat!(env!("OUT_DIR"), "/kernel_sources.rs"));

/// What to generate.
#[derive(Clone, Debug)]
pub struct EmitOptions {
    /// Crate name (a Rust package name: letters, digits, `-`, `_`).
    pub name: String,
    /// Where the model came from (for the generated docs).
    pub source: String,
    /// The GEMM family whose layout constant weights are packed in at
    /// compile time (used in place by a CPU that runs it, packed again at
    /// construction by one that does not); `None` packs at construction.
    pub pack_for: Option<Isa>,
}

pub use edgec_kernels::gemm::Isa;

/// The default of [`EmitOptions::pack_for`]: the edge CPUs' family (NEON),
/// the same whatever machine compiles, so output stays deterministic.
pub const DEFAULT_PACK_FOR: Option<Isa> = Some(Isa::Neon);

/// A generated crate: files by path relative to the crate directory.
#[derive(Debug)]
pub struct Generated {
    /// `(path, contents)`, in a fixed order.
    pub files: Vec<(String, Vec<u8>)>,
    /// What was generated (memory plan figures, ops).
    pub report: Report,
}

/// Every problem that prevents generating the crate.
#[derive(Debug, thiserror::Error)]
#[error("the Rust backend cannot compile this module:\n  {}", .0.join("\n  "))]
pub struct EmitErrors(pub Vec<String>);

/// The functions to emit: `@main`, or its bucket callees if it dispatches.
pub struct Entry<'a> {
    /// The `core.bucket_dispatch` of `@main`, if bucketed.
    pub dispatch: Option<(&'a ir::OpData, ir::ops::control::dispatch::Dispatch)>,
    /// Functions to emit as methods, with their plans.
    pub funcs: Vec<(&'a ir::Function, Plan)>,
    /// Per function, its shapes if they are computed when the model runs.
    pub shapes: Vec<Option<emit::Shapes>>,
    /// Per function, the base name of its method (`main`, or `main__v1`
    /// for a variant of a function with shape-dependent ranks).
    pub methods: Vec<String>,
    /// Functions emitted as several variants: `(base name, variants)`.
    pub variant_groups: Vec<(String, usize)>,
    /// Per function, true if its shapes are computed when the model runs.
    pub is_dyn: Vec<bool>,
    /// `@main` has symbolic dims (shapes computed when the model runs).
    pub dynamic: bool,
}

impl Entry<'_> {
    /// `run` takes and returns shaped views (bucketed or symbolic dims).
    pub fn view_api(&self) -> bool {
        self.dispatch.is_some() || self.dynamic
    }
}

/// The Rust backend's preparation passes: onnx ops with a core form become
/// it (`legalize-core`), then the ops its table widens are put between
/// exact f16/bf16 casts (`widen-half`).
pub fn prepare_passes() -> Vec<Box<dyn passes::Pass>> {
    vec![Box::new(passes::LegalizeCore), Box::new(passes::widen::WidenHalf { widened: ops::widened })]
}

/// Run [`prepare_passes`] on `m` (verifying after each, dumping IR as
/// `opts` asks), then enter the `target` phase that [`emit`] takes.
pub fn prepare(
    m: &mut Module,
    opts: passes::PassOptions,
    dump: &mut dyn std::io::Write,
) -> Result<passes::PassReport, passes::PassError> {
    let report = passes::PassManager::new(prepare_passes(), opts).run(m, dump)?;
    m.phase = ir::Phase::Target;
    if let Err(errors) = ir::verify::verify(m) {
        let rendered = errors.render(m);
        return Err(passes::PassError::BrokeIr { pass: "widen-half", errors, rendered });
    }
    Ok(report)
}

/// Run the Rust backend's preparation passes on a copy of `m` (an
/// optimized module in any phase) and generate its crate.
pub fn generate(m: &Module, opts: &EmitOptions) -> Result<Generated, EmitErrors> {
    let mut m = m.clone();
    let popts = passes::PassOptions { verify_each: true, print_after_all: false, print_after: vec![] };
    prepare(&mut m, popts, &mut std::io::sink()).map_err(|e| EmitErrors(vec![e.to_string()]))?;
    emit(&m, opts)
}

fn entry(m: &Module) -> Result<Entry<'_>, Vec<String>> {
    let main = m.func("main").ok_or_else(|| vec!["module has no @main function".to_string()])?;
    let (reuse, hoistable) = (&ops::reuse, &ops::hoistable);
    let dispatch =
        main.live_ops().into_iter().map(|id| &main.ops[id]).find(|op| op.opcode == Opcode::CoreBucketDispatch);
    let (names, params_in_arena, dispatch) = match dispatch {
        Some(op) => {
            let d = ir::ops::control::dispatch::Dispatch::from_attrs(&op.attrs).map_err(|e| vec![e])?;
            (d.callees.clone(), true, Some((op, d)))
        }
        None => (vec!["main".to_string()], false, None),
    };
    let mut funcs = Vec::new();
    let mut shapes = Vec::new();
    let mut methods = Vec::new();
    let mut variant_groups = Vec::new();
    let mut errs = Vec::new();
    for n in names {
        let Some(f) = m.func(&n) else {
            errs.push(format!("callee @{n} is missing"));
            continue;
        };
        let dynamic = dispatch.is_none() && dynamic::needs_runtime_shapes(m, f);
        let variants: Vec<Option<emit::Shapes>> = match dynamic {
            true => match dynamic::variants(m, f) {
                Ok(v) => v.into_iter().map(Some).collect(),
                Err(e) => {
                    errs.extend(e);
                    continue;
                }
            },
            false => vec![None],
        };
        let count = variants.len();
        if count > 1 {
            variant_groups.push((n.clone(), count));
        }
        for (k, sh) in variants.into_iter().enumerate() {
            let none = std::collections::HashSet::new();
            let late = sh.as_ref().map_or(&none, |s| &s.late);
            match plan_function(f, &PlanOptions { params_in_arena, reuse, hoistable, dynamic, late }) {
                Ok(p) => {
                    check_results(f, &p, dispatch.is_some(), &n, &mut errs);
                    funcs.push((f, p));
                    shapes.push(sh);
                    methods.push(if count > 1 { format!("{n}__v{k}") } else { n.clone() });
                }
                Err(e) => errs.push(format!("@{n}: {e}")),
            }
        }
    }
    if errs.is_empty() {
        let is_dyn: Vec<bool> = shapes.iter().map(Option::is_some).collect();
        let dynamic = is_dyn.iter().any(|&d| d);
        Ok(Entry { dispatch, funcs, shapes, methods, variant_groups, is_dyn, dynamic })
    } else {
        Err(errs)
    }
}

/// Every result of `f` must be computed into the arena or an own buffer.
fn check_results(f: &ir::Function, p: &Plan, bucketed: bool, n: &str, errs: &mut Vec<String>) {
    for (i, r) in f.body.results.iter().enumerate() {
        let ok = p.result_copies.contains_key(&i)
            || match p.storage.get(r) {
                Some(crate::plan::Storage::Buffer(_) | crate::plan::Storage::Own(_)) => true,
                Some(crate::plan::Storage::Hoisted(_)) => !bucketed,
                _ => false,
            };
        if !ok {
            errs.push(format!("@{n}: output #{i} is an input or a constant; the Rust backend needs it computed"));
        }
    }
}

/// Generate the crate for `m`, a module in the `target` phase that the Rust
/// backend's preparation passes made (see [`generate`] for one that is not).
/// Any other module is an error naming each offending op.
pub fn emit(m: &Module, opts: &EmitOptions) -> Result<Generated, EmitErrors> {
    if m.phase != ir::Phase::Target {
        return Err(EmitErrors(vec![format!(
            "the module is in phase `{}`; the Rust backend takes phase `target` (run its preparation passes: {})",
            m.phase.name(),
            prepare_passes().iter().map(|p| p.name()).collect::<Vec<_>>().join(", ")
        )]));
    }
    if let Err(e) = ir::verify::verify(m) {
        return Err(EmitErrors(e.0.iter().map(|d| d.to_string()).collect()));
    }
    let entry = entry(m).map_err(EmitErrors)?;
    let mut e = Emitter {
        m,
        weights: Default::default(),
        parts: Default::default(),
        errors: vec![],
        ops: BTreeMap::new(),
        hoisting: false,
        pack_for: opts.pack_for,
    };
    let mut func_reports = Vec::new();
    let mut const_base: BTreeMap<crate::plan::Class, usize> = BTreeMap::new();
    let mut entry = entry;
    let mut shapes = std::mem::take(&mut entry.shapes);
    let mut prologues = Vec::new();
    let mut owns = std::collections::BTreeMap::new();
    for (((f, plan), sh), name) in entry.funcs.iter().zip(shapes.iter_mut()).zip(&entry.methods) {
        prologues.push(sh.as_mut().map(|sh| dynamic::prologue(&mut e, name, f, plan, sh)));
        dynamic::control::own_buffers(f, plan, &mut owns);
    }
    e.parts.own_fields.extend(owns);
    for ((((f, plan), sh), prologue), name) in entry.funcs.iter().zip(&shapes).zip(&prologues).zip(&entry.methods) {
        let dy = sh.as_ref().zip(prologue.as_ref());
        let cx = FuncCx {
            f,
            plan,
            base: BTreeMap::new(),
            const_base: const_base.clone(),
            hoist: false,
            dy: dy.map(|(s, _)| s),
        };
        let args = if entry.dispatch.is_some() { String::new() } else { model::param_args(f, cx.dy.is_some()) };
        match dy {
            Some((_, prologue)) => e.function_dyn(&cx, &model::method_name(name), &args, prologue),
            None => e.function(&cx, &model::method_name(name), &args),
        }
        let hx = FuncCx { hoist: true, dy: None, ..cx };
        e.function(&hx, &model::hoist_name(name), "");
        for (&c, &n) in &plan.const_arena {
            *const_base.entry(c).or_default() += n;
        }
        func_reports.push(FuncReport::of(f, plan));
    }
    for (name, count) in &entry.variant_groups {
        let f = m.func(name).ok_or_else(|| EmitErrors(vec![format!("no @{name}")]))?;
        e.parts.methods.push(model::variant_dispatcher(f, name, *count));
        e.parts.fields.push((format!("last_{}", model::method_name(name)), "usize".into(), "0".into()));
    }
    if !e.errors.is_empty() {
        return Err(EmitErrors(e.errors));
    }
    let lib = model::lib_rs(m, &entry, &mut e, opts).map_err(|x| EmitErrors(vec![x]))?;
    let main_rs = cli::main_rs(m, &entry, opts);
    let weights = e.weights.file();
    let main = m.func("main").ok_or_else(|| EmitErrors(vec!["module has no @main function".into()]))?;
    let (sizes, outs) = model::arena_sizes(&entry, main);
    let arena: usize = sizes.iter().map(|(c, n)| c.bytes() * n).sum();
    let extra: usize = outs.iter().map(|(c, _, n)| c.bytes() * n).sum();
    let report = Report::new(opts, &entry, func_reports, &e, (arena, extra), weights.len());
    let mut files = vec![
        ("Cargo.toml".to_string(), cli::cargo_toml(&opts.name).into_bytes()),
        ("src/lib.rs".to_string(), lib.into_bytes()),
        ("src/main.rs".to_string(), main_rs.into_bytes()),
        ("weights.bin".to_string(), weights),
        ("kernels/Cargo.toml".to_string(), cli::kernels_toml().into_bytes()),
    ];
    for (path, text) in KERNEL_SOURCES {
        files.push((format!("kernels/{path}"), text.as_bytes().to_vec()));
    }
    files.push(("numeric/Cargo.toml".to_string(), cli::numeric_toml().into_bytes()));
    for (path, text) in NUMERIC_SOURCES {
        files.push((format!("numeric/{path}"), text.as_bytes().to_vec()));
    }
    Ok(Generated { files, report })
}
