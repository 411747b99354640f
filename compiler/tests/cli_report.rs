//! `edgec report`: placement, costs, segments and memory of a model on a
//! target before compiling, and Vela's estimate beside it.

mod common;

use common::{edgec, model, s, text};
use serde_json::Value;

fn report_json(args: &[&str]) -> Value {
    let out = edgec(args);
    assert!(out.status.success(), "edgec report failed: {}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("report JSON")
}

fn mobilenet(target: &str) -> Vec<String> {
    let m = model().join("model.onnx");
    ["report", s(&m), "--target", target, "--shape", "x=1,3,224,224", "--json"].map(String::from).to_vec()
}

/// The bundled MobileNetV3's report on `target`, as JSON.
fn mobilenet_report(target: &str) -> Value {
    report_json(&mobilenet(target).iter().map(String::as_str).collect::<Vec<_>>())
}

#[test]
fn every_op_of_a_published_cnn_is_placed_and_costed_the_same_every_time() {
    let args = mobilenet("ethos-u55-256");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let r = report_json(&args);
    let ops = r["ops"].as_array().unwrap();
    assert!(ops.len() > 50, "{} ops", ops.len());
    assert_eq!(r["fallback_ops"], 0, "MobileNetV3 has a TFLite form for every op");
    assert_eq!(r["segments"].as_array().unwrap().len(), 1);
    let sum: f64 = ops.iter().map(|o| o["cycles"]["total"].as_f64().expect("device rows have cycles")).sum();
    let total = r["cycles"].as_f64().unwrap();
    assert!((sum - total).abs() <= 1e-6 * total && total > 0.0, "rows {sum} vs total {total}");
    assert!(ops.iter().filter(|o| o["op"] == "core.conv").all(|o| o["macs"].as_f64().unwrap() > 0.0));
    assert!(r["peak_activation_bytes"].as_f64().unwrap() > 0.0 && r["const_bytes"].as_f64().unwrap() > 0.0);
    assert_eq!(edgec(&args).stdout, edgec(&args).stdout, "the report is deterministic");
}

#[test]
fn table_activations_run_in_the_output_stage_of_the_conv_they_read() {
    let r = mobilenet_report("ethos-u55-256");
    let ops = r["ops"].as_array().unwrap();
    let total = |o: &Value| o["cycles"]["total"].as_f64().unwrap();
    let hs: Vec<usize> = (1..ops.len()).filter(|&i| ops[i]["op"] == "onnx.HardSwish").collect();
    assert!(hs.len() > 10, "MobileNetV3 has hard_swish after its convolutions");
    // MobileNetV3's hard_swish follows a conv (or its classifier's linear)
    // whose only reader it is: fused, with no cycles of its own.
    let fused: Vec<usize> = hs.iter().copied().filter(|&i| total(&ops[i]) == 0.0).collect();
    assert!(!fused.is_empty(), "no hard_swish was fused");
    for i in fused {
        let producer = &ops[i - 1]["op"];
        assert!(producer == "core.conv" || producer == "core.linear", "row {i} fused into a {producer}");
        assert!(total(&ops[i - 1]) > 0.0);
    }
    // The same model on the U65-512: two cores, the same placement.
    let u65 = mobilenet_report("ethos-u65-512");
    assert_eq!(u65["fallback_ops"], 0);
    assert!(u65["cycles"].as_f64().unwrap() < r["cycles"].as_f64().unwrap());
}

#[test]
fn cpu_and_simulated_profiles_report_time_without_cycles() {
    for (target, simulated) in [("cpu", false), ("rk3588-npu", true)] {
        let args = mobilenet(target);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let r = report_json(&args);
        assert_eq!(r["simulated"], simulated, "{target}");
        assert!(r["cycles"].is_null() && r["ns"].as_f64().unwrap() > 0.0, "{target}");
    }
    let m = model().join("model.onnx");
    let out = edgec(&["report", s(&m), "--target", "rk3588-npu", "--shape", "x=1,3,224,224"]);
    assert!(text(&out.stdout).contains("SIMULATED profile"), "{}", text(&out.stdout));
}

const WITH_ERF: &str = r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f32[1, 8, 4, 4]) -> (f32[1, 8, 4, 4]) {
    %a = onnx.Relu %x : f32[1, 8, 4, 4]
    %b = onnx.Erf %a : f32[1, 8, 4, 4]
    %c = onnx.Relu %b : f32[1, 8, 4, 4]
    return %c
  }
}
"#;

#[test]
fn an_op_without_a_tflite_form_falls_back_with_its_reason_and_transfers() {
    let dir = tempfile::tempdir().unwrap();
    let eir = dir.path().join("erf.eir");
    std::fs::write(&eir, WITH_ERF).unwrap();
    let r = report_json(&["report", s(&eir), "--target", "ethos-u55-256", "--json"]);
    assert_eq!(r["fallback_ops"], 1);
    let erf = &r["ops"][1];
    assert_eq!((erf["op"].as_str(), erf["place"].as_str()), (Some("onnx.Erf"), Some("cpu")));
    assert!(erf["reason"].as_str().unwrap().contains("no TFLite int8 form"), "{erf}");
    // NPU, CPU, NPU: the CPU segment and the last NPU segment each read 128 int8 bytes.
    let segs: Vec<f64> = r["segments"].as_array().unwrap().iter().map(|g| g["bytes_in"].as_f64().unwrap()).collect();
    assert_eq!(segs, [0.0, 128.0, 128.0]);
    assert!(r["transfer_ns"].as_f64().unwrap() > 0.0);
}

#[test]
fn vela_estimates_sit_beside_the_prediction_and_bad_csvs_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let eir = dir.path().join("erf.eir");
    std::fs::write(&eir, WITH_ERF).unwrap();
    let csv = dir.path().join("m_per-layer.csv");
    let header = "Original Operator,NNG Operator,Target,Op Cycles,Name\n";
    std::fs::write(&csv, format!("{header}Relu,Relu,NPU,60,a\nGelu,Gelu,CPU,0,b\nRelu,Relu,NPU,70,c\n")).unwrap();
    let out = edgec(&["report", s(&eir), "--target", "ethos-u55-256", "--vela", s(&csv)]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(t.contains("130 cycles; 2 NPU rows; on the CPU: Gelu"), "{t}");
    assert!(t.contains("predicted / vela cycles: 0.98"), "{t}");
    assert!(t.contains("placement: agrees"), "{t}");
    std::fs::write(&csv, format!("{header}Relu,Relu,NPU,many,a\nRelu,Relu,NPU\n")).unwrap();
    let out = edgec(&["report", s(&eir), "--target", "ethos-u55-256", "--vela", s(&csv)]);
    let e = text(&out.stderr);
    assert!(!out.status.success());
    assert!(
        e.contains("m_per-layer.csv:2: `Op Cycles` is not a count") && e.contains("m_per-layer.csv:3: 3 fields"),
        "{e}"
    );
}
