//! Differential property tests of the `attention` rules: random `core.attention`
//! nodes (shapes B, H, Sq, Sk, D, Dv; masks absent / bool / float with `-inf`,
//! full or broadcast; causal; scale) through `shape-infer,attention-blocked,dce`.
//! The rule must fire, no `core.attention` may remain, and the outputs must
//! match the original within rtol 1e-5 / atol 1e-6 (NaN rows matching NaN).
//! A second property runs `optimize` for rk3588-npu on long sequences (scores
//! beyond 1 MiB) and checks the blocked form is chosen there.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use proptest::prelude::*;
use testsuite::rulecheck::optimize_and_compare;

const PIPELINE: &str = "shape-infer,attention-blocked,dce";
const TOL: Tolerance = Tolerance { rtol: 1e-5, atol: 1e-6 };

/// One random case.
#[derive(Clone, Debug)]
struct Case {
    b: usize,
    h: usize,
    sq: usize,
    sk: usize,
    d: usize,
    dv: usize,
    /// 0: none, 1: bool, 2: float.
    mask: u8,
    /// Broadcast the mask as `[1, 1, Sq, Sk]` instead of `[B, H, Sq, Sk]`.
    mask_bcast: bool,
    causal: bool,
    scale: f32,
    seed: u64,
}

fn case() -> impl Strategy<Value = Case> {
    (
        (1usize..=2, 1usize..=3, 1usize..=8, 1usize..=9, 1usize..=4, 1usize..=4),
        (0u8..=2, any::<bool>(), any::<bool>(), 0.05f32..2.0, any::<u64>()),
    )
        .prop_map(|((b, h, sq, sk, d, dv), (mask, mask_bcast, causal, scale, seed))| Case {
            b,
            h,
            sq,
            sk,
            d,
            dv,
            mask,
            mask_bcast,
            causal,
            scale,
            seed: seed | 1,
        })
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 23) as f32 - 1.0
    }
    fn tensor(&mut self, shape: &[usize]) -> Tensor {
        let n = shape.iter().product();
        Tensor::new(shape.to_vec(), Data::F32((0..n).map(|_| self.unit()).collect()))
    }
}

fn dims(v: &[usize]) -> String {
    v.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(", ")
}

/// The module source and its inputs.
fn build(c: &Case) -> (String, Vec<Tensor>) {
    let mut r = Rng(c.seed);
    let (qs, ks, vs, ys) =
        ([c.b, c.h, c.sq, c.d], [c.b, c.h, c.sk, c.d], [c.b, c.h, c.sk, c.dv], [c.b, c.h, c.sq, c.dv]);
    let ms = if c.mask_bcast { vec![1, 1, c.sq, c.sk] } else { vec![c.b, c.h, c.sq, c.sk] };
    let mut inputs = vec![r.tensor(&qs), r.tensor(&ks), r.tensor(&vs)];
    let n: usize = ms.iter().product();
    let (mask_arg, mask_op) = match c.mask {
        0 => (String::new(), String::new()),
        1 => {
            inputs.push(Tensor::new(ms.clone(), Data::Bool((0..n).map(|_| !r.next().is_multiple_of(3)).collect())));
            (format!(", %m: bool[{}]", dims(&ms)), ", %m".to_owned())
        }
        _ => {
            let v =
                (0..n).map(|_| if r.next().is_multiple_of(4) { f32::NEG_INFINITY } else { 3.0 * r.unit() }).collect();
            inputs.push(Tensor::new(ms.clone(), Data::F32(v)));
            (format!(", %m: f32[{}]", dims(&ms)), ", %m".to_owned())
        }
    };
    let causal = if c.causal { "causal = 1, " } else { "" };
    let src = format!(
        "module @m attributes {{phase = \"onnx\"}} {{\n  func @main(%q: f32[{q}], %k: f32[{k}], %v: f32[{v}]{mask_arg}) -> \
         (f32[{y}]) {{\n    %0 = core.attention %q, %k, %v{mask_op} {{{causal}scale = {s:?}}} : f32[{y}]\n    return %0\n  }}\n}}\n",
        q = dims(&qs),
        k = dims(&ks),
        v = dims(&vs),
        y = dims(&ys),
        s = c.scale,
    );
    (src, inputs)
}

fn check(c: &Case, pipeline: &str, target: Option<&str>) -> Result<(), TestCaseError> {
    let (src, inputs) = build(c);
    let m = ir::text::parse_module(&src, "case", None).map_err(|e| TestCaseError::fail(format!("{e:?}\n{src}")))?;
    let run = optimize_and_compare(&m.module, pipeline, target, &inputs, TOL).map_err(TestCaseError::fail)?;
    prop_assert!(run.count("attention-blocked") > 0, "rule did not fire:\n{}", src);
    let text = ir::text::print_module(&run.optimized);
    prop_assert!(text.contains("core.attention_blocked") && !text.contains("core.attention "), "{}", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    #[test]
    fn explicit_pass_blocks_exactly(c in case()) {
        check(&c, PIPELINE, None)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// Scores of 1*1*Sq*Sk*4 > 1 MiB (Sq = 512, Sk = 520..640): `optimize` for
    /// rk3588-npu blocks them with tiles that fit 1 MiB.
    #[test]
    fn npu_blocks_large_scores(sk in 520usize..640, causal in any::<bool>(), seed in any::<u64>()) {
        let c = Case { b: 1, h: 1, sq: 512, sk, d: 2, dv: 2, mask: 1, mask_bcast: true, causal, scale: 0.5, seed: seed | 1 };
        check(&c, "shape-infer,optimize,dce", Some("rk3588-npu"))?;
    }
}
