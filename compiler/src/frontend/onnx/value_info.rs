//! IR types of ONNX `ValueInfoProto` declarations.

use super::proto::{type_proto, ValueInfoProto};
use super::tensor::dtype_of;
use ir::{Dim, Shape, Symbol, TensorType};

/// The IR type of an ONNX `ValueInfoProto` (tensors only).
pub(super) fn type_of(vi: &ValueInfoProto) -> Result<Option<TensorType>, String> {
    let Some(tp) = &vi.r#type else { return Ok(None) };
    match &tp.value {
        Some(type_proto::Value::TensorType(t)) => {
            let dtype = dtype_of(t.elem_type).map_err(|e| format!("value \"{}\": {e}", vi.name))?;
            let shape = match &t.shape {
                None => Shape::Unranked,
                Some(s) => Shape::from_dims(s.dim.iter().map(dim_of)),
            };
            Ok(Some(TensorType::new(dtype, shape)))
        }
        None => Ok(None),
        Some(other) => {
            let kind = match other {
                type_proto::Value::SequenceType(_) => "sequence",
                type_proto::Value::MapType(_) => "map",
                type_proto::Value::OptionalType(_) => "optional",
                type_proto::Value::SparseTensorType(_) => "sparse tensor",
                _ => "opaque",
            };
            Err(format!("value \"{}\" has a {kind} type, which is not supported", vi.name))
        }
    }
}

fn dim_of(d: &super::proto::tensor_shape_proto::Dimension) -> Dim {
    use super::proto::tensor_shape_proto::dimension::Value as V;
    match &d.value {
        Some(V::DimValue(n)) if *n >= 0 => Dim::Static(*n as u64),
        Some(V::DimParam(p)) if super::declared::is_named(p) => Dim::Sym(Symbol::new(p)),
        _ => Dim::Unknown,
    }
}
