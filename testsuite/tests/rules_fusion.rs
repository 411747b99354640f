//! Differential property tests of the `fusion` rules: random small graphs with
//! a Conv / ConvTranspose / MatMul / Gemm followed by a bias Add/Sub, a
//! per-channel Mul/Div, an inference BatchNormalization and/or an activation
//! (every epilogue form, including the SiLU and HardSwish decompositions), plus
//! the standalone SiLU/HardSwish forms, are optimized with
//! `shape-infer,fuse,dce`. The expected rules must fire, the op count must
//! drop, and the interpreter outputs must agree.
//!
//! Tolerance: rtol 1e-4, atol 1e-5. Inputs and weights are small binary grid
//! values, so products and bias/scale folds are exact in f32; BN folding
//! rounds `W * s / sqrt(var + eps)` once per weight (relative 6e-8) and the
//! HardSwish forms differ from onnx.HardSwish by a few ulp (alpha = 0.16666667
//! vs 1/6), both far inside the tolerance. Negative cases check the guards:
//! multi-use values, non-constant or non-per-channel addends, an activation
//! already fused, non-1/6 HardSigmoid, non-constant BN parameters.

#[path = "rules_fusion/gen.rs"]
mod gen;

use compiler::check::Tolerance;
use gen::{base, lit, Base, Kind, Rng, B};
use ir::interp::Tensor;
use proptest::prelude::*;
use testsuite::rulecheck::{optimize_and_compare, RuleRun};

const PIPELINE: &str = "shape-infer,fuse,dce";
const TOL: Tolerance = Tolerance { rtol: 1e-4, atol: 1e-5 };
const KINDS: [Kind; 4] = [Kind::Conv, Kind::ConvTranspose, Kind::MatMul, Kind::Gemm];

fn check(src: &str, inputs: &[Tensor]) -> Result<RuleRun, String> {
    let m = ir::text::parse_module(src, "case", None).map_err(|e| format!("{e}\n{src}"))?.module;
    optimize_and_compare(&m, PIPELINE, None, inputs, TOL).map_err(|e| format!("{e}\n{src}"))
}

/// `Add`/`Sub` of a per-channel constant (either operand order for Add).
fn bias(b: &mut B, f: &Base) -> (String, &'static str) {
    let cs = f.channel_shape(b.rng);
    let c = b.rand_const(&cs, -2.0, 2.0);
    let (rhs, rule) = match b.rng.below(3) {
        0 => (format!("onnx.Add %{}, %{c}", f.val), "bias-add"),
        1 => (format!("onnx.Add %{c}, %{}", f.val), "bias-add-rev"),
        _ => (format!("onnx.Sub %{}, %{c}", f.val), "bias-sub"),
    };
    (b.op(&rhs, &f.shape), rule)
}

/// `Mul` (either order) or `Div` by a per-channel constant without zeros.
fn scale(b: &mut B, f: &Base) -> (String, &'static str) {
    let cs = f.channel_shape(b.rng);
    let n: usize = cs.iter().product();
    let v: Vec<f32> = (0..n).map(|_| b.rng.pick(&[-2.0, -0.5, 0.25, 0.5, 1.5, 2.0, 4.0])).collect();
    let k = b.konst(&cs, &v);
    let (rhs, rule) = match b.rng.below(3) {
        0 => (format!("onnx.Mul %{}, %{k}", f.val), "scale-mul"),
        1 => (format!("onnx.Mul %{k}, %{}", f.val), "scale-mul-rev"),
        _ => (format!("onnx.Div %{}, %{k}", f.val), "scale-div"),
    };
    (b.op(&rhs, &f.shape), rule)
}

/// Inference BatchNormalization over the channel axis (axis 1).
fn batchnorm(b: &mut B, f: &Base, mean_param: bool) -> (String, &'static str) {
    let c = f.channels();
    let s = b.rand_const(&[c], 0.5, 2.0);
    let bb = b.rand_const(&[c], -1.0, 1.0);
    let mean = if mean_param { b.param(&[c]) } else { b.rand_const(&[c], -1.0, 1.0) };
    let var = b.rand_const(&[c], 0.25, 2.0);
    let eps = match b.rng.below(3) {
        0 => String::new(),
        1 => " {epsilon = 0.001, momentum = 0.99}".into(),
        _ => " {epsilon = 0.1}".into(),
    };
    (b.op(&format!("onnx.BatchNormalization %{}, %{s}, %{bb}, %{mean}, %{var}{eps}", f.val), &f.shape), "bn-fold")
}

const ACTS: usize = 18;

/// Activation `which` applied to `f` (a name of shape `shape`); returns the
/// result and the fusion rule that turns it into an epilogue.
fn activation(b: &mut B, f: &str, shape: &[usize], which: usize) -> (String, &'static str) {
    let one = |b: &mut B, rhs: String, rule| (b.op(&rhs, shape), rule);
    match which {
        0 => one(b, format!("onnx.Relu %{f}"), "act-relu"),
        1 => clip(b, f, shape),
        2 => one(b, format!("onnx.Sigmoid %{f}"), "act-sigmoid"),
        3 => {
            let (a, be) = (b.rng.grid(0.125, 1.0, 0.125), b.rng.grid(-0.5, 1.0, 0.125));
            one(b, format!("onnx.HardSigmoid %{f} {{alpha = {}, beta = {}}}", lit(a), lit(be)), "act-hard-sigmoid")
        }
        4 => one(b, format!("onnx.HardSwish %{f}"), "act-hard-swish"),
        5 => {
            let alpha = b.rng.grid(0.0, 0.5, 0.0625);
            let attr = if b.rng.coin() { format!(" {{alpha = {}}}", lit(alpha)) } else { String::new() };
            one(b, format!("onnx.LeakyRelu %{f}{attr}"), "act-leaky-relu")
        }
        6 => one(b, format!("onnx.Tanh %{f}"), "act-tanh"),
        7 => {
            let attr = b.rng.pick(&["", " {approximate = \"none\"}"]);
            one(b, format!("onnx.Gelu %{f}{attr}"), "act-gelu")
        }
        8 => one(b, format!("onnx.Gelu %{f} {{approximate = \"tanh\"}}"), "act-gelu"),
        9 => one(b, format!("core.silu %{f}"), "act-silu"),
        10 | 11 => {
            let s = b.op(&format!("onnx.Sigmoid %{f}"), shape);
            let (rhs, rule) = if which == 10 {
                (format!("onnx.Mul %{f}, %{s}"), "act-silu-mul")
            } else {
                (format!("onnx.Mul %{s}, %{f}"), "act-silu-mul-rev")
            };
            one(b, rhs, rule)
        }
        12 | 13 => {
            let alpha = b.rng.pick(&["0.16666667", "0.1666667", "0.16666666"]);
            let h = b.op(&format!("onnx.HardSigmoid %{f} {{alpha = {alpha}, beta = 0.5}}"), shape);
            let (rhs, rule) = if which == 12 {
                (format!("onnx.Mul %{f}, %{h}"), "act-hswish-hsig")
            } else {
                (format!("onnx.Mul %{h}, %{f}"), "act-hswish-hsig-rev")
            };
            one(b, rhs, rule)
        }
        _ => hswish_clip(b, f, shape, which - 14, true),
    }
}

/// Clip with constant bounds, either of which may be omitted (Relu6 included).
fn clip(b: &mut B, f: &str, shape: &[usize]) -> (String, &'static str) {
    let lo_v = b.rng.pick(&[0.0, -1.0, -0.5]);
    let hi_v = b.rng.pick(&[6.0, 1.0, 0.5]);
    let lo = b.konst(&[], &[lo_v]);
    let hi = b.konst(&[], &[hi_v]);
    let rhs = match b.rng.below(4) {
        0 => format!("onnx.Clip %{f}, none, %{hi}"),
        1 => format!("onnx.Clip %{f}, %{lo}"),
        2 => format!("onnx.Clip %{f}"),
        _ => format!("onnx.Clip %{f}, %{lo}, %{hi}"),
    };
    (b.op(&rhs, shape), "act-clip")
}

/// The four `x * Clip(x + 3, 0, 6) / 6` forms (`variant` 0..4); `fused` names
/// the epilogue rule (after a conv/linear) instead of the standalone one.
fn hswish_clip(b: &mut B, f: &str, shape: &[usize], variant: usize, fused: bool) -> (String, &'static str) {
    let three = b.konst(&[], &[3.0]);
    let zero = b.konst(&[], &[0.0]);
    let six = b.konst(&[], &[6.0]);
    let a = b.op(&format!("onnx.Add %{f}, %{three}"), shape);
    let c = b.op(&format!("onnx.Clip %{a}, %{zero}, %{six}"), shape);
    let m = if variant.is_multiple_of(2) { format!("onnx.Mul %{f}, %{c}") } else { format!("onnx.Mul %{c}, %{f}") };
    let m = b.op(&m, shape);
    let y = if variant < 2 {
        let six1 = b.konst(&[1], &[6.0]);
        b.op(&format!("onnx.Div %{m}, %{six1}"), shape)
    } else {
        let k = b.konst(&[], &[1.0 / 6.0]);
        b.op(&format!("onnx.Mul %{m}, %{k}"), shape)
    };
    let rules = if fused {
        ["act-hswish-div", "act-hswish-div-rev", "act-hswish-mul", "act-hswish-mul-rev"]
    } else {
        ["hswish-div", "hswish-div-rev", "hswish-mul", "hswish-mul-rev"]
    };
    (y, rules[variant])
}

/// A positive case: which pattern group, the base kind, and the rules that must fire.
fn positive(group: usize, kind: Kind, r: &mut Rng) -> (String, Vec<Tensor>, Vec<&'static str>) {
    let mut b = B::new(r);
    let mut rules = vec![];
    if group == 5 {
        // Standalone SiLU / HardSwish forms on a parameter.
        let s = vec![1 + b.rng.below(3), 1 + b.rng.below(4)];
        let x = b.param(&s);
        let (y, rule) = match b.rng.below(8) {
            0 => {
                let sg = b.op(&format!("onnx.Sigmoid %{x}"), &s);
                (b.op(&format!("onnx.Mul %{x}, %{sg}"), &s), "silu-mul")
            }
            1 => {
                let sg = b.op(&format!("onnx.Sigmoid %{x}"), &s);
                (b.op(&format!("onnx.Mul %{sg}, %{x}"), &s), "silu-mul-rev")
            }
            2 => {
                let h = b.op(&format!("onnx.HardSigmoid %{x} {{alpha = 0.16666667, beta = 0.5}}"), &s);
                (b.op(&format!("onnx.Mul %{x}, %{h}"), &s), "hswish-hsig")
            }
            3 => {
                let h = b.op(&format!("onnx.HardSigmoid %{x} {{alpha = 0.1666667}}"), &s);
                (b.op(&format!("onnx.Mul %{h}, %{x}"), &s), "hswish-hsig-rev")
            }
            v => hswish_clip(&mut b, &x, &s, v - 4, false),
        };
        b.ret(&y, &s);
        let (src, inputs) = b.build();
        return (src, inputs, vec![rule]);
    }
    let bn_ok = matches!(kind, Kind::Conv | Kind::ConvTranspose) || (kind == Kind::Gemm);
    let f = base(&mut b, kind, false);
    rules.push(f.canon);
    let (mut y, act_input) = match group {
        0 => (f.val.clone(), true),
        1 => {
            let (y, rule) = bias(&mut b, &f);
            rules.push(rule);
            (y, b.rng.coin())
        }
        2 => {
            let (y, rule) = scale(&mut b, &f);
            rules.push(rule);
            (y, b.rng.coin())
        }
        3 if bn_ok => {
            let (y, rule) = batchnorm(&mut b, &f, false);
            rules.push(rule);
            (y, b.rng.coin())
        }
        _ => (f.val.clone(), true),
    };
    if act_input {
        let which = b.rng.below(ACTS);
        let (z, rule) = activation(&mut b, &y, &f.shape, which);
        rules.push(rule);
        y = z;
    }
    b.ret(&y, &f.shape);
    let (src, inputs) = b.build();
    (src, inputs, rules)
}

/// A negative case: the module, its inputs and the rules that must NOT fire.
fn negative(which: usize, kind: Kind, r: &mut Rng) -> (String, Vec<Tensor>, Vec<&'static str>) {
    let mut b = B::new(r);
    let f = base(&mut b, kind, true);
    let mut shape = f.shape.clone();
    let (y, rules) = match which {
        0 => {
            // The fused value is also a result: nothing may fuse into it.
            b.ret(&f.val, &shape);
            let (y, rule) = any_epilogue(&mut b, &f);
            (y, vec![rule])
        }
        1 | 2 => {
            // A non-constant addend, or a constant varying along a non-channel axis (dims ≥ 2 there).
            let c = if which == 1 {
                let cs = f.channel_shape(b.rng);
                b.param(&cs)
            } else {
                let cs: Vec<usize> = shape.iter().enumerate().map(|(i, &d)| if i == f.axis { 1 } else { d }).collect();
                b.rand_const(&cs, -1.0, 1.0)
            };
            (b.op(&format!("onnx.Add %{}, %{c}", f.val), &shape), vec!["bias-add", "bias-add-rev"])
        }
        3 => {
            // An activation is already fused: a second one, a bias or a scale must not fuse.
            let (a, _) = activation(&mut b, &f.val.clone(), &shape, 0);
            let (y, rule) = any_epilogue(&mut b, &Base { val: a, shape: shape.clone(), axis: f.axis, canon: "" });
            (y, vec![rule])
        }
        4 => {
            // HardSigmoid with alpha far from 1/6 is not a HardSwish.
            let h = b.op(&format!("onnx.HardSigmoid %{} {{alpha = 0.2, beta = 0.5}}", f.val), &shape);
            (b.op(&format!("onnx.Mul %{h}, %{}", f.val), &shape), vec!["act-hswish-hsig-rev", "hswish-hsig-rev"])
        }
        _ => {
            // BN with a non-constant mean (on a base whose channel axis is 1).
            let f = if f.axis == 1 { f } else { base(&mut b, Kind::Conv, true) };
            shape.clone_from(&f.shape);
            (batchnorm(&mut b, &f, true).0, vec!["bn-fold"])
        }
    };
    b.ret(&y, &shape);
    let (src, inputs) = b.build();
    (src, inputs, rules)
}

/// A bias, a scale or an activation (other than Relu) applied to `f`.
fn any_epilogue(b: &mut B, f: &Base) -> (String, &'static str) {
    match b.rng.below(3) {
        0 => bias(b, f),
        1 => scale(b, f),
        _ => {
            let which = 1 + b.rng.below(ACTS - 1);
            activation(b, &f.val, &f.shape, which)
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 320, ..ProptestConfig::default() })]

    #[test]
    fn fusion_rules_fire_and_agree(group in 0usize..6, kind in 0usize..4, seed in any::<u64>()) {
        let mut r = Rng(seed);
        let (src, inputs, rules) = positive(group, KINDS[kind], &mut r);
        let run = check(&src, &inputs).map_err(TestCaseError::fail)?;
        for rule in &rules {
            prop_assert!(run.count(rule) > 0, "rule {rule} did not fire on\n{src}\nfired: {:?}", run.fired);
        }
        prop_assert!(run.ops.1 < run.ops.0, "op count did not drop ({:?}) on\n{src}", run.ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn fusion_guards_block(which in 0usize..6, kind in 0usize..4, seed in any::<u64>()) {
        let mut r = Rng(seed);
        let (src, inputs, rules) = negative(which, KINDS[kind], &mut r);
        let run = check(&src, &inputs).map_err(TestCaseError::fail)?;
        for rule in rules {
            prop_assert_eq!(run.count(rule), 0, "rule {} fired on\n{}\nfired: {:?}", rule, src, run.fired);
        }
    }
}

/// Over a fixed set of seeds, every rule of `fusion.rules` fires at least once
/// (so no rule is left without differential coverage).
#[test]
fn every_fusion_rule_is_exercised() {
    let rules = passes::rules::RuleSet::builtin().expect("built-in rules load").only_topics(&["fusion"]);
    let mut fired = std::collections::BTreeSet::new();
    for seed in 0..24u64 {
        for group in 0..6 {
            for (k, &kind) in KINDS.iter().enumerate() {
                let mut r = Rng(seed * 1000 + group as u64 * 10 + k as u64);
                let (src, inputs, _) = positive(group, kind, &mut r);
                let run = check(&src, &inputs).unwrap_or_else(|e| panic!("{e}"));
                fired.extend(run.fired.keys().cloned());
            }
        }
    }
    for seed in 0..4u64 {
        fired.extend(check_bn_behind_squeeze(seed).fired.keys().cloned());
    }
    // bn-fold-static needs static, non-literal weights: tests/rules_fusion_static.rs covers it.
    let missing: Vec<&str> =
        rules.rules.iter().map(|r| r.name.as_str()).filter(|n| !fired.contains(*n) && *n != "bn-fold-static").collect();
    assert!(missing.is_empty(), "fusion rules never fired: {missing:?}");
}

/// Conv → Squeeze of its unit H → BatchNormalization (PP-OCR recognizers'
/// head): the BN sinks through the squeeze (bn-sink-squeeze) and folds
/// into the conv (bn-fold), and the result equals the unfused graph.
fn check_bn_behind_squeeze(seed: u64) -> RuleRun {
    let mut r = Rng(seed + 77);
    let mut vals = |n: usize, lo: f32, hi: f32| -> String {
        (0..n).map(|_| lit(r.grid(lo, hi, 0.03125))).collect::<Vec<_>>().join(", ")
    };
    let (w, bs, bb, mean, var) =
        (vals(4 * 3 * 3, -1.0, 1.0), vals(4, 0.5, 2.0), vals(4, -1.0, 1.0), vals(4, -1.0, 1.0), vals(4, 0.25, 2.0));
    let src = format!(
        r#"module @m attributes {{phase = "onnx"}} {{
  const @w : f32[4, 3, 1, 3] = dense<[{w}]>
  const @s : f32[4] = dense<[{bs}]>
  const @b : f32[4] = dense<[{bb}]>
  const @mean : f32[4] = dense<[{mean}]>
  const @var : f32[4] = dense<[{var}]>
  func @main(%x: f32[1, 3, 1, 8]) -> (f32[1, 4, 8]) {{
    %w = core.const {{value = @w}} : f32[4, 3, 1, 3]
    %s = core.const {{value = @s}} : f32[4]
    %b = core.const {{value = @b}} : f32[4]
    %mean = core.const {{value = @mean}} : f32[4]
    %var = core.const {{value = @var}} : f32[4]
    %0 = onnx.Conv %x, %w {{kernel_shape = [1, 3], pads = [0, 1, 0, 1]}} : f32[1, 4, 1, 8]
    %1 = core.squeeze %0 {{axes = [2]}} : f32[1, 4, 8]
    %2 = onnx.BatchNormalization %1, %s, %b, %mean, %var : f32[1, 4, 8]
    return %2
  }}
}}"#
    );
    let x: Vec<f32> = (0..24).map(|i| ((i * 7 + seed as usize) % 13) as f32 * 0.25 - 1.5).collect();
    let input = vec![Tensor { shape: vec![1, 3, 1, 8], data: ir::interp::Data::F32(x) }];
    let run = check(&src, &input).unwrap_or_else(|e| panic!("{e}"));
    for rule in ["bn-sink-squeeze", "bn-fold"] {
        assert_eq!(run.count(rule), 1, "{rule} on\n{src}\nfired: {:?}", run.fired);
    }
    run
}
