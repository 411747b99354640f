//! Control flow in functions with symbolic dims: `If`, `Loop` and `Scan`
//! whose values have sizes known only when they run.
//!
//! Every value of a region, and every result of a control-flow op, lives in
//! its own growable buffer (`plan::Storage::Own`, a `Vec` field of the
//! model that keeps its capacity between runs) and has its shape in a
//! variable: `let mut s<result>` declared before the op and assigned by the
//! branch that ran or by each iteration. A Loop's carried values are read by
//! its body straight from the op's result buffers (the planner gives the
//! carried parameters their storage) and written back after each
//! iteration; scan outputs are appended.

use super::Walk;
use crate::plan::{Class, Plan, Storage};
use crate::rust::emit::{describe, own_field, value_expr, Emitter, FuncCx};
use crate::rust::sz::Sz;
use ir::{OpId, Opcode, Value};

/// `let mut s<r>: [usize; R] = <init>;` for result `r` of rank `rank`;
/// its dims as the variable's elements (literals where the IR says static).
fn mut_shape(w: &mut Walk<'_>, id: OpId, r: Value, rank: usize, init: &[Sz]) -> Vec<Sz> {
    let name = format!("s{}", r.as_u32());
    let init = if init.len() == rank { Sz::array(init) } else { format!("[0usize; {rank}]") };
    w.sh.late_code.entry(id).or_default().push_str(&format!("        let mut {name}: [usize; {rank}] = {init};\n"));
    let decl = w.f.ty(r).dims().map(<[ir::Dim]>::to_vec).unwrap_or_default();
    (0..rank)
        .map(|k| match decl.get(k).and_then(|d| d.as_static()) {
            Some(n) => Sz::Lit(n as usize),
            None => Sz::expr(format!("{name}[{k}]")),
        })
        .collect()
}

/// The rank of result `r`: its type's, else the region results' (which must agree).
fn rank_of(w: &Walk<'_>, r: Value, candidates: &[Value]) -> Result<usize, String> {
    if let Some(n) = w.f.ty(r).rank() {
        return Ok(n);
    }
    let ranks: Vec<usize> = candidates.iter().map(|&v| w.dims_of(v).len()).collect();
    match ranks.split_first() {
        Some((&first, rest)) if rest.iter().all(|&x| x == first) => Ok(first),
        _ => Err(format!("the branches give results of ranks {ranks:?}")),
    }
}

/// Shapes of a control-flow op: its regions walked (all their values late),
/// its results given shape variables.
pub(super) fn shapes(w: &mut Walk<'_>, id: OpId) -> Result<(), String> {
    let f = w.f;
    let op = &f.ops[id];
    match op.opcode {
        Opcode::If => {
            // A condition that follows from shapes picks its branch now (a
            // branch of another rank may then never run, as exporters write
            // `if x.dim(0) == 1: x = x.squeeze(0)`).
            let contents = op.operand(0).and_then(|c| w.contents_any(c)).and_then(|c| c.first().cloned());
            let mut cond = match &contents {
                Some(crate::rust::shapes::Iv::Lit(x)) => Some(usize::from(*x == 0)),
                _ => None,
            };
            // Branches of different ranks under a condition known before the
            // function runs: one variant of the function per answer.
            if let (None, Some(crate::rust::shapes::Iv::Expr(e))) = (cond, &contents) {
                if branch_ranks_differ(w, op) {
                    let mut check = String::new();
                    cond = Some(usize::from(!w.decide(format!("{e} != 0"), &mut check)));
                    w.sh.late_code.entry(id).or_default().push_str(&check);
                }
            }
            if let Some(k) = cond {
                w.sh.chosen.insert(id, k);
            }
            let taken: Vec<usize> = match cond {
                Some(k) => vec![k],
                None => (0..op.regions.len()).collect(),
            };
            for &k in &taken {
                w.ops(&op.regions[k].ops, true);
            }
            for (j, &r) in op.results.iter().enumerate() {
                let branch: Vec<Value> = taken.iter().filter_map(|&k| op.regions[k].results.get(j).copied()).collect();
                let rank = rank_of(w, r, &branch)?;
                let dims = mut_shape(w, id, r, rank, &[]);
                w.sh.dims.insert(r, dims);
            }
        }
        Opcode::Loop | Opcode::Scan => {
            let body = &op.regions[0];
            let (carried, first_param) = state_layout(op)?;
            for j in 0..carried {
                let r = op.results[j];
                let init_dims = init_operand(op, j).map(|v| w.dims_of(v)).unwrap_or_default();
                let rank = init_dims.len();
                let dims = mut_shape(w, id, r, rank, &init_dims);
                w.sh.dims.insert(body.params[first_param + j], dims.clone());
                w.sh.dims.insert(r, dims);
            }
            for (k, &p) in body.params.iter().enumerate() {
                if k < first_param {
                    w.sh.dims.insert(p, vec![]); // Loop's iteration number and condition
                } else if k >= first_param + carried {
                    // A Scan's slice of scan input `k`: the input without axis 0.
                    let src = op.operand(k).ok_or("Scan input missing")?;
                    let d = w.dims_of(src);
                    w.sh.dims.insert(p, d.get(1..).unwrap_or(&[]).to_vec());
                }
            }
            w.sh.late.extend(body.params.iter().copied());
            w.ops(&body.ops, true);
            for &r in &op.results[carried..] {
                let rank = f.ty(r).rank().ok_or("scan output of unknown rank")?;
                let dims = mut_shape(w, id, r, rank, &[]);
                w.sh.dims.insert(r, dims);
            }
        }
        o => return Err(format!("{} is not supported by the Rust backend", o.name())),
    }
    w.sh.late.extend(op.results.iter().copied());
    Ok(())
}

/// True if an If's branches yield results of different ranks.
fn branch_ranks_differ(w: &Walk<'_>, op: &ir::OpData) -> bool {
    let rank = |v: Value| w.f.ty(v).rank();
    let (a, b) = (&op.regions[0].results, &op.regions[1].results);
    a.iter().zip(b).any(|(&x, &y)| rank(x).is_none() || rank(y).is_none() || rank(x) != rank(y))
}

/// `(carried values, index of the first carried body parameter)`.
fn state_layout(op: &ir::OpData) -> Result<(usize, usize), String> {
    match op.opcode {
        Opcode::Loop => Ok((op.operands.len().saturating_sub(2), 2)),
        Opcode::Scan => {
            let m = op.attrs.int("num_scan_inputs").unwrap_or(0).max(0) as usize;
            Ok((op.operands.len().checked_sub(m).ok_or("Scan: num_scan_inputs exceeds the operands")?, 0))
        }
        _ => Err("not a loop".into()),
    }
}

/// The initial value of carried value `j`.
fn init_operand(op: &ir::OpData, j: usize) -> Option<Value> {
    match op.opcode {
        Opcode::Loop => op.operand(2 + j),
        _ => op.operand(j),
    }
}

/// The own buffer of `v` in `cx`.
fn own_of(cx: &FuncCx<'_>, v: Value) -> Result<String, String> {
    match cx.plan.storage.get(&v) {
        Some(Storage::Own(o)) => Ok(own_field(cx.f, *o)),
        _ => Err(format!("internal: value {v} has no own buffer")),
    }
}

/// Copy `src` (seen from `from`) into the own buffer of `dst` (seen from
/// `to`) with shape `dims`; nothing if `src` already lives there.
fn copy_own(e: &mut Emitter<'_>, from: &FuncCx<'_>, src: Value, to: &FuncCx<'_>, dst: Value) -> Result<String, String> {
    let field = own_of(to, dst)?;
    if from.plan.storage.get(&src) == to.plan.storage.get(&dst) {
        return Ok(String::new());
    }
    if let Some(Storage::Own(o)) = from.plan.storage.get(&src) {
        if own_field(from.f, *o) == field {
            return Err("a carried value that is a view of itself is not supported".into());
        }
    }
    let x = value_expr(e, from, src, None)?;
    Ok(format!("        k::rt::fit(&mut self.{field}, ({x}).len()).copy_from_slice({x});\n"))
}

/// Order the carried-state updates of a loop step, each `(buffer field,
/// shape variable, code)` writing its field and variable, so that no update
/// overwrites what a later one still reads (a parallel assignment: `a, b =
/// b, a + b`). A cycle (values swapping through views) is refused.
fn sequential_moves(mut pending: Vec<(String, String, String)>) -> Result<String, String> {
    let reads = |code: &str, name: &str| {
        code.match_indices(name).any(|(i, _)| {
            let after = code[i + name.len()..].chars().next();
            let before = code[..i].chars().next_back();
            !after.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
                && !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let mut out = String::new();
    while !pending.is_empty() {
        let free = (0..pending.len()).find(|&j| {
            let (field, var, _) = &pending[j];
            let writes = |c: &str| reads(c, field) || reads(c, var);
            pending.iter().enumerate().all(|(k, (_, _, c))| k == j || !writes(c))
        });
        let Some(j) = free else {
            return Err("loop-carried values that exchange storage through views are not supported".into());
        };
        out += &pending.remove(j).2;
    }
    Ok(out)
}

/// `s<r> = [dims of v];` if `r` has a shape variable.
fn set_shape(cx: &FuncCx<'_>, r: Value, v: Value) -> String {
    let Some(d) = cx.dy else { return String::new() };
    let dims = d.dims.get(&v).cloned().unwrap_or_default();
    if cx.f.ty(r).shape.static_dims().is_some() {
        return String::new();
    }
    format!("        s{} = {};\n", r.as_u32(), Sz::array(&dims))
}

/// The code of region `k` of `id` under its plan.
fn region_code<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, plan: &'a Plan) -> Result<String, String> {
    let sub = cx.with_plan(plan);
    let mut s = String::new();
    for &op in &plan.schedule {
        s += &e.op(&sub, op)?;
    }
    Ok(s)
}

/// Lower a control-flow op of a function with symbolic dims.
pub fn lower<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, id: OpId) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let subs: &'a [Plan] = cx.plan.regions.get(&id).ok_or("internal: region not planned")?;
    let header = format!("        // {}\n", describe(op, cx.f));
    let body = match op.opcode {
        Opcode::If => if_(e, cx, id, subs)?,
        Opcode::Loop | Opcode::Scan => loop_(e, cx, id, &subs[0])?,
        other => return Err(format!("{} is not supported by the Rust backend yet", other.name())),
    };
    Ok(header + &body)
}

fn if_<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, id: OpId, subs: &'a [Plan]) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let cond = value_expr(e, cx, op.operand(0).ok_or("If without a condition")?, None)?;
    let chosen = cx.dy.and_then(|d| d.chosen.get(&id)).copied();
    let mut branches = Vec::new();
    for (k, plan) in subs.iter().enumerate() {
        if chosen.is_some_and(|c| c != k) {
            branches.push(String::new());
            continue;
        }
        let mut code = region_code(e, cx, plan)?;
        let sub = cx.with_plan(plan);
        for (&y, &r) in op.regions[k].results.iter().zip(&op.results) {
            code += &set_shape(&sub, r, y);
            code += &copy_own(e, &sub, y, cx, r)?;
        }
        branches.push(code);
    }
    if let Some(k) = chosen {
        return Ok(format!(
            "        // the condition follows from the shapes: branch {k}\n        {{\n{}        }}\n",
            branches[k]
        ));
    }
    Ok(format!("        if ({cond})[0] {{\n{}        }} else {{\n{}        }}\n", branches[0], branches[1]))
}

/// The elements of one slice along axis 0 of a scan input (`dims` of the input).
fn chunk(dims: &[Sz]) -> Sz {
    Sz::product(dims.get(1..).unwrap_or(&[]))
}

fn loop_<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, id: OpId, plan: &'a Plan) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let body = &op.regions[0];
    let (carried, first) = state_layout(op)?;
    let sub = cx.with_plan(plan);
    let dims = |v: Value| cx.dy.and_then(|d| d.dims.get(&v)).cloned().unwrap_or_default();
    let mut s = String::new();
    for j in 0..carried {
        let init = init_operand(op, j).ok_or("a loop without an initial value")?;
        s += &copy_own(e, cx, init, cx, op.results[j])?;
    }
    let scans: Vec<(Value, Value)> = op.results[carried..]
        .iter()
        .zip(&body.results[carried + usize::from(first > 0)..])
        .map(|(&r, &y)| (r, y))
        .collect();
    for (r, _) in &scans {
        let rank = cx.f.ty(*r).rank().unwrap_or(1);
        s += &format!(
            "        self.{}.clear();\n        let mut e{}: [usize; {}] = [0; {}];\n",
            own_of(cx, *r)?,
            r.as_u32(),
            rank - 1,
            rank - 1
        );
    }
    let iters = if op.opcode == Opcode::Loop {
        let (trips, cond) = crate::rust::control::loop_bounds(e, cx, op)?;
        s += &format!("        let (trips, mut cond, mut iter) = ({trips}, {cond}, 0i64);\n        while iter < trips && cond {{\n");
        s += &format!("        k::rt::fit(&mut self.{}, 1)[0] = iter;\n", own_of(&sub, body.params[0])?);
        s += &format!("        k::rt::fit(&mut self.{}, 1)[0] = cond;\n", own_of(&sub, body.params[1])?);
        "iter".to_string()
    } else {
        scan_head(e, cx, &sub, id, carried, &mut s)?
    };
    s += &region_code(e, cx, plan)?;
    if op.opcode == Opcode::Loop {
        s += &format!("        cond = ({})[0];\n", value_expr(e, &sub, body.results[0], None)?);
    }
    // Scan outputs first: they may be views of the carried state the
    // carried copies then overwrite.
    for (r, y) in &scans {
        let x = value_expr(e, &sub, *y, None)?;
        s += &format!("        self.{}.extend_from_slice({x});\n", own_of(cx, *r)?);
        s += &format!("        e{} = {};\n", r.as_u32(), Sz::array(&dims(*y)));
    }
    let mut moves = Vec::new();
    for j in 0..carried {
        let y = body.results[usize::from(first > 0) + j];
        let code = set_shape(&sub, op.results[j], y) + &copy_own(e, &sub, y, cx, op.results[j])?;
        moves.push((own_of(cx, op.results[j])?, format!("s{}", op.results[j].as_u32()), code));
    }
    s += &sequential_moves(moves)?;
    s += if op.opcode == Opcode::Loop { "        iter += 1;\n        }\n" } else { "        }\n" };
    let out_dirs = op.attrs.ints("scan_output_directions").unwrap_or(&[]);
    for (k, (r, _)) in scans.iter().enumerate() {
        if op.opcode == Opcode::Scan && out_dirs.get(k) == Some(&1) {
            let own = own_of(cx, *r)?;
            s += &format!("        k::rt::reverse_chunks(&mut self.{own}, e{}.iter().product());\n", r.as_u32());
        }
    }
    for (r, _) in &scans {
        if cx.f.ty(*r).shape.static_dims().is_none() {
            let rank = cx.f.ty(*r).rank().unwrap_or(1);
            let elems: Vec<String> = (0..rank - 1).map(|k| format!("e{}[{k}]", r.as_u32())).collect();
            let n = if op.opcode == Opcode::Loop { "iter as usize".to_string() } else { iters.clone() };
            s += &format!("        s{} = [{n}, {}];\n", r.as_u32(), elems.join(", "));
        }
    }
    Ok(format!("        {{\n{s}        }}\n"))
}

/// The `for` head of a Scan: the scan length, then each scan input's slice
/// copied into its body parameter. Returns the length's expression.
fn scan_head<'a>(
    e: &mut Emitter<'a>,
    cx: &FuncCx<'a>,
    sub: &FuncCx<'a>,
    id: OpId,
    n: usize,
    s: &mut String,
) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let a = &op.attrs;
    let nonzero = |k: &str| a.ints(k).unwrap_or(&[]).iter().any(|&x| x != 0);
    if nonzero("scan_input_axes") || nonzero("scan_output_axes") {
        // `canonicalize` moves scan axes to 0 wherever the ranks are known.
        return Err("Scan along axes other than 0 on values of unknown rank is not supported".into());
    }
    let dirs = a.ints("scan_input_directions").unwrap_or(&[]).to_vec();
    let dims = |v: Value| cx.dy.and_then(|d| d.dims.get(&v)).cloned().unwrap_or_default();
    let first = op.operand(n).ok_or("Scan without scan inputs")?;
    let len = dims(first).first().cloned().ok_or("Scan input of rank 0")?;
    *s += &format!("        let scan_len = {len};\n        for it in 0..scan_len {{\n");
    for q in n..op.operands.len() {
        let src = op.operand(q).ok_or("Scan input missing")?;
        let c = chunk(&dims(src));
        let pos = if dirs.get(q - n).copied().unwrap_or(0) == 1 { "(scan_len - 1 - it)" } else { "it" };
        let x = value_expr(e, cx, src, None)?;
        let field = own_of(sub, op.regions[0].params[q])?;
        *s += &format!(
            "        k::rt::fit(&mut self.{field}, {c}).copy_from_slice(&({x})[{pos} * {c}..({pos} + 1) * {c}]);\n"
        );
    }
    Ok("scan_len".into())
}

/// The classes of the own buffers of `f` under `plan` (and its regions'), by field.
pub fn own_buffers(f: &ir::Function, plan: &Plan, out: &mut std::collections::BTreeMap<String, Class>) {
    for (&v, s) in &plan.storage {
        if let Storage::Own(o) = s {
            if *o == v {
                out.insert(own_field(f, v), Class::of(f.ty(v).dtype).unwrap_or(Class::F32));
            }
        }
    }
    for subs in plan.regions.values() {
        for p in subs {
            own_buffers(f, p, out);
        }
    }
}
