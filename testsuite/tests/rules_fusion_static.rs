//! Differential property test of `bn-fold-static`: a Conv whose weights and
//! BatchNormalization parameters are static but not constants (each a
//! `ConstantOfShape` plus a literal, as weight-stripped models build them),
//! followed by BN and sometimes Relu, optimized for the cpu target (which
//! prices static ops at 0). The rule must fire, the BN must be gone, and the
//! interpreter outputs must agree within rtol 1e-4 / atol 1e-5 (the folded
//! weights are rounded once more than the unfused chain).

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use proptest::prelude::*;
use testsuite::rulecheck::{optimize_and_compare, Rng};

const TOL: Tolerance = Tolerance { rtol: 1e-4, atol: 1e-5 };

fn list(v: &[f32]) -> String {
    v.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ")
}

/// A static `[dims]` value: `ConstantOfShape(dims, fill) + literal`.
fn static_value(
    name: &str,
    dims: &[usize],
    lo: f32,
    hi: f32,
    r: &mut Rng,
    consts: &mut String,
    body: &mut String,
) -> String {
    let n: usize = dims.iter().product();
    let vals: Vec<f32> = (0..n).map(|_| r.grid(lo, hi, 0.125)).collect();
    let d = dims.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ");
    *consts += &format!("  const @{name}_shape : i64[{}] = dense<[{d}]>\n", dims.len());
    *consts += &format!("  const @{name}_lit : f32[{d}] = dense<[{}]>\n", list(&vals));
    *consts += &format!("  const @{name}_fill : f32[1] = dense<[0.125]>\n");
    *body += &format!("    %{name}_s = core.const {{value = @{name}_shape}} : i64[{}]\n", dims.len());
    *body += &format!("    %{name}_c = onnx.ConstantOfShape %{name}_s {{value = @{name}_fill}} : f32[{d}]\n");
    *body += &format!("    %{name}_l = core.const {{value = @{name}_lit}} : f32[{d}]\n");
    *body += &format!("    %{name} = onnx.Add %{name}_c, %{name}_l : f32[{d}]\n");
    name.to_string()
}

fn case(cin: usize, cout: usize, k: usize, hw: usize, relu: bool, seed: u64) -> (String, Vec<Tensor>) {
    let mut r = Rng(seed | 1);
    let (mut consts, mut body) = (String::new(), String::new());
    let w = static_value("w", &[cout, cin, k, k], -1.0, 1.0, &mut r, &mut consts, &mut body);
    let s = static_value("s", &[cout], 0.5, 2.0, &mut r, &mut consts, &mut body);
    let bb = static_value("bb", &[cout], -1.0, 1.0, &mut r, &mut consts, &mut body);
    let mean = static_value("mean", &[cout], -1.0, 1.0, &mut r, &mut consts, &mut body);
    let var = static_value("var", &[cout], 0.25, 2.0, &mut r, &mut consts, &mut body);
    let oh = hw - k + 1;
    body += &format!("    %y = onnx.Conv %x, %{w} {{kernel_shape = [{k}, {k}]}} : f32[1, {cout}, {oh}, {oh}]\n");
    body +=
        &format!("    %z = onnx.BatchNormalization %y, %{s}, %{bb}, %{mean}, %{var} : f32[1, {cout}, {oh}, {oh}]\n");
    let out = if relu {
        body += &format!("    %o = onnx.Relu %z : f32[1, {cout}, {oh}, {oh}]\n");
        "o"
    } else {
        "z"
    };
    let src = format!(
        "module @m attributes {{phase = \"onnx\"}} {{\n{consts}\n  func @main(%x: f32[1, {cin}, {hw}, {hw}]) -> (f32[1, {cout}, {oh}, {oh}]) {{\n{body}    return %{out}\n  }}\n}}\n"
    );
    let n = cin * hw * hw;
    let x = Tensor::new(vec![1, cin, hw, hw], Data::F32((0..n).map(|_| r.grid(-1.0, 1.0, 0.125)).collect()));
    (src, vec![x])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn bn_folds_over_static_weights(cin in 1usize..4, cout in 1usize..5, k in 1usize..4, extra in 0usize..4, relu in any::<bool>(), seed in any::<u64>()) {
        let (src, inputs) = case(cin, cout, k, k + extra, relu, seed);
        let m = ir::text::parse_module(&src, "case", None).map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?.module;
        let run = optimize_and_compare(&m, "shape-infer,optimize,dce", Some("cpu"), &inputs, TOL)
            .map_err(|e| TestCaseError::fail(format!("{e}\n{src}")))?;
        prop_assert!(run.count("bn-fold-static") > 0, "rule did not fire:\n{}", src);
        let f = run.optimized.func("main").unwrap();
        let bn = f.live_ops().iter().filter(|&&id| f.ops[id].opcode == ir::Opcode::BatchNormalization).count();
        prop_assert_eq!(bn, 0, "BN left in\n{}", ir::text::print_module(&run.optimized));
    }
}
