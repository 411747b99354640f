//! The report as a table for people (`edgec report` without `--json`).

use super::{OpRow, Report};
use std::fmt::Write;

impl Report {
    /// The table, the segments, the fallbacks grouped by reason, the totals,
    /// and Vela's estimate beside them when given.
    pub fn text(&self) -> String {
        let mut s = String::new();
        let sim = if self.simulated { " (SIMULATED profile: costs are estimates, no hardware backend)" } else { "" };
        let _ = writeln!(s, "edgec report: {} for {}{sim}", self.model, self.target);
        if !self.description.is_empty() {
            let _ = writeln!(s, "profile: {}", self.description);
        }
        let _ = writeln!(
            s,
            "{:>5}  {:<24} {:<14} {:>12} {:>10} {:>10}  {:<8} provenance",
            "#", "op", "place", "MACs", "cycles", "ns", "bound"
        );
        for r in &self.ops {
            let _ = writeln!(s, "{}", row(r));
        }
        let _ = writeln!(s, "segments:");
        for g in &self.segments {
            let n = g.last - g.first + 1;
            let _ = writeln!(
                s,
                "  {:<14} ops {:>4}..={:<4} ({n} ops), {:.0} bytes in",
                g.place, g.first, g.last, g.bytes_in
            );
        }
        let mut reasons: std::collections::BTreeMap<&str, usize> = Default::default();
        for r in &self.ops {
            if let Some(why) = &r.reason {
                *reasons.entry(why).or_default() += 1;
            }
        }
        for (why, n) in &reasons {
            let _ = writeln!(s, "falls back: {n} x {why}");
        }
        s + &self.summary()
    }

    /// The totals, and Vela's estimate beside them when given.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let n = self.ops.len();
        let _ = writeln!(s, "ops: {n}; on {}: {}; falling back: {}", self.target, self.device_ops, self.fallback_ops);
        let _ = writeln!(s, "MACs: {:.0}", self.macs);
        if let (Some(c), Some(mhz)) = (self.cycles, self.clock_mhz) {
            let _ = writeln!(s, "predicted device cycles: {c:.0} ({:.1} us at {mhz} MHz)", c / mhz);
        }
        let _ = writeln!(
            s,
            "predicted time: {:.1} us (transfers between segments {:.1} us)",
            self.ns / 1e3,
            self.transfer_ns / 1e3
        );
        let _ = writeln!(
            s,
            "peak live activations: {:.1} KiB; constants: {:.1} KiB",
            self.peak_activation_bytes / 1024.0,
            self.const_bytes / 1024.0
        );
        if let Some(v) = &self.vela {
            let mut cpu = if v.cpu_ops.is_empty() { "none".to_string() } else { v.cpu_ops.join(", ") };
            if v.cpu_conversions > 0 {
                cpu += &format!(" (and {} DEQUANTIZE/QUANTIZE at their float edges)", v.cpu_conversions);
            }
            let _ =
                writeln!(s, "vela ({}): {:.0} cycles; {} NPU rows; on the CPU: {cpu}", v.file, v.cycles, v.npu_rows);
            if let Some(c) = self.cycles.filter(|_| v.cycles > 0.0) {
                let _ = writeln!(s, "predicted / vela cycles: {:.2}", c / v.cycles);
            }
            let agree = v.cpu_ops.len() == self.fallback_ops;
            let _ = writeln!(
                s,
                "placement: {} (edgec: {} falling back; vela: {} CPU operations)",
                if agree { "agrees" } else { "DIFFERS" },
                self.fallback_ops,
                v.cpu_ops.len()
            );
        }
        s
    }
}

fn row(r: &OpRow) -> String {
    let (cycles, bound) = match &r.cycles {
        Some(c) => {
            let bound = if c.total <= 0.0 {
                "-"
            } else if c.total == c.compute {
                "compute"
            } else if c.total == c.sram {
                "sram"
            } else {
                "consts"
            };
            (format!("{:.0}", c.total), bound)
        }
        None => ("-".to_string(), if r.reason.is_some() { "fallback" } else { "-" }),
    };
    format!(
        "{:>5}  {:<24} {:<14} {:>12.0} {:>10} {:>10.0}  {:<8} {}",
        r.index, r.op, r.place, r.macs, cycles, r.ns, bound, r.provenance
    )
}
