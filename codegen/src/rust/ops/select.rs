//! Ops whose result depends on comparing the data: TopK
//! (`k::select::top_k`), and those whose result size depends on the data
//! (NonZero, Compress, Unique, NonMaxSuppression), lowered to
//! `k::select::dynamic` and `k::select::nms`.
//!
//! The size of such a result is a shape variable the op assigns when it
//! runs (`shapes::ShapeCx::counted`): a first block computes the count,
//! the result's block (its own buffer sized by then) writes the data. A
//! size the model declares static is checked against the count instead, an
//! error naming the op (these ops always sit in functions that return a
//! `Result`, see `shapes::has_runtime_shape_operands`; elsewhere the error
//! is a panic with the same message).

use super::{axis, dims, try_expr, try_line, used, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower NonZero, Compress, Unique, NonMaxSuppression or TopK; `Ok(false)`
/// otherwise.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::NonZero => nonzero(cx)?,
        Opcode::Compress => compress(cx)?,
        Opcode::Unique => unique(cx)?,
        Opcode::NonMaxSuppression => nms(cx)?,
        Opcode::TopK => top_k(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Fail unless operand `i` is of `class`.
fn want(cx: &OpCx<'_, '_>, i: usize, class: Class, what: &str) -> Result<(), String> {
    match cx.in_class(i) {
        Some(c) if c == class => Ok(()),
        _ => Err(format!("{}: {what} must be {}", cx.op.opcode.name(), class.name())),
    }
}

/// Fail on element types the data-dependent kernels do not take.
fn plain(cx: &OpCx<'_, '_>, i: usize) -> Result<(), String> {
    match cx.in_class(i) {
        Some(c) if c.is_float() || c.is_int() || c == Class::Bool => Ok(()),
        _ => Err(format!("{} on this element type is not supported", cx.op.opcode.name())),
    }
}

/// Record the count `n` (a `usize` expression of the current block) as the
/// data-dependent dim `d` of a result: assigned to its shape variable, or
/// checked against the size the model declares.
fn set_count(cx: &mut OpCx<'_, '_>, d: &Sz, n: &str, op: &str, what: &str) {
    match d {
        Sz::Lit(want) => try_line(cx, format!("k::rt::check_count({op:?}, {what:?}, {n}, {want})")),
        Sz::Expr(e) => cx.line(format!("{e} = {n};")),
    }
}

fn nonzero(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    plain(cx, 0)?;
    let xs = cx.in_dims(0);
    let ys = cx.out_dims(0);
    let [rank, count] = &ys[..] else { return Err(format!("NonZero: result {ys:?} is not [rank, count]")) };
    if !rank.is(xs.len()) {
        return Err(format!("NonZero: result {ys:?} for an input of rank {}", xs.len()));
    }
    // A declared count is checked by the kernel itself.
    if let Sz::Expr(_) = count {
        cx.begin_none();
        let x = cx.input(0)?;
        set_count(cx, count, &format!("k::select::dynamic::nonzero_count({x})"), "NonZero", "non-zero elements");
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    try_line(cx, format!("k::select::dynamic::nonzero({}, {x}, {count}, {out})", dims(&xs)));
    Ok(())
}

fn compress(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    plain(cx, 1)?;
    let xs = cx.in_dims(0);
    let ys = cx.out_dims(0);
    let (outer, n, inner, kept) = match cx.op.attrs.int("axis") {
        Some(a) => {
            let a = axis(a, xs.len())?;
            let kept = ys.get(a).cloned().ok_or("Compress: result rank")?;
            (Sz::product(&xs[..a]), xs[a].clone(), Sz::product(&xs[a + 1..]), kept)
        }
        None => (Sz::Lit(1), Sz::product(&xs), Sz::Lit(1), ys.first().cloned().ok_or("Compress: result rank")?),
    };
    let p = format!("k::select::dynamic::Compress {{ outer: {outer}, n: {n}, inner: {inner} }}");
    if let Sz::Expr(_) = kept {
        cx.begin_none();
        let c = cx.input(1)?;
        let n = try_expr(cx, format!("k::select::dynamic::compress_count(&{p}, {c})"));
        set_count(cx, &kept, &n, "Compress", "kept slices");
    }
    let out = cx.begin(0);
    let (x, c) = (cx.input(0)?, cx.input(1)?);
    try_line(cx, format!("k::select::dynamic::compress(&{p}, {c}, {x}, {kept}, {out})"));
    Ok(())
}

fn unique(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    plain(cx, 0)?;
    if cx.in_class(0) == Some(Class::Bool) {
        return Err("Unique on bool is not supported".into());
    }
    let xs = cx.in_dims(0);
    let sorted = cx.op.attrs.int("sorted").unwrap_or(1) != 0;
    let (outer, n, inner, ax) = match cx.op.attrs.int("axis") {
        Some(a) => {
            let a = axis(a, xs.len())?;
            (Sz::product(&xs[..a]), xs[a].clone(), Sz::product(&xs[a + 1..]), a)
        }
        None => (Sz::Lit(1), Sz::product(&xs), Sz::Lit(1), 0),
    };
    // The number of distinct items, as dim `ax` of Y and dim 0 of indices
    // and counts (the inverse indices have one per item), by result.
    let counts: Vec<(usize, Sz)> = [(0, ax), (1, 0), (3, 0)]
        .iter()
        .filter(|&&(j, _)| j < cx.op.results.len())
        .filter_map(|&(j, k)| cx.out_dims(j).get(k).map(|d| (j, d.clone())))
        .collect();
    let p = format!("k::select::dynamic::Unique {{ outer: {outer}, n: {n}, inner: {inner}, sorted: {sorted} }}");
    let f = cx.field("Vec<usize>", "Vec::new()".into());
    let groups = |cx: &mut OpCx<'_, '_>| -> Result<(), String> {
        let x = cx.input(0)?;
        cx.line(format!("k::rt::grow(&mut self.{f}, k::select::dynamic::unique_scratch_len({n}));"));
        cx.line(format!("let u = k::select::dynamic::unique_groups(&{p}, {x}, &mut self.{f});"));
        Ok(())
    };
    // Counts known only now: grouped first, the results sized from them.
    let counted = counts.iter().any(|(_, d)| matches!(d, Sz::Expr(_)));
    if counted {
        cx.begin_none();
        groups(cx)?;
        for (_, d) in &counts {
            set_count(cx, d, "u", "Unique", "distinct items");
        }
    }
    let mut first = !counted;
    for j in 0..4 {
        if !used(cx, j) {
            continue;
        }
        if j > 0 && cx.out_class(j) != Class::I64 {
            return Err("Unique: the index results must be i64".into());
        }
        let out = cx.begin(j);
        if first {
            groups(cx)?;
            // The declared number of distinct items (not needed when only the
            // inverse indices, one per item, are used).
            if let Some((_, u)) = counts.iter().find(|(j, _)| used(cx, *j)) {
                try_line(cx, format!("k::rt::check_count(\"Unique\", \"distinct items\", u, {u})"));
            }
            first = false;
        }
        match j {
            0 => {
                let x = cx.input(0)?;
                let u = if counted { counts[0].1.to_string() } else { "u".into() };
                cx.line(format!("k::select::dynamic::unique_values(&{p}, {x}, &self.{f}, {u}, {out});"));
            }
            1 => cx.line(format!("k::select::dynamic::unique_indices({n}, &self.{f}, {out});")),
            2 => cx.line(format!("k::select::dynamic::unique_inverse({n}, &self.{f}, {out});")),
            _ => cx.line(format!("k::select::dynamic::unique_counts({n}, &self.{f}, {out});")),
        }
    }
    Ok(())
}

fn nms(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    want(cx, 0, Class::F32, "boxes")?;
    want(cx, 1, Class::F32, "scores")?;
    let (bs, ss) = (cx.in_dims(0), cx.in_dims(1));
    if bs.len() != 3 || ss.len() != 3 || bs[2] != Sz::Lit(4) {
        return Err("NonMaxSuppression: boxes must be [batches, boxes, 4] and scores [batches, classes, boxes]".into());
    }
    let selected = cx.out_dims(0).first().cloned().ok_or("NonMaxSuppression: result rank")?;
    let center = cx.op.attrs.int("center_point_box").unwrap_or(0) != 0;
    let p = format!(
        "k::select::nms::Nms {{ batches: {}, classes: {}, boxes: {}, center_point_box: {center} }}",
        bs[0], ss[1], bs[1]
    );
    let f = cx.field("Vec<usize>", "Vec::new()".into());
    let rows = cx.field("Vec<i64>", "Vec::new()".into());
    cx.begin_none();
    let (b, s) = (cx.input(0)?, cx.input(1)?);
    let opt = |cx: &mut OpCx<'_, '_>, i: usize, class: Class, what: &str| -> Result<Option<String>, String> {
        if cx.op.operand(i).is_none() {
            return Ok(None);
        }
        want(cx, i, class, what)?;
        Ok(Some(format!("{}.first().copied()", cx.input(i)?)))
    };
    let max = opt(cx, 2, Class::I64, "max_output_boxes_per_class")?.map_or("0".into(), |e| format!("{e}.unwrap_or(0)"));
    let iou = opt(cx, 3, Class::F32, "iou_threshold")?.map_or("0.0".into(), |e| format!("{e}.unwrap_or(0.0)"));
    let score = opt(cx, 4, Class::F32, "score_threshold")?.unwrap_or_else(|| "None".into());
    cx.line(format!("let p = {p};"));
    cx.line(format!("let lim = k::select::nms::NmsLimits {{ max_per_class: {max}, iou: {iou}, score: {score} }};"));
    cx.line(format!("k::rt::grow(&mut self.{f}, k::select::nms::nms_scratch_len(&p));"));
    cx.line(format!("k::rt::grow(&mut self.{rows}, k::select::nms::nms_rows_len(&p, &lim));"));
    cx.line(format!("let n = k::select::nms::nms(&p, &lim, {b}, {s}, &mut self.{f}, &mut self.{rows});"));
    set_count(cx, &selected, "n", "NonMaxSuppression", "selected boxes");
    let out = cx.begin(0);
    cx.line(format!("{out}.copy_from_slice(&self.{rows}[..{out}.len()]);"));
    Ok(())
}

fn top_k(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let xs = cx.in_dims(0);
    let a = axis(cx.op.attrs.int("axis").unwrap_or(-1), xs.len())?;
    let k = cx.out_dims(0).get(a).cloned().ok_or("TopK: result rank")?;
    let largest = cx.op.attrs.int("largest").unwrap_or(1) != 0;
    if cx.in_class(0) == Some(Class::Bool) {
        return Err("TopK on bool is not supported".into());
    }
    let p = format!("k::select::top_k::TopK {{ shape: {}, axis: {a}, k: {k}, largest: {largest} }}", dims(&xs));
    // K read when the model runs (or an axis of run-time size): checked first.
    let check = k.lit().is_none() || xs[a].lit().is_none();
    if used(cx, 1) {
        let out = cx.begin(1);
        if check {
            try_line(cx, format!("k::select::top_k::top_k_check(&{p})"));
        }
        let x = cx.input(0)?;
        cx.line(format!("k::select::top_k::top_k_indices(&{p}, {x}, {out});"));
    }
    let out = cx.begin(0);
    if check && !used(cx, 1) {
        try_line(cx, format!("k::select::top_k::top_k_check(&{p})"));
    }
    let x = cx.input(0)?;
    cx.line(format!("k::select::top_k::top_k_values(&{p}, {x}, {out});"));
    Ok(())
}
