//! Bad ONNX input: mutated and truncated models never panic the importer and
//! every error says what is wrong; unsupported ops are all listed at once.

use compiler::frontend::onnx::proto::{
    attribute_proto::AttributeType, type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    TensorShapeProto, TypeProto, ValueInfoProto,
};
use compiler::frontend::onnx::{import_bytes, ImportError};
use proptest::prelude::*;
use prost::Message;
use std::path::{Path, PathBuf};

fn models() -> Vec<Vec<u8>> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("model.onnx"))
        .filter(|p| p.exists())
        .collect();
    paths.sort();
    assert!(paths.len() >= 5, "bundled test models missing");
    paths.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

/// Import must return (Ok or a described error), never panic.
fn check(bytes: &[u8]) {
    match import_bytes(bytes, None, "fuzz") {
        Ok(m) => {
            // Whatever imports must verify or report errors, again without panicking.
            let _ = ir::verify::verify(&m);
        }
        Err(e) => assert!(!e.to_string().trim().is_empty(), "empty error message"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn mutated_models_never_panic(which in 0usize..5, edits in prop::collection::vec((any::<usize>(), any::<u8>()), 1..8)) {
        let ms = models();
        let mut bytes = ms[which % ms.len()].clone();
        for (pos, b) in edits {
            let i = pos % bytes.len();
            bytes[i] = b;
        }
        check(&bytes);
    }

    #[test]
    fn truncated_models_never_panic(which in 0usize..5, frac in 0.0f64..1.0) {
        let ms = models();
        let bytes = &ms[which % ms.len()];
        let cut = (bytes.len() as f64 * frac) as usize;
        check(&bytes[..cut]);
    }
}

#[test]
fn every_truncation_of_a_small_model_is_handled() {
    let ms = models();
    let small = ms.iter().min_by_key(|m| m.len()).unwrap();
    for cut in (0..small.len()).step_by(7) {
        check(&small[..cut]);
    }
}

fn tensor_vi(name: &str) -> ValueInfoProto {
    let t = type_proto::Tensor { elem_type: 1, shape: Some(TensorShapeProto { dim: vec![] }) };
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(t)), ..Default::default() }),
        ..Default::default()
    }
}

fn node(op: &str, domain: &str, name: &str, input: &str, output: &str) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        domain: domain.into(),
        name: name.into(),
        input: vec![input.into()],
        output: vec![output.into()],
        ..Default::default()
    }
}

#[test]
fn unsupported_ops_are_listed_with_counts_and_first_node() {
    let nodes = vec![
        node("FancyOp", "", "fancy_a", "x", "a"),
        node("Relu", "", "relu", "a", "b"),
        node("FancyOp", "", "fancy_b", "b", "c"),
        node("FusedGemm", "com.microsoft", "ms_gemm", "c", "d"),
        node("Relu", "", "relu_undefined_input", "nowhere", "e"),
    ];
    let graph =
        GraphProto { node: nodes, input: vec![tensor_vi("x")], output: vec![tensor_vi("d")], ..Default::default() };
    let model = ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }],
        graph: Some(graph),
        ..Default::default()
    };
    let err = import_bytes(&model.encode_to_vec(), None, "m").unwrap_err();
    let ImportError::Problems(p) = &err else { panic!("expected collected problems, got {err}") };
    assert_eq!(
        p.unsupported,
        vec![
            ("FancyOp".to_string(), 2, "fancy_a".to_string()),
            ("com.microsoft::FusedGemm".to_string(), 1, "ms_gemm".to_string())
        ]
    );
    let text = err.to_string();
    assert!(text.contains("2 unsupported op type(s) (3 node(s))"), "{text}");
    assert!(text.contains("node \"relu_undefined_input\" (Relu): input \"nowhere\" is not produced"), "{text}");
    // Nodes downstream of an unsupported node are not reported again.
    assert!(!text.contains("node \"relu\""), "{text}");
}

#[test]
fn attribute_errors_name_the_node() {
    let mut n = node("Relu", "", "my_relu", "x", "y");
    n.attribute.push(AttributeProto {
        name: "alpha".into(),
        r#type: AttributeType::Float as i32,
        f: 1.0,
        ..Default::default()
    });
    let graph =
        GraphProto { node: vec![n], input: vec![tensor_vi("x")], output: vec![tensor_vi("y")], ..Default::default() };
    let model = ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }],
        graph: Some(graph),
        ..Default::default()
    };
    let err = import_bytes(&model.encode_to_vec(), None, "m").unwrap_err().to_string();
    assert!(err.contains("node \"my_relu\" (Relu): attribute `alpha` is not supported for Relu (opset 17)"), "{err}");
}

#[test]
fn garbage_is_a_decode_error() {
    let err = import_bytes(b"\xff\xff\xff\xff not protobuf", None, "m").unwrap_err();
    assert!(matches!(err, ImportError::Decode(_)), "{err}");
}
