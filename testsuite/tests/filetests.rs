//! Runs every filetest under `testsuite/filetests/`. `BLESS=1` re-blesses.

use std::path::Path;
use testsuite::filetest::{collect, run_file, Outcome};

#[test]
fn filetests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("filetests");
    let bless = std::env::var_os("BLESS").is_some_and(|v| v == "1");
    let files = collect(&root);
    assert!(!files.is_empty(), "no filetests found under {}", root.display());
    let mut failures = Vec::new();
    for f in &files {
        if let Outcome::Fail(msg) = run_file(f, bless) {
            failures.push(format!("FAIL {}\n{msg}", f.strip_prefix(&root).unwrap_or(f).display()));
        }
    }
    eprintln!("filetests: {} files, {} failed", files.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
