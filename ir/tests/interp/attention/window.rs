//! Kernels of the window ops through `ir::interp::eval_op`, on random shapes
//! (batch, windows per axis, window size, channels, heads, shift on/off,
//! bias/mask on/off):
//!
//! * `core.window_partition` equals the unfused chain (roll as `core.slice` +
//!   `onnx.Concat` per axis, `core.reshape` to 6-D, `onnx.Transpose
//!   [0,1,3,2,4,5]`, `core.reshape` to `[B·nW, N, C]`), bit for bit;
//! * `core.window_merge` equals the reverse chain, and merge ∘ partition is the
//!   identity (also on i64 data);
//! * `core.window_attention` equals the unfused `scores * scale` chain bit for
//!   bit, and `core.attention` with `bias + mask[b % nW]` pre-added as its mask
//!   within rtol 1e-5 / atol 1e-5 (one rounding of `bias + mask` instead of two
//!   adds; scores near the -100 mask carry half an ulp of 100, 3.8e-6, each);
//! * bad attributes and shapes are errors, never panics.

use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// A small deterministic generator (SplitMix64), so one seed drives all values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in `[-1, 1)`.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn tensor(&mut self, shape: &[usize]) -> Tensor {
        let n = shape.iter().product();
        Tensor::new(shape.to_vec(), Data::F32((0..n).map(|_| self.unit()).collect()))
    }
}

/// One random windowing.
#[derive(Clone, Debug)]
struct Case {
    b: usize,
    /// Windows per column / per row.
    nh: usize,
    nw: usize,
    wh: usize,
    ww: usize,
    c: usize,
    heads: usize,
    shift: bool,
    bias: bool,
    mask: bool,
    seed: u64,
}

impl Case {
    fn hw(&self) -> [usize; 2] {
        [self.nh * self.wh, self.nw * self.ww]
    }
    fn windows(&self) -> usize {
        self.nh * self.nw
    }
    fn tokens(&self) -> usize {
        self.wh * self.ww
    }
    /// A shift in range (zero when `shift` is off), drawn from the seed.
    fn shifts(&self) -> [i64; 2] {
        if !self.shift {
            return [0, 0];
        }
        let mut r = Rng(self.seed ^ 0x5eed);
        let [h, w] = self.hw();
        [r.below(h) as i64, r.below(w) as i64]
    }
    fn attrs(&self) -> Attrs {
        let mut a = Attrs::new().with("window", Attr::Ints(vec![self.wh as i64, self.ww as i64]));
        if self.shift {
            a = a.with("shift", Attr::Ints(self.shifts().to_vec()));
        }
        a
    }
    fn merge_attrs(&self) -> Attrs {
        let [h, w] = self.hw();
        self.attrs().with("size", Attr::Ints(vec![h as i64, w as i64]))
    }
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1usize..=2, 1usize..=3, 1usize..=3, 1usize..=4, 1usize..=4),
        (1usize..=5, 1usize..=3, any::<bool>(), any::<bool>(), any::<bool>(), any::<u64>()),
    )
        .prop_map(|((b, nh, nw, wh, ww), (c, heads, shift, bias, mask, seed))| Case {
            b,
            nh,
            nw,
            wh,
            ww,
            c,
            heads,
            shift,
            bias,
            mask,
            seed,
        })
}

/// Run one single-result op.
fn run(op: Opcode, inputs: Vec<Option<Tensor>>, attrs: Attrs) -> Result<Tensor, String> {
    eval_op(op, &inputs, attrs, 1)?.pop().ok_or_else(|| "no result".into())
}

fn reshape(x: Tensor, shape: &[usize]) -> Result<Tensor, String> {
    let s = shape.iter().map(|&d| d as i64).collect();
    run(Opcode::CoreReshape, vec![Some(x)], Attrs::new().with("shape", Attr::Ints(s)))
}

fn transpose(x: Tensor, perm: &[i64]) -> Result<Tensor, String> {
    run(Opcode::Transpose, vec![Some(x)], Attrs::new().with("perm", Attr::Ints(perm.to_vec())))
}

fn slice(x: &Tensor, axis: i64, start: i64, end: i64) -> Result<Tensor, String> {
    let l = |v: i64| Attr::Ints(vec![v]);
    let a = Attrs::new().with("axes", l(axis)).with("starts", l(start)).with("ends", l(end)).with("steps", l(1));
    run(Opcode::CoreSlice, vec![Some(x.clone())], a)
}

/// `torch.roll(x, -k, axis)` as torch.onnx exports it: `Concat(x[k:], x[:k])`.
fn roll_back(x: Tensor, axis: i64, k: i64) -> Result<Tensor, String> {
    if k == 0 {
        return Ok(x);
    }
    let n = x.shape[axis as usize] as i64;
    let parts = vec![Some(slice(&x, axis, k, n)?), Some(slice(&x, axis, 0, k)?)];
    run(Opcode::Concat, parts, Attrs::new().with("axis", Attr::Int(axis)))
}

const SWAP: [i64; 6] = [0, 1, 3, 2, 4, 5];

/// The unfused partition chain.
fn partition_chain(c: &Case, x: Tensor) -> Result<Tensor, String> {
    let [sh, sw] = c.shifts();
    let [h, w] = c.hw();
    let x = roll_back(roll_back(x, 1, sh)?, 2, sw)?;
    let x = transpose(reshape(x, &[c.b, c.nh, c.wh, c.nw, c.ww, c.c])?, &SWAP)?;
    debug_assert_eq!(h * w, c.windows() * c.tokens());
    reshape(x, &[c.b * c.windows(), c.tokens(), c.c])
}

/// The unfused merge chain (its reverse roll is a roll back by `n - shift`).
fn merge_chain(c: &Case, x: Tensor) -> Result<Tensor, String> {
    let [sh, sw] = c.shifts();
    let [h, w] = c.hw();
    let x = transpose(reshape(x, &[c.b, c.nh, c.nw, c.wh, c.ww, c.c])?, &SWAP)?;
    let x = reshape(x, &[c.b, h, w, c.c])?;
    roll_back(roll_back(x, 1, (h as i64 - sh) % h as i64)?, 2, (w as i64 - sw) % w as i64)
}

fn layout_case(c: &Case) -> Result<(), TestCaseError> {
    let [h, w] = c.hw();
    let x = Rng(c.seed).tensor(&[c.b, h, w, c.c]);
    let fail = TestCaseError::fail;
    let got = run(Opcode::CoreWindowPartition, vec![Some(x.clone())], c.attrs()).map_err(fail)?;
    let want = partition_chain(c, x.clone()).map_err(fail)?;
    prop_assert_eq!(&got, &want);
    let back = run(Opcode::CoreWindowMerge, vec![Some(got.clone())], c.merge_attrs()).map_err(fail)?;
    prop_assert_eq!(&back, &x, "merge(partition(x)) != x");
    let chain = merge_chain(c, got).map_err(fail)?;
    prop_assert_eq!(&back, &chain);
    Ok(())
}

/// Operands of a window attention case: Q, K, V `[B·nW, heads, N, D]`, bias
/// `[heads, N, N]` or `[1, heads, N, N]`, mask `[nW, N, N]` with 0 / -100 entries.
fn attention_operands(c: &Case) -> Vec<Option<Tensor>> {
    let mut r = Rng(c.seed);
    let (bw, n, d) = (c.b * c.windows(), c.tokens(), c.c);
    let qkv = [d, d, d + 1].map(|dd| r.tensor(&[bw, c.heads, n, dd]));
    let bias = c.bias.then(|| {
        let shape: &[usize] = if c.shift { &[1, c.heads, n, n] } else { &[c.heads, n, n] };
        r.tensor(shape)
    });
    let mask = c.mask.then(|| {
        let v = (0..c.windows() * n * n).map(|_| if r.below(3) == 0 { -100.0 } else { 0.0 }).collect();
        Tensor::new(vec![c.windows(), n, n], Data::F32(v))
    });
    let [q, k, v] = qkv;
    vec![Some(q), Some(k), Some(v), bias, mask]
}

fn attention_attrs(c: &Case, scale: f32) -> Attrs {
    let nw = if c.mask { c.windows() } else { 1 };
    Attrs::new().with("scale", Attr::Float(scale)).with("num_windows", Attr::Int(nw as i64))
}

fn binary(op: Opcode, a: &Tensor, b: &Tensor) -> Result<Tensor, String> {
    run(op, vec![Some(a.clone()), Some(b.clone())], Attrs::new())
}

/// The unfused `scores * scale` chain with the 5-D mask add.
fn attention_chain(c: &Case, ops: &[Option<Tensor>], scale: f32) -> Result<Tensor, String> {
    let (q, k, v) = (ops[0].clone().unwrap(), ops[1].clone().unwrap(), ops[2].as_ref().unwrap());
    let (bw, n) = (c.b * c.windows(), c.tokens());
    let s = binary(Opcode::MatMul, &q, &transpose(k, &[0, 1, 3, 2])?)?;
    let mut s = binary(Opcode::Mul, &s, &Tensor::scalar_f32(scale))?;
    if let Some(b) = &ops[3] {
        s = binary(Opcode::Add, &s, b)?;
    }
    if let Some(m) = &ops[4] {
        let m5 = reshape(m.clone(), &[1, c.windows(), 1, n, n])?;
        let s5 = binary(Opcode::Add, &reshape(s, &[c.b, c.windows(), c.heads, n, n])?, &m5)?;
        s = reshape(s5, &[bw, c.heads, n, n])?;
    }
    let p = run(Opcode::Softmax, vec![Some(s)], Attrs::new().with("axis", Attr::Int(-1)))?;
    binary(Opcode::MatMul, &p, v)
}

/// `bias + mask[b % nW]` as one `[B·nW, heads, N, N]` float mask.
fn full_mask(c: &Case, ops: &[Option<Tensor>]) -> Result<Option<Tensor>, String> {
    let (bw, n) = (c.b * c.windows(), c.tokens());
    let mut m = Tensor::new(vec![bw, c.heads, n, n], Data::F32(vec![0.0; bw * c.heads * n * n]));
    if let Some(b) = &ops[3] {
        m = binary(Opcode::Add, &m, b)?;
    }
    if let Some(w) = &ops[4] {
        let tiled = Data::F32((0..bw).flat_map(|b| f32s(w)[(b % c.windows()) * n * n..][..n * n].to_vec()).collect());
        let t = reshape(Tensor::new(vec![bw, n, n], tiled), &[bw, 1, n, n])?;
        m = binary(Opcode::Add, &m, &t)?;
    }
    Ok((ops[3].is_some() || ops[4].is_some()).then_some(m))
}

fn f32s(t: &Tensor) -> &[f32] {
    match &t.data {
        Data::F32(v) => v,
        d => panic!("expected f32, got {:?}", d.dtype()),
    }
}

fn attention_case(c: &Case) -> Result<(), TestCaseError> {
    let fail = TestCaseError::fail;
    let ops = attention_operands(c);
    let scale = 1.0 / (c.c as f32).sqrt();
    let got = run(Opcode::CoreWindowAttention, ops.clone(), attention_attrs(c, scale)).map_err(fail)?;
    let chain = attention_chain(c, &ops, scale).map_err(fail)?;
    prop_assert_eq!(&got, &chain, "window_attention differs from the unfused chain");
    let mut aops = ops[..3].to_vec();
    aops.push(full_mask(c, &ops).map_err(fail)?);
    let want = eval_op(Opcode::CoreAttention, &aops, Attrs::new().with("scale", Attr::Float(scale)), 1)
        .map_err(fail)?
        .remove(0);
    prop_assert_eq!(&got.shape, &want.shape);
    for (i, (&g, &w)) in f32s(&got).iter().zip(f32s(&want)).enumerate() {
        prop_assert!((g - w).abs() <= 1e-5 + 1e-5 * w.abs(), "element {}: window {} vs attention {}", i, g, w);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 192, ..ProptestConfig::default() })]

    #[test]
    fn partition_and_merge_match_the_chains(c in case()) {
        layout_case(&c)?;
    }

    #[test]
    fn window_attention_matches_chain_and_attention(c in case()) {
        attention_case(&c)?;
    }
}

/// Merge ∘ partition is the identity on integer data too (pure index maps).
#[test]
fn round_trip_on_integers() {
    let x = Tensor::new(vec![2, 6, 4, 3], Data::I64((0..144).collect()));
    let a = Attrs::new().with("window", Attr::Ints(vec![3, 2])).with("shift", Attr::Ints(vec![4, 1]));
    let p = run(Opcode::CoreWindowPartition, vec![Some(x.clone())], a.clone()).unwrap();
    assert_eq!(p.shape, vec![8, 6, 3]);
    // Window 0 of image 0 starts at the shifted origin (row 4, column 1).
    assert_eq!(p.data.get_i64(0), (4 * 4 + 1) * 3);
    let m = run(Opcode::CoreWindowMerge, vec![Some(p)], a.with("size", Attr::Ints(vec![6, 4]))).unwrap();
    assert_eq!(m, x);
}

/// Attribute and shape violations are errors naming the problem.
#[test]
fn bad_attributes_are_errors() {
    let x = Tensor::new(vec![1, 4, 4, 2], Data::F32(vec![0.0; 32]));
    let part = |a: Attrs| run(Opcode::CoreWindowPartition, vec![Some(x.clone())], a);
    let win = |v: Vec<i64>| Attrs::new().with("window", Attr::Ints(v));
    assert!(part(win(vec![3, 2])).unwrap_err().contains("divide"));
    assert!(part(win(vec![2])).unwrap_err().contains("two entries"));
    assert!(part(win(vec![2, 2]).with("shift", Attr::Ints(vec![4, 0]))).unwrap_err().contains("shift"));
    assert!(part(Attrs::new()).unwrap_err().contains("window"));
    let empty = Tensor::new(vec![1, 0, 4, 2], Data::F32(vec![]));
    let e = run(Opcode::CoreWindowPartition, vec![Some(empty)], win(vec![1, 2])).unwrap_err();
    assert!(e.contains("no rows"), "{e}");
    // An empty batch of windows merges into an empty batch of images.
    let none = Tensor::new(vec![0, 4, 2], Data::F32(vec![]));
    let merged = run(Opcode::CoreWindowMerge, vec![Some(none)], win(vec![2, 2]).with("size", Attr::Ints(vec![4, 4])));
    assert_eq!(merged.unwrap().shape, vec![0, 4, 4, 2]);
    let w = Tensor::new(vec![3, 4, 2], Data::F32(vec![0.0; 24]));
    let merge = win(vec![2, 2]).with("size", Attr::Ints(vec![4, 4]));
    assert!(run(Opcode::CoreWindowMerge, vec![Some(w)], merge).unwrap_err().contains("multiple"));
    let q = Tensor::new(vec![4, 1, 4, 2], Data::F32(vec![0.5; 32]));
    let bad_mask = Tensor::new(vec![2, 4, 4], Data::F32(vec![0.0; 32]));
    let a = Attrs::new().with("scale", Attr::Float(1.0)).with("num_windows", Attr::Int(4));
    let ops = vec![Some(q.clone()), Some(q.clone()), Some(q.clone()), None, Some(bad_mask)];
    assert!(run(Opcode::CoreWindowAttention, ops, a.clone()).unwrap_err().contains("mask"));
    let three = a.with("num_windows", Attr::Int(3));
    assert!(run(Opcode::CoreWindowAttention, vec![Some(q.clone()), Some(q.clone()), Some(q)], three)
        .unwrap_err()
        .contains("multiple"));
}
