//! Profile parsing, validation and the support/cost queries.

use super::*;
use ir::{Dim, Shape, Symbol};

/// A small NPU-like profile exercising every feature.
const NPU: &str = r#"
name = "toy-npu"
description = "test profile"
simulated = true
static_shapes = true
dtypes = ["i8", "f16"]
convert_from = ["f32"]
max_rank = 4
fallback = "cpu"
fold_bytes = 65536
arithmetic = "tflite"

[transfer]
bytes_per_ns = 4.0
latency_ns = 20000

[memory]
onchip_bytes = 1048576

[default]
supported = false
reason = "not in the op list"
ns_per_elem = 0.01
ns_fixed = 100

[fallback_costs]
ns_per_mac = 0.05
ns_per_elem = 0.5

[ops."onnx.Conv"]
ns_per_mac = 0.0003

[ops."onnx.MatMul"]
ns_per_mac = 0.0003

[ops."onnx.Relu"]
[ops."onnx.Add"]

[ops."onnx.Gelu"]
attrs.approximate = { allow = ["tanh"], default = "none", reason = "no Erf unit" }

[ops."onnx.Resize"]
supported = false
reason = "no Resize unit"
"#;

const CPU: &str = r#"
name = "toy-cpu"
description = "test cpu"
[default]
ns_per_mac = 0.02
ns_per_elem = 0.3
"#;

fn npu() -> TargetProfile {
    TargetProfile::parse(NPU, "toy-npu.toml").expect("profile parses")
}

fn cpu() -> TargetProfile {
    TargetProfile::parse(CPU, "toy-cpu.toml").expect("profile parses")
}

fn f32t(dims: &[u64]) -> TensorType {
    TensorType::fixed(DType::F32, dims)
}

fn dynamic() -> TensorType {
    TensorType::new(DType::F32, Shape::from_dims([Dim::Sym(Symbol::new("batch")), Dim::Static(16)]))
}

/// Support and cost of `op` with the given operand and result types.
fn ask(p: &TargetProfile, op: &str, attrs: &Attrs, ins: &[&TensorType], outs: &[TensorType]) -> (Support, f64) {
    let ins: Vec<Option<&TensorType>> = ins.iter().map(|t| Some(*t)).collect();
    let q =
        OpQuery { opcode: Opcode::from_name(op).expect("known op"), attrs, inputs: &ins, outputs: outs, consts: &[] };
    (p.support(&q), p.cost_ns(&q))
}

fn errors(src: &str) -> Vec<String> {
    match TargetProfile::parse(src, "bad.toml") {
        Err(TargetError::Invalid(d)) => d.iter().map(|d| d.to_string()).collect(),
        other => panic!("expected diagnostics, got {other:?}"),
    }
}

#[test]
fn parses_every_section() {
    let p = npu();
    assert_eq!(p.name, "toy-npu");
    assert!(p.simulated && p.static_shapes);
    assert_eq!(p.dtypes, Some(vec![DType::I8, DType::F16]));
    assert_eq!(p.convert_from, vec![DType::F32]);
    assert_eq!(p.onchip_bytes, Some(1 << 20));
    assert_eq!(p.fold_bytes, Some(65536));
    assert_eq!(cpu().fold_bytes, None);
    assert_eq!(p.arithmetic, Arithmetic::Tflite);
    assert_eq!(cpu().arithmetic, Arithmetic::Single);
    assert_eq!(p.transfer, Transfer { bytes_per_ns: 4.0, latency_ns: 20000.0 });
    assert_eq!(p.fallback_costs, CostModel { ns_per_mac: 0.05, ns_per_elem: 0.5, ns_fixed: 50.0 });
    // Op entries inherit unset costs from [default] and are supported unless they say otherwise.
    let conv = p.rule(Opcode::from_name("onnx.Conv").unwrap());
    assert!(conv.supported);
    assert_eq!(conv.cost, CostModel { ns_per_mac: 0.0003, ns_per_elem: 0.01, ns_fixed: 100.0 });
    assert!(!p.rule(Opcode::from_name("onnx.Tanh").unwrap()).supported);
}

#[test]
fn unsupported_ops_and_attribute_constraints() {
    let p = npu();
    let x = f32t(&[1, 8, 16, 16]);
    let (s, _) = ask(&p, "onnx.Resize", &Attrs::new(), &[&x], &[f32t(&[1, 8, 32, 32])]);
    assert_eq!(s, Support::No("onnx.Resize: no Resize unit".into()));
    let (s, _) = ask(&p, "onnx.Tanh", &Attrs::new(), &[&x], std::slice::from_ref(&x));
    assert_eq!(s, Support::No("onnx.Tanh: not in the op list".into()));

    let tanh = Attrs::new().with("approximate", Attr::Str("tanh".into()));
    let none = Attrs::new().with("approximate", Attr::Str("none".into()));
    let out = std::slice::from_ref(&x);
    assert_eq!(ask(&p, "onnx.Gelu", &tanh, &[&x], out).0, Support::Yes);
    let (s, _) = ask(&p, "onnx.Gelu", &none, &[&x], out);
    let Support::No(why) = s else { panic!("erf GELU must be unsupported") };
    assert!(why.contains("approximate = \"none\"") && why.contains("no Erf unit"), "{why}");
    // Absent attribute: the declared default ("none") applies.
    assert!(!ask(&p, "onnx.Gelu", &Attrs::new(), &[&x], out).0.is_yes());
}

#[test]
fn static_shapes_rank_and_dtypes() {
    let (npu, cpu) = (npu(), cpu());
    let dy = dynamic();
    let (s, _) = ask(&npu, "onnx.Relu", &Attrs::new(), &[&dy], std::slice::from_ref(&dy));
    let Support::No(why) = s else { panic!("dynamic shapes must be unsupported") };
    assert!(why.contains("dynamic shape") && why.contains("f32[batch, 16]"), "{why}");
    assert!(ask(&cpu, "onnx.Relu", &Attrs::new(), &[&dy], std::slice::from_ref(&dy)).0.is_yes());

    let r5 = f32t(&[1, 2, 3, 4, 5]);
    let Support::No(why) = ask(&npu, "onnx.Relu", &Attrs::new(), &[&r5], std::slice::from_ref(&r5)).0 else {
        panic!("rank 5 exceeds max_rank")
    };
    assert!(why.contains("rank 5"), "{why}");

    // f32 is accepted (converted), i64 arithmetic is not.
    let x = f32t(&[4, 4]);
    assert!(ask(&npu, "onnx.Add", &Attrs::new(), &[&x, &x], std::slice::from_ref(&x)).0.is_yes());
    let i = TensorType::fixed(DType::I64, &[4]);
    let Support::No(why) = ask(&npu, "onnx.Add", &Attrs::new(), &[&i, &i], std::slice::from_ref(&i)).0 else {
        panic!("i64 arithmetic must be unsupported on the NPU")
    };
    assert!(why.contains("element type i64") && why.contains("i8, f16"), "{why}");
    assert!(ask(&cpu, "onnx.Add", &Attrs::new(), &[&i, &i], std::slice::from_ref(&i)).0.is_yes());
}

#[test]
fn costs_are_monotone_and_fallback_is_dearer() {
    let p = npu();
    let conv = |n: u64| {
        let (x, w, y) = (f32t(&[1, 16, n, n]), f32t(&[32, 16, 3, 3]), f32t(&[1, 32, n, n]));
        ask(&p, "onnx.Conv", &Attrs::new(), &[&x, &w], &[y]).1
    };
    let (a, b, c) = (conv(8), conv(16), conv(32));
    assert!(0.0 < a && a < b && b < c, "{a} {b} {c}");
    // 1*32*16*16 outputs x 16*3*3 MACs each at 0.0003 ns, + 0.01 ns/elem + 100 ns.
    let expect = 100.0 + 8192.0 * 144.0 * 0.0003 + 8192.0 * 0.01;
    assert!((b - expect).abs() < 1e-6, "{b} vs {expect}");

    let resize = |n: u64| {
        let (x, y) = (f32t(&[1, 8, n, n]), f32t(&[1, 8, 2 * n, 2 * n]));
        ask(&p, "onnx.Resize", &Attrs::new(), &[&x], &[y]).1
    };
    let (r1, r2) = (resize(8), resize(16));
    assert!(r1 > 20000.0 && r2 > r1, "{r1} {r2}");
    // Fallback: 0.5 ns/elem + 50 ns + (in + out bytes) / 4 + 20 us.
    let expect = 50.0 + 0.5 * 2048.0 + (512.0 + 2048.0) * 4.0 / 4.0 + 20000.0;
    assert!((r1 - expect).abs() < 1e-6, "{r1} vs {expect}");

    // Symbolic dims use the nominal size, so costs stay finite.
    let dy = dynamic();
    let (_, c) = ask(&cpu(), "onnx.Relu", &Attrs::new(), &[&dy], std::slice::from_ref(&dy));
    assert!((c - NOMINAL_DIM * 16.0 * 0.3).abs() < 1e-9, "{c}");
}

#[test]
fn mac_counts() {
    let q = |op: &str, ins: &[&TensorType], outs: &[TensorType], attrs: &Attrs| {
        let ins: Vec<Option<&TensorType>> = ins.iter().map(|t| Some(*t)).collect();
        let q = OpQuery { opcode: Opcode::from_name(op).unwrap(), attrs, inputs: &ins, outputs: outs, consts: &[] };
        Work::estimate(&q).macs
    };
    let none = Attrs::new();
    let (a, b) = (f32t(&[2, 8, 5]), f32t(&[5, 3]));
    assert_eq!(q("onnx.MatMul", &[&a, &b], &[f32t(&[2, 8, 3])], &none), 2.0 * 8.0 * 3.0 * 5.0);
    let at = f32t(&[5, 8]);
    let ta = Attrs::new().with("transA", Attr::Int(1));
    assert_eq!(q("onnx.Gemm", &[&at, &b], &[f32t(&[8, 3])], &ta), 8.0 * 3.0 * 5.0);
    let (x, w) = (f32t(&[1, 4, 8, 8]), f32t(&[4, 2, 3, 3]));
    let g = Attrs::new().with("group", Attr::Int(2));
    assert_eq!(q("onnx.Conv", &[&x, &w], &[f32t(&[1, 4, 8, 8])], &g), 256.0 * 2.0 * 9.0);
    let (qt, kt, vt) = (f32t(&[2, 4, 10, 16]), f32t(&[2, 4, 12, 16]), f32t(&[2, 4, 12, 8]));
    let attn = q("onnx.Attention", &[&qt, &kt, &vt], &[f32t(&[2, 4, 10, 8])], &none);
    assert_eq!(attn, 2.0 * 4.0 * 10.0 * 12.0 * (16.0 + 8.0));
}

#[test]
fn constants_are_free() {
    let p = npu();
    let attrs = Attrs::new().with("value", Attr::Sym("w".into()));
    let (s, c) = ask(&p, "core.const", &attrs, &[], &[f32t(&[1000, 1000])]);
    assert_eq!((s, c), (Support::Yes, 0.0));
}

#[test]
fn no_fallback_target_penalizes_unsupported_ops() {
    let src = format!("{CPU}\n[ops.\"onnx.Resize\"]\nsupported = false\n");
    let p = TargetProfile::parse(&src, "x.toml").unwrap();
    let (x, y) = (f32t(&[1, 8, 8, 8]), f32t(&[1, 8, 16, 16]));
    let (s, c) = ask(&p, "onnx.Resize", &Attrs::new(), &[&x], &[y]);
    assert_eq!(s, Support::No("onnx.Resize: not supported by toy-cpu".into()));
    assert!(c >= NO_FALLBACK_PENALTY_NS);
}

#[test]
fn error_unknown_key() {
    let e = errors(&format!("colour = \"red\"\n{CPU}[ops.\"onnx.Relu\"]\nspeed = 1\n"));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].starts_with("bad.toml:1:1: unknown field `colour`"), "{e:?}");
    assert!(e[1].starts_with("bad.toml:9:1: unknown field `speed`"), "{e:?}");
}

#[test]
fn error_unknown_ops_all_reported() {
    let e = errors(&format!("{CPU}[ops.\"onnx.Frobnicate\"]\n[ops.\"onnx.Relu\"]\n[ops.\"onnx.Conv2d\"]\n"));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].starts_with("bad.toml:7:6: unknown op `onnx.Frobnicate`"), "{e:?}");
    assert!(e[1].starts_with("bad.toml:9:6: unknown op `onnx.Conv2d`"), "{e:?}");
}

#[test]
fn error_negative_cost() {
    let e = errors(&format!("{CPU}[ops.\"onnx.Relu\"]\nns_per_elem = -0.5\n"));
    assert_eq!(e, ["bad.toml:8:15: `ns_per_elem` must be a finite number >= 0, found -0.5"]);
}

#[test]
fn error_unknown_arithmetic() {
    let e = errors(&CPU.replacen("\n", "\narithmetic = \"nearest\"\n", 1));
    assert_eq!(e, ["bad.toml:2:14: `arithmetic` is `single` or `tflite`, found `nearest`"]);
}

#[test]
fn error_wrong_type() {
    let e =
        errors(&format!("{CPU}[ops.\"onnx.Relu\"]\nsupported = \"yes\"\n[ops.\"onnx.Conv\"]\nns_per_mac = \"fast\"\n"));
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(e[0].starts_with("bad.toml:8:13: ") && e[0].contains("boolean"), "{e:?}");
    assert!(e[1].starts_with("bad.toml:10:14: ") && e[1].contains("f64"), "{e:?}");
}

#[test]
fn error_semantic_checks() {
    let src = r#"name = "x"
description = "d"
dtypes = ["f32", "f128"]
fallback = "gpu"
[transfer]
bytes_per_ns = 0
latency_ns = 1
[ops."onnx.Relu"]
ns_per_mac = 1.0
reason = "why"
[ops."onnx.Gelu"]
attrs.approximate = { allow = ["erf"] }
attrs.colour = { allow = [1] }
[ops."onnx.Gemm"]
attrs.alpha = { allow = [1] }
"#;
    let e = match TargetProfile::parse_with_targets(src, "bad.toml", &["cpu"]) {
        Err(TargetError::Invalid(d)) => d.iter().map(|d| d.to_string()).collect::<Vec<_>>(),
        other => panic!("{other:?}"),
    };
    let expect = [
        "bad.toml:3:18: unknown element type `f128`",
        "bad.toml:4:12: unknown fallback target `gpu` (known: cpu)",
        "bad.toml:6:16: `bytes_per_ns` must be a finite number > 0",
        "bad.toml:9:14: `ns_per_mac` given, but onnx.Relu has no MAC count",
        "bad.toml:10:10: `reason` only applies to unsupported ops",
        "bad.toml:12:32: onnx.Gelu.approximate takes one of none|tanh, found \"erf\"",
        "bad.toml:13:7: onnx.Gelu has no attribute `colour`",
        "bad.toml:15:26: onnx.Gemm.alpha is a float attribute",
    ];
    assert_eq!(e.len(), expect.len(), "{e:#?}");
    for (got, want) in e.iter().zip(expect) {
        assert!(got.starts_with(want), "{got}\n  does not start with\n{want}");
    }
}

#[test]
fn error_syntax() {
    let e = errors("name = \"x\"\ndescription = \n");
    assert!(e[0].starts_with("bad.toml:2:"), "{e:?}");
}

#[test]
fn error_header_problems_all_reported() {
    let src = "name = 3\ndescription = \"d\"\nsimulated = \"no\"\ncolour = 1\n[transfer]\nbytes_per_ns = 1\n\
               [ops.\"onnx.Nope\"]\nns_fixed = -1\n";
    let e = errors(src);
    let expect = [
        "bad.toml:1:8: invalid type: integer `3`, expected a string",
        "bad.toml:3:13: invalid type: string \"no\", expected a boolean",
        "bad.toml:4:1: unknown field `colour`",
        "bad.toml:5:1: missing field `latency_ns`",
        "bad.toml:7:6: unknown op `onnx.Nope`",
        "bad.toml:8:12: `ns_fixed` must be a finite number >= 0",
    ];
    assert_eq!(e.len(), expect.len(), "{e:#?}");
    for (got, want) in e.iter().zip(expect) {
        assert!(got.starts_with(want), "{got}\n  does not start with\n{want}");
    }
    assert_eq!(errors("description = \"d\"\n"), ["bad.toml:1:1: missing key `name`"]);
}

#[test]
fn error_table_expected() {
    let e =
        errors(&format!("{CPU}[ops]\n\"onnx.Relu\" = 3\n\"onnx.Gelu\" = {{ attrs = {{ approximate = \"tanh\" }} }}\n"));
    assert_eq!(e.len(), 2, "{e:#?}");
    assert!(e[0].starts_with("bad.toml:8:15: invalid type: integer `3`, expected an op rule table"), "{e:?}");
    assert!(
        e[1].starts_with("bad.toml:9:41: invalid type: string \"tanh\", expected an attribute constraint"),
        "{e:?}"
    );
}

const LIMITS: &str = r#"
name = "toy-ethos"
description = "window limits"
[ops."onnx.Conv"]
limits = [
    { measure = "stride", max = 3, when = ["depthwise"], reason = "dw strides 1..3" },
    { measure = "stride", max = 3, when = ["same_padding"], reason = "stride > 3 needs VALID" },
]
[ops."onnx.AveragePool"]
limits = [{ measure = "kernel_h", max = 8, when = ["same_padding"], reason = "SAME kernels <= 8" }]
[ops."core.slice"]
limits = [
    { measure = "step_off_hw", max = 1, reason = "strides only over W or H" },
    { measure = "negative_steps", max = 0, reason = "no reversed slices" },
]
[ops."onnx.Div"]
limits = [{ measure = "activation_divisor", max = 0, reason = "no int8 DIV" }]
"#;

#[test]
fn a_division_by_an_activation_is_a_limit_on_which_operands_are_constants() {
    let p = TargetProfile::parse(LIMITS, "toy-ethos.toml").expect("profile parses");
    let x = f32t(&[1, 8]);
    let div = |consts: &[bool]| {
        let ins = [Some(&x), Some(&x)];
        let q = OpQuery {
            opcode: Opcode::Div,
            attrs: &Attrs::new(),
            inputs: &ins,
            outputs: std::slice::from_ref(&x),
            consts,
        };
        p.support(&q)
    };
    assert!(div(&[false, true]).is_yes(), "x / c is an affine step");
    let Support::No(why) = div(&[false, false]) else { panic!("x / y must fall back") };
    assert!(why.contains("activation_divisor = 1 exceeds 0: no int8 DIV"), "{why}");
    assert!(!div(&[true, false]).is_yes(), "c / x divides by an activation");
    // A caller that cannot tell which operands are constants: the limit fails.
    let Support::No(why) = div(&[]) else { panic!("unknown constness must fall back") };
    assert!(why.contains("activation_divisor = unknown"), "{why}");
}

#[test]
fn slice_limits_stride_only_height_and_width() {
    let p = TargetProfile::parse(LIMITS, "toy-ethos.toml").expect("profile parses");
    let slice = |dims: &[u64], axes: &[i64], steps: &[i64]| {
        let a = Attrs::new()
            .with("axes", Attr::Ints(axes.to_vec()))
            .with("starts", Attr::Ints(vec![0; axes.len()]))
            .with("ends", Attr::Ints(vec![i64::MAX; axes.len()]))
            .with("steps", Attr::Ints(steps.to_vec()));
        ask(&p, "core.slice", &a, &[&f32t(dims)], &[f32t(dims)]).0
    };
    let x = [1, 8, 16, 16];
    // Rank 4: H and W are axes 2 and 3.
    assert!(slice(&x, &[2, 3], &[2, 2]).is_yes());
    assert!(slice(&x, &[3], &[3]).is_yes());
    assert!(slice(&x, &[1], &[1]).is_yes());
    let Support::No(why) = slice(&x, &[1, 2], &[2, 2]) else { panic!("a channel step must fall back") };
    assert!(why.contains("step_off_hw = 2 exceeds 1: strides only over W or H"), "{why}");
    let Support::No(why) = slice(&x, &[3], &[-1]) else { panic!("a reversed slice must fall back") };
    assert!(why.contains("negative_steps = 1 exceeds 0"), "{why}");
    // Rank 3 is [H, W, C] after TFLite's padding to NHWC; rank 2 is [W, C].
    assert!(slice(&[6, 8, 4], &[0, 1], &[2, 2]).is_yes());
    assert!(!slice(&[6, 8, 4], &[2], &[2]).is_yes());
    assert!(slice(&[6, 8], &[0], &[2]).is_yes());
    assert!(!slice(&[6, 8], &[1], &[2]).is_yes());
    // Rank 5 has no such mapping: the limit fails rather than guess; so does an axis out of range.
    assert!(!slice(&[1, 2, 3, 4, 5], &[3], &[1]).is_yes());
    assert!(!slice(&x, &[4], &[1]).is_yes());
}

#[test]
fn window_limits_follow_vela_conditions() {
    let p = TargetProfile::parse(LIMITS, "toy-ethos.toml").expect("profile parses");
    let x = f32t(&[1, 8, 16, 16]);
    let conv = |group: i64, k: u64, pads: &[i64]| {
        let a = Attrs::new()
            .with("strides", Attr::Ints(vec![4, 4]))
            .with("group", Attr::Int(group))
            .with("pads", Attr::Ints(pads.to_vec()));
        let w = f32t(&[8, (8 / group) as u64, k, k]);
        ask(&p, "onnx.Conv", &a, &[&x, &w], &[f32t(&[1, 8, 4, 4])]).0
    };
    // Depthwise stride 4: over the limit whatever the padding.
    let Support::No(why) = conv(8, 4, &[0; 4]) else { panic!("depthwise stride 4 must fall back") };
    assert!(why.contains("stride = 4 exceeds 3 (depthwise): dw strides 1..3"), "{why}");
    // A full conv: VALID (no pads) and explicit non-SAME pads pass; SAME (the odd pad after) does not.
    assert!(conv(1, 4, &[0; 4]).is_yes());
    assert!(conv(1, 5, &[1, 1, 0, 0]).is_yes());
    let Support::No(why) = conv(1, 5, &[0, 0, 1, 1]) else { panic!("SAME stride 4 must fall back") };
    assert!(why.contains("(same_padding)"), "{why}");
    // SAME_UPPER that pads nothing (1x1 stride 4 on 16) is written VALID.
    let a = Attrs::new().with("strides", Attr::Ints(vec![4, 4])).with("auto_pad", Attr::Str("SAME_UPPER".into()));
    let w1 = f32t(&[8, 8, 1, 1]);
    assert!(ask(&p, "onnx.Conv", &a, &[&x, &w1], &[f32t(&[1, 8, 4, 4])]).0.is_yes());
    let w5 = f32t(&[8, 8, 5, 5]);
    assert!(!ask(&p, "onnx.Conv", &a, &[&x, &w5], &[f32t(&[1, 8, 4, 4])]).0.is_yes());
    let pool = |k: i64, pad: i64| {
        let a = Attrs::new().with("kernel_shape", Attr::Ints(vec![k, k])).with("pads", Attr::Ints(vec![pad; 4]));
        ask(&p, "onnx.AveragePool", &a, &[&x], std::slice::from_ref(&x)).0
    };
    assert!(pool(7, 3).is_yes());
    assert!(!pool(9, 4).is_yes());
    // A symbolic input: SAME cannot be decided, so the limit fails rather than guess.
    let a = Attrs::new().with("kernel_shape", Attr::Ints(vec![3, 3])).with("pads", Attr::Ints(vec![1; 4]));
    assert!(!ask(&p, "onnx.AveragePool", &a, &[&dynamic()], &[dynamic()]).0.is_yes());
}

#[test]
fn error_limits_all_reported() {
    let src = r#"name = "x"
description = "d"
[default]
limits = [{ measure = "stride", max = 3, reason = "r" }]
[ops."onnx.Conv"]
limits = [{ measure = "speed", max = 3, reason = "r" }, { measure = "stride", max = -1, when = ["tiny"], reason = "r" }]
[ops."onnx.Relu"]
limits = [{ measure = "kernel_h", max = 3, reason = "r" }]
"#;
    let e = errors(src);
    let expect = [
        "bad.toml:4:11: window limits belong in `[ops.\"dialect.Name\"]` entries",
        "bad.toml:6:23: unknown measure `speed` (known: stride, kernel_h, kernel_w, kernel_area, step_off_hw, negative_steps, activation_divisor)",
        "bad.toml:6:57: `max` must be >= 0, found -1",
        "bad.toml:6:97: unknown condition `tiny` (known: depthwise, same_padding, dilated)",
        "bad.toml:8:23: `kernel_h` does not apply to onnx.Relu",
    ];
    assert_eq!(e.len(), expect.len(), "{e:#?}");
    for (got, want) in e.iter().zip(expect) {
        assert!(got.starts_with(want), "{got}\n  does not start with\n{want}");
    }
}
