//! The contrib cases through the Rust backend: every case is optimized for
//! the cpu target and emitted as one module of a batch crate
//! ([`crate::rustbatch`]), built once, run on its data set and compared with
//! onnxruntime's outputs exactly as the interpreter's are
//! ([`crate::contrib::check`]).

use crate::contrib::{check, tolerance, Case, Deviation};
use crate::rustbatch::{build_batch, write_batch, Member};
use compiler::check::{data_sets, narrow_like, read_data_set};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// How one case fared in the Rust backend.
#[derive(Clone, Debug, PartialEq)]
pub enum RustStatus {
    /// Compiled, ran, matched.
    Pass(Deviation),
    /// The backend cannot compile it (the reason).
    CannotCompile(String),
    /// Compiled but gave a wrong answer or failed to run.
    Fail(String),
    /// Not attempted: the model's inputs have symbolic dims (the Rust
    /// backend compiles static shapes only; those cases check the importer).
    Symbolic,
}

/// Whether every graph input of the case's model has a static shape.
fn static_inputs(case: &Case) -> bool {
    compiler::frontend::onnx::import_file(&case.dir.join("model.onnx"))
        .ok()
        .and_then(|m| m.func("main").map(|f| f.body.params.iter().all(|&p| f.ty(p).shape.static_dims().is_some())))
        .unwrap_or(true)
}

fn compile(case: &Case, module: &str) -> Result<Member, String> {
    let m = compiler::frontend::onnx::import_file(&case.dir.join("model.onnx")).map_err(|e| e.to_string())?;
    let opts = crate::rulecheck::options(Some("cpu"))?;
    let pipeline = passes::parse_pipeline_with(passes::DEFAULT_PIPELINE, &opts).map_err(|e| e.to_string())?;
    let mut out = m;
    passes::PassManager::new(pipeline, passes::PassOptions::default())
        .run(&mut out, &mut std::io::sink())
        .map_err(|e| e.to_string())?;
    let name = format!("c_{module}");
    let opts = codegen::rust::EmitOptions {
        name: name.clone(),
        source: case.dir.display().to_string(),
        pack_for: codegen::rust::DEFAULT_PACK_FOR,
    };
    let g = codegen::rust::generate(&out, &opts).map_err(|e| e.to_string())?;
    Ok(Member { module: module.to_string(), crate_files: g, name })
}

/// Build the batch, dropping members whose generated code does not compile
/// (recorded in `why`). `None` if nothing builds.
fn build(dir: &Path, members: &mut Vec<Member>, why: &mut BTreeMap<String, String>) -> Option<PathBuf> {
    for _ in 0..16 {
        if members.is_empty() {
            return None;
        }
        write_batch(dir, members).ok()?;
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
                    eprintln!("contrib batch build failed:\n{}", e.chars().take(4000).collect::<String>());
                    return None;
                }
                let first = e.lines().find(|l| l.starts_with("error")).unwrap_or("").to_string();
                for b in &bad {
                    why.insert(b.clone(), format!("generated code does not compile: {first}"));
                }
                members.retain(|m| !bad.contains(&m.module));
            }
        }
    }
    None
}

fn run_one(exe: &Path, case: &Case, module: &str, tmp: &Path) -> Result<Deviation, String> {
    let m = compiler::frontend::onnx::import_file(&case.dir.join("model.onnx")).map_err(|e| e.to_string())?;
    let (in_names, out_names) = compiler::run::io_names(&m);
    let mut dev = Deviation::default();
    for set in data_sets(&case.dir) {
        let (inputs, expected) = read_data_set(&set)?;
        let mut cmd = std::process::Command::new(exe);
        cmd.arg(module);
        for (i, (name, t)) in in_names.iter().zip(&inputs).enumerate() {
            let p = tmp.join(format!("{module}_in{i}.npy"));
            std::fs::write(&p, compiler::npy::write_npy(t)).map_err(|e| e.to_string())?;
            cmd.arg("--input").arg(format!("{name}={}", p.display()));
        }
        let out_dir = tmp.join(format!("{module}_out"));
        let out = cmd.arg("-o").arg(&out_dir).output().map_err(|e| e.to_string())?;
        if !out.status.success() {
            return Err(String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("failed").to_string());
        }
        let mut got = Vec::new();
        for (n, want) in out_names.iter().zip(&expected) {
            let f: String = n.chars().map(|c| if c.is_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
            let bytes = std::fs::read(out_dir.join(format!("{f}.npy"))).map_err(|e| e.to_string())?;
            got.push(narrow_like(compiler::npy::read_npy(&bytes)?, want));
        }
        dev = dev.max(check(&got, &expected, tolerance(&case.op))?);
    }
    Ok(dev)
}

/// Compile, build and run every case in `cases` through the Rust backend in
/// the batch directory `dir`; one status per case, in order.
pub fn run_all(cases: &[Case], dir: &Path) -> Vec<RustStatus> {
    let statics: Vec<bool> = cases.iter().map(static_inputs).collect();
    let modules: Vec<String> = (0..cases.len()).map(|i| format!("t{i}")).collect();
    let pairs: Vec<(&Case, &String)> = cases.iter().zip(&modules).zip(&statics).filter(|x| *x.1).map(|x| x.0).collect();
    let compiled = crate::par::par_map(&pairs, |(c, m)| compile(c, m));
    let mut why: BTreeMap<String, String> = BTreeMap::new();
    let mut members = Vec::new();
    for ((_, m), r) in pairs.iter().zip(compiled) {
        match r.and_then(|r| r) {
            Ok(member) => members.push(member),
            Err(e) => {
                why.insert(m.to_string(), e.replace('\n', " | ").chars().take(300).collect());
            }
        }
    }
    let exe = build(dir, &mut members, &mut why);
    let tmp = dir.join("io");
    let _ = std::fs::create_dir_all(&tmp);
    let built: Vec<String> = members.iter().map(|m| m.module.clone()).collect();
    let mut out = Vec::new();
    for ((c, m), &is_static) in cases.iter().zip(&modules).zip(&statics) {
        out.push(if !is_static {
            RustStatus::Symbolic
        } else if let Some(reason) = why.get(m) {
            RustStatus::CannotCompile(reason.clone())
        } else if let (Some(exe), true) = (&exe, built.contains(m)) {
            match run_one(exe, c, m, &tmp) {
                Ok(d) => RustStatus::Pass(d),
                Err(e) => RustStatus::Fail(e.chars().take(300).collect()),
            }
        } else {
            RustStatus::Fail("the batch crate did not build".into())
        });
    }
    out
}

fn fmt_dev(d: &Deviation) -> String {
    if d.max_units > 0.0 {
        format!("≤ {} unit", d.max_units)
    } else if d.max_abs == 0.0 {
        "exact".into()
    } else {
        format!("abs {:.1e}, rel {:.1e}", d.max_abs, d.max_rel)
    }
}

fn tol_text(op: &str) -> String {
    let t = tolerance(op);
    if t.units > 0 {
        format!("integers ±{} unit ({})", t.units, t.why.replace('|', "\\|"))
    } else {
        format!("float rtol {:e} + atol {:e}; integers exact", t.rtol, t.atol)
    }
}

/// The Markdown report: one row per op, then one per case.
pub fn report(cases: &[Case], interp: &[Result<Deviation, String>], rust: &[RustStatus]) -> String {
    let n = cases.len();
    let ok_i = interp.iter().filter(|r| r.is_ok()).count();
    let ok_r = rust.iter().filter(|r| matches!(r, RustStatus::Pass(_))).count();
    let symbolic = rust.iter().filter(|r| matches!(r, RustStatus::Symbolic)).count();
    let numpy = cases.iter().filter(|c| c.reference.is_some()).count();
    let n_static = n - symbolic;
    let mut s = format!("# Contrib ops (com.microsoft)\n\nGenerated by `cargo test -p testsuite --test contrib_ops` from the cases in `testsuite/contrib/` (made by `testsuite/contrib/make_contrib.py`: onnx 1.22.0, onnxruntime 1.29.0, CPU EP, all graph optimizations off).\n\n**{ok_i} of {n}** cases match their reference in the reference interpreter; **{ok_r} of {n_static}** with static input shapes compile with the Rust backend and match ({symbolic} cases with symbolic shapes check the importer only). The reference is onnxruntime's output, except for the {numpy} cases of ops onnxruntime has no CPU kernel for, which compare with a numpy formula (marked *numpy*).\n\nTolerances: floats pass if `|got - want| <= atol + rtol * |want|`; integer and bool outputs must be equal unless the op's row allows quantization units.\n\n## Ops\n\n| op | domain | lowered to | tolerance | cases | interpreter | Rust backend |\n|---|---|---|---|---|---|---|\n");
    for (op, domain, how) in crate::contrib::LOWERINGS {
        let idx: Vec<usize> = (0..n).filter(|&i| cases[i].op == *op).collect();
        let (ci, cr) = (
            idx.iter().filter(|&&i| interp[i].is_ok()).count(),
            idx.iter().filter(|&&i| matches!(rust[i], RustStatus::Pass(_))).count(),
        );
        let numpy = idx.iter().any(|&i| cases[i].reference.is_some());
        let sym = idx.iter().filter(|&&i| matches!(rust[i], RustStatus::Symbolic)).count();
        let mut r_txt = format!("{cr}/{}", idx.len() - sym);
        if sym > 0 {
            r_txt += &format!(" (+{sym} symbolic)");
        }
        let i_txt = match (idx.is_empty(), numpy) {
            (true, _) => "no case".to_string(),
            (false, true) => format!("{ci}/{} (vs numpy: ORT has no CPU kernel)", idx.len()),
            (false, false) => format!("{ci}/{}", idx.len()),
        };
        let how = how.replace('|', "\\|");
        s += &format!("| {op} | {domain} | {how} | {} | {} | {i_txt} | {r_txt} |\n", tol_text(op), idx.len());
    }
    s += "\n## Not lowered\n\nAn unknown `com.microsoft` op stays an `Unsupported(\"com.microsoft::Op\")` import error.\n\n| op | why |\n|---|---|\n";
    for (op, why) in crate::contrib::LEFT_OUT {
        s += &format!("| {op} | {why} |\n");
    }
    s += "\n## Cases\n\nDeviations are the largest seen over the case's outputs (floats: absolute and relative; integers: units). Cases marked *numpy* compare with the numpy formula in `make_contrib.py` because onnxruntime 1.29.0 has no CPU kernel for the op.\n\n| case | op | interpreter vs onnxruntime | Rust backend |\n|---|---|---|---|\n";
    for i in 0..n {
        let it = match &interp[i] {
            Ok(d) => fmt_dev(d),
            Err(e) => format!("FAIL: {}", e.replace('|', "\\|")),
        };
        let rt = match &rust[i] {
            RustStatus::Pass(d) => fmt_dev(d),
            RustStatus::CannotCompile(e) => format!("cannot compile: {}", e.replace('|', "\\|")),
            RustStatus::Fail(e) => format!("FAIL: {}", e.replace('|', "\\|")),
            RustStatus::Symbolic => {
                "not attempted: symbolic input shapes (the Rust backend compiles static shapes)".into()
            }
        };
        let name =
            if cases[i].reference.is_some() { format!("{} (*numpy*)", cases[i].name) } else { cases[i].name.clone() };
        s += &format!("| {name} | {} | {it} | {rt} |\n", cases[i].op);
    }
    s
}
