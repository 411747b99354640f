//! Vela's own estimate beside the report: its per-layer CSV
//! (`vela --verbose-performance` writes `<model>_per-layer.csv`), one row
//! per NPU or CPU operation after Vela's lowering, each with its
//! `Original Operator`, `Target` (NPU/CPU) and `Op Cycles`.

use serde::Serialize;

/// Vela's totals for one compiled model.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Vela {
    /// The CSV file.
    pub file: String,
    /// Sum of `Op Cycles`: Vela's estimate of the whole network.
    pub cycles: f64,
    /// Rows Vela placed on the NPU.
    pub npu_rows: usize,
    /// Rows Vela left to the CPU, with their original operators (the
    /// model's ops: conversions counted apart).
    pub cpu_ops: Vec<String>,
    /// CPU rows that are DEQUANTIZE or QUANTIZE: the float edges of the
    /// writer's CPU islands (ops it writes in float32, which Vela never
    /// runs), not ops of the model.
    pub cpu_conversions: usize,
}

/// Read and parse the per-layer CSV at `path`.
pub fn load(path: &std::path::Path) -> Result<Vela, String> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
    read(&name, &text)
}

/// Parse a per-layer CSV; errors name the file and line.
pub fn read(path: &str, text: &str) -> Result<Vela, String> {
    let mut lines = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty());
    let Some((_, header)) = lines.next() else { return Err(format!("{path}: empty file")) };
    let cols: Vec<&str> = header.split(',').map(str::trim).collect();
    let col = |name: &str| {
        cols.iter().position(|c| *c == name).ok_or_else(|| {
            format!("{path}:1: no `{name}` column (expected Vela's per-layer CSV from --verbose-performance)")
        })
    };
    let (orig, target, cycles) = (col("Original Operator")?, col("Target")?, col("Op Cycles")?);
    let mut out = Vela { file: path.to_string(), cycles: 0.0, npu_rows: 0, cpu_ops: Vec::new(), cpu_conversions: 0 };
    let mut errors = Vec::new();
    for (i, line) in lines {
        let f: Vec<&str> = line.split(',').map(str::trim).collect();
        if f.len() != cols.len() {
            errors.push(format!("{path}:{}: {} fields, the header has {}", i + 1, f.len(), cols.len()));
            continue;
        }
        match f[cycles].parse::<f64>() {
            Ok(c) if c.is_finite() && c >= 0.0 => out.cycles += c,
            _ => errors.push(format!("{path}:{}: `Op Cycles` is not a count: `{}`", i + 1, f[cycles])),
        }
        match f[target] {
            "NPU" => out.npu_rows += 1,
            _ if matches!(f[orig], "Dequantize" | "Quantize") => out.cpu_conversions += 1,
            _ => out.cpu_ops.push(f[orig].to_string()),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "Original Operator,NNG Operator,Target,Op Cycles,Name\n";

    #[test]
    fn sums_cycles_and_lists_cpu_operators() {
        let island = "Dequantize,Passthrough,CPU,0,s.f32\nSqrt,Passthrough,CPU,7,s\nQuantize,Passthrough,CPU,0,q\n";
        let csv =
            format!("{HEADER}Conv2D,Conv2D,NPU,100,a\nHardSwish,LUT,NPU,0,a\nQuantize,Quantize,NPU,1,r\n{island}");
        let v = read("m.csv", &csv).unwrap();
        assert_eq!(v.cycles, 108.0);
        assert_eq!(v.npu_rows, 3);
        assert_eq!(v.cpu_ops, vec!["Sqrt".to_string()]);
        assert_eq!(v.cpu_conversions, 2);
    }

    #[test]
    fn bad_rows_are_all_reported_with_their_lines() {
        let csv = format!("{HEADER}Conv2D,Conv2D,NPU,x,a\nAdd,Add,NPU,1\n");
        let e = read("m.csv", &csv).unwrap_err();
        assert!(e.contains("m.csv:2: `Op Cycles` is not a count: `x`"), "{e}");
        assert!(e.contains("m.csv:3: 4 fields, the header has 5"), "{e}");
        let e = read("m.csv", "a,b\n1,2\n").unwrap_err();
        assert!(e.contains("no `Original Operator` column"), "{e}");
    }
}
