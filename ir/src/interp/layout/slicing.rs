//! Kernels that select or add a border: Slice, Pad, CenterCropPad and
//! ReverseSequence. Like the layout kernels they build source index maps, so
//! every element type is supported.

use super::strided_map;
use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::wide::{check_size, int_operand, norm_axes, numel, pick, ravel, unravel};
use crate::interp::{Data, EvalCtx, Tensor};

type Out = Result<Vec<Tensor>, String>;

/// First index and length of `start:end:step` over a dim of size `n`, with ONNX clamping.
pub fn slice_range(n: usize, start: i64, end: i64, step: i64) -> Result<(usize, usize), String> {
    if step == 0 {
        return Err("`steps` must not contain 0".into());
    }
    let (s, len) = edgec_numeric::slice::slice_range(n as u64, start, end, step);
    Ok((s as usize, len as usize))
}

/// `onnx.Slice`: per-axis strided ranges; out-of-range starts/ends are clamped.
pub fn slice(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let starts = int_operand(ctx.input(1)?, "starts")?;
    let ends = int_operand(ctx.input(2)?, "ends")?;
    let axes = match ctx.opt(3) {
        Some(t) => norm_axes(&int_operand(t, "axes")?, data.rank())?,
        None => (0..starts.len()).collect(),
    };
    let steps = match ctx.opt(4) {
        Some(t) => int_operand(t, "steps")?,
        None => vec![1; starts.len()],
    };
    if ends.len() != starts.len() || axes.len() != starts.len() || steps.len() != starts.len() {
        return Err(format!("`starts` {starts:?}, `ends` {ends:?}, `axes` and `steps` {steps:?} differ in length"));
    }
    if let Some(&a) = axes.iter().find(|&&a| a >= data.rank()) {
        return Err(format!("axis {a} is out of range for input {:?}", data.shape));
    }
    let mut first = vec![0; data.rank()];
    let mut all_steps = vec![1; data.rank()];
    let mut shape = data.shape.clone();
    for (k, &ax) in axes.iter().enumerate() {
        let (s, len) = slice_range(data.shape[ax], starts[k], ends[k], steps[k])?;
        (first[ax], all_steps[ax], shape[ax]) = (s, steps[k], len);
    }
    let map = strided_map(&data.shape, &first, &all_steps, &shape);
    Ok(vec![Tensor::new(shape, data.data.gather(&map))])
}

/// The source coordinate of padded coordinate `i` over `len` kept elements, or
/// `None` for the constant value.
fn pad_coord(i: i64, len: usize, mode: &str) -> Result<Option<usize>, String> {
    let n = len as i64;
    if (0..n).contains(&i) {
        return Ok(Some(i as usize));
    }
    if mode == "constant" {
        return Ok(None);
    }
    if n == 0 {
        return Err(format!("cannot pad an empty axis in `{mode}` mode"));
    }
    Ok(Some(match mode {
        "edge" => i.clamp(0, n - 1),
        "wrap" => i.rem_euclid(n),
        "reflect" if n == 1 => 0,
        "reflect" => {
            let period = 2 * (n - 1);
            let m = i.rem_euclid(period);
            if m >= n {
                period - m
            } else {
                m
            }
        }
        _ => return Err(format!("unknown pad mode `{mode}`")),
    } as usize))
}

/// The padding value: `constant_value` (one element of the data type) or zero.
fn pad_value(ctx: &EvalCtx<'_>, data: &Tensor) -> Result<Data, String> {
    match ctx.opt(2) {
        Some(c) if c.dtype() != data.dtype() || c.len() != 1 => {
            Err(format!("`constant_value` must be one {} element, found {:?} {:?}", data.dtype(), c.dtype(), c.shape))
        }
        Some(c) => Ok(c.data.clone()),
        None => Ok(Data::zeros(data.dtype(), 1)),
    }
}

/// `onnx.Pad`: negative pads crop; `reflect`, `edge` and `wrap` read the kept region.
pub fn pad(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let pads = int_operand(ctx.input(1)?, "pads")?;
    let value = pad_value(ctx, data)?;
    let r = data.rank();
    let axes = match ctx.opt(3) {
        Some(t) => norm_axes(&int_operand(t, "axes")?, r)?,
        None => (0..r).collect(),
    };
    if pads.len() != 2 * axes.len() {
        return Err(format!("`pads` {pads:?} needs {} entries for input {:?}", 2 * axes.len(), data.shape));
    }
    let (mut begin, mut end) = (vec![0i64; r], vec![0i64; r]);
    for (k, &ax) in axes.iter().enumerate() {
        (begin[ax], end[ax]) = (pads[k], pads[k + axes.len()]);
    }
    let mut shape = Vec::with_capacity(r);
    let mut kept = Vec::with_capacity(r);
    for ax in 0..r {
        let (n, b, e) = (data.shape[ax] as i128, begin[ax] as i128, end[ax] as i128);
        let len = n - (-b).max(0) - (-e).max(0);
        if len < 0 || n + b + e < 0 || n + b + e > i64::MAX as i128 {
            return Err(format!("`pads` {pads:?} do not fit axis {ax} of input {:?}", data.shape));
        }
        shape.push((n + b + e) as usize);
        kept.push(len as usize);
    }
    check_size(&shape)?;
    let mode = ctx.str("mode", "constant");
    let st = data.strides();
    let mut picks = Vec::with_capacity(numel(&shape));
    for i in 0..numel(&shape) {
        let mut flat = Some(0);
        for (ax, &o) in unravel(i, &shape).iter().enumerate() {
            let c = pad_coord(o as i64 - begin[ax].max(0), kept[ax], mode)?;
            flat = flat.zip(c).map(|(f, c)| f + (c + (-begin[ax]).max(0) as usize) * st[ax]);
        }
        picks.push(flat.map_or((1, 0), |f| (0, f)));
    }
    Ok(vec![Tensor::new(shape, pick(&[&data.data, &value], &picks)?)])
}

/// `onnx.CenterCropPad`: center-crop or zero-pad the `axes` to `shape`.
pub fn center_crop_pad(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let target = int_operand(ctx.input(1)?, "shape")?;
    let r = data.rank();
    let axes = match ctx.attrs.ints("axes") {
        Some(a) => norm_axes(a, r)?,
        None => (0..r).collect(),
    };
    if target.len() != axes.len() || target.iter().any(|&s| s < 0) {
        return Err(format!("`shape` {target:?} does not fit axes {axes:?} of input {:?}", data.shape));
    }
    let mut shape = data.shape.clone();
    // Output coordinate `o` on an axis reads input coordinate `o + offset`.
    let mut offset = vec![0i64; r];
    for (&ax, &s) in axes.iter().zip(&target) {
        let n = data.shape[ax] as i64;
        offset[ax] = if s < n { (n - s) / 2 } else { -((s - n) / 2) };
        shape[ax] = s as usize;
    }
    check_size(&shape)?;
    let st = data.strides();
    let picks: Vec<(usize, usize)> = (0..numel(&shape))
        .map(|i| {
            let idx = unravel(i, &shape);
            let src: Option<Vec<usize>> = (0..r)
                .map(|k| {
                    let c = idx[k] as i64 + offset[k];
                    (0..data.shape[k] as i64).contains(&c).then_some(c as usize)
                })
                .collect();
            src.map_or((1, 0), |s| (0, ravel(&s, &st)))
        })
        .collect();
    let zero = Data::zeros(data.dtype(), 1);
    Ok(vec![Tensor::new(shape, pick(&[&data.data, &zero], &picks)?)])
}

/// `onnx.ReverseSequence`: reverse the first `sequence_lens[b]` steps of each batch entry.
pub fn reverse_sequence(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let lens = int_operand(ctx.input(1)?, "sequence_lens")?;
    let r = data.rank();
    if r < 2 {
        return Err(format!("input must have rank >= 2, found {:?}", data.shape));
    }
    let b_ax = norm_axis(ctx.int("batch_axis", 1), r)?;
    let t_ax = norm_axis(ctx.int("time_axis", 0), r)?;
    if b_ax == t_ax {
        return Err("`batch_axis` and `time_axis` must differ".into());
    }
    let (batch, time) = (data.shape[b_ax], data.shape[t_ax]);
    if lens.len() != batch || lens.iter().any(|&l| l < 0 || l as usize > time) {
        return Err(format!("`sequence_lens` {lens:?} does not fit batch {batch} and time {time}"));
    }
    let st = data.strides();
    let map: Vec<usize> = (0..data.len())
        .map(|i| {
            let mut idx = unravel(i, &data.shape);
            let l = lens[idx[b_ax]] as usize;
            if idx[t_ax] < l {
                idx[t_ax] = l - 1 - idx[t_ax];
            }
            ravel(&idx, &st)
        })
        .collect();
    Ok(vec![Tensor::new(data.shape.clone(), data.data.gather(&map))])
}
