//! The memory planner on every static model of the test set (optimized for
//! cpu, with the Rust backend's reuse and hoisting policies): buffers live at
//! the same time never overlap, results stay live to the end, and the arena
//! stays within 1.25x of the lower bound.

use codegen::plan::{plan_function, Plan, PlanOptions, Storage};
use codegen::rust::ops::{hoistable, reuse};
use ir::{Function, Module};
use std::path::{Path, PathBuf};

fn models() -> Vec<PathBuf> {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models");
    let mut v = Vec::new();
    for d in [base.clone(), base.join("real")] {
        for e in std::fs::read_dir(&d).unwrap().flatten() {
            if e.path().join("model.onnx").exists() {
                v.push(e.path());
            }
        }
    }
    v.sort();
    v
}

fn optimized(dir: &Path) -> Module {
    let mut m = load(dir);
    let opts = passes::PipelineOptions::default();
    let p = passes::parse_pipeline_with(passes::DEFAULT_PIPELINE, &opts).unwrap();
    passes::PassManager::new(p, Default::default()).run(&mut m, &mut std::io::sink()).unwrap();
    m
}

fn load(dir: &Path) -> Module {
    compiler::driver::load_model(&dir.join("model.onnx").display().to_string()).expect("model loads")
}

fn check(p: &Plan, f: &Function) {
    for (i, a) in p.buffers.iter().enumerate() {
        for b in &p.buffers[i + 1..] {
            let time = a.def <= b.last && b.def <= a.last;
            let space = a.offset < b.offset + b.len && b.offset < a.offset + a.len;
            assert!(
                !(a.class == b.class && time && space && a.len > 0 && b.len > 0),
                "@{}: {a:?} overlaps {b:?}",
                f.name
            );
        }
    }
    for &r in &f.body.results {
        if let Some(Storage::Buffer(b)) = p.storage.get(&r) {
            assert_eq!(p.buffers[*b].last, p.schedule.len());
        }
    }
}

#[test]
fn plans_are_sound_and_tight() {
    let mut report = String::new();
    let mut failures = Vec::new();
    let models = models();
    assert!(models.len() >= 10, "only {} bundled models found", models.len());
    for dir in models {
        let m = optimized(&dir);
        let f = m.func("main").unwrap();
        // Symbolic sizes are placed when the model runs (kernels' plan,
        // tested there); here such a model must still plan.
        let dynamic = f.body.params.iter().any(|&p| f.ty(p).shape.static_dims().is_none());
        let opts = PlanOptions {
            params_in_arena: false,
            reuse: &reuse,
            hoistable: &hoistable,
            dynamic,
            late: &Default::default(),
        };
        let p = match plan_function(f, &opts) {
            Ok(p) => p,
            Err(e) => {
                failures.push(format!("{}: {e}", dir.display()));
                continue;
            }
        };
        if dynamic {
            report += &format!("{}: symbolic sizes, planned when run\n", dir.display());
            continue;
        }
        check(&p, f);
        let (arena, lb, total) = (p.arena_bytes(), p.lower_bound_bytes(), p.total_bytes());
        report += &format!(
            "{}: arena {arena} lower bound {lb} total {total} ratio {:.3}\n",
            dir.display(),
            arena as f64 / lb.max(1) as f64
        );
        assert!(arena as f64 <= 1.25 * lb as f64, "{}: arena {arena} > 1.25 x {lb}", dir.display());
    }
    eprintln!("{report}");
    assert!(failures.is_empty(), "plans failed:\n{}", failures.join("\n"));
}
