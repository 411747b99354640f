//! Differential property tests of the `quant` rules (`passes/rules/quant.rules`):
//! random float convs (kernel, stride, dilation, padding, groups incl.
//! depthwise, bias or none, activation none/relu/clip (fixed-point epilogue)
//! or hard_swish/silu/leaky_relu (float-activation epilogue;
//! a conv ending in a sigmoid at the output stays float by policy), u8 or
//! i8 activations, per-channel or per-tensor weights) are calibrated and
//! quantized to QDQ, then folded (`fold_integer` for the cpu target). Every
//! conv must become `quant.conv`, and the integer result must equal the QDQ
//! result within 1 LSB of the output grid everywhere, and exactly on at least
//! 99% of the elements (the fold only changes rounding). The exact folds
//! (data movement, add, mul) must give the same bits; global average
//! pooling is within 1 LSB.

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
    if matches!(case.act, "none" | "relu" | "clip") {
        check_tflite_rounding(case, &q.module, &folded, scale)?;
    }
    Ok(())
}

/// A target computing TFLite's arithmetic folds the same conv with ruy's
/// rounding (the `rounding` attribute): within 1 LSB of edgec's single
/// rounding everywhere, equal on all but the few values LiteRT's first
/// rounding moves onto a half.
fn check_tflite_rounding(case: &Case, qdq: &ir::Module, single: &ir::Module, scale: f32) -> Result<(), TestCaseError> {
    let fail = |e: String| TestCaseError::fail(e);
    let (popts, _) = compiler::optimize::pipeline_options("ethos-u55-256", &[]).map_err(|e| fail(e.to_string()))?;
    let (tfl, report) = fold_integer(qdq, &popts).map_err(|e| fail(e.to_string()))?;
    prop_assert_eq!(report.integer_ops, 1, "ethos-u55-256: declined {:?}", report.declined);
    let f = tfl.func("main").expect("main");
    let conv = f.live_ops().into_iter().find(|&o| f.ops[o].opcode.name() == "quant.conv").expect("quant.conv");
    prop_assert_eq!(f.ops[conv].attrs.str("rounding"), Some("ruy"));
    let (mut diff, mut total) = (0usize, 0usize);
    for inputs in case.samples(case.seed ^ 3, 2) {
        let a = ir::interp::run(single, "main", inputs.clone()).map_err(|e| fail(e.to_string()))?;
        let b = ir::interp::run(&tfl, "main", inputs).map_err(|e| fail(e.to_string()))?;
        let (Data::F32(a), Data::F32(b)) = (&a[0].data, &b[0].data) else { panic!("f32 outputs") };
        for (x, y) in a.iter().zip(b) {
            prop_assert!(((x - y).abs() / scale).round() <= 1.0, "{x} vs {y} (scale {scale})");
            diff += usize::from(x != y);
            total += 1;
        }
    }
    prop_assert!(diff * 20 <= total, "{diff} of {total} elements differ between the roundings");
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn folded_convs_equal_their_qdq_form_within_one_lsb(c in case()) {
        check(&c)?;
    }
}

/// The exact rules: Transpose, MaxPool, Relu and Pad (edge, and constant
/// with its default 0) between a DequantizeLinear
/// and a QuantizeLinear with the same scale and zero point run on the
/// integers (no QDQ op left), with the same bits as the QDQ form.
#[test]
fn data_movement_between_equal_grids_runs_on_the_integers() {
    let src = r#"module @m attributes {phase = "core"} {
  const @s : f32[] = dense<[0.05]>
  const @z : u8[] = dense<[100]>
  const @p : i64[8] = dense<[0, 0, 1, 0, 0, 0, 0, 1]>
  func @main(%x: u8[1, 2, 5, 6]) -> (u8[1, 2, 4, 5]) {
    %s = core.const {value = @s} : f32[]
    %z = core.const {value = @z} : u8[]
    %p = core.const {value = @p} : i64[8]
    %0 = onnx.DequantizeLinear %x, %s, %z : f32[1, 2, 5, 6]
    %1 = onnx.Transpose %0 {perm = [0, 1, 3, 2]} : f32[1, 2, 6, 5]
    %2 = onnx.QuantizeLinear %1, %s, %z : u8[1, 2, 6, 5]
    %3 = onnx.DequantizeLinear %2, %s, %z : f32[1, 2, 6, 5]
    %4 = onnx.Relu %3 : f32[1, 2, 6, 5]
    %5 = onnx.QuantizeLinear %4, %s, %z : u8[1, 2, 6, 5]
    %6 = onnx.DequantizeLinear %5, %s, %z : f32[1, 2, 6, 5]
    %7 = onnx.MaxPool %6 {kernel_shape = [3, 2], pads = [0, 0, 0, 0]} : f32[1, 2, 4, 4]
    %8 = onnx.QuantizeLinear %7, %s, %z : u8[1, 2, 4, 4]
    %9 = onnx.DequantizeLinear %8, %s, %z : f32[1, 2, 4, 4]
    %10 = onnx.Pad %9, %p {mode = "edge"} : f32[1, 2, 5, 5]
    %11 = onnx.QuantizeLinear %10, %s, %z : u8[1, 2, 5, 5]
    %12 = onnx.DequantizeLinear %11, %s, %z : f32[1, 2, 5, 5]
    %13 = onnx.Pad %12, %p : f32[1, 2, 6, 6]
    %14 = onnx.QuantizeLinear %13, %s, %z : u8[1, 2, 6, 6]
    return %14
  }
}"#;
    let src = src.replace("-> (u8[1, 2, 4, 5])", "-> (u8[1, 2, 6, 6])");
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

/// A QDQ `op` of `a` and `b` (grids from `seed`) of 8-bit type `t`,
/// quantized to the result grid: `%a` has shape `sa`, `%b` `sb`.
fn qdq_binary(op: &str, t: &str, sa: &[usize], sb: &[usize], swap: bool, seed: u64) -> ir::Module {
    let mut s = seed;
    let mut g = |lo: i32| (0.002 + (lcg(&mut s) + 1.0) * 0.05, lo + ((lcg(&mut s) + 1.0) * 100.0) as i32);
    let lo = if t == "u8" { 0 } else { -128 };
    let ((fa, za), (fb, zb), (fy, zy)) = (g(lo), g(lo), g(lo));
    let sh = |d: &[usize]| format!("{d:?}");
    let out = sa;
    let (l, r) = if swap { ("%1", "%0") } else { ("%0", "%1") };
    // `Add+Relu`: the op, then a Relu before the QuantizeLinear.
    let (op, act) = op.split_once('+').map_or((op, None), |(o, a)| (o, Some(a)));
    let (res, act) = match act {
        Some(a) => ("%p", format!("\n    %2 = onnx.{a} %p : f32{}", sh(out))),
        None => ("%2", String::new()),
    };
    let src = format!(
        r#"module @m attributes {{phase = "core"}} {{
  const @sa : f32[] = dense<[{fa:e}]>
  const @za : {t}[] = dense<[{za}]>
  const @sb : f32[] = dense<[{fb:e}]>
  const @zb : {t}[] = dense<[{zb}]>
  const @sy : f32[] = dense<[{fy:e}]>
  const @zy : {t}[] = dense<[{zy}]>
  func @main(%a: {t}{a}, %b: {t}{b}) -> ({t}{o}) {{
    %sa = core.const {{value = @sa}} : f32[]
    %za = core.const {{value = @za}} : {t}[]
    %sb = core.const {{value = @sb}} : f32[]
    %zb = core.const {{value = @zb}} : {t}[]
    %sy = core.const {{value = @sy}} : f32[]
    %zy = core.const {{value = @zy}} : {t}[]
    %0 = onnx.DequantizeLinear %a, %sa, %za : f32{a}
    %1 = onnx.DequantizeLinear %b, %sb, %zb : f32{b}
    {res} = onnx.{op} {l}, {r} : f32{o}{act}
    %3 = onnx.QuantizeLinear %2, %sy, %zy : {t}{o}
    return %3
  }}
}}"#,
        a = sh(sa),
        b = sh(sb),
        o = sh(out)
    );
    ir::text::parse_module(&src, "binary.eir", None).expect("parses").module
}

/// Random 8-bit values of type `t` for `shape`.
fn q8_tensor(t: &str, shape: &[usize], s: &mut u64) -> Tensor {
    let v: Vec<u8> = (0..shape.iter().product::<usize>()).map(|_| ((lcg(s) + 1.0) * 128.0) as u8).collect();
    let data = if t == "u8" { Data::U8(v) } else { Data::I8(v.into_iter().map(|x| x as i8).collect()) };
    Tensor { shape: shape.to_vec(), data }
}

/// `Q(Add(DQ(a), DQ(b)))`, `Q(Sub(..))` and `Q(Mul(..))` become `quant.add`,
/// `quant.sub` / `quant.mul` (grids differ on all three sides; B of A's
/// shape or broadcast along its leading and trailing dims, written first or
/// second; u8 and i8) and compute the same bits: the folds are exact. So
/// does `Q(Relu(Add(..)))`, `quant.add` clamped at the result's zero point.
#[test]
fn adds_and_muls_fuse_exactly_with_trailing_broadcasts() {
    let a = [2usize, 16, 16];
    let mut seed = 7u64;
    for op in ["Add", "Sub", "Mul", "Add+Relu"] {
        for t in ["u8", "i8"] {
            for b in [&[2usize, 16, 16][..], &[2, 16, 1], &[2, 1, 1], &[16, 16], &[16, 1], &[1], &[]] {
                // A sub keeps its operand order: only B may broadcast.
                for swap in [false, true].into_iter().filter(|&s| !(s && op == "Sub" && b != a)) {
                    seed += 1;
                    let m = qdq_binary(op, t, &a, b, swap, seed);
                    let (popts, _) = compiler::optimize::pipeline_options("cpu", &[]).expect("cpu");
                    let what = format!("{op} {t} {b:?} swap {swap}");
                    let (folded, report) = fold_integer(&m, &popts).unwrap_or_else(|e| panic!("{what}: {e}"));
                    assert_eq!(report.integer_ops, 1, "{what}: {:?}", report.declined);
                    let mut s = seed;
                    let input = vec![q8_tensor(t, &a, &mut s), q8_tensor(t, b, &mut s)];
                    let x = ir::interp::run(&m, "main", input.clone()).expect("runs");
                    let y = ir::interp::run(&folded, "main", input).expect("runs");
                    assert_eq!(x[0].data, y[0].data, "{what}");
                }
            }
        }
    }
}

/// A broadcast inside A's dims (`[2, 1, 16]` against `[2, 16, 16]`) stays
/// QDQ, declined with the reason.
#[test]
fn other_broadcasts_keep_their_qdq_form() {
    let m = qdq_binary("Mul", "u8", &[2, 16, 16], &[2, 1, 16], false, 3);
    let (popts, _) = compiler::optimize::pipeline_options("cpu", &[]).expect("cpu");
    let (_, report) = fold_integer(&m, &popts).expect("folds");
    assert_eq!(report.integer_ops, 0);
    assert!(format!("{:?}", report.declined).contains("trailing dims"), "{:?}", report.declined);
}

/// `Q(op(DQ(x)))` with per-tensor grids: `x` of type `types.0` and shape
/// `shapes.0`, the result of `types.1` and `shapes.1`; `attrs` is the op's
/// attribute text (` {alpha = 0.1}` or empty).
fn qdq_unary(
    op: &str,
    attrs: &str,
    (tx, ty): (&str, &str),
    (si, so): (&[usize], &[usize]),
    (sx, zx): (f32, i32),
    (sy, zy): (f32, i32),
) -> ir::Module {
    let src = format!(
        r#"module @m attributes {{phase = "core"}} {{
  const @sx : f32[] = dense<[{sx:e}]>
  const @zx : {tx}[] = dense<[{zx}]>
  const @sy : f32[] = dense<[{sy:e}]>
  const @zy : {ty}[] = dense<[{zy}]>
  func @main(%x: {tx}{si:?}) -> ({ty}{so:?}) {{
    %sx = core.const {{value = @sx}} : f32[]
    %zx = core.const {{value = @zx}} : {tx}[]
    %sy = core.const {{value = @sy}} : f32[]
    %zy = core.const {{value = @zy}} : {ty}[]
    %0 = onnx.DequantizeLinear %x, %sx, %zx : f32{si:?}
    %1 = {op} %0{attrs} : f32{so:?}
    %2 = onnx.QuantizeLinear %1, %sy, %zy : {ty}{so:?}
    return %2
  }}
}}"#
    );
    ir::text::parse_module(&src, "unary.eir", None).expect("parses").module
}

/// `Q(GlobalAveragePool(DQ(x)))` becomes `quant.global_avg_pool`: within 1
/// LSB of the QDQ form everywhere, exact on most planes.
#[test]
fn global_average_pools_fold_within_one_lsb() {
    let (mut diff, mut total) = (0, 0);
    for (k, (shape, t)) in
        [([1usize, 32, 7, 7], "u8"), ([2, 16, 13, 9], "i8"), ([1, 64, 24, 96], "u8"), ([3, 8, 1, 1], "i8")]
            .into_iter()
            .enumerate()
    {
        let mut s = 11 + k as u64;
        let (sx, sy) = (0.01 + (lcg(&mut s) + 1.0) * 0.05, 0.001 + (lcg(&mut s) + 1.0) * 0.02);
        let (zx, zy) = if t == "u8" { (113, 77) } else { (-9, 4) };
        let o = [shape[0], shape[1], 1, 1];
        let m = qdq_unary("onnx.GlobalAveragePool", "", (t, t), (&shape, &o), (sx, zx), (sy, zy));
        let (popts, _) = compiler::optimize::pipeline_options("cpu", &[]).expect("cpu");
        let (folded, report) = fold_integer(&m, &popts).expect("folds");
        assert_eq!(report.integer_ops, 1, "{shape:?}: {:?}", report.declined);
        for _ in 0..4 {
            let input = vec![q8_tensor(t, &shape, &mut s)];
            let x = ir::interp::run(&m, "main", input.clone()).expect("runs");
            let y = ir::interp::run(&folded, "main", input).expect("runs");
            let ints = |d: &Data| match d {
                Data::U8(v) => v.iter().map(|&x| x as i32).collect::<Vec<_>>(),
                Data::I8(v) => v.iter().map(|&x| x as i32).collect(),
                _ => panic!("8-bit output"),
            };
            for (p, q) in ints(&x[0].data).into_iter().zip(ints(&y[0].data)) {
                assert!((p - q).abs() <= 1, "{shape:?} {t}: {p} vs {q}");
                diff += usize::from(p != q);
                total += 1;
            }
        }
    }
    assert!(diff * 20 <= total, "{diff} of {total} pooled values differ by 1 LSB");
}

/// `Q(f(DQ(x)))` for each elementwise unary `f` the quant rules table becomes
/// `quant.lut`, between two different grids (u8 → u8, i8 → i8, u8 → i8), and
/// gives the QDQ form's bits on every one of the 256 input values.
#[test]
fn unary_ops_between_grids_become_exact_tables() {
    let ops = [
        ("onnx.Relu", ""),
        ("onnx.Sigmoid", ""),
        ("onnx.Tanh", ""),
        ("onnx.HardSigmoid", " {alpha = 0.2, beta = 0.5}"),
        ("onnx.HardSwish", ""),
        ("onnx.LeakyRelu", " {alpha = 0.05}"),
        ("onnx.Elu", ""),
        ("onnx.Softplus", ""),
        ("onnx.Abs", ""),
        ("onnx.Neg", ""),
        ("core.silu", ""),
    ];
    for (k, (op, attrs)) in ops.iter().enumerate() {
        for (tx, ty) in [("u8", "u8"), ("i8", "i8"), ("u8", "i8")] {
            let zx = if tx == "u8" { 100 + k as i32 } else { -20 + k as i32 };
            let zy = if ty == "u8" { 7 * k as i32 } else { 3 - k as i32 };
            let (sx, sy) = (0.031 + 0.002 * k as f32, 0.017 + 0.001 * k as f32);
            let m = qdq_unary(op, attrs, (tx, ty), (&[16, 16], &[16, 16]), (sx, zx), (sy, zy));
            let (popts, _) = compiler::optimize::pipeline_options("cpu", &[]).expect("cpu");
            let (folded, report) = fold_integer(&m, &popts).expect("folds");
            let what = format!("{op} {tx} -> {ty}");
            assert_eq!(report.integer_ops, 1, "{what}: {:?}", report.declined);
            let bytes: Vec<u8> = (0..=255u8).collect();
            let data =
                if tx == "u8" { Data::U8(bytes) } else { Data::I8(bytes.into_iter().map(|v| v as i8).collect()) };
            let input = vec![Tensor { shape: vec![16, 16], data }];
            let a = ir::interp::run(&m, "main", input.clone()).expect("runs");
            let b = ir::interp::run(&folded, "main", input).expect("runs");
            assert_eq!(a[0].data, b[0].data, "{what}");
        }
    }
}

/// `Q(PRelu(DQ(x), DQ(k)))` with a quantized per-channel slope `k` of shape
/// `[C, 1, 1]` (values `slopes` on the grid 0.01) on an i8 `x` of shape
/// `[1, C, 4, 64]`.
fn qdq_prelu(slopes: &[i8]) -> ir::Module {
    let c = slopes.len();
    let k: Vec<String> = slopes.iter().map(|v| v.to_string()).collect();
    let src = format!(
        r#"module @m attributes {{phase = "core"}} {{
  const @sx : f32[] = dense<[0.043]>
  const @zx : i8[] = dense<[-7]>
  const @k : i8[{c}, 1, 1] = dense<[{}]>
  const @sk : f32[] = dense<[0.01]>
  const @zk : i8[] = dense<[0]>
  const @sy : f32[] = dense<[0.029]>
  const @zy : i8[] = dense<[11]>
  func @main(%x: i8[1, {c}, 4, 64]) -> (i8[1, {c}, 4, 64]) {{
    %sx = core.const {{value = @sx}} : f32[]
    %zx = core.const {{value = @zx}} : i8[]
    %k = core.const {{value = @k}} : i8[{c}, 1, 1]
    %sk = core.const {{value = @sk}} : f32[]
    %zk = core.const {{value = @zk}} : i8[]
    %sy = core.const {{value = @sy}} : f32[]
    %zy = core.const {{value = @zy}} : i8[]
    %0 = onnx.DequantizeLinear %x, %sx, %zx : f32[1, {c}, 4, 64]
    %1 = onnx.DequantizeLinear %k, %sk, %zk : f32[{c}, 1, 1]
    %2 = onnx.PRelu %0, %1 : f32[1, {c}, 4, 64]
    %3 = onnx.QuantizeLinear %2, %sy, %zy : i8[1, {c}, 4, 64]
    return %3
  }}
}}"#,
        k.join(", ")
    );
    ir::text::parse_module(&src, "prelu.eir", None).expect("parses").module
}

/// Every i8 value in each of the `c` channels of a `[1, c, 4, 64]` input.
fn every_value(c: usize) -> Vec<Tensor> {
    let x: Vec<i8> = (0..c * 256).map(|i| (i % 256) as u8 as i8).collect();
    vec![Tensor { shape: vec![1, c, 4, 64], data: Data::I8(x) }]
}

/// `Q(PRelu(DQ(x), DQ(k)))` with one slope per channel becomes `quant.lut`
/// with a row per channel, giving the QDQ form's bits on every value of
/// every channel.
#[test]
fn prelu_becomes_exact_per_channel_tables() {
    let m = qdq_prelu(&[25, -30, 100, 0, 73]);
    let (popts, _) = compiler::optimize::pipeline_options("cpu", &[]).expect("cpu");
    let (folded, report) = fold_integer(&m, &popts).expect("folds");
    assert_eq!(report.integer_ops, 1, "{:?}", report.declined);
    let a = ir::interp::run(&m, "main", every_value(5)).expect("runs");
    let b = ir::interp::run(&folded, "main", every_value(5)).expect("runs");
    assert_eq!(a[0].data, b[0].data);
}

/// On a target computing TFLite's arithmetic, LeakyRelu and PRelu (slopes
/// outside [0, 1]) fold into tables of LiteRT's integer kernels
/// (`edgec_numeric::fixed`), recorded as approximations; a PRelu whose
/// slopes all lie in [0, 1], which the TFLite writer writes as
/// `max(x, a·x)`, keeps its QDQ form.
#[test]
fn tflite_arithmetic_tables_are_litert_kernels() {
    use edgec_numeric::fixed::{leaky_relu_gemmlowp, prelu_gemmlowp};
    let (popts, _) = compiler::optimize::pipeline_options("ethos-u55-256", &[]).expect("ethos");
    let ints = |d: &Data| match d {
        Data::I8(v) => v.iter().map(|&x| x as i32).collect::<Vec<_>>(),
        _ => panic!("i8 output"),
    };
    let slopes = [25i8, -30, 100, 0, -73];
    let (folded, report) = fold_integer(&qdq_prelu(&slopes), &popts).expect("folds");
    assert_eq!(report.integer_ops, 1, "{:?}", report.declined);
    let noted = format!("{:?}", folded.attrs.get(passes::approx::APPROXIMATIONS));
    assert!(noted.contains("quant-lut-prelu-tflite"), "{noted}");
    let y = ints(&ir::interp::run(&folded, "main", every_value(5)).expect("runs")[0].data);
    for (i, &got) in y.iter().enumerate() {
        let (c, v) = (i / 256, (i % 256) as u8 as i8 as i32);
        assert_eq!(Some(got), prelu_gemmlowp(v, -7, 0.043, slopes[c] as i32, 0, 0.01, 0.029, 11, -128, 127), "{c} {v}");
    }
    let (_, report) = fold_integer(&qdq_prelu(&[25, 0, 100]), &popts).expect("folds");
    assert_eq!(report.integer_ops, 0);
    assert!(format!("{:?}", report.declined).contains("max(x, a·x)"), "{:?}", report.declined);
    let (sx, zx, sy, zy) = (0.037f32, 12, 0.021f32, -5);
    let m = qdq_unary("onnx.LeakyRelu", " {alpha = 0.2}", ("i8", "i8"), (&[16, 16], &[16, 16]), (sx, zx), (sy, zy));
    let (folded, report) = fold_integer(&m, &popts).expect("folds");
    assert_eq!(report.integer_ops, 1, "{:?}", report.declined);
    let x: Vec<i8> = (0..=255u8).map(|v| v as i8).collect();
    let input = vec![Tensor { shape: vec![16, 16], data: Data::I8(x.clone()) }];
    let y = ints(&ir::interp::run(&folded, "main", input).expect("runs")[0].data);
    for (&v, &got) in x.iter().zip(&y) {
        assert_eq!(Some(got), leaky_relu_gemmlowp(v as i32, zx, sx, 0.2, sy, zy, -128, 127), "{v}");
    }
}

/// On a target computing TFLite's arithmetic, a QDQ Mul folds into
/// `quant.mul` with gemmlowp's rounding: every element is LiteRT's MUL of
/// the pair (`edgec_numeric::fixed::mul_gemmlowp`), within 1 LSB of the QDQ
/// form.
#[test]
fn tflite_arithmetic_muls_are_litert_kernels() {
    use edgec_numeric::fixed::{mul_gemmlowp, mul_multiplier};
    let (popts, _) = compiler::optimize::pipeline_options("ethos-u55-256", &[]).expect("ethos");
    for (k, (t, sb)) in [("i8", vec![2usize, 8, 4, 5]), ("u8", vec![2, 8, 1, 1])].into_iter().enumerate() {
        let m = qdq_binary("Mul", t, &[2, 8, 4, 5], &sb, false, 40 + k as u64);
        let (folded, report) = fold_integer(&m, &popts).expect("folds");
        assert_eq!(report.integer_ops, 1, "{:?}", report.declined);
        let f = folded.func("main").expect("main");
        let op = f.live_ops().into_iter().find(|&o| f.ops[o].opcode.name() == "quant.mul").expect("quant.mul");
        let at = &f.ops[op].attrs;
        assert_eq!(at.str("rounding"), Some("gemmlowp"));
        let grid =
            |g: &str| (at.float(&format!("{g}_scale")).unwrap(), at.int(&format!("{g}_zero_point")).unwrap() as i32);
        let ((sa, za), (sbb, zb), (sy, zy)) = (grid("a"), grid("b"), grid("y"));
        let mm = mul_multiplier(sa, sbb, sy).expect("in range");
        let mut s = 7 + k as u64;
        let input = vec![q8_tensor(t, &[2, 8, 4, 5], &mut s), q8_tensor(t, &sb, &mut s)];
        let ints = |d: &Data| match d {
            Data::U8(v) => v.iter().map(|&x| x as i32).collect::<Vec<_>>(),
            Data::I8(v) => v.iter().map(|&x| x as i32).collect(),
            _ => panic!("8-bit"),
        };
        let (a, b) = (ints(&input[0].data), ints(&input[1].data));
        let (lo, hi) = if t == "u8" { (0, 255) } else { (-128, 127) };
        let qdq = ints(&ir::interp::run(&m, "main", input.clone()).expect("runs")[0].data);
        let y = ints(&ir::interp::run(&folded, "main", input).expect("runs")[0].data);
        for (i, (&got, &want)) in y.iter().zip(&qdq).enumerate() {
            let bi = if b.len() == a.len() { i } else { (i / 20) % b.len() };
            assert_eq!(got, mul_gemmlowp(a[i], za, b[bi], zb, mm, zy, lo, hi), "{t} element {i}");
            assert!((got - want).abs() <= 1, "{t} element {i}: {got} vs QDQ {want}");
        }
        // edgec's kernels round once: the Rust backend names the op it cannot take.
        let opts = codegen::rust::EmitOptions { name: "m".into(), source: "m".into(), pack_for: None };
        let mut target = folded.clone();
        codegen::rust::prepare(&mut target, passes::PassOptions::default(), &mut std::io::sink()).expect("prepares");
        let err = codegen::rust::emit(&target, &opts).expect_err("LiteRT's rounding has no Rust kernel").to_string();
        assert!(err.contains("quant.mul") && err.contains("rounding = gemmlowp"), "{err}");
    }
}
