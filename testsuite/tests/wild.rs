//! The wild-model corpus (`testsuite/wild/models.toml`), CI subset: every
//! model marked `ci = true`, as its package ships it, through import, the
//! reference interpreter (both data sets), `opt --target cpu` (both),
//! `opt --target rk3588-npu` with `--shape` fixing the size-0 input shapes
//! (data set 0) and the Rust backend with no flags (both data sets, one
//! batch crate for all models), each against onnxruntime's outputs. Missing
//! data is fetched (`testsuite/wild/fetch.sh --ci`); if it cannot be, the
//! test fails. `bash testsuite/wild/run.sh` runs every model through
//! `edgec` itself.

use compiler::check::{compare, read_data_set, Tolerance};
use compiler::driver::{load_model_with, LoadOptions};
use ir::Module;
use std::path::Path;
use testsuite::rustbatch::{build_batch, write_batch, Member};
use testsuite::wild::{ci_models, WildModel};

fn sets(m: &WildModel) -> Vec<std::path::PathBuf> {
    (0..2).map(|k| m.dir().join(format!("test_data_set_{k}"))).collect()
}

/// Run `module` on data sets `sets` with the interpreter and compare.
fn verify(module: &Module, sets: &[std::path::PathBuf], tol: Tolerance) -> Result<(), String> {
    for d in sets {
        let reports = compiler::run::verify_data(module, d, std::slice::from_ref(d), tol).map_err(|e| e.to_string())?;
        for r in &reports {
            match &r.outputs {
                Err(e) => return Err(format!("{}: {e}", d.display())),
                Ok(checks) => {
                    if let Some(c) = checks.iter().find(|c| c.failure.is_some()) {
                        return Err(format!("{}: output #{}: {:?}", d.display(), c.index, c.failure));
                    }
                }
            }
        }
    }
    Ok(())
}

fn optimize(m: &WildModel, target: &str, shapes: Vec<String>) -> Result<Module, String> {
    let req = compiler::pipeline::Request {
        file: m.dir().join("model.onnx").display().to_string(),
        passes: passes::DEFAULT_PIPELINE.to_string(),
        target: target.into(),
        rules: vec![],
        max_enodes: passes::egraph::Limits::default().max_enodes,
        max_iters: passes::egraph::Limits::default().max_iters,
        bucket: vec![],
        pad: vec![],
        buckets_max: 4,
        attention_window: None,
        approximate: vec![],
        consts: vec![],
        shapes,
        dims: vec![],
    };
    compiler::pipeline::run(&req, passes::PassOptions::default()).map(|o| o.module).map_err(|e| format!("{e:?}"))
}

/// Import, interpreter, opt cpu and opt rk3588-npu of one model.
fn front_stages(m: &WildModel) -> Result<(), String> {
    let path = m.dir().join("model.onnx").display().to_string();
    let imported = load_model_with(&path, &LoadOptions::default()).map_err(|e| format!("import: {e}"))?;
    verify(&imported, &sets(m), m.tolerance("interp")).map_err(|e| format!("interpreter: {e}"))?;
    let cpu = optimize(m, "cpu", vec![]).map_err(|e| format!("opt cpu: {e}"))?;
    verify(&cpu, &sets(m), m.tolerance("cpu")).map_err(|e| format!("opt cpu: {e}"))?;
    let npu = optimize(m, "rk3588-npu", m.shape_args()).map_err(|e| format!("opt rk3588-npu: {e}"))?;
    verify(&npu, &sets(m)[..1], m.tolerance("npu")).map_err(|e| format!("opt rk3588-npu: {e}"))
}

#[test]
fn wild_models_import_interpret_and_optimize() {
    let models = ci_models().unwrap_or_else(|e| panic!("{e}"));
    assert!(models.len() >= 20, "the CI subset has {} models, fewer than 20", models.len());
    let results = testsuite::par::par_map(&models, front_stages);
    let failures: Vec<String> = models
        .iter()
        .zip(results)
        .filter_map(|(m, r)| match r {
            Ok(Ok(())) => None,
            Ok(Err(e)) => Some(format!("{}: {e}", m.id)),
            Err(panic) => Some(format!("{}: panicked: {panic}", m.id)),
        })
        .collect();
    eprintln!(
        "wild: {} of {} models through import, interpreter, opt cpu and opt npu",
        models.len() - failures.len(),
        models.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Run module `module` of the batch on one data set and compare with the expected outputs.
fn run_in_batch(exe: &Path, module: &str, set: &Path, tol: Tolerance, tmp: &Path) -> Result<(), String> {
    let m = load_model_with(&set.join("../model.onnx").display().to_string(), &LoadOptions::default())
        .map_err(|e| e.to_string())?;
    let (in_names, out_names) = compiler::run::io_names(&m);
    let (inputs, expected) = read_data_set(set)?;
    let mut cmd = std::process::Command::new(exe);
    cmd.arg(module);
    // The two data sets of a model run in parallel: their files must differ.
    let tag = format!("{module}_{}", set.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default());
    for (k, (n, t)) in in_names.iter().zip(&inputs).enumerate() {
        let p = tmp.join(format!("{tag}_in{k}.npy"));
        std::fs::write(&p, compiler::npy::write_npy(t)).map_err(|e| e.to_string())?;
        cmd.arg("--input").arg(format!("{n}={}", p.display()));
    }
    let out_dir = tmp.join(format!("{tag}_out"));
    let out = cmd.arg("-o").arg(&out_dir).output().map_err(|e| e.to_string())?;
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    for (i, (n, want)) in out_names.iter().zip(&expected).enumerate() {
        let f: String = n.chars().map(|c| if c.is_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
        let bytes = std::fs::read(out_dir.join(format!("{f}.npy"))).map_err(|e| e.to_string())?;
        let got = compiler::check::narrow_like(compiler::npy::read_npy(&bytes)?, want);
        if let Some(fail) = compare(i, &got, want, tol).failure {
            return Err(format!("{}: output `{n}`: {fail}", set.display()));
        }
    }
    Ok(())
}

#[test]
fn wild_models_compile_to_rust_without_flags() {
    let models = ci_models().unwrap_or_else(|e| panic!("{e}"));
    let mut failures = Vec::new();
    let mut members = Vec::new();
    for (i, m) in models.iter().enumerate() {
        let module = format!("w{i}");
        let emitted = optimize(m, "cpu", vec![]).and_then(|out| {
            let opts = codegen::rust::EmitOptions {
                name: format!("n_{module}"),
                source: m.id.clone(),
                pack_for: codegen::rust::DEFAULT_PACK_FOR,
            };
            codegen::rust::generate(&out, &opts).map_err(|e| e.to_string())
        });
        match emitted {
            Ok(g) => members.push((m, Member { module: module.clone(), crate_files: g, name: format!("n_{module}") })),
            Err(e) => failures.push(format!("{}: compile: {e}", m.id)),
        }
    }
    let dir = testsuite::wild::repo_root().join("target/edgec-wild-batch");
    let (compiled, batch): (Vec<&WildModel>, Vec<Member>) = members.into_iter().unzip();
    write_batch(&dir, &batch).expect("batch written");
    let exe = build_batch(&dir).unwrap_or_else(|e| panic!("the wild batch crate does not build:\n{e}"));
    let tmp = dir.join("io");
    std::fs::create_dir_all(&tmp).unwrap();
    let jobs: Vec<(&WildModel, String, std::path::PathBuf)> = compiled
        .iter()
        .zip(&batch)
        .flat_map(|(m, b)| sets(m).into_iter().map(move |s| (*m, b.module.clone(), s)))
        .collect();
    let runs =
        testsuite::par::par_map(&jobs, |(m, module, s)| run_in_batch(&exe, module, s, m.tolerance("rust"), &tmp));
    for ((m, _, _), r) in jobs.iter().zip(runs) {
        match r {
            Ok(Ok(())) => {}
            Ok(Err(e)) => failures.push(format!("{}: rust: {e}", m.id)),
            Err(panic) => failures.push(format!("{}: rust: panicked: {panic}", m.id)),
        }
    }
    eprintln!(
        "wild: {} data sets of {} models run as generated Rust, {} failures",
        jobs.len(),
        models.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
