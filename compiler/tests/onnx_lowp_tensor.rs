//! ONNX `TensorProto` encoding of the low-precision element types: 4-bit types
//! packed two per byte and 2-bit types four per byte (low bits first), in
//! `raw_data` and in `int32_data`; float8 one bit pattern per byte / int32.

use compiler::frontend::onnx::proto::TensorProto;
use compiler::frontend::onnx::tensor::{tensor_from_proto, tensor_to_proto};
use ir::interp::{Data, Tensor};

fn proto(code: i32, dims: &[i64]) -> TensorProto {
    TensorProto { data_type: code, dims: dims.to_vec(), ..Default::default() }
}

#[test]
fn packed_raw_data_round_trips() {
    let t = Tensor::new(vec![3], Data::I4(vec![-8, 7, -1]));
    let p = tensor_to_proto(&t, "x");
    assert_eq!((p.data_type, p.raw_data.clone()), (22, vec![0x78, 0x0F]));
    assert_eq!(tensor_from_proto(&p, None).unwrap(), t);
    let t = Tensor::new(vec![5], Data::U2(vec![1, 2, 3, 0, 1]));
    let p = tensor_to_proto(&t, "y");
    assert_eq!((p.data_type, p.raw_data.clone()), (25, vec![0x39, 0x01]));
    assert_eq!(tensor_from_proto(&p, None).unwrap(), t);
    let t = Tensor::new(vec![2], Data::F8E5M2(vec![0x7B, 0xFC]));
    let p = tensor_to_proto(&t, "z");
    assert_eq!((p.data_type, p.raw_data.clone()), (19, vec![0x7B, 0xFC]));
    assert_eq!(tensor_from_proto(&p, None).unwrap(), t);
}

#[test]
fn typed_int32_fields() {
    // int4 in int32_data: still packed two per entry.
    let mut p = proto(22, &[3]);
    p.int32_data = vec![0xF7, 0x08];
    assert_eq!(tensor_from_proto(&p, None).unwrap().data, Data::I4(vec![7, -1, -8]));
    // float8: one bit pattern per int32.
    let mut p = proto(17, &[2]);
    p.int32_data = vec![0x7E, 0x80];
    assert_eq!(tensor_from_proto(&p, None).unwrap().data, Data::F8E4M3FN(vec![0x7E, 0x80]));
    // Too few packed bytes is an error, not a panic.
    let mut p = proto(21, &[5]);
    p.raw_data = vec![0x21, 0x43];
    assert!(tensor_from_proto(&p, None).is_err());
}
