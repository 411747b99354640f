//! Repository test: op families have one home per tree (issue 14).
//!
//! Every op names its family in the op table ([`ir::Family`]). In each of the
//! four trees that hold per-op code, the top-level modules are family names
//! (`Family::name`), plus a short list of infrastructure modules that serve
//! many families; a module named after nothing (a grab-bag such as `misc`)
//! fails the test. The op table's inference functions and the interpreter's
//! kernel table must point into the op's own family module, so an op's code
//! is found by its family name in every tree.

use ir::{Family, Opcode};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// `(tree, infrastructure modules allowed beside the family modules)`.
const TREES: &[(&str, &[&str])] = &[
    // mod: shared inference helpers; table: the op table; tests: its unit tests.
    ("ir/src/ops", &["mod", "table", "tests"]),
    // table: the kernel table; tensor: the value type; broadcast: numpy
    // broadcasting for every kernel; lowp: low-precision element data.
    ("ir/src/interp", &["mod", "table", "tensor", "broadcast", "lowp"]),
    // table: the backend's op table.
    ("codegen/src/rust/ops", &["mod", "table"]),
    // The crate root, the run-time support every generated crate uses (arena,
    // error, rt, npy, plan, shape arithmetic, the per-op profile, resident
    // memory for `--mem`, the weights file), instruction-set selection
    // (simd), element types (lowp, lowp8), shared math and iteration (math,
    // strided), the GEMM engine that linalg, conv and attention drive, the
    // fused activation epilogues (act) and the worker pool the GEMM and conv
    // kernels split their work across (threads).
    (
        "codegen/kernels/src",
        &[
            "lib", "arena", "error", "rt", "npy", "plan", "profile", "shape", "simd", "lowp", "lowp8", "math",
            "strided", "gemm", "act", "threads", "memstat", "weights",
        ],
    ),
];

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("workspace root").to_path_buf()
}

/// The top-level module names of a tree: `x.rs` files and `x/` directories.
fn modules(dir: &Path) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for e in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let e = e.expect("dir entry");
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if path.is_dir() {
            out.insert(name);
        } else if let Some(stem) = name.strip_suffix(".rs") {
            out.insert(stem.to_string());
        }
    }
    out
}

fn family_names() -> BTreeSet<&'static str> {
    Family::ALL.iter().map(|f| f.name()).collect()
}

#[test]
fn every_top_level_module_is_a_family_or_listed_infrastructure() {
    let fams = family_names();
    let mut problems = Vec::new();
    for (tree, infra) in TREES {
        for m in modules(&workspace().join(tree)) {
            if !fams.contains(m.as_str()) && !infra.contains(&m.as_str()) {
                problems.push(format!("{tree}/{m}: neither an op family ({fams:?}) nor listed infrastructure"));
            }
        }
        for i in *infra {
            let dir = workspace().join(tree);
            if !dir.join(format!("{i}.rs")).exists() && !dir.join(i).is_dir() {
                problems.push(format!("{tree}: infrastructure module `{i}` is listed but gone; drop it from TREES"));
            }
        }
    }
    assert!(problems.is_empty(), "modules outside the family layout:\n{}", problems.join("\n"));
}

/// Opcodes by their Rust variant name.
fn opcodes() -> BTreeMap<String, Opcode> {
    Opcode::ALL.iter().map(|&op| (format!("{op:?}"), op)).collect()
}

/// The first path segment after an optional `super::`/`crate::ops::` prefix.
fn head(path: &str) -> &str {
    let p = path.trim_start_matches("super::").trim_start_matches("crate::ops::");
    p.split("::").next().unwrap_or(p)
}

#[test]
fn inference_functions_live_in_their_family() {
    let src = std::fs::read_to_string(workspace().join("ir/src/ops/table.rs")).expect("op table");
    let ops = opcodes();
    let mut problems = Vec::new();
    let mut seen = 0;
    // A row starts at `Variant = "dialect.name" {` and runs to the next row.
    let starts: Vec<usize> = src.match_indices(" = \"").map(|(i, _)| i).collect();
    for (k, &i) in starts.iter().enumerate() {
        let line_start = src[..i].rfind('\n').map_or(0, |n| n + 1);
        let variant = src[line_start..i].trim();
        let Some(&op) = ops.get(variant) else { continue };
        seen += 1;
        let end = starts.get(k + 1).copied().unwrap_or(src.len());
        let row = &src[i..end];
        for key in ["infer: ", "infer_regions: Some("] {
            if let Some(at) = row.find(key) {
                let path: String = row[at + key.len()..]
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                    .collect();
                if head(&path) != op.family().name() {
                    problems.push(format!("{variant}: `{path}` is not in family `{}`", op.family().name()));
                }
            }
        }
    }
    assert_eq!(seen, Opcode::ALL.len(), "every op-table row was read");
    assert!(problems.is_empty(), "inference outside the op's family:\n{}", problems.join("\n"));
}

#[test]
fn interpreter_kernels_live_in_their_family() {
    let src = std::fs::read_to_string(workspace().join("ir/src/interp/table.rs")).expect("kernel table");
    let ops = opcodes();
    let mut problems = Vec::new();
    let mut seen = 0;
    for (i, _) in src.match_indices("(Opcode::") {
        let rest = &src[i + "(Opcode::".len()..];
        let variant: String = rest.chars().take_while(|c| c.is_alphanumeric()).collect();
        let op = *ops.get(&variant).unwrap_or_else(|| panic!("unknown opcode {variant} in interp/table.rs"));
        let path = rest[variant.len()..].trim_start_matches(',').trim_start();
        let path: String = path.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let module = path.trim_start_matches("ik::");
        seen += 1;
        if head(module) != op.family().name() {
            problems.push(format!("{variant}: kernel `{path}` is not in family `{}`", op.family().name()));
        }
    }
    assert!(seen > 150, "the kernel table was read ({seen} rows)");
    assert!(problems.is_empty(), "interpreter kernels outside the op's family:\n{}", problems.join("\n"));
}

#[test]
fn every_family_has_ops() {
    let used: BTreeSet<Family> = Opcode::ALL.iter().map(|op| op.family()).collect();
    let unused: Vec<&str> = Family::ALL.iter().filter(|f| !used.contains(f)).map(|f| f.name()).collect();
    assert!(unused.is_empty(), "families without ops: {unused:?}");
    assert_eq!(Family::ALL.len(), family_names().len(), "family names are distinct");
}
