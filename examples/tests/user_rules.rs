//! The example user rule file loads, fires on the graphs it targets, and the
//! rewritten graph computes the same outputs as the original.

use ir::interp::{Data, Tensor};
use passes::{parse_pipeline_with, PassManager, PassOptions, PipelineOptions};
use std::path::Path;

const SRC: &str = r#"
module @m attributes {phase = "onnx"} {
  const @zero : f32[] = dense<[0.0]>
  const @six : f32[] = dense<[6.0]>
  func @main(%x: f32[2, 3], %y: f32[2, 3]) -> (f32[2, 3], f32[2, 3]) {
    %z = core.const {value = @zero} : f32[]
    %s = core.const {value = @six} : f32[]
    %0 = onnx.Max %x, %z : f32[2, 3]
    %1 = onnx.Max %y, %z : f32[2, 3]
    %2 = onnx.Min %1, %s : f32[2, 3]
    return %0, %2
  }
}
"#;

fn optimize(m: &mut ir::Module, with_user_rules: bool) -> std::collections::BTreeMap<String, usize> {
    let mut opts = PipelineOptions::default();
    if with_user_rules {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("rules/tf-relu.rules");
        opts.rules.add_file(&file).unwrap_or_else(|e| panic!("{e}"));
    }
    let passes = parse_pipeline_with("shape-infer,optimize,dce", &opts).expect("pipeline");
    let run = PassManager::new(passes, PassOptions::default()).run(m, &mut std::io::sink()).expect("optimize");
    run.cx.egraphs().flat_map(|(_, r)| r.rules.fired.clone()).collect()
}

#[test]
fn user_rules_fire_and_preserve_outputs() {
    let original = ir::text::parse_module(SRC, "m.eir", None).expect("parses").module;
    let mut m = original.clone();
    let fired = optimize(&mut m, true);
    assert_eq!(fired.get("tf-max-zero-to-relu"), Some(&2), "{fired:?}");
    assert_eq!(fired.get("tf-relu6-to-clip"), Some(&1), "{fired:?}");
    let text = ir::text::print_module(&m);
    assert!(text.contains("onnx.Relu") && text.contains("onnx.Clip") && !text.contains("onnx.Max"), "{text}");
    let vals = [-7.0, -0.5, 0.0, 0.5, 5.9, 9.0f32];
    let input = || Tensor::new(vec![2, 3], Data::F32(vals.to_vec()));
    let want = ir::interp::run(&original, "main", vec![input(), input()]).expect("runs");
    let got = ir::interp::run(&m, "main", vec![input(), input()]).expect("runs");
    assert_eq!(want, got);
}

#[test]
fn without_the_file_nothing_changes() {
    let mut m = ir::text::parse_module(SRC, "m.eir", None).expect("parses").module;
    let fired = optimize(&mut m, false);
    assert!(!fired.keys().any(|k| k.starts_with("tf-")), "{fired:?}");
    assert!(ir::text::print_module(&m).contains("onnx.Max"));
}
