//! Decodes the ONNX backend conformance test data with the hand-written
//! protobuf messages of `compiler::frontend::onnx::proto`.
//!
//! The data is not in the repository: `testsuite/conformance/fetch.sh`
//! extracts it from the `onnx` wheel into `target/onnx-tests/` (CI runs it
//! first; a test finding it missing runs the script, and fails if that
//! fails). `EDGEC_ONNX_TESTS` overrides the location.
//!
//! Every `model.onnx` (and every `light/*.onnx`) must decode as a
//! `ModelProto`, and every `test_data_set_*/{input,output}_*.pb` as the
//! message its graph input or output type calls for (`TensorProto`,
//! `SequenceProto`, `OptionalProto` or `MapProto`), exactly as the reference
//! runner (`onnx/backend/test/runner`) loads them. Each decoded tensor must
//! also be self-consistent (its data holds as many elements as its dims say,
//! and its data type matches the graph's), and each message must re-encode
//! stably; wrong field numbers, wire types or packing would fail one of these.

use compiler::frontend::onnx::proto::{
    tensor_proto::DataType, tensor_shape_proto::dimension, type_proto, GraphProto, MapProto, ModelProto, OptionalProto,
    SequenceProto, SparseTensorProto, TensorProto, TypeProto,
};
use prost::Message;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Test-data categories whose tests are directories holding `model.onnx`.
const DIR_CATEGORIES: &[&str] = &["node", "pytorch-converted", "pytorch-operator", "simple"];

fn data_root() -> PathBuf {
    testsuite::onnx_data::root()
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("read_dir entry").path())
        .collect();
    v.sort();
    v
}

fn file_name(p: &Path) -> &str {
    p.file_name().and_then(|n| n.to_str()).unwrap_or("")
}

/// Decode `bytes` as `M` and check that re-encoding is lossless: encoding
/// the decoded message, decoding that and encoding again gives the same bytes
/// (compared as bytes, not values, since NaN != NaN).
fn decode<M: Message + Default>(bytes: &[u8]) -> Result<M, String> {
    let msg = M::decode(bytes).map_err(|e| format!("decode: {e}"))?;
    let once = msg.encode_to_vec();
    let again = M::decode(once.as_slice()).map_err(|e| format!("re-decode: {e}"))?.encode_to_vec();
    if again != once {
        return Err("re-encoding is not stable".into());
    }
    if once == bytes {
        BYTE_IDENTICAL.fetch_add(1, Ordering::Relaxed);
    }
    Ok(msg)
}

/// Files whose re-encoding is byte-for-byte the original. The others (about
/// a fifth with onnx 1.22) differ only by proto2 fields the writer set
/// explicitly to their default (`domain: ""`, `i: 0`, empty `raw_data`),
/// which plain `prost` fields do not keep; that is reported, not asserted.
static BYTE_IDENTICAL: AtomicUsize = AtomicUsize::new(0);

#[derive(Default)]
struct Counts {
    models: usize,
    nodes: usize,
    initializers: usize,
    data_files: usize,
    tensors: usize,
    sequences: usize,
    optionals: usize,
    maps: usize,
    raw_bytes: usize,
}

/// Bits per element of a data type, `None` for STRING and UNDEFINED.
fn elem_bits(dt: DataType) -> Option<usize> {
    use DataType::*;
    Some(match dt {
        Undefined | String => return None,
        Uint2 | Int2 => 2,
        Uint4 | Int4 | Float4e2m1 => 4,
        Uint8 | Int8 | Bool | Float8e4m3fn | Float8e4m3fnuz | Float8e5m2 | Float8e5m2fnuz | Float8e8m0 => 8,
        Uint16 | Int16 | Float16 | Bfloat16 => 16,
        Float | Int32 | Uint32 => 32,
        Double | Int64 | Uint64 | Complex64 => 64,
        Complex128 => 128,
    })
}

/// The element count in `dims` agrees with the data the tensor carries.
fn check_tensor(t: &TensorProto, counts: &mut Counts) -> Result<(), String> {
    let dt =
        DataType::try_from(t.data_type).map_err(|_| format!("tensor {:?}: bad data_type {}", t.name, t.data_type))?;
    if t.dims.iter().any(|&d| d < 0) {
        return Err(format!("tensor {:?}: negative dims {:?}", t.name, t.dims));
    }
    if !t.external_data.is_empty() || t.data_location != 0 {
        return Ok(()); // data lives elsewhere
    }
    let n: usize = t.dims.iter().map(|&d| d as usize).product();
    counts.raw_bytes += t.raw_data.len();
    let err = |what: &str, got: usize, want: usize| {
        Err(format!("tensor {:?} ({} {:?}): {what} has {got}, expected {want}", t.name, dt.as_str_name(), t.dims))
    };
    if !t.raw_data.is_empty() || n == 0 {
        if dt == DataType::String {
            return if t.string_data.len() == n { Ok(()) } else { err("string_data", t.string_data.len(), n) };
        }
        let bits = elem_bits(dt).ok_or_else(|| format!("tensor {:?}: raw_data for {}", t.name, dt.as_str_name()))?;
        let want = (n * bits).div_ceil(8);
        return if t.raw_data.len() == want { Ok(()) } else { err("raw_data bytes", t.raw_data.len(), want) };
    }
    use DataType::*;
    let (field, got, want) = match dt {
        Float => ("float_data", t.float_data.len(), n),
        Complex64 => ("float_data", t.float_data.len(), 2 * n),
        Double => ("double_data", t.double_data.len(), n),
        Complex128 => ("double_data", t.double_data.len(), 2 * n),
        Int64 => ("int64_data", t.int64_data.len(), n),
        Uint32 | Uint64 => ("uint64_data", t.uint64_data.len(), n),
        String => ("string_data", t.string_data.len(), n),
        Undefined => return Err(format!("tensor {:?}: UNDEFINED data_type with data", t.name)),
        _ => {
            // One element per value; 4-bit types pack two, 2-bit types four.
            let bits = elem_bits(dt).expect("sized type");
            let per = if bits < 8 { 8 / bits } else { 1 };
            ("int32_data", t.int32_data.len(), n.div_ceil(per))
        }
    };
    if got == want {
        Ok(())
    } else {
        err(field, got, want)
    }
}

fn check_sparse(s: &SparseTensorProto, counts: &mut Counts) -> Result<(), String> {
    for t in s.values.iter().chain(&s.indices) {
        check_tensor(t, counts)?;
    }
    Ok(())
}

/// Walk a graph (and its subgraphs), checking every tensor in it.
fn check_graph(g: &GraphProto, counts: &mut Counts) -> Result<(), String> {
    counts.nodes += g.node.len();
    counts.initializers += g.initializer.len() + g.sparse_initializer.len();
    for t in &g.initializer {
        check_tensor(t, counts)?;
    }
    for s in &g.sparse_initializer {
        check_sparse(s, counts)?;
    }
    for vi in g.input.iter().chain(&g.output).chain(&g.value_info) {
        if vi.name.is_empty() {
            return Err(format!("graph {:?}: value_info without a name", g.name));
        }
    }
    for n in &g.node {
        if n.op_type.is_empty() {
            return Err(format!("graph {:?}: node {:?} without op_type", g.name, n.name));
        }
        for a in &n.attribute {
            if a.name.is_empty() {
                return Err(format!("node {:?} ({}): attribute without a name", n.name, n.op_type));
            }
            for t in a.t.iter().chain(&a.tensors) {
                check_tensor(t, counts)?;
            }
            for s in a.sparse_tensor.iter().chain(&a.sparse_tensors) {
                check_sparse(s, counts)?;
            }
            for sub in a.g.iter().chain(&a.graphs) {
                check_graph(sub, counts)?;
            }
        }
    }
    Ok(())
}

fn check_sequence(s: &SequenceProto, counts: &mut Counts) -> Result<(), String> {
    counts.sequences += 1;
    for t in &s.tensor_values {
        check_tensor(t, counts)?;
    }
    for t in &s.sparse_tensor_values {
        check_sparse(t, counts)?;
    }
    for t in &s.sequence_values {
        check_sequence(t, counts)?;
    }
    for m in &s.map_values {
        check_map(m, counts)?;
    }
    for o in &s.optional_values {
        check_optional(o, counts)?;
    }
    Ok(())
}

fn check_map(m: &MapProto, counts: &mut Counts) -> Result<(), String> {
    counts.maps += 1;
    if let Some(v) = &m.values {
        check_sequence(v, counts)?;
    }
    Ok(())
}

fn check_optional(o: &OptionalProto, counts: &mut Counts) -> Result<(), String> {
    counts.optionals += 1;
    if let Some(t) = &o.tensor_value {
        check_tensor(t, counts)?;
    }
    if let Some(t) = &o.sparse_tensor_value {
        check_sparse(t, counts)?;
    }
    if let Some(s) = &o.sequence_value {
        check_sequence(s, counts)?;
    }
    if let Some(m) = &o.map_value {
        check_map(m, counts)?;
    }
    if let Some(o) = &o.optional_value {
        check_optional(o, counts)?;
    }
    Ok(())
}

fn read(path: &Path) -> Result<Vec<u8>, String> {
    std::fs::read(path).map_err(|e| format!("read: {e}"))
}

fn decode_model(path: &Path, counts: &mut Counts) -> Result<ModelProto, String> {
    let model: ModelProto = decode(&read(path)?)?;
    let graph = model.graph.as_ref().ok_or("model has no graph")?;
    if model.ir_version <= 0 || model.opset_import.is_empty() {
        return Err(format!("implausible model: ir_version {}, {} opsets", model.ir_version, model.opset_import.len()));
    }
    check_graph(graph, counts)?;
    for f in &model.functions {
        counts.nodes += f.node.len();
    }
    counts.models += 1;
    Ok(model)
}

/// Decode one data file as the reference runner does: by the graph type.
fn decode_value(path: &Path, ty: Option<&TypeProto>, counts: &mut Counts) -> Result<(), String> {
    let bytes = read(path)?;
    counts.data_files += 1;
    match ty.and_then(|t| t.value.as_ref()) {
        Some(type_proto::Value::SequenceType(_)) => check_sequence(&decode::<SequenceProto>(&bytes)?, counts),
        Some(type_proto::Value::OptionalType(_)) => check_optional(&decode::<OptionalProto>(&bytes)?, counts),
        Some(type_proto::Value::MapType(_)) => check_map(&decode::<MapProto>(&bytes)?, counts),
        Some(type_proto::Value::SparseTensorType(_)) => check_sparse(&decode::<SparseTensorProto>(&bytes)?, counts),
        _ => {
            let t: TensorProto = decode(&bytes)?;
            if let Some(type_proto::Value::TensorType(tt)) = ty.and_then(|t| t.value.as_ref()) {
                if tt.elem_type != t.data_type {
                    return Err(format!("data_type {} but the graph says {}", t.data_type, tt.elem_type));
                }
            }
            counts.tensors += 1;
            check_tensor(&t, counts)
        }
    }
}

/// `input_3.pb` -> `("input", 3)`.
fn data_file_index(name: &str) -> Option<(&str, usize)> {
    let stem = name.strip_suffix(".pb")?;
    let (kind, idx) = stem.rsplit_once('_')?;
    Some((kind, idx.parse().ok()?))
}

fn decode_test_dir(dir: &Path, counts: &mut Counts) -> Result<(), String> {
    let model = decode_model(&dir.join("model.onnx"), counts).map_err(|e| format!("model.onnx: {e}"))?;
    let graph = model.graph.as_ref().expect("checked");
    for set in sorted_entries(dir) {
        if !set.is_dir() || !file_name(&set).starts_with("test_data_set_") {
            continue;
        }
        for file in sorted_entries(&set) {
            let name = file_name(&file);
            let where_ = format!("{}/{name}", file_name(&set));
            let (kind, idx) = data_file_index(name).ok_or_else(|| format!("{where_}: unexpected file"))?;
            let values = match kind {
                "input" => &graph.input,
                "output" => &graph.output,
                _ => return Err(format!("{where_}: unexpected file")),
            };
            let vi = values.get(idx).ok_or_else(|| format!("{where_}: graph has only {} {kind}s", values.len()))?;
            decode_value(&file, vi.r#type.as_ref(), counts).map_err(|e| format!("{where_}: {e}"))?;
        }
    }
    Ok(())
}

#[test]
fn decode_all_conformance_data() {
    let root = data_root();
    let mut failures = Vec::new();
    let mut total = Counts::default();
    for category in DIR_CATEGORIES {
        let dir = root.join(category);
        assert!(dir.is_dir(), "{} is missing", dir.display());
        let mut counts = Counts::default();
        let mut tests = 0;
        for test in sorted_entries(&dir) {
            if !test.join("model.onnx").is_file() {
                continue;
            }
            tests += 1;
            if let Err(e) = decode_test_dir(&test, &mut counts) {
                failures.push(format!("{category}/{}: {e}", file_name(&test)));
            }
        }
        eprintln!(
            "onnx_decode: {category:<18} {tests:>5} tests, {:>5} models, {:>5} nodes, {:>5} data files \
             ({} tensors, {} sequences, {} optionals, {} maps)",
            counts.models,
            counts.nodes,
            counts.data_files,
            counts.tensors,
            counts.sequences,
            counts.optionals,
            counts.maps
        );
        if *category == "node" {
            assert!(tests > 1000, "only {tests} node tests under {}; re-run fetch.sh", dir.display());
        }
        total.add(&counts);
    }

    // light/: NAME.onnx with optional NAME_output_0.pb beside it.
    let light = root.join("light");
    if light.is_dir() {
        let mut counts = Counts::default();
        for file in sorted_entries(&light) {
            let name = file_name(&file).to_string();
            if let Some(stem) = name.strip_suffix(".onnx") {
                let result = decode_model(&file, &mut counts).and_then(|model| {
                    let graph = model.graph.as_ref().expect("checked");
                    for i in 0.. {
                        let out = light.join(format!("{stem}_output_{i}.pb"));
                        if !out.is_file() {
                            break;
                        }
                        let ty = graph.output.get(i).and_then(|vi| vi.r#type.as_ref());
                        decode_value(&out, ty, &mut counts).map_err(|e| format!("{}: {e}", file_name(&out)))?;
                    }
                    Ok(())
                });
                if let Err(e) = result {
                    failures.push(format!("light/{name}: {e}"));
                }
            }
        }
        eprintln!(
            "onnx_decode: {:<18} {:>5} models, {:>5} nodes, {:>5} data files ({} tensors)",
            "light", counts.models, counts.nodes, counts.data_files, counts.tensors
        );
        total.add(&counts);
    }

    eprintln!(
        "onnx_decode: total: {} models ({} nodes, {} initializers), {} data files \
         ({} tensors, {} sequences, {} optionals, {} maps), {} raw_data bytes; {} failures",
        total.models,
        total.nodes,
        total.initializers,
        total.data_files,
        total.tensors,
        total.sequences,
        total.optionals,
        total.maps,
        total.raw_bytes,
        failures.len()
    );
    eprintln!(
        "onnx_decode: {} of {} files re-encode byte-identically",
        BYTE_IDENTICAL.load(Ordering::Relaxed),
        total.models + total.data_files
    );
    assert!(failures.is_empty(), "{} files failed to decode:\n{}", failures.len(), failures.join("\n"));
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.models += o.models;
        self.nodes += o.nodes;
        self.initializers += o.initializers;
        self.data_files += o.data_files;
        self.tensors += o.tensors;
        self.sequences += o.sequences;
        self.optionals += o.optionals;
        self.maps += o.maps;
        self.raw_bytes += o.raw_bytes;
    }
}

fn load_model(root: &Path, test: &str) -> ModelProto {
    let path = root.join("node").join(test).join("model.onnx");
    ModelProto::decode(std::fs::read(&path).unwrap().as_slice()).unwrap()
}

fn load_tensor(root: &Path, test: &str, file: &str) -> TensorProto {
    let path = root.join("node").join(test).join("test_data_set_0").join(file);
    TensorProto::decode(std::fs::read(&path).unwrap().as_slice()).unwrap()
}

/// A FLOAT tensor's elements, from `float_data` or `raw_data`.
fn floats(t: &TensorProto) -> Vec<f32> {
    assert_eq!(t.data_type, DataType::Float as i32);
    if t.raw_data.is_empty() {
        t.float_data.clone()
    } else {
        t.raw_data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
    }
}

fn tensor_shape(ty: &TypeProto) -> (i32, Vec<i64>) {
    let Some(type_proto::Value::TensorType(t)) = &ty.value else { panic!("not a tensor type: {ty:?}") };
    let dims = t
        .shape
        .as_ref()
        .expect("shape")
        .dim
        .iter()
        .map(|d| match d.value {
            Some(dimension::Value::DimValue(v)) => v,
            ref other => panic!("not a static dim: {other:?}"),
        })
        .collect();
    (t.elem_type, dims)
}

#[test]
fn test_abs_contents() {
    let root = data_root();
    let model = load_model(&root, "test_abs");
    assert_eq!(model.producer_name, "backend-test");
    assert!(model.ir_version >= 3, "ir_version {}", model.ir_version);
    assert_eq!(model.opset_import.len(), 1);
    assert_eq!(model.opset_import[0].domain, "");
    assert!(model.opset_import[0].version >= 6);
    let g = model.graph.as_ref().unwrap();
    assert_eq!(g.node.len(), 1);
    assert_eq!(g.node[0].op_type, "Abs");
    assert_eq!(g.node[0].input, ["x"]);
    assert_eq!(g.node[0].output, ["y"]);
    assert_eq!(g.input.len(), 1);
    assert_eq!(g.input[0].name, "x");
    assert_eq!(tensor_shape(g.input[0].r#type.as_ref().unwrap()), (DataType::Float as i32, vec![3, 4, 5]));
    assert_eq!(tensor_shape(g.output[0].r#type.as_ref().unwrap()), (DataType::Float as i32, vec![3, 4, 5]));

    let x = load_tensor(&root, "test_abs", "input_0.pb");
    let y = load_tensor(&root, "test_abs", "output_0.pb");
    for t in [&x, &y] {
        assert_eq!(t.data_type, DataType::Float as i32);
        assert_eq!(t.dims, [3, 4, 5]);
        assert_eq!(t.raw_data.len(), 60 * 4);
    }
    let (xs, ys) = (floats(&x), floats(&y));
    assert!(xs.iter().any(|v| *v < 0.0), "random input should have negatives");
    for (a, b) in xs.iter().zip(&ys) {
        assert_eq!(a.abs(), *b);
    }
}

#[test]
fn attributes_and_subgraphs() {
    let root = data_root();
    use compiler::frontend::onnx::proto::attribute_proto::AttributeType;

    // Conv: INTS attributes.
    let model = load_model(&root, "test_conv_with_strides_padding");
    let node = &model.graph.as_ref().unwrap().node[0];
    assert_eq!(node.op_type, "Conv");
    let attr = |name: &str| node.attribute.iter().find(|a| a.name == name).unwrap_or_else(|| panic!("{name}"));
    assert_eq!(attr("strides").r#type(), AttributeType::Ints);
    assert_eq!(attr("strides").ints, [2, 2]);
    assert_eq!(attr("pads").ints, [1, 1, 1, 1]);
    assert_eq!(attr("kernel_shape").ints, [3, 3]);

    // Constant: a TENSOR attribute.
    let model = load_model(&root, "test_constant");
    let node = &model.graph.as_ref().unwrap().node[0];
    assert_eq!(node.op_type, "Constant");
    assert_eq!(node.attribute[0].name, "value");
    assert_eq!(node.attribute[0].r#type(), AttributeType::Tensor);
    let t = node.attribute[0].t.as_ref().expect("tensor value");
    assert_eq!(t.data_type, DataType::Float as i32);
    assert_eq!(t.dims, [5, 5]);
    // The model stores the value in float_data; the expected output has the
    // same numbers (as float_data or raw_data).
    assert_eq!(t.float_data.len(), 25);
    let expected = load_tensor(&root, "test_constant", "output_0.pb");
    assert_eq!(expected.dims, [5, 5]);
    assert_eq!(floats(&expected), t.float_data);

    // If: two GRAPH attributes.
    let model = load_model(&root, "test_if");
    let node = &model.graph.as_ref().unwrap().node[0];
    assert_eq!(node.op_type, "If");
    let mut branches: Vec<_> = node.attribute.iter().map(|a| (a.name.as_str(), a.r#type())).collect();
    branches.sort();
    assert_eq!(branches, [("else_branch", AttributeType::Graph), ("then_branch", AttributeType::Graph)]);
    for a in &node.attribute {
        let g = a.g.as_ref().expect("subgraph");
        assert_eq!(g.node.len(), 1);
        assert_eq!(g.node[0].op_type, "Constant");
        assert_eq!(g.output.len(), 1);
    }

    // Cast: an INT attribute holding a DataType.
    let model = load_model(&root, "test_cast_FLOAT_to_DOUBLE");
    let node = &model.graph.as_ref().unwrap().node[0];
    assert_eq!(node.attribute[0].name, "to");
    assert_eq!(node.attribute[0].r#type(), AttributeType::Int);
    assert_eq!(DataType::try_from(node.attribute[0].i as i32), Ok(DataType::Double));
}

#[test]
fn sequence_and_optional_data() {
    let root = data_root();

    // SequenceInsert: input 0 is a sequence of tensors.
    let model = load_model(&root, "test_sequence_insert_at_back");
    let g = model.graph.as_ref().unwrap();
    let Some(type_proto::Value::SequenceType(seq)) = &g.input[0].r#type.as_ref().unwrap().value else {
        panic!("input 0 is not a sequence: {:?}", g.input[0])
    };
    let elem = seq.elem_type.as_ref().expect("element type");
    assert!(matches!(elem.value, Some(type_proto::Value::TensorType(_))));
    let path = root.join("node/test_sequence_insert_at_back/test_data_set_0/input_0.pb");
    let s = SequenceProto::decode(std::fs::read(path).unwrap().as_slice()).unwrap();
    assert_eq!(s.elem_type, 1, "SequenceProto.DataType.TENSOR");
    assert!(!s.tensor_values.is_empty());
    let dims: Vec<_> = s.tensor_values.iter().map(|t| t.dims.clone()).collect();
    assert_eq!(dims, [[4], [3], [2]]);

    // OptionalHasElement on an empty optional input.
    let model = load_model(&root, "test_optional_has_element_empty_optional_input");
    let g = model.graph.as_ref().unwrap();
    assert!(matches!(g.input[0].r#type.as_ref().unwrap().value, Some(type_proto::Value::OptionalType(_))));
    let path = root.join("node/test_optional_has_element_empty_optional_input/test_data_set_0/input_0.pb");
    let o = OptionalProto::decode(std::fs::read(path).unwrap().as_slice()).unwrap();
    assert_eq!(o.name, "optional_input");
    assert_eq!(o.elem_type, 0, "empty optional: UNDEFINED");
    assert!(o.tensor_value.is_none() && o.sequence_value.is_none());
    // The answer is a scalar `false`.
    let out = load_tensor(&root, "test_optional_has_element_empty_optional_input", "output_0.pb");
    assert_eq!(out.data_type, DataType::Bool as i32);
    assert!(out.dims.is_empty());
    assert_eq!(out.raw_data, [0]);
}
