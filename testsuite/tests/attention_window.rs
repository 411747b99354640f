//! The opt-in `--attention-window W` approximation on whole models: it is
//! recorded in the module and keeps the exact `@main.reference`; a window that
//! covers the whole sequence changes nothing (within float noise); a narrow
//! one moves the outputs and `verify` measures by how much; combined with
//! bucketing and the NPU's blocked attention it applies to the static buckets
//! only, and the blocked kernel (which skips tiles outside the band) agrees
//! with the unblocked windowed attention.

use compiler::check::{compare, Tolerance};
use compiler::run::verify_data;
use ir::interp::{Data, Tensor};
use ir::Module;
use passes::bucket::BucketSpec;
use passes::{parse_pipeline_with, PassManager, PassOptions};
use std::path::{Path, PathBuf};
use testsuite::rulecheck::{options, Rng};

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name)
}

fn bert() -> Module {
    let p = model_dir("bert_dynamic").join("model.onnx");
    compiler::driver::load_model(&p.display().to_string()).expect("model loads")
}

fn run_pipeline(m: &Module, pipeline: &str, target: &str, window: u64, bucket: Option<&[u64]>) -> Module {
    let mut opts = options(Some(target)).expect("target");
    opts.attention_window = Some(window);
    opts.bucket = bucket.map(|b| BucketSpec { dims: vec![("sequence".into(), b.to_vec())], ..Default::default() });
    let passes = parse_pipeline_with(pipeline, &opts).expect("pipeline");
    let mut out = m.clone();
    PassManager::new(passes, PassOptions::default()).run(&mut out, &mut std::io::sink()).expect("runs");
    out
}

fn approximations(m: &Module) -> Vec<String> {
    match m.attrs.get(passes::approx::APPROXIMATIONS) {
        Some(ir::Attr::Strs(v)) => v.clone(),
        _ => vec![],
    }
}

fn windows(m: &Module, func: &str) -> Vec<i64> {
    let f = m.func(func).expect("function");
    f.live_ops().iter().filter_map(|&id| f.ops[id].attrs.int("window")).collect()
}

const OPT_WINDOW: &str = "shape-infer,canonicalize,optimize,attention-window,dce";

#[test]
fn a_window_covering_the_sequence_is_exact_and_a_narrow_one_is_measured() {
    let m = bert();
    let dir = model_dir("bert_dynamic");
    let wide = run_pipeline(&m, OPT_WINDOW, "cpu", 127, None);
    assert_eq!(windows(&wide, "main"), [127, 127]);
    assert!(windows(&wide, "main.reference").is_empty(), "the reference stays exact");
    assert_eq!(approximations(&wide).len(), 1, "{:?}", approximations(&wide));
    for r in verify_data(&wide, &dir.join("model.onnx"), &[], Tolerance::default()).unwrap() {
        assert!(r.passed(), "{}: {:?}", r.dir.display(), r.outputs);
        let dev = r.reference.unwrap().unwrap();
        assert!(dev.iter().all(|c| c.max_abs < 1e-5), "{dev:?}");
    }
    let narrow = run_pipeline(&m, OPT_WINDOW, "cpu", 2, None);
    let reports = verify_data(&narrow, &dir.join("model.onnx"), &[], Tolerance::default()).unwrap();
    assert!(reports[0].notes.iter().any(|n| n.contains("attention-window 2")), "{:?}", reports[0].notes);
    // Length 100 (data set 2): most keys fall outside a window of 2.
    let dev = reports[2].reference.as_ref().unwrap().as_ref().unwrap();
    assert!(dev[0].max_abs > 1e-2, "a window of 2 should move the outputs: {dev:?}");
    let exp = reports[2].outputs.as_ref().unwrap();
    assert!((exp[0].max_abs - dev[0].max_abs).abs() < 1e-3, "{exp:?} vs {dev:?}");
}

#[test]
fn with_buckets_the_window_applies_to_the_static_functions_only() {
    let m = run_pipeline(&bert(), &format!("bucket,{OPT_WINDOW}"), "cpu", 8, Some(&[32, 128]));
    for f in ["main__sequence_32", "main__sequence_128"] {
        assert_eq!(windows(&m, f), [8, 8], "{f}");
    }
    assert!(windows(&m, "main.reference").is_empty());
    assert_eq!(m.funcs.iter().filter(|f| f.name.ends_with(".reference")).count(), 1);
}

/// A long sequence on the NPU: attention is blocked (scores exceed on-chip
/// memory), then windowed; the blocked kernel skips out-of-band tiles and
/// matches the plain windowed attention.
#[test]
fn blocked_windowed_attention_matches_windowed_attention() {
    let src = "module @m attributes {phase = \"onnx\"} {
  func @main(%q: f32[1, 2, 512, 16], %k: f32[1, 2, 512, 16], %v: f32[1, 2, 512, 16]) -> (f32[1, 2, 512, 16]) {
    %0 = core.attention %q, %k, %v {scale = 0.25} : f32[1, 2, 512, 16]
    return %0
  }
}";
    let m = ir::text::parse_module(src, "t.eir", None).expect("parses").module;
    let out = run_pipeline(&m, "shape-infer,optimize,attention-window,dce", "rk3588-npu", 16, None);
    let f = out.func("main").unwrap();
    let op = &f.ops[f.body.ops[0]];
    assert_eq!(op.opcode, ir::Opcode::CoreAttentionBlocked, "NPU blocks the 2 MiB score tensor");
    assert_eq!(op.attrs.int("window"), Some(16));
    let mut r = Rng(11);
    let t = |r: &mut Rng| {
        Tensor::new(vec![1, 2, 512, 16], Data::F32((0..2 * 512 * 16).map(|_| r.grid(-1.0, 1.0, 1.0 / 64.0)).collect()))
    };
    let inputs = vec![t(&mut r), t(&mut r), t(&mut r)];
    let got = ir::interp::run(&out, "main", inputs.clone()).unwrap();
    let mut plain = m.clone();
    let p = plain.funcs[0].body.ops[0];
    plain.funcs[0].ops[p].attrs.set("window", ir::Attr::Int(16));
    let want = ir::interp::run(&plain, "main", inputs).unwrap();
    let c = compare(0, &got[0], &want[0], Tolerance { rtol: 1e-5, atol: 1e-6 });
    assert!(c.failure.is_none(), "{c:?}");
}
