//! The e-graph bridge and the rule-free e-graph passes (`const-fold`, `cse`):
//! control flow and multi-result ops survive the round trip, folding respects
//! its budget, CSE merges equal ops, limits are reported, and every result is
//! checked numerically against the original.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use passes::egraph::analysis::FoldBudget;
use passes::egraph::Limits;
use passes::rules::RuleSet;
use passes::saturate::optimize_module;
use testsuite::rulecheck::optimize_and_compare;

fn parse(src: &str) -> ir::Module {
    ir::text::parse_module(src, "t.eir", None).unwrap_or_else(|e| panic!("{e}")).module
}

fn f32s(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    Tensor::new(shape.to_vec(), Data::F32((0..n).map(|i| (i as f32 * 0.37).sin() * 3.0).collect()))
}

const EXACT: Tolerance = Tolerance { rtol: 0.0, atol: 0.0 };

#[test]
fn regions_and_captures_survive() {
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  func @main(%cond: bool[], %x: f32[2]) -> (f32[2]) {
    %a = onnx.Relu %x : f32[2]
    %b = onnx.Relu %x : f32[2]
    %0 = onnx.If %cond : f32[2] region() {
      %1 = onnx.Add %a, %b : f32[2]
      yield %1
    } region() {
      %2 = onnx.Neg %b : f32[2]
      yield %2
    }
    return %0
  }
}"#,
    );
    for c in [true, false] {
        let cond = Tensor::new(vec![], Data::Bool(vec![c]));
        let run = optimize_and_compare(&m, "cse", None, &[cond, f32s(&[2])], EXACT).expect("same outputs");
        let text = ir::text::print_module(&run.optimized);
        assert_eq!(text.matches("onnx.Relu").count(), 1, "CSE merges the two Relus, also inside regions:\n{text}");
    }
}

#[test]
fn multi_result_ops_survive() {
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  const @k : i64[1] = dense<[2]>
  func @main(%x: f32[3, 4]) -> (f32[3, 2], f32[3, 2], i64[3, 2]) {
    %0, %1 = onnx.Split %x {axis = 1, num_outputs = 2} : f32[3, 2], f32[3, 2]
    %k = core.const {value = @k} : i64[1]
    %v, %i = onnx.TopK %x, %k : f32[3, 2], i64[3, 2]
    %s = onnx.Add %1, %v : f32[3, 2]
    return %0, %s, %i
  }
}"#,
    );
    optimize_and_compare(&m, "const-fold,cse", None, &[f32s(&[3, 4])], EXACT).expect("same outputs");
}

#[test]
fn shape_chains_fold_and_expand_respects_budget() {
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  const @zero : i64[1] = dense<[0]>
  const @big : i64[2] = dense<[4096, 4096]>
  const @one : f32[] = dense<[1.5]>
  func @main(%x: f32[2, 3, 4]) -> (f32[2, 12], f32[4096, 4096]) {
    %s = onnx.Shape %x : i64[3]
    %z = core.const {value = @zero} : i64[1]
    %d0 = onnx.Gather %s, %z : i64[1]
    %m = core.const {value = @big} : i64[2]
    %neg = onnx.Neg %d0 : i64[1]
    %n2 = onnx.Neg %neg : i64[1]
    %half = onnx.Div %neg, %d0 : i64[1]
    %shape = onnx.Concat %n2, %half {axis = 0} : i64[2]
    %r = onnx.Reshape %x, %shape : f32[?, ?]
    %o = core.const {value = @one} : f32[]
    %e = onnx.Expand %o, %m : f32[4096, 4096]
    return %r, %e
  }
}"#,
    );
    let mut out = m.clone();
    let report = optimize_module(&mut out, &RuleSet::default(), None, &Limits::default(), FoldBudget::default())
        .expect("optimizes");
    assert!(!report.funcs[0].limit_hit);
    let want = ir::interp::run(&m, "main", vec![f32s(&[2, 3, 4])]).expect("runs");
    let got = ir::interp::run(&out, "main", vec![f32s(&[2, 3, 4])]).expect("runs");
    assert_eq!(want, got);
    let text = ir::text::print_module(&out);
    assert!(!text.contains("onnx.Shape") && !text.contains("onnx.Concat"), "shape chain folds:\n{text}");
    assert!(text.contains("onnx.Expand"), "a 64 MiB Expand of a scalar must not be folded:\n{text}");
}

#[test]
fn limits_are_reported() {
    // Four identity layers need several iterations to collapse; one is not enough.
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f32[2]) -> (f32[2]) {
    %0 = onnx.Identity %x : f32[2]
    %1 = onnx.Identity %0 : f32[2]
    %2 = onnx.Relu %1 : f32[2]
    return %2
  }
}"#,
    );
    let rules = RuleSet::builtin().expect("rules").only_topics(&["cleanup"]);
    let limits = Limits { max_iters: 1, ..Limits::default() };
    let mut out = m.clone();
    let report = optimize_module(&mut out, &rules, None, &limits, FoldBudget::default()).expect("runs");
    assert!(report.funcs[0].limit_hit, "{report}");
    assert!(report.to_string().contains("LIMIT HIT"), "{report}");
    let limits = Limits { max_enodes: 3, ..Limits::default() };
    let report = optimize_module(&mut m.clone(), &rules, None, &limits, FoldBudget::default()).expect("runs");
    assert!(report.funcs[0].limit_hit && report.to_string().contains("e-node limit"), "{report}");
    let report =
        optimize_module(&mut m.clone(), &rules, None, &Limits::default(), FoldBudget::default()).expect("runs");
    assert!(!report.funcs[0].limit_hit && report.funcs[0].stop == "saturated", "{report}");
}

#[test]
fn unsound_rule_fails_loudly() {
    let mut rules = RuleSet::default();
    // Deliberately wrong: Transpose(x) = x for a non-square matrix changes the type.
    rules
        .add_source("bad.rules", "# wrong on purpose\nrule bad: (onnx.Transpose ?x) => ?x;\n")
        .expect("the file is valid; the rule is unsound");
    let mut m = parse(
        r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f32[2, 3]) -> (f32[3, 2]) {
    %0 = onnx.Transpose %x {perm = [1, 0]} : f32[3, 2]
    return %0
  }
}"#,
    );
    let err = optimize_module(&mut m, &rules, None, &Limits::default(), FoldBudget::default()).unwrap_err();
    assert!(err.contains("unsound rewrite") && err.contains("disagree on type"), "{err}");
}

#[test]
fn unsound_rule_on_constants_fails_loudly() {
    let mut rules = RuleSet::default();
    // Deliberately wrong: Neg(x) = x. Folding gives the Neg class [-1, -2],
    // which the rule merges with [1, 2]: far beyond any rounding.
    rules.add_source("bad.rules", "# wrong on purpose\nrule bad: (onnx.Neg ?x) => ?x;\n").expect("valid file");
    let mut m = parse(
        r#"module @m attributes {phase = "onnx"} {
  const @c : f32[2] = dense<[1.0, 2.0]>
  func @main(%x: f32[2]) -> (f32[2]) {
    %c = core.const {value = @c} : f32[2]
    %n = onnx.Neg %c : f32[2]
    %0 = onnx.Add %x, %n : f32[2]
    return %0
  }
}"#,
    );
    let err = optimize_module(&mut m, &rules, None, &Limits::default(), FoldBudget::default()).unwrap_err();
    assert!(
        err.contains("unsound rewrite") && err.contains("different constants") && err.contains("element 0"),
        "{err}"
    );
}

/// Two folds of one value through forms a rule equates may round
/// differently (a fused op sums in another order); that is not a conflict,
/// but any larger difference, an integer difference or a type change is.
#[test]
fn folded_constants_merge_up_to_rounding() {
    use ir::Constant;
    use passes::egraph::analysis::same_up_to_rounding;
    let f = |v: &[f32]| Constant::from_f32s("c", &[v.len() as u64], v);
    let x = f(&[1.216_016_4, -0.148_168_39, 5.0]);
    let one_ulp = f(&[1.216_016_5, -0.148_168_4, 5.0]);
    assert_eq!(same_up_to_rounding(&x, &one_ulp), Ok(()));
    let off = f(&[1.216_016_4, -0.148_168_39, 5.001]);
    assert!(same_up_to_rounding(&x, &off).unwrap_err().contains("element 2"));
    let inf = f(&[1.216_016_4, -0.148_168_39, f32::INFINITY]);
    assert!(same_up_to_rounding(&inf, &f(&[1.216_016_4, -0.148_168_39, f32::MAX])).is_err());
    let ints = |v: &[i64]| Constant::from_i64s("c", &[v.len() as u64], v);
    assert!(same_up_to_rounding(&ints(&[1, 2]), &ints(&[1, 3])).is_err());
    assert!(same_up_to_rounding(&f(&[1.0]), &Constant::from_f32s("c", &[1, 1], &[1.0])).is_err());
}

/// Extraction charges work shared through a common ancestor once (the
/// refinement by rooted DAG cost, `passes::egraph::refine`): Q, K and V all
/// come from one projection of `x`, so per-operand amortization would charge
/// that projection about once per operand of the fused attention and keep the
/// unfused chain, or the form with the `q * s` multiply outside. The
/// extracted program is one `core.attention` with the scale folded in.
#[test]
fn extraction_counts_shared_work_once() {
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  const @s : f32[] = dense<[0.25]>
  const @qs : i64[4] = dense<[1, 8, 2, 8]>
  func @main(%x: f32[1, 8, 16], %w: f32[16, 48], %mask: f32[1, 1, 8, 8]) -> (f32[1, 2, 8, 8]) {
    %s = core.const {value = @s} : f32[]
    %shape = core.const {value = @qs} : i64[4]
    %h = onnx.MatMul %x, %w : f32[1, 8, 48]
    %e = onnx.Tanh %h : f32[1, 8, 48]
    %q0, %k0, %v0 = onnx.Split %e {axis = 2, num_outputs = 3} : f32[1, 8, 16], f32[1, 8, 16], f32[1, 8, 16]
    %q1 = onnx.Reshape %q0, %shape : f32[1, 8, 2, 8]
    %k1 = onnx.Reshape %k0, %shape : f32[1, 8, 2, 8]
    %v1 = onnx.Reshape %v0, %shape : f32[1, 8, 2, 8]
    %q = onnx.Transpose %q1 {perm = [0, 2, 1, 3]} : f32[1, 2, 8, 8]
    %kt = onnx.Transpose %k1 {perm = [0, 2, 3, 1]} : f32[1, 2, 8, 8]
    %v = onnx.Transpose %v1 {perm = [0, 2, 1, 3]} : f32[1, 2, 8, 8]
    %qm = onnx.Mul %q, %s : f32[1, 2, 8, 8]
    %sc = onnx.MatMul %qm, %kt : f32[1, 2, 8, 8]
    %sm = onnx.Add %sc, %mask : f32[1, 2, 8, 8]
    %p = onnx.Softmax %sm {axis = -1} : f32[1, 2, 8, 8]
    %y = onnx.MatMul %p, %v : f32[1, 2, 8, 8]
    return %y
  }
}"#,
    );
    let x = f32s(&[1, 8, 16]);
    let tol = Tolerance { rtol: 1e-5, atol: 1e-6 };
    for target in [None, Some("cpu")] {
        let run = optimize_and_compare(
            &m,
            "shape-infer,optimize,dce",
            target,
            &[x.clone(), f32s(&[16, 48]), f32s(&[1, 1, 8, 8])],
            tol,
        )
        .expect("same outputs");
        let text = ir::text::print_module(&run.optimized);
        assert!(text.contains("core.attention") && text.contains("scale = 0.25"), "{target:?}:\n{text}");
        assert!(!text.contains("onnx.Mul") && !text.contains("onnx.Softmax"), "{target:?}:\n{text}");
    }
}

/// A target that folds everything static (`fold_bytes`, as the Ethos-U
/// profiles set it): a detector's anchor grid built from `ConstantOfShape`
/// and `Expand` becomes one constant; the default budget keeps both ops.
#[test]
fn a_fold_budget_with_float_fills_folds_anchor_grids() {
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  const @half : f32[1] = dense<[0.5]>
  const @shape : i64[2] = dense<[1600, 1]>
  const @row : f32[1, 40] = dense<[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0, 37.0, 38.0, 39.0]>
  const @grid : i64[2] = dense<[40, 40]>
  func @main(%x: f32[1600, 1]) -> (f32[1600, 1], f32[40, 40]) {
    %s = core.const {value = @shape} : i64[2]
    %c = onnx.ConstantOfShape %s {value = @half} : f32[1600, 1]
    %y = onnx.Add %x, %c : f32[1600, 1]
    %r = core.const {value = @row} : f32[1, 40]
    %g = core.const {value = @grid} : i64[2]
    %e = onnx.Expand %r, %g : f32[40, 40]
    return %y, %e
  }
}"#,
    );
    let x = f32s(&[1600, 1]);
    let want = ir::interp::run(&m, "main", vec![x.clone()]).expect("runs");
    let fold = |budget: FoldBudget| {
        let mut out = m.clone();
        optimize_module(&mut out, &RuleSet::default(), None, &Limits::default(), budget).expect("optimizes");
        assert_eq!(ir::interp::run(&out, "main", vec![x.clone()]).expect("runs"), want);
        ir::text::print_module(&out)
    };
    let kept = fold(FoldBudget::default());
    assert!(kept.contains("onnx.ConstantOfShape") && kept.contains("onnx.Expand"), "{kept}");
    let all = FoldBudget { small_bytes: 1 << 24, max_elems: usize::MAX, float_fills: true, ..FoldBudget::default() };
    let folded = fold(all);
    assert!(!folded.contains("onnx.ConstantOfShape") && !folded.contains("onnx.Expand"), "{folded}");
}

/// A LayerNorm spelled out as an exporter writes it: for a target without a
/// fused layer norm the rules fuse it and expand it again, and the
/// variance chain they rebuild (`x·x` for `Pow(x, 2)`, its mean, `+ eps`,
/// `Sqrt`) matches nothing of the input. Every op still names an ONNX node.
#[test]
fn ops_rebuilt_by_rewrites_keep_an_onnx_provenance() {
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  const @two : f32[] = dense<[2.0]>
  const @eps : f32[] = dense<[0.00001]>
  const @axes : i64[1] = dense<[-1]>
  func @main(%x: f32[1, 40, 120]) -> (f32[1, 40, 120]) {
    %ax = core.const {value = @axes} : i64[1]
    %m = onnx.ReduceMean %x, %ax {keepdims = 1} : f32[1, 40, 1] loc("mean" op "ReduceMean")
    %d = onnx.Sub %x, %m : f32[1, 40, 120] loc("centre" op "Sub")
    %two = core.const {value = @two} : f32[]
    %p = onnx.Pow %d, %two : f32[1, 40, 120] loc("square" op "Pow")
    %v = onnx.ReduceMean %p, %ax {keepdims = 1} : f32[1, 40, 1] loc("variance" op "ReduceMean")
    %eps = core.const {value = @eps} : f32[]
    %a = onnx.Add %v, %eps : f32[1, 40, 1] loc("plus_eps" op "Add")
    %s = onnx.Sqrt %a : f32[1, 40, 1] loc("std" op "Sqrt")
    %y = onnx.Div %d, %s : f32[1, 40, 120] loc("normalize" op "Div")
    return %y
  }
}"#,
    );
    for target in ["cpu", "ethos-u55-256", "rk3588-npu"] {
        let profile: std::sync::Arc<dyn passes::egraph::TargetInfo> =
            std::sync::Arc::new(codegen::targets::load(target).expect("profile"));
        let mut out = m.clone();
        let rules = RuleSet::builtin().expect("rules");
        optimize_module(&mut out, &rules, Some(profile), &Limits::default(), FoldBudget::default()).expect("runs");
        let f = out.func("main").expect("main");
        for &id in &f.body.ops {
            let op = &f.ops[id];
            assert!(
                op.opcode == ir::Opcode::CoreConst || !matches!(op.loc, ir::Loc::Unknown),
                "{target}: {} has no provenance:\n{}",
                op.opcode.name(),
                ir::text::print_module(&out)
            );
        }
    }
}
