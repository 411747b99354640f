//! Data movement: Transpose, Concat, Split, Slice, Pad, Expand, Tile,
//! DepthToSpace/SpaceToDepth, CenterCropPad (a Pad with negative, cropping,
//! or positive pads), ReverseSequence (`k::conv::col2im`), and the shape
//! queries Shape and Size. (Reshape, Squeeze, Unsqueeze and Flatten are
//! views: no code.) Parameters are resolved here from shapes and constant
//! operands when those are known, else read when the model runs.

use super::{axis, call_x_out, const_ints, dims, index_operand, try_line, udims, value_lit, Sz};
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a data-movement op; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    let op = cx.op;
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    match op.opcode {
        Transpose => {
            let perm: Vec<usize> = match op.attrs.ints("perm") {
                Some(p) => p.iter().map(|&a| axis(a, xs.len())).collect::<Result<_, _>>()?,
                None => (0..xs.len()).rev().collect(),
            };
            call_x_out(cx, &format!("k::layout::transpose({}, &{perm:?}, ", dims(&xs)))?;
        }
        Concat => {
            let a = axis(op.attrs.int("axis").unwrap_or(0), ys.len())?;
            let out = cx.begin(0);
            let mut parts = Vec::new();
            for i in 0..op.operands.len() {
                let s = dims(&cx.in_dims(i));
                parts.push(format!("({s}, {})", cx.input(i)?));
            }
            cx.line(format!("k::layout::concat({a}, &[{}], {}, {out});", parts.join(", "), dims(&ys)));
        }
        Split => split(cx, &xs)?,
        Slice | CoreSlice => slice(cx, &xs)?,
        Pad => pad(cx, &xs)?,
        Expand | CoreExpand => {
            let out = cx.begin(0);
            let x = cx.input(0)?;
            cx.line(format!("k::layout::expand({}, {x}, {}, {out});", dims(&xs), dims(&ys)));
        }
        Tile => {
            let reps: Vec<Sz> = match cx.in_const(1).and_then(|c| c.to_i64s()) {
                Some(r) => r.iter().map(|&r| Sz::Lit(r.max(0) as usize)).collect(),
                None => xs.iter().zip(&ys).map(|(x, y)| y / x).collect(),
            };
            call_x_out(cx, &format!("k::layout::tile({}, {}, ", dims(&xs), dims(&reps)))?;
        }
        DepthToSpace => {
            let b = op.attrs.int("blocksize").unwrap_or(1);
            let mode = if op.attrs.str("mode") == Some("CRD") { "Crd" } else { "Dcr" };
            call_x_out(
                cx,
                &format!("k::layout::depth_to_space({}, {b}, k::layout::DepthToSpace::{mode}, ", dims(&xs)),
            )?;
        }
        SpaceToDepth => {
            let b = op.attrs.int("blocksize").unwrap_or(1);
            call_x_out(cx, &format!("k::layout::space_to_depth({}, {b}, ", dims(&xs)))?;
        }
        Shape | Size => known(cx)?,
        CenterCropPad => center_crop_pad(cx)?,
        ReverseSequence => reverse_sequence(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn split(cx: &mut OpCx<'_, '_>, xs: &[Sz]) -> Result<(), String> {
    let a = axis(cx.op.attrs.int("axis").unwrap_or(0), xs.len())?;
    let mut start = Sz::Lit(0);
    for j in 0..cx.op.results.len() {
        let len = cx.out_dims(j)[a].clone();
        let out = cx.begin(j);
        let x = cx.input(0)?;
        cx.line(format!("k::layout::split_part({a}, {}, {x}, {start}, {len}, {out});", dims(xs)));
        start = &start + &len;
    }
    Ok(())
}

/// Element `j` of integer operand `i` as an `i64` expression: a literal
/// for a constant, a read of the operand when the model runs otherwise.
fn int_at(cx: &mut OpCx<'_, '_>, i: usize, j: usize) -> Result<String, String> {
    if let Some(v) = cx.in_const(i).and_then(|c| c.to_i64s()) {
        return v.get(j).map(|x| x.to_string()).ok_or_else(|| format!("operand #{i} has no element {j}"));
    }
    Ok(format!("(({})[{j}] as i64)", cx.input(i)?))
}

/// Every element of integer operand `i` (its length static) as an `i64`
/// expression (see [`int_at`]); `what` names it in the error.
fn int_list(cx: &mut OpCx<'_, '_>, i: usize, what: &str) -> Result<Vec<String>, String> {
    let n = cx
        .op
        .operand(i)
        .and_then(|v| cx.func().ty(v).shape.num_elements())
        .ok_or(format!("{} {what} must have a static length", cx.op.opcode.name()))?;
    (0..n as usize).map(|j| int_at(cx, i, j)).collect()
}

/// Slice ranges per axis from the op's constant operands or attributes
/// (resolved now when the sizes are known), else computed when the model runs.
fn slice(cx: &mut OpCx<'_, '_>, xs: &[Sz]) -> Result<(), String> {
    let op = cx.op;
    let out = cx.begin(0);
    let (starts, ends, axes, steps): (Vec<String>, Vec<String>, Vec<i64>, Vec<i64>) = if op.opcode == Opcode::CoreSlice
    {
        let g = |k: &str| op.attrs.ints(k).map(<[i64]>::to_vec).ok_or(format!("core.slice without `{k}`"));
        let strs = |v: Vec<i64>| v.iter().map(i64::to_string).collect();
        (strs(g("starts")?), strs(g("ends")?), g("axes")?, g("steps")?)
    } else {
        let s = int_list(cx, 1, "starts")?;
        let e = int_list(cx, 2, "ends")?;
        let konst = |cx: &OpCx<'_, '_>, i: usize| op.operand(i).is_none() || cx.in_const(i).is_some();
        if !konst(cx, 3) || !konst(cx, 4) {
            return slice_rt_axes(cx, xs, &out, (&s, &e));
        }
        let axes = if op.operand(3).is_some() { const_ints(cx, 3)? } else { (0..s.len() as i64).collect() };
        let steps = if op.operand(4).is_some() { const_ints(cx, 4)? } else { vec![1; s.len()] };
        (s, e, axes, steps)
    };
    let mut ranges: Vec<String> =
        xs.iter().map(|d| format!("k::layout::SliceAxis {{ start: 0, step: 1, len: {d} }}")).collect();
    for (i, &a) in axes.iter().enumerate() {
        let a = axis(a, xs.len())?;
        if steps[i] == 0 {
            return Err("Slice with step 0".into());
        }
        ranges[a] = match (xs[a].lit(), starts[i].parse::<i64>(), ends[i].parse::<i64>()) {
            (Some(d), Ok(s), Ok(e)) => {
                let r = edgec_kernels::layout::slice_axis(d, s, e, steps[i]);
                format!("k::layout::SliceAxis {{ start: {}, step: {}, len: {} }}", r.start, r.step, r.len)
            }
            _ => format!("k::layout::slice_axis({}, {}, {}, {})", xs[a], starts[i], ends[i], steps[i]),
        };
    }
    let c = cx.item(&format!("[k::layout::SliceAxis; {}]", ranges.len()), format!("[{}]", ranges.join(", ")));
    let x = cx.input(0)?;
    cx.line(format!("k::layout::slice({}, &{c}, {x}, {out});", dims(xs)));
    Ok(())
}

/// A Slice whose axes or steps are read when the model runs: the ranges
/// come from `k::shape::slice_ranges`, which checks them.
fn slice_rt_axes(cx: &mut OpCx<'_, '_>, xs: &[Sz], out: &str, (s, e): (&[String], &[String])) -> Result<(), String> {
    let opt = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
        if cx.op.operand(i).is_none() {
            return Ok("None".into());
        }
        Ok(format!("Some(&[{}])", int_list(cx, i, "axes/steps")?.join(", ")))
    };
    let (axes, steps) = (opt(cx, 3)?, opt(cx, 4)?);
    let what = format!("{} {}", cx.op.opcode.name(), cx.op.loc);
    let r = xs.len();
    let call = format!(
        "k::shape::slice_ranges::<{r}>({what:?}, {}, &[{}], &[{}], {axes}, {steps})",
        dims(xs),
        s.join(", "),
        e.join(", ")
    );
    let ranges = super::try_expr(cx, call);
    cx.line(format!("let ranges = {ranges};"));
    let x = cx.input(0)?;
    cx.line(format!("k::layout::slice({}, &ranges, {x}, {out});", dims(xs)));
    Ok(())
}

fn pad(cx: &mut OpCx<'_, '_>, xs: &[Sz]) -> Result<(), String> {
    let op = cx.op;
    let r = xs.len();
    let out = cx.begin(0);
    let p = int_list(cx, 1, "pads")?;
    let (begin, end) = if op.operand(3).is_some() && cx.in_const(3).is_none() {
        // Axes read when the model runs.
        let ax = int_list(cx, 3, "axes")?;
        let what = format!("{} {}", op.opcode.name(), op.loc);
        let call = format!(
            "k::shape::pad_amounts::<{r}>({what:?}, {}, &[{}], Some(&[{}]))",
            dims(xs),
            p.join(", "),
            ax.join(", ")
        );
        let amounts = super::try_expr(cx, call);
        cx.line(format!("let (pb, pe, _) = {amounts};"));
        ((0..r).map(|k| format!("pb[{k}]")).collect(), (0..r).map(|k| format!("pe[{k}]")).collect())
    } else {
        let axes: Vec<usize> = if op.operand(3).is_some() {
            const_ints(cx, 3)?.iter().map(|&a| axis(a, r)).collect::<Result<_, _>>()?
        } else {
            (0..r).collect()
        };
        let pads: Vec<String> =
            p.into_iter().map(|p| if p.parse::<i64>().is_ok() { p } else { format!("{p} as isize") }).collect();
        let n = axes.len();
        if pads.len() != 2 * n {
            return Err(format!("Pad has {} pads for {n} axes", pads.len()));
        }
        let (mut begin, mut end) = (vec!["0".to_string(); r], vec!["0".to_string(); r]);
        for (i, &a) in axes.iter().enumerate() {
            (begin[a], end[a]) = (pads[i].clone(), pads[i + n].clone());
        }
        (begin, end)
    };
    let value = match op.operand(2) {
        None => cx.out_class(0).literal(0.0),
        Some(_) => match cx.in_const(2).and_then(|c| c.to_f64s()) {
            Some(v) => cx.out_class(0).literal(v.first().copied().unwrap_or(0.0)),
            None => format!("({})[0]", cx.input(2)?),
        },
    };
    let mode = match op.attrs.str("mode").unwrap_or("constant") {
        "reflect" => "Reflect".to_string(),
        "edge" => "Edge".to_string(),
        "wrap" => "Wrap".to_string(),
        _ => format!("Constant({value})"),
    };
    let x = cx.input(0)?;
    cx.line(format!(
        "k::layout::pad({}, &[{}], &[{}], k::layout::PadMode::{mode}, {x}, {out});",
        dims(xs),
        begin.join(", "),
        end.join(", ")
    ));
    Ok(())
}

/// Shape and Size, whose result follows from shapes: written once per run.
fn known(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let class = cx.out_class(0);
    let as_int = |d: &Sz| match d {
        Sz::Lit(n) => n.to_string(),
        e => format!("{e} as {}", class.rust()),
    };
    let values: Vec<String> = match op.opcode {
        Opcode::Shape => {
            let d = cx.in_dims(0);
            let r = d.len() as i64;
            let clamp = |x: i64| (if x < 0 { x + r } else { x }).clamp(0, r) as usize;
            let (s, e) = (clamp(op.attrs.int("start").unwrap_or(0)), clamp(op.attrs.int("end").unwrap_or(r)));
            d[s..e.max(s)].iter().map(as_int).collect()
        }
        Opcode::Size => vec![as_int(&Sz::product(&cx.in_dims(0)))],
        _ => return Err(format!("{} with non-constant operands is not supported", op.opcode.name())),
    };
    let out = cx.begin(0);
    cx.line(format!("{out}.copy_from_slice(&[{}]);", values.join(", ")));
    Ok(())
}

/// CenterCropPad as a Pad with negative (cropping) or positive pads.
fn center_crop_pad(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    if xs.len() != ys.len() {
        return Err(format!("CenterCropPad: output {} for input {}", Sz::array(&ys), Sz::array(&xs)));
    }
    let zero = value_lit(cx.out_class(0), 0.0);
    let (Some(xs), Some(ys)) = (Sz::all_lit(&xs), Sz::all_lit(&ys)) else {
        return center_crop_pad_runtime(cx, &xs, &ys, &zero);
    };
    let (mut begin, mut end) = (vec![0isize; xs.len()], vec![0isize; xs.len()]);
    for (a, (&n, &s)) in xs.iter().zip(&ys).enumerate() {
        let (n, s) = (n as isize, s as isize);
        begin[a] = if s < n { -((n - s) / 2) } else { (s - n) / 2 };
        end[a] = s - n - begin[a];
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!(
        "k::layout::pad({}, &{begin:?}, &{end:?}, k::layout::PadMode::Constant({zero}), {x}, {out});",
        udims(&xs)
    ));
    Ok(())
}

/// CenterCropPad with sizes known when the model runs: the same pads,
/// computed then (`(begin, end)` of an axis of `n` cropped or padded to `s`).
fn center_crop_pad_runtime(cx: &mut OpCx<'_, '_>, xs: &[Sz], ys: &[Sz], zero: &str) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(
        "let cp = |n: usize, s: usize| { let (n, s) = (n as isize, s as isize); let b = if s < n { -((n - s) / 2) } else { (s - n) / 2 }; (b, s - n - b) };"
            .into(),
    );
    let pads: Vec<String> = xs.iter().zip(ys).map(|(n, s)| format!("cp({n}, {s})")).collect();
    cx.line(format!("let pads = [{}];", pads.join(", ")));
    cx.line("let (begin, end) = (pads.map(|p| p.0), pads.map(|p| p.1));".into());
    cx.line(format!("k::layout::pad({}, &begin, &end, k::layout::PadMode::Constant({zero}), {x}, {out});", dims(xs)));
    Ok(())
}

/// ReverseSequence; over run-time sizes the kernel checks the lengths
/// against the batch and time dims when the model runs.
fn reverse_sequence(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    index_operand(cx, 1, "sequence_lens")?;
    let xs = cx.in_dims(0);
    if xs.len() < 2 {
        return Err(format!("ReverseSequence: the input {} needs rank >= 2", Sz::array(&xs)));
    }
    let b = axis(cx.op.attrs.int("batch_axis").unwrap_or(1), xs.len())?;
    let t = axis(cx.op.attrs.int("time_axis").unwrap_or(0), xs.len())?;
    if b == t {
        return Err("ReverseSequence: batch_axis and time_axis must differ".into());
    }
    let out = cx.begin(0);
    let (x, l) = (cx.input(0)?, cx.input(1)?);
    if Sz::all_lit(&xs).is_some() {
        cx.line(format!("k::layout::reverse_sequence({}, {b}, {t}, {l}, {x}, {out});", dims(&xs)));
    } else {
        let what = format!("ReverseSequence [{}]", cx.op.loc);
        let call = format!("k::layout::reverse_sequence_checked({what:?}, {}, ({b}, {t}), {l}, {x}, {out})", dims(&xs));
        try_line(cx, call);
    }
    Ok(())
}
