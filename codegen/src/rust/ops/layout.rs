//! Data movement: Transpose, Concat, Split, Slice, Gather(Elements), Pad,
//! Expand, Tile, DepthToSpace/SpaceToDepth, and ops whose result is known
//! from shapes (Shape, Size, ConstantOfShape). Parameters are resolved here
//! from shapes and constant operands when those are known, else read when
//! the model runs.

use super::{dims, Sz};
use crate::rust::emit::OpCx;
use ir::{Attr, Opcode};

/// Normalize a possibly negative axis (a scalar takes axis 0).
pub fn axis(a: i64, rank: usize) -> Result<usize, String> {
    crate::rust::shapes::axis(a, rank)
}

/// Integer contents of constant operand `i`.
pub fn const_ints(cx: &OpCx<'_, '_>, i: usize) -> Result<Vec<i64>, String> {
    cx.in_const(i).and_then(|c| c.to_i64s()).ok_or_else(|| format!("operand #{i} must be a constant"))
}

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
            two(cx, &format!("k::layout::transpose({}, &{perm:?}, ", dims(&xs)))?;
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
        Gather | GatherElements => {
            let a = axis(op.attrs.int("axis").unwrap_or(0), xs.len())?;
            let k = if op.opcode == Gather { "gather" } else { "gather_elements" };
            let out = cx.begin(0);
            let (x, idx) = (cx.input(0)?, cx.input(1)?);
            let extra = if op.opcode == GatherElements { format!("{}, ", dims(&cx.in_dims(1))) } else { String::new() };
            cx.line(format!("k::layout::{k}({}, {a}, {x}, {extra}{idx}, {out});", dims(&xs)));
        }
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
            two(cx, &format!("k::layout::tile({}, {}, ", dims(&xs), dims(&reps)))?;
        }
        DepthToSpace => {
            let b = op.attrs.int("blocksize").unwrap_or(1);
            let mode = if op.attrs.str("mode") == Some("CRD") { "Crd" } else { "Dcr" };
            two(cx, &format!("k::layout::depth_to_space({}, {b}, k::layout::DepthToSpace::{mode}, ", dims(&xs)))?;
        }
        SpaceToDepth => {
            let b = op.attrs.int("blocksize").unwrap_or(1);
            two(cx, &format!("k::layout::space_to_depth({}, {b}, ", dims(&xs)))?;
        }
        Shape | Size | ConstantOfShape | Range => known(cx)?,
        CoreWindowPartition | CoreWindowMerge => {
            let merge = op.opcode == CoreWindowMerge;
            let img = if merge { ys.clone() } else { xs.clone() };
            let win: Vec<i64> = op.attrs.ints("window").map(<[i64]>::to_vec).unwrap_or_default();
            let sh: Vec<i64> = op.attrs.ints("shift").map_or(vec![0, 0], <[i64]>::to_vec);
            let [b, h, w, c] =
                img.iter().map(|d| d.lit().ok_or("window ops need static images")).collect::<Result<Vec<_>, _>>()?[..]
            else {
                return Err("window ops take [B, H, W, C] images".into());
            };
            let p = format!(
                "k::layout::Windows {{ b: {b}, h: {h}, w: {w}, c: {c}, wh: {}, ww: {}, sh: {}, sw: {} }}",
                win[0], win[1], sh[0], sh[1]
            );
            let item = cx.item("k::layout::Windows", p);
            let k = if merge { "window_merge" } else { "window_partition" };
            two(cx, &format!("k::layout::{k}(&{item}, "))?;
        }
        _ => return Ok(false),
    }
    Ok(true)
}

/// `prefix x, out)`: the kernels that take one operand and the output.
fn two(cx: &mut OpCx<'_, '_>, prefix: &str) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("{prefix}{x}, {out});"));
    Ok(())
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

/// Ops whose result follows from shapes: written once per run.
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
        Opcode::ConstantOfShape => {
            let n = Sz::product(&cx.out_dims(0));
            let v = match op.attrs.get("value") {
                Some(Attr::Sym(name)) => cx
                    .module()
                    .const_by_name(name)
                    .and_then(|id| cx.module().consts[id].to_f64s())
                    .and_then(|v| v.first().copied())
                    .unwrap_or(0.0),
                _ => 0.0,
            };
            let out = cx.begin(0);
            let lit = class.literal(v);
            cx.line(format!("{out}.fill({lit}); // {n} elements"));
            return Ok(());
        }
        _ => return Err(format!("{} with non-constant operands is not supported", op.opcode.name())),
    };
    let out = cx.begin(0);
    cx.line(format!("{out}.copy_from_slice(&[{}]);", values.join(", ")));
    Ok(())
}
