//! Embeds the kernel runtime's sources (`kernels/src/**/*.rs`) and the
//! numeric core's (`numeric/src/**/*.rs`, the runtime's only dependency) into
//! the compiler, so `edgec compile --emit rust` can write a standalone copy of
//! both into every generated crate without the edgec checkout.

use std::path::{Path, PathBuf};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// `static NAME: &[(&str, &str)]`: the `.rs` files under `root/src`, with
/// paths relative to `root`.
fn embed(root: &Path, name: &str, what: &str) -> String {
    let src = root.join("src");
    println!("cargo:rerun-if-changed={}", src.display());
    let mut files = Vec::new();
    collect(&src, &mut files);
    let mut code = format!(
        "/// {what} sources: (path relative to the crate root, contents).\npub static {name}: &[(&str, &str)] = &[\n"
    );
    for f in files {
        let rel = f.strip_prefix(root).expect("under the crate").to_string_lossy().replace('\\', "/");
        code += &format!("    ({rel:?}, include_str!({:?})),\n", f.display().to_string());
    }
    code + "];\n"
}

fn main() {
    let dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let code = embed(&dir.join("kernels"), "KERNEL_SOURCES", "Kernel runtime")
        + &embed(&dir.join("numeric"), "NUMERIC_SOURCES", "Numeric core");
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("kernel_sources.rs");
    std::fs::write(out, code).expect("write kernel_sources.rs");
}
