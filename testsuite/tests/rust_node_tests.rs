//! The ONNX node tests the interpreter passes, through the Rust backend:
//! each is optimized for cpu and emitted as a module of one batch crate
//! (`testsuite::rustbatch`), built once and run on every data set with
//! every graph input a run-time input (as the interpreter runs it); outputs
//! are compared with the expected data at the node-test tolerances
//! (integers and bools exactly). Writes
//! `testsuite/conformance/rust-node-report.md` (pass count, every test that
//! does not pass and why) and fails if any test of the committed pass list
//! `testsuite/conformance/rust-node-pass-list.txt` does not pass.
//! `UPDATE_RUST_PASS_LIST=1` rewrites the list from this run.

use compiler::check::{compare, data_sets, read_data_set};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use testsuite::conformance::node_tolerance;
use testsuite::rustbatch::{build_batch, write_batch, Member};

fn root() -> PathBuf {
    testsuite::onnx_data::root()
}

fn conformance_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance")
}

/// The node tests the interpreter passes.
fn passing_node_tests() -> Vec<String> {
    let list = std::fs::read_to_string(conformance_dir().join("node-pass-list.txt")).unwrap_or_default();
    list.lines().filter(|l| l.starts_with("node/")).map(str::to_string).collect()
}

fn compile(dir: &Path, module: &str) -> Result<Member, String> {
    let m = compiler::frontend::onnx::import_file(&dir.join("model.onnx")).map_err(|e| e.to_string())?;
    let opts = testsuite::rulecheck::options(Some("cpu"))?;
    let passes = passes::parse_pipeline_with(passes::DEFAULT_PIPELINE, &opts).map_err(|e| e.to_string())?;
    let mut out = m;
    passes::PassManager::new(passes, passes::PassOptions::default())
        .run(&mut out, &mut std::io::sink())
        .map_err(|e| e.to_string())?;
    let name = format!("n_{module}");
    let opts = codegen::rust::EmitOptions {
        name: name.clone(),
        source: dir.display().to_string(),
        pack_for: codegen::rust::DEFAULT_PACK_FOR,
    };
    let g = codegen::rust::generate(&out, &opts).map_err(|e| e.to_string())?;
    Ok(Member { module: module.to_string(), crate_files: g, name })
}

/// Build, dropping members whose generated code does not compile.
fn build(dir: &Path, members: &mut Vec<Member>, why: &mut BTreeMap<String, String>) -> Option<PathBuf> {
    for _ in 0..24 {
        if members.is_empty() {
            return None;
        }
        write_batch(dir, members).expect("batch written");
        match build_batch(dir) {
            Ok(exe) => return Some(exe),
            Err(e) => {
                let bad: Vec<String> = members
                    .iter()
                    .filter(|m| {
                        e.contains(&format!("src/{}.rs", m.module)) || e.contains(&format!("src/{}_cli.rs", m.module))
                    })
                    .map(|m| m.module.clone())
                    .collect();
                if bad.is_empty() {
                    eprintln!("batch build failed:\n{}", e.chars().take(4000).collect::<String>());
                    return None;
                }
                if std::env::var_os("EDGEC_NODE_VERBOSE").is_some() {
                    eprintln!("{e}");
                }
                for b in &bad {
                    why.insert(b.clone(), format!("generated code does not compile: {}", first_error(&e, b)));
                }
                members.retain(|m| !bad.contains(&m.module));
            }
        }
    }
    None
}

/// The first compiler error located in `module`'s files.
fn first_error(log: &str, module: &str) -> String {
    let mut current = "";
    for l in log.lines() {
        if l.starts_with("error") {
            current = l;
        } else if l.contains(&format!("src/{module}.rs:")) || l.contains(&format!("src/{module}_cli.rs:")) {
            return current.to_string();
        }
    }
    String::new()
}

fn run_one(exe: &Path, dir: &Path, module: &str, tmp: &Path) -> Result<(), String> {
    let meta_inputs = input_names(dir)?;
    let tol = node_tolerance(&dir.file_name().unwrap_or_default().to_string_lossy());
    for set in data_sets(dir) {
        let (inputs, expected) = read_data_set(&set)?;
        let mut cmd = std::process::Command::new(exe);
        cmd.arg(module);
        for (i, (name, t)) in meta_inputs.iter().zip(&inputs).enumerate() {
            let p = tmp.join(format!("{module}_in{i}.npy"));
            std::fs::write(&p, compiler::npy::write_npy(t)).map_err(|e| e.to_string())?;
            cmd.arg("--input").arg(format!("{name}={}", p.display()));
        }
        let out_dir = tmp.join(format!("{module}_out"));
        let out = cmd.arg("-o").arg(&out_dir).output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("failed").to_string());
        }
        let names = output_names(dir)?;
        for (i, (n, want)) in names.iter().zip(&expected).enumerate() {
            let f: String = n.chars().map(|c| if c.is_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
            let bytes = std::fs::read(out_dir.join(format!("{f}.npy"))).map_err(|e| e.to_string())?;
            let got = compiler::check::narrow_like(compiler::npy::read_npy(&bytes)?, want);
            if let Some(fail) = compare(i, &got, want, tol).failure {
                return Err(format!("output #{i}: {fail}"));
            }
        }
    }
    Ok(())
}

fn io(dir: &Path) -> Result<(Vec<String>, Vec<String>), String> {
    let m = compiler::frontend::onnx::import_file(&dir.join("model.onnx")).map_err(|e| e.to_string())?;
    Ok(compiler::run::io_names(&m))
}

fn input_names(dir: &Path) -> Result<Vec<String>, String> {
    io(dir).map(|x| x.0)
}

fn output_names(dir: &Path) -> Result<Vec<String>, String> {
    io(dir).map(|x| x.1)
}

/// The committed pass list.
fn pass_list() -> Vec<String> {
    let text = std::fs::read_to_string(conformance_dir().join("rust-node-pass-list.txt")).unwrap_or_default();
    text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')).map(str::to_string).collect()
}

#[test]
fn node_tests_through_the_rust_backend() {
    let mut tests = passing_node_tests();
    // `EDGEC_NODE_FILTER=gru,lstm` runs only the tests whose name contains one
    // of the substrings, prints why each fails, and neither writes the
    // report nor checks the pass list.
    let filter: Vec<String> = std::env::var("EDGEC_NODE_FILTER")
        .unwrap_or_default()
        .split(',')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect();
    if !filter.is_empty() {
        tests.retain(|t| filter.iter().any(|f| t.contains(f.as_str())));
    }
    assert!(!tests.is_empty(), "no ONNX node tests selected under {}", root().display());
    let mut why: BTreeMap<String, String> = BTreeMap::new();
    let mut members = Vec::new();
    let mut module_of: BTreeMap<String, String> = BTreeMap::new();
    let modules: Vec<(String, String)> = tests.iter().enumerate().map(|(i, t)| (format!("t{i}"), t.clone())).collect();
    let compiled = testsuite::par::par_map(&modules, |(module, t)| compile(&root().join(t), module));
    for ((module, t), r) in modules.into_iter().zip(compiled) {
        module_of.insert(module.clone(), t);
        match r.and_then(|r| r) {
            Ok(m) => members.push(m),
            Err(e) => {
                why.insert(module, e.replace('\n', " | ").chars().take(240).collect());
            }
        }
    }
    let batch = if filter.is_empty() { "edgec-node-batch" } else { "edgec-node-batch-filtered" };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target").join(batch);
    let exe = build(&dir, &mut members, &mut why).expect("the batch builds");
    let tmp = dir.join("io");
    std::fs::create_dir_all(&tmp).unwrap();
    let runs =
        testsuite::par::par_map(&members, |m| run_one(&exe, &root().join(&module_of[&m.module]), &m.module, &tmp));
    let mut passing = Vec::new();
    for (m, r) in members.iter().zip(runs) {
        match r.and_then(|r| r) {
            Ok(()) => passing.push(module_of[&m.module].clone()),
            Err(e) => {
                why.insert(m.module.clone(), e.chars().take(240).collect());
            }
        }
    }
    passing.sort();
    let (passed, total) = (passing.len(), tests.len());
    if !filter.is_empty() {
        for (module, reason) in &why {
            eprintln!("FAIL {}: {reason}", module_of[module]);
        }
        eprintln!("rust backend (filtered): {passed} of {total} node tests pass");
        return;
    }
    let mut report = format!(
        "# ONNX node tests through the Rust backend\n\nGenerated by `cargo test -p testsuite --test rust_node_tests`.\n\n**{passed} of {total}** node tests that the reference interpreter passes also pass as generated Rust code ({:.1}%), every graph input a run-time input (no `--const` binding). Integer and bool outputs compare exactly.\n\n| test | why it does not pass |\n|---|---|\n",
        100.0 * passed as f64 / total as f64
    );
    for (module, reason) in &why {
        report += &format!("| {} | {} |\n", module_of[module].trim_start_matches("node/"), reason.replace('|', "\\|"));
    }
    std::fs::write(conformance_dir().join("rust-node-report.md"), report).unwrap();
    eprintln!("rust backend: {passed} of {total} node tests pass");
    if std::env::var_os("UPDATE_RUST_PASS_LIST").is_some() {
        let text = format!(
            "# Node tests that must pass through the Rust backend (every input a run-time input).\n# Regenerate with UPDATE_RUST_PASS_LIST=1 cargo test --release -p testsuite --test rust_node_tests\n{}\n",
            passing.join("\n")
        );
        std::fs::write(conformance_dir().join("rust-node-pass-list.txt"), text).unwrap();
        return;
    }
    let lost: Vec<String> = pass_list().into_iter().filter(|t| passing.binary_search(t).is_err()).collect();
    assert!(lost.is_empty(), "{} listed node tests no longer pass: {}", lost.len(), lost.join(", "));
}
