//! Differential check of the passes against the reference interpreter: every
//! ONNX node test and bundled model that passes conformance is run before and
//! after `shape-infer,canonicalize,dce` (verifier after each pass), and the
//! outputs must be bit-identical (these passes only forward values and delete
//! dead code, so nothing may change, not even rounding).

use compiler::check::{data_sets, read_data_set};
use ir::interp::Tensor;
use passes::{parse_pipeline, PassManager, PassOptions};
use std::path::{Path, PathBuf};

fn same_bits(a: &[Tensor], b: &[Tensor]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.shape == y.shape
                && x.dtype() == y.dtype()
                && x.to_le_bytes() == y.to_le_bytes()
                && (x.dtype() != ir::DType::String || x.data == y.data)
        })
}

/// `Ok(Some(changed))` if the model ran: whether the passes removed any op.
fn check_dir(dir: &Path) -> Result<Option<bool>, String> {
    let Ok(m) = compiler::frontend::onnx::import_file(&dir.join("model.onnx")) else { return Ok(None) };
    let mut opt = m.clone();
    let pipeline = parse_pipeline("shape-infer,canonicalize,dce").map_err(|e| e.to_string())?;
    PassManager::new(pipeline, PassOptions::default())
        .run(&mut opt, &mut std::io::sink())
        .map_err(|e| e.to_string())?;
    let ops = |m: &ir::Module| m.funcs.iter().map(|f| f.live_ops().len()).sum::<usize>();
    let changed = ops(&opt) < ops(&m);
    let mut ran = false;
    for set in data_sets(dir) {
        let Ok((inputs, _)) = read_data_set(&set) else { continue };
        let Ok(before) = ir::interp::run(&m, "main", inputs.clone()) else { continue };
        let after = ir::interp::run(&opt, "main", inputs).map_err(|e| format!("after passes: {e}"))?;
        if !same_bits(&before, &after) {
            return Err(format!("{}: outputs changed", set.display()));
        }
        ran = true;
    }
    Ok(ran.then_some(changed))
}

fn dirs(root: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(root)
        .map(|rd| rd.flatten().map(|e| e.path()).filter(|p| p.join("model.onnx").exists()).collect())
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn passes_preserve_interpreter_results() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = dirs(&manifest.join("models"));
    let onnx = testsuite::onnx_data::root();
    for suite in ["node", "pytorch-converted", "pytorch-operator", "simple"] {
        all.extend(dirs(&onnx.join(suite)));
    }
    let mut checked = 0;
    let mut changed = 0;
    let mut failures = Vec::new();
    for d in &all {
        match check_dir(d) {
            Ok(Some(c)) => {
                checked += 1;
                changed += usize::from(c);
            }
            Ok(None) => {}
            Err(e) => failures.push(format!("{}: {e}", d.display())),
        }
    }
    eprintln!(
        "passes differential: {checked} models checked, {changed} changed by the passes, {} failures",
        failures.len()
    );
    assert!(checked >= 1000 && changed >= 1, "too few models ran ({checked}) or none was changed ({changed})");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
