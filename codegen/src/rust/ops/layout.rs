//! Data movement: Transpose, Concat, Split, Slice, Gather(Elements), Pad,
//! Expand, Tile, DepthToSpace/SpaceToDepth, and ops whose result is known at
//! compile time (Shape, Size, ConstantOfShape, Range of constants). Every
//! parameter is resolved here from static shapes and constant operands.

use super::dims;
use crate::rust::func::OpCx;
use ir::{Attr, Opcode};

/// Normalize a possibly negative axis.
pub fn axis(a: i64, rank: usize) -> Result<usize, String> {
    let r = rank as i64;
    let x = if a < 0 { a + r } else { a };
    if (0..r.max(1)).contains(&x) {
        Ok(x as usize)
    } else {
        Err(format!("axis {a} out of range for rank {rank}"))
    }
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
            let reps: Vec<usize> = const_ints(cx, 1)?.iter().map(|&r| r.max(0) as usize).collect();
            two(cx, &format!("k::layout::tile({}, &{reps:?}, ", dims(&xs)))?;
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
            let [b, h, w, c] = img[..] else { return Err("window ops take [B, H, W, C] images".into()) };
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

fn split(cx: &mut OpCx<'_, '_>, xs: &[usize]) -> Result<(), String> {
    let a = axis(cx.op.attrs.int("axis").unwrap_or(0), xs.len())?;
    let mut start = 0;
    for j in 0..cx.op.results.len() {
        let len = cx.out_dims(j)[a];
        let out = cx.begin(j);
        let x = cx.input(0)?;
        cx.line(format!("k::layout::split_part({a}, {}, {x}, {start}, {len}, {out});", dims(xs)));
        start += len;
    }
    Ok(())
}

/// Slice ranges per axis from the op's constant operands or attributes.
fn slice(cx: &mut OpCx<'_, '_>, xs: &[usize]) -> Result<(), String> {
    let op = cx.op;
    let (starts, ends, axes, steps) = if op.opcode == Opcode::CoreSlice {
        let g = |k: &str| op.attrs.ints(k).map(<[i64]>::to_vec).ok_or(format!("core.slice without `{k}`"));
        (g("starts")?, g("ends")?, g("axes")?, g("steps")?)
    } else {
        let (s, e) = (const_ints(cx, 1)?, const_ints(cx, 2)?);
        let axes = if op.operand(3).is_some() { const_ints(cx, 3)? } else { (0..s.len() as i64).collect() };
        let steps = if op.operand(4).is_some() { const_ints(cx, 4)? } else { vec![1; s.len()] };
        (s, e, axes, steps)
    };
    let mut ranges: Vec<edgec_kernels::layout::SliceAxis> =
        xs.iter().map(|&d| edgec_kernels::layout::SliceAxis { start: 0, step: 1, len: d }).collect();
    for (i, &a) in axes.iter().enumerate() {
        let a = axis(a, xs.len())?;
        if steps[i] == 0 {
            return Err("Slice with step 0".into());
        }
        ranges[a] = edgec_kernels::layout::slice_axis(xs[a], starts[i], ends[i], steps[i]);
    }
    let lit: Vec<String> = ranges
        .iter()
        .map(|r| format!("k::layout::SliceAxis {{ start: {}, step: {}, len: {} }}", r.start, r.step, r.len))
        .collect();
    let c = cx.item(&format!("[k::layout::SliceAxis; {}]", lit.len()), format!("[{}]", lit.join(", ")));
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::layout::slice({}, &{c}, {x}, {out});", dims(xs)));
    Ok(())
}

fn pad(cx: &mut OpCx<'_, '_>, xs: &[usize]) -> Result<(), String> {
    let op = cx.op;
    let r = xs.len();
    let pads = const_ints(cx, 1)?;
    let axes: Vec<usize> = if op.operand(3).is_some() {
        const_ints(cx, 3)?.iter().map(|&a| axis(a, r)).collect::<Result<_, _>>()?
    } else {
        (0..r).collect()
    };
    let n = axes.len();
    if pads.len() != 2 * n {
        return Err(format!("Pad has {} pads for {n} axes", pads.len()));
    }
    let (mut begin, mut end) = (vec![0i64; r], vec![0i64; r]);
    for (i, &a) in axes.iter().enumerate() {
        (begin[a], end[a]) = (pads[i], pads[i + n]);
    }
    let value = match op.operand(2).and_then(|_| cx.in_const(2)).and_then(|c| c.to_f64s()) {
        Some(v) => v.first().copied().unwrap_or(0.0),
        None if op.operand(2).is_some() => return Err("Pad with a non-constant value".into()),
        None => 0.0,
    };
    let class = cx.out_class(0);
    let lit = class.literal(value);
    let mode = match op.attrs.str("mode").unwrap_or("constant") {
        "reflect" => "Reflect".to_string(),
        "edge" => "Edge".to_string(),
        "wrap" => "Wrap".to_string(),
        _ => format!("Constant({lit})"),
    };
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::layout::pad({}, &{begin:?}, &{end:?}, k::layout::PadMode::{mode}, {x}, {out});", dims(xs)));
    Ok(())
}

/// Ops whose result the compiler knows: written once per run from a literal.
fn known(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let class = cx.out_class(0);
    let values: Vec<String> = match op.opcode {
        Opcode::Shape => {
            let d = cx.in_dims(0);
            let r = d.len() as i64;
            let clamp = |x: i64| (if x < 0 { x + r } else { x }).clamp(0, r) as usize;
            let (s, e) = (clamp(op.attrs.int("start").unwrap_or(0)), clamp(op.attrs.int("end").unwrap_or(r)));
            d[s..e.max(s)].iter().map(|x| x.to_string()).collect()
        }
        Opcode::Size => vec![cx.in_dims(0).iter().product::<usize>().to_string()],
        Opcode::ConstantOfShape => {
            let n: usize = cx.out_dims(0).iter().product();
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
