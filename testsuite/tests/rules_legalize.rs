//! Differential property tests of the `legalize` rules, which only fire where
//! the target lacks an op:
//! - erf-GELU on `rk3588-npu` (no Erf unit) becomes the tanh approximation
//!   when `gelu-erf-to-tanh` is enabled (an `approximate` rule; never by default).
//!   That is NOT exact: |gelu_tanh(x) - gelu_erf(x)| <= 4.74e-4 for every real
//!   x (maximum near x = ±2.7), so outputs are compared with atol = 5e-4;
//! - LayerNormalization on a test profile without it (a TOML written to a
//!   temporary file) is decomposed; equal up to f32 rounding.
//!
//! On targets that run the op (`cpu` for GELU, `rk3588-npu` for
//! LayerNormalization) the rules must not fire and outputs must be exact.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use proptest::prelude::*;
use std::io::Write;
use testsuite::rulecheck::{optimize_and_compare_approx, RuleRun};

const PIPELINE: &str = "shape-infer,legalize,dce";
const EXACT: Tolerance = Tolerance { rtol: 0.0, atol: 0.0 };
/// Bound on the tanh approximation of GELU (max error ~4.73e-4) plus f32 rounding.
const GELU_TANH: Tolerance = Tolerance { rtol: 0.0, atol: 5e-4 };
/// Decomposed LayerNormalization rounds every step to f32 (inputs are kept
/// away from constant rows, see [`spread`]).
const LAYER_NORM: Tolerance = Tolerance { rtol: 1e-4, atol: 1e-4 };

/// A device that runs every op except onnx.LayerNormalization.
const NO_LAYER_NORM_PROFILE: &str = r#"
name = "no-layernorm"
description = "test device without LayerNormalization"

[default]
supported = true
ns_per_mac = 0.01
ns_per_elem = 0.1
ns_fixed = 10

[ops."onnx.LayerNormalization"]
supported = false
reason = "no LayerNormalization unit"
"#;

/// The test profile, validated, in a temporary file (kept alive for the test).
fn profile_file() -> tempfile::NamedTempFile {
    passes::target::TargetProfile::parse(NO_LAYER_NORM_PROFILE, "no-layernorm.toml").expect("test profile parses");
    let mut f = tempfile::Builder::new().suffix(".toml").tempfile().expect("temp file");
    f.write_all(NO_LAYER_NORM_PROFILE.as_bytes()).expect("write profile");
    f
}

fn ty(shape: &[usize]) -> String {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    format!("f32[{}]", dims.join(", "))
}

fn floats(v: &[f32]) -> String {
    v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ")
}

/// `y = Gelu(x + c)` (the Add keeps the GELU off a parameter), with the
/// approximate attribute omitted or "none".
fn gelu_case(shape: &[usize], explicit: bool, c: f32) -> String {
    let attr = if explicit { " {approximate = \"none\"}" } else { "" };
    let t = ty(shape);
    format!(
        "module @m attributes {{phase = \"onnx\"}} {{
  const @c : f32[] = dense<[{c:?}]>

  func @main(%x: {t}) -> ({t}) {{
    %c = core.const {{value = @c}} : f32[]
    %0 = onnx.Add %x, %c : {t}
    %1 = onnx.Gelu %0{attr} : {t}
    return %1
  }}
}}
"
    )
}

/// `y = LayerNormalization(x, scale[, bias]) {axis, epsilon}`.
fn layer_norm_case(shape: &[usize], axis: i64, eps: f32, scale: &[f32], bias: Option<&[f32]>) -> String {
    let r = shape.len() as i64;
    let norm = &shape[(if axis < 0 { axis + r } else { axis }) as usize..];
    let (t, st) = (ty(shape), ty(norm));
    let (bc, bo, bv) = match bias {
        Some(b) => (
            format!("  const @b : {st} = dense<[{}]>\n", floats(b)),
            format!("    %b = core.const {{value = @b}} : {st}\n"),
            ", %b",
        ),
        None => (String::new(), String::new(), ""),
    };
    format!(
        "module @m attributes {{phase = \"onnx\"}} {{
  const @s : {st} = dense<[{}]>
{bc}
  func @main(%x: {t}) -> ({t}) {{
    %s = core.const {{value = @s}} : {st}
{bo}    %0 = onnx.LayerNormalization %x, %s{bv} {{axis = {axis}, epsilon = {eps:e}}} : {t}
    return %0
  }}
}}
",
        floats(scale)
    )
}

fn run(src: &str, target: &str, inputs: &[Tensor], tol: Tolerance) -> Result<RuleRun, TestCaseError> {
    run_approx(src, target, &[], inputs, tol)
}

fn run_approx(
    src: &str,
    target: &str,
    approx: &[&str],
    inputs: &[Tensor],
    tol: Tolerance,
) -> Result<RuleRun, TestCaseError> {
    let m = ir::text::parse_module(src, "case", None).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?.module;
    optimize_and_compare_approx(&m, PIPELINE, Some(target), approx, inputs, tol)
        .map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))
}

fn count_op(run: &RuleRun, op: &str) -> usize {
    run.optimized.funcs.iter().map(|f| f.live_ops().iter().filter(|&&id| f.ops[id].opcode.name() == op).count()).sum()
}

fn shape(max_rank: usize) -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=4, 1..=max_rank)
}

/// Tensor of `shape` with the given values (cycled).
fn tensor(shape: &[usize], vals: &[f32]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::new(shape.to_vec(), Data::F32((0..n).map(|i| vals[i % vals.len()]).collect()))
}

/// Adds `0.37 * (i mod 7)` to element `i`, so no normalized row is constant:
/// for a constant row the variance is 0 in exact arithmetic and the result is
/// pure rounding noise amplified by `1 / sqrt(epsilon)` (up to ~300x), which
/// differs between the fused kernel and the decomposition.
fn spread(mut t: Tensor) -> Tensor {
    if let Data::F32(v) = &mut t.data {
        for (i, x) in v.iter_mut().enumerate() {
            *x += 0.37 * (i % 7) as f32;
        }
    }
    t
}

fn values(lo: f32, hi: f32) -> impl Strategy<Value = Vec<f32>> {
    prop::collection::vec(prop_oneof![lo..hi, Just(0.0f32), Just(-0.0f32), Just(2.7f32), Just(-2.7f32)], 1..=64)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// The NPU lacks Erf: with the approximation enabled, erf-GELU becomes
    /// tanh-GELU within its bound; the module records it and keeps the exact
    /// function as @main.reference, which gives the original results.
    #[test]
    fn gelu_to_tanh_on_npu(s in shape(4), explicit in any::<bool>(), c in -1.0f32..1.0, v in values(-6.0, 6.0)) {
        let src = gelu_case(&s, explicit, c);
        let x = tensor(&s, &v);
        let r = run_approx(&src, "rk3588-npu", &["gelu-erf-to-tanh"], std::slice::from_ref(&x), GELU_TANH)?;
        prop_assert!(r.count("gelu-erf-to-tanh") > 0, "rule did not fire on\n{src}");
        let main = ir::text::print_module(&r.optimized);
        let main = &main[main.find("func @main(").expect("@main")..];
        let main = &main[..main.find("\n  }").expect("end of @main")];
        prop_assert!(main.contains("approximate = \"tanh\"") && !main.contains("\"none\""), "{main}");
        let recorded = match r.optimized.attrs.get(passes::approx::APPROXIMATIONS) {
            Some(ir::Attr::Strs(v)) => v.clone(),
            _ => vec![],
        };
        prop_assert!(recorded.iter().any(|a| a.starts_with("gelu-erf-to-tanh")), "{recorded:?}");
        let m = ir::text::parse_module(&src, "case", None).expect("parses").module;
        let want = ir::interp::run(&m, "main", vec![x.clone()]).expect("original runs");
        let exact = ir::interp::run(&r.optimized, "main.reference", vec![x]).expect("reference runs");
        prop_assert!(compiler::check::compare(0, &exact[0], &want[0], EXACT).failure.is_none());
    }

    /// Not enabled, the approximation never runs: the NPU keeps erf-GELU
    /// (it falls back to the CPU) and the results are exact.
    #[test]
    fn gelu_not_approximated_unless_asked(s in shape(4), c in -1.0f32..1.0, v in values(-6.0, 6.0)) {
        let src = gelu_case(&s, true, c);
        let r = run(&src, "rk3588-npu", &[tensor(&s, &v)], EXACT)?;
        prop_assert_eq!(r.count("gelu-erf-to-tanh"), 0);
        prop_assert!(r.optimized.attrs.get(passes::approx::APPROXIMATIONS).is_none());
        prop_assert!(!ir::text::print_module(&r.optimized).contains("tanh"));
    }

    /// LayerNormalization is decomposed on a target without it.
    #[test]
    fn layer_norm_decomposed_without_support(
        s in shape(4), axis_pick in 0usize..8, eps_pick in 0usize..3, with_bias in any::<bool>(),
        v in values(-3.0, 3.0), p in prop::collection::vec(-2.0f32..2.0, 64),
    ) {
        let r = s.len() as i64;
        let axis = (axis_pick as i64 % (2 * r)) - r;
        let norm_len: usize = s[(if axis < 0 { axis + r } else { axis }) as usize..].iter().product();
        let eps = [1e-5f32, 1e-3, 0.1][eps_pick];
        let scale: Vec<f32> = (0..norm_len).map(|i| p[i % p.len()]).collect();
        let bias: Vec<f32> = (0..norm_len).map(|i| p[(i + 17) % p.len()]).collect();
        let src = layer_norm_case(&s, axis, eps, &scale, with_bias.then_some(bias.as_slice()));
        let file = profile_file();
        let target = file.path().to_str().expect("utf-8 temp path");
        let run = run(&src, target, &[spread(tensor(&s, &v))], LAYER_NORM)?;
        prop_assert!(run.count("layer-norm-decompose") > 0, "rule did not fire on\n{src}");
        prop_assert_eq!(count_op(&run, "onnx.LayerNormalization"), 0);
        prop_assert_eq!(count_op(&run, "onnx.ReduceMean"), 2);
        prop_assert_eq!(count_op(&run, "onnx.Add"), 1 + usize::from(with_bias));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]

    /// The cpu target runs erf-GELU: nothing is approximated.
    #[test]
    fn gelu_kept_on_cpu(s in shape(4), explicit in any::<bool>(), c in -1.0f32..1.0, v in values(-6.0, 6.0)) {
        let src = gelu_case(&s, explicit, c);
        let r = run(&src, "cpu", &[tensor(&s, &v)], EXACT)?;
        prop_assert_eq!(r.count("gelu-erf-to-tanh"), 0);
        prop_assert!(!ir::text::print_module(&r.optimized).contains("tanh"));
    }

    /// The NPU runs LayerNormalization: it is not decomposed.
    #[test]
    fn layer_norm_kept_on_npu(s in shape(4), with_bias in any::<bool>(), v in values(-3.0, 3.0)) {
        let n = s[s.len() - 1];
        let scale: Vec<f32> = (0..n).map(|i| 0.5 + i as f32).collect();
        let bias = with_bias.then_some(scale.as_slice());
        let src = layer_norm_case(&s, -1, 1e-5, &scale, bias);
        let r = run(&src, "rk3588-npu", &[tensor(&s, &v)], EXACT)?;
        prop_assert_eq!(r.count("layer-norm-decompose"), 0);
        prop_assert_eq!(count_op(&r, "onnx.LayerNormalization"), 1);
    }
}
