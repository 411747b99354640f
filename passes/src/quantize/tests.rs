use super::eval::{auto_mixed, evaluate, Mixed, MovedTo};
use super::rewrite::{quantize_weight, weight_scales};
use super::*;
use crate::calibrate::observe;
use ir::interp::{Data, Tensor};
use proptest::prelude::*;

/// conv (+bias, relu) → global pool → linear → softmax: the shape of a small classifier.
const MODULE: &str = r#"
module @m attributes {phase = "core"} {
  const @w : f32[4, 2, 3, 3] = dense<[0.5, -0.25, 0.125, 1.0, 0.0, -1.0, 0.25, 0.5, 0.75, -0.5, 0.25, 0.0, 0.125, 1.0, -0.75, 0.5, 0.25, -0.125, 0.3, -0.2, 0.1, 0.9, 0.05, -0.8, 0.2, 0.4, 0.6, -0.4, 0.2, 0.01, 0.1, 0.8, -0.6, 0.4, 0.2, -0.1, 0.05, -0.025, 0.0125, 0.1, 0.0, -0.1, 0.025, 0.05, 0.075, -0.05, 0.025, 0.0, 0.0125, 0.1, -0.075, 0.05, 0.025, -0.0125, 2.0, -1.0, 0.5, 4.0, 0.0, -4.0, 1.0, 2.0, 3.0, -2.0, 1.0, 0.0, 0.5, 4.0, -3.0, 2.0, 1.0, -0.5]>
  const @b : f32[4] = dense<[0.1, -0.2, 0.05, 0.3]>
  const @fc : f32[4, 3] = dense<[0.5, -0.5, 0.25, 1.0, 0.5, -1.0, -0.25, 0.75, 0.5, 0.1, 0.2, -0.3]>
  const @fb : f32[3] = dense<[0.01, 0.02, -0.03]>

  func @main(%x: f32[1, 2, 6, 6]) -> (f32[1, 3]) {
    %w = core.const {value = @w} : f32[4, 2, 3, 3]
    %b = core.const {value = @b} : f32[4]
    %0 = core.conv %x, %w, %b {act = "relu", pads = [1, 1, 1, 1]} : f32[1, 4, 6, 6] loc("conv1" op "Conv")
    %1 = onnx.GlobalAveragePool %0 : f32[1, 4, 1, 1] loc("pool" op "GlobalAveragePool")
    %s = core.const {value = @shape} : i64[2]
    %2 = onnx.Reshape %1, %s : f32[1, 4]
    %fc = core.const {value = @fc} : f32[4, 3]
    %fb = core.const {value = @fb} : f32[3]
    %3 = core.linear %2, %fc, %fb : f32[1, 3] loc("fc" op "Gemm")
    %4 = onnx.Softmax %3 {axis = -1} : f32[1, 3] loc("prob" op "Softmax")
    return %4
  }
  const @shape : i64[2] = dense<[1, 4]>
}
"#;

fn module() -> Module {
    ir::text::parse_module(MODULE, "quant.eir", None).expect("parses").module
}

/// Deterministic inputs in [-1, 1) (a 64-bit LCG).
fn sample(seed: u64) -> Vec<Tensor> {
    let mut s = seed;
    let xs = (0..72)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
        })
        .collect();
    vec![Tensor { shape: vec![1, 2, 6, 6], data: Data::F32(xs) }]
}

/// A goal on the QDQ module alone.
fn goal(cosine: f64) -> super::eval::Goal<'static> {
    super::eval::Goal { cosine, fold: None }
}

fn set(seeds: std::ops::Range<u64>) -> Vec<Vec<Tensor>> {
    seeds.map(sample).collect()
}

#[test]
fn the_default_policy_parses() {
    let p = Policy::default_policy();
    assert!(p.quantize.iter().any(|o| o == "core.conv"));
    assert!(p.keep_float.contains_key("onnx.Softmax"));
    assert_eq!(p.patterns.len(), PATTERNS.len());
}

#[test]
fn every_builtin_policy_parses() {
    for (name, _) in BUILTIN_POLICIES {
        assert!(Policy::builtin(name).is_some(), "built-in policy `{name}` does not parse");
    }
    assert!(Policy::builtin("nope").is_none());
    let bad = "quantize = []\n[fixed_grid]\n\"onnx.Sigmoid\" = { scale = 0.0, zero_point = -129 }\n";
    assert!(Policy::parse(bad, "p.toml").unwrap_err().contains("fixed grid of `onnx.Sigmoid`"));
}

/// The TFLite policy computes the classifier's Softmax in int8 on the fixed
/// grid 1/256 from -128 (from 0 with u8), and the Reshape between the pool
/// and the linear layer shares the pool's grid.
#[test]
fn the_tflite_policy_fixes_the_softmax_grid() {
    let m = module();
    let obs = observe(&m, &set(0..8)).unwrap();
    let f = m.func("main").unwrap();
    let result_of =
        |kind: Opcode| f.body.ops.iter().map(|&id| &f.ops[id]).find(|o| o.opcode == kind).unwrap().results[0];
    for (act, zp) in [(QType::I8, -128), (QType::U8, 0)] {
        let opts = Options { policy: Policy::builtin("tflite").unwrap(), act, ..Options::default() };
        let q = quantize(&m, &obs, &opts).unwrap();
        let soft = &q.acts[&result_of(Opcode::Softmax)].params;
        assert_eq!((soft.scale, soft.zero_point), (1.0 / 256.0, zp), "{act:?}");
        let (pool, reshape) = (&q.acts[&result_of(Opcode::GlobalAveragePool)], &q.acts[&result_of(Opcode::Reshape)]);
        assert_eq!((pool.params.scale, pool.params.zero_point), (reshape.params.scale, reshape.params.zero_point));
    }
}

#[test]
fn policy_errors_list_every_unknown_op_and_pattern() {
    let src = "quantize = [\"onnx.Conv\", \"onnx.Bogus\"]\n[keep_float]\n\"x.Y\" = \"r\"\n[patterns]\nnope = \"r\"\n";
    let e = Policy::parse(src, "p.toml").unwrap_err();
    assert!(e.contains("`onnx.Bogus`") && e.contains("`x.Y`") && e.contains("`nope`"), "{e}");
    assert!(Policy::parse("quantize = 3", "p.toml").unwrap_err().starts_with("p.toml"));
}

#[test]
fn conv_and_linear_are_int8_and_softmax_stays_float_with_its_reason() {
    let m = module();
    let obs = observe(&m, &set(0..8)).unwrap();
    let q = quantize(&m, &obs, &Options::default()).unwrap();
    let prec = |name: &str| q.layers.iter().find(|l| l.name == name).map(|l| l.precision.clone());
    assert_eq!(prec("conv1"), Some(Precision::Int8));
    assert_eq!(prec("fc"), Some(Precision::Int8));
    assert!(matches!(prec("prob"), Some(Precision::Float(r)) if r.contains("policy")));
    // Weights per output channel, biases int32; the input, the conv, pool and fc results quantized.
    assert_eq!(q.weights.len(), 4);
    assert!(q.weights.iter().all(|w| w.2));
    assert_eq!(q.acts.len(), 5, "x, conv, pool, reshape (fc input), fc");
    let text = ir::text::Printer::new(Default::default()).print(&q.module).text;
    assert_eq!(text.matches("onnx.QuantizeLinear").count(), 5);
    assert!(text.contains("i32[4]") && text.contains("i8[4, 2, 3, 3]"), "{text}");
}

#[test]
fn the_quantized_module_stays_close_on_data_it_was_not_calibrated_on() {
    let m = module();
    let obs = observe(&m, &set(0..16)).unwrap();
    let q = quantize(&m, &obs, &Options { method: Method::MinMax, ..Options::default() }).unwrap();
    let ev = evaluate(&m, &q, &set(100..108), &mut || {}).unwrap();
    let out = &ev.outputs[0];
    assert!(out.cosine() > 0.999, "cosine {}", out.cosine());
    assert!(out.max_abs > 0.0, "quantization changed nothing: the test could not fail");
    assert_eq!(ev.layers.len(), q.acts.len());
    assert!(ev.macs.values().sum::<u64>() == 4 * 36 * 18 + 12, "{:?}", ev.macs);
    assert_eq!(ev.int8_mac_share(&q), 1.0);
}

#[test]
fn keep_float_by_type_or_node_name_and_unknown_names_of_both_flags_are_all_listed() {
    let m = module();
    let obs = observe(&m, &set(0..4)).unwrap();
    let opts = Options { keep_float: vec!["Conv".into()], ..Options::default() };
    let q = quantize(&m, &obs, &opts).unwrap();
    assert!(matches!(&q.layers[0].precision, Precision::Float(r) if r == "--keep-float Conv"));
    let opts = Options {
        keep_float: vec!["fc".into(), "nope".into(), "onnx.Nada".into()],
        i16: vec!["conv1".into(), "nix".into()],
        ..Options::default()
    };
    match quantize(&m, &obs, &opts) {
        Err(e @ QuantError::UnknownSelection(_)) => assert_eq!(
            e.to_string(),
            "no op has this name, op type or ONNX node name: --keep-float nope, --keep-float onnx.Nada, --i16 nix"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn i16_on_an_op_without_a_quantized_result_is_an_error_naming_it() {
    let m = module();
    let obs = observe(&m, &set(0..4)).unwrap();
    // The float Softmax's result is the model's output: no int8 op reads it.
    let opts = Options { i16: vec!["prob".into(), "conv1".into(), "onnx.Softmax".into()], ..Options::default() };
    match quantize(&m, &obs, &opts) {
        Err(e @ QuantError::NothingToWiden(_)) => {
            assert!(e.to_string().starts_with("--i16 selects no op with a quantized result"), "{e}");
            assert!(e.to_string().ends_with(": prob, onnx.Softmax"), "{e}");
        }
        other => panic!("{other:?}"),
    }
    // A float op's result that an int8 op reads has a grid to widen.
    let opts = Options { keep_float: vec!["conv1".into()], i16: vec!["conv1".into()], ..Options::default() };
    let q = quantize(&m, &obs, &opts).unwrap();
    assert!(q.acts.values().any(|a| a.qtype == QType::I16));
}

#[test]
fn auto_mixed_stops_when_the_outputs_agree_and_moving_everything_restores_float() {
    let m = module();
    let data = set(0..6);
    let obs = observe(&m, &data).unwrap();
    let r = auto_mixed(&m, &obs, &Options::default(), None, &data, goal(0.5), &mut |_| {}).unwrap();
    assert!(r.moved.is_empty() && r.sensitivity.is_empty() && r.ev.min_cosine() >= 0.5 && !r.q.acts.is_empty());
    let Mixed { q, ev, moved, sensitivity } =
        auto_mixed(&m, &obs, &Options::default(), None, &data, goal(2.0), &mut |_| {}).unwrap();
    assert!(sensitivity.windows(2).all(|w| w[0].cosine <= w[1].cosine), "worst first: {sensitivity:?}");
    assert!(q.layers.iter().all(|l| l.precision != Precision::Int8));
    let floated = moved.iter().filter(|mv| mv.to == MovedTo::Float).count();
    assert_eq!(floated, q.layers.len() - 1, "all but the policy's Softmax moved: {moved:?}");
    assert_eq!(ev.outputs[0].max_abs, 0.0);
    assert_eq!(ev.int8_mac_share(&q), 0.0);
}

proptest! {
    #[test]
    fn weights_dequantize_within_half_a_step(
        w in proptest::collection::vec(-10f32..10.0, 12),
        per_channel: bool,
        reduce_range: bool,
    ) {
        let dims = [3u64, 4];
        let axis = per_channel.then_some(0);
        let qmax = if reduce_range { 64.0 } else { 127.0 };
        let s = weight_scales(&dims, &w, axis, qmax);
        prop_assert_eq!(s.len(), if per_channel { 3 } else { 1 });
        let q = quantize_weight(&dims, &w, axis, &s, qmax);
        // Each scale's largest weight lands on ±qmax (the whole range is used).
        prop_assert_eq!(q.iter().map(|&v| i32::from(v).abs()).max(), Some(qmax as i32));
        for (i, (&x, &q)) in w.iter().zip(&q).enumerate() {
            let sc = s[if per_channel { i / 4 } else { 0 }];
            prop_assert!(f32::from(q).abs() <= qmax);
            prop_assert!((x - f32::from(q) * sc).abs() <= sc * 0.5001, "{} vs {} * {}", x, q, sc);
        }
    }
}

#[test]
fn top1_is_counted_for_class_scores_only() {
    use super::eval::class_rows;
    assert_eq!(class_rows(&[2, 3], &[0.5, -1.0, 2.0, 0.0, 0.0, 0.1]), 3, "[batch, classes] logits");
    assert_eq!(class_rows(&[1, 2, 3], &[0.2, 0.3, 0.5, 1.0, 0.0, 0.0]), 3, "softmax rows");
    assert_eq!(class_rows(&[1, 2, 3], &[0.2, 0.3, 0.6, 1.0, 0.0, 0.0]), 0, "a detection map");
    assert_eq!(class_rows(&[4, 1], &[1.0; 4]), 0, "one class");
}

/// `--reduce-range`: every int8 weight within ±64, each output channel's
/// largest at ±64 (the range is used, not just clamped), and the model
/// still close to float.
#[test]
fn reduced_range_weights_span_plus_minus_64() {
    let m = module();
    let obs = observe(&m, &set(0..16)).unwrap();
    let q = quantize(&m, &obs, &Options { reduce_range: true, ..Options::default() }).unwrap();
    let weights: Vec<&ir::Constant> = q
        .module
        .consts
        .iter()
        .map(|(_, c)| c)
        .filter(|c| c.name.ends_with(".q") && c.ty.dtype == ir::DType::I8)
        .collect();
    assert_eq!(weights.len(), 2, "conv and fc weights");
    for c in weights {
        let v: Vec<i64> = c.to_i64s().expect("i8 data");
        assert!(v.iter().all(|x| x.abs() <= 64), "{}: {v:?}", c.name);
        if v.len() == 72 {
            // The conv's four output channels, 18 weights each.
            assert!(v.chunks(18).all(|row| row.iter().any(|x| x.abs() == 64)), "{}: {v:?}", c.name);
        }
        assert_eq!(v.iter().map(|x| x.abs()).max(), Some(64), "{}", c.name);
    }
    let ev = evaluate(&m, &q, &set(100..108), &mut || {}).unwrap();
    assert!(ev.outputs[0].cosine() > 0.999, "cosine {}", ev.outputs[0].cosine());
}

#[test]
fn matmul_weights_take_their_channels_from_the_last_axis() {
    let src = r#"module @m attributes {phase = "core"} {
  const @b : f32[2, 4, 3] = dense<[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, -1.0, -2.0, -3.0, -4.0, -5.0, -6.0, -7.0, -8.0, -9.0, -10.0, -11.0, -12.0]>
  func @main(%x: f32[2, 5, 4]) -> (f32[2, 5, 3]) {
    %b = core.const {value = @b} : f32[2, 4, 3]
    %0 = onnx.MatMul %x, %b : f32[2, 5, 3] loc("mm" op "MatMul")
    return %0
  }
}"#;
    let m = ir::text::parse_module(src, "mm.eir", None).expect("parses").module;
    let data = vec![vec![Tensor { shape: vec![2, 5, 4], data: Data::F32((0..40).map(|i| i as f32 / 40.0).collect()) }]];
    let q = quantize(&m, &observe(&m, &data).unwrap(), &Options::default()).unwrap();
    let text = ir::text::Printer::new(Default::default()).print(&q.module).text;
    assert!(text.contains("onnx.DequantizeLinear") && text.contains("{axis = 2}"), "{text}");
    assert_eq!(q.weights, vec![(q.layers[0].op, 1, true)]);
}

/// conv → MaxPool → conv: the pool's result is a subset of its input's values.
const POOLED: &str = r#"
module @m attributes {phase = "core"} {
  const @w : f32[2, 2, 1, 1] = dense<[0.5, -0.25, 1.0, 0.75]>
  func @main(%x: f32[1, 2, 6, 6]) -> (f32[1, 2, 3, 3]) {
    %w = core.const {value = @w} : f32[2, 2, 1, 1]
    %0 = core.conv %x, %w : f32[1, 2, 6, 6] loc("c1" op "Conv")
    %1 = onnx.MaxPool %0 {kernel_shape = [2, 2], strides = [2, 2]} : f32[1, 2, 3, 3] loc("pool" op "MaxPool")
    %2 = core.conv %1, %w : f32[1, 2, 3, 3] loc("c2" op "Conv")
    return %2
  }
}
"#;

#[test]
fn max_pool_results_share_their_input_grid() {
    let m = ir::text::parse_module(POOLED, "pooled.eir", None).expect("parses").module;
    let obs = observe(&m, &set(0..8)).unwrap();
    let grid = |q: &Quantized, v: Value| q.acts.get(&v).map(|a| (a.qtype, a.params.scale, a.params.zero_point));
    let f = m.func("main").unwrap();
    let (conv, pool) = (f.ops[f.body.ops[1]].results[0], f.ops[f.body.ops[2]].results[0]);
    let q = quantize(&m, &obs, &Options::default()).unwrap();
    assert!(grid(&q, conv).is_some());
    assert_eq!(grid(&q, pool), grid(&q, conv));
    // Without the policy entry the pool calibrates its own (narrower) range.
    let mut own = Options::default();
    own.policy.share_grid.clear();
    let q_own = quantize(&m, &obs, &own).unwrap();
    assert_ne!(grid(&q_own, pool), grid(&q_own, conv));
    // The shared grid covers both values' own calibrated ranges (up to the
    // half step the zero point's rounding moves an end).
    for v in [conv, pool] {
        let ((slo, shi), (olo, ohi)) = (q.acts[&v].range(), q_own.acts[&v].range());
        let step = q.acts[&v].params.scale;
        assert!(slo <= olo + step && shi >= ohi - step, "shared [{slo}, {shi}] vs own [{olo}, {ohi}]");
    }
}

/// conv → Add (residual) → Relu → conv, and the same Add read twice.
const RESIDUAL: &str = r#"
module @m attributes {phase = "core"} {
  const @w : f32[2, 2, 1, 1] = dense<[0.5, -0.25, 1.0, 0.75]>
  func @main(%x: f32[1, 2, 6, 6]) -> (f32[1, 2, 6, 6], f32[1, 2, 6, 6]) {
    %w = core.const {value = @w} : f32[2, 2, 1, 1]
    %0 = core.conv %x, %w : f32[1, 2, 6, 6] loc("c1" op "Conv")
    %1 = onnx.Add %0, %x : f32[1, 2, 6, 6] loc("add1" op "Add")
    %2 = onnx.Relu %1 : f32[1, 2, 6, 6] loc("relu1" op "Relu")
    %3 = onnx.Add %2, %x : f32[1, 2, 6, 6] loc("add2" op "Add")
    %4 = onnx.Relu %3 : f32[1, 2, 6, 6] loc("relu2" op "Relu")
    %5 = core.conv %4, %w : f32[1, 2, 6, 6] loc("c2" op "Conv")
    return %5, %3
  }
}
"#;

#[test]
fn a_residual_add_read_only_by_a_relu_is_quantized_after_the_relu() {
    let m = ir::text::parse_module(RESIDUAL, "residual.eir", None).expect("parses").module;
    let obs = observe(&m, &set(0..8)).unwrap();
    let f = m.func("main").unwrap();
    let result = |i: usize| f.ops[f.body.ops[i]].results[0];
    let (add1, relu1, add2, relu2) = (result(2), result(3), result(4), result(5));
    let q = quantize(&m, &obs, &Options::default()).unwrap();
    assert!(!q.acts.contains_key(&add1), "add1 is read only by relu1");
    assert!(q.acts.contains_key(&relu1) && q.acts.contains_key(&relu2));
    assert!(q.acts.contains_key(&add2), "add2 is also a model output");
    let mut plain = Options::default();
    plain.policy.fuse_relu.clear();
    assert!(quantize(&m, &obs, &plain).unwrap().acts.contains_key(&add1));
}

/// conv (hard_swish) → x · w + b by scalars (PP-LCNet's learnable affine) → conv.
const AFFINE: &str = r#"
module @m attributes {phase = "core"} {
  const @w : f32[2, 2, 1, 1] = dense<[0.5, -0.25, 1.0, 0.75]>
  const @k : f32[1] = dense<[-0.625]>
  const @c : f32[1] = dense<[0.125]>
  func @main(%x: f32[1, 2, 6, 6]) -> (f32[1, 2, 6, 6]) {
    %w = core.const {value = @w} : f32[2, 2, 1, 1]
    %0 = core.conv %x, %w {act = "hard_swish"} : f32[1, 2, 6, 6] loc("c1" op "Conv")
    %k = core.const {value = @k} : f32[1]
    %1 = onnx.Mul %0, %k : f32[1, 2, 6, 6] loc("scale" op "Mul")
    %c = core.const {value = @c} : f32[1]
    %2 = onnx.Add %1, %c : f32[1, 2, 6, 6] loc("shift" op "Add")
    %3 = core.conv %2, %w : f32[1, 2, 6, 6] loc("c2" op "Conv")
    return %3
  }
}
"#;

#[test]
fn a_folded_affine_result_takes_the_image_of_its_input_grid() {
    let m = ir::text::parse_module(AFFINE, "affine.eir", None).expect("parses").module;
    // An outlier per sample gives the conv's result a tail that MSE clips:
    // a grid of the affine result's own would clip its image differently.
    let mut data = set(0..8);
    for (i, s) in data.iter_mut().enumerate() {
        if let Data::F32(xs) = &mut s[0].data {
            xs[i] = 12.0;
        }
    }
    let obs = observe(&m, &data).unwrap();
    let f = m.func("main").unwrap();
    let result = |i: usize| f.ops[f.body.ops[i]].results[0];
    let (conv, shifted) = (result(1), result(5));
    let q = quantize(&m, &obs, &Options::default()).unwrap();
    let prec = |name: &str| q.layers.iter().find(|l| l.name == name).map(|l| l.precision.clone());
    assert_eq!((prec("scale"), prec("shift")), (Some(Precision::Folded), Some(Precision::Folded)));
    // [lo, hi] of the conv's grid maps onto [-0.625·hi + 0.125, -0.625·lo + 0.125].
    let ((lo, hi), (l, h)) = (q.acts[&conv].range(), q.acts[&shifted].range());
    let (sx, sy) = (q.acts[&conv].params.scale, q.acts[&shifted].params.scale);
    assert!((sy - 0.625 * sx).abs() < 1e-6 * sx, "scale {sy} is not 0.625 × {sx}");
    for (got, want) in [(l, -0.625 * hi + 0.125), (h, -0.625 * lo + 0.125)] {
        assert!((got - want).abs() <= 0.5 * sy + 1e-6, "[{l}, {h}] is not the image of [{lo}, {hi}]");
    }
}

/// A 1×1 conv whose two result channels differ 1000× in range, read by a
/// depthwise conv that scales them back to one size: one 8-bit grid for
/// both rounds the small channel away (MobileNet-style nets' depthwise
/// inputs, e.g. PP-OCRv4's recognizer).
const UNEVEN: &str = r#"
module @m attributes {phase = "core"} {
  const @w : f32[2, 2, 1, 1] = dense<[100.0, 0.0, 0.0, 0.1]>
  const @dw : f32[2, 1, 3, 3] = dense<[0.001, 0.002, 0.001, 0.002, 0.004, 0.002, 0.001, 0.002, 0.001, 1.0, 2.0, 1.0, 2.0, 4.0, 2.0, 1.0, 2.0, 1.0]>
  func @main(%x: f32[1, 2, 6, 6]) -> (f32[1, 2, 6, 6]) {
    %w = core.const {value = @w} : f32[2, 2, 1, 1]
    %0 = core.conv %x, %w : f32[1, 2, 6, 6] loc("c1" op "Conv")
    %dw = core.const {value = @dw} : f32[2, 1, 3, 3]
    %1 = core.conv %0, %dw {group = 2, pads = [1, 1, 1, 1]} : f32[1, 2, 6, 6] loc("dw" op "Conv")
    return %1
  }
}
"#;

fn uneven() -> Module {
    ir::text::parse_module(UNEVEN, "uneven.eir", None).expect("parses").module
}

#[test]
fn auto_mixed_widens_the_activation_whose_rounding_alone_costs_most_first() {
    let m = uneven();
    let data = set(0..6);
    let obs = observe(&m, &data).unwrap();
    let f = m.func("main").unwrap();
    let uneven = f.ops[f.body.ops[1]].results[0];
    let q8 = quantize(&m, &obs, &Options::default()).unwrap();
    let ev8 = evaluate(&m, &q8, &data, &mut || {}).unwrap();
    assert!(ev8.min_cosine() < 0.99, "8 bits everywhere keep {}: the test could not fail", ev8.min_cosine());
    assert_eq!(ev8.int8_mac_share(&q8), 1.0);
    let Mixed { q, ev, moved, sensitivity } =
        auto_mixed(&m, &obs, &Options::default(), None, &data, goal(0.99), &mut |_| {}).unwrap();
    assert_eq!(sensitivity.len(), 3, "x, c1, dw: {sensitivity:?}");
    assert_eq!((sensitivity[0].name.as_str(), sensitivity[0].kind), ("c1", "core.conv"));
    assert_eq!(moved.len(), 1, "{moved:?}");
    assert_eq!((moved[0].name.as_str(), moved[0].to), ("c1", MovedTo::I16));
    assert!(moved[0].drop > 0.5 * (1.0 - ev8.min_cosine()), "{moved:?}");
    assert_eq!(q.acts[&uneven].qtype, QType::I16);
    assert!(q.acts.iter().filter(|(&v, _)| v != uneven).all(|(_, a)| a.qtype == QType::U8));
    assert!(ev.min_cosine() >= 0.99 && q.layers.iter().all(|l| l.precision == Precision::Int8));
    // Both convs touch the i16 tensor: no MAC is int8 any more.
    assert_eq!(ev.int8_mac_share(&q), 0.0);
}

/// A policy whose target has no 16-bit form of the convs (`narrow_only`)
/// and no float ops (`float_fallback = false`): `--auto-mixed` widens
/// nothing and moves nothing, and the outputs stay below the goal.
#[test]
fn auto_mixed_respects_narrow_only_ops_and_no_float_fallback() {
    let m = uneven();
    let data = set(0..6);
    let obs = observe(&m, &data).unwrap();
    let mut opts = Options::default();
    opts.policy.narrow_only = vec!["core.conv".into()];
    opts.policy.float_fallback = false;
    let Mixed { q, ev, moved, .. } = auto_mixed(&m, &obs, &opts, None, &data, goal(0.99), &mut |_| {}).unwrap();
    assert!(moved.is_empty(), "{moved:?}");
    assert!(q.acts.values().all(|a| a.qtype == QType::U8) && ev.min_cosine() < 0.99);
    // With float moves allowed, the convs go to float instead.
    opts.policy.float_fallback = true;
    let Mixed { moved, .. } = auto_mixed(&m, &obs, &opts, None, &data, goal(0.99), &mut |_| {}).unwrap();
    assert!(!moved.is_empty() && moved.iter().all(|mv| mv.to == MovedTo::Float), "{moved:?}");
}

#[test]
fn widening_either_end_of_a_folded_affine_chain_widens_both() {
    let m = ir::text::parse_module(AFFINE, "affine.eir", None).expect("parses").module;
    let data = set(0..4);
    let obs = observe(&m, &data).unwrap();
    let f = m.func("main").unwrap();
    let result = |i: usize| f.ops[f.body.ops[i]].results[0];
    let (conv, shifted, out) = (result(1), result(5), result(6));
    for v in [conv, shifted] {
        let opts = Options { wide: BTreeSet::from([v]), ..Options::default() };
        let q = quantize(&m, &obs, &opts).unwrap();
        let types = [conv, shifted, out].map(|v| q.acts[&v].qtype);
        assert_eq!(types, [QType::I16, QType::I16, QType::U8], "widening {v}");
    }
}

/// A conv with tiny weights and a large bias behind an i16 input: the
/// bias in units of `s_x · s_w` is far beyond i32.
const BIG_BIAS: &str = r#"
module @m attributes {phase = "core"} {
  const @w : f32[2, 2, 1, 1] = dense<[0.000001, -0.000002, 0.5, 0.25]>
  const @b : f32[2] = dense<[1000.0, -0.5]>
  func @main(%x: f32[1, 2, 6, 6]) -> (f32[1, 2, 6, 6]) {
    %w = core.const {value = @w} : f32[2, 2, 1, 1]
    %b = core.const {value = @b} : f32[2]
    %0 = core.conv %x, %w, %b : f32[1, 2, 6, 6] loc("c1" op "Conv")
    return %0
  }
}
"#;

#[test]
fn a_bias_beyond_i32_at_a_fine_input_grid_coarsens_its_channels_weights_instead_of_saturating() {
    let m = ir::text::parse_module(BIG_BIAS, "big-bias.eir", None).expect("parses").module;
    let data = set(0..4);
    let obs = observe(&m, &data).unwrap();
    let x = m.func("main").unwrap().body.params[0];
    let opts = Options { wide: BTreeSet::from([x]), ..Options::default() };
    let q = quantize(&m, &obs, &opts).unwrap();
    assert_eq!(q.acts[&x].qtype, QType::I16);
    let conv = m.func("main").unwrap().body.ops[2];
    assert_eq!(q.bias_fitted, BTreeMap::from([(conv, 1)]), "only the first channel's bias is beyond i32");
    let ev = evaluate(&m, &q, &data, &mut || {}).unwrap();
    // The first channel sits at 1000 on the output grid, the second within it.
    assert!(ev.outputs[0].cosine() > 0.9999, "cosine {}", ev.outputs[0].cosine());
    assert!(ev.outputs[0].max_abs < 5.0, "max |diff| {}", ev.outputs[0].max_abs);
}

#[test]
fn i16_by_node_name_widens_that_ops_results() {
    let m = uneven();
    let data = set(0..4);
    let obs = observe(&m, &data).unwrap();
    let f = m.func("main").unwrap();
    let (c1, dw) = (f.ops[f.body.ops[1]].results[0], f.ops[f.body.ops[3]].results[0]);
    let q = quantize(&m, &obs, &Options { i16: vec!["c1".into()], ..Options::default() }).unwrap();
    assert_eq!((q.acts[&c1].qtype, q.acts[&dw].qtype), (QType::I16, QType::U8));
    let ev8 = evaluate(&m, &quantize(&m, &obs, &Options::default()).unwrap(), &data, &mut || {}).unwrap();
    let ev16 = evaluate(&m, &q, &data, &mut || {}).unwrap();
    assert!(ev16.min_cosine() > 0.999 && ev8.min_cosine() < 0.99, "{} vs {}", ev16.min_cosine(), ev8.min_cosine());
}

#[test]
fn equalization_keeps_the_float_bits_and_gives_the_narrow_channel_a_grid() {
    let m = uneven();
    let data = set(0..4);
    let (eq, done) = super::equalize(&m, &data, &mut || {}).unwrap();
    assert_eq!(done.len(), 1, "{done:?}");
    assert_eq!((done[0].producer.as_str(), done[0].consumer.as_str(), done[0].channels), ("c1", "dw", 1));
    assert!(done[0].spread.0 > 500.0 && done[0].spread.1 < 2.0, "{:?}", done[0].spread);
    // The same float bits on inputs it was not measured on.
    for inputs in set(10..14) {
        let (a, b) =
            (ir::interp::run(&m, "main", inputs.clone()).unwrap(), ir::interp::run(&eq, "main", inputs).unwrap());
        assert_eq!(a, b);
    }
    // Only the rescaled constants changed, and the replaced ones are gone.
    assert_eq!(eq.consts.len(), m.consts.len());
    assert_ne!(ir::text::print_module(&eq), ir::text::print_module(&m));
    let cosine = |m: &Module| {
        let obs = observe(m, &data).unwrap();
        evaluate(m, &quantize(m, &obs, &Options::default()).unwrap(), &data, &mut || {}).unwrap().min_cosine()
    };
    let (before, after) = (cosine(&m), cosine(&eq));
    assert!(before < 0.99 && after > 0.999, "{before} -> {after}");
}

#[test]
fn equalization_leaves_a_conv_whose_result_another_op_reads_alone() {
    let src = UNEVEN.replace("return %1", "%2 = onnx.Add %1, %0 : f32[1, 2, 6, 6]\n    return %2");
    let m = ir::text::parse_module(&src, "shared.eir", None).expect("parses").module;
    let (eq, done) = super::equalize(&m, &set(0..2), &mut || {}).unwrap();
    assert!(done.is_empty(), "{done:?}");
    assert_eq!(ir::text::print_module(&eq), ir::text::print_module(&m));
}

/// A scalar step producing a graph output (`x * 0.5`): folded by default (the output
/// is dequantized anyway), computed in int8 with a grid of its own under
/// the TFLite policy (`int8_outputs`: a TFLite graph returns int8 tensors).
#[test]
fn the_tflite_policy_gives_an_output_step_its_own_grid() {
    let src = r#"module @m attributes {phase = "onnx"} {
  const @w : f32[2, 2, 1, 1] = dense<[1.0, 0.5, -0.5, 1.0]>
  const @half : f32[] = dense<[0.5]>
  func @main(%x: f32[1, 2, 6, 6]) -> (f32[1, 2, 6, 6]) {
    %w = core.const {value = @w} : f32[2, 2, 1, 1]
    %0 = core.conv %x, %w : f32[1, 2, 6, 6] loc("c" op "Conv")
    %t = core.const {value = @half} : f32[]
    %1 = onnx.Mul %0, %t : f32[1, 2, 6, 6] loc("half" op "Mul")
    return %1
  }
}
"#;
    let m = ir::text::parse_module(src, "out.eir", None).expect("parses").module;
    let obs = observe(&m, &set(0..4)).unwrap();
    let prec = |policy: &str| {
        let opts = Options { policy: Policy::builtin(policy).unwrap(), ..Options::default() };
        let q = quantize(&m, &obs, &opts).unwrap();
        q.layers.iter().find(|l| l.name == "half").map(|l| l.precision.clone())
    };
    assert_eq!(prec("default"), Some(Precision::Folded));
    assert_eq!(prec("tflite"), Some(Precision::Int8));
}
