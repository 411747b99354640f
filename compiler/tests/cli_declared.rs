//! Declared types are hints: a model whose declarations contradict inference
//! imports (exit 0) with one warning per static-size, rank or element-type
//! conflict, silent symbol unification shown by `inspect`, and anonymous
//! input dims that are independent symbols.

use compiler::frontend::onnx::proto::{
    tensor_shape_proto::{dimension::Value as DimValue, Dimension},
    type_proto, GraphProto, ModelProto, NodeProto, OperatorSetIdProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use prost::Message;
use std::process::Command;

/// `p:NAME` a dim_param, `v:N` a dim_value, `-` an absent dim.
fn vi(name: &str, elem: i32, dims: &[&str]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|d| Dimension {
            value: match d.split_once(':') {
                Some(("p", p)) => Some(DimValue::DimParam(p.into())),
                Some(("v", n)) => Some(DimValue::DimValue(n.parse().unwrap())),
                _ => None,
            },
            ..Default::default()
        })
        .collect();
    let t = type_proto::Tensor { elem_type: elem, shape: Some(TensorShapeProto { dim }) };
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(t)), ..Default::default() }),
        ..Default::default()
    }
}

fn node(op: &str, name: &str, input: &str, output: &str) -> NodeProto {
    NodeProto {
        op_type: op.into(),
        name: name.into(),
        input: vec![input.into()],
        output: vec![output.into()],
        ..Default::default()
    }
}

/// x: f32[batch, 3, <anonymous>, "?"] -> Relu a -> Relu b -> Relu y.
fn model() -> Vec<u8> {
    let graph = GraphProto {
        node: vec![node("Relu", "r1", "x", "a"), node("Relu", "r2", "a", "b"), node("Relu", "r3", "b", "y")],
        input: vec![vi("x", 1, &["p:batch", "v:3", "-", "p:?"])],
        output: vec![vi("y", 1, &["v:1", "v:2", "v:3"])], // rank 3, inferred rank 4
        value_info: vec![
            vi("a", 1, &["p:unk__2", "v:4", "-", "-"]), // alias unk__2 ~ batch; 4 vs 3
            vi("b", 7, &["p:batch", "v:3", "-", "-"]),  // i64, inferred f32
        ],
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

fn edgec(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_edgec")).args(args).output().expect("run edgec");
    let s = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), s(&out.stdout), s(&out.stderr))
}

#[test]
fn conflicting_declarations_import_with_one_warning_each() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.onnx");
    std::fs::write(&path, model()).unwrap();
    let p = path.to_str().unwrap();
    let (code, out, err) = edgec(&["import", p]);
    assert_eq!(code, 0, "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.contains("warning:")).collect();
    assert_eq!(warnings.len(), 3, "{err}");
    assert!(err.contains("node \"r1\" (Relu): output \"a\": declared f32[unk__2, 4, ?, ?], inferred f32[batch, 3, x.d2, x.d3]: axis 1: 4 declared, 3 inferred"), "{err}");
    assert!(err.contains("output \"b\": declared i64"), "{err}");
    assert!(err.contains("graph output \"y\": declared f32[1, 2, 3]") && err.contains("rank 3 differs"), "{err}");
    assert!(out.contains("func @main(%x: f32[batch, 3, x.d2, x.d3]) -> (y: f32[batch, 3, x.d2, x.d3])"), "{out}");
    assert!(out.contains("onnx.dim_aliases = [\"unk__2 ~ batch\"]"), "{out}");

    let (code, out, _) = edgec(&["inspect", p]);
    assert_eq!(code, 0);
    assert!(out.contains("dim aliases (declared ~ inferred, unified):\n    unk__2 ~ batch"), "{out}");
    assert!(out.contains("inputs as imported:\n    x: f32[batch, 3, x.d2, x.d3]"), "{out}");
    assert_eq!(out.matches("  warning: ").count(), 3, "{out}");
}

#[test]
fn anonymous_dims_are_independent_and_can_be_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.onnx");
    std::fs::write(&path, model()).unwrap();
    let x = ir::interp::Tensor::new(vec![2, 3, 48, 192], ir::interp::Data::F32(vec![-1.0; 2 * 3 * 48 * 192]));
    let npy = dir.path().join("x.npy");
    std::fs::write(&npy, compiler::npy::write_npy(&x)).unwrap();
    let input = format!("x={}", npy.display());
    let (code, out, err) = edgec(&["run", path.to_str().unwrap(), "--input", &input]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("y: f32[2, 3, 48, 192]"), "{out}");
    // --dim names the anonymous dims; --shape fixes the whole input.
    let (code, out, err) = edgec(&["import", path.to_str().unwrap(), "--dim", "x.d2=48", "--dim", "unk__2=2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("-> (y: f32[2, 3, 48, x.d3])"), "{out}");
    let (code, _, err) = edgec(&["import", path.to_str().unwrap(), "--shape", "x=2,4,48,192", "--dim", "nope=1"]);
    assert_eq!(code, 1);
    assert!(err.contains("--shape x=2,4,48,192: axis 1 of f32[batch, 3, x.d2, x.d3] is 3, not 4"), "{err}");
    assert!(
        err.contains("--dim nope: no symbolic dim `nope` in the model (symbolic dims: batch, x.d2, x.d3)"),
        "{err}"
    );
}
