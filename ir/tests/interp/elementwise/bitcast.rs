//! BitCast: bit reinterpretation between equal-width types.

use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, DType, Opcode};

fn bitcast(t: Tensor, to: DType) -> Result<Vec<Tensor>, String> {
    eval_op(Opcode::BitCast, &[Some(t)], Attrs::new().with("to", Attr::Type(to)), 1)
}

#[test]
fn reinterprets_bits_and_keeps_shape() {
    let x = Tensor::new(vec![2], Data::F32(vec![1.0, -0.0]));
    let y = bitcast(x, DType::I32).unwrap();
    assert_eq!(y[0].shape, vec![2]);
    assert_eq!(y[0].data, Data::I32(vec![0x3f80_0000, i32::MIN]));
    let u = Tensor::new(vec![], Data::U16(vec![0xffff]));
    assert_eq!(bitcast(u, DType::I16).unwrap()[0].data, Data::I16(vec![-1]));
}

#[test]
fn unequal_widths_and_strings_are_errors() {
    let x = Tensor::new(vec![1], Data::F32(vec![1.0]));
    assert!(bitcast(x, DType::I64).unwrap_err().contains("equal bit widths"));
    let s = Tensor::new(vec![1], Data::String(vec!["a".into()]));
    assert!(bitcast(s, DType::U8).unwrap_err().contains("string"));
}
