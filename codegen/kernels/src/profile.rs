//! Per-op time of a generated model (`Model::set_profiling`, the generated
//! CLI's `--profile`). Every op the model runs at run time has a slot, made
//! at construction; a run with profiling off costs one branch per op and
//! allocates nothing either way.

use std::time::Instant;

/// One op of the generated code: its ONNX node (or what it was fused from)
/// and its IR opcode.
#[derive(Copy, Clone, Debug)]
pub struct OpName {
    /// ONNX node name(s), as the op's provenance gives them.
    pub node: &'static str,
    /// The IR opcode (`core.conv`, `quant.add`, ...).
    pub op: &'static str,
    /// Its result type(s), e.g. `f32[1, 16, 56, 56]`.
    pub ty: &'static str,
}

/// Accumulated time and calls per op slot.
#[derive(Clone, Debug)]
pub struct Profile {
    on: bool,
    ns: Vec<u64>,
    calls: Vec<u64>,
}

/// One line of a [`Profile`]'s summary.
#[derive(Copy, Clone, Debug)]
pub struct ProfileLine {
    /// The op.
    pub name: OpName,
    /// Total time over all calls, in nanoseconds.
    pub ns: u64,
    /// Times it ran (more than the runs inside loops).
    pub calls: u64,
}

impl Profile {
    /// `n` slots, off.
    pub fn new(n: usize) -> Profile {
        Profile { on: false, ns: vec![0; n], calls: vec![0; n] }
    }

    /// Turn timing on or off (the counts are kept; see [`Profile::reset`]).
    pub fn set(&mut self, on: bool) {
        self.on = on;
    }

    /// Zero every slot.
    pub fn reset(&mut self) {
        self.ns.iter_mut().for_each(|x| *x = 0);
        self.calls.iter_mut().for_each(|x| *x = 0);
    }

    /// The time an op starts, when timing is on.
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        if self.on {
            Some(Instant::now())
        } else {
            None
        }
    }

    /// Add the time since `t` to slot `i`.
    #[inline]
    pub fn stop(&mut self, i: usize, t: Option<Instant>) {
        if let (Some(t), Some(ns), Some(c)) = (t, self.ns.get_mut(i), self.calls.get_mut(i)) {
            *ns += t.elapsed().as_nanos() as u64;
            *c += 1;
        }
    }

    /// Every op that ran, slowest first (ties in slot order).
    pub fn lines(&self, names: &[OpName]) -> Vec<ProfileLine> {
        let mut v: Vec<ProfileLine> = names
            .iter()
            .zip(self.ns.iter().zip(&self.calls))
            .filter(|(_, (_, &c))| c > 0)
            .map(|(&name, (&ns, &calls))| ProfileLine { name, ns, calls })
            .collect();
        v.sort_by_key(|l| std::cmp::Reverse(l.ns));
        v
    }

    /// A table of [`Profile::lines`], per-run milliseconds over `runs` runs
    /// with each op's share of the total and the running share, then the
    /// time per op type.
    pub fn table(&self, names: &[OpName], runs: usize) -> String {
        let lines = self.lines(names);
        let total: u64 = lines.iter().map(|l| l.ns).sum();
        let per_run = |ns: u64| ns as f64 / 1e6 / runs.max(1) as f64;
        let share = |ns: u64| if total == 0 { 0.0 } else { 100.0 * ns as f64 / total as f64 };
        let mut s = format!(
            "{:>10} {:>6} {:>6} {:>6}  {:<24} {:<24} result\n",
            "ms/run", "share", "cum", "calls", "op", "node"
        );
        let mut cum = 0;
        for l in &lines {
            cum += l.ns;
            let calls = l.calls / runs.max(1) as u64;
            s += &format!(
                "{:>10.4} {:>5.1}% {:>5.1}% {:>6}  {:<24} {:<24} {}\n",
                per_run(l.ns),
                share(l.ns),
                share(cum),
                calls,
                l.name.op,
                l.name.node,
                l.name.ty
            );
        }
        s += &format!("{:>10.4} 100.0%               total of {} ops\n", per_run(total), lines.len());
        let mut by_op: Vec<(&str, u64, usize)> = Vec::new();
        for l in &lines {
            match by_op.iter_mut().find(|(op, _, _)| *op == l.name.op) {
                Some(e) => {
                    e.1 += l.ns;
                    e.2 += 1;
                }
                None => by_op.push((l.name.op, l.ns, 1)),
            }
        }
        by_op.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
        s += "\nby op:\n";
        for (op, ns, n) in by_op {
            s += &format!("{:>10.4} {:>5.1}% {:>6}  {op}\n", per_run(ns), share(ns), n);
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: [OpName; 3] = [
        OpName { node: "a", op: "core.conv", ty: "f32[1]" },
        OpName { node: "b", op: "onnx.Add", ty: "f32[1]" },
        OpName { node: "c", op: "core.conv", ty: "f32[1]" },
    ];

    #[test]
    fn off_records_nothing() {
        let mut p = Profile::new(3);
        let t = p.start();
        assert!(t.is_none());
        p.stop(0, t);
        assert!(p.lines(&NAMES).is_empty());
    }

    #[test]
    fn on_records_calls_and_sorts_slowest_first() {
        let mut p = Profile::new(3);
        p.set(true);
        for i in [0, 2, 2] {
            let t = p.start();
            if i == 2 {
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
            p.stop(i, t);
        }
        let lines = p.lines(&NAMES);
        assert_eq!(lines.len(), 2, "slot 1 never ran");
        assert_eq!((lines[0].name.node, lines[0].calls), ("c", 2));
        assert!(lines[0].ns >= 4_000_000);
        let table = p.table(&NAMES, 1);
        assert!(table.contains("total of 2 ops"), "{table}");
        assert!(table.contains("by op:\n"), "{table}");
        p.reset();
        assert!(p.lines(&NAMES).is_empty());
    }
}
