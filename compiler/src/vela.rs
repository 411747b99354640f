//! `edgec compile --emit vela`: Arm's Vela compiles the INT8 TFLite file
//! for the profile's Ethos-U accelerator configuration.
//!
//! Vela is a separate tool (PyPI `ethos-u-vela`), run as a process: on PATH
//! or at `--vela PATH`. Its outputs go into the output directory beside
//! edgec's TFLite file: `<stem>_vela.tflite` (the TFLite with the Ethos-U
//! command stream), `<stem>_summary_<system>.csv` and, since edgec asks for
//! `--verbose-performance`, `<stem>_per-layer.csv` (per-layer cycles, read
//! by `edgec report --vela`).

use std::path::{Path, PathBuf};
use std::process::Command;

/// What one Vela run left.
#[derive(Debug)]
pub struct VelaRun {
    /// The optimized TFLite file with the Ethos-U command stream.
    pub optimized: PathBuf,
    /// Vela's per-layer performance CSV.
    pub per_layer: PathBuf,
    /// Vela's summary lines (placement, memory, cycles) from its stdout.
    pub summary: Vec<String>,
}

/// Run `vela` on `tflite` for `accelerator`, writing into `out_dir`.
pub fn run(vela: &Path, tflite: &Path, accelerator: &str, out_dir: &Path) -> Result<VelaRun, String> {
    let output = Command::new(vela)
        .arg(tflite)
        .args(["--accelerator-config", accelerator, "--verbose-performance", "--output-dir"])
        .arg(out_dir)
        .output()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => format!(
                "--emit vela runs Arm's Vela, and `{}` was not found: install it (`pip install ethos-u-vela==5.2.0`) or pass --vela PATH",
                vela.display()
            ),
            _ => format!("cannot run Vela (`{}`): {e}", vela.display()),
        })?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let err = String::from_utf8_lossy(&output.stderr);
        let tail: Vec<&str> = err.lines().chain(stdout.lines()).filter(|l| !l.trim().is_empty()).collect();
        let tail = tail[tail.len().saturating_sub(8)..].join("\n");
        return Err(format!("Vela failed on {} ({}):\n{tail}", tflite.display(), output.status));
    }
    let stem = tflite.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
    let run = VelaRun {
        optimized: out_dir.join(format!("{stem}_vela.tflite")),
        per_layer: out_dir.join(format!("{stem}_per-layer.csv")),
        summary: summary_lines(&stdout),
    };
    for p in [&run.optimized, &run.per_layer] {
        if !p.exists() {
            return Err(format!("Vela ran but did not write {}", p.display()));
        }
    }
    Ok(run)
}

/// The lines of Vela's network summary worth repeating: configuration,
/// operator placement, memory used, MACs (its cycles are in the CSVs).
fn summary_lines(stdout: &str) -> Vec<String> {
    const KEYS: [&str; 8] = [
        "Accelerator configuration",
        "System configuration",
        "CPU operators",
        "NPU operators",
        "Total SRAM used",
        "Total Off-chip Flash used",
        "Total DRAM used",
        "Neural network macs",
    ];
    stdout
        .lines()
        .filter(|l| KEYS.iter().any(|k| l.trim_start().starts_with(k)))
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_keeps_placement_memory_and_time() {
        let out = "Network summary for model\nAccelerator configuration               Ethos_U55_256\n\
                   CPU operators = 0 (0.0%)\nNPU operators = 128 (100.0%)\nAverage SRAM bandwidth 1.47 GB/s\n\
                   Neural network macs                          16555420 MACs/batch\n";
        let s = summary_lines(out);
        assert_eq!(s.len(), 4, "{s:?}");
        assert_eq!(s[2], "NPU operators = 128 (100.0%)");
        assert_eq!(s[3], "Neural network macs 16555420 MACs/batch");
    }

    #[test]
    fn a_missing_vela_names_the_package() {
        let dir = tempfile::tempdir().unwrap();
        let e = run(Path::new("/nonexistent/vela"), Path::new("m.tflite"), "ethos-u55-256", dir.path()).unwrap_err();
        assert!(e.contains("pip install ethos-u-vela") && e.contains("--vela PATH"), "{e}");
    }
}
