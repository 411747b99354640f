//! `edgec opt --bucket` end to end: explicit and `auto:` buckets, `--pad`,
//! `--explain` reporting the specialization and the padding waste, `edgec
//! verify` naming the bucket it ran and the deviation from the unbucketed
//! reference, and user errors (unknown dim, too long an input) with exit 1.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn edgec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_edgec")).args(args).output().expect("run edgec")
}

fn text(o: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&o.stdout), String::from_utf8_lossy(&o.stderr))
}

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models").join(name)
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

#[test]
fn auto_buckets_explain_and_verify() {
    let dir = tempfile::tempdir().expect("tmp");
    let sizes = dir.path().join("lengths.txt");
    std::fs::write(&sizes, "# observed request lengths\n7\n9\n30\n32\n31\n100\n").expect("write");
    let eir = dir.path().join("b.eir");
    let m = model("bert_dynamic");
    let bucket = format!("sequence=auto:{}", s(&sizes));
    let onnx = m.join("model.onnx");
    let args = ["opt", s(&onnx), "--bucket", &bucket, "--buckets-max", "3", "--pad", "input_ids=0", "--explain"];
    let out = edgec(&[&args[..], &["-o", s(&eir)]].concat());
    let t = text(&out);
    assert_eq!(out.status.code(), Some(0), "{t}");
    assert!(t.contains("auto buckets for `sequence` from 6 observed size(s)"), "{t}");
    assert!(t.contains("bucket      9: sizes 7..=9 (2 observation(s)"), "{t}");
    assert!(t.contains("bucketed @main: `sequence` = 9, 32, 100 -> 3 static function(s)"), "{t}");
    let v =
        edgec(&["verify", s(&eir), "--data", s(&m.join("test_data_set_0")), "--data", s(&m.join("test_data_set_2"))]);
    let t = text(&v);
    assert_eq!(v.status.code(), Some(0), "{t}");
    assert!(t.contains("bucket: `sequence` = 7 -> 9 (@main__sequence_9)"), "{t}");
    assert!(t.contains("bucket: `sequence` = 100 -> 100 (@main__sequence_100)"), "{t}");
    assert!(t.contains("deviation from the exact @main.reference"), "{t}");
}

#[test]
fn user_errors_exit_1_with_every_problem() {
    let m = model("bert_dynamic").join("model.onnx");
    let out = edgec(&["opt", s(&m), "--bucket", "seq=8", "--pad", "mask=0"]);
    let t = text(&out);
    assert_eq!(out.status.code(), Some(1), "{t}");
    assert!(t.contains("dim `seq` is not a symbolic dim of any input of @main (input dims: sequence)"), "{t}");
    assert!(t.contains("--pad mask: no such input"), "{t}");
    let out = edgec(&["opt", s(&m), "--bucket", "sequence=0,x"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
}

#[test]
fn running_past_the_largest_bucket_is_a_user_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let eir = dir.path().join("b.eir");
    let m = model("bert_dynamic");
    let out = edgec(&["opt", s(&m.join("model.onnx")), "--bucket", "sequence=8,16", "-o", s(&eir)]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // test_data_set_1 has 32 tokens.
    let v = edgec(&["verify", s(&eir), "--data", s(&m.join("test_data_set_1"))]);
    let t = text(&v);
    assert_eq!(v.status.code(), Some(1), "{t}");
    assert!(t.contains("dim `sequence` is 32, larger than the largest bucket 16 (buckets: 8, 16)"), "{t}");
}
