//! Issue 5's model-level promises for the (simulated) RK3588 NPU profile:
//! detection/segmentation models whose every Resize has an integer scale
//! compile with no Resize left (and still verify); a Resize with a
//! non-integer scale stays and `--explain` says why; attention is recognized
//! and lowered to the exact blocked form in BERT-like and ViT models, which
//! still verify.

use compiler::check::{compare, read_data_set, Tolerance};
use ir::{Module, Opcode};
use passes::{parse_pipeline_with, PassManager, PassOptions};
use std::path::{Path, PathBuf};
use testsuite::rulecheck::options;

fn model_dir(name: &str) -> PathBuf {
    let base = Path::new(env!("CARGO_MANIFEST_DIR")).join("models");
    let real = base.join("real").join(name);
    if real.exists() {
        real
    } else {
        base.join(name)
    }
}

fn count(m: &Module, op: Opcode) -> usize {
    m.funcs.iter().map(|f| f.live_ops().iter().filter(|&&id| f.ops[id].opcode == op).count()).sum()
}

/// Run `pipeline` for `target` on the model; verify every data set at `tol`.
fn compile(name: &str, pipeline: &str, target: &str, tol: Tolerance) -> (Module, Module, String) {
    let dir = model_dir(name);
    let m = compiler::driver::load_model(&dir.join("model.onnx").display().to_string()).expect("loads");
    let opts = options(Some(target)).expect("target");
    let passes = parse_pipeline_with(pipeline, &opts).expect("pipeline");
    let mut out = m.clone();
    let run = PassManager::new(passes, PassOptions::default()).run(&mut out, &mut std::io::sink()).expect("runs");
    let report: String = run.cx.egraphs().map(|(_, r)| r.to_string()).collect();
    for ds in compiler::check::data_sets(&dir) {
        let (inputs, want) = read_data_set(&ds).expect("data");
        let got = ir::interp::run(&out, "main", inputs).expect("runs");
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            let c = compare(i, g, w, tol);
            assert!(c.failure.is_none(), "{name} ({target}) {} output {i}: {:?}", ds.display(), c.failure);
        }
    }
    (m, out, report)
}

/// tanh-GELU legalization on the NPU moves outputs by up to ~1e-3 (see legalize.rules).
const NPU_TOL: Tolerance = Tolerance { rtol: 1e-3, atol: 1e-3 };
const OPT: &str = "shape-infer,canonicalize,optimize,dce";

#[test]
fn integer_resizes_all_become_upsample_plus_conv() {
    for (name, resizes) in [("ppocr_det_paddle", 4), ("vit_decoder", 2)] {
        let (before, after, _) = compile(name, OPT, "rk3588-npu", NPU_TOL);
        assert_eq!(count(&before, Opcode::Resize), resizes, "{name}");
        assert_eq!(count(&after, Opcode::Resize), 0, "{name}: a Resize is left for the NPU");
        assert!(count(&after, Opcode::CoreConvTranspose) > 0, "{name}: no upsample");
    }
}

#[test]
fn a_non_integer_resize_stays_and_the_report_says_why() {
    let (before, after, report) = compile("det_head", OPT, "rk3588-npu", NPU_TOL);
    assert_eq!((count(&before, Opcode::Resize), count(&after, Opcode::Resize)), (2, 1));
    assert!(report.contains("declined: non-integer scale 1.5 on axis 2"), "{report}");
}

#[test]
fn attention_is_recognized_and_lowered_in_bert_and_vit() {
    let pipeline = "shape-infer,canonicalize,optimize,attention-blocked,dce";
    for (name, attentions) in [("bert_encoder_paddle_static", 2), ("vit_tiny_paddle", 2), ("vit_decoder", 1)] {
        for target in ["cpu", "rk3588-npu"] {
            let tol = if target == "cpu" { Tolerance::default() } else { NPU_TOL };
            let (_, after, _) = compile(name, pipeline, target, tol);
            assert_eq!(count(&after, Opcode::CoreAttention), 0, "{name} ({target}): unlowered attention");
            assert_eq!(count(&after, Opcode::CoreAttentionBlocked), attentions, "{name} ({target})");
        }
    }
}
