//! Shape bucketing end to end: the BERT-like `bert_dynamic` model (dynamic
//! `sequence`, attention mask) bucketed to 32/64/128 must give the unbucketed
//! interpreter's outputs for every length 1..=128 (proptest), refuse 129 with
//! a message naming the dim and the buckets, and verify against its reference
//! data at lengths 7, 32 and 100, for the cpu and the (static-shape) NPU
//! profile; the CNN `cnn_dynamic` bucketed over height/width runs and
//! `edgec verify` reports how far padding moves its outputs.

use compiler::check::{compare, Tolerance};
use compiler::run::{verify_data, Against};
use ir::interp::{Data, Tensor};
use ir::{Dim, Module};
use passes::bucket::BucketSpec;
use passes::{parse_pipeline_with, PassManager, PassOptions};
use proptest::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use testsuite::rulecheck::{options, Rng};

const TOL: Tolerance = Tolerance { rtol: 1e-4, atol: 1e-5 };

fn model_dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("models").join(name)
}

fn load(name: &str) -> Module {
    compiler::driver::load_model(&model_dir(name).join("model.onnx").display().to_string()).expect("model loads")
}

/// `m` through `bucket,shape-infer,canonicalize,optimize,dce` for `target`.
fn bucketed(m: &Module, target: &str, dims: &[(&str, &[u64])]) -> Module {
    let mut opts = options(Some(target)).expect("target");
    let dims = dims.iter().map(|(d, s)| (d.to_string(), s.to_vec())).collect();
    opts.bucket = Some(BucketSpec { dims, ..Default::default() });
    let pipeline = parse_pipeline_with("bucket,shape-infer,canonicalize,optimize,dce", &opts).expect("pipeline");
    let mut out = m.clone();
    PassManager::new(pipeline, PassOptions::default()).run(&mut out, &mut std::io::sink()).expect("pipeline runs");
    out
}

struct Bert {
    original: Module,
    bucketed: Module,
}

fn bert() -> &'static Bert {
    static B: OnceLock<Bert> = OnceLock::new();
    B.get_or_init(|| {
        let original = load("bert_dynamic");
        let bucketed = bucketed(&original, "cpu", &[("sequence", &[32, 64, 128])]);
        Bert { original, bucketed }
    })
}

/// Token ids in the vocabulary and a mask with `padded` trailing zeros.
fn bert_inputs(len: usize, padded: usize, seed: u64) -> Vec<Tensor> {
    let mut r = Rng(seed | 1);
    let ids = (0..len).map(|_| 1 + r.below(99) as i64).collect();
    let mask = (0..len).map(|i| i64::from(i < len - padded)).collect();
    vec![Tensor::new(vec![1, len], Data::I64(ids)), Tensor::new(vec![1, len], Data::I64(mask))]
}

fn assert_close(got: &[Tensor], want: &[Tensor], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let c = compare(i, g, w, TOL);
        assert!(c.failure.is_none(), "{what}: output {i}: {:?} (max_abs {:e})", c.failure, c.max_abs);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every length up to the largest bucket gives the unbucketed outputs.
    #[test]
    fn bucketed_bert_matches_unbucketed(len in 1usize..=128, pad_frac in 0.0f64..0.5, seed in any::<u64>()) {
        let b = bert();
        let padded = ((len - 1) as f64 * pad_frac) as usize;
        let inputs = bert_inputs(len, padded, seed);
        let want = ir::interp::run(&b.original, "main", inputs.clone()).expect("unbucketed runs");
        let got = ir::interp::run(&b.bucketed, "main", inputs).expect("bucketed runs");
        prop_assert_eq!(&got[0].shape, &vec![1, len, 32]);
        assert_close(&got, &want, &format!("length {len}, {padded} padded"));
    }
}

#[test]
fn longer_than_the_largest_bucket_is_a_clear_error() {
    let e = ir::interp::run(&bert().bucketed, "main", bert_inputs(129, 0, 7)).unwrap_err().to_string();
    assert!(e.contains("dim `sequence` is 129, larger than the largest bucket 128 (buckets: 32, 64, 128)"), "{e}");
}

#[test]
fn buckets_are_static_and_the_dispatcher_keeps_the_signature() {
    let m = &bert().bucketed;
    let names: Vec<&str> = m.funcs.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(names, ["main", "main__sequence_32", "main__sequence_64", "main__sequence_128", "main.reference"]);
    let main = m.func("main").unwrap();
    assert_eq!(main.live_ops().len(), 1);
    // The dispatcher keeps the signature; it may know more (the sliced axis
    // follows `sequence` where inference said `?`), never less.
    let orig = &bert().original.func("main").unwrap().result_types;
    assert_eq!(main.result_types.len(), orig.len());
    for (t, o) in main.result_types.iter().zip(orig) {
        let refines = t.dims().unwrap().iter().zip(o.dims().unwrap()).all(|(a, b)| a.refines(*b));
        assert!(t.dtype == o.dtype && refines, "{t} does not refine {o}");
    }
    assert_eq!(main.result_types[0].to_string(), "f32[1, sequence, 32]");
    for f in &m.funcs[1..4] {
        let live =
            f.body.params.iter().copied().chain(f.live_ops().into_iter().flat_map(|id| f.ops[id].results.to_vec()));
        let dynamic: Vec<String> = live
            .filter(|&v| f.ty(v).dims().is_none_or(|d| d.iter().any(|x| x.as_static().is_none())))
            .map(|v| f.ty(v).to_string())
            .collect();
        assert!(dynamic.is_empty(), "@{} has non-static values: {dynamic:?}", f.name);
    }
    assert!(m.func("main.reference").unwrap().body.params.iter().any(|&p| {
        m.func("main.reference").unwrap().ty(p).dims().unwrap().iter().any(|d| matches!(d, Dim::Sym(_)))
    }));
}

#[test]
fn bucketed_bert_verifies_at_7_32_100_on_cpu_and_npu() {
    let dir = model_dir("bert_dynamic");
    let npu = bucketed(&bert().original, "rk3588-npu", &[("sequence", &[32, 64, 128])]);
    // Both attentions are recognized in every static bucket, also on the NPU, where the
    // mask is computed on the CPU fallback (extraction by DAG cost, passes/src/egraph/refine.rs).
    for m in [&bert().bucketed, &npu] {
        for f in &m.funcs[1..4] {
            let n = f.live_ops().iter().filter(|&&id| f.ops[id].opcode == ir::Opcode::CoreAttention).count();
            assert_eq!(n, 2, "@{}", f.name);
        }
    }
    // The NPU legalizes erf-GELU to the tanh form in its static buckets (4.7e-4 per
    // GELU, two layers deep here) while the dynamic reference keeps Erf (it runs on
    // the CPU fallback): atol 2e-3 there, against the data and the reference.
    let npu_tol = Tolerance { rtol: 1e-3, atol: 2e-3 };
    for (m, tol, max_dev) in [(&bert().bucketed, Tolerance::default(), 1e-5), (&npu, npu_tol, 2e-3)] {
        let reports = verify_data(m, &dir.join("model.onnx"), &[], tol).expect("data sets");
        let lens: Vec<String> = reports.iter().flat_map(|r| r.notes.clone()).collect();
        assert_eq!(lens.len(), 3, "{lens:?}");
        for (note, want) in
            lens.iter().zip(["`sequence` = 7 -> 32", "`sequence` = 32 -> 32", "`sequence` = 100 -> 128"])
        {
            assert!(note.contains(want), "{note}");
        }
        for r in &reports {
            assert!(r.passed(), "{}: {:?}", r.dir.display(), r.outputs);
            let dev = r.reference.as_ref().expect("reference deviation").as_ref().expect("reference runs");
            assert!(dev.iter().all(|c| c.max_abs < max_dev), "{}: {dev:?}", r.dir.display());
        }
    }
}

#[test]
fn cnn_padding_deviation_is_reported() {
    let m = bucketed(&load("cnn_dynamic"), "cpu", &[("height", &[32, 64]), ("width", &[32, 64])]);
    assert_eq!(m.funcs.len(), 6, "dispatcher + 4 buckets + reference");
    let reports = verify_data(&m, &model_dir("cnn_dynamic").join("model.onnx"), &[], Tolerance::default()).unwrap();
    for r in &reports {
        assert_eq!(r.against, Against::Expected);
        let dev = r.reference.as_ref().unwrap().as_ref().unwrap();
        // Zero padding enters the global average pool: outputs move, and verify says by how much.
        assert!(dev[0].max_abs > 1e-3 && dev[0].failure.is_some(), "{dev:?}");
        let exp = r.outputs.as_ref().unwrap();
        assert!((exp[0].max_abs - dev[0].max_abs).abs() < 1e-3, "expected vs reference deviation: {exp:?} {dev:?}");
    }
    assert!(reports[1].notes[0].contains("`height` = 33 -> 64, `width` = 17 -> 32"), "{:?}", reports[1].notes);
    // Inputs that fit a bucket exactly are not padded: exact.
    let x = Tensor::new(vec![1, 3, 32, 64], Data::F32((0..3 * 32 * 64).map(|i| (i % 13) as f32 / 7.0).collect()));
    let want = ir::interp::run(&m, "main.reference", vec![x.clone()]).unwrap();
    assert_close(&ir::interp::run(&m, "main", vec![x]).unwrap(), &want, "32x64 input");
}

#[test]
fn inputs_only_data_sets_compare_with_the_reference() {
    let dir = tempfile::tempdir().unwrap();
    let src = model_dir("bert_dynamic").join("test_data_set_2");
    for f in ["input_0.pb", "input_1.pb"] {
        std::fs::copy(src.join(f), dir.path().join(f)).unwrap();
    }
    let reports = verify_data(&bert().bucketed, Path::new("x.eir"), &[dir.path().to_path_buf()], TOL).unwrap();
    assert_eq!(reports[0].against, Against::Reference);
    assert!(reports[0].passed(), "{:?}", reports[0].outputs);
}

#[test]
fn spec_errors_are_all_reported() {
    let m = load("bert_dynamic");
    let spec = BucketSpec {
        dims: vec![("seq".into(), vec![8]), ("sequence".into(), vec![8]), ("sequence".into(), vec![16])],
        pads: [("mask".to_string(), 0.0)].into_iter().collect(),
    };
    let errs = spec.check(&m, "main").unwrap_err().join("\n");
    for want in [
        "dim `seq` is not a symbolic dim of any input of @main (input dims: sequence)",
        "dim `sequence` is bucketed twice",
        "--pad mask: no such input of @main (inputs: input_ids, attention_mask)",
    ] {
        assert!(errs.contains(want), "{want}\nin:\n{errs}");
    }
}

#[test]
fn bucketing_is_deterministic() {
    let m = load("bert_dynamic");
    let a = ir::text::print_module(&bucketed(&m, "rk3588-npu", &[("sequence", &[16, 48])]));
    let b = ir::text::print_module(&bucketed(&m, "rk3588-npu", &[("sequence", &[16, 48])]));
    assert!(a == b, "two runs differ");
}
