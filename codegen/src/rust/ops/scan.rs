//! CumSum and CumProd (`k::misc::cum`), BitCast (`k::ew::bitcast`), Det
//! (`k::misc::det`), Einsum (`k::misc::einsum`, the interpreter's loop
//! nest, derived at compile time), MaxUnpool (`k::misc::unpool`),
//! TensorScatter (`k::misc::tscatter`) and AffineGrid (`k::misc::affine`).
//!
//! The scan axis is a constant or read from its input when the model runs
//! (checked then: an error in a function that returns one, a panic naming
//! the op otherwise); the element types are those the kernels implement:
//! every integer of 8 to 64 bits and f32/f64/f16/bf16 for the scans, any
//! number or bool of equal width for BitCast.

use super::layout::{axis, const_ints};
use super::Sz;
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower CumSum, CumProd, BitCast, Det, Einsum, MaxUnpool, TensorScatter or
/// AffineGrid; `Ok(false)` if `op` is none of them.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    match cx.op.opcode {
        Opcode::CumSum => cum(cx, "Sum")?,
        Opcode::CumProd => cum(cx, "Prod")?,
        Opcode::BitCast => bitcast(cx)?,
        Opcode::Det => det(cx)?,
        Opcode::Einsum => einsum(cx)?,
        Opcode::MaxUnpool => max_unpool(cx)?,
        Opcode::TensorScatter => tensor_scatter(cx)?,
        Opcode::AffineGrid => affine_grid(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

fn cum(cx: &mut OpCx<'_, '_>, fold: &str) -> Result<(), String> {
    let name = cx.op.opcode.name();
    if cx.out_class(0) == Class::Bool {
        return Err(format!("{name} on bool is not supported"));
    }
    if cx.in_const(1).is_none() {
        return cum_runtime(cx, fold);
    }
    let xs = cx.in_static(0);
    let ax = match const_ints(cx, 1)?.as_slice() {
        [a] => axis(*a, xs.len())?,
        other => return Err(format!("{name}: the axis must be one integer, got {other:?}")),
    };
    let flag = |k: &str| cx.op.attrs.int(k).unwrap_or(0) != 0;
    let (exclusive, reverse) = (flag("exclusive"), flag("reverse"));
    let (outer, inner): (usize, usize) = (xs[..ax].iter().product(), xs[ax + 1..].iter().product());
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!(
        "k::misc::cum::cum(&k::misc::cum::Cum {{ fold: k::misc::cum::Fold::{fold}, outer: {outer}, n: {}, inner: {inner}, exclusive: {exclusive}, reverse: {reverse} }}, {x}, {out});",
        xs[ax]
    ));
    Ok(())
}

/// CumSum/CumProd whose axis is an input: read (and checked) when the
/// model runs; the scan geometry follows from it.
fn cum_runtime(cx: &mut OpCx<'_, '_>, fold: &str) -> Result<(), String> {
    let name = cx.op.opcode.name();
    if !matches!(cx.in_class(1), Some(Class::I64 | Class::I32)) {
        return Err(format!("{name}: the axis must be i64 or i32"));
    }
    let xs = cx.in_dims(0);
    let flag = |k: &str| cx.op.attrs.int(k).unwrap_or(0) != 0;
    let (exclusive, reverse) = (flag("exclusive"), flag("reverse"));
    let out = cx.begin(0);
    let (x, a) = (cx.input(0)?, cx.input(1)?);
    let what = format!("{name} [{}]", cx.base_name());
    let ax = super::try_expr(
        cx,
        format!("k::shape::axis({what:?}, {a}.first().map_or(i64::MAX, |&v| v as i64), {})", xs.len()),
    );
    cx.line(format!("let ax = {ax};"));
    cx.line(format!(
        "k::misc::cum::cum(&k::misc::cum::Cum::along(k::misc::cum::Fold::{fold}, {}, ax, {exclusive}, {reverse}), {x}, {out});",
        super::dims(&xs)
    ));
    Ok(())
}

fn bitcast(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::ew::bitcast({x}, {out});"));
    Ok(())
}

fn det(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let xs = cx.in_static(0);
    let n = xs.last().copied().unwrap_or(0);
    if !cx.out_class(0).is_float() {
        return Err("Det takes float tensors only".into());
    }
    if n > edgec_kernels::misc::det::DET_MAX {
        return Err(format!(
            "Det of {n}x{n} matrices is not supported (at most {0}x{0})",
            edgec_kernels::misc::det::DET_MAX
        ));
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::misc::det::det({n}, {x}, {out});"));
    Ok(())
}

fn einsum(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let c = cx.out_class(0);
    if !(c == Class::F32 || c == Class::F64 || c.is_int()) {
        return Err(format!("Einsum on {} is not supported (f32, f64 and integers)", c.name()));
    }
    let eq = cx.op.attrs.str("equation").ok_or("Einsum: missing `equation`")?.to_string();
    if (0..cx.op.operands.len()).any(|i| cx.in_dims(i).iter().any(|d| d.lit().is_none())) {
        return einsum_rt(cx, &eq);
    }
    let shapes: Vec<Vec<usize>> = (0..cx.op.operands.len()).map(|i| cx.in_static(i)).collect();
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let nest = edgec_numeric::einsum::loop_nest(&eq, &refs).map_err(|e| format!("Einsum: {e}"))?;
    if nest.dims.len() > edgec_kernels::misc::einsum::EINSUM_MAX_LOOPS {
        return Err(format!(
            "Einsum `{eq}` has {} labels, more than the kernel's {}",
            nest.dims.len(),
            edgec_kernels::misc::einsum::EINSUM_MAX_LOOPS
        ));
    }
    let access: Vec<String> = nest.access.iter().map(|a| format!("&{a:?}")).collect();
    let out = cx.begin(0);
    let xs: Vec<String> = (0..shapes.len()).map(|i| cx.input(i)).collect::<Result<_, _>>()?;
    cx.line(format!(
        "k::misc::einsum::einsum(&k::misc::einsum::Einsum {{ dims: &{:?}, n_out: {}, access: &[{}] }}, &[{}], {out});",
        nest.dims,
        nest.out_shape.len(),
        access.join(", "),
        xs.join(", ")
    ));
    Ok(())
}

/// An Einsum over operands with run-time sizes: the loop structure now,
/// sizes and strides when the model runs.
fn einsum_rt(cx: &mut OpCx<'_, '_>, eq: &str) -> Result<(), String> {
    let shapes: Vec<Vec<super::Sz>> = (0..cx.op.operands.len()).map(|i| cx.in_dims(i)).collect();
    let ranks: Vec<usize> = shapes.iter().map(Vec::len).collect();
    let (loops, n_loops, n_out) = crate::rust::shapes::nn::einsum_labels(eq, &ranks)?;
    use edgec_kernels::misc::einsum::{EINSUM_MAX_LOOPS, EINSUM_MAX_OPERANDS};
    if n_loops > EINSUM_MAX_LOOPS || loops.len() > EINSUM_MAX_OPERANDS {
        return Err(format!("Einsum `{eq}`: more than {EINSUM_MAX_LOOPS} labels or {EINSUM_MAX_OPERANDS} operands"));
    }
    let what = format!("Einsum {}", cx.op.loc);
    let labels: Vec<String> = loops.iter().map(|l| format!("&{l:?}")).collect();
    let dims: Vec<String> = shapes.iter().map(|s| super::dims(s)).collect();
    let out = cx.begin(0);
    let xs: Vec<String> = (0..shapes.len()).map(|i| cx.input(i)).collect::<Result<_, _>>()?;
    let call = format!(
        "k::misc::einsum::einsum_rt({what:?}, &k::misc::einsum::EinsumLabels {{ loops: &[{}], n_loops: {n_loops}, n_out: {n_out} }}, &[{}], &[{}], {out})",
        labels.join(", "),
        dims.join(", "),
        xs.join(", ")
    );
    super::try_line(cx, call);
    Ok(())
}

fn max_unpool(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if !matches!(cx.in_class(1), Some(Class::I64 | Class::I32)) {
        return Err("MaxUnpool: the indices must be i64 or i32".into());
    }
    let ks = cx.op.attrs.ints("kernel_shape").ok_or("MaxUnpool: missing `kernel_shape`")?.to_vec();
    let n = ks.len();
    let strides = cx.op.attrs.ints("strides").map_or_else(|| vec![1; n], <[i64]>::to_vec);
    let pads = cx.op.attrs.ints("pads").map_or_else(|| vec![0; 2 * n], <[i64]>::to_vec);
    let (xd, yd) = (cx.in_dims(0), cx.out_dims(0));
    if xd.len() != n + 2 || strides.len() != n || pads.len() != 2 * n || yd.len() != n + 2 {
        return Err(format!("MaxUnpool: input of rank {} does not match kernel_shape {ks:?}", xd.len()));
    }
    let (Some(xs), Some(ys)) = (Sz::all_lit(&xd), Sz::all_lit(&yd)) else {
        // Sizes known when the model runs: the unpooled shape and the
        // indices are checked then.
        let out = cx.begin(0);
        let (x, i) = (cx.input(0)?, cx.input(1)?);
        super::try_line(
            cx,
            format!(
                "k::misc::unpool::max_unpool_checked({}, &{ks:?}, &{strides:?}, &{pads:?}, {}, {x}, {i}, {out})",
                super::dims(&xd),
                super::dims(&yd)
            ),
        );
        return Ok(());
    };
    let inferred = ir::interp::pool::unpool_dims(&xs, &ks, &strides, &pads).map_err(|e| format!("MaxUnpool: {e}"))?;
    let out = cx.begin(0);
    let (x, i) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::misc::unpool::max_unpool(&{inferred:?}, &{ys:?}, {x}, {i}, {out});"));
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
        "k::misc::tscatter::tensor_scatter(&k::misc::tscatter::TensorScatter {{ outer: {outer}, per_batch: {per_batch}, max_seq: {}, seq: {}, inner: {inner}, circular: {circular} }}, {p}, {u}, {w}, {out});",
        ps[ax], us[ax]
    ));
    Ok(())
}

fn affine_grid(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    if !cx.out_class(0).is_float() {
        return Err("AffineGrid takes float theta only".into());
    }
    let ys = cx.out_dims(0);
    let r = ys.len().saturating_sub(2);
    if !(r == 2 || r == 3) || !ys[r + 1].is(r) {
        return Err(format!("AffineGrid: output {} is not [N, spatial..., r] with r = 2 or 3", Sz::array(&ys)));
    }
    let align = cx.op.attrs.int("align_corners").unwrap_or(0) != 0;
    let out = cx.begin(0);
    let t = cx.input(0)?;
    cx.line(format!("k::misc::affine::affine_grid({}, {align}, {t}, {out});", super::dims(&ys[1..=r])));
    Ok(())
}
