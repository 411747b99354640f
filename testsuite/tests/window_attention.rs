//! The bundled Swin stage (`testsuite/models/swin_block`, written by
//! `testsuite/models/make_swin.py`: a W-MSA and an SW-MSA block on x
//! `[2, 8, 8, 32]`, window 4, 2 heads, shift 2, reference outputs from
//! onnxruntime) through the default pipeline:
//!
//! * as imported, it verifies on the interpreter (what `edgec verify` does);
//! * for cpu it holds 2 window partitions, 2 merges and 2 window attentions
//!   and no rank-6 op (no 6-D Reshape/Transpose, no roll left), and verifies;
//! * for rk3588-npu it holds no window op and no op of rank > 4, every op runs
//!   natively on the NPU, and it verifies (atol 1e-3: the NPU profile has no
//!   Erf, so the MLP's erf-GELU is legalized to the tanh form, up to 4.7e-4 per
//!   GELU; the window part alone differs from the chain by rounding only);
//! * the explicit `window-lower` pass after the cpu pipeline removes the window
//!   ops and still verifies.

use compiler::check::{compare, data_sets, read_data_set, Tolerance};
use passes::target::{OpQuery, Support};
use passes::{parse_pipeline_with, PassManager, PassOptions, DEFAULT_PIPELINE};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use testsuite::rulecheck::options;

fn model_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models/swin_block")
}

fn import() -> ir::Module {
    compiler::frontend::onnx::import_file(&model_dir().join("model.onnx")).expect("the Swin model imports")
}

fn run_pipeline(m: &ir::Module, pipeline: &str, target: &str) -> ir::Module {
    run_pipeline_with(m, pipeline, target, &[])
}

/// [`run_pipeline`] with the named approximate rules enabled.
fn run_pipeline_with(m: &ir::Module, pipeline: &str, target: &str, approximate: &[&str]) -> ir::Module {
    let mut opts = options(Some(target)).expect("target");
    let names: Vec<String> = approximate.iter().map(|s| s.to_string()).collect();
    opts.rules.enable_approximations(&names).expect("approximate rules");
    let passes = parse_pipeline_with(pipeline, &opts).expect("pipeline");
    let mut out = m.clone();
    PassManager::new(passes, PassOptions { verify_each: true, ..Default::default() })
        .run(&mut out, &mut std::io::sink())
        .expect("optimizes");
    out
}

/// Largest deviation from the reference outputs; panics beyond `tol`.
fn verify(m: &ir::Module, tol: Tolerance, what: &str) -> f64 {
    let mut worst: f64 = 0.0;
    let sets = data_sets(&model_dir());
    assert!(!sets.is_empty(), "no test_data_set_* beside the model");
    for ds in sets {
        let (inputs, want) = read_data_set(&ds).expect("reference data");
        let got = ir::interp::run(m, "main", inputs).unwrap_or_else(|e| panic!("{what}: {e}"));
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let c = compare(i, g, w, tol);
            assert!(c.failure.is_none(), "{what}, output {i}: {:?}", c.failure);
            worst = worst.max(c.max_abs);
        }
    }
    eprintln!("{what}: max_abs {worst:.3e}");
    worst
}

/// Live ops by name, and the largest rank of any operand or result.
fn census(m: &ir::Module) -> (BTreeMap<String, usize>, usize) {
    let f = m.func("main").expect("main");
    let mut h = BTreeMap::new();
    let mut rank = 0;
    for id in f.live_ops() {
        let op = &f.ops[id];
        *h.entry(op.opcode.name().to_owned()).or_default() += 1;
        for v in op.operands.iter().flatten().chain(op.results.iter()) {
            rank = rank.max(f.ty(*v).rank().unwrap_or(0));
        }
    }
    (h, rank)
}

fn count(h: &BTreeMap<String, usize>, op: &str) -> usize {
    h.get(op).copied().unwrap_or(0)
}

#[test]
fn imported_model_verifies() {
    let m = import();
    let (h, rank) = census(&m);
    assert_eq!((count(&h, "onnx.Transpose"), rank), (11, 6), "the export has its 6-D partition chains: {h:?}");
    verify(&m, Tolerance::default(), "imported");
}

#[test]
fn cpu_keeps_the_window_ops() {
    let before = import();
    let out = run_pipeline(&before, DEFAULT_PIPELINE, "cpu");
    let (h, rank) = census(&out);
    eprintln!("cpu: {} ops -> {} ops: {h:?}", census(&before).0.values().sum::<usize>(), h.values().sum::<usize>());
    for op in ["core.window_partition", "core.window_merge", "core.window_attention"] {
        assert_eq!(count(&h, op), 2, "{op}: {h:?}\n{}", ir::text::print_module(&out));
    }
    assert!(rank <= 5, "a rank-{rank} op is left (6-D partition/merge chains): {h:?}");
    for op in ["onnx.Concat", "onnx.Softmax", "onnx.Slice", "core.slice"] {
        assert_eq!(count(&h, op), 0, "{op} left (rolls and scores chains are fused): {h:?}");
    }
    verify(&out, Tolerance::default(), "cpu");
}

/// Every live op runs natively on rk3588-npu (its support rule, rank included).
fn assert_native(m: &ir::Module) {
    let npu = codegen::targets::load("rk3588-npu").expect("profile");
    let f = m.func("main").expect("main");
    for id in f.live_ops() {
        let op = &f.ops[id];
        let inputs: Vec<Option<&ir::TensorType>> = op.operands.iter().map(|o| o.map(|v| f.ty(v))).collect();
        let outputs: Vec<ir::TensorType> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
        let q = OpQuery { opcode: op.opcode, attrs: &op.attrs, inputs: &inputs, outputs: &outputs, consts: &[] };
        if let Support::No(why) = npu.support(&q) {
            panic!("falls back to the CPU: {why}\n{}", ir::text::print_module(m));
        }
    }
}

#[test]
fn npu_lowers_the_window_ops() {
    let before = import();
    // The block's erf-GELU runs natively only in its tanh form, an
    // approximation taken on request (|error| <= 4.8e-4, within the
    // tolerance below); without it the GELU falls back to the CPU.
    let out = run_pipeline_with(&before, DEFAULT_PIPELINE, "rk3588-npu", &["gelu-erf-to-tanh"]);
    let (h, rank) = census(&out);
    eprintln!(
        "rk3588-npu: {} ops -> {} ops: {h:?}",
        census(&before).0.values().sum::<usize>(),
        h.values().sum::<usize>()
    );
    assert!(!h.keys().any(|k| k.starts_with("core.window_")), "window ops left: {h:?}");
    assert!(rank <= 4, "a rank-{rank} op is left: {h:?}");
    assert_eq!(count(&h, "onnx.Gather"), 0, "the qkv unpacking is sliced: {h:?}");
    assert_native(&out);
    verify(&out, Tolerance { rtol: 1e-3, atol: 1e-3 }, "rk3588-npu");
}

#[test]
fn explicit_pass_lowers_after_cpu() {
    let out = run_pipeline(&import(), &format!("{DEFAULT_PIPELINE},window-lower,dce"), "cpu");
    let (h, rank) = census(&out);
    assert!(!h.keys().any(|k| k.starts_with("core.window_")), "window ops left: {h:?}");
    assert!(rank <= 5, "{h:?}");
    verify(&out, Tolerance::default(), "cpu + window-lower");
}
