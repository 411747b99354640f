//! `edgec inspect model.tflite`: operators, tensors and quantization of a
//! TFLite file, read through the checked flatbuffer readers.
//!
//! Invariant: any byte string gives a listing or an error naming where the
//! file stops making sense (the table and field, or the operator and
//! tensor index); nothing panics on hostile input.

use crate::schema as tfl;
use planus::ReadAsRoot;
use std::fmt::Write;

/// Why a TFLite file could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum InspectError {
    /// The flatbuffer itself is malformed.
    #[error("malformed TFLite flatbuffer: {0}")]
    Flatbuffer(String),
    /// It parses, but refers to things that are not there.
    #[error("inconsistent TFLite model:\n  {}", .0.join("\n  "))]
    Model(Vec<String>),
}

fn fb(e: planus::Error) -> InspectError {
    InspectError::Flatbuffer(e.to_string())
}

/// The listing of a TFLite file's bytes.
pub fn inspect(bytes: &[u8]) -> Result<String, InspectError> {
    if bytes.len() < 8 {
        return Err(InspectError::Flatbuffer(format!("{} bytes: shorter than a flatbuffer header", bytes.len())));
    }
    let model = tfl::ModelRef::read_as_root(bytes).map_err(fb)?;
    let mut out = String::new();
    let ident = String::from_utf8_lossy(&bytes[4..8]).into_owned();
    let desc = model.description().map_err(fb)?.unwrap_or("");
    let _ =
        writeln!(out, "TFLite model: schema version {}, identifier {ident:?}, {desc:?}", model.version().map_err(fb)?);
    let codes: Vec<String> = match model.operator_codes().map_err(fb)? {
        Some(v) => v.iter().map(|c| c.and_then(code_name)).collect::<Result<_, _>>().map_err(fb)?,
        None => vec![],
    };
    let n_buffers = model.buffers().map_err(fb)?.map_or(0, |b| b.len());
    let subgraphs = model.subgraphs().map_err(fb)?.ok_or_else(|| InspectError::Model(vec!["no subgraphs".into()]))?;
    let mut errs = Vec::new();
    for (si, sg) in subgraphs.iter().enumerate() {
        let sg = sg.map_err(fb)?;
        subgraph(&mut out, &mut errs, si, &sg, &codes, n_buffers).map_err(fb)?;
    }
    if errs.is_empty() {
        Ok(out)
    } else {
        Err(InspectError::Model(errs))
    }
}

fn code_name(c: tfl::OperatorCodeRef<'_>) -> Result<String, planus::Error> {
    let code = c.builtin_code()?;
    Ok(match c.custom_code()? {
        Some(name) if code == tfl::BuiltinOperator::Custom => format!("CUSTOM:{name}"),
        _ => format!("{code:?}"),
    })
}

/// One subgraph's tensors and operators; index problems go to `errs`.
fn subgraph(
    out: &mut String,
    errs: &mut Vec<String>,
    si: usize,
    sg: &tfl::SubGraphRef<'_>,
    codes: &[String],
    n_buffers: usize,
) -> Result<(), planus::Error> {
    let tensors: Vec<tfl::TensorRef<'_>> = match sg.tensors()? {
        Some(v) => v.iter().collect::<Result<_, _>>()?,
        None => vec![],
    };
    let name = sg.name()?.unwrap_or("");
    let _ = writeln!(out, "\nsubgraph {si} {name:?}: {} tensors", tensors.len());
    let list = |v: Option<planus::Vector<'_, i32>>| -> Vec<i32> { v.map(|v| v.iter().collect()).unwrap_or_default() };
    let check = |errs: &mut Vec<String>, what: &str, ids: &[i32]| {
        for &t in ids {
            if t != -1 && (t < 0 || t as usize >= tensors.len()) {
                errs.push(format!("subgraph {si}: {what} names tensor {t}, but there are {}", tensors.len()));
            }
        }
    };
    let (ins, outs) = (list(sg.inputs()?), list(sg.outputs()?));
    check(errs, "inputs", &ins);
    check(errs, "outputs", &outs);
    let _ = writeln!(out, "  inputs {ins:?}  outputs {outs:?}");
    for (i, t) in tensors.iter().enumerate() {
        let buffer = t.buffer()? as usize;
        if buffer >= n_buffers.max(1) {
            errs.push(format!("subgraph {si}: tensor {i} names buffer {buffer}, but there are {n_buffers}"));
        }
        let shape = list(t.shape()?);
        let _ = writeln!(
            out,
            "  t{i:<4} {:<8} {shape:?}{}{} {:?}",
            format!("{:?}", t.type_()?),
            if buffer > 0 { " const" } else { "" },
            quant(t)?,
            t.name()?.unwrap_or("")
        );
    }
    if let Some(ops) = sg.operators()? {
        for (i, op) in ops.iter().enumerate() {
            let op = op?;
            let idx = op.opcode_index()? as usize;
            let code = codes.get(idx).cloned().unwrap_or_else(|| {
                errs.push(format!("subgraph {si}: operator {i} has opcode index {idx}, but there are {}", codes.len()));
                "?".into()
            });
            let (oi, oo) = (list(op.inputs()?), list(op.outputs()?));
            check(errs, &format!("operator {i} ({code}) inputs"), &oi);
            check(errs, &format!("operator {i} ({code}) outputs"), &oo);
            let _ = writeln!(out, "  op{i:<4} {code:<24} {oi:?} -> {oo:?}");
        }
    }
    Ok(())
}

/// ` scale=… zp=…` for a quantized tensor (first and count for per-channel).
fn quant(t: &tfl::TensorRef<'_>) -> Result<String, planus::Error> {
    let Some(q) = t.quantization()? else { return Ok(String::new()) };
    let scale: Vec<f32> = q.scale()?.map(|v| v.iter().collect()).unwrap_or_default();
    let zp: Vec<i64> = q.zero_point()?.map(|v| v.iter().collect()).unwrap_or_default();
    Ok(match (scale.as_slice(), zp.as_slice()) {
        ([], _) => String::new(),
        ([s], [z, ..]) => format!(" scale={s} zp={z}"),
        ([s, ..], _) => {
            format!(" scale={s}… ({} per axis {}) zp={:?}…", scale.len(), q.quantized_dimension()?, zp.first())
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every prefix and many corruptions of a valid file give a listing or
    /// an error, never a panic.
    #[test]
    fn truncated_and_corrupted_files_are_errors() {
        let g = crate::emit::tests::tiny_model();
        assert!(inspect(&g).is_ok(), "{:?}", inspect(&g));
        for n in 0..g.len() {
            assert!(inspect(&g[..n]).is_err() || n > 8, "prefix {n}");
        }
        for i in 0..g.len() {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut b = g.clone();
                b[i] ^= flip;
                let _ = inspect(&b);
            }
        }
    }
}
