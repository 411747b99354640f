//! The Rust backend end to end: every model of the real/bundled set and every
//! ONNX `light` model is compiled (`edgec compile --emit rust`'s library
//! path), its crate built in release mode (offline, one shared target
//! directory and one shared `--runtime` directory, so the kernel runtime
//! compiles once) and run; its outputs must
//! match the model's reference data and the interpreter on the crate's own
//! IR. Dynamic models are compiled with buckets that cover their data sets.
//! The memory plan of every crate must stay within 1.25x of its lower bound;
//! every crate computes the same bits on any thread count and allocates
//! nothing per run after warm-up.
//!
//! The compile report of each model is printed (`--nocapture` to see it).

use compiler::check::{compare, Tolerance};
use std::path::{Path, PathBuf};

fn models_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models")
}

fn crates_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/edgec-crates")
}

/// Buckets for the dynamic models (they must cover every data set).
fn buckets(name: &str) -> &'static [&'static str] {
    match name {
        "bert_dynamic" => &["sequence=32,128"],
        "bert_tiny" => &["batch=2", "sequence=16"],
        "bert_encoder_paddle" => &["DynamicDimension.1=16"],
        // Zero padding is not exact for this CNN (global average pool), so
        // its buckets are the data sets' own sizes (20x28 and 33x17).
        "cnn_dynamic" => &["height=20,33", "width=17,28"],
        _ => &[],
    }
}

/// Optimize `model` for cpu (with `bucket` specs) and write its crate.
fn compile(model: &Path, name: &str, bucket: &[&str]) -> Result<(PathBuf, codegen::rust::Report), String> {
    compile_with(model, (name, codegen::rust::DEFAULT_PACK_FOR), bucket, |_| Ok(()))
}

/// [`compile`] with weights packed for `pack_for`, transforming the
/// optimized module with `then` before the backend.
fn compile_with(
    model: &Path,
    (name, pack_for): (&str, Option<codegen::rust::Isa>),
    bucket: &[&str],
    then: impl FnOnce(&mut ir::Module) -> Result<(), String>,
) -> Result<(PathBuf, codegen::rust::Report), String> {
    let req = compiler::pipeline::Request {
        file: model.display().to_string(),
        passes: passes::DEFAULT_PIPELINE.to_string(),
        target: "cpu".into(),
        rules: vec![],
        max_enodes: passes::egraph::Limits::default().max_enodes,
        max_iters: passes::egraph::Limits::default().max_iters,
        bucket: bucket.iter().map(|s| s.to_string()).collect(),
        pad: vec![],
        buckets_max: 4,
        attention_window: None,
        approximate: vec![],
        consts: vec![],
        shapes: vec![],
        dims: vec![],
    };
    let mut out = compiler::pipeline::run(&req, passes::PassOptions::default()).map_err(|e| format!("{e:?}"))?;
    then(&mut out.module)?;
    let dir = crates_dir().join(name);
    let report = compiler::compile::write_crate(
        &out.module,
        &dir,
        (name, &req.file),
        (None, pack_for),
        Some(&crates_dir().join("runtime")),
    )
    .map_err(|e| e.to_string())?;
    Ok((dir, report))
}

fn set_target_dir() {
    std::env::set_var("CARGO_TARGET_DIR", crates_dir().join("target"));
}

#[test]
fn real_and_bundled_models_compile_build_and_verify() {
    set_target_dir();
    let mut dirs: Vec<PathBuf> = Vec::new();
    for d in [models_root(), models_root().join("real")] {
        dirs.extend(
            std::fs::read_dir(&d).unwrap().flatten().map(|e| e.path()).filter(|p| p.join("model.onnx").exists()),
        );
    }
    dirs.sort();
    assert!(dirs.len() >= 15, "model set missing: {dirs:?}");
    let mut failures = Vec::new();
    for dir in &dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (crate_dir, report) = match compile(&dir.join("model.onnx"), &name, buckets(&name)) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: compile: {e}"));
                continue;
            }
        };
        eprintln!(
            "{name}: arena {} B, lower bound {} B ({:.3}x), weights {} B",
            report.arena_bytes,
            report.lower_bound_bytes,
            report.plan_ratio(),
            report.weights_bytes
        );
        if report.plan_ratio() > 1.25 {
            failures.push(format!("{name}: arena {:.3}x the lower bound", report.plan_ratio()));
        }
        match compiler::compile::verify_crate(
            &crate_dir,
            &[],
            Tolerance::default(),
            &compiler::cross::BuildTarget::host(),
        ) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(v) => {
                for r in v.reports.iter().filter(|r| !r.passed()) {
                    failures.push(format!("{name}: {}: {:?}", r.dir.display(), r.outputs));
                }
            }
        }
        if let Err(e) = threads_and_allocations(&crate_dir, dir) {
            failures.push(format!("{name}: {e}"));
        }
        if dir.parent().is_some_and(|p| p.ends_with("real")) {
            if let Err(e) = packed_in_place(&crate_dir, dir, &name) {
                failures.push(format!("{name} packed for this CPU: {e}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The crate in `crate_dir` on the first data set beside its model (`dir`)
/// gives bit-identical outputs on 1, 2 and 3 threads (on this 2-core CI
/// machine, 3 oversubscribes), and allocates nothing per run after warm-up
/// on 2 threads (the generated CLI counts through its global allocator).
fn threads_and_allocations(crate_dir: &Path, dir: &Path) -> Result<(), String> {
    let host = compiler::cross::BuildTarget::host();
    let exe = compiler::compile::build_crate(crate_dir, &host).map_err(|e| e.to_string())?;
    let m = compiler::driver::load_eir(&crate_dir.join("edgec/model.eir").display().to_string())
        .map_err(|e| e.to_string())?
        .module;
    let set = compiler::check::data_sets(dir).into_iter().next().ok_or("no data set")?;
    let inputs = compiler::run::model_inputs(&m, compiler::check::read_data_set(&set)?.0);
    let run = |args: &[&str]| compiler::compile::run_crate_with(crate_dir, &exe, &inputs, &host, args);
    let one = run(&["--threads", "1"])?.0;
    for t in ["2", "3"] {
        let got = run(&["--threads", t])?.0;
        let bits = |v: &[ir::interp::Tensor]| v.iter().map(compiler::npy::write_npy).collect::<Vec<_>>();
        if bits(&got) != bits(&one) {
            return Err(format!("outputs on {t} threads differ from one thread's"));
        }
    }
    let printed = run(&["--threads", "2", "--bench", "5"])?.1;
    let allocs = printed.lines().find_map(|l| l.strip_prefix("allocs_per_run=")).ok_or("no allocs_per_run line")?;
    match allocs.parse::<f64>() {
        Ok(0.0) => Ok(()),
        _ => Err(format!("{allocs} allocations per run on 2 threads after warm-up")),
    }
}

/// The published model in `dir` compiled with its weights packed for this
/// CPU's GEMM family (used in place from the binary) computes bit for bit
/// what `crate_dir` (packed for NEON by default: on x86-64, packed again at
/// construction) computes, and Model::new plus the first run add at most
/// 1.2× (arenas + weights + inputs) of data pages to the resident set (plus
/// 256 KiB that any process touches first; code pages are not counted).
fn packed_in_place(crate_dir: &Path, dir: &Path, name: &str) -> Result<(), String> {
    let host = compiler::cross::BuildTarget::host();
    let native = compiler::compile::pack_family("native")?;
    let (own, _) =
        compile_with(&dir.join("model.onnx"), (&format!("{name}_native"), native), buckets(name), |_| Ok(()))?;
    let m = compiler::driver::load_eir(&crate_dir.join("edgec/model.eir").display().to_string())
        .map_err(|e| e.to_string())?
        .module;
    let set = compiler::check::data_sets(dir).into_iter().next().ok_or("no data set")?;
    let inputs = compiler::run::model_inputs(&m, compiler::check::read_data_set(&set)?.0);
    let run = |d: &Path, args: &[&str]| {
        let exe = compiler::compile::build_crate(d, &host).map_err(|e| e.to_string())?;
        compiler::compile::run_crate_with(d, &exe, &inputs, &host, args)
    };
    let bits = |v: &[ir::interp::Tensor]| v.iter().map(compiler::npy::write_npy).collect::<Vec<_>>();
    if bits(&run(&own, &[])?.0) != bits(&run(crate_dir, &[])?.0) {
        return Err("outputs differ from the crate packed for NEON".into());
    }
    let printed = run(&own, &["--mem"])?.1;
    eprintln!("{name} packed for this CPU: {}", printed.replace('\n', " "));
    let kib = |key: &str| -> Result<f64, String> {
        let v = printed.lines().find_map(|l| l.strip_prefix(key)).ok_or(format!("no {key} line"))?;
        v.parse::<f64>().map_err(|e| format!("{key}{v}: {e}"))
    };
    let (data, planned) = (kib("rss_data_kib=")?, kib("planned_kib=")?);
    // Beyond the plan, a fixed allowance for what any process touches first
    // (allocator and stack pages, the runtime's tables): 256 KiB.
    if data <= 1.2 * planned + 256.0 {
        Ok(())
    } else {
        Err(format!("Model::new and the first run add {data} KiB of data, the plan is {planned} KiB"))
    }
}

/// INT8-quantized (QDQ) crates of published models compute what the
/// interpreter computes on the quantized module: bit for bit where an
/// output leaves a DequantizeLinear, within the float crate-vs-interpreter
/// tolerance where the policy keeps the last ops in float (the DBNet's
/// output sigmoid, BERT's final LayerNorm). A CNN, a DBNet text detector, a
/// ViT and a BERT encoder, calibrated on their data (the CNN with
/// `--reduce-range` weights).
#[test]
fn quantized_crates_equal_the_quantized_interpreter_bit_for_bit() {
    set_target_dir();
    let mut failures = Vec::new();
    for name in ["mobilenetv3_small_paddle", "ppocr_det_paddle", "vit_tiny_paddle", "bert_encoder_paddle_static"] {
        let dir = models_root().join("real").join(name);
        let quantize = |m: &mut ir::Module| {
            let req = compiler::quantize::Request {
                calib: dir.clone(),
                eval: None,
                method: "mse".into(),
                act_type: "u8".into(),
                per_tensor: false,
                // The CNN with weights on ±64 (what AVX2-only CPUs multiply as bytes).
                reduce_range: name == "mobilenetv3_small_paddle",
                keep_float: vec![],
                i16: vec![],
                auto_mixed: None,
                policy: None,
                integer: true,
                target: "cpu".into(),
                bias_correction: true,
                equalize: true,
            };
            let (_, report, out) = compiler::quantize::run(m, &req).map_err(|e| e.to_string())?;
            eprintln!("{name}: {}", report.text().lines().take(6).collect::<Vec<_>>().join(" | "));
            let folded = report.integer.as_ref().map_or(0, |i| i.ops);
            if folded == 0 && name != "bert_encoder_paddle_static" {
                return Err(format!("no conv was folded into an integer op:\n{}", report.text()));
            }
            *m = out;
            Ok(())
        };
        let crate_name = format!("{name}_int8");
        let pack = (crate_name.as_str(), codegen::rust::DEFAULT_PACK_FOR);
        let crate_dir = match compile_with(&dir.join("model.onnx"), pack, &[], quantize) {
            Ok((d, _)) => d,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        // Which outputs leave a DequantizeLinear (they must match exactly).
        let eir = crate_dir.join("edgec").join("model.eir");
        let m = compiler::driver::load_eir(&eir.display().to_string()).expect("crate IR").module;
        let f = m.func("main").expect("main");
        let exact: Vec<bool> = f
            .body
            .results
            .iter()
            .map(|&r| match f.values[r].def {
                ir::ValueDef::Result(op, _) => f.ops[op].opcode == ir::Opcode::DequantizeLinear,
                _ => false,
            })
            .collect();
        let float_tol = Tolerance::CRATE_VS_INTERPRETER;
        let host = compiler::cross::BuildTarget::host();
        match compiler::compile::verify_crate(&crate_dir, &[], Tolerance { rtol: 0.1, atol: 0.5 }, &host) {
            Err(e) => failures.push(format!("{name}: {e}")),
            Ok(v) => {
                for r in &v.reports {
                    match &r.reference {
                        Some(Ok(outs)) => failures.extend(
                            outs.iter()
                                .filter(|o| {
                                    if exact.get(o.index) == Some(&true) {
                                        o.max_abs != 0.0
                                    } else {
                                        o.max_abs > float_tol.atol && o.max_rel > float_tol.rtol
                                    }
                                })
                                .map(|o| {
                                    let how = if exact.get(o.index) == Some(&true) { "dequantized" } else { "float" };
                                    format!(
                                        "{name}: {how} output {}: crate differs from the interpreter by {}",
                                        o.index, o.max_abs
                                    )
                                }),
                        ),
                        other => failures.push(format!("{name}: no interpreter comparison: {other:?}")),
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn light_models_compile_build_and_match_the_reference() {
    set_target_dir();
    let light = testsuite::onnx_data::root().join("light");
    let rd = std::fs::read_dir(&light).unwrap_or_else(|e| panic!("{}: {e}", light.display()));
    let mut models: Vec<PathBuf> =
        rd.flatten().map(|e| e.path()).filter(|p| p.extension().is_some_and(|x| x == "onnx")).collect();
    models.sort();
    let mut failures = Vec::new();
    for model in &models {
        let name = model.file_stem().unwrap().to_string_lossy().into_owned();
        let (dir, report) = match compile(model, &name, &[]) {
            Ok(x) => x,
            Err(e) => {
                failures.push(format!("{name}: compile: {e}"));
                continue;
            }
        };
        let result = (|| -> Result<(), String> {
            let eir = dir.join("edgec").join("model.eir");
            let m = compiler::driver::load_eir(&eir.display().to_string()).map_err(|e| e.to_string())?.module;
            let inputs = testsuite::conformance::light_inputs(m.func("main").ok_or("no main")?);
            let exe = compiler::compile::build_crate(&dir, &compiler::cross::BuildTarget::host())
                .map_err(|e| e.to_string())?;
            let got = compiler::compile::run_crate(&dir, &exe, &inputs, &compiler::cross::BuildTarget::host())?;
            let want = compiler::check::read_tensor_pb(&model.with_file_name(format!("{name}_output_0.pb")))?;
            match compare(0, &got[0], &want, Tolerance { rtol: 1e-3, atol: 1e-4 }).failure {
                Some(f) => Err(f),
                None => Ok(()),
            }
        })();
        eprintln!("{name}: arena {} B ({:.3}x the lower bound): {result:?}", report.arena_bytes, report.plan_ratio());
        if let Err(e) = result {
            failures.push(format!("{name}: {e}"));
        }
        if report.plan_ratio() > 1.25 {
            failures.push(format!("{name}: arena {:.3}x the lower bound", report.plan_ratio()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// det_head compiled as crate `name` and built: the crate, its binary, an
/// input file for it and the compiled module.
fn det_head_binary(name: &str) -> (PathBuf, PathBuf, PathBuf, ir::Module) {
    set_target_dir();
    let model = models_root().join("det_head").join("model.onnx");
    let (dir, _) = compile(&model, name, &[]).expect("compile");
    let exe = compiler::compile::build_crate(&dir, &compiler::cross::BuildTarget::host()).expect("build");
    let m = compiler::driver::load_eir(&dir.join("edgec/model.eir").display().to_string()).expect("eir").module;
    let inputs = testsuite::conformance::light_inputs(m.func("main").expect("main"));
    let input = dir.join("x.npy");
    std::fs::write(&input, compiler::npy::write_npy(&inputs[0])).expect("write input");
    (dir, exe, input, m)
}

/// The generated command line ends quietly (exit 0, no panic) when its
/// stdout is closed early, as by `| head -1` or `grep -m1`.
#[test]
fn generated_cli_survives_a_closed_stdout() {
    let (_, exe, input, _) = det_head_binary("det_head_pipe");
    for args in [vec!["--bench", "50"], vec![]] {
        let mut child = std::process::Command::new(&exe)
            .arg("--input")
            .arg(format!("x={}", input.display()))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("spawn");
        drop(child.stdout.take()); // closed before the first line is written
        let out = child.wait_with_output().expect("wait");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `--profile` times every op the model runs: one line per profile slot
/// (a model without control flow runs each once), named by its ONNX node,
/// after the benchmark's own lines.
#[test]
fn generated_cli_profiles_every_op() {
    let (dir, exe, input, m) = det_head_binary("det_head_profile");
    let out = std::process::Command::new(&exe)
        .arg("--input")
        .arg(format!("x={}", input.display()))
        .args(["--bench", "5", "--profile"])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.starts_with("median_ms="), "{text}");
    let lib = std::fs::read_to_string(dir.join("src/lib.rs")).expect("lib.rs");
    let slots = lib.matches("k::profile::OpName {").count();
    assert!(slots > 0, "no profile slots in the generated code");
    assert!(text.contains(&format!("total of {slots} ops")), "{slots} slots:\n{text}");
    let op_lines = text.lines().filter(|l| l.contains("core.") || l.contains("onnx.")).count();
    assert!(op_lines > slots, "{slots} slots, one line each plus the per-type summary:\n{text}");
    let convs: Vec<String> = m
        .func("main")
        .expect("main")
        .ops
        .iter()
        .filter_map(|(_, op)| match &op.loc {
            ir::Loc::Onnx { node, .. } if op.opcode == ir::Opcode::CoreConv => Some(node.clone()),
            _ => None,
        })
        .collect();
    assert!(!convs.is_empty(), "det_head has convs named by their ONNX nodes");
    for node in convs {
        assert!(text.contains(&node), "conv node {node} missing:\n{text}");
    }
}
