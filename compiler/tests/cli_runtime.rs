//! `edgec compile --emit rust --runtime DIR`: crates that share one copy of
//! the kernel runtime, and recompiles that leave unchanged files untouched
//! (so cargo rebuilds only what changed).

mod common;
use common::{edgec, s, text};
use std::path::Path;
use std::time::SystemTime;

fn det_head() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/det_head/model.onnx")
}

fn mtime(p: &Path) -> SystemTime {
    std::fs::metadata(p).and_then(|m| m.modified()).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn crates_share_one_runtime_and_recompiles_keep_unchanged_files() {
    let dir = tempfile::tempdir().expect("tmp");
    let (a, b, rt) = (dir.path().join("a"), dir.path().join("nested/b"), dir.path().join("rt"));
    // `a` first carries its own copy; compiling it again with --runtime drops the copy.
    let own = edgec(&["compile", s(&det_head()), "--emit", "rust", "-o", s(&a)]);
    assert_eq!(own.status.code(), Some(0), "{}", text(&own.stderr));
    assert!(a.join("kernels/src/lib.rs").is_file());
    for (krate, path) in [(&a, "../rt/kernels"), (&b, "../../rt/kernels")] {
        let out = edgec(&["compile", s(&det_head()), "--emit", "rust", "-o", s(krate), "--runtime", s(&rt)]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let toml = std::fs::read_to_string(krate.join("Cargo.toml")).expect("Cargo.toml");
        assert!(toml.contains(&format!("edgec-kernels = {{ path = \"{path}\" }}")), "{toml}");
        assert!(!krate.join("kernels").exists() && !krate.join("numeric").exists());
    }
    let lib = rt.join("kernels/src/lib.rs");
    assert!(lib.is_file() && rt.join("numeric/src/lib.rs").is_file());
    // A file an older edgec left in the runtime is pruned; unchanged ones keep their time.
    let stale = rt.join("kernels/src/moved_away.rs");
    std::fs::write(&stale, "// old").expect("write");
    let (t_lib, t_crate) = (mtime(&lib), mtime(&b.join("src/lib.rs")));
    std::thread::sleep(std::time::Duration::from_millis(20));
    let again = edgec(&["compile", s(&det_head()), "--emit", "rust", "-o", s(&b), "--runtime", s(&rt)]);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    assert!(!stale.exists());
    assert_eq!((mtime(&lib), mtime(&b.join("src/lib.rs"))), (t_lib, t_crate));
}

#[test]
fn runtime_errors_name_the_problem() {
    let dir = tempfile::tempdir().expect("tmp");
    let rt = dir.path().join("rt");
    std::fs::create_dir_all(rt.join("kernels")).expect("mkdir");
    std::fs::write(rt.join("kernels/Cargo.toml"), "[package]\nname = \"mine\"\n").expect("write");
    let k = dir.path().join("k");
    let out = edgec(&["compile", s(&det_head()), "--emit", "rust", "-o", s(&k), "--runtime", s(&rt)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let err = text(&out.stderr);
    assert!(err.contains("kernels/Cargo.toml: not written by edgec"), "{err}");
    assert_eq!(std::fs::read_to_string(rt.join("kernels/Cargo.toml")).expect("kept"), "[package]\nname = \"mine\"\n");
    let ir = edgec(&["compile", s(&det_head()), "--emit", "ir", "-o", s(&k), "--runtime", s(&rt)]);
    assert!(text(&ir.stderr).contains("--runtime applies to --emit rust"), "{}", text(&ir.stderr));
}
