//! Calibration sets for INT8 quantization (issue 16): a directory of samples,
//! each one input list for the model's `@main`, read in a fixed order.
//!
//! Layouts accepted (the first that matches):
//! - ONNX test layout: `DIR/test_data_set_*/input_K.pb` (one sample per
//!   data-set directory, inputs by `K`), or `DIR` itself holding `input_K.pb`.
//! - `.npy` per sample: `DIR/<sample>/<input name>.npy`, one file per model
//!   input, named as the model's inputs are.
//! - `.npz` per sample: `DIR/<sample>.npz` holding `<input name>.npy` entries
//!   (`numpy.savez` or `savez_compressed` with the inputs as keywords).
//! - One `.npz` file (`--calib set.npz`): per input an array with one more
//!   axis than the input, the samples along its first axis.
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
    if dir.is_file() && dir.extension().is_some_and(|e| e == "npz") {
        return read_stacked_npz(dir, inputs);
    }
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
    let entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| vec![format!("{}: {e}", dir.display())])?
        .flatten()
        .map(|e| e.path())
        .collect();
    let mut npz: Vec<&PathBuf> =
        entries.iter().filter(|p| p.is_file() && p.extension().is_some_and(|e| e == "npz")).collect();
    if !npz.is_empty() {
        npz.sort();
        return collect(npz.into_iter().map(|p| read_npz_sample(p, inputs)).collect());
    }
    let mut samples: Vec<&PathBuf> = entries.iter().filter(|p| p.is_dir()).collect();
    samples.sort();
    if samples.is_empty() {
        return Err(vec![format!(
            "{}: no calibration samples (expected test_data_set_*/input_K.pb, or one directory per sample \
             holding <input name>.npy, or <sample>.npz files)",
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

/// The `.npy` entries of an `.npz` archive, by array name (the entry name without `.npy`).
fn npz_arrays(path: &Path) -> Result<std::collections::BTreeMap<String, Tensor>, Vec<String>> {
    let at = |e: String| vec![format!("{}: {e}", path.display())];
    let file = std::fs::File::open(path).map_err(|e| at(e.to_string()))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| at(format!("not an .npz (zip) archive: {e}")))?;
    let mut out = std::collections::BTreeMap::new();
    let mut errs = Vec::new();
    for i in 0..zip.len() {
        let mut entry = zip.by_index(i).map_err(|e| at(e.to_string()))?;
        let name = entry.name().map_err(|e| at(e.to_string()))?.to_string();
        let Some(array) = name.strip_suffix(".npy") else { continue };
        let mut bytes = Vec::new();
        if let Err(e) = std::io::Read::read_to_end(&mut entry, &mut bytes) {
            errs.push(format!("{}: {name}: {e}", path.display()));
            continue;
        }
        match crate::npy::read_npy(&bytes) {
            Ok(t) => {
                out.insert(array.to_string(), t);
            }
            Err(e) => errs.push(format!("{}: {name}: {e}", path.display())),
        }
    }
    if errs.is_empty() {
        Ok(out)
    } else {
        Err(errs)
    }
}

/// One sample from an `.npz` holding one array per input, by input name.
fn read_npz_sample(path: &Path, inputs: &[String]) -> Result<Vec<Tensor>, Vec<String>> {
    let mut arrays = npz_arrays(path)?;
    let missing: Vec<String> = inputs.iter().filter(|n| !arrays.contains_key(*n)).cloned().collect();
    if !missing.is_empty() {
        let have: Vec<&String> = arrays.keys().collect();
        return Err(vec![format!(
            "{}: no array for input(s) {} (it holds {have:?})",
            path.display(),
            missing.join(", ")
        )]);
    }
    Ok(inputs.iter().filter_map(|n| arrays.remove(n)).collect())
}

/// Samples stacked along the first axis of each input's array in one `.npz`.
fn read_stacked_npz(path: &Path, inputs: &[String]) -> Result<Vec<Vec<Tensor>>, Vec<String>> {
    let stacked = read_npz_sample(path, inputs)?;
    let n = stacked.first().and_then(|t| t.shape.first().copied()).unwrap_or(0);
    let mut errs = Vec::new();
    for (name, t) in inputs.iter().zip(&stacked) {
        if t.shape.first() != Some(&n) {
            errs.push(format!(
                "{}: array `{name}` has shape {:?}; every array needs the same first (sample) axis, {n}",
                path.display(),
                t.shape
            ));
        }
    }
    if n == 0 {
        errs.push(format!("{}: no samples (the arrays' first axis is the sample axis)", path.display()));
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let sample = |t: &Tensor, k: usize| {
        let inner: usize = t.shape[1..].iter().product();
        let idx: Vec<usize> = (k * inner..(k + 1) * inner).collect();
        Tensor::new(t.shape[1..].to_vec(), t.data.gather(&idx))
    };
    Ok((0..n).map(|k| stacked.iter().map(|t| sample(t, k)).collect()).collect())
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

    /// An .npz archive of `arrays`, stored or deflated as numpy's savez / savez_compressed write them.
    fn npz(path: &Path, arrays: &[(&str, Tensor)], deflate: bool) {
        let mut z = zip::ZipWriter::new(std::fs::File::create(path).expect("create"));
        let method = if deflate { zip::CompressionMethod::Deflated } else { zip::CompressionMethod::Stored };
        let opts = zip::write::SimpleFileOptions::default().compression_method(method);
        for (name, t) in arrays {
            z.start_file(format!("{name}.npy"), opts).expect("entry");
            std::io::Write::write_all(&mut z, &crate::npy::write_npy(t)).expect("write");
        }
        z.finish().expect("finish");
    }

    #[test]
    fn npz_samples_read_by_input_name_in_file_order() {
        let d = tempfile::tempdir().expect("tmp");
        npz(&d.path().join("b.npz"), &[("mask", t(&[-2.0])), ("image", t(&[2.0, 2.0]))], true);
        npz(&d.path().join("a.npz"), &[("image", t(&[1.0, 1.0])), ("mask", t(&[-1.0]))], false);
        let set = read_set(d.path(), &names()).expect("reads");
        assert_eq!(set, vec![vec![t(&[1.0, 1.0]), t(&[-1.0])], vec![t(&[2.0, 2.0]), t(&[-2.0])]]);
        npz(&d.path().join("c.npz"), &[("image", t(&[3.0]))], false);
        std::fs::write(d.path().join("d.npz"), b"PK not really").expect("w");
        let e = read_set(d.path(), &names()).expect_err("bad samples");
        assert_eq!(e.len(), 2, "{e:?}");
        assert!(e[0].contains("c.npz: no array for input(s) mask"), "{e:?}");
        assert!(e[1].contains("d.npz: not an .npz (zip) archive"), "{e:?}");
    }

    #[test]
    fn one_npz_holds_samples_along_the_first_axis() {
        let d = tempfile::tempdir().expect("tmp");
        let stacked = |shape: Vec<usize>, xs: &[f32]| Tensor::new(shape, Data::F32(xs.to_vec()));
        let p = d.path().join("set.npz");
        npz(
            &p,
            &[("image", stacked(vec![2, 2], &[1.0, 1.0, 2.0, 2.0])), ("mask", stacked(vec![2, 1], &[-1.0, -2.0]))],
            true,
        );
        let set = read_set(&p, &names()).expect("reads");
        assert_eq!(set, vec![vec![t(&[1.0, 1.0]), t(&[-1.0])], vec![t(&[2.0, 2.0]), t(&[-2.0])]]);
        npz(
            &p,
            &[("image", stacked(vec![2, 2], &[1.0, 1.0, 2.0, 2.0])), ("mask", stacked(vec![3], &[-1.0, -2.0, 0.0]))],
            false,
        );
        let e = read_set(&p, &names()).expect_err("sample axes differ");
        assert!(e[0].contains("array `mask` has shape [3]"), "{e:?}");
    }
}
