//! `edgec compile --emit tflite` and `edgec inspect model.tflite` end to end
//! on a bundled published model (MobileNetV3-small from Paddle): the file
//! is a TFLite flatbuffer of int8 operators with NHWC int8 I/O, the same
//! bytes on every run, listed by `inspect`; truncated and corrupted files
//! and missing options are located errors. (LiteRT and Vela check the
//! files numerically: `bash testsuite/tflite/check.sh`.)

mod common;

use common::{edgec, model, s, text};
use std::path::Path;
use std::process::Output;

/// Compile the bundled model to `out` (a .tflite path) with the given report path.
fn compile(out: &Path, report: &Path) -> Output {
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    edgec(&[
        "compile",
        s(&m),
        "--target",
        "ethos-u55-256",
        "--shape",
        "x=1,3,224,224",
        "--quantize",
        "int8",
        "--calib",
        s(&data),
        "--emit",
        "tflite",
        "-o",
        s(out),
        "--report",
        s(report),
    ])
}

#[test]
fn emit_tflite_writes_the_same_int8_flatbuffer_every_time() {
    let dir = tempfile::tempdir().expect("tmp");
    let (a, b) = (dir.path().join("a.tflite"), dir.path().join("b.tflite"));
    let r = dir.path().join("r.json");
    let out = compile(&a, &r);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("0 layout transposes"), "{err}");
    assert_eq!(compile(&b, &r).status.code(), Some(0));
    let (ba, bb) = (std::fs::read(&a).expect("a"), std::fs::read(&b).expect("b"));
    assert_eq!(ba, bb, "two runs wrote different bytes");
    assert_eq!(&ba[4..8], b"TFL3", "file identifier");

    let report: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&r).expect("report")).expect("json");
    let input = &report["inputs"][0];
    assert_eq!(input["shape"], serde_json::json!([1, 224, 224, 3]), "{report}");
    assert_eq!(input["layout"], "NHWC");
    assert_eq!(input["dtype"], "int8");
    let ops = report["operators"].as_object().expect("operators");
    for op in ["Conv2d", "DepthwiseConv2d", "HardSwish"] {
        assert!(ops.contains_key(op), "no {op} in {ops:?}");
    }

    let listing = edgec(&["inspect", s(&a)]);
    let l = text(&listing.stdout);
    assert_eq!(listing.status.code(), Some(0), "{}", text(&listing.stderr));
    assert!(l.contains("identifier \"TFL3\"") && l.contains("Conv2d") && l.contains("per axis 0"), "{l}");
    assert!(l.contains("Int8     [1, 224, 224, 3]"), "{l}");
}

#[test]
fn inspect_reports_truncated_and_corrupted_files() {
    let dir = tempfile::tempdir().expect("tmp");
    let (a, r) = (dir.path().join("m.tflite"), dir.path().join("r.json"));
    assert_eq!(compile(&a, &r).status.code(), Some(0));
    let bytes = std::fs::read(&a).expect("model");
    let cut = dir.path().join("cut.tflite");
    for n in [0, 7, 100, bytes.len() / 2] {
        std::fs::write(&cut, &bytes[..n]).expect("write");
        let out = edgec(&["inspect", s(&cut)]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "prefix {n}: {err}");
        assert!(err.contains("cut.tflite") && err.contains("TFLite"), "prefix {n}: {err}");
    }
}

#[test]
fn emit_tflite_needs_quantization_and_a_tflite_target() {
    let dir = tempfile::tempdir().expect("tmp");
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let o = dir.path().join("m.tflite");
    let out = edgec(&["compile", s(&m), "--emit", "tflite", "-o", s(&o)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("--emit tflite writes an INT8 model: add --quantize int8"),
        "{}",
        text(&out.stderr)
    );
    let quant = ["--quantize", "int8", "--calib", s(&data), "--emit", "tflite", "-o", s(&o)];
    // The cpu target fuses hard_swish into convolutions, which TFLite cannot.
    let out = edgec(&[&["compile", s(&m), "--shape", "x=1,3,224,224"][..], &quant].concat());
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("hard_swish has no TFLite form") && err.contains("--target ethos-u55-256"), "{err}");
    assert!(!err.contains("output #0"), "only the first failure of a chain is reported: {err}");
    assert!(!o.exists(), "a file was written: {}", o.display());
    // Int16 conv results: the HardSwish reading them computes in 16 bits,
    // where TFLite has no HARD_SWISH kernel: MUL(x, HardSigmoid(x)) instead.
    // The HardSigmoid writing an int8 result keeps its clamp within the
    // range its narrowing keeps.
    let target = ["--target", "ethos-u55-256", "--i16", "Conv"];
    let out = edgec(&[&["compile", s(&m), "--shape", "x=1,3,224,224"][..], &target, &quant].concat());
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = text(&edgec(&["inspect", s(&o)]).stdout);
    assert!(listing.contains("Int16") && listing.contains(".hard_sigmoid\"") && listing.contains(" Mul "), "{listing}");
}

/// `edgec compile --emit vela` of the bundled model for `target` into `out`.
fn compile_vela(target: &str, out: &Path, vela: &Path) -> Output {
    let (m, data) = (model().join("model.onnx"), model().join("test_data_set_0"));
    let args = ["compile", s(&m), "--target", target, "--shape", "x=1,3,224,224", "--quantize", "int8"];
    edgec(&[&args[..], &["--calib", s(&data), "--emit", "vela", "--vela", s(vela), "-o", s(out)]].concat())
}

/// A stand-in for Vela that records its arguments and writes the files Vela
/// writes (a one-row per-layer CSV of 1000 cycles). Real Vela runs in
/// `testsuite/tflite/check.sh`.
const FAKE_VELA: &str = r#"#!/bin/sh
echo "$@" > "$(dirname "$0")/args.txt"
out=""; prev=""
for a in "$@"; do [ "$prev" = "--output-dir" ] && out="$a"; prev="$a"; done
printf 'Original Operator,NNG Operator,Target,Op Cycles,Name\nConv2D,Conv2D,NPU,1000,x\n' > "$out/model_per-layer.csv"
echo stream > "$out/model_vela.tflite"
echo "NPU operators = 1 (100.0%)"
"#;

#[cfg(unix)]
#[test]
fn emit_vela_runs_vela_for_the_profiles_accelerator_and_puts_the_prediction_beside_it() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().expect("tmp");
    let vela = dir.path().join("vela");
    std::fs::write(&vela, FAKE_VELA).unwrap();
    std::fs::set_permissions(&vela, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = dir.path().join("out");
    let r = compile_vela("ethos-u55-128", &out, &vela);
    let err = text(&r.stderr);
    assert!(r.status.success(), "{err}");
    let args = std::fs::read_to_string(dir.path().join("args.txt")).unwrap();
    assert!(args.contains("model.tflite --accelerator-config ethos-u55-128 --verbose-performance"), "{args}");
    assert!(out.join("model.tflite").exists() && out.join("model.report.json").exists());
    assert!(err.contains("vela: NPU operators = 1 (100.0%)"), "{err}");
    assert!(err.contains("vela (") && err.contains("1000 cycles") && err.contains("predicted / vela cycles"), "{err}");
}

#[test]
fn emit_vela_names_what_is_missing() {
    let dir = tempfile::tempdir().expect("tmp");
    let missing = dir.path().join("no-vela-here");
    let r = compile_vela("ethos-u55-256", &dir.path().join("o"), &missing);
    let err = text(&r.stderr);
    assert!(!r.status.success() && err.contains("pip install ethos-u-vela"), "{err}");
    let r = compile_vela("cpu", &dir.path().join("o"), &missing);
    let err = text(&r.stderr);
    assert!(!r.status.success() && err.contains("--emit vela needs an Ethos-U target"), "{err}");
}

/// A YOLO-style detector head in IR text: pixel phases by a strided slice,
/// an anchor grid added as a whole-tensor constant, a halving of a rank-3
/// tensor. `anchor` gives the grid's values.
fn head_module(anchor: impl Fn(usize) -> f32) -> String {
    let grid: Vec<String> = (0..16).map(|i| format!("{:?}", anchor(i))).collect();
    format!(
        r#"module @m attributes {{phase = "onnx"}} {{
  const @grid : f32[1, 2, 8] = dense<[{}]>
  const @two : f32[] = dense<[2.0]>
  func @main(%x: f32[1, 4, 4, 4]) -> (f32[1, 2, 8]) {{
    %s = core.slice %x {{axes = [2, 3], ends = [4, 4], starts = [0, 1], steps = [2, 2]}} : f32[1, 4, 2, 2] loc("phase" op "Slice")
    %r = core.reshape %s {{shape = [1, 2, 8]}} : f32[1, 2, 8] loc("flat" op "Reshape")
    %g = core.const {{value = @grid}} : f32[1, 2, 8]
    %a = onnx.Add %r, %g : f32[1, 2, 8] loc("anchors" op "Add")
    %h = core.const {{value = @two}} : f32[]
    %d = onnx.Div %a, %h : f32[1, 2, 8] loc("half" op "Div")
    return %d
  }}
}}"#,
        grid.join(", ")
    )
}

/// Compile `src` (IR text) for the Ethos-U55-256 with one calibration sample.
fn compile_head(dir: &Path, src: &str) -> (Output, std::path::PathBuf) {
    compile_shaped(dir, src, &[1, 4, 4, 4], &[])
}

/// [`compile_head`] with a 64-element input `x` of shape `dims` and `extra` flags.
fn compile_shaped(dir: &Path, src: &str, dims: &[usize], extra: &[&str]) -> (Output, std::path::PathBuf) {
    let m = dir.join("head.eir");
    std::fs::write(&m, src).expect("write model");
    let sample = dir.join("calib").join("s0");
    std::fs::create_dir_all(&sample).expect("calib dir");
    let x: Vec<f32> = (0..64).map(|i| ((i * 37 % 64) as f32 - 32.0) / 8.0).collect();
    let t = ir::interp::Tensor::new(dims.to_vec(), ir::interp::Data::F32(x));
    std::fs::write(sample.join("x.npy"), compiler::npy::write_npy(&t)).expect("npy");
    let o = dir.join("head.tflite");
    let calib = dir.join("calib");
    let args = ["compile", s(&m), "--target", "ethos-u55-256", "--quantize", "int8", "--calib", s(&calib)];
    (edgec(&[&args[..], extra, &["--emit", "tflite", "-o", s(&o)]].concat()), o)
}

#[test]
fn detector_heads_strided_slices_anchor_grids_and_rank3_steps() {
    let dir = tempfile::tempdir().expect("tmp");
    // Anchor centres 0.5, 1.5, ...: multiples of 1/2, an exact int8 grid.
    let (out, o) = compile_head(dir.path(), &head_module(|i| i as f32 + 0.5));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = text(&edgec(&["inspect", s(&o)]).stdout);
    for op in ["StridedSlice", "Add", "DepthwiseConv2d"] {
        assert!(listing.contains(op), "no {op}:\n{listing}");
    }
    assert!(listing.contains("const scale=0.5 zp=0"), "the anchor grid on steps of 1/2:\n{listing}");
    // Values no int8 grid holds exactly: a located error, and no file.
    let dir = tempfile::tempdir().expect("tmp");
    let (out, o) = compile_head(dir.path(), &head_module(|i| i as f32 * 0.1 + 0.05));
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("ONNX node \"anchors\"") && err.contains("no int8 grid holds exactly"), "{err}");
    assert!(!o.exists(), "a file was written: {}", o.display());
}

#[test]
fn a_one_channel_nhwc_input_reshaped_to_nchw_is_stored_as_given() {
    // tf2onnx writes NHWC -> NCHW of an [N, H, W, 1] input as a Reshape to
    // [N, 1, H, W]: the same bytes, so the input is stored as given and the
    // Reshape is free, with no transpose.
    let src = r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f32[1, 4, 16, 1]) -> (f32[1, 1, 4, 16]) {
    %r = core.reshape %x {shape = [1, 1, 4, 16]} : f32[1, 1, 4, 16] loc("to_nchw" op "Reshape")
    %y = onnx.Relu %r : f32[1, 1, 4, 16] loc("act" op "Relu")
    return %y
  }
}"#;
    let dir = tempfile::tempdir().expect("tmp");
    let (out, o) = compile_shaped(dir.path(), src, &[1, 4, 16, 1], &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("0 layout transposes") && err.contains("x int8 [1, 4, 16, 1] as is"), "{err}");
    let listing = text(&edgec(&["inspect", s(&o)]).stdout);
    assert!(!listing.contains("Transpose "), "{listing}");
}

#[test]
fn one_int16_op_among_int8_tensors_is_widened_and_narrowed() {
    // `--i16 wide`: the Add computes in TFLite's 16-bit form, so its 8-bit
    // operand is widened (QUANTIZE to int16) and the Relu after it reads
    // the Add's int16 result as int16 too (one QUANTIZE back to int8 at the
    // end, the graph's output). No mixed-width operator is left.
    let src = r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f32[1, 4, 4, 4]) -> (f32[1, 4, 4, 4]) {
    %a = onnx.Add %x, %x : f32[1, 4, 4, 4] loc("wide" op "Add")
    %y = onnx.Relu %a : f32[1, 4, 4, 4] loc("act" op "Relu")
    return %y
  }
}"#;
    let dir = tempfile::tempdir().expect("tmp");
    let (out, o) = compile_shaped(dir.path(), src, &[1, 4, 4, 4], &["--i16", "wide"]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let listing = text(&edgec(&["inspect", s(&o)]).stdout);
    let quantizes = listing.lines().filter(|l| l.contains("Quantize")).count();
    assert!(listing.contains("int16") && quantizes == 2, "{quantizes} QUANTIZE:\n{listing}");
}

#[test]
fn a_heads_concatenation_runs_in_the_layout_its_inputs_share() {
    // Two scales of a head flattened to [1, C, H·W] (stored as [1, H·W, C]
    // from NHWC) and joined along H·W: one CONCATENATION in the stored
    // layout, no transpose per scale; the graph output stays as stored
    // (the log says so).
    let src = r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f32[1, 4, 4, 4]) -> (f32[1, 4, 20]) {
    %a = core.reshape %x {shape = [1, 4, 16]} : f32[1, 4, 16] loc("flat16" op "Reshape")
    %s = core.slice %x {axes = [2, 3], ends = [4, 4], starts = [0, 0], steps = [2, 2]} : f32[1, 4, 2, 2] loc("half" op "Slice")
    %b = core.reshape %s {shape = [1, 4, 4]} : f32[1, 4, 4] loc("flat4" op "Reshape")
    %c = onnx.Concat %a, %b {axis = 2} : f32[1, 4, 20] loc("scales" op "Concat")
    return %c
  }
}"#;
    let dir = tempfile::tempdir().expect("tmp");
    let (out, o) = compile_head(dir.path(), src);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("0 layout transposes"), "{err}");
    assert!(err.contains("output_0 int8 [1, 20, 4] permuted"), "{err}");
    let listing = text(&edgec(&["inspect", s(&o)]).stdout);
    assert!(listing.contains("Concatenation") && !listing.contains("Transpose "), "{listing}");
}

#[test]
fn an_op_with_no_integer_form_is_a_float_island_on_the_cpu() {
    // Sqrt has no int8 TFLite form: it is written in float32 between a
    // DEQUANTIZE and a QUANTIZE, and `edgec report` places it on the CPU;
    // so is the step by a constant only it reads (no grid of its own).
    let src = r#"module @m attributes {phase = "onnx"} {
  const @eps : f32[] = dense<[0.5]>
  func @main(%x: f32[1, 4, 4, 4]) -> (f32[1, 4, 4, 4]) {
    %r = onnx.Relu %x : f32[1, 4, 4, 4] loc("pos" op "Relu")
    %e = core.const {value = @eps} : f32[]
    %a = onnx.Add %r, %e : f32[1, 4, 4, 4] loc("shift" op "Add")
    %s = onnx.Sqrt %a : f32[1, 4, 4, 4] loc("root" op "Sqrt")
    %y = onnx.Relu %s : f32[1, 4, 4, 4] loc("act" op "Relu")
    return %y
  }
}"#;
    let dir = tempfile::tempdir().expect("tmp");
    let (out, o) = compile_shaped(dir.path(), src, &[1, 4, 4, 4], &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let listing = text(&edgec(&["inspect", s(&o)]).stdout);
    for op in [" Dequantize ", " Add ", " Sqrt ", " Quantize "] {
        assert!(listing.contains(op), "no{op}:\n{listing}");
    }
    assert!(listing.contains("Float32"), "{listing}");
    let report = edgec(&["report", s(&dir.path().join("head.eir")), "--target", "ethos-u55-256"]);
    let r = text(&report.stdout);
    assert_eq!(report.status.code(), Some(0), "{}", text(&report.stderr));
    let row = r.lines().find(|l| l.contains("onnx.Sqrt")).unwrap_or_else(|| panic!("no Sqrt row:\n{r}"));
    assert!(row.contains("cpu"), "{r}");
    assert!(r.contains("float32 SQRT on the host CPU"), "{r}");
    let row = r.lines().find(|l| l.contains("onnx.Add")).unwrap_or_else(|| panic!("no Add row:\n{r}"));
    assert!(row.contains("cpu"), "{r}");
    assert!(r.contains("a step by a constant that only fallback ops read"), "{r}");
    // A float result as the graph's output has no int8 tensor: a located error.
    let dir = tempfile::tempdir().expect("tmp");
    let last =
        src.replace("%y = onnx.Relu %s", "%y = onnx.Sqrt %r").replace("\"act\" op \"Relu\"", "\"out\" op \"Sqrt\"");
    let last = last.replace("    %s = onnx.Sqrt %a : f32[1, 4, 4, 4] loc(\"root\" op \"Sqrt\")\n", "");
    let (out, o) = compile_shaped(dir.path(), &last, &[1, 4, 4, 4], &[]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("output #0") && err.contains("not a quantized value"), "{err}");
    assert!(!o.exists());
}
