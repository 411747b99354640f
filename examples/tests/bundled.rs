//! The bundled example model loads with its weights sidecar, verifies, and the
//! README's pipeline does what the README says.

use ir::text::{parse_module, print_module};
use passes::{parse_pipeline, PassManager, PassOptions};

#[test]
fn tiny_cnn_pipeline_refines_shapes_and_removes_dead_ops() {
    let path = edgec_examples::model_path("tiny_cnn.eir");
    let src = std::fs::read_to_string(&path).expect("bundled model");
    let dir = path.parent().expect("models dir").to_path_buf();
    let loader = move |name: &str| std::fs::read(dir.join(name)).map_err(|e| e.to_string());
    let mut m = parse_module(&src, "tiny_cnn.eir", Some(&loader)).expect("parses").module;
    ir::verify::verify(&m).expect("bundled model verifies");
    let consts_before = m.consts.len();
    let pipeline = parse_pipeline("shape-infer,canonicalize,dce").expect("registered");
    let report = PassManager::new(pipeline, PassOptions::default()).run(&mut m, &mut std::io::sink()).expect("passes");
    assert!(report.passes.iter().all(|p| p.changed), "{report}");
    let out = print_module(&m);
    for gone in ["onnx.Identity", "onnx.Dropout", "onnx.Sigmoid", "?"] {
        assert!(!out.contains(gone), "`{gone}` should be gone:\n{out}");
    }
    assert!(out.contains("onnx.MaxPool %3 {kernel_shape = [2, 2], strides = [2, 2]} : f32[batch, 8, 16, 16]"), "{out}");
    assert!(out.contains("onnx.Flatten %9 : f32[batch, 16]"), "{out}");
    assert_eq!(m.consts.len(), consts_before, "all weights are used");
}
