//! Random IR builders for the fusion proptests: a deterministic generator, a
//! module builder, and the fusable bases (Conv, ConvTranspose, MatMul, Gemm).
//!
//! Values are drawn from small binary grids (multiples of 1/8 or 1/16), so the
//! convolutions and matrix products themselves are exact in `f32`; only rules
//! that genuinely change rounding (BN folding) produce differences.

use ir::interp::{Data, Tensor};

/// The shared deterministic generator.
pub use testsuite::rulecheck::Rng;

pub fn ty(shape: &[usize]) -> String {
    testsuite::rulecheck::ty("f32", shape)
}

/// A float literal that parses back to the same `f32`.
pub fn lit(x: f32) -> String {
    format!("{x:?}")
}

/// Builds a module `@main` in IR text, with random inputs for its parameters.
pub struct B<'a> {
    pub rng: &'a mut Rng,
    consts: Vec<String>,
    params: Vec<String>,
    ops: Vec<String>,
    rets: Vec<(String, String)>,
    inputs: Vec<Tensor>,
    n: usize,
}

impl<'a> B<'a> {
    pub fn new(rng: &'a mut Rng) -> Self {
        B { rng, consts: vec![], params: vec![], ops: vec![], rets: vec![], inputs: vec![], n: 0 }
    }
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("v{}", self.n)
    }
    /// An f32 parameter with grid values in [-2, 2].
    pub fn param(&mut self, shape: &[usize]) -> String {
        let name = format!("p{}", self.params.len());
        self.params.push(format!("%{name}: {}", ty(shape)));
        let len: usize = shape.iter().product();
        let data = Data::F32((0..len).map(|_| self.rng.grid(-2.0, 2.0, 1.0 / 16.0)).collect());
        self.inputs.push(Tensor::new(shape.to_vec(), data));
        name
    }
    /// An f32 constant with the given values.
    pub fn konst(&mut self, shape: &[usize], vals: &[f32]) -> String {
        let name = self.fresh();
        let v: Vec<String> = vals.iter().map(|&x| lit(x)).collect();
        self.consts.push(format!("  const @{name} : {} = dense<[{}]>", ty(shape), v.join(", ")));
        self.ops.push(format!("    %{name} = core.const {{value = @{name}}} : {}", ty(shape)));
        name
    }
    /// A constant with grid values in `[lo, hi]` (step 1/8).
    pub fn rand_const(&mut self, shape: &[usize], lo: f32, hi: f32) -> String {
        let n: usize = shape.iter().product();
        let v: Vec<f32> = (0..n).map(|_| self.rng.grid(lo, hi, 0.125)).collect();
        self.konst(shape, &v)
    }
    /// `%new = <rhs> : <ty>`.
    pub fn op(&mut self, rhs: &str, shape: &[usize]) -> String {
        let name = self.fresh();
        self.ops.push(format!("    %{name} = {rhs} : {}", ty(shape)));
        name
    }
    pub fn ret(&mut self, v: &str, shape: &[usize]) {
        self.rets.push((v.to_string(), ty(shape)));
    }
    pub fn build(self) -> (String, Vec<Tensor>) {
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

/// Which fusable op a base is.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Kind {
    Conv,
    ConvTranspose,
    MatMul,
    Gemm,
}

/// A fusable value: its name, result shape, channel axis and the rule that
/// canonicalizes it.
pub struct Base {
    pub val: String,
    pub shape: Vec<usize>,
    pub axis: usize,
    pub canon: &'static str,
}

impl Base {
    pub fn channels(&self) -> usize {
        self.shape[self.axis]
    }
    /// A shape for a per-output-channel constant (possibly a scalar).
    pub fn channel_shape(&self, r: &mut Rng) -> Vec<usize> {
        let rank = self.shape.len();
        let c = self.channels();
        match r.below(5) {
            0 => vec![],
            1 => vec![1],
            2 if self.axis == rank - 1 => vec![c],
            _ => {
                // Right-aligned suffix starting at or before the channel axis.
                let from = r.below(self.axis + 1);
                (from..rank).map(|i| if i == self.axis { c } else { 1 }).collect()
            }
        }
    }
}

/// A random base of `kind`; `big` forces spatial/row dims ≥ 2 (for negatives).
pub fn base(b: &mut B, kind: Kind, big: bool) -> Base {
    match kind {
        Kind::Conv => conv(b, big),
        Kind::ConvTranspose => conv_transpose(b, big),
        Kind::MatMul => matmul(b, big),
        Kind::Gemm => gemm(b, big),
    }
}

fn conv(b: &mut B, big: bool) -> Base {
    let r = &mut *b.rng;
    let (n, c) = (1 + r.below(2), 1 + r.below(3));
    let lo = if big { 2 } else { 1 };
    let (h, w) = (lo + r.below(4), lo + r.below(4));
    let (g, m) = if r.below(3) == 0 { (c, c * (1 + r.below(2))) } else { (1, 1 + r.below(4)) };
    let (p, s) = if big { (0, 1) } else { (r.below(2), 1 + r.below(2)) };
    let k = if big { 1 } else { 1 + r.below(3.min(h.min(w) + 2 * p)) };
    let (oh, ow) = ((h + 2 * p - k) / s + 1, (w + 2 * p - k) / s + 1);
    let with_bias = r.coin();
    let x = b.param(&[n, c, h, w]);
    let wt = b.rand_const(&[m, c / g, k, k], -1.0, 1.0);
    let bias = if with_bias { format!(", %{}", b.rand_const(&[m], -1.0, 1.0)) } else { String::new() };
    let attrs = format!("group = {g}, kernel_shape = [{k}, {k}], pads = [{p}, {p}, {p}, {p}], strides = [{s}, {s}]");
    let shape = vec![n, m, oh, ow];
    let val = b.op(&format!("onnx.Conv %{x}, %{wt}{bias} {{{attrs}}}"), &shape);
    Base { val, shape, axis: 1, canon: "conv-to-core" }
}

fn conv_transpose(b: &mut B, big: bool) -> Base {
    let r = &mut *b.rng;
    let lo = if big { 2 } else { 1 };
    let (n, c, h, w) = (1 + r.below(2), 1 + r.below(3), lo + r.below(3), lo + r.below(3));
    let g = if r.coin() { c } else { 1 };
    let mg = 1 + r.below(2);
    let (k, s) = (1 + r.below(3), 1 + r.below(2));
    let with_bias = r.coin();
    let x = b.param(&[n, c, h, w]);
    let wt = b.rand_const(&[c, mg, k, k], -1.0, 1.0);
    let bias = if with_bias { format!(", %{}", b.rand_const(&[mg * g], -1.0, 1.0)) } else { String::new() };
    let shape = vec![n, mg * g, (h - 1) * s + k, (w - 1) * s + k];
    let attrs = format!("group = {g}, kernel_shape = [{k}, {k}], strides = [{s}, {s}]");
    let val = b.op(&format!("onnx.ConvTranspose %{x}, %{wt}{bias} {{{attrs}}}"), &shape);
    Base { val, shape, axis: 1, canon: "conv-transpose-to-core" }
}

fn matmul(b: &mut B, big: bool) -> Base {
    let r = &mut *b.rng;
    let batch = if r.coin() { vec![1 + r.below(2)] } else { vec![] };
    let (m, k, n) = (1 + r.below(3) + usize::from(big), 1 + r.below(4), 1 + r.below(4));
    let mut a_shape = batch.clone();
    a_shape.extend([m, k]);
    let a = b.param(&a_shape);
    let w = b.rand_const(&[k, n], -1.0, 1.0);
    let mut shape = batch;
    shape.extend([m, n]);
    let val = b.op(&format!("onnx.MatMul %{a}, %{w}"), &shape);
    let axis = shape.len() - 1;
    Base { val, shape, axis, canon: "matmul-to-linear" }
}

fn gemm(b: &mut B, big: bool) -> Base {
    let r = &mut *b.rng;
    let (m, k, n) = (1 + r.below(3) + usize::from(big), 1 + r.below(4), 1 + r.below(4));
    let trans_b = r.coin();
    let c_kind = r.below(3);
    let alpha = r.pick(&["", "alpha = 1.0"]);
    let beta = r.pick(&["", "beta = 1.0"]);
    let a = b.param(&[m, k]);
    let ws = if trans_b { [n, k] } else { [k, n] };
    let w = b.rand_const(&ws, -1.0, 1.0);
    let c = match c_kind {
        0 => String::new(),
        1 => format!(", %{}", b.rand_const(&[n], -1.0, 1.0)),
        _ => format!(", %{}", b.rand_const(&[1, n], -1.0, 1.0)),
    };
    let tb = if trans_b { "transB = 1" } else { "" };
    let attrs: Vec<&str> = [alpha, beta, tb].into_iter().filter(|s| !s.is_empty()).collect();
    let attrs = if attrs.is_empty() { String::new() } else { format!(" {{{}}}", attrs.join(", ")) };
    let shape = vec![m, n];
    let val = b.op(&format!("onnx.Gemm %{a}, %{w}{c}{attrs}"), &shape);
    Base { val, shape, axis: 1, canon: "gemm-to-linear" }
}
