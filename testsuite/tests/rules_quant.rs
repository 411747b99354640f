//! Differential property tests of the `quant` rules (`passes/rules/quant.rules`):
//! random float convs (kernel, stride, dilation, padding, groups incl.
//! depthwise, bias or none, activation none/relu/clip (fixed-point epilogue)
//! or hard_swish/silu/leaky_relu (float-activation epilogue;
//! a conv ending in a sigmoid at the output stays float by policy), u8 or
//! i8 activations, per-channel or per-tensor weights) are calibrated and
//! quantized to QDQ, then folded (`fold_integer` for the cpu target). Every
//! conv must become `quant.conv`, and the integer result must equal the QDQ
//! result within 1 LSB of the output grid everywhere, and exactly on at least
//! 99% of the elements (the fold only changes rounding).

use ir::interp::{Data, Tensor};
use passes::calibrate::{observe, QType};
use passes::quantize::{fold_integer, quantize, Options};
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Case {
    c: usize,
    m: usize,
    hw: usize,
    k: usize,
    stride: usize,
    dil: usize,
    pad: usize,
    depthwise: bool,
    bias: bool,
    act: &'static str,
    i8_acts: bool,
    per_tensor: bool,
    seed: u64,
}

fn lcg(s: &mut u64) -> f32 {
    *s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (*s >> 40) as f32 / (1u64 << 23) as f32 - 1.0
}

fn floats(n: usize, s: &mut u64, scale: f32) -> String {
    (0..n).map(|_| format!("{:e}", lcg(s) * scale)).collect::<Vec<_>>().join(", ")
}

impl Case {
    fn group(&self) -> usize {
        if self.depthwise {
            self.c
        } else {
            1
        }
    }
    fn out_channels(&self) -> usize {
        if self.depthwise {
            self.c
        } else {
            self.m
        }
    }
    fn module(&self) -> ir::Module {
        let (c, m, g) = (self.c, self.out_channels(), self.group());
        let mut s = self.seed;
        let w = floats(m * (c / g) * self.k * self.k, &mut s, 0.5);
        let b = floats(m, &mut s, 0.3);
        let act = match self.act {
            "none" => String::new(),
            "clip" => "act = \"clip\", act_alpha = 0.0, act_beta = 1.5, ".into(),
            a => format!("act = \"{a}\", "),
        };
        let (bias_const, bias_op, bias_arg) = if self.bias {
            (
                format!("const @b : f32[{m}] = dense<[{b}]>"),
                format!("%b = core.const {{value = @b}} : f32[{m}]"),
                ", %b",
            )
        } else {
            (String::new(), String::new(), "")
        };
        let (hw, k, st, d, p) = (self.hw, self.k, self.stride, self.dil, self.pad);
        let o = (hw + 2 * p - d * (k - 1) - 1) / st + 1;
        let src = format!(
            r#"module @m attributes {{phase = "core"}} {{
  const @w : f32[{m}, {cg}, {k}, {k}] = dense<[{w}]>
  {bias_const}
  func @main(%x: f32[1, {c}, {hw}, {hw}]) -> (f32[1, {m}, {o}, {o}]) {{
    %w = core.const {{value = @w}} : f32[{m}, {cg}, {k}, {k}]
    {bias_op}
    %0 = core.conv %x, %w{bias_arg} {{{act}dilations = [{d}, {d}], group = {g}, pads = [{p}, {p}, {p}, {p}], strides = [{st}, {st}]}} : f32[1, {m}, {o}, {o}] loc("conv" op "Conv")
    return %0
  }}
}}"#,
            cg = c / g
        );
        ir::text::parse_module(&src, "case.eir", None).expect("case parses").module
    }
    fn samples(&self, seed: u64, n: usize) -> Vec<Vec<Tensor>> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                let xs = (0..self.c * self.hw * self.hw).map(|_| lcg(&mut s) * 2.0).collect();
                vec![Tensor { shape: vec![1, self.c, self.hw, self.hw], data: Data::F32(xs) }]
            })
            .collect()
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1usize..6, 1usize..20, 3usize..10, prop::sample::select(vec![1usize, 3, 5])),
        (1usize..3, 1usize..3, 0usize..3, any::<bool>(), any::<bool>()),
        (
            prop::sample::select(vec!["none", "relu", "clip", "hard_swish", "silu", "leaky_relu"]),
            any::<bool>(),
            any::<bool>(),
            any::<u64>(),
        ),
    )
        .prop_filter("the window fits", |((_, _, hw, k), (_, dil, pad, _, _), _)| dil * (k - 1) < hw + 2 * pad)
        .prop_map(|((c, m, hw, k), (stride, dil, pad, depthwise, bias), (act, i8_acts, per_tensor, seed))| Case {
            c,
            m,
            hw,
            k,
            stride,
            dil,
            pad,
            depthwise,
            bias,
            act,
            i8_acts,
            per_tensor,
            seed,
        })
}

fn check(case: &Case) -> Result<(), TestCaseError> {
    let fp = case.module();
    let calib = case.samples(case.seed ^ 1, 4);
    let obs = observe(&fp, &calib).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let opts = Options {
        act: if case.i8_acts { QType::I8 } else { QType::U8 },
        per_channel: !case.per_tensor,
        ..Options::default()
    };
    let q = quantize(&fp, &obs, &opts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let (popts, _) =
        compiler::optimize::pipeline_options("cpu", &[]).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let (folded, report) = fold_integer(&q.module, &popts).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(report.integer_ops, 1, "quant.conv count, declined: {:?}", report.declined);
    // The output grid: the QuantizeLinear scale of the conv result.
    let f = q.module.func("main").expect("main");
    let out = f.body.results[0];
    let act =
        q.acts.values().find(|a| a.dq == out).ok_or_else(|| TestCaseError::fail("the output is not quantized"))?;
    let scale = act.params.scale;
    let (mut diff, mut total) = (0usize, 0usize);
    for inputs in case.samples(case.seed ^ 2, 3) {
        let a = ir::interp::run(&q.module, "main", inputs.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let b = ir::interp::run(&folded, "main", inputs).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (Data::F32(a), Data::F32(b)) = (&a[0].data, &b[0].data) else { panic!("f32 outputs") };
        for (x, y) in a.iter().zip(b) {
            let lsb = ((x - y).abs() / scale).round();
            prop_assert!(lsb <= 1.0, "{x} vs {y}: {lsb} LSB (scale {scale})");
            diff += usize::from(x != y);
            total += 1;
        }
    }
    prop_assert!(diff * 100 <= total, "{diff} of {total} elements differ by 1 LSB");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn folded_convs_equal_their_qdq_form_within_one_lsb(c in case()) {
        check(&c)?;
    }
}

/// The exact rules: Transpose, MaxPool and Relu between a DequantizeLinear
/// and a QuantizeLinear with the same scale and zero point run on the
/// integers (no QDQ op left), with the same bits as the QDQ form.
#[test]
fn data_movement_between_equal_grids_runs_on_the_integers() {
    let src = r#"module @m attributes {phase = "core"} {
  const @s : f32[] = dense<[0.05]>
  const @z : u8[] = dense<[100]>
  func @main(%x: u8[1, 2, 5, 6]) -> (u8[1, 2, 4, 5]) {
    %s = core.const {value = @s} : f32[]
    %z = core.const {value = @z} : u8[]
    %0 = onnx.DequantizeLinear %x, %s, %z : f32[1, 2, 5, 6]
    %1 = onnx.Transpose %0 {perm = [0, 1, 3, 2]} : f32[1, 2, 6, 5]
    %2 = onnx.QuantizeLinear %1, %s, %z : u8[1, 2, 6, 5]
    %3 = onnx.DequantizeLinear %2, %s, %z : f32[1, 2, 6, 5]
    %4 = onnx.Relu %3 : f32[1, 2, 6, 5]
    %5 = onnx.QuantizeLinear %4, %s, %z : u8[1, 2, 6, 5]
    %6 = onnx.DequantizeLinear %5, %s, %z : f32[1, 2, 6, 5]
    %7 = onnx.MaxPool %6 {kernel_shape = [3, 2], pads = [0, 0, 0, 0]} : f32[1, 2, 4, 4]
    %8 = onnx.QuantizeLinear %7, %s, %z : u8[1, 2, 4, 4]
    return %8
  }
}"#;
    let src = src.replace("-> (u8[1, 2, 4, 5])", "-> (u8[1, 2, 4, 4])");
    let m = ir::text::parse_module(&src, "grid.eir", None).expect("parses").module;
    let (popts, _) = compiler::optimize::pipeline_options("cpu", &[]).expect("cpu");
    let (folded, _) = fold_integer(&m, &popts).expect("folds");
    let f = folded.func("main").expect("main");
    let left: Vec<&str> = f
        .live_ops()
        .iter()
        .map(|&o| f.ops[o].opcode.name())
        .filter(|n| n.contains("Quantize") || n.contains("Dequantize"))
        .collect();
    assert!(left.is_empty(), "QDQ ops left: {left:?}\n{}", ir::text::print_module(&folded));
    let x: Vec<u8> = (0..60).map(|i| (i * 37 % 256) as u8).collect();
    let input = vec![Tensor { shape: vec![1, 2, 5, 6], data: Data::U8(x) }];
    let a = ir::interp::run(&m, "main", input.clone()).expect("runs");
    let b = ir::interp::run(&folded, "main", input).expect("runs");
    assert_eq!(a[0].data, b[0].data);
}

/// `Q(Add(DQ(a), DQ(b)))` becomes `quant.add` (grids differ on all three
/// sides) and computes the same bits: the fold is exact.
#[test]
fn residual_adds_fuse_exactly() {
    let src = r#"module @m attributes {phase = "core"} {
  const @sa : f32[] = dense<[0.037]>
  const @za : u8[] = dense<[120]>
  const @sb : f32[] = dense<[0.0113]>
  const @zb : u8[] = dense<[7]>
  const @sy : f32[] = dense<[0.041]>
  const @zy : u8[] = dense<[90]>
  func @main(%a: u8[2, 16, 16], %b: u8[2, 16, 16]) -> (u8[2, 16, 16]) {
    %sa = core.const {value = @sa} : f32[]
    %za = core.const {value = @za} : u8[]
    %sb = core.const {value = @sb} : f32[]
    %zb = core.const {value = @zb} : u8[]
    %sy = core.const {value = @sy} : f32[]
    %zy = core.const {value = @zy} : u8[]
    %0 = onnx.DequantizeLinear %a, %sa, %za : f32[2, 16, 16]
    %1 = onnx.DequantizeLinear %b, %sb, %zb : f32[2, 16, 16]
    %2 = onnx.Add %0, %1 : f32[2, 16, 16]
    %3 = onnx.QuantizeLinear %2, %sy, %zy : u8[2, 16, 16]
    return %3
  }
}"#;
    let m = ir::text::parse_module(src, "add.eir", None).expect("parses").module;
    let (popts, _) = compiler::optimize::pipeline_options("cpu", &[]).expect("cpu");
    let (folded, report) = fold_integer(&m, &popts).expect("folds");
    assert_eq!(report.integer_ops, 1, "{}", ir::text::print_module(&folded));
    let (a, b): (Vec<u8>, Vec<u8>) = (0..512).map(|i| ((i * 37 % 256) as u8, (i * 101 % 256) as u8)).unzip();
    let input = vec![
        Tensor { shape: vec![2, 16, 16], data: Data::U8(a) },
        Tensor { shape: vec![2, 16, 16], data: Data::U8(b) },
    ];
    let x = ir::interp::run(&m, "main", input.clone()).expect("runs");
    let y = ir::interp::run(&folded, "main", input).expect("runs");
    assert_eq!(x[0].data, y[0].data);
}
