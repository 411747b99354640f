//! `--emit tflite` and `--emit vela`: the INT8 TFLite file, and Vela's
//! compilation of it beside `edgec report`'s prediction.

use compiler::pipeline::Failure;
use compiler::report::Report;
use std::path::Path;

/// The TFLite model of the QDQ module `qdq`, with its report (stderr, and
/// JSON with `--report`).
pub(crate) fn write_tflite(
    qdq: &ir::Module,
    output: &std::path::Path,
    report: Option<&std::path::Path>,
    explain: bool,
) -> Result<(), Failure> {
    let t = edgec_tflite::emit(qdq).map_err(|e| Failure::User(e.into()))?;
    std::fs::write(output, &t.bytes).map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", output.display())))?;
    let ops: usize = t.report.operators.values().sum();
    eprintln!(
        "edgec: wrote {} ({} bytes, {ops} operators, {} layout transposes)",
        output.display(),
        t.bytes.len(),
        t.report.transposes.len()
    );
    for io in t.report.inputs.iter().chain(&t.report.outputs) {
        eprintln!(
            "edgec:   {} {} {:?} {}: real = {} * (q - {})",
            io.name, io.dtype, io.shape, io.layout, io.scale, io.zero_point
        );
    }
    if explain {
        for (op, n) in &t.report.operators {
            eprintln!("  {n:>4} {op}");
        }
        for why in &t.report.transposes {
            eprintln!("  layout transpose: {why}");
        }
    }
    if let Some(p) = report {
        let json = serde_json::to_string_pretty(&t.report).map_err(|e| Failure::Internal(e.into()))?;
        std::fs::write(p, json + "\n").map_err(|e| Failure::User(anyhow::anyhow!("{}: {e}", p.display())))?;
    }
    Ok(())
}

/// Write `output/model.tflite`, compile it with Vela for `accel` into
/// `output`, and print Vela's summary beside the prediction `predicted`
/// (made before quantizing).
pub(crate) fn write_vela(
    qdq: &ir::Module,
    output: &Path,
    mut predicted: Report,
    accel: &str,
    vela: Option<&Path>,
    explain: bool,
) -> Result<(), Failure> {
    let user = |e: String| Failure::User(anyhow::anyhow!(e));
    std::fs::create_dir_all(output).map_err(|e| user(format!("{}: {e}", output.display())))?;
    let tflite = output.join("model.tflite");
    write_tflite(qdq, &tflite, Some(&output.join("model.report.json")), explain)?;
    let run = compiler::vela::run(vela.unwrap_or(Path::new("vela")), &tflite, accel, output).map_err(user)?;
    eprintln!("edgec: Vela wrote {} ({accel})", run.optimized.display());
    for line in &run.summary {
        eprintln!("edgec:   vela: {line}");
    }
    predicted.vela = Some(compiler::report::vela::load(&run.per_layer).map_err(user)?);
    for line in predicted.summary().lines() {
        eprintln!("edgec:   {line}");
    }
    Ok(())
}
