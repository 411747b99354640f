//! `edgec quantize` and `compile --quantize int8` end to end on a bundled
//! published model (MobileNetV3-small from Paddle, with its test data):
//! the report, the integer module (and the QDQ one with `--qdq`),
//! determinism, and every bad option named.

mod common;

use common::{edgec, model, s, text};

#[test]
fn quantize_writes_an_integer_module_and_a_report_deterministically() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let other = tempfile::tempdir().expect("tmp");
    let (a, b, r) = (dir.path().join("q.eir"), other.path().join("q.eir"), dir.path().join("r.json"));
    let out = edgec(&["quantize", s(&m), "--calib", s(&data), "-o", s(&a), "--report", s(&r)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("mse calibration on 1 samples") && err.contains("weights per channel"), "{err}");
    assert!(err.contains("outputs (integer vs float):") && err.contains("worst quantized tensors"), "{err}");
    assert!(err.contains("outputs (integer vs QDQ: requantize rounding):"), "{err}");
    assert!(err.contains("warning: evaluated on the calibration set"), "{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&r).expect("report")).expect("json");
    let cosine = report["outputs"][0]["cosine"].as_f64().expect("cosine");
    assert!(cosine > 0.98 && cosine < 1.0, "cosine {cosine}");
    assert!(report["int8_mac_share"].as_f64() == Some(1.0), "{report}");
    assert!(report["layers"].as_array().is_some_and(|l| l.len() > 50), "{report}");
    assert!(report["integer"]["ops"].as_u64().is_some_and(|n| n > 40), "{report}");
    let eir = std::fs::read_to_string(&a).expect("eir");
    assert!(eir.contains("quant.conv") && eir.contains("approximations = [\"quant-conv"), "{eir}");
    // Its expand convs (relu fused) feed depthwise convs: equalized, unless asked not to.
    let eq = report["equalized"].as_array().expect("equalized");
    assert!(!eq.is_empty() && eq.iter().all(|e| e["spread_after"].as_f64() < Some(2.0)), "{report}");
    assert!(err.contains("equalized before calibrating"), "{err}");
    let r2 = dir.path().join("r2.json");
    let out = edgec(&["quantize", s(&m), "--calib", s(&data), "--no-equalize", "-o", s(&b), "--report", s(&r2)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let r2: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&r2).expect("report")).expect("json");
    assert_eq!(r2["equalized"].as_array().map(Vec::len), Some(0), "{r2}");
    // --qdq keeps the QDQ form (what the ONNX export writes).
    let qdq = dir.path().join("qdq.eir");
    let out = edgec(&["quantize", s(&m), "--calib", s(&data), "--qdq", "-o", s(&qdq)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let eir = std::fs::read_to_string(&qdq).expect("eir");
    assert!(eir.contains("onnx.QuantizeLinear") && !eir.contains("quant.conv"), "{eir}");
    let again = edgec(&["quantize", s(&m), "--calib", s(&data), "-o", s(&b), "--keep-float", "Conv"]);
    let err = text(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{err}");
    assert!(err.contains("(core.conv): --keep-float Conv") && err.contains("(0.8% of MACs;"), "{err}");
    let again = edgec(&["quantize", s(&m), "--calib", s(&data), "-o", s(&b)]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let same = |x: &str| std::fs::read(dir.path().join(x)).ok() == std::fs::read(other.path().join(x)).ok();
    assert!(same("q.eir") && same("q.weights"), "same input, same flags: same bytes");
    // The quantized module runs on the model's data, within int8's error of the float outputs.
    let run = edgec(&["verify", s(&a), "--data", s(&data), "--atol", "0.5", "--rtol", "0.1"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
}

#[test]
fn compile_quantizes_when_asked_and_refuses_quantization_flags_otherwise() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let out_eir = dir.path().join("q.eir");
    let args = ["compile", s(&m), "--emit", "ir", "--quantize", "int8", "--calib", s(&data), "-o", s(&out_eir)];
    let out = edgec(&args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(std::fs::read_to_string(&out_eir).expect("eir").contains("onnx.QuantizeLinear"));
    for flag in [["--calib", s(&data)], ["--no-equalize", "--qdq"], ["--reduce-range", "--no-bias-correction"]] {
        let out = edgec(&[&["compile", s(&m), "--emit", "ir", "-o", s(&out_eir)][..], &flag[..]].concat());
        assert_eq!(out.status.code(), Some(1));
        assert!(text(&out.stderr).contains("apply with --quantize int8"), "{}", text(&out.stderr));
    }
    let out = edgec(&["compile", s(&m), "--emit", "ir", "--quantize", "int8", "-o", s(&out_eir)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("--calib DIR"), "{}", text(&out.stderr));
}

/// `--reduce-range`: weights on ±64 (what AVX2-only CPUs multiply as bytes),
/// said in the report, and the module still runs close to float.
#[test]
fn reduce_range_quantizes_weights_on_plus_minus_64() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let (q, r) = (dir.path().join("q.eir"), dir.path().join("r.json"));
    let out = edgec(&["quantize", s(&m), "--calib", s(&data), "--reduce-range", "-o", s(&q), "--report", s(&r)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("weights per channel on ±64"), "{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&r).expect("report")).expect("json");
    assert_eq!(report["weight_max"].as_u64(), Some(64), "{report}");
    assert!(report["outputs"][0]["cosine"].as_f64().is_some_and(|c| c > 0.98), "{report}");
    let run = edgec(&["verify", s(&q), "--data", s(&data), "--atol", "0.5", "--rtol", "0.1"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
}

#[test]
fn bad_quantization_options_are_named() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let o = dir.path().join("q.eir");
    let cases: &[(&[&str], &str)] = &[
        (&["--calib-method", "kl"], "unknown calibration method `kl`"),
        (&["--act-type", "u4"], "--act-type u4"),
        (
            &["--keep-float", "NoSuchNode", "--keep-float", "Conv", "--keep-float", "Nada", "--i16", "Zilch"],
            "--keep-float NoSuchNode, --keep-float Nada, --i16 Zilch",
        ),
        (&["--auto-mixed", "1.5"], "--auto-mixed 1.5"),
        (&["--eval", "/nonexistent/eval"], "/nonexistent/eval: not a directory"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["quantize", s(&m), "--calib", s(&data), "-o", s(&o)];
        args.extend_from_slice(extra);
        let out = edgec(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: want {want:?} in {err}");
    }
    let policy = dir.path().join("p.toml");
    std::fs::write(&policy, "quantize = [\"onnx.Conv\", \"onnx.Nope\"]\n[patterns]\nbogus = \"x\"\n").expect("w");
    let out = edgec(&["quantize", s(&m), "--calib", s(&data), "-o", s(&o), "--policy", s(&policy)]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("unknown op `onnx.Nope`") && err.contains("unknown pattern `bogus`"), "{err}");
}

#[test]
fn auto_mixed_reports_its_sensitivity_analysis_and_every_move() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let (o, r) = (dir.path().join("q.eir"), dir.path().join("r.json"));
    // Without equalization: equalized, no activation of this model costs a tenth of the
    // loss alone, and the test wants both kinds of move.
    let args = ["--auto-mixed", "0.99995", "--no-equalize"];
    let out = edgec(&[&["quantize", s(&m), "--calib", s(&data), "-o", s(&o), "--report", s(&r)][..], &args].concat());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("most sensitive activations") && err.contains("auto-mixed moved"), "{err}");
    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&r).expect("report")).expect("json");
    let cos = |row: &serde_json::Value| row["cosine"].as_f64().expect("cosine");
    let sens = report["sensitivity"].as_array().expect("sensitivity");
    assert!(sens.len() > 50 && sens.windows(2).all(|w| cos(&w[0]) <= cos(&w[1])), "worst first: {sens:?}");
    let moved = report["moved"].as_array().expect("moved");
    assert!(moved.iter().any(|mv| mv["to"] == "i16") && moved.iter().any(|mv| mv["to"] == "float"), "{moved:?}");
    assert!(cos(&report["outputs"][0]) >= 0.99995, "{report}");
}

#[test]
fn auto_mixed_keeps_moving_until_the_module_written_reaches_the_target() {
    // On this model and sample the QDQ form reaches 0.9998 before any move; the integer
    // module does not (requantization rounds differently).
    let dir = tempfile::tempdir().expect("tmp");
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let (o, r) = (dir.path().join("q.eir"), dir.path().join("r.json"));
    let report = |extra: &[&str]| {
        let args = [&["quantize", s(&m), "--calib", s(&data), "-o", s(&o), "--report", s(&r)][..], extra].concat();
        let out = edgec(&args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&r).expect("report")).expect("json")
    };
    let cos = |v: &serde_json::Value| v["cosine"].as_f64().expect("cosine");
    let qdq = report(&["--auto-mixed", "0.9998", "--qdq"]);
    assert!(qdq["moved"].as_array().is_some_and(Vec::is_empty), "{qdq}");
    assert!(cos(&qdq["outputs"][0]) >= 0.9998, "{qdq}");
    let plain = report(&[]);
    assert!(cos(&plain["outputs"][0]) < 0.9998, "the integer module reaches it unaided: the test could not fail");
    let int = report(&["--auto-mixed", "0.9998"]);
    assert!(int["moved"].as_array().is_some_and(|m| !m.is_empty()), "{int}");
    assert!(cos(&int["outputs"][0]) >= 0.9998 && cos(&int["integer"]["qdq_outputs"][0]) >= 0.9998, "{int}");
}
