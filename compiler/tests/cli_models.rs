//! `edgec import/inspect/run/verify` on the bundled ONNX models: exit codes,
//! messages, and agreement between the .onnx and the imported .eir.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn edgec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_edgec")).args(args).output().expect("run edgec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models").join(name).join("model.onnx")
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn verify_passes_on_bundled_models_and_reports_errors() {
    let out = edgec(&["verify", s(&model("bert_tiny"))]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("hidden: max_abs=") && stdout.contains("PASS"), "{stdout}");
    assert!(stdout.contains("2 of 2 data set(s) passed (rtol 0.001, atol 0.0001)"), "{stdout}");
}

#[test]
fn verify_fails_with_exit_1_on_wrong_expected_output() {
    let dir = tempfile::tempdir().unwrap();
    let src = model("det_head");
    std::fs::copy(&src, dir.path().join("model.onnx")).unwrap();
    let set = dir.path().join("test_data_set_0");
    std::fs::create_dir(&set).unwrap();
    let orig = src.parent().unwrap().join("test_data_set_0");
    for f in ["input_0.pb", "output_0.pb", "output_1.pb", "output_2.pb", "output_3.pb"] {
        std::fs::copy(orig.join(f), set.join(f)).unwrap();
    }
    // Expect the objectness output where the box output should be: shapes differ.
    std::fs::copy(orig.join("output_1.pb"), set.join("output_0.pb")).unwrap();
    let out = edgec(&["verify", s(&dir.path().join("model.onnx"))]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("box: max_abs=0.000e0 max_rel=0.000e0 FAIL (shape [1, 4, 16, 16] != expected [1, 1, 16, 16])"),
        "{stdout}"
    );
    assert!(stdout.contains("obj_p:") && stdout.contains("PASS"), "{stdout}");
    assert!(text(&out.stderr).contains("1 data set(s) failed verification"));
    // No data next to the model and none given: a usage error.
    let lonely = tempfile::tempdir().unwrap();
    std::fs::copy(&src, lonely.path().join("m.onnx")).unwrap();
    let out = edgec(&["verify", s(&lonely.path().join("m.onnx"))]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no test_data_set_* directory"), "{}", text(&out.stderr));
}

fn write_input(dir: &Path, name: &str, pb: &Path) -> PathBuf {
    let t = compiler::check::read_tensor_pb(pb).unwrap();
    let p = dir.join(format!("{name}.npy"));
    std::fs::write(&p, compiler::npy::write_npy(&t)).unwrap();
    p
}

#[test]
fn run_writes_outputs_that_match_the_reference_and_import_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    let m = model("paddle_cnn");
    let data = m.parent().unwrap().join("test_data_set_0");
    let x = write_input(dir.path(), "x", &data.join("input_0.pb"));
    let outdir = dir.path().join("out");
    let binding = format!("x={}", s(&x));
    let out = edgec(&["run", s(&m), "--input", &binding, "-o", s(&outdir)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "prob: f32[2, 10]\n");
    let got = compiler::npy::read_npy(&std::fs::read(outdir.join("prob.npy")).unwrap()).unwrap();
    let want = compiler::check::read_tensor_pb(&data.join("output_0.pb")).unwrap();
    let c = compiler::check::compare(0, &got, &want, Default::default());
    assert!(c.failure.is_none(), "{c:?}");
    // The imported .eir (text + weights sidecar) runs to the same result.
    let eir = dir.path().join("paddle.eir");
    let out = edgec(&["import", s(&m), "-o", s(&eir)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(dir.path().join("paddle.weights").exists());
    let outdir2 = dir.path().join("out2");
    let out = edgec(&["run", s(&eir), "--input", &binding, "-o", s(&outdir2)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(outdir.join("prob.npy")).unwrap(), std::fs::read(outdir2.join("prob.npy")).unwrap());
}

#[test]
fn run_reports_every_input_problem() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.npy");
    std::fs::write(&bad, b"garbage").unwrap();
    let m = model("bert_tiny");
    let out = edgec(&["run", s(&m), "--input", &format!("input_ids={}", s(&bad)), "--input", "typo=x.npy"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("unknown input \"typo\" (inputs are: input_ids, attention_mask)"), "{err}");
    assert!(err.contains("bad.npy: not a .npy file"), "{err}");
    assert!(err.contains("missing input \"attention_mask\" of type i64[batch, sequence]"), "{err}");
    let out = edgec(&["run", s(&m), "--input", "no-equals-sign"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--input expects NAME=FILE.npy"));
}

#[test]
fn run_rejects_inputs_of_the_wrong_type_naming_the_input() {
    let dir = tempfile::tempdir().unwrap();
    let m = model("bert_tiny");
    let f32_ids = dir.path().join("ids.npy");
    let t = ir::interp::Tensor::new(vec![1, 3], ir::interp::Data::F32(vec![1.0, 2.0, 3.0]));
    std::fs::write(&f32_ids, compiler::npy::write_npy(&t)).unwrap();
    let mask = dir.path().join("mask.npy");
    let t = ir::interp::Tensor::new(vec![1, 3], ir::interp::Data::I64(vec![1, 1, 1]));
    std::fs::write(&mask, compiler::npy::write_npy(&t)).unwrap();
    let out = edgec(&[
        "run",
        s(&m),
        "--input",
        &format!("input_ids={}", s(&f32_ids)),
        "--input",
        &format!("attention_mask={}", s(&mask)),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("input #0 (input_ids): got element type f32, declared i64"), "{err}");
}

#[test]
fn inspect_summarizes_a_model() {
    let out = edgec(&["inspect", s(&model("bert_tiny"))]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let o = text(&out.stdout);
    for want in [
        "opset: ai.onnx 13",
        "input_ids: i64[batch, sequence]",
        "hidden: f32[batch, sequence, 16]",
        "MatMul",
        "parameters: ",
        "import: ok",
    ] {
        assert!(o.contains(want), "missing `{want}` in:\n{o}");
    }
}

#[test]
fn import_of_a_corrupt_model_is_a_user_error() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("broken.onnx");
    let bytes = std::fs::read(model("det_head")).unwrap();
    std::fs::write(&p, &bytes[..bytes.len() / 3]).unwrap();
    let out = edgec(&["import", s(&p)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("not a valid ONNX model"), "{}", text(&out.stderr));
}

#[test]
fn import_is_deterministic() {
    let dir = tempfile::tempdir().unwrap();
    for name in ["bert_tiny", "audio_rnn", "det_head"] {
        let a = dir.path().join(format!("{name}_a.eir"));
        let b = dir.path().join(format!("{name}_b.eir"));
        for p in [&a, &b] {
            let out = edgec(&["import", s(&model(name)), "-o", s(p)]);
            assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        }
        let (ta, tb) = (std::fs::read_to_string(&a).unwrap(), std::fs::read_to_string(&b).unwrap());
        assert_eq!(ta.replace(&format!("{name}_a.weights"), "W"), tb.replace(&format!("{name}_b.weights"), "W"));
        let (wa, wb) = (a.with_extension("weights"), b.with_extension("weights"));
        if wa.exists() {
            assert_eq!(std::fs::read(wa).unwrap(), std::fs::read(wb).unwrap());
        }
    }
}
