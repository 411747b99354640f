//! The shipped target profiles: loading, support rules and costs.

use codegen::targets::{self, Support, TargetError, TargetProfile};
use ir::{Attr, Attrs, DType, Dim, Opcode, Shape, Symbol, TensorType};
use passes::target::OpQuery;

fn f32t(dims: &[u64]) -> TensorType {
    TensorType::fixed(DType::F32, dims)
}

fn query(p: &TargetProfile, op: &str, attrs: &Attrs, ins: &[&TensorType], outs: &[TensorType]) -> (Support, f64) {
    let ins: Vec<Option<&TensorType>> = ins.iter().map(|t| Some(*t)).collect();
    let opcode = Opcode::from_name(op).unwrap_or_else(|| panic!("unknown op {op}"));
    let q = OpQuery { opcode, attrs, inputs: &ins, outputs: outs, consts: &[] };
    (p.support(&q), p.cost_ns(&q))
}

fn unary(p: &TargetProfile, op: &str, attrs: &Attrs, x: &TensorType) -> (Support, f64) {
    query(p, op, attrs, &[x], std::slice::from_ref(x))
}

fn npu() -> TargetProfile {
    targets::load("rk3588-npu").expect("builtin npu profile")
}

fn cpu() -> TargetProfile {
    targets::load("cpu").expect("builtin cpu profile")
}

#[test]
fn builtin_profiles_load() {
    assert_eq!(
        targets::names(),
        ["cpu", "rk3588-npu", "ethos-u55-256", "ethos-u55-128", "ethos-u65-512", "ethos-u85-256"]
    );
    for name in targets::names() {
        let p = targets::builtin(name).unwrap_or_else(|| panic!("{name} does not parse: {:?}", targets::load(name)));
        assert_eq!(p.name, *name);
        assert!(!p.description.is_empty());
    }
    assert!(targets::builtin("gpu").is_none());
    let (c, n) = (cpu(), npu());
    assert!(!c.simulated && !c.static_shapes && c.fallback.is_none());
    assert!(n.simulated && n.static_shapes && n.fallback.as_deref() == Some("cpu"));
    let e = targets::load("ethos-u55-256").expect("builtin ethos-u profile");
    assert!(!e.simulated && e.static_shapes && e.fallback.as_deref() == Some("cpu"));
}

#[test]
fn cpu_supports_what_the_rust_backend_lowers_and_says_why_not() {
    let p = cpu();
    for &op in Opcode::ALL {
        let lowered = codegen::rust::ops::row(op).is_some();
        assert_eq!(p.rule(op).supported, lowered, "{}: cpu support must be the Rust table's", op.name());
    }
    let x = f32t(&[1, 16, 20, 20]);
    let (s, _) = query(&p, "onnx.Conv", &Attrs::new(), &[&x, &f32t(&[16, 16, 3, 3])], &[f32t(&[1, 16, 18, 18])]);
    let Support::No(why) = s else { panic!("onnx.Conv lowers as core.conv") };
    assert!(why.contains("rust backend has no lowering"), "{why}");
}

#[test]
fn npu_lacks_resize_and_erf_gelu() {
    let p = npu();
    let x = f32t(&[1, 16, 20, 20]);
    let (s, _) = query(&p, "onnx.Resize", &Attrs::new(), &[&x], &[f32t(&[1, 16, 40, 40])]);
    let Support::No(why) = s else { panic!("Resize must be unsupported") };
    assert!(why.contains("no Resize unit"), "{why}");

    let gelu = |mode: Option<&str>| {
        let attrs = mode.map_or_else(Attrs::new, |m| Attrs::new().with("approximate", Attr::Str(m.into())));
        unary(&p, "onnx.Gelu", &attrs, &x).0
    };
    assert_eq!(gelu(Some("tanh")), Support::Yes);
    for mode in [Some("none"), None] {
        let Support::No(why) = gelu(mode) else { panic!("erf GELU ({mode:?}) must be unsupported") };
        assert!(why.contains("approximate") && why.contains("Erf"), "{why}");
    }
    let Support::No(why) = unary(&p, "onnx.Erf", &Attrs::new(), &x).0 else { panic!("Erf must be unsupported") };
    assert!(why.contains("Erf"), "{why}");
    // The cpu runs all of them.
    let c = cpu();
    assert!(query(&c, "onnx.Resize", &Attrs::new(), &[&x], &[f32t(&[1, 16, 40, 40])]).0.is_yes());
    assert!(unary(&c, "onnx.Erf", &Attrs::new(), &x).0.is_yes());
}

#[test]
fn npu_fused_conv_activation_constraint() {
    let p = npu();
    let (x, w, y) = (f32t(&[1, 8, 16, 16]), f32t(&[8, 8, 3, 3]), f32t(&[1, 8, 16, 16]));
    let conv = |act: Option<&str>| {
        let attrs = act.map_or_else(Attrs::new, |a| Attrs::new().with("act", Attr::Str(a.into())));
        query(&p, "core.conv", &attrs, &[&x, &w], std::slice::from_ref(&y)).0
    };
    for act in [None, Some("relu"), Some("hard_swish"), Some("silu"), Some("leaky_relu")] {
        assert_eq!(conv(act), Support::Yes, "{act:?}");
    }
    assert!(!conv(Some("gelu")).is_yes());
}

#[test]
fn dynamic_shapes_only_on_cpu() {
    let seq = Dim::Sym(Symbol::new("seq"));
    let x = TensorType::new(DType::F32, Shape::from_dims([Dim::Static(1), seq, Dim::Static(64)]));
    let Support::No(why) = unary(&npu(), "onnx.Relu", &Attrs::new(), &x).0 else {
        panic!("dynamic shapes must be unsupported on the NPU")
    };
    assert!(why.contains("dynamic shape"), "{why}");
    assert!(unary(&cpu(), "onnx.Relu", &Attrs::new(), &x).0.is_yes());
    let fixed = f32t(&[1, 128, 64]);
    assert!(unary(&npu(), "onnx.Relu", &Attrs::new(), &fixed).0.is_yes());
}

#[test]
fn npu_rejects_integer_shape_arithmetic() {
    let i = TensorType::fixed(DType::I64, &[4]);
    let (s, _) = query(&npu(), "onnx.Mul", &Attrs::new(), &[&i, &i], std::slice::from_ref(&i));
    assert!(matches!(&s, Support::No(w) if w.contains("i64")), "{s:?}");
    // Reshape's i64 shape operand is a parameter, not data.
    let (x, shape, y) = (f32t(&[2, 8]), TensorType::fixed(DType::I64, &[1]), f32t(&[16]));
    assert!(query(&npu(), "onnx.Reshape", &Attrs::new(), &[&x, &shape], &[y]).0.is_yes());
}

#[test]
fn costs_grow_with_size_and_favour_the_npu_for_convs() {
    for p in [cpu(), npu()] {
        let mut last = 0.0;
        for n in [4, 8, 16, 32, 64] {
            let (x, w, y) = (f32t(&[1, 32, n, n]), f32t(&[32, 32, 3, 3]), f32t(&[1, 32, n, n]));
            let (s, c) = query(&p, "core.conv", &Attrs::new(), &[&x, &w], &[y]);
            assert!(s.is_yes() && c > last, "{}: conv {n}: {c} <= {last}", p.name);
            last = c;
            let (_, r) = unary(&p, "onnx.Relu", &Attrs::new(), &f32t(&[1, 32, n, n]));
            assert!(r > 0.0 && r.is_finite());
        }
    }
    let (x, w, y) = (f32t(&[1, 64, 56, 56]), f32t(&[64, 64, 3, 3]), f32t(&[1, 64, 56, 56]));
    let conv = |p: &TargetProfile| query(p, "core.conv", &Attrs::new(), &[&x, &w], std::slice::from_ref(&y)).1;
    assert!(conv(&npu()) * 10.0 < conv(&cpu()), "npu {} cpu {}", conv(&npu()), conv(&cpu()));
    // A fallback pays the transfer latency.
    let (_, resize) = query(&npu(), "onnx.Resize", &Attrs::new(), &[&x], &[f32t(&[1, 64, 112, 112])]);
    assert!(resize > npu().transfer.latency_ns);
}

#[test]
fn load_from_path_and_errors() {
    let dir = std::env::temp_dir().join(format!("edgec-targets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("mine.toml");
    std::fs::write(&good, "name = \"mine\"\ndescription = \"d\"\nfallback = \"cpu\"\n").unwrap();
    assert_eq!(targets::load(good.to_str().unwrap()).unwrap().name, "mine");

    let bad = dir.join("bad.toml");
    let src = "name = \"bad\"\ndescription = \"d\"\nfallback = \"gpu\"\n[ops.\"onnx.Nope\"]\n[ops.\"onnx.Relu\"]\nns_per_elem = -1\n";
    std::fs::write(&bad, src).unwrap();
    let path = bad.to_str().unwrap();
    let err = targets::load(path).unwrap_err();
    let TargetError::Invalid(diags) = &err else { panic!("{err}") };
    let lines: Vec<String> = diags.iter().map(|d| d.to_string()).collect();
    assert_eq!(lines.len(), 3, "{lines:#?}");
    assert!(lines[0].starts_with(&format!("{path}:3:12: unknown fallback target `gpu`")), "{lines:#?}");
    assert!(lines[1].starts_with(&format!("{path}:4:6: unknown op `onnx.Nope`")), "{lines:#?}");
    assert!(lines[2].starts_with(&format!("{path}:6:15: `ns_per_elem` must be")), "{lines:#?}");

    assert!(matches!(targets::load("tpu"), Err(TargetError::Unknown { .. })));
    assert!(matches!(targets::load(dir.join("missing.toml").to_str().unwrap()), Err(TargetError::Io { .. })));
    std::fs::remove_dir_all(&dir).unwrap();
}
