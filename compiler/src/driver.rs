//! Loading and saving `.eir` files (text plus weights sidecar).

use ir::text::{parse_module, ParseError, ParsedModule, PrintOptions, Printer, WeightsMode};
use ir::verify::{verify, VerifyErrors};
use std::path::{Path, PathBuf};

/// Largest constant (in elements) printed inline when writing a file;
/// larger ones go to the weights sidecar.
pub const SIDECAR_INLINE_LIMIT: usize = 16;
/// Largest constant printed inline on standard output; larger ones are elided.
pub const STDOUT_INLINE_LIMIT: usize = 16;

/// User-facing driver errors. All of them are the user's input's fault
/// (exit code 1); internal errors are reported separately.
#[derive(Debug, thiserror::Error)]
pub enum DriverError {
    /// Reading or writing a file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The ONNX model could not be imported.
    #[error("{path}: {source}")]
    Import {
        /// The model file.
        path: String,
        /// Every problem found.
        source: crate::frontend::onnx::ImportError,
    },
    /// Bad command-line input (missing or mismatched tensors, ...).
    #[error("{0}")]
    Usage(String),
    /// The text did not parse.
    #[error(transparent)]
    Parse(#[from] ParseError),
    /// The module parsed but does not verify; `report` has `file:line:col` lines.
    #[error("{report}{} verifier error(s) in {file}", errors.0.len())]
    Verify {
        /// The file.
        file: String,
        /// One line per error with its position.
        report: String,
        /// The errors.
        errors: VerifyErrors,
    },
}

/// Read a `.eir` file (`-` for stdin), loading its weights sidecar relative to
/// the file, then verify it. Verifier errors carry `file:line:col`.
pub fn load_eir(path: &str) -> Result<ParsedModule, DriverError> {
    let (src, dir, display) = if path == "-" {
        let mut s = String::new();
        std::io::Read::read_to_string(&mut std::io::stdin(), &mut s)
            .map_err(|source| DriverError::Io { path: "<stdin>".into(), source })?;
        (s, PathBuf::from("."), "<stdin>".to_string())
    } else {
        let bytes = std::fs::read(path).map_err(|source| DriverError::Io { path: path.into(), source })?;
        let dir = Path::new(path).parent().map(Path::to_path_buf).unwrap_or_default();
        (String::from_utf8_lossy(&bytes).into_owned(), dir, path.to_string())
    };
    let loader = |name: &str| std::fs::read(dir.join(name)).map_err(|e| e.to_string());
    let parsed = parse_module(&src, &display, Some(&loader))?;
    if let Err(errors) = verify(&parsed.module) {
        let report = errors.with_spans(&display, &parsed.spans);
        return Err(DriverError::Verify { file: display, report, errors });
    }
    Ok(parsed)
}

/// The sidecar file name used for `out.eir`: `out.weights`.
pub fn sidecar_name(eir: &Path) -> String {
    let stem = eir.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "module".into());
    format!("{stem}.weights")
}

/// Write `m` to `path` (`None` = stdout). Files get a weights sidecar when any
/// constant is larger than [`SIDECAR_INLINE_LIMIT`]; stdout elides big constants.
/// Returns the number of constants elided (stdout only).
pub fn save_eir(m: &ir::Module, path: Option<&Path>) -> Result<usize, DriverError> {
    let big = m.consts.iter().filter(|(_, c)| c.num_elements() > SIDECAR_INLINE_LIMIT).count();
    let Some(path) = path else {
        let opts = PrintOptions { weights: WeightsMode::Elide { inline_limit: STDOUT_INLINE_LIMIT }, locs: true };
        print!("{}", Printer::new(opts).print(m).text);
        return Ok(m.consts.iter().filter(|(_, c)| c.num_elements() > STDOUT_INLINE_LIMIT).count());
    };
    let io_err = |p: &Path| {
        let p = p.display().to_string();
        move |source| DriverError::Io { path: p, source }
    };
    let weights = if big > 0 {
        WeightsMode::Sidecar { file: sidecar_name(path), inline_limit: SIDECAR_INLINE_LIMIT }
    } else {
        WeightsMode::Inline
    };
    let printed = Printer::new(PrintOptions { weights, locs: true }).print(m);
    if let Some(bytes) = printed.sidecar {
        let side = path.with_file_name(sidecar_name(path));
        std::fs::write(&side, bytes).map_err(io_err(&side))?;
    }
    std::fs::write(path, printed.text).map_err(io_err(path))?;
    Ok(0)
}

/// How a model is loaded: graph inputs fixed to values (`--const`, ONNX
/// models only) or to sizes (`--shape`, `--dim`).
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// `(input, value)` pairs.
    pub consts: Vec<(String, ir::interp::Tensor)>,
    /// Input shapes and symbol sizes.
    pub shapes: passes::specialize::ShapeSpec,
}

/// Load a model: `.onnx` files are imported, anything else is read as `.eir`.
/// The result verifies.
pub fn load_model(path: &str) -> Result<ir::Module, DriverError> {
    load_model_with(path, &LoadOptions::default())
}

/// [`load_model`] with graph inputs bound to constants (`--const`; ONNX models only).
pub fn load_model_bound(path: &str, binds: &[(String, ir::interp::Tensor)]) -> Result<ir::Module, DriverError> {
    load_model_with(path, &LoadOptions { consts: binds.to_vec(), ..Default::default() })
}

/// [`load_model`] with the inputs fixed as `opts` says.
pub fn load_model_with(path: &str, opts: &LoadOptions) -> Result<ir::Module, DriverError> {
    let mut m = if path.ends_with(".onnx") {
        let imported = crate::frontend::onnx::import_file_bound(Path::new(path), &opts.consts)
            .map_err(|source| DriverError::Import { path: path.into(), source })?;
        // Declarations that contradict inference do not stop the import (the
        // model runs as inferred), but the user hears about each of them.
        for w in &imported.warnings {
            eprintln!("edgec: warning: {path}: {w}");
        }
        imported.module
    } else if !opts.consts.is_empty() {
        return Err(DriverError::Usage(format!("{path}: --const binds inputs of .onnx models only")));
    } else {
        load_eir(path)?.module
    };
    if !opts.shapes.is_empty() {
        passes::specialize::specialize_inputs(&mut m, "main", &opts.shapes)
            .map_err(|e| DriverError::Usage(format!("{path}: {}", e.join(&format!("\n{path}: ")))))?;
    }
    if let Err(errors) = verify(&m) {
        let report = errors.to_string();
        return Err(DriverError::Verify { file: path.into(), report: format!("{report}\n"), errors });
    }
    Ok(m)
}
