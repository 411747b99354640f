//! Differential property tests of the `canonical` rules: random small graphs
//! with a Reshape, Squeeze, Unsqueeze, Reduce*, Slice or Expand whose shape or
//! axes operands are constants (random shapes, some with a symbolic dim;
//! random axes, negative and out of order; out-of-range and extreme slice
//! bounds; negative steps; random inputs with -0.0, infinities and NaN) are
//! optimized with `shape-infer,canonicalize-core,dce` with no target, the cpu
//! or the rk3588-npu target. The rule must fire where the operands can be made
//! static (and must not where they cannot), the op count must not grow, the
//! chosen op must be the core form, and outputs must be bit-identical.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use proptest::prelude::*;
use testsuite::rulecheck::{optimize_and_compare, Rng, RuleRun};

/// Draws only these tests use.
trait Draw {
    fn f32(&mut self) -> f32;
    fn shape(&mut self, lo: usize, hi: usize) -> Vec<usize>;
    fn scramble(&mut self, axes: &[usize], rank: usize) -> Vec<i64>;
    fn subset(&mut self, rank: usize) -> Vec<usize>;
}

impl Draw for Rng {
    fn f32(&mut self) -> f32 {
        match self.below(12) {
            0 => -0.0,
            1 => 0.0,
            2 => [f32::INFINITY, f32::NEG_INFINITY, f32::NAN][self.below(3)],
            _ => (self.below(2001) as f32 - 1000.0) / 100.0,
        }
    }
    /// A random shape of rank `lo..=hi` with dims in `1..=3`.
    fn shape(&mut self, lo: usize, hi: usize) -> Vec<usize> {
        let r = lo + self.below(hi - lo + 1);
        (0..r).map(|_| 1 + self.below(3)).collect()
    }
    /// `axes` (normalized against `rank`), some negative, in a rotated order.
    fn scramble(&mut self, axes: &[usize], rank: usize) -> Vec<i64> {
        let mut v: Vec<i64> =
            axes.iter().map(|&a| if self.coin() { a as i64 - rank as i64 } else { a as i64 }).collect();
        if !v.is_empty() {
            let k = self.below(v.len());
            v.rotate_left(k);
        }
        v
    }
    /// A non-empty random subset of `0..rank`, sorted.
    fn subset(&mut self, rank: usize) -> Vec<usize> {
        let v: Vec<usize> = (0..rank).filter(|_| self.coin()).collect();
        if v.is_empty() {
            vec![self.below(rank)]
        } else {
            v
        }
    }
}

fn list<T: ToString>(v: &[T]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// Builds a one-function module in IR text, with random inputs for its parameters.
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
    /// A parameter of `shape`; with `sym`, its dim 0 is the symbol `n` in the type.
    fn param(&mut self, dt: &str, shape: &[usize], sym: bool) -> String {
        let name = format!("p{}", self.params.len());
        let dims: Vec<String> =
            shape.iter().enumerate().map(|(i, d)| if sym && i == 0 { "n".into() } else { d.to_string() }).collect();
        self.params.push(format!("%{name}: {dt}[{}]", dims.join(", ")));
        let len: usize = shape.iter().product();
        let data = match dt {
            "f32" => Data::F32((0..len).map(|_| self.rng.f32()).collect()),
            _ => Data::I32((0..len).map(|_| self.rng.below(41) as i32 - 20).collect()),
        };
        self.inputs.push(Tensor::new(shape.to_vec(), data));
        name
    }
    /// An i64 constant operand holding `v`.
    fn ints(&mut self, v: &[i64]) -> String {
        self.ints_of("i64", v)
    }
    /// An integer constant operand of element type `dt` holding `v`.
    fn ints_of(&mut self, dt: &str, v: &[i64]) -> String {
        self.n += 1;
        let name = format!("c{}", self.n);
        self.consts.push(format!("  const @{name} : {dt}[{}] = dense<[{}]>", v.len(), list(v)));
        self.ops.push(format!("    %{name} = core.const {{value = @{name}}} : {dt}[{}]", v.len()));
        name
    }
    /// The module returning `rhs`'s single result, of element type `dt`.
    fn build(mut self, rhs: &str, dt: &str) -> (String, Vec<Tensor>) {
        self.ops.push(format!("    %y = {rhs} : {dt}[*]"));
        let src = format!(
            "module @m attributes {{phase = \"onnx\"}} {{\n{}\n\n  func @main({}) -> ({dt}[*]) {{\n{}\n    return %y\n  }}\n}}\n",
            self.consts.join("\n"),
            self.params.join(", "),
            self.ops.join("\n"),
        );
        (src, self.inputs)
    }
}

/// One generated case: source, inputs, the rule, whether it must fire, and
/// the core op the output must then contain (`None`: the onnx form may stay,
/// which happens without a target when no operand was dropped).
struct Case {
    src: String,
    inputs: Vec<Tensor>,
    rule: &'static str,
    fires: bool,
    core: Option<&'static str>,
}

fn case(b: B, rhs: &str, rule: &'static str, fires: bool, core: Option<&'static str>) -> Case {
    case_of(b, rhs, "f32", rule, fires, core)
}

fn case_of(b: B, rhs: &str, dt: &str, rule: &'static str, fires: bool, core: Option<&'static str>) -> Case {
    let (src, inputs) = b.build(rhs, dt);
    Case { src, inputs, rule, fires, core: if fires { core } else { None } }
}

/// Reshape: static inputs with 0/-1 entries (always canonical); a symbolic
/// dim 0 copied by a 0 (becomes -1), given as -1, or copied next to a -1
/// (not canonicalizable).
fn reshape(r: &mut Rng) -> Case {
    let s = r.shape(1, 4);
    let sym = s.len() >= 2 && r.below(3) == 0;
    let mut b = B::new(r);
    let x = b.param("f32", &s, sym);
    let tail: i64 = s[1..].iter().product::<usize>() as i64;
    let (spec, fires) = match (sym, b.rng.below(3)) {
        (true, 0) => (vec![0, tail], true),
        (true, 1) => (vec![-1, tail], true),
        (true, _) => (vec![0, -1], false),
        (false, v) => {
            // The input dims, some copied by 0, one maybe -1, maybe with a trailing 1 added.
            let mut spec: Vec<i64> = s.iter().map(|&d| if b.rng.coin() { 0 } else { d as i64 }).collect();
            if v == 0 {
                let i = b.rng.below(spec.len());
                spec[i] = -1;
            }
            if b.rng.coin() {
                spec.push(1);
            }
            (spec, true)
        }
    };
    let c = b.ints(&spec);
    case(b, &format!("onnx.Reshape %{x}, %{c}"), "canonical-reshape", fires, Some("core.reshape"))
}

/// Squeeze with constant axes (negative, out of order) or omitted axes.
fn squeeze(r: &mut Rng) -> Case {
    let mut s = r.shape(1, 4);
    let ones = r.subset(s.len());
    ones.iter().for_each(|&i| s[i] = 1);
    let sym = !ones.contains(&0) && r.below(3) == 0;
    let omit = !sym && r.below(3) == 0;
    let mut b = B::new(r);
    let x = b.param("f32", &s, sym);
    if omit {
        return case(b, &format!("onnx.Squeeze %{x}"), "canonical-squeeze", true, None);
    }
    let chosen = b.rng.subset(ones.len()).into_iter().map(|k| ones[k]).collect::<Vec<_>>();
    let axes = b.rng.scramble(&chosen, s.len());
    let c = b.ints(&axes);
    case(b, &format!("onnx.Squeeze %{x}, %{c}"), "canonical-squeeze", true, Some("core.squeeze"))
}

/// Unsqueeze at random output positions (negative, out of order).
fn unsqueeze(r: &mut Rng) -> Case {
    let s = r.shape(1, 3);
    let sym = r.below(3) == 0;
    let mut b = B::new(r);
    let x = b.param("f32", &s, sym);
    let extra = 1 + b.rng.below(2);
    let out_rank = s.len() + extra;
    // `extra` distinct output positions: a random rotation of 0..out_rank, cut.
    let k = b.rng.below(out_rank);
    let mut chosen: Vec<usize> = (0..out_rank).map(|i| (i + k) % out_rank).take(extra).collect();
    chosen.sort_unstable();
    let axes = b.rng.scramble(&chosen, out_rank);
    let c = b.ints(&axes);
    case(b, &format!("onnx.Unsqueeze %{x}, %{c}"), "canonical-unsqueeze", true, Some("core.unsqueeze"))
}

const REDUCE: &[(&str, &str)] = &[
    ("ReduceMean", "canonical-reduce-mean"),
    ("ReduceSum", "canonical-reduce-sum"),
    ("ReduceMax", "canonical-reduce-max"),
    ("ReduceMin", "canonical-reduce-min"),
    ("ReduceProd", "canonical-reduce-prod"),
    ("ReduceL1", "canonical-reduce-l1"),
    ("ReduceL2", "canonical-reduce-l2"),
    ("ReduceSumSquare", "canonical-reduce-sum-square"),
    ("ReduceLogSum", "canonical-reduce-log-sum"),
    ("ReduceLogSumExp", "canonical-reduce-log-sum-exp"),
];

/// A reduction over constant axes, omitted axes (all), or empty axes with
/// `noop_with_empty_axes = 1` (not canonicalizable); keepdims random; i32 data
/// for the reductions that keep integers.
fn reduce(r: &mut Rng, k: usize) -> Case {
    let (op, rule) = REDUCE[k];
    let s = r.shape(1, 4);
    let sym = r.below(4) == 0;
    let int = matches!(op, "ReduceSum" | "ReduceMax" | "ReduceMin" | "ReduceProd" | "ReduceL1") && r.below(4) == 0;
    let dt = if int { "i32" } else { "f32" };
    let mut b = B::new(r);
    let x = b.param(dt, &s, sym);
    let keep = b.rng.below(2);
    let mode = b.rng.below(6);
    let (operand, attrs, fires, core) = match mode {
        0 => (String::new(), format!("keepdims = {keep}"), true, None),
        1 => {
            let c = b.ints(&[]);
            (format!(", %{c}"), format!("keepdims = {keep}, noop_with_empty_axes = 1"), false, None)
        }
        _ => {
            let axes = b.rng.subset(s.len());
            let axes = b.rng.scramble(&axes, s.len());
            let c = b.ints(&axes);
            let noop = if mode == 2 { ", noop_with_empty_axes = 1" } else { "" };
            (format!(", %{c}"), format!("keepdims = {keep}{noop}"), true, Some("core.reduce"))
        }
    };
    case_of(b, &format!("onnx.{op} %{x}{operand} {{{attrs}}}"), dt, rule, fires, core)
}

/// A slice bound: small (often out of range), or an extreme of the index type.
fn bound(r: &mut Rng, i32_index: bool) -> i64 {
    match (r.below(8), i32_index) {
        (0, false) => i64::MAX,
        (1, false) => i64::MIN,
        (0, true) => i32::MAX as i64,
        (1, true) => i32::MIN as i64,
        _ => r.range(-5, 5),
    }
}

/// Slice with constant i64 or i32 starts/ends, axes given (negative, out of
/// order) or omitted, steps given (negative too) or omitted.
fn slice(r: &mut Rng) -> Case {
    let s = r.shape(1, 4);
    let sym = r.below(4) == 0;
    let mut b = B::new(r);
    let x = b.param("f32", &s, sym);
    let with_axes = b.rng.below(4) != 0;
    let chosen: Vec<usize> = if with_axes { b.rng.subset(s.len()) } else { (0..1 + b.rng.below(s.len())).collect() };
    let n = chosen.len();
    let i32_index = b.rng.below(4) == 0;
    let dt = if i32_index { "i32" } else { "i64" };
    let (starts, ends): (Vec<i64>, Vec<i64>) =
        (0..n).map(|_| (bound(b.rng, i32_index), bound(b.rng, i32_index))).unzip();
    let steps: Vec<i64> = (0..n).map(|_| [-3, -2, -1, 1, 1, 2, 3][b.rng.below(7)]).collect();
    let (cs, ce) = (b.ints_of(dt, &starts), b.ints_of(dt, &ends));
    let rhs = if with_axes {
        let axes = b.rng.scramble(&chosen, s.len());
        let ca = b.ints_of(dt, &axes);
        if b.rng.coin() {
            let cp = b.ints_of(dt, &steps);
            format!("onnx.Slice %{x}, %{cs}, %{ce}, %{ca}, %{cp}")
        } else {
            format!("onnx.Slice %{x}, %{cs}, %{ce}, %{ca}")
        }
    } else {
        format!("onnx.Slice %{x}, %{cs}, %{ce}")
    };
    case(b, &rhs, "canonical-slice", true, Some("core.slice"))
}

/// Expand by a shape that broadcasts with the input (extra leading dims, 1s).
fn expand(r: &mut Rng) -> Case {
    let mut s = r.shape(1, 3);
    for d in s.iter_mut() {
        if r.coin() {
            *d = 1;
        }
    }
    let sym = r.below(4) == 0;
    let mut b = B::new(r);
    let x = b.param("f32", &s, sym);
    let mut target: Vec<i64> = (0..b.rng.below(2)).map(|_| 1 + b.rng.below(2) as i64).collect();
    for (i, &d) in s.iter().enumerate() {
        let grow = d == 1 && !(sym && i == 0) && b.rng.coin();
        target.push(if grow {
            2 + b.rng.below(2) as i64
        } else if b.rng.coin() {
            1
        } else {
            d as i64
        });
    }
    if sym {
        let at = target.len() - s.len();
        target[at] = 1;
    }
    let c = b.ints(&target);
    case(b, &format!("onnx.Expand %{x}, %{c}"), "canonical-expand", true, Some("core.expand"))
}

const KINDS: usize = 5 + REDUCE.len();

fn generate(kind: usize, r: &mut Rng) -> Case {
    match kind {
        0 => reshape(r),
        1 => squeeze(r),
        2 => unsqueeze(r),
        3 => slice(r),
        4 => expand(r),
        k => reduce(r, k - 5),
    }
}

/// The outputs of `a` and `b` on `inputs` are equal bit for bit (signed zeros and NaN payloads included).
fn assert_bit_exact(a: &ir::Module, b: &ir::Module, inputs: &[Tensor]) {
    let x = ir::interp::run(a, "main", inputs.to_vec()).expect("original runs");
    let y = ir::interp::run(b, "main", inputs.to_vec()).expect("optimized runs");
    for (p, q) in x.iter().zip(&y) {
        assert_eq!(p.shape, q.shape);
        assert_eq!(p.to_le_bytes(), q.to_le_bytes(), "outputs differ in their bits");
    }
}

fn check(kind: usize, seed: u64, target_pick: usize) {
    let mut r = Rng(seed);
    let c = generate(kind, &mut r);
    let m = ir::text::parse_module(&c.src, "case", None).unwrap_or_else(|e| panic!("{e}\n{}", c.src)).module;
    let target = [None, Some("cpu"), Some("rk3588-npu")][target_pick];
    let exact = Tolerance { rtol: 0.0, atol: 0.0 };
    let run: RuleRun = optimize_and_compare(&m, "shape-infer,canonicalize-core,dce", target, &c.inputs, exact)
        .unwrap_or_else(|e| panic!("{e}\n{}", c.src));
    let fired = run.count(c.rule);
    assert_eq!(fired > 0, c.fires, "{} fired {fired} times (target {target:?})\n{}", c.rule, c.src);
    assert!(run.ops.1 <= run.ops.0, "op count grew {:?}\n{}", run.ops, c.src);
    let text = ir::text::print_module(&run.optimized);
    // Omitted operands: both forms read one operand, so only the cpu profile's lower
    // price for the static form decides (on the NPU fallback both cost the same).
    let core = c.core.or(if target == Some("cpu") && c.fires { core_name(c.rule) } else { None });
    if let Some(op) = core {
        assert!(text.contains(op), "{op} not chosen (target {target:?})\n{}\n{text}", c.src);
    }
    assert_bit_exact(&m, &run.optimized, &c.inputs);
}

/// The core op a rule produces.
fn core_name(rule: &str) -> Option<&'static str> {
    Some(match rule {
        "canonical-squeeze" => "core.squeeze",
        r if r.starts_with("canonical-reduce") => "core.reduce",
        _ => return None,
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 320, ..ProptestConfig::default() })]

    #[test]
    fn canonical_rules_are_exact(kind in 0..KINDS, seed in any::<u64>(), target in 0usize..3) {
        check(kind, seed, target);
    }
}

/// Every family member at least once per target with fixed seeds (the random
/// test above may skip a kind on a short run).
#[test]
fn every_rule_fires_somewhere() {
    for kind in 0..KINDS {
        for target in 0..3 {
            for seed in 0..6u64 {
                check(kind, seed * 7919 + kind as u64, target);
            }
        }
    }
}
