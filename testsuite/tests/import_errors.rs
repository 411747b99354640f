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
        node("WordConvEmbedding", "com.microsoft", "ms_wce", "c", "d"),
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
            ("com.microsoft::WordConvEmbedding".to_string(), 1, "ms_wce".to_string())
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

fn model_with_external_weight(location: &str, offset: &str, length: &str) -> ModelProto {
    use compiler::frontend::onnx::proto::{StringStringEntryProto, TensorProto};
    let entry = |k: &str, v: &str| StringStringEntryProto { key: k.into(), value: v.into() };
    let w = TensorProto {
        name: "w".into(),
        dims: vec![3],
        data_type: 1,
        data_location: 1,
        external_data: vec![entry("location", location), entry("offset", offset), entry("length", length)],
        ..Default::default()
    };
    let mut x = tensor_vi("x");
    let mut y = tensor_vi("y");
    for vi in [&mut x, &mut y] {
        if let Some(TypeProto { value: Some(type_proto::Value::TensorType(t)), .. }) = &mut vi.r#type {
            t.shape = Some(TensorShapeProto {
                dim: vec![compiler::frontend::onnx::proto::tensor_shape_proto::Dimension {
                    value: Some(compiler::frontend::onnx::proto::tensor_shape_proto::dimension::Value::DimValue(3)),
                    ..Default::default()
                }],
            });
        }
    }
    let add = NodeProto {
        op_type: "Add".into(),
        name: "add".into(),
        input: vec!["x".into(), "w".into()],
        output: vec!["y".into()],
        ..Default::default()
    };
    let graph =
        GraphProto { node: vec![add], input: vec![x], output: vec![y], initializer: vec![w], ..Default::default() };
    ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }],
        graph: Some(graph),
        ..Default::default()
    }
}

#[test]
fn external_data_is_read_relative_to_the_model() {
    let dir = tempfile::tempdir().unwrap();
    let mut blob = vec![0u8; 8]; // 8 bytes of padding before the tensor
    for v in [1.0f32, 2.0, 3.5] {
        blob.extend(v.to_le_bytes());
    }
    std::fs::write(dir.path().join("weights.bin"), &blob).unwrap();
    let path = dir.path().join("m.onnx");
    std::fs::write(&path, model_with_external_weight("weights.bin", "8", "12").encode_to_vec()).unwrap();
    let m = compiler::frontend::onnx::import_file(&path).expect("imports");
    let x = ir::interp::Tensor::new(vec![3], ir::interp::Data::F32(vec![10.0, 20.0, 30.0]));
    let y = ir::interp::run(&m, "main", vec![x]).unwrap();
    assert_eq!(y[0].data, ir::interp::Data::F32(vec![11.0, 22.0, 33.5]));
}

#[test]
fn hostile_external_data_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("short.bin"), [0u8; 4]).unwrap();
    for (loc, off, len, want) in [
        ("../secret.bin", "0", "12", "must be a relative path inside the model's directory"),
        ("/etc/passwd", "0", "12", "must be a relative path inside the model's directory"),
        ("short.bin", "0", "12", "is outside"),
        ("short.bin", "99999999999999999999", "12", "is not a number"),
        ("missing.bin", "0", "12", "cannot read external data"),
    ] {
        let path = dir.path().join("m.onnx");
        std::fs::write(&path, model_with_external_weight(loc, off, len).encode_to_vec()).unwrap();
        let err = compiler::frontend::onnx::import_file(&path).unwrap_err().to_string();
        assert!(err.contains("tensor \"w\"") && err.contains(want), "{loc}: {err}");
    }
}
