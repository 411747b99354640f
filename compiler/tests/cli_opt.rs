//! `edgec opt` end to end: ONNX in, optimized .eir out that verifies against
//! the model's data; byte-identical output across processes; `--explain`;
//! user rule files and their errors; unknown targets.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn edgec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_edgec")).args(args).output().expect("run edgec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn real(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/real").join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn opt_onnx_for_npu_then_verify() {
    let dir = tempfile::tempdir().expect("tmp");
    let out_eir = dir.path().join("m.eir");
    let model = real("mobilenetv3_small_paddle");
    let out = edgec(&["opt", s(&model.join("model.onnx")), "--target", "rk3588-npu", "--explain", "-o", s(&out_eir)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("stop=saturated") && err.contains("× bn-fold") && err.contains("× act-hswish"), "{err}");
    assert!(err.contains("onnx.BatchNormalization         34 -> 0"), "{err}");
    assert!(err.contains("rk3588-npu (simulated profile)"), "{err}");
    let data = model.join("test_data_set_0");
    let v = edgec(&["verify", s(&out_eir), "--data", s(&data)]);
    assert_eq!(v.status.code(), Some(0), "{}{}", text(&v.stdout), text(&v.stderr));
}

#[test]
fn output_is_byte_identical_across_processes() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = real("bert_encoder_paddle_static").join("model.onnx");
    let mut outputs = Vec::new();
    for i in 0..2 {
        let eir = dir.path().join(format!("run{i}.eir"));
        let out = edgec(&["opt", s(&model), "-o", s(&eir)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let weights = std::fs::read(dir.path().join(format!("run{i}.weights"))).expect("sidecar");
        let text = std::fs::read_to_string(&eir).expect("eir").replace(&format!("run{i}.weights"), "W");
        outputs.push((text, weights));
    }
    assert!(outputs[0] == outputs[1], "two runs of edgec opt differ");
}

#[test]
fn bad_user_rules_are_rejected_with_positions() {
    let dir = tempfile::tempdir().expect("tmp");
    let rules = dir.path().join("bad.rules");
    std::fs::write(&rules, "# doc\nrule a: (onnx.Nope ?x) => ?x;\n# doc\nrule b: (onnx.Relu ?x) => ?y;\n")
        .expect("write");
    let model = real("ppocr_det_paddle").join("model.onnx");
    let out = edgec(&["opt", s(&model), "--rules", s(&rules)]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("bad.rules:2:10: unknown op `onnx.Nope`"), "{err}");
    assert!(err.contains("bad.rules:4:27: variable `?y` is not bound"), "{err}");
}

#[test]
fn unknown_target_is_a_user_error() {
    let model = real("ppocr_det_paddle").join("model.onnx");
    let out = edgec(&["opt", s(&model), "--target", "tpu9000"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("tpu9000") && err.contains("rk3588-npu"), "{err}");
}

#[test]
fn rules_listing_and_iteration_limit() {
    let out = edgec(&["rules"]);
    assert_eq!(out.status.code(), Some(0));
    let listing = text(&out.stdout);
    for needle in [
        "== fusion ==",
        "bn-fold",
        "passes/rules/fusion.rules:",
        "== conditions ==",
        "is_splat(x, value)",
        "@fuse_activation",
    ] {
        assert!(listing.contains(needle), "`{needle}` missing from:\n{listing}");
    }
    let model = real("bert_encoder_paddle_static").join("model.onnx");
    let out = edgec(&["opt", s(&model), "--max-iters", "1", "--explain"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("stop=iteration limit (1) (LIMIT HIT"), "{err}");
}

#[test]
fn explain_reports_attention_peak_memory() {
    let model = real("bert_encoder_paddle_static").join("model.onnx");
    let passes = "shape-infer,canonicalize,optimize,attention-blocked,dce";
    let out = edgec(&["opt", s(&model), "--passes", passes, "--explain"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("fired     2 × attention-blocked"), "{err}");
    assert!(err.contains("peak score memory 4.0 KiB -> "), "{err}");
}

#[test]
fn compile_shows_the_backends_preparation_passes() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/det_head/model.onnx");
    let krate = dir.path().join("k");
    let out = edgec(&["compile", s(&model), "--emit", "rust", "-o", s(&krate), "--print-ir-after-all"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let dumps: Vec<&str> = err.lines().filter_map(|l| l.strip_prefix("// ----- IR after ")).collect();
    assert_eq!(dumps.iter().rev().take(2).collect::<Vec<_>>(), [&"widen-half -----", &"legalize-core -----"], "{err}");
    let after = err.rsplit("// ----- IR after legalize-core -----").next().unwrap_or_default();
    assert!(after.contains("phase = \"core\"") && !after.contains("onnx.Conv "), "{after}");
    let one = edgec(&["compile", s(&model), "-o", s(&krate), "--print-ir-after", "widen-half"]);
    assert_eq!(text(&one.stderr).matches("// ----- IR after").count(), 1, "{}", text(&one.stderr));
    let bad = edgec(&["compile", s(&model), "-o", s(&krate), "--target", "rk3588-npu"]);
    assert!(text(&bad.stderr).contains("has no Rust backend"), "{}", text(&bad.stderr));
}

#[test]
fn compile_for_aarch64_names_the_linker_and_records_the_triple() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/det_head/model.onnx");
    let krate = dir.path().join("k");
    let t = "aarch64-unknown-linux-gnu";
    let out = edgec(&["compile", s(&model), "-o", s(&krate), "--triple", t]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let config = std::fs::read_to_string(krate.join(".cargo/config.toml")).expect("config");
    assert!(config.contains(&format!("[target.{t}]\nlinker = \"aarch64-linux-gnu-gcc\"\n")), "{config}");
    let meta = std::fs::read_to_string(krate.join("edgec/meta.json")).expect("meta");
    assert!(meta.contains(&format!("\"triple\": \"{t}\"")), "{meta}");
    // Compiling the same crate for the host removes the config edgec wrote.
    let host = edgec(&["compile", s(&model), "-o", s(&krate)]);
    assert_eq!(host.status.code(), Some(0), "{}", text(&host.stderr));
    assert!(!krate.join(".cargo/config.toml").exists());
    assert!(!std::fs::read_to_string(krate.join("edgec/meta.json")).expect("meta").contains("triple"));
}

#[test]
fn recompiling_a_crate_replaces_the_vendored_runtime() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/det_head/model.onnx");
    let krate = dir.path().join("k");
    let first = edgec(&["compile", s(&model), "-o", s(&krate)]);
    assert_eq!(first.status.code(), Some(0), "{}", text(&first.stderr));
    // A module an older edgec wrote (since moved) must not survive: `pool.rs`
    // beside `pool/mod.rs` would make the crate ambiguous.
    let stale = [krate.join("kernels/src/stale_module.rs"), krate.join("numeric/src/stale_module.rs")];
    for f in &stale {
        std::fs::write(f, "// stale\n").expect("write");
    }
    let again = edgec(&["compile", s(&model), "-o", s(&krate)]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    for f in &stale {
        assert!(!f.exists(), "{} survived a recompile", f.display());
    }
    assert!(krate.join("kernels/src/lib.rs").is_file() && krate.join("numeric/src/lib.rs").is_file());
}

#[test]
fn cross_flags_are_checked() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/det_head/model.onnx");
    let krate = dir.path().join("k");
    let bad = edgec(&["compile", s(&model), "-o", s(&krate), "--triple", "riscv64gc-unknown-linux-gnu"]);
    let err = text(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(err.contains("unknown triple `riscv64gc-unknown-linux-gnu`") && err.contains("aarch64"), "{err}");
    let not_crate = edgec(&["verify", s(&model), "--triple", "aarch64-unknown-linux-gnu"]);
    assert!(text(&not_crate.stderr).contains("apply to a generated crate directory"), "{}", text(&not_crate.stderr));
    let ok = edgec(&["compile", s(&model), "-o", s(&krate)]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    let runner = edgec(&["run", s(&krate), "--triple", "aarch64-unknown-linux-gnu", "--runner", "no-such-emulator"]);
    assert!(text(&runner.stderr).contains("the runner no-such-emulator is not on PATH"), "{}", text(&runner.stderr));
}

#[test]
fn pack_for_names_the_family_weights_are_packed_for() {
    let dir = tempfile::tempdir().expect("tmp");
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/det_head/model.onnx");
    let krate = dir.path().join("k");
    let bad = edgec(&["compile", s(&model), "-o", s(&krate), "--pack-for", "sse4"]);
    let err = text(&bad.stderr);
    assert_eq!(bad.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--pack-for sse4: not a GEMM family (one of avx512, avx2, neon, scalar, native, none)"),
        "{err}"
    );
    let lib = |family: &str| {
        let out = edgec(&["compile", s(&model), "-o", s(&krate), "--pack-for", family]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let weights = std::fs::metadata(krate.join("weights.bin")).expect("weights").len();
        (std::fs::read_to_string(krate.join("src/lib.rs")).expect("lib.rs"), weights)
    };
    let (avx2, _) = lib("avx2");
    assert!(avx2.contains("k::conv::PackedConv::prepacked(") && avx2.contains("k::gemm::Isa::Avx2"), "{avx2}");
    assert!(!avx2.contains("PackedConv::new("), "{avx2}");
    let (neon, neon_bytes) = lib("neon");
    assert!(neon.contains("k::gemm::Isa::Neon") && !neon.contains("k::gemm::Isa::Avx2"));
    // Packed at construction: the raw weights are stored instead.
    let (none, none_bytes) = lib("none");
    assert!(none.contains("k::conv::PackedConv::new(") && !none.contains("prepacked("), "{none}");
    assert!(neon_bytes >= none_bytes, "NEON panels {neon_bytes} B, raw weights {none_bytes} B");
}
