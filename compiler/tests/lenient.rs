//! Lenient forms: inputs onnxruntime's CPU kernels accept beyond the spec
//! text import into the spec form and compute the same as it.

use compiler::frontend::onnx::import_bytes;
use compiler::frontend::onnx::proto::{
    tensor_shape_proto::{dimension::Value as DimValue, Dimension},
    type_proto, AttributeProto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto,
    TypeProto, ValueInfoProto,
};
use ir::interp::{Data, Tensor};
use prost::Message;

fn vi(name: &str, elem: i32, dims: &[i64]) -> ValueInfoProto {
    let dim = dims.iter().map(|&d| Dimension { value: Some(DimValue::DimValue(d)), ..Default::default() }).collect();
    let t = type_proto::Tensor { elem_type: elem, shape: Some(TensorShapeProto { dim }) };
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(t)), ..Default::default() }),
        ..Default::default()
    }
}

/// STFT of a signal of shape `signal`, frame step 4, frame length 8, onesided.
fn stft_model(signal: &[i64]) -> Vec<u8> {
    let step = TensorProto { name: "step".into(), data_type: 7, int64_data: vec![4], ..Default::default() };
    let len = TensorProto { name: "len".into(), data_type: 7, int64_data: vec![8], ..Default::default() };
    let node = NodeProto {
        op_type: "STFT".into(),
        name: "stft".into(),
        input: vec!["x".into(), "step".into(), String::new(), "len".into()],
        output: vec!["y".into()],
        attribute: vec![AttributeProto { name: "onesided".into(), r#type: 2, i: 1, ..Default::default() }],
        ..Default::default()
    };
    let graph = GraphProto {
        node: vec![node],
        input: vec![vi("x", 1, signal)],
        output: vec![vi("y", 1, &[2, 7, 5, 2])],
        initializer: vec![step, len],
        ..Default::default()
    };
    let m = ModelProto {
        ir_version: 8,
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 17 }],
        graph: Some(graph),
        ..Default::default()
    };
    m.encode_to_vec()
}

#[test]
fn stft_of_a_rank_2_signal_is_the_rank_3_form() {
    let data: Vec<f32> = (0..64).map(|i| ((i * 7 % 11) as f32 - 5.0) / 3.0).collect();
    let run = |shape: &[i64], dims: Vec<usize>| {
        let m = import_bytes(&stft_model(shape), None, "m").expect("imports");
        let x = Tensor::new(dims, Data::F32(data.clone()));
        ir::interp::run(&m, "main", vec![x]).expect("runs")
    };
    let lenient = run(&[2, 32], vec![2, 32]);
    let spec = run(&[2, 32, 1], vec![2, 32, 1]);
    assert_eq!(lenient[0].shape, vec![2, 7, 5, 2]);
    assert_eq!(lenient, spec);
}
