//! Differential property tests of the `cleanup` rules: random small graphs
//! containing each pattern (random shapes, permutations, axes, constant values
//! and inputs, including -0.0, infinities and NaN) are optimized with
//! `shape-infer,cleanup,dce`; the rule must fire, the op count must drop, and
//! the outputs must be bit-identical to the original (cleanup rules are exact,
//! so not even the sign of a zero may change). Negative cases check that
//! `x + (+0.0)` on floats and a broadcasting `x * 1` are left alone.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use proptest::prelude::*;
use testsuite::rulecheck::{optimize_and_compare, ty, Rng};

/// Draws only these tests use.
trait Draw {
    fn f32(&mut self) -> f32;
}

impl Draw for Rng {
    fn f32(&mut self) -> f32 {
        match self.below(10) {
            0 => -0.0,
            1 => 0.0,
            2 => [f32::INFINITY, f32::NEG_INFINITY, f32::NAN][self.below(3)],
            _ => (self.below(20001) as f32 - 10000.0) / 100.0,
        }
    }
}

fn list<T: ToString>(v: &[T]) -> String {
    v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
}

/// Builds a module `@main` in IR text, with random inputs for its parameters.
struct B<'a> {
    rng: &'a mut Rng,
    consts: Vec<String>,
    params: Vec<String>,
    ops: Vec<String>,
    rets: Vec<(String, String)>,
    inputs: Vec<Tensor>,
    n: usize,
}

impl<'a> B<'a> {
    fn new(rng: &'a mut Rng) -> Self {
        B { rng, consts: vec![], params: vec![], ops: vec![], rets: vec![], inputs: vec![], n: 0 }
    }
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("v{}", self.n)
    }
    /// A parameter of element type `dt` (f32, i32, i64) with random contents.
    fn param(&mut self, dt: &str, shape: &[usize]) -> String {
        let name = format!("p{}", self.params.len());
        self.params.push(format!("%{name}: {}", ty(dt, shape)));
        let len: usize = shape.iter().product();
        let data = match dt {
            "f32" => Data::F32((0..len).map(|_| self.rng.f32()).collect()),
            "i32" => Data::I32((0..len).map(|_| self.rng.below(2001) as i32 - 1000).collect()),
            _ => Data::I64((0..len).map(|_| self.rng.below(2001) as i64 - 1000).collect()),
        };
        self.inputs.push(Tensor::new(shape.to_vec(), data));
        name
    }
    /// A constant with the given element literals.
    fn konst(&mut self, dt: &str, shape: &[usize], vals: &[String]) -> String {
        let name = self.fresh();
        self.consts.push(format!("  const @{name} : {} = dense<[{}]>", ty(dt, shape), vals.join(", ")));
        self.ops.push(format!("    %{name} = core.const {{value = @{name}}} : {}", ty(dt, shape)));
        name
    }
    fn splat(&mut self, dt: &str, shape: &[usize], lit: &str) -> String {
        let n: usize = shape.iter().product();
        self.konst(dt, shape, &vec![lit.to_string(); n])
    }
    fn ints(&mut self, v: &[i64]) -> String {
        let s: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        self.konst("i64", &[v.len()], &s)
    }
    /// `%new = <rhs> : <ty>`.
    fn op(&mut self, rhs: &str, t: &str) -> String {
        let name = self.fresh();
        self.ops.push(format!("    %{name} = {rhs} : {t}"));
        name
    }
    fn ret(&mut self, v: &str, t: &str) {
        self.rets.push((v.to_string(), t.to_string()));
    }
    fn build(self) -> (String, Vec<Tensor>) {
        let rt: Vec<&str> = self.rets.iter().map(|r| r.1.as_str()).collect();
        let rv: Vec<String> = self.rets.iter().map(|r| format!("%{}", r.0)).collect();
        let src = format!(
            "module @m attributes {{phase = \"onnx\"}} {{\n{}\n\n  func @main({}) -> ({}) {{\n{}\n    return {}\n  }}\n}}\n",
            self.consts.join("\n"),
            self.params.join(", "),
            rt.join(", "),
            self.ops.join("\n"),
            rv.join(", ")
        );
        (src, self.inputs)
    }
}

/// A shape broadcasting to `s` without changing it: a suffix with some dims set to 1.
fn sub_shape(r: &mut Rng, s: &[usize]) -> Vec<usize> {
    let k = r.below(s.len() + 1);
    s[s.len() - k..].iter().map(|&d| if r.coin() { 1 } else { d }).collect()
}

/// A random element type among those the arithmetic rules cover.
fn num_dtype(r: &mut Rng) -> &'static str {
    ["f32", "i32", "i64"][r.below(3)]
}

/// One positive case: the module, its inputs and the rule that must fire.
fn positive(kind: usize, s: &[usize], r: &mut Rng) -> (String, Vec<Tensor>, &'static str) {
    let mut b = B::new(r);
    let rule = match kind {
        0..=3 => arith_one(&mut b, kind, s),
        4..=8 => arith_zero(&mut b, kind, s),
        9..=11 => transposes(&mut b, kind, s),
        12..=14 => reshapes(&mut b, kind, s),
        15..=17 => casts_dropouts(&mut b, kind, s),
        18 | 19 => squeezes(&mut b, kind, s),
        _ => misc(&mut b, kind, s),
    };
    let (src, inputs) = b.build();
    (src, inputs, rule)
}

const POSITIVE_KINDS: usize = 23;

/// Mul by 1 (either side), Div by 1, Identity.
fn arith_one(b: &mut B, kind: usize, s: &[usize]) -> &'static str {
    let dt = num_dtype(b.rng);
    let x = b.param(dt, s);
    let ks = sub_shape(b.rng, s);
    let one = if dt == "f32" { "1.0" } else { "1" };
    let k = b.splat(dt, &ks, one);
    let (rhs, rule) = match kind {
        0 => (format!("onnx.Identity %{x}"), "identity"),
        1 => (format!("onnx.Mul %{x}, %{k}"), "mul-one"),
        2 => (format!("onnx.Mul %{k}, %{x}"), "mul-one-left"),
        _ => (format!("onnx.Div %{x}, %{k}"), "div-one"),
    };
    let y = b.op(&rhs, &ty(dt, s));
    b.ret(&y, &ty(dt, s));
    rule
}

/// Add -0.0 (either side), integer Add 0 (either side), Sub +0.
fn arith_zero(b: &mut B, kind: usize, s: &[usize]) -> &'static str {
    let dt = match kind {
        4 | 5 => "f32",
        6 | 7 => ["i32", "i64"][b.rng.below(2)],
        _ => num_dtype(b.rng),
    };
    let x = b.param(dt, s);
    let ks = sub_shape(b.rng, s);
    let lit = match (dt, kind) {
        ("f32", 4 | 5) => "-0.0",
        ("f32", _) => "0.0",
        _ => "0",
    };
    let k = b.splat(dt, &ks, lit);
    let (rhs, rule) = match kind {
        4 => (format!("onnx.Add %{x}, %{k}"), "add-neg-zero"),
        5 => (format!("onnx.Add %{k}, %{x}"), "add-neg-zero-left"),
        6 => (format!("onnx.Add %{x}, %{k}"), "add-zero-int"),
        7 => (format!("onnx.Add %{k}, %{x}"), "add-zero-int-left"),
        _ => (format!("onnx.Sub %{x}, %{k}"), "sub-pos-zero"),
    };
    let y = b.op(&rhs, &ty(dt, s));
    b.ret(&y, &ty(dt, s));
    rule
}

fn perm_attr(p: Option<&[usize]>) -> String {
    p.map_or(String::new(), |p| format!(" {{perm = [{}]}}", list(p)))
}

/// The result shape of Transpose(s, p) (`None`: reversed).
fn permuted(s: &[usize], p: Option<&[usize]>) -> Vec<usize> {
    match p {
        Some(p) => p.iter().map(|&i| s[i]).collect(),
        None => s.iter().rev().copied().collect(),
    }
}

/// Transpose∘Transpose (composed or cancelling), identity perm, rank 1.
fn transposes(b: &mut B, kind: usize, s: &[usize]) -> &'static str {
    match kind {
        9 => {
            let s: Vec<usize> = if s.len() < 2 { vec![s[0], 2] } else { s.to_vec() };
            let x = b.param("f32", &s);
            let p1 = if b.rng.below(4) == 0 { None } else { Some(b.rng.perm(s.len())) };
            let mid = permuted(&s, p1.as_deref());
            let p2 = match b.rng.below(4) {
                0 => None,
                1 => {
                    // The inverse of p1: the pair cancels.
                    let full = p1.clone().unwrap_or_else(|| (0..s.len()).rev().collect());
                    let mut inv = vec![0; s.len()];
                    for (i, &v) in full.iter().enumerate() {
                        inv[v] = i;
                    }
                    Some(inv)
                }
                _ => Some(b.rng.perm(s.len())),
            };
            let out = permuted(&mid, p2.as_deref());
            let t1 = b.op(&format!("onnx.Transpose %{x}{}", perm_attr(p1.as_deref())), &ty("f32", &mid));
            let t2 = b.op(&format!("onnx.Transpose %{t1}{}", perm_attr(p2.as_deref())), &ty("f32", &out));
            b.ret(&t2, &ty("f32", &out));
            let full = |p: &Option<Vec<usize>>| p.clone().unwrap_or_else(|| (0..s.len()).rev().collect());
            let (f1, f2) = (full(&p1), full(&p2));
            let cancels = f2.iter().enumerate().all(|(j, &k)| f1[k] == j);
            if cancels {
                "transpose-transpose-cancel"
            } else {
                "transpose-transpose"
            }
        }
        10 => {
            let x = b.param("f32", s);
            let id: Vec<usize> = (0..s.len()).collect();
            let y = b.op(&format!("onnx.Transpose %{x}{}", perm_attr(Some(&id))), &ty("f32", s));
            b.ret(&y, &ty("f32", s));
            "transpose-identity"
        }
        _ => {
            let n = [s[0] * s.len(), 1, 5][b.rng.below(3)];
            let x = b.param("f32", &[n]);
            let y = b.op(&format!("onnx.Transpose %{x}"), &ty("f32", &[n]));
            b.ret(&y, &ty("f32", &[n]));
            "transpose-rank1"
        }
    }
}

/// A shape with the same element count as `s`: its dims shuffled, two
/// neighbours possibly merged.
fn regroup(r: &mut Rng, s: &[usize]) -> Vec<usize> {
    let mut d = s.to_vec();
    r.shuffle(&mut d);
    if d.len() >= 2 && r.coin() {
        let i = r.below(d.len() - 1);
        let m = d[i] * d[i + 1];
        d.splice(i..=i + 1, [m]);
    }
    d
}

/// A reshape spec for `to` (read against input dims `from`): one dim may
/// become -1, dims equal to the input's dim at the same index may become 0.
fn spec(r: &mut Rng, from: &[usize], to: &[usize]) -> Vec<i64> {
    let mut v: Vec<i64> = to.iter().map(|&d| d as i64).collect();
    for (i, x) in v.iter_mut().enumerate() {
        if from.get(i) == Some(&to[i]) && r.below(3) == 0 {
            *x = 0;
        }
    }
    if r.coin() {
        let i = r.below(v.len());
        v[i] = -1;
    }
    v
}

/// Reshape∘Reshape, identity Reshape, identity Flatten.
fn reshapes(b: &mut B, kind: usize, s: &[usize]) -> &'static str {
    match kind {
        12 => {
            let x = b.param("f32", s);
            let (mid, out) = (regroup(b.rng, s), regroup(b.rng, s));
            let (s1, s2) = (spec(b.rng, s, &mid), spec(b.rng, &mid, &out));
            let (c1, c2) = (b.ints(&s1), b.ints(&s2));
            let r1 = b.op(&format!("onnx.Reshape %{x}, %{c1}"), &ty("f32", &mid));
            let r2 = b.op(&format!("onnx.Reshape %{r1}, %{c2}"), &ty("f32", &out));
            b.ret(&r2, &ty("f32", &out));
            "reshape-reshape"
        }
        13 => {
            let x = b.param("f32", s);
            let sp = spec(b.rng, s, s);
            let c = b.ints(&sp);
            let y = b.op(&format!("onnx.Reshape %{x}, %{c}"), &ty("f32", s));
            b.ret(&y, &ty("f32", s));
            "reshape-identity"
        }
        _ => {
            let s2 = [s[0], s.get(1).copied().unwrap_or(3)];
            let x = b.param("f32", &s2);
            let attr = ["", " {axis = 1}", " {axis = -1}"][b.rng.below(3)];
            let y = b.op(&format!("onnx.Flatten %{x}{attr}"), &ty("f32", &s2));
            b.ret(&y, &ty("f32", &s2));
            "flatten-identity"
        }
    }
}

/// Cast to the same type, inference Dropout (training_mode omitted or false).
fn casts_dropouts(b: &mut B, kind: usize, s: &[usize]) -> &'static str {
    if kind == 15 {
        let dt = num_dtype(b.rng);
        let x = b.param(dt, s);
        let y = b.op(&format!("onnx.Cast %{x} {{to = {dt}}}"), &ty(dt, s));
        b.ret(&y, &ty(dt, s));
        return "cast-noop";
    }
    let x = b.param("f32", s);
    let ratio = ["0.0", "0.25", "0.5", "0.9"][b.rng.below(4)];
    let r = b.splat("f32", &[], ratio);
    let rhs = if kind == 16 {
        if b.rng.coin() {
            format!("onnx.Dropout %{x}")
        } else {
            format!("onnx.Dropout %{x}, %{r}")
        }
    } else {
        let f = b.splat("bool", &[], "false");
        if b.rng.coin() {
            format!("onnx.Dropout %{x}, %{r}, %{f}")
        } else {
            format!("onnx.Dropout %{x}, none, %{f}")
        }
    };
    let y = b.op(&rhs, &ty("f32", s));
    b.ret(&y, &ty("f32", s));
    if kind == 16 {
        "dropout-inference"
    } else {
        "dropout-inference-false"
    }
}

/// `axes` written in a random mix of positive and negative forms, shuffled.
fn axes_text(r: &mut Rng, axes: &[usize], rank: usize) -> Vec<i64> {
    let mut v: Vec<i64> = axes.iter().map(|&a| if r.coin() { a as i64 - rank as i64 } else { a as i64 }).collect();
    r.shuffle(&mut v);
    v
}

/// Squeeze∘Unsqueeze and Unsqueeze∘Squeeze with the same axes.
fn squeezes(b: &mut B, kind: usize, s: &[usize]) -> &'static str {
    if kind == 18 {
        let x = b.param("f32", s);
        let n = 1 + b.rng.below(2);
        let big = s.len() + n;
        let mut pos = b.rng.perm(big);
        pos.truncate(n);
        pos.sort_unstable();
        let mut mid = s.to_vec();
        for &p in &pos {
            mid.insert(p, 1);
        }
        let (a, c) = (axes_text(b.rng, &pos, big), axes_text(b.rng, &pos, big));
        let (ca, cc) = (b.ints(&a), b.ints(&c));
        let u = b.op(&format!("onnx.Unsqueeze %{x}, %{ca}"), &ty("f32", &mid));
        let q = b.op(&format!("onnx.Squeeze %{u}, %{cc}"), &ty("f32", s));
        b.ret(&q, &ty("f32", s));
        return "squeeze-unsqueeze";
    }
    let n = 1 + b.rng.below(s.len().min(2));
    let mut pos = b.rng.perm(s.len());
    pos.truncate(n);
    pos.sort_unstable();
    let xs: Vec<usize> = s.iter().enumerate().map(|(i, &d)| if pos.contains(&i) { 1 } else { d }).collect();
    let mid: Vec<usize> = xs.iter().enumerate().filter(|(i, _)| !pos.contains(i)).map(|(_, &d)| d).collect();
    let x = b.param("f32", &xs);
    let (a, c) = (axes_text(b.rng, &pos, xs.len()), axes_text(b.rng, &pos, xs.len()));
    let (ca, cc) = (b.ints(&a), b.ints(&c));
    let q = b.op(&format!("onnx.Squeeze %{x}, %{ca}"), &ty("f32", &mid));
    let u = b.op(&format!("onnx.Unsqueeze %{q}, %{cc}"), &ty("f32", &xs));
    b.ret(&u, &ty("f32", &xs));
    "unsqueeze-squeeze"
}

/// Expand to its own shape, Concat of one input, whole-tensor Slice.
fn misc(b: &mut B, kind: usize, s: &[usize]) -> &'static str {
    let x = b.param("f32", s);
    let t = ty("f32", s);
    let (rhs, rule) = match kind {
        20 => {
            let sh: Vec<i64> = sub_shape(b.rng, s).iter().map(|&d| d as i64).collect();
            let c = b.ints(&sh);
            (format!("onnx.Expand %{x}, %{c}"), "expand-identity")
        }
        21 => {
            let axis = b.rng.below(2 * s.len()) as i64 - s.len() as i64;
            (format!("onnx.Concat %{x} {{axis = {axis}}}"), "concat-single")
        }
        _ => {
            let mut axes = b.rng.perm(s.len());
            axes.truncate(1 + b.rng.below(s.len()));
            let starts: Vec<i64> = axes.iter().map(|&a| if b.rng.coin() { 0 } else { -(s[a] as i64) - 3 }).collect();
            let ends: Vec<i64> =
                axes.iter().map(|&a| [s[a] as i64, s[a] as i64 + 7, i64::MAX][b.rng.below(3)]).collect();
            let ax: Vec<i64> =
                axes.iter().map(|&a| if b.rng.coin() { a as i64 - s.len() as i64 } else { a as i64 }).collect();
            let (cs, ce, ca) = (b.ints(&starts), b.ints(&ends), b.ints(&ax));
            let rhs = match b.rng.below(3) {
                0 if axes.len() == s.len() && axes.iter().enumerate().all(|(i, &a)| a == i) => {
                    format!("onnx.Slice %{x}, %{cs}, %{ce}")
                }
                1 => {
                    let ones = b.ints(&vec![1; axes.len()]);
                    format!("onnx.Slice %{x}, %{cs}, %{ce}, %{ca}, %{ones}")
                }
                _ => format!("onnx.Slice %{x}, %{cs}, %{ce}, %{ca}"),
            };
            (rhs, "slice-full")
        }
    };
    let y = b.op(&rhs, &t);
    b.ret(&y, &t);
    rule
}

/// One negative case: the module, its inputs and the rules that must NOT fire.
fn negative(kind: usize, s: &[usize], r: &mut Rng) -> (String, Vec<Tensor>, [&'static str; 2]) {
    let mut b = B::new(r);
    let rules = if kind == 0 {
        // x + (+0.0) on floats: -0.0 + 0.0 = +0.0, so it is not x. Force a -0.0 input.
        let x = b.param("f32", s);
        if let Some(Data::F32(v)) = b.inputs.last_mut().map(|t| &mut t.data) {
            v[0] = -0.0;
        }
        let ks = sub_shape(b.rng, s);
        let k = b.splat("f32", &ks, "0.0");
        let rhs = if b.rng.coin() { format!("onnx.Add %{x}, %{k}") } else { format!("onnx.Add %{k}, %{x}") };
        let y = b.op(&rhs, &ty("f32", s));
        b.ret(&y, &ty("f32", s));
        ["add-neg-zero", "add-neg-zero-left"]
    } else {
        // x * 1 where the constant broadcasts x to a larger shape.
        let dt = num_dtype(b.rng);
        let x = b.param(dt, s);
        let mut big = s.to_vec();
        big.insert(0, 2 + b.rng.below(2));
        let k = b.splat(dt, &big, if dt == "f32" { "1.0" } else { "1" });
        let rhs = if b.rng.coin() { format!("onnx.Mul %{x}, %{k}") } else { format!("onnx.Mul %{k}, %{x}") };
        let y = b.op(&rhs, &ty(dt, &big));
        b.ret(&y, &ty(dt, &big));
        ["mul-one", "mul-one-left"]
    };
    let (src, inputs) = b.build();
    (src, inputs, rules)
}

/// Element-wise identical: same bits, except that any NaN equals any NaN.
fn same_bits(a: &Tensor, b: &Tensor) -> bool {
    if a.shape != b.shape || a.dtype() != b.dtype() {
        return false;
    }
    match (&a.data, &b.data) {
        (Data::F32(x), Data::F32(y)) => {
            x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
        }
        _ => a.to_le_bytes() == b.to_le_bytes(),
    }
}

const EXACT: Tolerance = Tolerance { rtol: 0.0, atol: 0.0 };

/// Optimize, compare (exact), and also compare bit patterns (the tolerance
/// check treats -0.0 == +0.0).
fn check(src: &str, inputs: &[Tensor]) -> Result<testsuite::rulecheck::RuleRun, String> {
    let m = ir::text::parse_module(src, "case", None).map_err(|e| format!("{e}\n{src}"))?.module;
    let run =
        optimize_and_compare(&m, "shape-infer,cleanup,dce", None, inputs, EXACT).map_err(|e| format!("{e}\n{src}"))?;
    let want = ir::interp::run(&m, "main", inputs.to_vec()).map_err(|e| e.to_string())?;
    let got = ir::interp::run(&run.optimized, "main", inputs.to_vec()).map_err(|e| e.to_string())?;
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        if !same_bits(g, w) {
            return Err(format!("output {i} differs in bits: {g:?} vs {w:?}\n{src}"));
        }
    }
    Ok(run)
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=4, 1..=4)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 460, ..ProptestConfig::default() })]

    #[test]
    fn cleanup_rules_fire_and_are_exact(kind in 0..POSITIVE_KINDS, s in shape(), seed in any::<u64>()) {
        let mut r = Rng(seed);
        let (src, inputs, rule) = positive(kind, &s, &mut r);
        let run = check(&src, &inputs).map_err(TestCaseError::fail)?;
        prop_assert!(run.count(rule) > 0, "rule {rule} did not fire on\n{src}\nfired: {:?}", run.fired);
        prop_assert!(run.ops.1 < run.ops.0, "op count did not drop ({:?}) on\n{src}", run.ops);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn cleanup_negatives_do_not_fire(kind in 0usize..2, s in shape(), seed in any::<u64>()) {
        let mut r = Rng(seed);
        let (src, inputs, rules) = negative(kind, &s, &mut r);
        let run = check(&src, &inputs).map_err(TestCaseError::fail)?;
        for rule in rules {
            prop_assert_eq!(run.count(rule), 0, "rule {} fired on\n{}", rule, src);
        }
        prop_assert_eq!(run.ops.0, run.ops.1, "an op was removed from\n{}", src);
    }
}
