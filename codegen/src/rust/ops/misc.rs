//! Losses (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss), scatter and
//! gather by index (ScatterElements, ScatterND, GatherND), selection and
//! generation (TopK, Trilu, EyeLike, OneHot), the bitwise integer ops,
//! CenterCropPad, ReverseSequence, Col2Im, GridSample and DFT, lowered to
//! the `k::misc` kernels (CenterCropPad to the layout pad). Compress is in
//! `select`.
//!
//! Shapes are static; attributes are resolved here. Data-dependent indices
//! stay run-time values: the kernels check their range. Col2Im's image and
//! block shapes and DFT's length and axis may be inputs, read and checked
//! against the declared result when the model runs.

use super::layout::{axis, const_ints};
use super::{dims, f32_lit, f32_only, try_line, udims, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use ir::Opcode;

/// Lower a loss, scatter/gather, selection or bitwise op; `Ok(false)` if
/// `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    match cx.op.opcode {
        NegativeLogLikelihoodLoss | SoftmaxCrossEntropyLoss => loss(cx)?,
        ScatterElements | ScatterND => scatter(cx)?,
        GatherND => gather_nd(cx)?,
        TopK => top_k(cx)?,
        Trilu => trilu(cx)?,
        EyeLike => eye_like(cx)?,
        OneHot => one_hot(cx)?,
        CenterCropPad => center_crop_pad(cx)?,
        ReverseSequence => reverse_sequence(cx)?,
        Col2Im => col2im(cx)?,
        GridSample => grid_sample(cx)?,
        DFT => dft(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// The name of an op for messages.
fn name(cx: &OpCx<'_, '_>) -> &'static str {
    cx.op.opcode.name()
}

/// Fail unless operand `i` holds i64 or i32 indices.
fn index_operand(cx: &OpCx<'_, '_>, i: usize, what: &str) -> Result<(), String> {
    match cx.in_class(i) {
        Some(Class::I64 | Class::I32) => Ok(()),
        _ => Err(format!("{}: {what} must be i64 or i32", name(cx))),
    }
}

/// `value` as a Rust literal of `class`.
fn lit(class: Class, value: f64) -> String {
    match class {
        Class::F32 => f32_lit(value as f32),
        Class::Bool => (value != 0.0).to_string(),
        c => format!("{}{}", value as i64, c.rust()),
    }
}

/// True if result `j` of the op exists and is used.
fn used(cx: &OpCx<'_, '_>, j: usize) -> bool {
    cx.op.results.get(j).is_some_and(|r| cx.func().use_counts()[r.as_u32() as usize] > 0)
}

fn loss(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    f32_only(cx)?;
    index_operand(cx, 1, "the target")?;
    let xs = cx.in_static(0);
    if xs.len() < 2 {
        return Err(format!("{}: the input {xs:?} needs rank >= 2 ([N, C, d...])", name(cx)));
    }
    let red = match op.attrs.str("reduction").unwrap_or("mean") {
        "none" => "None",
        "sum" => "Sum",
        "mean" => "Mean",
        r => return Err(format!("{}: reduction `{r}` is not supported", name(cx))),
    };
    let ignore = op.attrs.int("ignore_index").map_or("None".to_string(), |i| format!("Some({i})"));
    let sce = op.opcode == Opcode::SoftmaxCrossEntropyLoss;
    if sce && used(cx, 1) {
        let out = cx.begin(1);
        let x = cx.input(0)?;
        cx.line(format!("k::misc::loss::log_softmax_classes({}, {x}, {out});", udims(&xs)));
    }
    let out = cx.begin(0);
    let (x, t) = (cx.input(0)?, cx.input(1)?);
    let w = match op.operand(2) {
        Some(_) => format!("Some({})", cx.input(2)?),
        None => "None".into(),
    };
    cx.line(format!(
        "let p = k::misc::loss::Loss {{ shape: {}, weight: {w}, ignore_index: {ignore}, reduction: k::misc::loss::Reduction::{red} }};",
        udims(&xs)
    ));
    if sce {
        cx.scratch(format!("k::misc::loss::softmax_cross_entropy_scratch_len({})", udims(&xs)));
        cx.line(format!("k::misc::loss::softmax_cross_entropy(&p, {x}, {t}, {out}, &mut self.scratch);"));
    } else {
        cx.line(format!("k::misc::loss::nll_loss(&p, {x}, {t}, {out});"));
    }
    Ok(())
}

/// The combining function of a scatter's `reduction`, as a Rust expression.
fn combine(cx: &OpCx<'_, '_>) -> Result<String, String> {
    let r = match cx.op.attrs.str("reduction").unwrap_or("none") {
        "none" => return Ok("k::misc::scatter::overwrite".into()),
        "add" => "Add",
        "mul" => "Mul",
        "max" => "Max",
        "min" => "Min",
        r => return Err(format!("{}: reduction `{r}` is not supported", name(cx))),
    };
    if !matches!(cx.out_class(0), Class::F32 | Class::I64 | Class::I32) {
        return Err(format!("{}: reduction `{r}` on {} is not supported", name(cx), cx.out_class(0).rust()));
    }
    Ok(format!("k::misc::scatter::ScatterReduction::{r}.combine()"))
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
            let check = edgec_kernels::misc::scatter::scatter_check(&x, a, &i, &u);
            check.map_err(|e| format!("{e}"))?;
        }
        // Else checked when the model runs, before the kernel asserts it.
        _ => {
            let a = a.map_or("None".into(), |a| format!("Some({a})"));
            try_line(cx, format!("k::misc::scatter::scatter_check({}, {a}, {}, {})", dims(&xs), dims(&is), dims(&us)));
        }
    }
    let f = combine(cx)?;
    let out = cx.begin(0);
    let (x, i, u) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    match a {
        None => {
            cx.line(format!("k::misc::scatter::scatter_nd({}, {x}, {}, {i}, {u}, {f}, {out});", dims(&xs), dims(&is)))
        }
        Some(a) => cx.line(format!(
            "k::misc::scatter::scatter_elements({}, {a}, {x}, {}, {i}, {u}, {f}, {out});",
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
    cx.line(format!("k::misc::scatter::gather_nd({}, {b}, {x}, {}, {i}, {out});", dims(&xs), dims(&is)));
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
    let p = format!("k::misc::select::TopK {{ shape: {}, axis: {a}, k: {k}, largest: {largest} }}", dims(&xs));
    // K read when the model runs (or an axis of run-time size): checked first.
    let check = k.lit().is_none() || xs[a].lit().is_none();
    if used(cx, 1) {
        let out = cx.begin(1);
        if check {
            super::try_line(cx, format!("k::misc::select::top_k_check(&{p})"));
        }
        let x = cx.input(0)?;
        cx.line(format!("k::misc::select::top_k_indices(&{p}, {x}, {out});"));
    }
    let out = cx.begin(0);
    if check && !used(cx, 1) {
        super::try_line(cx, format!("k::misc::select::top_k_check(&{p})"));
    }
    let x = cx.input(0)?;
    cx.line(format!("k::misc::select::top_k_values(&{p}, {x}, {out});"));
    Ok(())
}

fn trilu(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let xs = cx.in_static(0);
    if xs.len() < 2 {
        return Err(format!("Trilu: the input {xs:?} needs rank >= 2"));
    }
    let upper = cx.op.attrs.int("upper").unwrap_or(1) != 0;
    let zero = lit(cx.out_class(0), 0.0);
    let k = match cx.op.operand(1) {
        None => "0".to_string(),
        Some(_) if cx.in_const(1).is_some() => const_ints(cx, 1)?.first().copied().unwrap_or(0).to_string(),
        Some(_) => String::new(),
    };
    let out = cx.begin(0);
    let k = if k.is_empty() {
        index_operand(cx, 1, "k")?;
        format!("i64::from({}[0])", cx.input(1)?)
    } else {
        k
    };
    let x = cx.input(0)?;
    cx.line(format!("k::misc::select::trilu({}, {upper}, {k}, {zero}, {x}, {out});", udims(&xs)));
    Ok(())
}

fn eye_like(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let ys = cx.out_static(0);
    let [rows, cols] = ys[..] else { return Err(format!("EyeLike: the input {ys:?} must be 2-D")) };
    let k = cx.op.attrs.int("k").unwrap_or(0);
    let c = cx.out_class(0);
    let (one, zero) = (lit(c, 1.0), lit(c, 0.0));
    let out = cx.begin(0);
    cx.line(format!("k::misc::select::eye_like({rows}, {cols}, {k}, {one}, {zero}, {out});"));
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
    cx.line(format!("k::misc::select::one_hot({}, {a}, {depth}, {i}, {v}, {out});", dims(&is)));
    Ok(())
}

/// CenterCropPad as a Pad with negative (cropping) or positive pads.
fn center_crop_pad(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    if xs.len() != ys.len() {
        return Err(format!("CenterCropPad: output {} for input {}", Sz::array(&ys), Sz::array(&xs)));
    }
    let zero = lit(cx.out_class(0), 0.0);
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
        cx.line(format!("k::misc::seq::reverse_sequence({}, {b}, {t}, {l}, {x}, {out});", dims(&xs)));
    } else {
        let what = format!("ReverseSequence [{}]", cx.op.loc);
        let call =
            format!("k::misc::seq::reverse_sequence_checked({what:?}, {}, ({b}, {t}), {l}, {x}, {out})", dims(&xs));
        try_line(cx, call);
    }
    Ok(())
}

fn col2im(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    let known = Sz::all_lit(&cx.in_dims(0)).is_some() && Sz::all_lit(&cx.out_dims(0)).is_some();
    if cx.in_const(1).is_none() || cx.in_const(2).is_none() || !known {
        return col2im_runtime(cx);
    }
    let (xs, ys) = (cx.in_static(0), cx.out_static(0));
    let image: Vec<usize> = const_ints(cx, 1)?.iter().map(|&d| d.max(0) as usize).collect();
    let block: Vec<usize> = const_ints(cx, 2)?.iter().map(|&d| d.max(0) as usize).collect();
    let n = image.len();
    if block.len() != n || n > edgec_kernels::misc::seq::COL2IM_MAX_RANK || xs.len() != 3 || ys.len() != n + 2 {
        return Err(format!("Col2Im: input {xs:?} with image {image:?} and block {block:?} is not supported"));
    }
    let list = |k: &str, len: usize, d: i64| -> Vec<usize> {
        cx.op.attrs.ints(k).map_or(vec![d; len], <[i64]>::to_vec).iter().map(|&v| v.max(0) as usize).collect()
    };
    let (strides, dilations, pads) = (list("strides", n, 1), list("dilations", n, 1), list("pads", 2 * n, 0));
    let mut blocks = Vec::with_capacity(n);
    for a in 0..n {
        let extent = dilations[a] * (block[a].max(1) - 1) + 1;
        let padded = image[a] + pads[a] + pads[a + n];
        if padded < extent || strides[a] == 0 {
            return Err(format!("Col2Im: axis {a}: block extent {extent} exceeds the padded image {padded}"));
        }
        blocks.push((padded - extent) / strides[a] + 1);
    }
    let g = format!(
        "k::misc::seq::Col2Im {{ batch: {}, channels: {}, image: &{image:?}, block: &{block:?}, blocks: &{blocks:?}, strides: &{strides:?}, dilations: &{dilations:?}, pads: &{:?} }}",
        ys[0],
        ys[1],
        &pads[..n]
    );
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::misc::seq::col2im(&{g}, {x}, {out});"));
    Ok(())
}

/// Col2Im with `image_shape` or `block_shape` an input, or sizes known
/// when the model runs: read then (`k::misc::seq::col2im_checked` checks
/// them against the result's shape).
fn col2im_runtime(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    index_operand(cx, 1, "image_shape")?;
    index_operand(cx, 2, "block_shape")?;
    let (xs, ys) = (cx.in_dims(0), cx.out_dims(0));
    let n = ys.len().saturating_sub(2);
    if xs.len() != 3 || n == 0 || n > edgec_kernels::misc::seq::COL2IM_MAX_RANK {
        return Err(format!("Col2Im: input {} with output {} is not supported", Sz::array(&xs), Sz::array(&ys)));
    }
    let list = |k: &str, len: usize, d: i64| -> Vec<usize> {
        cx.op.attrs.ints(k).map_or(vec![d; len], <[i64]>::to_vec).iter().map(|&v| v.max(0) as usize).collect()
    };
    let (strides, dilations, pads) = (list("strides", n, 1), list("dilations", n, 1), list("pads", 2 * n, 0));
    if strides.len() != n || dilations.len() != n || pads.len() != 2 * n {
        return Err("Col2Im: strides, dilations and pads do not match the image rank".into());
    }
    let out = cx.begin(0);
    let (x, im, bl) = (cx.input(0)?, cx.input(1)?, cx.input(2)?);
    // A list of another length becomes all -1 (rejected by the kernel).
    for (name, v) in [("im", &im), ("bl", &bl)] {
        cx.line(format!(
            "let {name}: [i64; {n}] = core::array::from_fn(|a| if {v}.len() == {n} {{ {v}[a] as i64 }} else {{ -1 }});"
        ));
    }
    super::try_line(
        cx,
        format!(
            "k::misc::seq::col2im_checked({}, &im, &bl, &{strides:?}, &{dilations:?}, &{pads:?}, {}, {x}, {out})",
            Sz::array(&xs),
            dims(&ys[2..])
        ),
    );
    Ok(())
}

fn grid_sample(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    f32_only(cx)?;
    if cx.in_class(1) != Some(Class::F32) {
        return Err("GridSample: the grid must be f32".into());
    }
    let (xs, gs) = (cx.in_static(0), cx.in_static(1));
    let r = xs.len().saturating_sub(2);
    if r == 0 || r > edgec_kernels::misc::grid::MAX_RANK || gs.len() != r + 2 || gs[r + 1] != r || gs[0] != xs[0] {
        return Err(format!("GridSample: grid {gs:?} for X {xs:?} is not supported (1 to 4 spatial axes)"));
    }
    let mode = match cx.op.attrs.str("mode").unwrap_or("linear") {
        "nearest" => "Nearest",
        "linear" | "bilinear" => "Linear",
        "cubic" | "bicubic" => "Cubic",
        m => return Err(format!("GridSample: mode `{m}` is not supported")),
    };
    let padding = match cx.op.attrs.str("padding_mode").unwrap_or("zeros") {
        "zeros" => "Zeros",
        "border" => "Border",
        "reflection" => "Reflection",
        m => return Err(format!("GridSample: padding_mode `{m}` is not supported")),
    };
    let align = cx.op.attrs.int("align_corners").unwrap_or(0) != 0;
    let outs: usize = gs[1..=r].iter().product();
    let g = format!(
        "k::misc::grid::GridSample {{ n: {}, c: {}, dims: &{:?}, outs: {outs}, mode: k::misc::grid::GridMode::{mode}, padding: k::misc::grid::GridPadding::{padding}, align_corners: {align} }}",
        xs[0],
        xs[1],
        &xs[2..]
    );
    let out = cx.begin(0);
    let (x, grid) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::misc::grid::grid_sample(&{g}, {x}, {grid}, {out});"));
    Ok(())
}

/// DFT with a constant (or absent) `dft_length` and `axis` on static dims.
fn dft(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    use ir::ops::signal::{dft_axis, dft_check_last, dft_length, dft_out_len, flag};
    f32_only(cx)?;
    let op = cx.op;
    let (xd, yd) = (cx.in_dims(0), cx.out_dims(0));
    let r = xd.len();
    let inverse = flag(op.attrs.int("inverse").unwrap_or(0), "inverse")?;
    let onesided = flag(op.attrs.int("onesided").unwrap_or(0), "onesided")?;
    if r < 2 {
        return Err(format!("DFT: the input {} needs rank >= 2", Sz::array(&xd)));
    }
    if let Some(last) = xd[r - 1].lit() {
        dft_check_last(last as u64, inverse, onesided)?;
    }
    let runtime = [1, 2].iter().any(|&i| cx.op.operand(i).is_some() && cx.in_const(i).is_none());
    let (Some(xs), Some(_), false) = (Sz::all_lit(&xd), Sz::all_lit(&yd), runtime) else {
        return dft_runtime(cx, &xd, &yd, inverse, onesided);
    };
    let given = |i: usize, what: &str| -> Result<Option<i64>, String> {
        match op.operand(i) {
            None => Ok(None),
            Some(_) => match const_ints(cx, i)?.as_slice() {
                [v] => Ok(Some(*v)),
                _ => Err(format!("DFT: `{what}` must be a scalar constant")),
            },
        }
    };
    let a = dft_axis(given(2, "axis")?.or(op.attrs.int("axis")).unwrap_or(-2), r)?;
    let n = dft_length(given(1, "dft_length")?, xs[a] as u64, inverse, onesided)? as usize;
    let out_len = dft_out_len(n as u64, inverse, onesided) as usize;
    let p = format!(
        "k::misc::dft::Dft {{ dims: &{:?}, parts: {}, axis: {a}, n: {n}, out_len: {out_len}, inverse: {inverse}, irfft: {} }}",
        &xs[..r - 1],
        xs[r - 1],
        inverse && onesided
    );
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::misc::dft::dft(&{p}, {x}, {out});"));
    Ok(())
}

/// DFT whose `dft_length` or `axis` is an input, or whose sizes are known
/// when the model runs: read then and checked against the result's shape
/// by `k::misc::dft::dft_checked`.
fn dft_runtime(cx: &mut OpCx<'_, '_>, xs: &[Sz], ys: &[Sz], inverse: bool, onesided: bool) -> Result<(), String> {
    if xs.len() > edgec_kernels::misc::dft::DFT_MAX_RANK {
        return Err(format!("DFT: input {} has too many dims", Sz::array(xs)));
    }
    for i in [1, 2] {
        if cx.op.operand(i).is_some() {
            index_operand(cx, i, if i == 1 { "dft_length" } else { "axis" })?;
        }
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    let len = match cx.op.operand(1) {
        Some(_) => format!("Some({}.first().map_or(0, |&v| v as i64))", cx.input(1)?),
        None => "None".into(),
    };
    let ax = match cx.op.operand(2) {
        Some(_) => format!("{}.first().map_or(i64::MAX, |&v| v as i64)", cx.input(2)?),
        None => cx.op.attrs.int("axis").unwrap_or(-2).to_string(),
    };
    super::try_line(
        cx,
        format!(
            "k::misc::dft::dft_checked({}, {}, {inverse}, {onesided}, {ax}, {len}, {x}, {out})",
            dims(xs),
            dims(ys)
        ),
    );
    Ok(())
}
