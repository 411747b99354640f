//! The ONNX writer: a quantized (QDQ) module written as ONNX and imported
//! back computes bit for bit what the module computes; the float module of a
//! published model too; what has no ONNX form is listed, not dropped.

use compiler::driver::{load_eir, load_model_with, LoadOptions};
use ir::interp::{run, Tensor};
use std::path::{Path, PathBuf};
use std::process::Command;

fn model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/real/mobilenetv3_small_paddle")
}

fn input() -> Vec<Tensor> {
    vec![compiler::check::read_tensor_pb(&model().join("test_data_set_0/input_0.pb")).expect("input")]
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

fn same_bits(a: &[Tensor], b: &[Tensor]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| x.shape == y.shape && format!("{:?}", x.data) == format!("{:?}", y.data))
}

#[test]
fn a_quantized_module_round_trips_through_onnx_bit_for_bit() {
    let dir = tempfile::tempdir().expect("tmp");
    let (eir, onnx) = (dir.path().join("q.eir"), dir.path().join("q.onnx"));
    let data = model().join("test_data_set_0");
    for out in [&eir, &onnx] {
        let o = Command::new(env!("CARGO_BIN_EXE_edgec"))
            .args(["quantize", s(&model().join("model.onnx")), "--calib", s(&data), "--qdq", "-o", s(out)])
            .output()
            .expect("run edgec");
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let q = load_eir(s(&eir)).expect("eir").module;
    let back = load_model_with(s(&onnx), &LoadOptions::default()).expect("the export imports");
    let n = |m: &ir::Module, what: &str| {
        let f = m.func("main").expect("main");
        f.live_ops().iter().filter(|&&id| f.ops[id].opcode.name() == what).count()
    };
    assert_eq!(n(&q, "onnx.QuantizeLinear"), n(&back, "onnx.QuantizeLinear"));
    assert!(n(&back, "onnx.QuantizeLinear") > 50);
    let (a, b) = (run(&q, "main", input()).expect("eir runs"), run(&back, "main", input()).expect("onnx runs"));
    assert!(same_bits(&a, &b), "{a:?}\nvs\n{b:?}");
}

#[test]
fn an_optimized_float_module_round_trips_and_keeps_its_io_names() {
    let m = load_model_with(s(&model().join("model.onnx")), &LoadOptions::default()).expect("model");
    let mut opt = m.clone();
    let passes = passes::parse_pipeline(passes::DEFAULT_PIPELINE).expect("pipeline");
    passes::PassManager::new(passes, passes::PassOptions::default())
        .run(&mut opt, &mut std::io::sink())
        .expect("optimizes");
    let bytes = compiler::export_onnx::to_bytes(&opt).expect("exports");
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("opt.onnx");
    std::fs::write(&path, &bytes).expect("write");
    let back = load_model_with(s(&path), &LoadOptions::default()).expect("imports");
    let names = |m: &ir::Module| {
        let f = m.func("main").expect("main");
        (f.body.params.iter().map(|&p| f.values[p].name.clone()).collect::<Vec<_>>(), f.result_names.clone())
    };
    assert_eq!(names(&back), names(&m));
    assert!(same_bits(&run(&opt, "main", input()).expect("opt"), &run(&back, "main", input()).expect("back")));
    assert_eq!(compiler::export_onnx::to_bytes(&opt).expect("again"), bytes, "deterministic");
}

#[test]
fn ops_without_an_onnx_form_are_all_listed() {
    let src = r#"module @m attributes {phase = "core"} {
  func @main(%q: f32[1, 2, 4, 8], %k: f32[1, 2, 4, 8], %v: f32[1, 2, 4, 8]) -> (f32[1, 2, 4, 8], f32[1, 2, 4, 8]) {
    %0 = core.attention %q, %k, %v {scale = 0.5} : f32[1, 2, 4, 8] loc("attn1" op "Attention")
    %1 = core.attention %k, %q, %v {scale = 0.5} : f32[1, 2, 4, 8] loc("attn2" op "Attention")
    return %0, %1
  }
}"#;
    let m = ir::text::parse_module(src, "t.eir", None).expect("parses").module;
    let e = compiler::export_onnx::to_bytes(&m).unwrap_err().to_string();
    assert!(e.contains("\"attn1\"") && e.contains("\"attn2\"") && e.contains("no ONNX form"), "{e}");
}

#[test]
fn tensor_attributes_round_trip() {
    let src = r#"module @m attributes {phase = "onnx"} {
  const @v : f32[1] = dense<[2.5]>
  func @main(%s: i64[2]) -> (f32[?, ?]) {
    %0 = onnx.ConstantOfShape %s {value = @v} : f32[?, ?]
    return %0
  }
}"#;
    let m = ir::text::parse_module(src, "t.eir", None).expect("parses").module;
    let dir = tempfile::tempdir().expect("tmp");
    let path = dir.path().join("c.onnx");
    std::fs::write(&path, compiler::export_onnx::to_bytes(&m).expect("exports")).expect("write");
    let back = load_model_with(s(&path), &LoadOptions::default()).expect("imports");
    let shape = || vec![Tensor::new(vec![2], ir::interp::Data::I64(vec![2, 3]))];
    let (a, b) = (run(&m, "main", shape()).expect("runs"), run(&back, "main", shape()).expect("runs back"));
    assert!(same_bits(&a, &b) && a[0].shape == [2, 3], "{a:?} vs {b:?}");
}
