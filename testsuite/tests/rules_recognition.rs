//! Differential property tests of the `recognition` rules: random small graphs
//! containing each recognized form (LayerNorm cores and affine epilogues, the
//! GELU erf/tanh forms, decomposed softmax, scaled dot-product attention) with
//! random shapes, axes, epsilons, scales, masks, constant spellings and input
//! values are optimized with `shape-infer,recognize,dce`. The rule must fire,
//! the recognized op must be in the output, the op count must drop, and the
//! outputs must match the original within rtol 1e-3 / atol 1e-4 (recognized
//! ops round once instead of once per step), or exactly for the attention
//! forms whose chain `core.attention` evaluates step for step. Negative cases check that the
//! conditions block non-trailing LayerNorm axes, mismatched softmax axes,
//! attention with a softmax off the last axis and GELU with a wrong constant.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use proptest::prelude::*;
use testsuite::rulecheck::{optimize_and_compare, Rng, RuleRun};

/// Draws only these tests use.
trait Draw {
    fn uniform(&mut self, lo: f32, hi: f32) -> f32;
    fn dims(&mut self, n: usize, hi: usize) -> Vec<usize>;
}

impl Draw for Rng {
    /// Uniform in `[lo, hi]` on a grid of 1/100.
    fn uniform(&mut self, lo: f32, hi: f32) -> f32 {
        let steps = ((hi - lo) * 100.0) as usize;
        lo + self.below(steps + 1) as f32 / 100.0
    }
    fn dims(&mut self, n: usize, hi: usize) -> Vec<usize> {
        (0..n).map(|_| 1 + self.below(hi)).collect()
    }
}

fn ty(shape: &[usize]) -> String {
    testsuite::rulecheck::ty("f32", shape)
}

/// Builds a module `@main` in IR text, with random inputs for its parameters.
struct B<'a> {
    rng: &'a mut Rng,
    consts: Vec<String>,
    params: Vec<String>,
    ops: Vec<String>,
    inputs: Vec<Tensor>,
    n: usize,
}

impl<'a> B<'a> {
    fn new(rng: &'a mut Rng) -> Self {
        B { rng, consts: vec![], params: vec![], ops: vec![], inputs: vec![], n: 0 }
    }
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("v{}", self.n)
    }
    /// An f32 parameter with contents uniform in `[lo, hi]`.
    fn param(&mut self, shape: &[usize], lo: f32, hi: f32) -> String {
        let name = format!("p{}", self.params.len());
        self.params.push(format!("%{name}: {}", ty(shape)));
        let len: usize = shape.iter().product();
        let data = (0..len).map(|_| self.rng.uniform(lo, hi)).collect();
        self.inputs.push(Tensor::new(shape.to_vec(), Data::F32(data)));
        name
    }
    fn konst(&mut self, dt: &str, shape: &[usize], vals: &[String]) -> String {
        let name = self.fresh();
        let t = ty(shape).replacen("f32", dt, 1);
        self.consts.push(format!("  const @{name} : {t} = dense<[{}]>", vals.join(", ")));
        self.ops.push(format!("    %{name} = core.const {{value = @{name}}} : {t}"));
        name
    }
    /// An f32 constant of `shape` with contents uniform in `[lo, hi]`.
    fn rand_const(&mut self, shape: &[usize], lo: f32, hi: f32) -> String {
        let n: usize = shape.iter().product();
        let vals: Vec<String> = (0..n).map(|_| format!("{:?}", self.rng.uniform(lo, hi))).collect();
        self.konst("f32", shape, &vals)
    }
    /// A one-element f32 constant, as a scalar or a `[1]` tensor.
    fn scalar(&mut self, v: f32) -> String {
        let shape: &[usize] = if self.rng.coin() { &[] } else { &[1] };
        self.konst("f32", shape, &[format!("{v:?}")])
    }
    fn ints(&mut self, v: &[i64]) -> String {
        let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        self.konst("i64", &[v.len()], &s)
    }
    /// `%new = <rhs> : f32[shape]`.
    fn op(&mut self, rhs: &str, shape: &[usize]) -> String {
        let name = self.fresh();
        self.ops.push(format!("    %{name} = {rhs} : {}", ty(shape)));
        name
    }
    fn build(self, result: &str, shape: &[usize]) -> (String, Vec<Tensor>) {
        let head = format!("module @m attributes {{phase = \"onnx\"}} {{\n{}\n\n", self.consts.join("\n"));
        let sig = format!("  func @main({}) -> ({}) {{\n", self.params.join(", "), ty(shape));
        let body = format!("{}\n    return %{result}\n  }}\n}}\n", self.ops.join("\n"));
        let src = head + &sig + &body;
        (src, self.inputs)
    }
}

/// Axes `axes` of a rank-`rank` tensor written in random order, each
/// randomly in its negative or positive form.
fn axes_const(b: &mut B, axes: &[usize], rank: usize) -> String {
    let mut v: Vec<i64> = axes.iter().map(|&a| if b.rng.coin() { a as i64 - rank as i64 } else { a as i64 }).collect();
    if v.len() > 1 && b.rng.coin() {
        v.reverse();
    }
    b.ints(&v)
}

/// A shape broadcasting to `s` without changing it, varying only over the
/// dims from `first` on (a suffix of `s` with some dims set to 1).
fn bcast_shape(r: &mut Rng, s: &[usize], first: usize) -> Vec<usize> {
    let l = r.below(s.len() + 1);
    (s.len() - l..s.len()).map(|j| if j < first || r.coin() { 1 } else { s[j] }).collect()
}

/// The LayerNorm core `variant` (0: Div, 1: d*d variance, 2: Reciprocal) of a
/// random input, then the epilogue named by `scale` (0: none, 1: `n * g`,
/// 2: `g * n`) and `bias`. Returns the output and its shape.
fn layer_norm(b: &mut B, variant: usize, scale: usize, bias: bool) -> (String, Vec<usize>) {
    let rank = 1 + b.rng.below(4);
    let s = b.rng.dims(rank, 5);
    let k = 1 + b.rng.below(rank.min(3));
    let red: Vec<usize> = s.iter().enumerate().map(|(i, &d)| if i >= rank - k { 1 } else { d }).collect();
    let axes: Vec<usize> = (rank - k..rank).collect();
    let x = b.param(&s, -5.0, 5.0);
    let a1 = axes_const(b, &axes, rank);
    let a2 = if b.rng.coin() { a1.clone() } else { axes_const(b, &axes, rank) };
    let eps = b.rng.pick(&[1e-5f32, 1e-6, 1e-12, 1e-3, 0.1]);
    let eps = b.scalar(eps);
    let mean = b.op(&format!("onnx.ReduceMean %{x}, %{a1}"), &red);
    let d = b.op(&format!("onnx.Sub %{x}, %{mean}"), &s);
    let p = if variant == 1 {
        b.op(&format!("onnx.Mul %{d}, %{d}"), &s)
    } else {
        let two = b.scalar(2.0);
        b.op(&format!("onnx.Pow %{d}, %{two}"), &s)
    };
    let keep = if b.rng.coin() { " {keepdims = 1}" } else { "" };
    let var = b.op(&format!("onnx.ReduceMean %{p}, %{a2}{keep}"), &red);
    let ve = b.op(&format!("onnx.Add %{var}, %{eps}"), &red);
    let sq = b.op(&format!("onnx.Sqrt %{ve}"), &red);
    let mut y = if variant == 2 {
        let rc = b.op(&format!("onnx.Reciprocal %{sq}"), &red);
        b.op(&format!("onnx.Mul %{d}, %{rc}"), &s)
    } else {
        b.op(&format!("onnx.Div %{d}, %{sq}"), &s)
    };
    if scale > 0 {
        let gs = bcast_shape(b.rng, &s, rank - k);
        let g = b.rand_const(&gs, -2.0, 2.0);
        let rhs = if scale == 1 { format!("onnx.Mul %{y}, %{g}") } else { format!("onnx.Mul %{g}, %{y}") };
        y = b.op(&rhs, &s);
    }
    if bias {
        let bs = bcast_shape(b.rng, &s, rank - k);
        let bb = b.rand_const(&bs, -1.0, 1.0);
        y = b.op(&format!("onnx.Add %{y}, %{bb}"), &s);
    }
    (y, s)
}

const LN_CORES: [&str; 3] = ["layer-norm", "layer-norm-sq-mul", "layer-norm-rsqrt"];

/// A LayerNorm case that must fire `rule` (and the core rule it builds on).
fn ln_case(b: &mut B, rule: &'static str) -> (String, Vec<usize>, Vec<&'static str>) {
    let core = LN_CORES.iter().position(|&c| c == rule).unwrap_or_else(|| b.rng.below(3));
    let (scale, bias) = match rule {
        "layer-norm-scale" => (1, b.rng.coin()),
        "layer-norm-scale-left" => (2, b.rng.coin()),
        "layer-norm-bias" => (b.rng.below(3), true),
        _ => (b.rng.below(3), b.rng.coin()),
    };
    let (y, s) = layer_norm(b, core, scale, bias);
    let mut rules = vec![LN_CORES[core]];
    rules.extend(
        [(scale == 1, "layer-norm-scale"), (scale == 2, "layer-norm-scale-left"), (bias, "layer-norm-bias")]
            .into_iter()
            .filter_map(|(c, r)| c.then_some(r)),
    );
    (y, s, rules)
}

/// The GELU forms, by rule: steps `name = op $operand, ...` over the input
/// `$x` and the constants `$half $one $k2 (sqrt 2) $kr (1/sqrt 2) $bt
/// (sqrt(2/pi)) $kp (0.044715) $three`; the last step is the result.
const GELU_FORMS: &[(&str, &[(&str, &str)])] = &[
    (
        "gelu-erf",
        &[("a", "Div $x, $k2"), ("e", "Erf $a"), ("p", "Add $e, $one"), ("m", "Mul $x, $p"), ("y", "Mul $m, $half")],
    ),
    (
        "gelu-erf-rsqrt2",
        &[("a", "Mul $x, $kr"), ("e", "Erf $a"), ("p", "Add $e, $one"), ("m", "Mul $x, $p"), ("y", "Mul $m, $half")],
    ),
    (
        "gelu-erf-half-first",
        &[("h", "Mul $x, $half"), ("a", "Div $x, $k2"), ("e", "Erf $a"), ("p", "Add $e, $one"), ("y", "Mul $h, $p")],
    ),
    (
        "gelu-erf-half-first-rsqrt2",
        &[("h", "Mul $x, $half"), ("a", "Mul $x, $kr"), ("e", "Erf $a"), ("p", "Add $e, $one"), ("y", "Mul $h, $p")],
    ),
    (
        "gelu-erf-half-left",
        &[("h", "Mul $half, $x"), ("a", "Div $x, $k2"), ("e", "Erf $a"), ("p", "Add $one, $e"), ("y", "Mul $h, $p")],
    ),
    (
        "gelu-tanh",
        &[
            ("sq", "Mul $x, $x"),
            ("cu", "Mul $x, $sq"),
            ("k", "Mul $kp, $cu"),
            ("i", "Add $x, $k"),
            ("b", "Mul $bt, $i"),
            ("t", "Tanh $b"),
            ("p", "Add $one, $t"),
            ("m", "Mul $x, $p"),
            ("y", "Mul $half, $m"),
        ],
    ),
    (
        "gelu-tanh-pow",
        &[
            ("h", "Mul $x, $half"),
            ("cu", "Pow $x, $three"),
            ("k", "Mul $cu, $kp"),
            ("i", "Add $x, $k"),
            ("b", "Mul $i, $bt"),
            ("t", "Tanh $b"),
            ("p", "Add $t, $one"),
            ("y", "Mul $h, $p"),
        ],
    ),
    (
        "gelu-tanh-keras",
        &[
            ("h", "Mul $half, $x"),
            ("cu", "Pow $x, $three"),
            ("k", "Mul $kp, $cu"),
            ("i", "Add $x, $k"),
            ("b", "Mul $bt, $i"),
            ("t", "Tanh $b"),
            ("p", "Add $one, $t"),
            ("y", "Mul $h, $p"),
        ],
    ),
    (
        "gelu-tanh-fast",
        &[
            ("xb", "Mul $x, $bt"),
            ("xk", "Mul $x, $kp"),
            ("xkx", "Mul $xk, $x"),
            ("q", "Add $xkx, $one"),
            ("b", "Mul $xb, $q"),
            ("t", "Tanh $b"),
            ("p", "Add $t, $one"),
            ("h", "Mul $x, $half"),
            ("y", "Mul $h, $p"),
        ],
    ),
];

/// A GELU case of `rule` on a random input; `wrong` spoils the sqrt(2),
/// 1/sqrt(2) and sqrt(2/pi) constants (for the negative test).
fn gelu_case(b: &mut B, rule: &str, wrong: bool) -> (String, Vec<usize>) {
    let rank = 1 + b.rng.below(3);
    let s = b.rng.dims(rank, 4);
    let x = b.param(&s, -6.0, 6.0);
    // Exact constants or the slightly rounded spellings some exporters write (e.g. 1.41421).
    let nudge = b.rng.pick(&[0.0f32, -3.6e-6, 2e-7, 5e-6]);
    let sqrt2 = if wrong { 1.5 } else { std::f32::consts::SQRT_2 + nudge };
    let rsqrt2 = if wrong { 0.6 } else { std::f32::consts::FRAC_1_SQRT_2 + nudge };
    let beta = if wrong { 0.9 } else { (2.0 / std::f32::consts::PI).sqrt() + nudge };
    let kappa = b.rng.pick(&[0.044715f32, 0.044715002]);
    let mut vals: Vec<(String, String)> = vec![("x".into(), x)];
    for (k, v) in
        [("half", 0.5), ("one", 1.0), ("k2", sqrt2), ("kr", rsqrt2), ("bt", beta), ("kp", kappa), ("three", 3.0)]
    {
        let c = b.scalar(v);
        vals.push((k.into(), c));
    }
    let steps = GELU_FORMS.iter().find(|f| f.0 == rule).map_or(&[][..], |f| f.1);
    for (name, template) in steps {
        // Longest names first, so `$x` does not clobber `$xk`.
        vals.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        let rhs =
            vals.iter().fold(format!("onnx.{template}"), |t, (k, v)| t.replace(&format!("${k}"), &format!("%{v}")));
        let v = b.op(&rhs, &s);
        vals.push((name.to_string(), v));
    }
    let y = vals.last().map(|v| v.1.clone()).unwrap_or_default();
    (y, s)
}

/// A decomposed softmax over a random axis; with `mismatch` the ReduceMax
/// takes another axis than the ReduceSum (for the negative test).
fn softmax_case(b: &mut B, with_max: bool, mismatch: bool) -> (String, Vec<usize>) {
    let rank = if mismatch { 2 + b.rng.below(3) } else { 1 + b.rng.below(4) };
    let s = b.rng.dims(rank, 4);
    let axis = b.rng.below(rank);
    let max_axis = mismatch.then(|| (axis + 1 + b.rng.below(rank - 1)) % rank);
    let red = |a: usize| -> Vec<usize> { s.iter().enumerate().map(|(i, &d)| if i == a { 1 } else { d }).collect() };
    let x = b.param(&s, -10.0, 10.0);
    let sa = axes_const(b, &[axis], rank);
    let e = if with_max {
        let ma = max_axis.unwrap_or(axis);
        let mxa = if ma == axis && b.rng.coin() { sa.clone() } else { axes_const(b, &[ma], rank) };
        let keep = if b.rng.coin() { " {keepdims = 1}" } else { "" };
        let mx = b.op(&format!("onnx.ReduceMax %{x}, %{mxa}{keep}"), &red(ma));
        let d = b.op(&format!("onnx.Sub %{x}, %{mx}"), &s);
        b.op(&format!("onnx.Exp %{d}"), &s)
    } else {
        b.op(&format!("onnx.Exp %{x}"), &s)
    };
    let sum = b.op(&format!("onnx.ReduceSum %{e}, %{sa}"), &red(axis));
    (b.op(&format!("onnx.Div %{e}, %{sum}"), &s), s)
}

/// An attention case for `rule`; `axis` overrides the softmax axis (for the
/// negative test). Kt is `Transpose(K)`, a parameter, or (rank 4) the
/// paddle2onnx head split of K followed by the swap, or both composed.
fn attention_case(b: &mut B, rule: &str, axis: Option<i64>) -> (String, Vec<usize>) {
    let rank = 2 + b.rng.below(3);
    let batch = b.rng.dims(rank - 2, 3);
    let [sq, sk, d, dv] = [0; 4].map(|_| 1 + b.rng.below(5));
    let sh = |a: usize, c: usize| -> Vec<usize> { batch.iter().copied().chain([a, c]).collect() };
    let q = b.param(&sh(sq, d), -2.0, 2.0);
    let kt = match b.rng.below(if rank == 4 { 4 } else { 2 }) {
        0 => b.param(&sh(d, sk), -2.0, 2.0),
        1 => {
            let k = b.param(&sh(sk, d), -2.0, 2.0);
            let mut perm: Vec<usize> = (0..rank).collect();
            perm.swap(rank - 2, rank - 1);
            b.op(&format!("onnx.Transpose %{k} {{perm = {perm:?}}}"), &sh(d, sk))
        }
        2 => {
            let k = b.param(&[batch[0], sk, batch[1], d], -2.0, 2.0);
            let kh = b.op(&format!("onnx.Transpose %{k} {{perm = [0, 2, 1, 3]}}"), &sh(sk, d));
            b.op(&format!("onnx.Transpose %{kh} {{perm = [0, 1, 3, 2]}}"), &sh(d, sk))
        }
        _ => {
            // The head split and the swap composed into one Transpose.
            let k = b.param(&[batch[0], sk, batch[1], d], -2.0, 2.0);
            b.op(&format!("onnx.Transpose %{k} {{perm = [0, 2, 3, 1]}}"), &sh(d, sk))
        }
    };
    let v = b.param(&sh(sk, dv), -2.0, 2.0);
    let sc_shape = sh(sq, sk);
    let scale = b.rng.uniform(0.05, 1.0);
    let (mut qq, mut kk) = (q.clone(), kt.clone());
    if rule.contains("qscale") || rule.contains("paddle") || rule.contains("sdpa") {
        let s = b.scalar(if rule.contains("sdpa") { scale.sqrt() } else { scale });
        qq = b.op(&format!("onnx.Mul %{q}, %{s}"), &sh(sq, d));
        if rule.contains("paddle") {
            let z = b.scalar(0.0);
            qq = b.op(&format!("onnx.Add %{qq}, %{z}"), &sh(sq, d));
        }
        if rule.contains("sdpa") {
            let s2 = b.scalar(scale.sqrt());
            kk = b.op(&format!("onnx.Mul %{kt}, %{s2}"), &sh(d, sk));
        }
    }
    let mut sc = b.op(&format!("onnx.MatMul %{qq}, %{kk}"), &sc_shape);
    if rule.starts_with("attention-mul") {
        let s = b.scalar(scale);
        sc = b.op(&format!("onnx.Mul %{sc}, %{s}"), &sc_shape);
    } else if rule.starts_with("attention-div") {
        let s = b.scalar(1.0 / scale);
        sc = b.op(&format!("onnx.Div %{sc}, %{s}"), &sc_shape);
    }
    if rule.ends_with("mask") {
        let ms = bcast_shape(b.rng, &sc_shape, 0);
        let m = if b.rng.coin() { b.rand_const(&ms, -3.0, 0.0) } else { b.param(&ms, -3.0, 0.0) };
        sc = b.op(&format!("onnx.Add %{sc}, %{m}"), &sc_shape);
    }
    let axis = axis.unwrap_or(if b.rng.coin() { -1 } else { rank as i64 - 1 });
    let p = b.op(&format!("onnx.Softmax %{sc} {{axis = {axis}}}"), &sc_shape);
    (b.op(&format!("onnx.MatMul %{p}, %{v}"), &sh(sq, dv)), sh(sq, dv))
}

/// Every rule of the family, in the order the positive test draws them.
const RULES: &[&str] = &[
    "layer-norm",
    "layer-norm-sq-mul",
    "layer-norm-rsqrt",
    "layer-norm-scale",
    "layer-norm-scale-left",
    "layer-norm-bias",
    "gelu-erf",
    "gelu-erf-rsqrt2",
    "gelu-erf-half-first",
    "gelu-erf-half-first-rsqrt2",
    "gelu-erf-half-left",
    "gelu-tanh",
    "gelu-tanh-pow",
    "gelu-tanh-keras",
    "gelu-tanh-fast",
    "softmax-decomposed",
    "softmax-no-max",
    "attention-mul-mask",
    "attention-div-mask",
    "attention-mul",
    "attention-div",
    "attention-mask",
    "attention-plain",
    "attention-qscale-mask",
    "attention-qscale",
    "attention-paddle-mask",
    "attention-paddle",
    "attention-sdpa-mask",
    "attention-sdpa",
];

/// One positive case: module text, inputs, rules that must fire, the op the output must contain.
fn positive(rule: &'static str, r: &mut Rng) -> (String, Vec<Tensor>, Vec<&'static str>, &'static str) {
    let mut b = B::new(r);
    let (y, s, rules, op) = if rule.starts_with("layer-norm") {
        let (y, s, rules) = ln_case(&mut b, rule);
        (y, s, rules, "onnx.LayerNormalization")
    } else if rule.starts_with("gelu") {
        let (y, s) = gelu_case(&mut b, rule, false);
        (y, s, vec![rule], "onnx.Gelu")
    } else if rule.starts_with("softmax") {
        let (y, s) = softmax_case(&mut b, rule == "softmax-decomposed", false);
        (y, s, vec![rule], "onnx.Softmax")
    } else {
        let (y, s) = attention_case(&mut b, rule, None);
        (y, s, vec![rule], "core.attention")
    };
    let (src, inputs) = b.build(&y, &s);
    (src, inputs, rules, op)
}

fn has_op(run: &RuleRun, name: &str) -> bool {
    run.optimized.funcs.iter().any(|f| f.live_ops().iter().any(|&id| f.ops[id].opcode.name() == name))
}

/// Rules whose result is bit-identical to the chain: core.attention
/// evaluates exactly MatMul, Mul(scale), Add(mask), Softmax, MatMul.
const EXACT: &[&str] = &["attention-mul-mask", "attention-mul", "attention-mask", "attention-plain"];

fn check(src: &str, inputs: &[Tensor], exact: bool) -> Result<RuleRun, String> {
    let m = ir::text::parse_module(src, "case", None).map_err(|e| format!("{e}\n{src}"))?.module;
    let tol = if exact { Tolerance { rtol: 0.0, atol: 0.0 } } else { Tolerance { rtol: 1e-3, atol: 1e-4 } };
    optimize_and_compare(&m, "shape-infer,recognize,dce", None, inputs, tol).map_err(|e| format!("{e}\n{src}"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn recognition_rules_fire_and_match(kind in 0..RULES.len(), seed in any::<u64>()) {
        let mut r = Rng(seed);
        let (src, inputs, rules, op) = positive(RULES[kind], &mut r);
        let run = check(&src, &inputs, EXACT.contains(&RULES[kind])).map_err(TestCaseError::fail)?;
        for rule in rules {
            prop_assert!(run.count(rule) > 0, "rule {rule} did not fire on\n{src}\nfired: {:?}", run.fired);
        }
        prop_assert!(has_op(&run, op), "no {op} in the output of\n{src}\n{}", ir::text::print_module(&run.optimized));
        prop_assert!(run.ops.1 < run.ops.0, "op count did not drop ({:?}) on\n{src}", run.ops);
    }
}

/// One negative case: module text, inputs, the op the output must not contain
/// (or, for the softmax case, the rule that must not fire).
fn negative(kind: usize, r: &mut Rng) -> (String, Vec<Tensor>, &'static str) {
    let mut b = B::new(r);
    let (y, s, banned) = match kind {
        0 => {
            // LayerNorm chain over a non-trailing axis of a rank >= 2 input.
            let rank = 2 + b.rng.below(3);
            let s = b.rng.dims(rank, 4);
            let axis = b.rng.below(rank - 1);
            let red: Vec<usize> = s.iter().enumerate().map(|(i, &d)| if i == axis { 1 } else { d }).collect();
            let x = b.param(&s, -5.0, 5.0);
            let a = axes_const(&mut b, &[axis], rank);
            let (two, eps) = (b.scalar(2.0), b.scalar(1e-5));
            let mean = b.op(&format!("onnx.ReduceMean %{x}, %{a}"), &red);
            let d = b.op(&format!("onnx.Sub %{x}, %{mean}"), &s);
            let p = b.op(&format!("onnx.Pow %{d}, %{two}"), &s);
            let var = b.op(&format!("onnx.ReduceMean %{p}, %{a}"), &red);
            let ve = b.op(&format!("onnx.Add %{var}, %{eps}"), &red);
            let sq = b.op(&format!("onnx.Sqrt %{ve}"), &red);
            (b.op(&format!("onnx.Div %{d}, %{sq}"), &s), s, "onnx.LayerNormalization")
        }
        1 => {
            let rule = RULES[6 + b.rng.below(9)];
            let (y, s) = gelu_case(&mut b, rule, true);
            (y, s, "onnx.Gelu")
        }
        2 => {
            // Softmax over the query axis (-2) instead of the key axis.
            let rule = RULES[17 + b.rng.below(12)];
            let (y, s) = attention_case(&mut b, rule, Some(-2));
            (y, s, "core.attention")
        }
        _ => {
            // Max over a different axis than the sum: not Softmax(x).
            let (y, s) = softmax_case(&mut b, true, true);
            (y, s, "softmax-decomposed")
        }
    };
    let (src, inputs) = b.build(&y, &s);
    (src, inputs, banned)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn recognition_conditions_block_non_matches(kind in 0usize..4, seed in any::<u64>()) {
        let mut r = Rng(seed);
        let (src, inputs, banned) = negative(kind, &mut r);
        let run = check(&src, &inputs, false).map_err(TestCaseError::fail)?;
        if banned.contains('.') {
            let out = ir::text::print_module(&run.optimized);
            prop_assert!(!has_op(&run, banned), "{banned} in the output of\n{src}\n{out}");
        } else {
            prop_assert_eq!(run.count(banned), 0, "rule {} fired on\n{}", banned, src);
        }
    }
}
