//! What the CLI tests share: running the built `edgec` and the bundled
//! published model they compile.
// Each test binary uses a subset of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Run the `edgec` binary of this build.
pub fn edgec(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_edgec")).args(args).output().expect("run edgec")
}

/// Bytes of a process's output as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The bundled MobileNetV3-small from Paddle, with its test data.
pub fn model() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/real/mobilenetv3_small_paddle")
}

/// A path as a command-line argument.
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}
