//! Bundled example modules for edgec (see `examples/models/`) and small API
//! examples (`cargo run -p edgec-examples --example build_module`).

use std::path::PathBuf;

/// Absolute path of a bundled model file under `examples/models/`.
pub fn model_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("models").join(name)
}
