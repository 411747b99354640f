//! The e-graph inside regions: `If`/`Loop` bodies are optimized as scopes of
//! their own (captured constants fold, captured values stay leaves), an `If`
//! whose condition folds is replaced by its taken branch, and a branch that
//! does not type under the function's shapes is kept and reported. Every
//! result is checked against the interpreter on the original module.

use compiler::check::Tolerance;
use ir::interp::{Data, Tensor};
use passes::egraph::analysis::FoldBudget;
use passes::egraph::Limits;
use passes::rules::RuleSet;
use passes::saturate::optimize_module;
use testsuite::rulecheck::optimize_and_compare;

const EXACT: Tolerance = Tolerance { rtol: 0.0, atol: 0.0 };

fn parse(src: &str) -> ir::Module {
    ir::text::parse_module(src, "t.eir", None).unwrap_or_else(|e| panic!("{e}")).module
}

fn f32s(v: &[f32]) -> Tensor {
    Tensor::new(vec![v.len()], Data::F32(v.to_vec()))
}

fn boolean(c: bool) -> Tensor {
    Tensor::new(vec![], Data::Bool(vec![c]))
}

fn count(m: &ir::Module, opcode: &str) -> usize {
    let f = m.func("main").expect("main");
    f.live_ops().into_iter().filter(|&id| f.ops[id].opcode.name() == opcode).count()
}

const CAPTURED: &str = r#"module @m attributes {phase = "onnx"} {
  const @w : f32[4] = dense<[1.0, 2.0, 3.0, 4.0]>
  const @s : i64[1] = dense<[1]>
  const @e : i64[1] = dense<[3]>
  func @main(%cond: bool[], %x: f32[2]) -> (f32[2]) {
    %w = core.const {value = @w} : f32[4]
    %s = core.const {value = @s} : i64[1]
    %e = core.const {value = @e} : i64[1]
    %y = onnx.Relu %x : f32[2]
    %0 = onnx.If %cond : f32[2] region() {
      %1 = onnx.Slice %w, %s, %e : f32[2]
      %2 = onnx.Add %y, %1 : f32[2]
      yield %2
    } region() {
      %3 = onnx.Neg %y : f32[2]
      %4 = onnx.Neg %y : f32[2]
      %5 = onnx.Add %3, %4 : f32[2]
      yield %5
    }
    return %0
  }
}"#;

#[test]
fn captured_constants_fold_inside_branches_and_captured_values_stay() {
    let m = parse(CAPTURED);
    for c in [true, false] {
        let run = optimize_and_compare(&m, "const-fold", None, &[boolean(c), f32s(&[0.5, -2.0])], EXACT)
            .expect("same outputs");
        let text = ir::text::print_module(&run.optimized);
        assert_eq!(count(&run.optimized, "onnx.Slice"), 0, "the slice of a captured weight folds:\n{text}");
        assert_eq!(count(&run.optimized, "onnx.Neg"), 1, "the else branch is optimized too (CSE):\n{text}");
        assert_eq!(count(&run.optimized, "onnx.Relu"), 1, "the captured value stays one op outside:\n{text}");
        assert_eq!(count(&run.optimized, "onnx.If"), 1, "a runtime condition keeps its If:\n{text}");
    }
}

#[test]
fn the_report_counts_the_regions() {
    let mut m = parse(CAPTURED);
    let rules = RuleSet::builtin().expect("built-in rules");
    let r = optimize_module(&mut m, &rules, None, &Limits::default(), FoldBudget::default()).expect("optimizes");
    let f = &r.funcs[0];
    assert_eq!((f.regions, f.ifs_folded), (2, 0), "{r}");
    assert!(f.ops_after < f.ops_before, "{r}");
    assert!(r.to_string().contains("+ 2 region(s) optimized as scopes"), "{r}");
    ir::verify::verify(&m).expect("verifies");
}

#[test]
fn a_constant_condition_inlines_the_taken_branch_at_any_depth() {
    // The outer condition folds in @main; the inner one only inside the loop body.
    let m = parse(
        r#"module @m attributes {phase = "onnx"} {
  const @three : i64[] = dense<[3]>
  const @two : i64[] = dense<[2]>
  func @main(%x: f32[2]) -> (f32[2], f32[2]) {
    %a = core.const {value = @three} : i64[]
    %b = core.const {value = @two} : i64[]
    %c = onnx.Greater %a, %b : bool[]
    %0 = onnx.If %c : f32[2] region() {
      %1 = onnx.Sigmoid %x : f32[2]
      yield %1
    } region() {
      %2 = onnx.Tanh %x : f32[2]
      yield %2
    }
    %t = onnx.Less %a, %b : bool[]
    %l = onnx.Loop %a, %c, %x : f32[2] region(%i: i64[], %k: bool[], %v: f32[2]) {
      %3 = onnx.If %t : f32[2] region() {
        %4 = onnx.Neg %v : f32[2]
        yield %4
      } region() {
        %5 = onnx.Abs %v : f32[2]
        yield %5
      }
      %6 = onnx.Add %3, %0 : f32[2]
      yield %k, %6
    }
    return %0, %l
  }
}"#,
    );
    let run = optimize_and_compare(&m, "const-fold", None, &[f32s(&[0.25, -1.5])], EXACT).expect("same outputs");
    let text = ir::text::print_module(&run.optimized);
    assert_eq!(count(&run.optimized, "onnx.If"), 0, "both Ifs are inlined:\n{text}");
    assert_eq!((count(&run.optimized, "onnx.Sigmoid"), count(&run.optimized, "onnx.Tanh")), (1, 0), "{text}");
    assert_eq!((count(&run.optimized, "onnx.Abs"), count(&run.optimized, "onnx.Neg")), (1, 0), "{text}");
    assert_eq!(count(&run.optimized, "onnx.Loop"), 1, "{text}");
}

#[test]
fn a_branch_that_does_not_type_under_the_shapes_is_kept_and_reported() {
    // With %x of 2 elements the then branch's Reshape to 3 cannot run (its
    // inner If folds to %x): only the else branch is ever taken, and the
    // optimizer leaves the then branch as it was.
    let src = r#"module @m attributes {phase = "onnx"} {
  const @k : i64[1] = dense<[3]>
  const @yes : bool[] = dense<[true]>
  func @main(%cond: bool[], %x: f32[2]) -> (f32[*]) {
    %k = core.const {value = @k} : i64[1]
    %yes = core.const {value = @yes} : bool[]
    %0 = onnx.If %cond : f32[*] region() {
      %1 = onnx.If %yes : f32[*] region() {
        yield %x
      } region() {
        %2 = onnx.Concat %x, %x {axis = 0} : f32[4]
        yield %2
      }
      %3 = onnx.Reshape %1, %k : f32[*]
      yield %3
    } region() {
      %4 = onnx.Neg %x : f32[2]
      %5 = onnx.Neg %x : f32[2]
      %6 = onnx.Add %4, %5 : f32[2]
      yield %6
    }
    return %0
  }
}"#;
    let mut m = parse(src);
    let rules = RuleSet::builtin().expect("built-in rules");
    let r = optimize_module(&mut m, &rules, None, &Limits::default(), FoldBudget::default()).expect("optimizes");
    let f = &r.funcs[0];
    assert_eq!(f.region_kept.len(), 1, "{r}");
    assert!(f.region_kept[0].contains("region 0") && f.region_kept[0].contains("do not type"), "{r}");
    assert_eq!((f.regions, count(&m, "onnx.If"), count(&m, "onnx.Concat"), count(&m, "onnx.Neg")), (1, 2, 1, 1), "{r}");
    ir::verify::verify(&m).expect("verifies");
    let x = f32s(&[1.0, -3.0]);
    let want = ir::interp::run(&parse(src), "main", vec![boolean(false), x.clone()]).expect("original runs");
    assert_eq!(ir::interp::run(&m, "main", vec![boolean(false), x]).expect("optimized runs"), want);
}
