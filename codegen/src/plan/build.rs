//! Building a [`Plan`]: dataflow graph, schedule, buffers, live ranges.

use super::{sized, Buffer, Class, Plan, PlanError, Reuse, Storage};
use ir::{Function, OpData, OpId, Opcode, Value, ValueDef};
use petgraph::graph::{DiGraph, NodeIndex};
use std::collections::{HashMap, HashSet};

/// What the planner needs to know beyond the function.
pub struct PlanOptions<'a> {
    /// Parameters live in the arena (bucket functions read padded copies).
    pub params_in_arena: bool,
    /// How each op's result may share memory with its operands.
    pub reuse: &'a dyn Fn(&Function, &OpData) -> Reuse,
    /// Ops that may run once at construction when all their operands are
    /// constants (or themselves hoisted).
    pub hoistable: &'a dyn Fn(&Function, &OpData) -> bool,
    /// Values may have symbolic sizes: their buffers get length 0 here and
    /// are placed when the model runs (`Buffer::len` is then meaningless).
    pub dynamic: bool,
    /// With `dynamic`, the values whose size is known only when their op
    /// runs: they get [`Storage::Own`]. Every value of a region is one.
    pub late: &'a HashSet<Value>,
}

/// Class and length of `v`; with `dynamic`, a symbolic size is length 0.
fn size_of(f: &Function, v: Value, dynamic: bool, what: impl Fn() -> String) -> Result<(Class, usize), PlanError> {
    match sized(f, v, &what) {
        Err(_) if dynamic && Class::of(f.ty(v).dtype).is_some() => {
            Ok((Class::of(f.ty(v).dtype).unwrap_or(Class::F32), 0))
        }
        r => r,
    }
}

/// True if the result `r` of elementwise `op` provably has as many
/// elements as its operand `k` (for symbolic sizes): a one-operand op, or
/// every other operand broadcasts into operand `k` without growing it.
fn same_size(f: &Function, op: &OpData, k: usize, r: Value) -> bool {
    let Some(src) = op.operand(k) else { return false };
    let (Some(dk), Some(dr)) = (f.ty(src).dims(), f.ty(r).dims()) else { return false };
    if dk.len() != dr.len() {
        return false;
    }
    op.operands.iter().enumerate().filter(|(j, _)| *j != k).all(|(_, o)| {
        let Some(d) = o.and_then(|v| f.ty(v).dims().map(<[ir::Dim]>::to_vec)) else { return o.is_none() };
        d.len() <= dk.len()
            && d.iter()
                .rev()
                .zip(dk.iter().rev())
                .all(|(x, y)| *x == ir::Dim::Static(1) || (x == y && *x != ir::Dim::Unknown))
    })
}

/// The dataflow graph of a region's ops, and a schedule (program order,
/// checked to be topological).
fn schedule(f: &Function, ops: &[OpId]) -> Result<Vec<OpId>, PlanError> {
    let mut g: DiGraph<OpId, ()> = DiGraph::new();
    let nodes: HashMap<OpId, NodeIndex> = ops.iter().map(|&id| (id, g.add_node(id))).collect();
    for &id in ops {
        for v in f.ops[id].inputs().chain(captured(f, id)) {
            if let ValueDef::Result(src, _) = f.values[v].def {
                if let Some(&s) = nodes.get(&src) {
                    g.add_edge(s, nodes[&id], ());
                }
            }
        }
    }
    let position: HashMap<OpId, usize> = ops.iter().enumerate().map(|(i, &id)| (id, i)).collect();
    for e in g.raw_edges() {
        if position[&g[e.source()]] >= position[&g[e.target()]] {
            return Err(PlanError::NotTopological);
        }
    }
    Ok(ops.to_vec())
}

/// Values used inside the regions of `id` but defined outside them.
fn captured(f: &Function, id: OpId) -> Vec<Value> {
    let mut out = Vec::new();
    let mut stack: Vec<&ir::Region> = f.ops[id].regions.iter().collect();
    while let Some(r) = stack.pop() {
        for &op in &r.ops {
            out.extend(f.ops[op].inputs());
            stack.extend(f.ops[op].regions.iter());
        }
        out.extend(r.results.iter().copied());
    }
    out
}

/// Schedule index of the last use of every value (`results`: `n`).
fn last_uses(f: &Function, order: &[OpId], results: &[Value]) -> HashMap<Value, usize> {
    let mut last = HashMap::new();
    for (i, &id) in order.iter().enumerate() {
        for v in f.ops[id].inputs().chain(captured(f, id)) {
            last.insert(v, i);
        }
    }
    for &v in results {
        last.insert(v, order.len());
    }
    last
}

/// Plan function `f`: its body, and recursively the regions of its
/// control-flow ops (each region's buffers above its enclosing plan's).
pub fn plan_function(f: &Function, opts: &PlanOptions<'_>) -> Result<Plan, PlanError> {
    plan_region(f, &f.body, opts, None, &[])
}

/// Plan region `r` (the body, or a region of a control-flow op inside
/// `outer`). With `dynamic`, region parameter `i` may share the own buffer
/// of `alias[i]` (a loop's carried value is read from the op's result).
fn plan_region(
    f: &Function,
    r: &ir::Region,
    opts: &PlanOptions<'_>,
    outer: Option<&Plan>,
    alias: &[Option<Value>],
) -> Result<Plan, PlanError> {
    let all = schedule(f, &r.ops)?;
    let mut p = Plan::default();
    if let Some(o) = outer {
        inherit(o, &mut p, opts.dynamic);
    }
    let in_region = outer.is_some();
    let no_hoist = |_: &Function, _: &OpData| false;
    let sub_opts = PlanOptions {
        params_in_arena: true,
        reuse: opts.reuse,
        hoistable: &no_hoist,
        dynamic: opts.dynamic,
        late: opts.late,
    };
    let opts = if in_region { &sub_opts } else { opts };
    hoist(f, &all, opts, &mut p)?;
    let order: Vec<OpId> = all.into_iter().filter(|id| !p.hoist_schedule.contains(id)).collect();
    let last = last_uses(f, &order, &r.results);
    p.schedule = order.clone();
    for (i, &v) in r.params.iter().enumerate() {
        let (class, len) = size_of(f, v, opts.dynamic, || format!("parameter #{i} of @{}", f.name))?;
        if opts.dynamic && in_region {
            p.storage.insert(v, Storage::Own(alias.get(i).copied().flatten().unwrap_or(v)));
        } else if opts.params_in_arena {
            let b = new_buffer(&mut p, class, len, 0, last.get(&v).copied().unwrap_or(0));
            p.storage.insert(v, Storage::Buffer(b));
        } else {
            p.storage.insert(v, Storage::Param(i));
        }
    }
    for (i, &id) in order.iter().enumerate() {
        if opts.dynamic && (in_region || f.ops[id].results.iter().any(|r| opts.late.contains(r))) {
            own_results(f, id, opts, &mut p);
            continue;
        }
        place_results(f, id, i, &last, opts, &mut p)?;
    }
    if !in_region {
        copy_results(f, r, order.len(), opts, &mut p)?;
    }
    if !(opts.dynamic && in_region) {
        super::offsets::assign(&mut p);
    }
    p.extent = p.arena.iter().map(|(&c, &n)| (c, p.base.get(&c).copied().unwrap_or(0) + n)).collect();
    for &id in &order {
        let mut subs = Vec::new();
        let alias = carried_aliases(&f.ops[id]);
        for region in &f.ops[id].regions {
            let sub = plan_region(f, region, opts, Some(&p), &alias)?;
            for (&c, &e) in &sub.extent {
                let x = p.extent.entry(c).or_default();
                *x = (*x).max(e);
            }
            subs.push(sub);
        }
        if !subs.is_empty() {
            p.regions.insert(id, subs);
        }
    }
    Ok(p)
}

/// The op result each body parameter of a Loop or Scan carries (Loop:
/// parameters 2.. carry results 0..; Scan: the state parameters).
fn carried_aliases(op: &OpData) -> Vec<Option<Value>> {
    let (first, n) = match op.opcode {
        Opcode::Loop => (2, op.operands.len().saturating_sub(2)),
        Opcode::Scan => {
            let m = op.attrs.int("num_scan_inputs").unwrap_or(0).max(0) as usize;
            (0, op.operands.len().saturating_sub(m))
        }
        _ => return vec![],
    };
    let mut out = vec![None; first];
    out.extend((0..n).map(|j| op.results.get(j).copied()));
    out
}

/// Make everything the enclosing plan `o` placed visible to a region plan
/// `p` (as fixed arena positions), and start `p`'s buffers above `o`'s.
fn inherit(o: &Plan, p: &mut Plan, dynamic: bool) {
    p.hoisted = o.hoisted.clone();
    p.const_arena = o.const_arena.clone();
    if dynamic {
        // Offsets are decided when the model runs: a region sees the
        // function's buffers by index (its own values are all `Own`).
        p.storage = o.storage.clone();
        p.buffers = o.buffers.clone();
        return;
    }
    for (&v, &s) in &o.storage {
        let s = match s {
            Storage::Buffer(b) => {
                let buf = &o.buffers[b];
                let offset = o.base.get(&buf.class).copied().unwrap_or(0) + buf.offset;
                Storage::Fixed { class: buf.class, offset, len: buf.len }
            }
            other => other,
        };
        p.storage.insert(v, s);
    }
    let mut base = o.base.clone();
    for (&c, &n) in &o.arena {
        *base.entry(c).or_default() += n;
    }
    p.base = base;
}

/// Give every result that is a parameter or a constant (or, for bucket
/// functions, whose results are all read from the arena, a hoisted value)
/// its own buffer, written after the last op.
fn copy_results(
    f: &Function,
    r: &ir::Region,
    end: usize,
    opts: &PlanOptions<'_>,
    p: &mut Plan,
) -> Result<(), PlanError> {
    let bucket = opts.params_in_arena;
    for (i, &v) in r.results.iter().enumerate() {
        let copy = match p.storage.get(&v) {
            Some(Storage::Param(_) | Storage::Const(_)) => true,
            Some(Storage::Hoisted(_)) => bucket,
            _ => false,
        };
        if copy {
            let (class, len) = size_of(f, v, opts.dynamic, || format!("result #{i} of @{}", f.name))?;
            let b = new_buffer(p, class, len, end, end);
            p.result_copies.insert(i, b);
        }
    }
    Ok(())
}

/// Results of `id` in their own buffers (views of an own value are own too).
fn own_results(f: &Function, id: OpId, opts: &PlanOptions<'_>, p: &mut Plan) {
    let op = &f.ops[id];
    if op.opcode == Opcode::CoreConst {
        p.storage.insert(op.results[0], Storage::Const(id));
        return;
    }
    // A view shares its operand's storage (an own buffer, an input, a buffer).
    if let (Reuse::View(k), [r]) = ((opts.reuse)(f, op), &op.results[..]) {
        if let Some(s) = op.operand(k).and_then(|v| p.storage.get(&v)).copied() {
            p.storage.insert(*r, s);
            return;
        }
    }
    for &r in &op.results {
        p.storage.insert(r, Storage::Own(r));
    }
}

fn new_buffer(p: &mut Plan, class: Class, len: usize, def: usize, last: usize) -> usize {
    p.buffers.push(Buffer { class, len, def, last: last.max(def), offset: 0 });
    *p.total.entry(class).or_default() += len;
    p.buffers.len() - 1
}

fn place_results(
    f: &Function,
    id: OpId,
    i: usize,
    last: &HashMap<Value, usize>,
    opts: &PlanOptions<'_>,
    p: &mut Plan,
) -> Result<(), PlanError> {
    let op = &f.ops[id];
    if op.opcode == Opcode::CoreConst {
        p.storage.insert(op.results[0], Storage::Const(id));
        return Ok(());
    }
    if op.results.iter().all(|r| p.storage.contains_key(r)) {
        return Ok(()); // a view of a hoisted value, placed by `hoist`
    }
    let what = |r: usize| format!("result #{r} of {} [{}]", op.opcode.name(), op.loc);
    let reuse = if op.results.len() == 1 { (opts.reuse)(f, op) } else { Reuse::None };
    let res = op.results.first().copied();
    let res_last = |v: Value| last.get(&v).copied().unwrap_or(i);
    match (reuse, res) {
        (Reuse::View(k), Some(r)) => {
            if let Some(src) = op.operand(k) {
                let s = p.storage[&src];
                if let Storage::Buffer(b) = s {
                    p.buffers[b].last = p.buffers[b].last.max(res_last(r));
                }
                p.storage.insert(r, s);
                return Ok(());
            }
        }
        (Reuse::InPlace(cands), Some(r)) => {
            let (class, len) = size_of(f, r, opts.dynamic, || what(0))?;
            let twice = |v: Value| op.inputs().filter(|&u| p.storage.get(&u) == p.storage.get(&v)).count() > 1;
            for k in cands {
                let Some(src) = op.operand(k) else { continue };
                let Some(&Storage::Buffer(b)) = p.storage.get(&src) else { continue };
                let buf = &p.buffers[b];
                let fits = if len == 0 && opts.dynamic { same_size(f, op, k, r) } else { buf.len == len };
                if buf.class == class && fits && buf.last == i && !twice(src) {
                    p.buffers[b].last = res_last(r).max(i);
                    p.storage.insert(r, Storage::Buffer(b));
                    p.in_place.insert(r, k);
                    return Ok(());
                }
            }
        }
        _ => {}
    }
    for (ri, &r) in op.results.iter().enumerate() {
        let (class, len) = size_of(f, r, opts.dynamic, || what(ri))?;
        let b = new_buffer(p, class, len, i, res_last(r));
        p.storage.insert(r, Storage::Buffer(b));
    }
    Ok(())
}

/// True if `v` is a constant, hoisted, or a view of one.
fn is_static(p: &Plan, v: Value) -> bool {
    matches!(p.storage.get(&v), Some(Storage::Const(_) | Storage::Hoisted(_)))
}

/// Choose the ops to hoist (in order; every operand static) and give their
/// results, and views of static values, their storage.
fn hoist(f: &Function, order: &[OpId], opts: &PlanOptions<'_>, p: &mut Plan) -> Result<(), PlanError> {
    for &id in order {
        let op = &f.ops[id];
        if op.opcode == Opcode::CoreConst {
            p.storage.insert(op.results[0], Storage::Const(id));
            continue;
        }
        let all_static = op.operands.iter().flatten().all(|&v| is_static(p, v)) && op.inputs().next().is_some();
        let pure = op.opcode.def().has(ir::ops::flags::PURE) && op.regions.is_empty() && op.results.len() == 1;
        if !(all_static && pure) {
            continue;
        }
        if let Reuse::View(k) = (opts.reuse)(f, op) {
            if let Some(src) = op.operand(k) {
                let s = p.storage[&src];
                p.storage.insert(op.results[0], s);
            }
            continue;
        }
        if !(opts.hoistable)(f, op) {
            continue;
        }
        let r = op.results[0];
        let (class, len) = sized(f, r, || format!("result of {} [{}]", op.opcode.name(), op.loc))?;
        let off = p.const_arena.entry(class).or_default();
        p.hoisted.push(Buffer { class, len, def: 0, last: 0, offset: *off });
        *off += len;
        p.storage.insert(r, Storage::Hoisted(p.hoisted.len() - 1));
        p.hoist_schedule.push(id);
    }
    Ok(())
}
