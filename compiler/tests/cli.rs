//! End-to-end tests of the `edgec` binary: exit codes, diagnostics, sidecars.

use std::path::Path;
use std::process::{Command, Output, Stdio};

fn edgec(args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_edgec"));
    cmd.args(args).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("spawn edgec");
    if let Some(s) = stdin {
        use std::io::Write;
        // edgec may exit before reading stdin (e.g. on a bad flag); a broken pipe is fine.
        let _ = child.stdin.take().expect("stdin").write_all(s.as_bytes());
    }
    drop(child.stdin.take());
    child.wait_with_output().expect("wait edgec")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

const VALID: &str = r#"module @m attributes {phase = "onnx"} {
  const @k : f32[4] = dense<[1.0, 1.0, 1.0, 1.0]>

  func @main(%x: f32[batch, 4]) -> (f32[batch, 4]) {
    %0 = onnx.Identity %x : f32[batch, 4]
    %1 = core.const {value = @k} : f32[4]
    %2 = onnx.Mul %0, %1 : f32[batch, 4] loc("scale" op "Mul")
    %3 = onnx.Relu %2 : f32[batch, 4]
    return %3
  }
}
"#;

fn write(dir: &Path, name: &str, contents: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, contents).expect("write");
    p.display().to_string()
}

#[test]
fn parse_prints_canonical_text_from_file_and_stdin() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "m.eir", VALID);
    let out = edgec(&["parse", &f], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), VALID);
    let out = edgec(&["parse", "-"], Some(VALID));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(text(&out.stdout), VALID);
}

#[test]
fn parse_error_exits_1_with_file_line_col() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(dir.path(), "bad.eir", &VALID.replace("onnx.Relu", "onnx.Relux"));
    let out = edgec(&["parse", &f], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains(&format!("{f}:8:10: error: unknown op `onnx.Relux`")), "{err}");
}

#[test]
fn verifier_errors_are_all_listed_with_positions() {
    let src = VALID
        .replace("%0 = onnx.Identity %x : f32[batch, 4]", "%0 = onnx.Identity %x {bogus = 1} : f32[batch, 4]")
        .replace("%3 = onnx.Relu %2 : f32[batch, 4]", "%3 = onnx.Relu %2 : i32[batch, 4]");
    let out = edgec(&["parse", "-"], Some(&src));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("<stdin>:5:5: error: onnx.Identity: unknown attribute `bogus`"), "{err}");
    assert!(err.contains("<stdin>:8:5: error: onnx.Relu: result #0 declared i32[batch, 4]"), "{err}");
    assert!(err.contains("<stdin>:9:5: error: return of @main"), "{err}");
    assert!(err.contains("3 verifier error(s)"), "{err}");
}

#[test]
fn opt_runs_pipeline_and_dumps_after_each_pass() {
    let out = edgec(&["opt", "-", "--passes", "canonicalize,dce", "--print-ir-after-all", "--timings"], Some(VALID));
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.contains("onnx.Identity") && !stdout.contains("onnx.Mul") && !stdout.contains("@k"), "{stdout}");
    assert!(stdout.contains("%0 = onnx.Relu %x : f32[batch, 4]"), "{stdout}");
    let err = text(&out.stderr);
    assert!(
        err.contains("// ----- IR after canonicalize -----") && err.contains("// ----- IR after dce -----"),
        "{err}"
    );
    assert!(err.contains("time(ms)"), "{err}");
}

#[test]
fn opt_print_ir_after_one_pass_only() {
    let out = edgec(&["opt", "-", "--passes", "canonicalize,dce", "--print-ir-after", "dce"], Some(VALID));
    assert_eq!(out.status.code(), Some(0));
    let err = text(&out.stderr);
    assert!(!err.contains("IR after canonicalize") && err.contains("IR after dce"), "{err}");
}

#[test]
fn unknown_passes_are_all_listed_with_valid_names() {
    let out = edgec(&["opt", "-", "--passes", "dce,frobnicate,canonicalise"], Some(VALID));
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("unknown pass(es): frobnicate, canonicalise"), "{err}");
    assert!(err.contains("valid passes are: canonicalize, dce, shape-infer"), "{err}");
    let out = edgec(&["opt", "-", "--passes", "dce", "--print-ir-after", "nope"], Some(VALID));
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn help_exists_for_every_subcommand() {
    for sub in [&["--help"][..], &["parse", "--help"], &["opt", "--help"], &["passes", "--help"]] {
        let out = edgec(sub, None);
        assert_eq!(out.status.code(), Some(0), "{sub:?}");
        assert!(text(&out.stdout).contains("Usage"), "{sub:?}");
    }
}

fn big_module() -> String {
    let vals: Vec<String> = (0..40).map(|i| format!("{}.5", i)).collect();
    format!(
        "module @w attributes {{phase = \"onnx\"}} {{\n  const @big : f32[40] = dense<[{}]>\n\n  func @main(%x: f32[40]) -> (f32[40]) {{\n    %0 = core.const {{value = @big}} : f32[40]\n    %1 = onnx.Add %x, %0 : f32[40]\n    return %1\n  }}\n}}\n",
        vals.join(", ")
    )
}

#[test]
fn weights_sidecar_round_trips_and_corruption_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let src = write(dir.path(), "in.eir", &big_module());
    let out_path = dir.path().join("out.eir");
    let out = edgec(&["parse", &src, "-o", out_path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&out_path).unwrap();
    assert!(
        written.contains("weights = \"out.weights\"") && written.contains("external<offset = 64, size = 160"),
        "{written}"
    );
    // Reloading text + sidecar and printing everything inline gives the original module back.
    let loaded = compiler::load_eir(out_path.to_str().unwrap()).expect("reload");
    assert_eq!(ir::text::print_module(&loaded.module), big_module());
    // On stdout the big constant is elided, with a note.
    let out = edgec(&["parse", out_path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("const @big : f32[40] = elided<size = 160"), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("1 large constant(s) elided"));
    // Flip one byte of the weights: a hash mismatch naming the file, exit 1.
    let side = dir.path().join("out.weights");
    let mut bytes = std::fs::read(&side).unwrap();
    bytes[70] ^= 0xff;
    std::fs::write(&side, &bytes).unwrap();
    let out = edgec(&["parse", out_path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("out.eir:2:26: error: weights file \"out.weights\": blob hash mismatch"), "{err}");
    // Truncated sidecar.
    std::fs::write(&side, &bytes[..100]).unwrap();
    let out = edgec(&["parse", out_path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("lies outside the weights sidecar"));
    // Missing sidecar.
    std::fs::remove_file(&side).unwrap();
    let out = edgec(&["parse", out_path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("cannot read weights file \"out.weights\""));
}

#[test]
fn missing_input_file_is_a_user_error() {
    let out = edgec(&["parse", "/nonexistent/x.eir"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("/nonexistent/x.eir"));
}

#[test]
fn mutated_inputs_never_crash_the_cli() {
    // Every single-line deletion of a valid module is a user error or success, never exit 2/101.
    let lines: Vec<&str> = VALID.lines().collect();
    for skip in 0..lines.len() {
        let src: String = lines.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, l)| format!("{l}\n")).collect();
        let out = edgec(&["opt", "-", "--passes", "shape-infer,canonicalize,dce"], Some(&src));
        let code = out.status.code();
        assert!(code == Some(0) || code == Some(1), "line {skip} removed: exit {code:?}\n{}", text(&out.stderr));
        if code == Some(1) {
            assert!(text(&out.stderr).contains("<stdin>:"), "line {skip}: {}", text(&out.stderr));
        }
    }
}
