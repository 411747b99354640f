//! Calibration sets for INT8 quantization (issue 16): a directory of samples,
//! each one input list for the model's `@main`, read in a fixed order.
//!
//! Layouts accepted (the first that matches):
//! - ONNX test layout: `DIR/test_data_set_*/input_K.pb` (one sample per
//!   data-set directory, inputs by `K`), or `DIR` itself holding `input_K.pb`.
//! - `.npy` per sample: `DIR/<sample>/<input name>.npy`, one file per model
//!   input, named as the model's inputs are.
//!
//! Samples are sorted by directory name, so a set always reads in the same
//! order. Every problem found (a sample missing an input, an unreadable
//! file) is reported together, each naming its file.

use crate::check::{data_sets, numbered, read_tensor_pb};
use ir::interp::Tensor;
use std::path::{Path, PathBuf};

/// Read the calibration samples in `dir` for a model whose inputs are named
/// `inputs` (in parameter order).
pub fn read_set(dir: &Path, inputs: &[String]) -> Result<Vec<Vec<Tensor>>, Vec<String>> {
    if !dir.is_dir() {
        return Err(vec![format!("{}: not a directory of calibration samples", dir.display())]);
    }
    let sets = data_sets(dir);
    if !sets.is_empty() {
        return collect(sets.iter().map(|s| read_pb_sample(s, inputs.len())).collect());
    }
    if !numbered(dir, "input_").is_empty() {
        return collect(vec![read_pb_sample(dir, inputs.len())]);
    }
    let mut samples: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| vec![format!("{}: {e}", dir.display())])?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    samples.sort();
    if samples.is_empty() {
        return Err(vec![format!(
            "{}: no calibration samples (expected test_data_set_*/input_K.pb, or one directory per sample \
             holding <input name>.npy)",
            dir.display()
        )]);
    }
    collect(samples.iter().map(|s| read_npy_sample(s, inputs)).collect())
}

/// All samples, or every problem of every sample.
fn collect(results: Vec<Result<Vec<Tensor>, Vec<String>>>) -> Result<Vec<Vec<Tensor>>, Vec<String>> {
    let mut errors = Vec::new();
    let mut samples = Vec::new();
    for r in results {
        match r {
            Ok(s) => samples.push(s),
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(samples)
    } else {
        Err(errors)
    }
}

fn read_pb_sample(dir: &Path, want: usize) -> Result<Vec<Tensor>, Vec<String>> {
    let files = numbered(dir, "input_");
    if files.len() != want {
        return Err(vec![format!(
            "{}: {} input_K.pb files, the model takes {want} inputs",
            dir.display(),
            files.len()
        )]);
    }
    collect(files.iter().map(|f| read_tensor_pb(f).map(|t| vec![t]).map_err(|e| vec![e])).collect())
        .map(|ts| ts.into_iter().flatten().collect())
}

fn read_npy_sample(dir: &Path, inputs: &[String]) -> Result<Vec<Tensor>, Vec<String>> {
    let read = |name: &String| {
        let p = dir.join(format!("{name}.npy"));
        let bytes = std::fs::read(&p).map_err(|e| vec![format!("{}: {e}", p.display())])?;
        crate::npy::read_npy(&bytes).map(|t| vec![t]).map_err(|e| vec![format!("{}: {e}", p.display())])
    };
    collect(inputs.iter().map(read).collect()).map(|ts| ts.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ir::interp::Data;

    fn t(xs: &[f32]) -> Tensor {
        Tensor::new(vec![xs.len()], Data::F32(xs.to_vec()))
    }

    fn names() -> Vec<String> {
        vec!["image".into(), "mask".into()]
    }

    #[test]
    fn npy_samples_read_in_name_order_by_input_name() {
        let d = tempfile::tempdir().expect("tmp");
        for (s, v) in [("b", 2.0), ("a", 1.0)] {
            std::fs::create_dir(d.path().join(s)).expect("mkdir");
            // Written in the reverse of the model's input order: names decide.
            std::fs::write(d.path().join(s).join("mask.npy"), crate::npy::write_npy(&t(&[-v]))).expect("w");
            std::fs::write(d.path().join(s).join("image.npy"), crate::npy::write_npy(&t(&[v, v]))).expect("w");
        }
        let set = read_set(d.path(), &names()).expect("reads");
        assert_eq!(set, vec![vec![t(&[1.0, 1.0]), t(&[-1.0])], vec![t(&[2.0, 2.0]), t(&[-2.0])]]);
    }

    #[test]
    fn every_problem_is_listed_with_its_file() {
        let d = tempfile::tempdir().expect("tmp");
        for s in ["s1", "s2"] {
            std::fs::create_dir(d.path().join(s)).expect("mkdir");
        }
        std::fs::write(d.path().join("s1/image.npy"), b"not npy").expect("w");
        std::fs::write(d.path().join("s1/mask.npy"), crate::npy::write_npy(&t(&[0.0]))).expect("w");
        let e = read_set(d.path(), &names()).expect_err("bad set");
        assert_eq!(e.len(), 3, "{e:?}");
        assert!(e[0].contains("s1/image.npy"), "{e:?}");
        assert!(e[1].contains("s2/image.npy") && e[2].contains("s2/mask.npy"), "{e:?}");
        let empty = tempfile::tempdir().expect("tmp");
        assert!(read_set(empty.path(), &names()).unwrap_err()[0].contains("no calibration samples"));
        assert!(read_set(&empty.path().join("nope"), &names()).unwrap_err()[0].contains("not a directory"));
    }

    #[test]
    fn onnx_test_layout_reads_each_data_set() {
        let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../testsuite/models/det_head");
        let set = read_set(&model, &["x".into()]).expect("reads");
        let (inputs, _) = crate::check::read_data_set(&model.join("test_data_set_0")).expect("data set");
        assert_eq!(set.len(), data_sets(&model).len());
        assert_eq!(set[0], inputs);
    }

    #[test]
    fn onnx_test_layout_counts_inputs() {
        let d = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(d.path().join("test_data_set_0")).expect("mkdir");
        std::fs::write(d.path().join("test_data_set_0/input_0.pb"), b"").expect("w");
        let e = read_set(d.path(), &names()).expect_err("one of two inputs");
        assert!(e[0].contains("1 input_K.pb files, the model takes 2 inputs"), "{e:?}");
    }
}
