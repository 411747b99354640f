//! Control flow: `onnx.If` (a Rust `if` over its two regions),
//! `onnx.Loop` (a `while` over its body with loop-carried values; scan
//! outputs are not supported) and `onnx.Scan` (a `for` over the scan axis 0
//! in either direction: states carried through the results, slices copied
//! in and out). Region values live in the arena above the
//! enclosing plan's buffers (see [`crate::plan`]); results and carried values
//! are copied between the regions and the op's result buffers.

use super::emit::{arena_region, describe, region, value_expr, Emitter, FuncCx};
use ir::{OpId, Opcode, Value};

/// Lower a control-flow op of `cx`'s function.
pub fn lower<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, id: OpId) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let plan: &'a crate::plan::Plan = cx.plan;
    let subs: &'a [crate::plan::Plan] = plan.regions.get(&id).ok_or("internal: region not planned")?;
    let header = format!("        // {}\n", describe(op, cx.f));
    let body = match op.opcode {
        Opcode::If => if_(e, cx, id, subs)?,
        Opcode::Loop => loop_(e, cx, id, subs)?,
        Opcode::Scan => scan(e, cx, id, subs)?,
        other => return Err(format!("{} is not supported by the Rust backend yet", other.name())),
    };
    Ok(header + &body)
}

/// Code of region `k` of `id` (its ops, with the sub-plan).
fn region_code<'a>(
    e: &mut Emitter<'a>,
    cx: &FuncCx<'a>,
    id: OpId,
    k: usize,
    plan: &'a crate::plan::Plan,
) -> Result<String, String> {
    let sub =
        FuncCx { f: cx.f, plan, base: Default::default(), const_base: cx.const_base.clone(), hoist: false, dy: None };
    let mut s = String::new();
    for &op in &plan.schedule {
        s += &e.op(&sub, op)?;
    }
    let _ = (id, k);
    Ok(s)
}

/// `dst[..] = src[..]` for same-typed values, `src` seen from `from`, `dst` an arena region.
fn copy(
    e: &mut Emitter<'_>,
    from: &FuncCx<'_>,
    src: Value,
    dst: (crate::plan::Class, usize, usize),
) -> Result<String, String> {
    let (class, off, len) = dst;
    if arena_region(from, src) == Some(dst) {
        return Ok(String::new());
    }
    let x = value_expr(e, from, src, Some(class))?;
    Ok(format!(
        "        {{\n            let (r, out) = carve(&mut self.a{}, {});\n            out.copy_from_slice({x});\n        }}\n",
        class.suffix(),
        region(off, len)
    ))
}

fn result_region(cx: &FuncCx<'_>, v: Value) -> Result<(crate::plan::Class, usize, usize), String> {
    arena_region(cx, v).ok_or_else(|| "control-flow results must live in the arena".to_string())
}

fn if_<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, id: OpId, subs: &'a [crate::plan::Plan]) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let cond = value_expr(e, cx, op.operand(0).ok_or("If without a condition")?, None)?;
    let mut branches = Vec::new();
    for (k, plan) in subs.iter().enumerate() {
        let mut code = region_code(e, cx, id, k, plan)?;
        let sub = FuncCx {
            f: cx.f,
            plan,
            base: Default::default(),
            const_base: cx.const_base.clone(),
            hoist: false,
            dy: None,
        };
        for (&y, &r) in op.regions[k].results.iter().zip(&op.results) {
            code += &copy(e, &sub, y, result_region(cx, r)?)?;
        }
        branches.push(code);
    }
    Ok(format!("        if ({cond})[0] {{\n{}        }} else {{\n{}        }}\n", branches[0], branches[1]))
}

fn loop_<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, id: OpId, subs: &'a [crate::plan::Plan]) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let (body, plan) = (&op.regions[0], &subs[0]);
    let carried = op.operands.len().saturating_sub(2);
    if op.results.len() != carried {
        return Err("Loop scan outputs are not supported by the Rust backend yet".into());
    }
    let sub =
        FuncCx { f: cx.f, plan, base: Default::default(), const_base: cx.const_base.clone(), hoist: false, dy: None };
    let mut s = String::new();
    for j in 0..carried {
        let init = op.operand(2 + j).ok_or("Loop without an initial value")?;
        s += &copy(e, cx, init, result_region(cx, op.results[j])?)?;
    }
    let (trips, cond) = loop_bounds(e, cx, op)?;
    s += &format!(
        "        let (trips, mut cond, mut iter) = ({trips}, {cond}, 0i64);\n        while iter < trips && cond {{\n"
    );
    let param = |i: usize| arena_region(&sub, body.params[i]).ok_or("Loop parameters must live in the arena");
    let (ic, ioff, _) = param(0)?;
    let (cc, coff, _) = param(1)?;
    s += &format!("        self.a{}[{ioff}] = iter;\n        self.a{}[{coff}] = cond;\n", ic.suffix(), cc.suffix());
    for j in 0..carried {
        s += &copy(e, &sub, op.results[j], param(2 + j)?)?;
    }
    s += &region_code(e, cx, id, 0, plan)?;
    let ycond = value_expr(e, &sub, body.results[0], None)?;
    s += &format!("        cond = ({ycond})[0];\n");
    for j in 0..carried {
        s += &copy(e, &sub, body.results[1 + j], result_region(cx, op.results[j])?)?;
    }
    s += "        iter += 1;\n        }\n";
    Ok(format!("        {{\n{s}        }}\n"))
}

/// `dst[dst_at .. dst_at + len] = src[src_at .. src_at + len]` with run-time
/// offsets (`it`-dependent expressions), `dst` in the arena.
fn copy_slice(
    e: &mut Emitter<'_>,
    from: &FuncCx<'_>,
    src: (Value, String),
    dst: (crate::plan::Class, String),
    len: usize,
) -> Result<String, String> {
    let ((v, src_at), (class, dst_at)) = (src, dst);
    let x = value_expr(e, from, v, Some(class))?;
    Ok(format!(
        "        {{\n            let (r, out) = carve(&mut self.a{}, Region::new({dst_at}, {len}));\n            let _ = &r;\n            out.copy_from_slice(&({x})[{src_at}..{src_at} + {len}]);\n        }}\n",
        class.suffix()
    ))
}

/// Position of iteration `it` along a scan axis of `len` (reversed for direction 1).
fn scan_pos(dirs: &[i64], k: usize, len: usize) -> String {
    if dirs.get(k).copied().unwrap_or(0) == 1 {
        format!("({} - it)", len - 1)
    } else {
        "it".into()
    }
}

fn scan<'a>(e: &mut Emitter<'a>, cx: &FuncCx<'a>, id: OpId, subs: &'a [crate::plan::Plan]) -> Result<String, String> {
    let op = &cx.f.ops[id];
    let (body, plan) = (&op.regions[0], &subs[0]);
    let a = &op.attrs;
    let m = a.int("num_scan_inputs").unwrap_or(0).max(0) as usize;
    let n = op.operands.len().checked_sub(m).ok_or("Scan: num_scan_inputs exceeds the operands")?;
    let nonzero = |k: &str| a.ints(k).unwrap_or(&[]).iter().any(|&x| x != 0);
    if nonzero("scan_input_axes") || nonzero("scan_output_axes") {
        return Err("Scan along axes other than 0 is not supported by the Rust backend yet".into());
    }
    let (in_dirs, out_dirs) =
        (a.ints("scan_input_directions").unwrap_or(&[]), a.ints("scan_output_directions").unwrap_or(&[]));
    let first = op.operand(n).ok_or("Scan without scan inputs")?;
    let len = cx.f.ty(first).shape.static_dims().and_then(|d| d.first().copied()).ok_or("Scan length must be static")?
        as usize;
    let sub =
        FuncCx { f: cx.f, plan, base: Default::default(), const_base: cx.const_base.clone(), hoist: false, dy: None };
    let param = |i: usize| arena_region(&sub, body.params[i]).ok_or("Scan body parameters must live in the arena");
    let mut s = String::new();
    for j in 0..n {
        let init = op.operand(j).ok_or("Scan without an initial state")?;
        s += &copy(e, cx, init, result_region(cx, op.results[j])?)?;
    }
    s += &format!("        for it in 0..{len}usize {{\n");
    for j in 0..n {
        s += &copy(e, &sub, op.results[j], param(j)?)?;
    }
    for q in 0..m {
        let (class, off, chunk) = param(n + q)?;
        let at = format!("{} * {chunk}", scan_pos(in_dirs, q, len));
        let src = op.operand(n + q).ok_or("Scan input missing")?;
        s += &copy_slice(e, cx, (src, at), (class, off.to_string()), chunk)?;
    }
    s += &region_code(e, cx, id, 0, plan)?;
    for j in 0..n {
        s += &copy(e, &sub, body.results[j], result_region(cx, op.results[j])?)?;
    }
    for (k, (&y, &r)) in body.results[n..].iter().zip(&op.results[n..]).enumerate() {
        let (class, off, total) = result_region(cx, r)?;
        let chunk = total / len.max(1);
        let at = format!("{off} + {} * {chunk}", scan_pos(out_dirs, k, len));
        s += &copy_slice(e, &sub, (y, "0".into()), (class, at), chunk)?;
    }
    s += "        }\n";
    Ok(format!("        {{\n{s}        }}\n"))
}

/// A Loop's trip count and initial condition as expressions (`i64::MAX` and
/// `true` where the operand is omitted).
pub fn loop_bounds(e: &mut Emitter<'_>, cx: &FuncCx<'_>, op: &ir::OpData) -> Result<(String, String), String> {
    let trips = match op.operand(0) {
        Some(m) => format!("({})[0]", value_expr(e, cx, m, None)?),
        None => "i64::MAX".into(),
    };
    let cond = match op.operand(1) {
        Some(c) => format!("({})[0]", value_expr(e, cx, c, None)?),
        None => "true".into(),
    };
    Ok((trips, cond))
}
