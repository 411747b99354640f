//! Gather and scatter by index tensors: Gather, GatherElements
//! (`k::layout`), GatherND, ScatterElements, ScatterND
//! (`k::index::scatter`), TensorScatter (`k::index::tscatter`) and OneHot
//! (`k::index`).
//!
//! Attributes are resolved here. Data-dependent indices stay run-time
//! values: the kernels check their range; sizes that differ only at run
//! time are checked before the kernels run.

use super::{axis, dims, index_operand, try_line, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a gather, scatter or OneHot; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    match cx.op.opcode {
        Gather | GatherElements => gather(cx)?,
        ScatterElements | ScatterND => scatter(cx)?,
        GatherND => gather_nd(cx)?,
        TensorScatter => tensor_scatter(cx)?,
        OneHot => one_hot(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Gather and GatherElements along `axis`.
fn gather(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let xs = cx.in_dims(0);
    let a = axis(op.attrs.int("axis").unwrap_or(0), xs.len())?;
    let k = if op.opcode == Opcode::Gather { "gather" } else { "gather_elements" };
    let out = cx.begin(0);
    let (x, idx) = (cx.input(0)?, cx.input(1)?);
    let extra = if op.opcode == Opcode::GatherElements { format!("{}, ", dims(&cx.in_dims(1))) } else { String::new() };
    cx.line(format!("k::index::{k}({}, {a}, {x}, {extra}{idx}, {out});", dims(&xs)));
    Ok(())
}

/// The combining function of a scatter's `reduction`, as a Rust expression.
fn combine(cx: &OpCx<'_, '_>) -> Result<String, String> {
    let r = match cx.op.attrs.str("reduction").unwrap_or("none") {
        "none" => return Ok("k::index::scatter::overwrite".into()),
        "add" => "Add",
        "mul" => "Mul",
        "max" => "Max",
        "min" => "Min",
        r => return Err(format!("{}: reduction `{r}` is not supported", cx.op.opcode.name())),
    };
    if !matches!(cx.out_class(0), Class::F32 | Class::I64 | Class::I32) {
        return Err(format!("{}: reduction `{r}` on {} is not supported", cx.op.opcode.name(), cx.out_class(0).rust()));
    }
    Ok(format!("k::index::scatter::ScatterReduction::{r}.combine()"))
}

fn scatter(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    index_operand(cx, 1, "the indices")?;
    let (xs, is, us) = (cx.in_dims(0), cx.in_dims(1), cx.in_dims(2));
    let nd = cx.op.opcode == Opcode::ScatterND;
    let a = if nd { None } else { Some(axis(cx.op.attrs.int("axis").unwrap_or(0), xs.len())?) };
    let known = |d: &[Sz]| d.iter().map(Sz::lit).collect::<Option<Vec<usize>>>();
    match (known(&xs), known(&is), known(&us)) {
        // All sizes known: a misfit is a compile error.
        (Some(x), Some(i), Some(u)) => {
            let check = edgec_kernels::index::scatter::scatter_check(&x, a, &i, &u);
            check.map_err(|e| format!("{e}"))?;
        }
        // Else checked when the model runs, before the kernel asserts it.
        _ => {
            let a = a.map_or("None".into(), |a| format!("Some({a})"));
            try_line(cx, format!("k::index::scatter::scatter_check({}, {a}, {}, {})", dims(&xs), dims(&is), dims(&us)));
        }
    }
    let f = combine(cx)?;
    let out = cx.begin(0);
    let (x, i, u) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    match a {
        None => {
            cx.line(format!("k::index::scatter::scatter_nd({}, {x}, {}, {i}, {u}, {f}, {out});", dims(&xs), dims(&is)))
        }
        Some(a) => cx.line(format!(
            "k::index::scatter::scatter_elements({}, {a}, {x}, {}, {i}, {u}, {f}, {out});",
            dims(&xs),
            dims(&is)
        )),
    }
    Ok(())
}

fn gather_nd(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    index_operand(cx, 1, "the indices")?;
    let (xs, is) = (cx.in_dims(0), cx.in_dims(1));
    let b = cx.op.attrs.int("batch_dims").unwrap_or(0);
    let k = is.last().and_then(Sz::lit).unwrap_or(usize::MAX);
    let fits = b >= 0 && (b as usize) < is.len().min(xs.len()) && k <= xs.len() - b as usize;
    // Batch dims that differ only at run time are checked by the shape code.
    let clash = fits && (0..b as usize).any(|j| matches!((xs[j].lit(), is[j].lit()), (Some(p), Some(q)) if p != q));
    if !fits || clash {
        return Err(format!("GatherND: indices {is:?} do not fit data {xs:?} with batch_dims {b}"));
    }
    let out = cx.begin(0);
    let (x, i) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::index::scatter::gather_nd({}, {b}, {x}, {}, {i}, {out});", dims(&xs), dims(&is)));
    Ok(())
}

fn tensor_scatter(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let (ps, us) = (cx.in_static(0), cx.in_static(1));
    let ax = axis(cx.op.attrs.int("axis").unwrap_or(-2), ps.len())?;
    if ax == 0 || us.len() != ps.len() {
        return Err(format!("TensorScatter: update {us:?} into past_cache {ps:?} on axis {ax} is not supported"));
    }
    let circular = match cx.op.attrs.str("mode").unwrap_or("linear") {
        "linear" => false,
        "circular" => true,
        m => return Err(format!("TensorScatter: mode `{m}` is not supported")),
    };
    let write = cx.op.operand(2).is_some();
    if write && cx.in_class(2) != Some(Class::I64) {
        return Err("TensorScatter: write_indices must be i64".into());
    }
    let (outer, per_batch): (usize, usize) = (ps[..ax].iter().product(), ps[1..ax].iter().product());
    let inner: usize = ps[ax + 1..].iter().product();
    let out = cx.begin(0);
    let (p, u) = (cx.input(0)?, cx.input(1)?);
    let w = if write { format!("Some({})", cx.input(2)?) } else { "None".into() };
    cx.line(format!(
        "k::index::tscatter::tensor_scatter(&k::index::tscatter::TensorScatter {{ outer: {outer}, per_batch: {per_batch}, max_seq: {}, seq: {}, inner: {inner}, circular: {circular} }}, {p}, {u}, {w}, {out});",
        ps[ax], us[ax]
    ));
    Ok(())
}

fn one_hot(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let (is, ys) = (cx.in_dims(0), cx.out_dims(0));
    let a = axis(cx.op.attrs.int("axis").unwrap_or(-1), is.len() + 1)?;
    let depth = ys.get(a).cloned().ok_or("OneHot: result rank")?;
    if cx.in_class(0) == Some(Class::Bool) || cx.in_class(0).is_none() {
        return Err("OneHot: the indices must be f32 or an integer type".into());
    }
    let out = cx.begin(0);
    let (i, v) = (cx.input(0)?, cx.input(2)?);
    cx.line(format!("k::index::one_hot::one_hot({}, {a}, {depth}, {i}, {v}, {out});", dims(&is)));
    Ok(())
}
