//! `edgec compile`: the whole pipeline to a backend artifact, and building
//! and running generated crates for `edgec run DIR` / `edgec verify DIR`.
//!
//! A generated crate directory holds, besides the crate, `edgec/model.eir`
//! (+ its weights sidecar): the optimized IR the crate was generated from,
//! so verification can compare the crate with the reference interpreter on
//! the very same program, and `edgec/meta.json` (source model, inputs and
//! outputs with their element types).

use crate::cross::BuildTarget;
use crate::driver::{save_eir, DriverError};
use edgec_kernels::gemm::Isa;
use ir::interp::Tensor;
use ir::Module;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What `edgec/meta.json` records about a generated crate.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct CrateMeta {
    /// Package name.
    pub name: String,
    /// The model it was compiled from (as given on the command line).
    pub source: String,
    /// Input names, in order.
    pub inputs: Vec<String>,
    /// Output names, in order.
    pub outputs: Vec<String>,
    /// The triple it was compiled for with `--triple` (`None`: the host's);
    /// `edgec run` / `verify` build and run it for this triple by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triple: Option<String>,
}

/// The metadata file of a crate directory.
pub fn meta_path(dir: &Path) -> PathBuf {
    dir.join("edgec").join("meta.json")
}

/// True if `path` is a crate directory written by `edgec compile --emit rust`.
pub fn is_crate_dir(path: &Path) -> bool {
    path.is_dir() && meta_path(path).is_file()
}

/// A crate name from a model path: the file stem, lower case, `[a-z0-9_]`.
pub fn default_name(model: &Path) -> String {
    let stem = model.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    let stem = if stem == "model" {
        model.parent().and_then(|p| p.file_name()).map(|s| s.to_string_lossy().into_owned()).unwrap_or(stem)
    } else {
        stem
    };
    let s: String =
        stem.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
    if !s.starts_with(|c: char| c.is_ascii_alphabetic()) {
        format!("model_{s}")
    } else if RUST_KEYWORDS.contains(&s.as_str()) {
        // The name is also the library's path in the crate's CLI.
        format!("{s}_model")
    } else {
        s
    }
}

/// Check a crate name given by the user: `[a-z][a-z0-9_]*`, not a Rust keyword.
pub fn check_name(name: &str) -> Result<(), String> {
    let ok = name.starts_with(|c: char| c.is_ascii_lowercase())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !ok {
        return Err(format!("crate name `{name}`: use lower-case letters, digits and `_`, starting with a letter"));
    }
    if RUST_KEYWORDS.contains(&name) {
        return Err(format!("crate name `{name}` is a Rust keyword"));
    }
    Ok(())
}

/// Rust's keywords (strict and reserved, all editions): not usable as a crate's path.
const RUST_KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
    "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self", "static",
    "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while", "abstract", "become", "box", "do",
    "final", "gen", "macro", "override", "priv", "try", "typeof", "unsized", "virtual", "yield",
];

/// The GEMM family `--pack-for NAME` names: a family ([`Isa::name`]),
/// `native` (this machine's) or `none` (pack at construction).
pub fn pack_family(name: &str) -> Result<Option<Isa>, String> {
    match name {
        "none" => Ok(None),
        "native" => Ok(Some(edgec_kernels::gemm::detected())),
        _ => Isa::from_name(name).map(Some).ok_or_else(|| {
            let all: Vec<&str> = Isa::ALL.iter().map(|i| i.name()).collect();
            format!("--pack-for {name}: not a GEMM family (one of {}, native, none)", all.join(", "))
        }),
    }
}

/// Write the generated crate for `m` to `dir` (a previous `target/` stays
/// for incremental builds; files whose bytes did not change keep their
/// modification time, so cargo does not rebuild them). Returns the report. A
/// module not yet in the `target` phase gets the Rust backend's preparation
/// passes first. Constant weights are packed at compile time for
/// `pack_for` (see [`codegen::rust::EmitOptions::pack_for`]). With a foreign `triple` (a row of
/// [`CROSS`](crate::cross::CROSS)), the crate gets a `.cargo/config.toml`
/// naming that triple's linker, and its metadata records the triple. With
/// `runtime`, the kernel runtime and numeric core go to that directory
/// (shared by every crate written with it, so one build of the runtime
/// serves them all) and the crate depends on it by relative path;
/// otherwise the crate carries its own copy.
pub fn write_crate(
    m: &Module,
    dir: &Path,
    (name, source): (&str, &str),
    (triple, pack_for): (Option<&str>, Option<Isa>),
    runtime: Option<&Path>,
) -> Result<codegen::rust::Report, anyhow::Error> {
    let cross = match triple.filter(|t| *t != crate::cross::host_triple()) {
        Some(t) => Some(crate::cross::cross(t)?),
        None => None,
    };
    let opts = codegen::rust::EmitOptions { name: name.to_string(), source: source.to_string(), pack_for };
    let generated = match m.phase {
        ir::Phase::Target => codegen::rust::emit(m, &opts)?,
        _ => codegen::rust::generate(m, &opts)?,
    };
    let (vendored, mut own): (Vec<_>, Vec<_>) =
        generated.files.iter().partition(|(p, _)| RUNTIME.iter().any(|r| p.starts_with(r)));
    let ours = meta_path(dir).is_file();
    create_dir(dir)?;
    let manifest;
    match runtime {
        Some(rt) => {
            create_dir(rt)?;
            check_runtime_dir(rt)?;
            sync_files(rt, &vendored, true)?;
            // The crate's own copy of the runtime (if edgec wrote one) goes.
            for r in RUNTIME.iter().map(|r| dir.join(r)).filter(|r| ours && r.is_dir()) {
                std::fs::remove_dir_all(&r).map_err(|e| anyhow::anyhow!("{}: {e}", r.display()))?;
            }
            let toml = codegen::rust::cargo_toml_shared(name, &relative_path(dir, rt)?);
            manifest = ("Cargo.toml".to_string(), toml.into_bytes());
            own.retain(|(p, _)| p != "Cargo.toml");
            own.push(&manifest);
        }
        None => sync_files(dir, &vendored, ours)?,
    }
    sync_files(dir, &own, false)?;
    std::fs::create_dir_all(dir.join("edgec"))?;
    save_eir(m, Some(&dir.join("edgec").join("model.eir")))?;
    let (inputs, outputs) = crate::run::io_names(m);
    let triple = cross.map(|c| c.triple.to_string());
    let meta = CrateMeta { name: name.to_string(), source: source.to_string(), inputs, outputs, triple };
    std::fs::write(meta_path(dir), serde_json::to_string_pretty(&meta)? + "\n")?;
    write_cargo_config(dir, cross)?;
    Ok(generated.report)
}

/// The generated files that make up the kernel runtime and its numeric
/// core (a copy in the crate, or the shared `--runtime` directory).
const RUNTIME: &[&str] = &["kernels/", "numeric/"];

/// The runtime's source directories: their contents are edgec's alone.
const VENDORED: &[&str] = &["kernels/src", "numeric/src"];

fn create_dir(d: &Path) -> Result<(), anyhow::Error> {
    std::fs::create_dir_all(d).map_err(|e| anyhow::anyhow!("{}: {e}", d.display()))
}

/// A `--runtime` directory holds edgec's runtime or nothing yet: a
/// `kernels/` someone else wrote is not overwritten.
fn check_runtime_dir(rt: &Path) -> Result<(), anyhow::Error> {
    let toml = rt.join("kernels").join("Cargo.toml");
    match std::fs::read_to_string(&toml) {
        Ok(t) if !t.starts_with("# edgec kernel runtime") => {
            anyhow::bail!("{}: not written by edgec; --runtime needs an edgec runtime directory", toml.display())
        }
        _ => Ok(()),
    }
}

/// Write `files` under `root`, leaving files whose bytes are unchanged
/// untouched. With `prune`, files under the vendored directories that are
/// not among `files` (left by an older edgec) are removed first.
fn sync_files(root: &Path, files: &[&(String, Vec<u8>)], prune: bool) -> Result<(), anyhow::Error> {
    if prune {
        let keep: std::collections::BTreeSet<PathBuf> = files.iter().map(|(p, _)| root.join(p)).collect();
        for v in VENDORED {
            prune_dir(&root.join(v), &keep)?;
        }
    }
    for (path, bytes) in files {
        let p = root.join(path);
        if std::fs::read(&p).is_ok_and(|old| old == *bytes) {
            continue;
        }
        if let Some(parent) = p.parent() {
            create_dir(parent)?;
        }
        write_atomic(root, &p, bytes)?;
    }
    Ok(())
}

/// Write `bytes` to `p` through a temporary file in `root` and a rename, so
/// a concurrent reader (cargo building another crate of a shared runtime)
/// never sees a partly written file.
fn write_atomic(root: &Path, p: &Path, bytes: &[u8]) -> Result<(), anyhow::Error> {
    static SEQ: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = SEQ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = root.join(format!(".edgec-write-{}-{n}", std::process::id()));
    let err = |e: std::io::Error| anyhow::anyhow!("{}: {e}", p.display());
    std::fs::write(&tmp, bytes).map_err(err)?;
    std::fs::rename(&tmp, p).map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        err(e)
    })
}

/// Remove the files under `d` (recursively) that are not in `keep`.
fn prune_dir(d: &Path, keep: &std::collections::BTreeSet<PathBuf>) -> Result<(), anyhow::Error> {
    let Ok(entries) = std::fs::read_dir(d) else { return Ok(()) };
    for e in entries {
        let p = e.map_err(|e| anyhow::anyhow!("{}: {e}", d.display()))?.path();
        if p.is_dir() {
            prune_dir(&p, keep)?;
        } else if !keep.contains(&p) {
            std::fs::remove_file(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
        }
    }
    Ok(())
}

/// `to` relative to `from` (both existing directories), `/`-separated and
/// escaped for a TOML string: the same on every machine for the same layout.
fn relative_path(from: &Path, to: &Path) -> Result<String, anyhow::Error> {
    let canon = |p: &Path| p.canonicalize().map_err(|e| anyhow::anyhow!("{}: {e}", p.display()));
    let (f, t) = (canon(from)?, canon(to)?);
    let common = f.components().zip(t.components()).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = f.components().skip(common).map(|_| "..".to_string()).collect();
    for c in t.components().skip(common) {
        let s = c.as_os_str().to_str().ok_or_else(|| anyhow::anyhow!("{}: not UTF-8", t.display()))?;
        parts.push(s.replace('\\', "\\\\").replace('"', "\\\""));
    }
    Ok(if parts.is_empty() { ".".to_string() } else { parts.join("/") })
}

/// Remove the vendored runtime sources (`kernels/src`, `numeric/src`) under
/// `dir`, so sources an older edgec wrote cannot linger beside their new home.
pub fn remove_vendored(dir: &Path) -> Result<(), String> {
    for v in VENDORED {
        let p = dir.join(v);
        if p.is_dir() {
            std::fs::remove_dir_all(&p).map_err(|e| format!("{}: {e}", p.display()))?;
        }
    }
    Ok(())
}

/// Write (or, compiling for the host, remove a previous edgec-written)
/// `.cargo/config.toml`; a config the user wrote is left alone.
fn write_cargo_config(dir: &Path, cross: Option<&crate::cross::Cross>) -> Result<(), anyhow::Error> {
    let path = dir.join(".cargo").join("config.toml");
    let ours = std::fs::read_to_string(&path).is_ok_and(|t| t.starts_with("# Written by `edgec compile"));
    match cross {
        Some(c) if ours || !path.exists() => {
            std::fs::create_dir_all(dir.join(".cargo"))?;
            std::fs::write(&path, crate::cross::cargo_config(c))?;
        }
        Some(_) => anyhow::bail!("{} exists and was not written by edgec; add the linker there", path.display()),
        None if ours => std::fs::remove_file(&path)?,
        None => {}
    }
    Ok(())
}

/// Read a crate directory's metadata.
pub fn read_meta(dir: &Path) -> Result<CrateMeta, DriverError> {
    let p = meta_path(dir);
    let text = std::fs::read_to_string(&p).map_err(|e| DriverError::Usage(format!("{}: {e}", p.display())))?;
    serde_json::from_str(&text).map_err(|e| DriverError::Usage(format!("{}: {e}", p.display())))
}

/// Build the crate in `dir` (release, offline) for `target`; returns its binary.
pub fn build_crate(dir: &Path, target: &BuildTarget) -> Result<PathBuf, DriverError> {
    let meta = read_meta(dir)?;
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let (args, envs) = target.cargo_args();
    let out = Command::new(cargo)
        .args(["build", "--release", "--offline", "--quiet"])
        .args(args)
        .envs(envs)
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .output()
        .map_err(|e| DriverError::Usage(format!("cannot run cargo: {e}")))?;
    if !out.status.success() {
        return Err(DriverError::Usage(format!(
            "building {} failed:\n{}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    // Generated crates may share a target directory (CARGO_TARGET_DIR), so
    // the kernel runtime is compiled once for many of them.
    let target_dir = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| dir.join("target"), PathBuf::from);
    let exe = target.exe(&target_dir, &meta.name);
    if exe.is_file() {
        Ok(exe)
    } else {
        Err(DriverError::Usage(format!("cargo built no binary at {}", exe.display())))
    }
}

/// Run the built crate binary on `inputs` (in the model's input order),
/// under `target`'s runner if it has one.
pub fn run_crate(dir: &Path, exe: &Path, inputs: &[Tensor], target: &BuildTarget) -> Result<Vec<Tensor>, String> {
    run_crate_with(dir, exe, inputs, target, &[]).map(|(outs, _)| outs)
}

/// [`run_crate`] with extra command-line arguments (`--threads N`); with
/// `--bench N`, `--profile` or `--mem` (measurements) the crate writes no
/// outputs and only its printed lines (the second result) come back.
pub fn run_crate_with(
    dir: &Path,
    exe: &Path,
    inputs: &[Tensor],
    target: &BuildTarget,
    args: &[&str],
) -> Result<(Vec<Tensor>, String), String> {
    let meta = read_meta(dir).map_err(|e| e.to_string())?;
    let tmp = std::env::temp_dir().join(format!("edgec-run-{}-{}", std::process::id(), unique()));
    std::fs::create_dir_all(&tmp).map_err(|e| e.to_string())?;
    let mut cmd = target.command(exe);
    for (i, (name, t)) in meta.inputs.iter().zip(inputs).enumerate() {
        let p = tmp.join(format!("input_{i}.npy"));
        std::fs::write(&p, crate::npy::write_npy(t)).map_err(|e| e.to_string())?;
        cmd.arg("--input").arg(format!("{name}={}", p.display()));
    }
    let outdir = tmp.join("out");
    let bench = args.iter().any(|a| ["--bench", "--profile", "--mem"].contains(a));
    if !bench {
        cmd.arg("-o").arg(&outdir);
    }
    let out = cmd.args(args).output().map_err(|e| format!("{}: {e}", exe.display()))?;
    let printed = String::from_utf8_lossy(&out.stdout).into_owned();
    let result = if !out.status.success() {
        Err(format!("the generated model failed: {}", String::from_utf8_lossy(&out.stderr).trim()))
    } else if bench {
        Ok((vec![], printed))
    } else {
        meta.outputs
            .iter()
            .map(|n| {
                let file: String =
                    n.chars().map(|c| if c.is_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
                let p = outdir.join(format!("{file}.npy"));
                std::fs::read(&p).map_err(|e| format!("{}: {e}", p.display())).and_then(|b| crate::npy::read_npy(&b))
            })
            .collect::<Result<Vec<_>, _>>()
            .map(|outs| (outs, printed))
    };
    let _ = std::fs::remove_dir_all(&tmp);
    result
}

fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    N.fetch_add(1, Ordering::Relaxed)
}

/// Verify the crate in `dir` on data sets (default: those beside its source
/// model): the crate's outputs against the expected outputs (or, for a data
/// set with inputs only, against the interpreter), and against the reference
/// interpreter running the crate's own IR (`edgec/model.eir`) within
/// [`Tolerance::CRATE_VS_INTERPRETER`](crate::check::Tolerance::CRATE_VS_INTERPRETER):
/// both must pass.
pub fn verify_crate(
    dir: &Path,
    data: &[PathBuf],
    tol: crate::check::Tolerance,
    target: &BuildTarget,
) -> Result<CrateVerification, DriverError> {
    use crate::run::{compare_all, Against, DataSetReport};
    let meta = read_meta(dir)?;
    let eir = dir.join("edgec").join("model.eir");
    let m = crate::driver::load_eir(&eir.display().to_string())?.module;
    let dirs = if data.is_empty() {
        let src = Path::new(&meta.source);
        crate::check::data_sets(&src.parent().map(Path::to_path_buf).unwrap_or_default())
    } else {
        data.to_vec()
    };
    if dirs.is_empty() {
        return Err(DriverError::Usage(format!("no data sets beside {}; pass --data DIR", meta.source)));
    }
    let exe = build_crate(dir, target)?;
    let (itol, reference) = reference_gate(&m, tol);
    let mut out = Vec::new();
    for d in dirs {
        let mut r = DataSetReport {
            dir: d.clone(),
            outputs: Err(String::new()),
            against: Against::Expected,
            reference: None,
            notes: vec![],
            reference_gates: true,
        };
        match crate::check::read_data_set(&d) {
            Err(e) => r.outputs = Err(e),
            Ok((inputs, expected)) => {
                let inputs = crate::run::model_inputs(&m, inputs);
                r.notes = crate::run::describe_run(&m, &inputs);
                r.notes.push(format!(
                    "generated crate: {} (release build, run on {})",
                    dir.display(),
                    target.describe()
                ));
                let interp = ir::interp::run(&m, "main", inputs.clone()).map_err(|e| e.to_string());
                match run_crate(dir, &exe, &inputs, target) {
                    Err(e) => r.outputs = Err(e),
                    Ok(got) => {
                        r.reference = Some(interp.and_then(|want| compare_all(&got, &want, itol, "the interpreter")));
                        r.outputs = if expected.is_empty() {
                            r.against = Against::Reference;
                            r.reference.clone().unwrap_or(Err("no reference".into()))
                        } else {
                            compare_all(&got, &expected, tol, "the data set")
                        };
                    }
                }
            }
        }
        out.push(r);
    }
    Ok(CrateVerification { reports: out, reference })
}

/// What `edgec verify CRATE` found: one report per data set, and how the
/// crate was gated against the reference interpreter (for the report).
pub struct CrateVerification {
    /// One report per data set.
    pub reports: Vec<crate::run::DataSetReport>,
    /// The reference and its gate, in words.
    pub reference: String,
}

/// The tolerance a crate must keep against the interpreter on its own IR,
/// and that rule in words. [`Tolerance::CRATE_VS_INTERPRETER`] unless the
/// program rounds floats to 8- or 16-bit integers (quantization): there a
/// last-bit difference between the kernels' f32 and the interpreter's
/// arithmetic may move a value one quantization step, which is correct
/// behaviour, so the data set's tolerance applies (and the report says why).
///
/// [`Tolerance::CRATE_VS_INTERPRETER`]: crate::check::Tolerance::CRATE_VS_INTERPRETER
pub fn reference_gate(m: &ir::Module, tol: crate::check::Tolerance) -> (crate::check::Tolerance, String) {
    let strict = crate::check::Tolerance::CRATE_VS_INTERPRETER;
    let what = "the reference interpreter on the crate's IR";
    match m.func("main").and_then(rounds_to_narrow_ints) {
        None => (strict, format!("{what} (gates the result: rtol {:e}, atol {:e})", strict.rtol, strict.atol)),
        Some(at) => {
            let t = crate::check::Tolerance { rtol: tol.rtol.max(strict.rtol), atol: tol.atol.max(strict.atol) };
            let why = format!("{at} rounds floats to integers, so a value may land one quantization step away");
            (t, format!("{what} (gates the result: rtol {:e}, atol {:e}; {why})", t.rtol, t.atol))
        }
    }
}

/// The first op (in `f` or its regions) with a float operand and an 8- or
/// 16-bit integer result: a quantizer.
fn rounds_to_narrow_ints(f: &ir::Function) -> Option<String> {
    f.live_ops().into_iter().find_map(|op| {
        let d = &f.ops[op];
        let float_in = d.operands.iter().flatten().any(|&v| f.ty(v).dtype.is_float());
        let narrow_out =
            d.results.iter().any(|&v| f.ty(v).dtype.is_int() && f.ty(v).dtype.size_bytes().is_some_and(|b| b <= 2));
        (float_in && narrow_out).then(|| format!("{} ({})", d.loc, d.opcode.name()))
    })
}
