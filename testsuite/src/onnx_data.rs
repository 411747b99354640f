//! The ONNX backend test data (`target/onnx-tests`, from the onnx wheel on
//! PyPI). Tests that need it call [`root`]: when the data is missing it runs
//! `testsuite/conformance/fetch.sh` once per process, and panics if the data
//! still is not there. A test never passes by skipping its data.

use std::path::PathBuf;
use std::sync::OnceLock;

/// Where the data lives: `$EDGEC_ONNX_TESTS`, else `target/onnx-tests`.
pub fn location() -> PathBuf {
    std::env::var_os("EDGEC_ONNX_TESTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::wild::repo_root().join("target/onnx-tests"))
}

fn complete(root: &std::path::Path) -> bool {
    ["node", "light", "simple", "pytorch-converted", "pytorch-operator"].iter().all(|d| root.join(d).is_dir())
}

/// The data's root, fetched first if missing. Panics (with the fetch
/// script's failure) when it cannot be had.
pub fn root() -> PathBuf {
    static READY: OnceLock<Result<PathBuf, String>> = OnceLock::new();
    let r = READY.get_or_init(|| {
        let root = location();
        if complete(&root) {
            return Ok(root);
        }
        if std::env::var_os("EDGEC_ONNX_TESTS").is_some() {
            return Err(format!("EDGEC_ONNX_TESTS={} holds no ONNX test data", root.display()));
        }
        eprintln!("ONNX test data missing at {}: running testsuite/conformance/fetch.sh", root.display());
        let script = crate::wild::repo_root().join("testsuite/conformance/fetch.sh");
        let status = std::process::Command::new("bash").arg(&script).status();
        match status {
            Ok(s) if s.success() && complete(&root) => Ok(root),
            Ok(s) => Err(format!("{} failed ({s}); the ONNX test data is missing", script.display())),
            Err(e) => Err(format!("running {}: {e}", script.display())),
        }
    });
    match r {
        Ok(p) => p.clone(),
        Err(e) => panic!("{e}"),
    }
}
