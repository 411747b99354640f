//! `edgec report`: before anything is compiled for a device, where each op of
//! the optimized module runs, why an op falls back, what each costs, the
//! device/fallback segments with the bytes crossing between them, and the
//! memory the model needs.
//!
//! Costs come from the target profile: its `[cycles]` model for ops the
//! device runs when it has one (an NPU's MAC array; cycles and time at its
//! clock), else its linear costs; fallback ops cost their `[fallback_costs]`
//! time, and every crossing between a device and a fallback segment costs
//! the profile's `[transfer]` copy. Sizes are the device's element size when
//! the profile has a cycle model (int8 NPUs hold 1-byte elements), else each
//! tensor's own. Invariants: one row per live non-constant op in program
//! order; figures are finite and `>= 0`; the totals are the rows' sums.

mod text;
pub mod vela;

use ir::{Function, Module, OpId, Opcode, Value, ValueDef};
use passes::target::{Cycles, Fusion, OpQuery, Support, TargetProfile, Work};
use serde::Serialize;
use std::collections::HashMap;

/// One op's row.
#[derive(Clone, Debug, Serialize)]
pub struct OpRow {
    /// Position in program order.
    pub index: usize,
    /// The op (`core.conv`).
    pub op: String,
    /// ONNX provenance (`ONNX node "conv1" (Conv)`).
    pub provenance: String,
    /// Where it runs: the target, or its fallback.
    pub place: String,
    /// Why it falls back (`None` on the device).
    pub reason: Option<String>,
    /// Multiply-accumulates.
    pub macs: f64,
    /// Cycle estimate (device ops of profiles with a cycle model).
    pub cycles: Option<CycleRow>,
    /// Predicted time in nanoseconds.
    pub ns: f64,
}

/// A cycle estimate and its bottleneck.
#[derive(Clone, Debug, Serialize)]
pub struct CycleRow {
    /// MAC-array or elementwise cycles.
    pub compute: f64,
    /// SRAM traffic cycles.
    pub sram: f64,
    /// Constant (weight) traffic cycles.
    pub consts: f64,
    /// The largest of the three.
    pub total: f64,
}

/// A maximal run of consecutive ops with one placement.
#[derive(Clone, Debug, Serialize)]
pub struct Segment {
    /// Where it runs.
    pub place: String,
    /// First and last row index.
    pub first: usize,
    /// Last row index (inclusive).
    pub last: usize,
    /// Bytes its ops read from ops of another placement.
    pub bytes_in: f64,
}

/// The whole report.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// The model file.
    pub model: String,
    /// Target name.
    pub target: String,
    /// The profile's one-line description (what it models, how closely).
    pub description: String,
    /// True for a simulated profile (no hardware backend).
    pub simulated: bool,
    /// NPU clock of the cycle model, if the profile has one.
    pub clock_mhz: Option<f64>,
    /// One row per op.
    pub ops: Vec<OpRow>,
    /// Device and fallback segments in program order.
    pub segments: Vec<Segment>,
    /// Ops on the device.
    pub device_ops: usize,
    /// Ops on the fallback.
    pub fallback_ops: usize,
    /// Total MACs.
    pub macs: f64,
    /// Predicted device cycles (sum of the rows' cycle estimates).
    pub cycles: Option<f64>,
    /// Predicted time: ops plus transfers at segment crossings, nanoseconds.
    pub ns: f64,
    /// Of `ns`, the transfers between segments.
    pub transfer_ns: f64,
    /// Peak bytes of simultaneously live activations (inputs, intermediates, outputs).
    pub peak_activation_bytes: f64,
    /// Bytes of constants (weights).
    pub const_bytes: f64,
    /// Vela's estimate of the compiled model, when given.
    pub vela: Option<vela::Vela>,
}

/// The report of `m` on `t` as text or JSON, with Vela's per-layer CSV
/// beside it when `vela` is given.
pub fn render(
    m: &Module,
    t: &TargetProfile,
    model: &str,
    vela: Option<&std::path::Path>,
    json: bool,
) -> Result<String, String> {
    let mut r = build(m, t, model)?;
    if let Some(p) = vela {
        r.vela = Some(vela::load(p)?);
    }
    if json {
        serde_json::to_string_pretty(&r).map(|s| s + "\n").map_err(|e| e.to_string())
    } else {
        Ok(r.text())
    }
}

/// Build the report of `m`'s `@main` (else its first function) on `t`.
pub fn build(m: &Module, t: &TargetProfile, model: &str) -> Result<Report, String> {
    let f = m.func("main").or(m.funcs.first()).ok_or_else(|| format!("{model}: the module has no function"))?;
    let elem = |v: Value| value_bytes(f, t, v);
    let is_const =
        |v: Value| matches!(f.values[v].def, ValueDef::Result(op, _) if f.ops[op].opcode == Opcode::CoreConst);
    let mut ops = Vec::new();
    let mut crossing = Vec::new();
    let mut producer_place: HashMap<Value, String> = Default::default();
    let live: Vec<OpId> = f.live_ops().into_iter().filter(|&id| f.ops[id].opcode != Opcode::CoreConst).collect();
    let mut support: HashMap<OpId, Support> =
        live.iter().map(|&id| (id, crate::optimize::with_query(f, &f.ops[id], |q| t.support(q)))).collect();
    steps_join_their_readers(f, &live, &is_const, &mut support);
    let fused = fusions(f, t, &live, &support);
    for &id in &live {
        let op = &f.ops[id];
        let consts: Vec<bool> = op.operands.iter().map(|o| o.is_some_and(is_const)).collect();
        let fusion = fused.get(&id).copied().unwrap_or_default();
        let on = &support[&id];
        let row = crate::optimize::with_query(f, op, |q| row(t, q, on, &consts, fusion, ops.len(), op.loc.to_string()));
        let from_elsewhere = |v: &Value| producer_place.get(v).is_some_and(|p| *p != row.place);
        crossing.push(op.inputs().filter(from_elsewhere).map(elem).fold(0.0, add));
        for &r in &op.results {
            producer_place.insert(r, row.place.clone());
        }
        ops.push(row);
    }
    let segments = segments(&ops, &crossing);
    let crossings = segments.iter().filter(|s| s.bytes_in > 0.0).count() as f64;
    let bytes = crossing.iter().fold(0.0, |a, b| a + b);
    let transfer_ns = bytes / t.transfer.bytes_per_ns + crossings * t.transfer.latency_ns;
    let device_ops = ops.iter().filter(|r| r.reason.is_none()).count();
    let consts = f.live_ops().into_iter().filter(|&id| f.ops[id].opcode == Opcode::CoreConst);
    Ok(Report {
        model: model.to_string(),
        target: t.name.clone(),
        description: t.description.clone(),
        simulated: t.simulated,
        clock_mhz: t.cycles.as_ref().map(|c| c.clock_mhz),
        device_ops,
        fallback_ops: ops.len() - device_ops,
        macs: ops.iter().map(|r| r.macs).fold(0.0, add),
        cycles: t.cycles.as_ref().map(|_| ops.iter().filter_map(|r| r.cycles.as_ref()).map(|c| c.total).fold(0.0, add)),
        ns: ops.iter().map(|r| r.ns).fold(0.0, add) + transfer_ns,
        transfer_ns,
        peak_activation_bytes: peak_live(f, &is_const, &elem),
        const_bytes: consts.map(|id| elem(f.result(id))).fold(0.0, add),
        vela: None,
        ops,
        segments,
    })
}

/// A step by a constant (an Add, Sub, Mul or Div of one activation and one
/// constant) that only fallback ops read falls back too: quantization
/// gives such a step no grid of its own (it is folded into its readers),
/// so it is computed in float with the ops reading it, on the fallback.
/// Readers are placed before their producers (reverse program order), so a
/// chain of steps follows its last reader.
fn steps_join_their_readers(
    f: &Function,
    live: &[OpId],
    is_const: &dyn Fn(Value) -> bool,
    support: &mut HashMap<OpId, Support>,
) {
    let mut readers: HashMap<Value, Vec<OpId>> = HashMap::new();
    for &id in live {
        f.ops[id].inputs().for_each(|v| readers.entry(v).or_default().push(id));
    }
    let results: std::collections::HashSet<Value> = f.body.results.iter().copied().collect();
    for &id in live.iter().rev() {
        let op = &f.ops[id];
        let ins: Vec<Value> = op.inputs().collect();
        let step = matches!(op.opcode, Opcode::Add | Opcode::Sub | Opcode::Mul | Opcode::Div)
            && ins.len() == 2
            && ins.iter().filter(|&&v| is_const(v)).count() == 1;
        let r = op.results[0];
        let users = readers.get(&r).map_or(&[][..], Vec::as_slice);
        let on_fallback = |u: &OpId| support.get(u).is_some_and(|s| !s.is_yes());
        if step && support[&id].is_yes() && !results.contains(&r) && !users.is_empty() && users.iter().all(on_fallback)
        {
            let why = "a step by a constant that only fallback ops read: computed in float with them";
            support.insert(id, Support::No(why.into()));
        }
    }
}

/// Maximal runs of rows with one placement; `crossing[i]`: the bytes row
/// `i` reads from ops of another placement.
fn segments(rows: &[OpRow], crossing: &[f64]) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for (r, &bytes) in rows.iter().zip(crossing) {
        match out.last_mut() {
            Some(s) if s.place == r.place => {
                s.last = r.index;
                s.bytes_in += bytes;
            }
            _ => out.push(Segment { place: r.place.clone(), first: r.index, last: r.index, bytes_in: bytes }),
        }
    }
    out
}

/// The ops that share an output stage on `t`'s device ([`Fusion`]): a
/// consumer the cycle model fuses that is the only reader of a producer's
/// only result (not a function result), both on the device. `live`: the
/// body's non-constant ops, with their `support`.
fn fusions(f: &Function, t: &TargetProfile, live: &[OpId], support: &HashMap<OpId, Support>) -> HashMap<OpId, Fusion> {
    let mut out = HashMap::new();
    let Some(model) = &t.cycles else { return out };
    let mut readers: HashMap<Value, Vec<OpId>> = HashMap::new();
    for &id in live {
        for v in f.ops[id].inputs() {
            readers.entry(v).or_default().push(id);
        }
    }
    let on_device = |id: OpId| support.get(&id).is_some_and(Support::is_yes);
    for &id in live {
        let op = &f.ops[id];
        let [r] = op.results[..] else { continue };
        let (Some([user]), false) = (readers.get(&r).map(Vec::as_slice), f.body.results.contains(&r)) else { continue };
        if model.fuses(op.opcode, f.ops[*user].opcode) && on_device(id) && on_device(*user) {
            out.insert(id, Fusion::LutEpilogue);
            out.insert(*user, Fusion::IntoProducer);
        }
    }
    out
}

/// `q`'s row; `support`: `t.support(q)`.
fn row(
    t: &TargetProfile,
    q: &OpQuery,
    support: &Support,
    consts: &[bool],
    fusion: Fusion,
    index: usize,
    provenance: String,
) -> OpRow {
    let work = Work::estimate(q);
    let (place, reason) = match support {
        Support::Yes => (t.name.clone(), None),
        Support::No(why) => (t.fallback.clone().unwrap_or_else(|| "none".into()), Some(why.clone())),
    };
    let cycles = match (&t.cycles, &reason) {
        (Some(model), None) => Some(model.estimate(q, consts, fusion)),
        _ => None,
    };
    let ns = match (&cycles, &t.cycles, &reason) {
        (Some(c), Some(model), _) => model.ns(c.total()),
        (_, _, None) => t.rule(q.opcode).cost.eval(&work),
        (_, _, Some(_)) => t.fallback_costs.eval(&work),
    };
    let cycles =
        cycles.map(|c: Cycles| CycleRow { compute: c.compute, sram: c.sram, consts: c.consts, total: c.total() });
    OpRow { index, op: q.opcode.name().to_string(), provenance, place, reason, macs: work.macs, cycles, ns }
}

/// Summation from +0.0 (an empty `Sum` of floats is -0.0).
fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Bytes of `v` as the report counts them (see the module docs).
fn value_bytes(f: &Function, t: &TargetProfile, v: Value) -> f64 {
    match &t.cycles {
        Some(c) => passes::target::work::elems(f.ty(v)) * c.bytes_per_elem,
        None => passes::target::work::bytes(f.ty(v)),
    }
}

/// The largest sum of live activation bytes at any op of the body: a value
/// is live from its definition (parameters: from the start) to its last use
/// (results: to the end). A lower bound of any memory plan.
fn peak_live(f: &Function, is_const: &dyn Fn(Value) -> bool, bytes: &dyn Fn(Value) -> f64) -> f64 {
    let mut last_use: std::collections::HashMap<Value, usize> = Default::default();
    let body = &f.body.ops;
    for (i, &id) in body.iter().enumerate() {
        for v in f.ops[id].inputs() {
            last_use.insert(v, i);
        }
    }
    for &v in &f.body.results {
        last_use.insert(v, usize::MAX);
    }
    let mut live: f64 = f.body.params.iter().map(|&v| bytes(v)).fold(0.0, add);
    let mut peak = live;
    for (i, &id) in body.iter().enumerate() {
        let defined: Vec<Value> = f.ops[id].results.iter().copied().filter(|&v| !is_const(v)).collect();
        live += defined.iter().map(|&v| bytes(v)).fold(0.0, add);
        peak = peak.max(live);
        let ends = |v: &Value| last_use.get(v).is_some_and(|&l| l == i);
        let mut dead: Vec<Value> = f.ops[id].inputs().filter(|v| !is_const(*v) && ends(v)).collect();
        dead.sort();
        dead.dedup();
        live -= dead.iter().map(|&v| bytes(v)).fold(0.0, add);
        live -= defined.iter().filter(|v| !last_use.contains_key(v)).map(|&v| bytes(v)).fold(0.0, add);
    }
    peak
}
