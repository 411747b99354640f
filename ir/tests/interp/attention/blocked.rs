//! `core.attention_blocked` against `core.attention`, both through
//! `ir::interp::eval_op`: random shapes, block sizes (1, non-dividing, larger
//! than the sequence), masks (absent, bool, float with `-inf`), causal,
//! window and scale. The `window` attribute is also checked against the same
//! band written as an explicit bool mask. Results agree within rtol 1e-5 / atol 1e-6 (the online softmax sums
//! in another order), NaN (fully masked rows) matching NaN.

use ir::interp::{eval_op, Data, Tensor};
use ir::{Attr, Attrs, Opcode};
use proptest::prelude::*;

/// A small deterministic generator (xorshift64*), so one seed drives all values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `[-1, 1)`.
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn tensor(&mut self, shape: &[usize]) -> Tensor {
        let n = shape.iter().product();
        Tensor::new(shape.to_vec(), Data::F32((0..n).map(|_| self.unit()).collect()))
    }
}

/// One random case.
#[derive(Debug, Clone)]
struct Case {
    b: usize,
    h: usize,
    sq: usize,
    sk: usize,
    d: usize,
    dv: usize,
    bq: i64,
    bk: i64,
    /// 0: none, 1: bool, 2: float.
    mask: u8,
    /// 0: full `[B, H, Sq, Sk]`, 1: `[Sq, Sk]`, 2: `[B, 1, 1, Sk]`.
    mask_shape: u8,
    causal: bool,
    /// K and V shared by every batch and head (`[1, 1, Sk, D]`).
    shared_kv: bool,
    /// `window` attribute (keys `|i - j| <= W` only).
    window: Option<i64>,
    scale: f32,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1usize..=2, 1usize..=3, 1usize..=9, 1usize..=11, 1usize..=5, 1usize..=5),
        (1i64..=12, 1i64..=12, 0u8..=2, 0u8..=2, any::<bool>(), any::<bool>()),
        (0.05f32..2.0, any::<u64>(), proptest::option::of(0i64..=6)),
    )
        .prop_map(
            |((b, h, sq, sk, d, dv), (bq, bk, mask, mask_shape, causal, shared_kv), (scale, seed, window))| Case {
                b,
                h,
                sq,
                sk,
                d,
                dv,
                bq,
                bk,
                mask,
                mask_shape,
                causal,
                shared_kv,
                window,
                scale,
                seed: seed | 1,
            },
        )
}

/// The operands of a case.
fn operands(c: &Case) -> Vec<Option<Tensor>> {
    let mut r = Rng(c.seed);
    let kv = if c.shared_kv { [1, 1] } else { [c.b, c.h] };
    let q = r.tensor(&[c.b, c.h, c.sq, c.d]);
    let k = r.tensor(&[kv[0], kv[1], c.sk, c.d]);
    let v = r.tensor(&[kv[0], kv[1], c.sk, c.dv]);
    let shape: Vec<usize> = match c.mask_shape {
        0 => vec![c.b, c.h, c.sq, c.sk],
        1 => vec![c.sq, c.sk],
        _ => vec![c.b, 1, 1, c.sk],
    };
    let n: usize = shape.iter().product();
    let mask = match c.mask {
        0 => None,
        // About a third masked, so whole rows are often masked for small Sk.
        1 => Some(Tensor::new(shape, Data::Bool((0..n).map(|_| r.below(3) != 0).collect()))),
        _ => Some(Tensor::new(
            shape,
            Data::F32((0..n).map(|_| if r.below(4) == 0 { f32::NEG_INFINITY } else { 3.0 * r.unit() }).collect()),
        )),
    };
    vec![Some(q), Some(k), Some(v), mask]
}

fn attrs(c: &Case) -> Attrs {
    let a = Attrs::new().with("scale", Attr::Float(c.scale)).with("causal", Attr::Int(c.causal as i64));
    match c.window {
        Some(w) => a.with("window", Attr::Int(w)),
        None => a,
    }
}

fn f32s(t: &Tensor) -> &[f32] {
    match &t.data {
        Data::F32(v) => v,
        d => panic!("expected f32, got {:?}", d.dtype()),
    }
}

/// Compare within rtol 1e-5 / atol 1e-6, NaN only matching NaN.
fn check(c: &Case) -> Result<(), TestCaseError> {
    let ops = operands(c);
    let want = eval_op(Opcode::CoreAttention, &ops, attrs(c), 1).map_err(TestCaseError::fail)?;
    let battrs = attrs(c).with("block_q", Attr::Int(c.bq)).with("block_k", Attr::Int(c.bk));
    let got = eval_op(Opcode::CoreAttentionBlocked, &ops, battrs, 1).map_err(TestCaseError::fail)?;
    prop_assert_eq!(&got[0].shape, &want[0].shape);
    for (i, (&g, &w)) in f32s(&got[0]).iter().zip(f32s(&want[0])).enumerate() {
        let ok = if w.is_nan() { g.is_nan() } else { (g - w).abs() <= 1e-6 + 1e-5 * w.abs() };
        prop_assert!(ok, "element {}: blocked {} vs attention {}", i, g, w);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn blocked_matches_attention(c in case()) {
        check(&c)?;
    }
}

/// `window = W` on `core.attention` is the band `|i - j| <= W` as a bool mask
/// (combined with the case's own mask by `And`), bit for bit.
fn check_window_is_band_mask(c: &Case) -> Result<(), TestCaseError> {
    let Some(w) = c.window else { return Ok(()) };
    let mut ops = operands(c);
    let band: Vec<bool> = (0..c.sq).flat_map(|i| (0..c.sk).map(move |j| i.abs_diff(j) as i64 <= w)).collect();
    let band = Tensor::new(vec![c.sq, c.sk], Data::Bool(band));
    ops[3] = match ops[3].take() {
        None => Some(band),
        Some(m) if m.dtype() == ir::DType::Bool => {
            Some(eval_op(Opcode::And, &[Some(m), Some(band)], Attrs::new(), 1).map_err(TestCaseError::fail)?.remove(0))
        }
        // A float mask plus the band: -inf outside it.
        Some(m) => {
            let ninf = Tensor::new(vec![], Data::F32(vec![f32::NEG_INFINITY]));
            let masked = eval_op(Opcode::Where, &[Some(band), Some(m), Some(ninf)], Attrs::new(), 1);
            Some(masked.map_err(TestCaseError::fail)?.remove(0))
        }
    };
    let mut plain = c.clone();
    plain.window = None;
    let want = eval_op(Opcode::CoreAttention, &ops, attrs(&plain), 1).map_err(TestCaseError::fail)?;
    let got = eval_op(Opcode::CoreAttention, &operands(c), attrs(c), 1).map_err(TestCaseError::fail)?;
    let bits = |t: &Tensor| f32s(t).iter().map(|x| if x.is_nan() { u32::MAX } else { x.to_bits() }).collect::<Vec<_>>();
    prop_assert_eq!(bits(&got[0]), bits(&want[0]));
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn window_equals_band_mask(c in case()) {
        check_window_is_band_mask(&c)?;
    }
}

/// Every row fully masked: NaN everywhere, like `core.attention`.
#[test]
fn fully_masked_rows_are_nan() {
    let c = Case {
        b: 1,
        h: 1,
        sq: 3,
        sk: 5,
        d: 2,
        dv: 2,
        bq: 2,
        bk: 2,
        mask: 1,
        mask_shape: 1,
        causal: false,
        shared_kv: false,
        window: None,
        scale: 0.5,
        seed: 7,
    };
    let mut ops = operands(&c);
    ops[3] = Some(Tensor::new(vec![3, 5], Data::Bool(vec![false; 15])));
    let battrs = attrs(&c).with("block_q", Attr::Int(2)).with("block_k", Attr::Int(2));
    let got = eval_op(Opcode::CoreAttentionBlocked, &ops, battrs, 1).unwrap();
    assert!(f32s(&got[0]).iter().all(|x| x.is_nan()));
}

/// A zero or missing block size is an error, not a panic.
#[test]
fn bad_block_sizes_are_errors() {
    let c = Case {
        b: 1,
        h: 1,
        sq: 2,
        sk: 2,
        d: 2,
        dv: 2,
        bq: 1,
        bk: 1,
        mask: 0,
        mask_shape: 0,
        causal: true,
        shared_kv: false,
        window: None,
        scale: 1.0,
        seed: 3,
    };
    let ops = operands(&c);
    let zero = attrs(&c).with("block_q", Attr::Int(0)).with("block_k", Attr::Int(1));
    assert!(eval_op(Opcode::CoreAttentionBlocked, &ops, zero, 1).is_err());
    assert!(eval_op(Opcode::CoreAttentionBlocked, &ops, attrs(&c), 1).is_err());
}
