//! Differential property tests of the `window` and `window-lower` rules.
//!
//! 1. Recognition (`shape-infer,canonicalize,optimize,dce` for cpu): a random
//!    Swin window-attention block written as torch.onnx exports it (optional
//!    torch.roll as Slice+Concat per axis, 6-D Reshape/Transpose partition in
//!    the torchvision or timm form, qkv MatMul + 5-D Reshape/Transpose +
//!    Gather, `q * scale` or `scores * scale`, optional relative position bias,
//!    optional window mask through the 5-D view, Softmax, merge, reverse roll)
//!    over random B, H/wh, W/ww, wh, ww, heads, D and shifts. The partition,
//!    merge, roll and attention rules must fire, the result must hold the
//!    window ops and no rank-6 op and no roll left, and match the original.
//! 2. Lowering (the same blocks for rk3588-npu): the window-lower rules fire,
//!    no window op remains, and every op of the result runs natively on the
//!    NPU (so none has rank > 4); outputs match.
//! 3. The explicit `window-lower` pass on random window ops (any shift, bias
//!    shapes `[h,N,N]`, `[1,h,N,N]`, `[N,N]`, constant or an input, window
//!    masks): every op is lowered and outputs match.
//!
//! Tolerance rtol 1e-4 / atol 1e-5: the layout rewrites are exact, but the
//! `q * scale` form scales the scores instead of Q, and the lowering adds one
//! folded `bias + mask` constant instead of two (scores near the -100 mask
//! carry half an ulp of 100, 3.8e-6), so results differ in rounding only.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use passes::target::{OpQuery, Support};
use proptest::prelude::*;
use testsuite::rulecheck::{optimize_and_compare, ty, Rng, RuleRun};

const TOL: Tolerance = Tolerance { rtol: 1e-4, atol: 1e-5 };
const RECOGNIZE: &str = "shape-infer,canonicalize,optimize,dce";
const I64_MAX: i64 = i64::MAX;

/// One random Swin window-attention block.
#[derive(Clone, Debug)]
struct Case {
    b: usize,
    /// Windows per column / per row, window rows / columns.
    nh: usize,
    nw: usize,
    wh: usize,
    ww: usize,
    heads: usize,
    d: usize,
    shift: bool,
    bias: bool,
    mask: bool,
    /// `q * scale` (else `scores * scale`).
    qscale: bool,
    /// timm's two-reshape partition/merge (else torchvision's one reshape).
    timm: bool,
    seed: u64,
}

impl Case {
    fn hw(&self) -> [usize; 2] {
        [self.nh * self.wh, self.nw * self.ww]
    }
    fn c(&self) -> usize {
        self.heads * self.d
    }
    fn n(&self) -> usize {
        self.wh * self.ww
    }
    fn windows(&self) -> usize {
        self.nh * self.nw
    }
    fn bw(&self) -> usize {
        self.b * self.windows()
    }
    /// The cyclic shift (0 where off or where the axis has one element).
    fn shifts(&self) -> [usize; 2] {
        let mut r = Rng(self.seed ^ 0x5117);
        self.hw().map(|n| if self.shift && n > 1 { 1 + r.below(n - 1) } else { 0 })
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1usize..=2, 1usize..=3, 1usize..=3, 1usize..=4, 1usize..=4, 1usize..=2, 1usize..=3),
        (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>(), any::<u64>()),
    )
        .prop_map(|((b, nh, nw, wh, ww, heads, d), (shift, bias, mask, qscale, timm, seed))| Case {
            b,
            nh,
            nw,
            wh,
            ww,
            heads,
            d,
            shift,
            bias,
            mask,
            qscale,
            timm,
            seed,
        })
}

/// Accumulates the constants and ops of one module's text.
#[derive(Default)]
struct Src {
    consts: Vec<String>,
    ops: Vec<String>,
    next: usize,
}

impl Src {
    fn name(&mut self) -> String {
        self.next += 1;
        format!("v{}", self.next)
    }
    /// A constant of type `dtype[dims]` with the literal `values`.
    fn constant(&mut self, dtype: &str, dims: &[usize], values: &[String]) -> String {
        let n = self.name();
        let t = ty(dtype, dims);
        self.consts.push(format!("  const @{n} : {t} = dense<[{}]>", values.join(", ")));
        self.ops.push(format!("    %{n} = core.const {{value = @{n}}} : {t}"));
        format!("%{n}")
    }
    fn ints(&mut self, v: &[i64]) -> String {
        self.constant("i64", &[v.len()], &v.iter().map(|x| x.to_string()).collect::<Vec<_>>())
    }
    fn floats(&mut self, dims: &[usize], v: &[f32]) -> String {
        self.constant("f32", dims, &v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>())
    }
    /// `%vN = text : f32[dims]`.
    fn op(&mut self, text: String, dims: &[usize]) -> String {
        let n = self.name();
        self.ops.push(format!("    %{n} = {text} : {}", ty("f32", dims)));
        format!("%{n}")
    }
    fn reshape(&mut self, x: &str, shape: &[i64], dims: &[usize]) -> String {
        let s = self.ints(shape);
        self.op(format!("onnx.Reshape {x}, {s}"), dims)
    }
    fn transpose(&mut self, x: &str, perm: &[i64], dims: &[usize]) -> String {
        self.op(format!("onnx.Transpose {x} {{perm = {perm:?}}}"), dims)
    }
    fn module(&self, params: &str, results: &str, ret: &str) -> String {
        format!(
            "module @m attributes {{phase = \"onnx\"}} {{\n{}\n\n  func @main({params}) -> ({results}) {{\n{}\n    return {ret}\n  }}\n}}\n",
            self.consts.join("\n"),
            self.ops.join("\n")
        )
    }
}

/// `torch.roll(x, -k, axis)` as torch.onnx writes it: `Concat(x[k:], x[:k])`
/// (with `k` as given: negative for a roll forward), on `[B, H, W, C]` dims.
fn roll(s: &mut Src, x: &str, axis: usize, k: i64, dims: &[usize]) -> String {
    let n = dims[axis] as i64;
    let kk = k.rem_euclid(n) as usize;
    let ax = s.ints(&[axis as i64]);
    let (st, en, z) = (s.ints(&[k]), s.ints(&[I64_MAX]), s.ints(&[0]));
    let mut d1 = dims.to_vec();
    d1[axis] = dims[axis] - kk;
    let a = s.op(format!("onnx.Slice {x}, {st}, {en}, {ax}"), &d1);
    let mut d2 = dims.to_vec();
    d2[axis] = kk;
    let e2 = s.ints(&[k]);
    let b = s.op(format!("onnx.Slice {x}, {z}, {e2}, {ax}"), &d2);
    s.op(format!("onnx.Concat {a}, {b} {{axis = {axis}}}"), dims)
}

/// Random values on a 1/64 grid in `[-1, 1]`.
fn values(r: &mut Rng, n: usize) -> Vec<f32> {
    (0..n).map(|_| r.grid(-1.0, 1.0, 1.0 / 64.0)).collect()
}

/// The scores with the bias and the 5-D window mask added, as exported.
fn bias_and_mask(s: &mut Src, c: &Case, r: &mut Rng, scores: String) -> String {
    let (bw, h, n, nw) = (c.bw(), c.heads, c.n(), c.windows());
    let sd = [bw, h, n, n];
    let mut cur = scores;
    if c.bias {
        let bd: Vec<usize> = if c.timm { vec![1, h, n, n] } else { vec![h, n, n] };
        let bias = s.floats(&bd, &values(r, h * n * n));
        cur = s.op(format!("onnx.Add {cur}, {bias}"), &sd);
    }
    if c.mask {
        let m: Vec<f32> = (0..nw * n * n).map(|_| if r.below(3) == 0 { -100.0 } else { 0.0 }).collect();
        let m5 = s.floats(&[1, nw, 1, n, n], &m);
        let d5 = [c.b, nw, h, n, n];
        let s5 = s.reshape(&cur, &[-1, nw as i64, h as i64, n as i64, n as i64], &d5);
        let a5 = s.op(format!("onnx.Add {s5}, {m5}"), &d5);
        cur = s.reshape(&a5, &[-1, h as i64, n as i64, n as i64], &sd);
    }
    cur
}

/// The attention of the windows `xw [B*nW, N, C]` with the qkv weights `w`.
fn attention(s: &mut Src, c: &Case, r: &mut Rng, xw: &str) -> String {
    let (bw, h, n, d) = (c.bw(), c.heads, c.n(), c.d);
    let qkv = s.op(format!("onnx.MatMul {xw}, %w"), &[bw, n, 3 * c.c()]);
    let r5 = s.reshape(&qkv, &[bw as i64, n as i64, 3, h as i64, d as i64], &[bw, n, 3, h, d]);
    let t5 = s.transpose(&r5, &[2, 0, 3, 1, 4], &[3, bw, h, n, d]);
    let hd = [bw, h, n, d];
    let part: Vec<String> = (0..3)
        .map(|i| {
            let idx = s.constant("i64", &[], &[i.to_string()]);
            s.op(format!("onnx.Gather {t5}, {idx} {{axis = 0}}"), &hd)
        })
        .collect();
    let kt = s.transpose(&part[1], &[0, 1, 3, 2], &[bw, h, d, n]);
    let scale = s.floats(&[], &[1.0 / (d as f32).sqrt()]);
    let sd = [bw, h, n, n];
    let scores = if c.qscale {
        let qs = s.op(format!("onnx.Mul {}, {scale}", part[0]), &hd);
        s.op(format!("onnx.MatMul {qs}, {kt}"), &sd)
    } else {
        let qk = s.op(format!("onnx.MatMul {}, {kt}", part[0]), &sd);
        s.op(format!("onnx.Mul {qk}, {scale}"), &sd)
    };
    let scores = bias_and_mask(s, c, r, scores);
    let p = s.op(format!("onnx.Softmax {scores} {{axis = -1}}"), &sd);
    let o = s.op(format!("onnx.MatMul {p}, {}", part[2]), &hd);
    let o = s.transpose(&o, &[0, 2, 1, 3], &[bw, n, h, d]);
    s.reshape(&o, &[bw as i64, n as i64, c.c() as i64], &[bw, n, c.c()])
}

/// The block's module text and inputs (`x [B, H, W, C]`, `w [C, 3C]`).
fn build(c: &Case) -> (String, Vec<Tensor>) {
    let mut r = Rng(c.seed);
    let mut s = Src::default();
    let ([h, w], cc, n, bw) = (c.hw(), c.c(), c.n(), c.bw());
    let [sh, sw] = c.shifts();
    let img = [c.b, h, w, cc];
    let mut x = "%x".to_owned();
    for (axis, k) in [(1, sh), (2, sw)] {
        if k > 0 {
            x = roll(&mut s, &x, axis, k as i64, &img);
        }
    }
    let (b, nh, nw, wh, ww, ci) = (c.b as i64, c.nh as i64, c.nw as i64, c.wh as i64, c.ww as i64, cc as i64);
    let p6 = s.reshape(&x, &[b, nh, wh, nw, ww, ci], &[c.b, c.nh, c.wh, c.nw, c.ww, cc]);
    let t6 = s.transpose(&p6, &[0, 1, 3, 2, 4, 5], &[c.b, c.nh, c.nw, c.wh, c.ww, cc]);
    let xw = if c.timm {
        let p4 = s.reshape(&t6, &[-1, wh, ww, ci], &[bw, c.wh, c.ww, cc]);
        s.reshape(&p4, &[-1, n as i64, ci], &[bw, n, cc])
    } else {
        s.reshape(&t6, &[bw as i64, n as i64, ci], &[bw, n, cc])
    };
    let a = attention(&mut s, c, &mut r, &xw);
    let m6 = if c.timm {
        let a4 = s.reshape(&a, &[-1, wh, ww, ci], &[bw, c.wh, c.ww, cc]);
        s.reshape(&a4, &[-1, nh, nw, wh, ww, ci], &[c.b, c.nh, c.nw, c.wh, c.ww, cc])
    } else {
        s.reshape(&a, &[b, nh, nw, wh, ww, ci], &[c.b, c.nh, c.nw, c.wh, c.ww, cc])
    };
    let t = s.transpose(&m6, &[0, 1, 3, 2, 4, 5], &[c.b, c.nh, c.wh, c.nw, c.ww, cc]);
    let mut y = s.reshape(&t, &[-1, h as i64, w as i64, ci], &img);
    for (axis, k) in [(1, sh), (2, sw)] {
        if k > 0 {
            y = roll(&mut s, &y, axis, -(k as i64), &img);
        }
    }
    let params = format!("%x: {}, %w: {}", ty("f32", &img), ty("f32", &[cc, 3 * cc]));
    let src = s.module(&params, &ty("f32", &img), &y);
    let inputs = vec![
        Tensor::new(img.to_vec(), Data::F32(values(&mut r, img.iter().product()))),
        Tensor::new(vec![cc, 3 * cc], Data::F32(values(&mut r, 3 * cc * cc))),
    ];
    (src, inputs)
}

fn parse(src: &str) -> Result<ir::Module, TestCaseError> {
    ir::text::parse_module(src, "case", None)
        .map(|p| p.module)
        .map_err(|e| TestCaseError::fail(format!("{e:?}\n{src}")))
}

/// The name of the attention rule that must fire for `c`, if any.
fn attention_rule(c: &Case) -> Option<String> {
    // With D = 1 the scale is 1, and canonicalize removes `x * 1` before the e-graph.
    let form = match (c.d, c.qscale) {
        (1, _) => "",
        (_, true) => "qscale-",
        (_, false) => "mul-",
    };
    match (c.bias, c.mask) {
        (_, true) => Some(format!("window-attention-{form}{}mask", if c.bias { "bias-" } else { "" })),
        (true, false) => Some("window-attention-bias".into()),
        (false, false) => None,
    }
}

/// Ops of the optimized module by name, and the largest rank of any value.
fn census(run: &RuleRun) -> (Vec<String>, usize) {
    let f = &run.optimized.funcs[0];
    let mut names = Vec::new();
    let mut rank = 0;
    for id in f.live_ops() {
        let op = &f.ops[id];
        names.push(op.opcode.name().to_owned());
        for v in op.operands.iter().flatten().chain(op.results.iter()) {
            rank = rank.max(f.ty(*v).rank().unwrap_or(0));
        }
    }
    (names, rank)
}

fn check_recognized(c: &Case) -> Result<(), TestCaseError> {
    let (src, inputs) = build(c);
    let run = optimize_and_compare(&parse(&src)?, RECOGNIZE, Some("cpu"), &inputs, TOL).map_err(TestCaseError::fail)?;
    let fired = |r: &str| run.count(r) > 0;
    prop_assert!(fired("window-partition") && fired("window-merge"), "{:?}\n{}", run.fired, src);
    if c.shifts() != [0, 0] {
        prop_assert!(fired("window-partition-roll") && fired("window-merge-roll"), "{:?}", run.fired);
    }
    let (names, rank) = census(&run);
    let has = |op: &str| names.iter().filter(|n| n.as_str() == op).count();
    prop_assert!(has("core.window_partition") == 1 && has("core.window_merge") == 1, "{:?}", names);
    prop_assert!(rank <= 5 && has("onnx.Concat") == 0, "rank {} / rolls left: {:?}", rank, names);
    if let Some(rule) = attention_rule(c) {
        prop_assert!(fired(&rule), "{} did not fire: {:?}", rule, run.fired);
        prop_assert!(has("core.window_attention") == 1 && has("onnx.Softmax") == 0, "{:?}", names);
    }
    Ok(())
}

/// Every op of the optimized module runs natively on `profile`.
fn all_native(run: &RuleRun, profile: &passes::target::TargetProfile) -> Result<(), String> {
    let f = &run.optimized.funcs[0];
    for id in f.live_ops() {
        let op = &f.ops[id];
        let inputs: Vec<Option<&ir::TensorType>> = op.operands.iter().map(|o| o.map(|v| f.ty(v))).collect();
        let outputs: Vec<ir::TensorType> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
        let q = OpQuery { opcode: op.opcode, attrs: &op.attrs, inputs: &inputs, outputs: &outputs, consts: &[] };
        if let Support::No(why) = profile.support(&q) {
            return Err(why);
        }
    }
    Ok(())
}

fn check_lowered(c: &Case, npu: &passes::target::TargetProfile) -> Result<(), TestCaseError> {
    let (src, inputs) = build(c);
    let run = optimize_and_compare(&parse(&src)?, RECOGNIZE, Some("rk3588-npu"), &inputs, TOL)
        .map_err(TestCaseError::fail)?;
    prop_assert!(run.count("window-lower-partition") > 0 && run.count("window-lower-merge") > 0, "{:?}", run.fired);
    if attention_rule(c).is_some() {
        prop_assert!(run.count("window-lower-attention") > 0, "{:?}", run.fired);
    }
    let (names, rank) = census(&run);
    prop_assert!(!names.iter().any(|n| n.starts_with("core.window_")), "{:?}", names);
    prop_assert!(rank <= 4, "rank {} left: {:?}", rank, names);
    all_native(&run, npu).map_err(|e| TestCaseError::fail(format!("{e}\n{}", ir::text::print_module(&run.optimized))))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn swin_blocks_are_recognized(c in case()) {
        check_recognized(&c)?;
    }

    #[test]
    fn swin_blocks_lower_for_the_npu(c in case()) {
        let npu = codegen::targets::load("rk3588-npu").map_err(|e| TestCaseError::fail(e.to_string()))?;
        check_lowered(&c, &npu)?;
    }
}

/// Window ops with random attributes through the explicit `window-lower` pass.
fn check_explicit(c: &Case, bias_form: u8) -> Result<(), TestCaseError> {
    let mut r = Rng(c.seed ^ 0xe791);
    let mut s = Src::default();
    let ([h, w], cc, n, bw, hd) = (c.hw(), c.c(), c.n(), c.bw(), c.heads);
    let [sh, sw] = c.shifts();
    let win = format!("window = [{}, {}]", c.wh, c.ww);
    let shift = if sh + sw > 0 { format!("shift = [{sh}, {sw}], ") } else { String::new() };
    let p = s.op(format!("core.window_partition %x {{{shift}{win}}}"), &[bw, n, cc]);
    let m = s.op(format!("core.window_merge {p} {{{shift}size = [{h}, {w}], {win}}}"), &[c.b, h, w, cc]);
    let bdims: Vec<usize> = match bias_form {
        0 => vec![hd, n, n],
        1 => vec![1, hd, n, n],
        _ => vec![n, n],
    };
    let bias_input = bias_form == 3;
    let bias = match (c.bias, bias_input) {
        (false, _) => "none".to_owned(),
        (true, true) => "%bias".to_owned(),
        (true, false) => s.floats(&bdims, &values(&mut r, bdims.iter().product())),
    };
    let nw = if c.mask { c.windows() } else { 1 };
    let mask = if c.mask {
        let v: Vec<f32> = (0..nw * n * n).map(|_| if r.below(3) == 0 { -100.0 } else { 0.0 }).collect();
        format!(", {}", s.floats(&[nw, n, n], &v))
    } else {
        String::new()
    };
    let qd = [bw, hd, n, c.d];
    let scale = 1.0 / (c.d as f32).sqrt();
    let a =
        s.op(format!("core.window_attention %q, %k, %v, {bias}{mask} {{num_windows = {nw}, scale = {scale:?}}}"), &qd);
    let mut params = format!("%x: {}, %q: {q}, %k: {q}, %v: {q}", ty("f32", &[c.b, h, w, cc]), q = ty("f32", &qd));
    let mut inputs: Vec<Tensor> = [vec![c.b, h, w, cc], qd.to_vec(), qd.to_vec(), qd.to_vec()]
        .into_iter()
        .map(|d| Tensor::new(d.clone(), Data::F32(values(&mut r, d.iter().product()))))
        .collect();
    if c.bias && bias_input {
        params += &format!(", %bias: {}", ty("f32", &[hd, n, n]));
        inputs.push(Tensor::new(vec![hd, n, n], Data::F32(values(&mut r, hd * n * n))));
    }
    let results = [ty("f32", &[bw, n, cc]), ty("f32", &qd), ty("f32", &[c.b, h, w, cc])].join(", ");
    let src = s.module(&params, &results, &format!("{p}, {a}, {m}"));
    let run = optimize_and_compare(&parse(&src)?, "shape-infer,window-lower,dce", None, &inputs, TOL)
        .map_err(TestCaseError::fail)?;
    for rule in ["window-lower-partition", "window-lower-merge", "window-lower-attention"] {
        prop_assert!(run.count(rule) > 0, "{} did not fire: {:?}\n{}", rule, run.fired, src);
    }
    let (names, _) = census(&run);
    prop_assert!(!names.iter().any(|n| n.starts_with("core.window_")), "{:?}", names);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn explicit_pass_lowers_window_ops(c in case(), bias_form in 0u8..=3) {
        check_explicit(&c, bias_form)?;
    }
}
