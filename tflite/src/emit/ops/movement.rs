//! Data movement: concatenation, reshapes, transposes, resizing and padding
//! of stored (NHWC) tensors. A Reshape whose NCHW element order differs
//! from the stored order goes through a layout TRANSPOSE, reported with its
//! reason; every other op here maps its axes onto the stored layout.

use super::{finish_same_grid, same_grid_output, same_grid_output_in, B, O};
use crate::emit::graph::TensorId;
use crate::emit::layout::{self, TO_NHWC};
use crate::emit::Emitter;
use crate::schema as tfl;
use ir::OpData;

/// True if storing a value of dims `d` in layout `perm` keeps its element
/// order (the axes longer than 1 stay in order).
fn keeps_order(d: &[usize], perm: &[usize]) -> bool {
    let long: Vec<usize> = perm.iter().copied().filter(|&a| d[a] > 1).collect();
    long.windows(2).all(|w| w[0] < w[1])
}

/// RESHAPE of `t` into `out` (shape `shape`; the shape constant named after `name`).
pub(super) fn reshape_into(e: &mut Emitter<'_>, t: TensorId, out: TensorId, shape: &[usize], name: &str) {
    let s: Vec<i32> = shape.iter().map(|&d| d as i32).collect();
    let st = e.g.ints(&format!("{name}.shape"), &[s.len()], &s);
    let options = O::ReshapeOptions(Box::new(tfl::ReshapeOptions { new_shape: Some(s) }));
    e.g.op(B::Reshape, &[t, st], &[out], Some(options));
}

/// TRANSPOSE of `t` by `perm` into `out`.
fn transpose_into(e: &mut Emitter<'_>, t: TensorId, out: TensorId, perm: &[usize], name: &str) {
    let p: Vec<i32> = perm.iter().map(|&d| d as i32).collect();
    let pt = e.g.ints(&format!("{name}.perm"), &[p.len()], &p);
    e.g.op(B::Transpose, &[t, pt], &[out], Some(O::TransposeOptions(Box::default())));
}

/// A fresh tensor on `like`'s grid and type.
fn temp(e: &mut Emitter<'_>, like: TensorId, name: &str, shape: &[usize]) -> TensorId {
    let (ty, q) = (e.g.dtype(like), e.g.quant(like));
    e.g.tensor(name, shape, ty, q)
}

/// Reshape, Flatten, Squeeze, Unsqueeze: one RESHAPE of the stored bytes
/// when they are in the value's element order (or `[N, C, H, W] → [N, C,
/// H·W]` from NHWC, stored `[N, H·W, C]`), else a layout TRANSPOSE to that
/// order first. A rank-4 result whose element order NHWC would change is
/// stored in its own order (readers that need NHWC transpose it).
pub(super) fn reshape(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let t = e.stored(x)?;
    let (xd, yd) = (e.dims(x)?, e.dims(op.results[0])?);
    let name = e.value_name(op.results[0]);
    let pin = e.perm(t);
    let merge_hw = xd.len() == 4 && pin == TO_NHWC && yd == [xd[0], xd[1], xd[2] * xd[3]];
    let mut src = t;
    if !keeps_order(&xd, &pin) && !merge_hw {
        let c = temp(e, t, &format!("{name}.ordered"), &xd);
        let order: Vec<usize> = (0..xd.len()).map(|a| pin.iter().position(|&p| p == a).unwrap_or(0)).collect();
        transpose_into(e, t, c, &order, &format!("{name}.ordered"));
        e.transposes.push(format!("{name}: {pin:?} → model order before a Reshape of {xd:?} to {yd:?} ({})", op.loc));
        src = c;
    }
    let pout = if merge_hw {
        vec![0, 2, 1]
    } else if yd.len() == 4 && !keeps_order(&yd, &TO_NHWC) {
        vec![0, 1, 2, 3]
    } else {
        layout::default_perm(yd.len())
    };
    let (tmp, ty) = same_grid_output_in(e, op, src, pout)?;
    let shape = e.g.shape(tmp);
    reshape_into(e, src, tmp, &shape, &name);
    finish_same_grid(e, tmp, ty);
    Ok(())
}

/// Concat: CONCATENATION along the stored axis (inputs may have other grids).
pub(super) fn concat(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let rank = e.dims(op.results[0])?.len();
    // In the layout its inputs share (a detector head's flattened maps stay
    // as stored, one transpose later instead of one per input), else the default.
    let perm = super::elementwise_layout(e, op, rank);
    let logical = layout::value_axis(op.attrs.int("axis").unwrap_or(0), rank).ok_or("axis out of range")?;
    let axis = perm.iter().position(|&a| a == logical).ok_or("axis out of range")?;
    let inputs = op
        .inputs()
        .map(|v| match e.stored(v) {
            Ok(t) if e.perm(t) == perm => Ok(t),
            _ => e.activation(v),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let ty = e.output_stored(op, 0, perm)?;
    // TFLite's int8 CONCATENATION copies bytes: inputs on other grids are requantized first.
    let name = e.value_name(op.results[0]);
    let mut inputs = inputs;
    for (i, t) in inputs.iter_mut().enumerate() {
        if e.g.quant(*t) != e.g.quant(ty) {
            let q = e.g.tensor(&format!("{name}.in{i}"), &e.g.shape(*t), e.g.dtype(ty), e.g.quant(ty));
            e.g.op(B::Quantize, &[*t], &[q], None);
            *t = q;
        }
    }
    let options = O::ConcatenationOptions(Box::new(tfl::ConcatenationOptions {
        axis: axis as i32,
        fused_activation_function: tfl::ActivationFunctionType::None,
    }));
    e.g.op(B::Concatenation, &inputs, &[ty], Some(options));
    Ok(())
}

/// Transpose: no data movement. The result is stored in the layout that
/// makes its bytes the input's (a RESHAPE to the same shape, or the
/// QUANTIZE to its grid); readers that need another layout transpose it.
pub(super) fn transpose(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let t = e.stored(x)?;
    let rank = e.dims(x)?.len();
    let perm: Vec<usize> = match op.attrs.ints("perm") {
        Some(p) => p.iter().map(|&a| a as usize).collect(),
        None => (0..rank).rev().collect(),
    };
    let mut inv = vec![usize::MAX; rank];
    for (b, &a) in perm.iter().enumerate() {
        if a < rank {
            inv[a] = b;
        }
    }
    if perm.len() != rank || inv.contains(&usize::MAX) {
        return Err(format!("`perm` {perm:?} is not a permutation of rank {rank}"));
    }
    // Stored axis i holds input axis pin[i], which is result axis inv[pin[i]].
    let pout: Vec<usize> = e.perm(t).iter().map(|&a| inv[a]).collect();
    let name = e.value_name(op.results[0]);
    let ty = e.output_stored(op, 0, pout)?;
    if e.g.quant(ty) == e.g.quant(t) {
        let shape = e.g.shape(ty);
        reshape_into(e, t, ty, &shape, &name);
    } else {
        e.g.op(B::Quantize, &[t], &[ty], None);
    }
    Ok(())
}

/// Resize of the two spatial dims: RESIZE_NEAREST_NEIGHBOR for integer
/// upscales (where every ONNX coordinate mode picks `⌊i / s⌋`, except
/// asymmetric rounding), RESIZE_BILINEAR for linear modes TFLite has.
pub(super) fn resize(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    let (xd, yd) = (e.dims(x)?, e.dims(op.results[0])?);
    if xd.len() != 4 || xd[..2] != yd[..2] {
        return Err(format!("only resizes of the spatial dims of a rank-4 tensor are written ({xd:?} → {yd:?})"));
    }
    let mode = op.attrs.str("mode").unwrap_or("nearest");
    let coord = op.attrs.str("coordinate_transformation_mode").unwrap_or("half_pixel");
    let (code, align, half) = match mode {
        "nearest" => {
            let integer = (2..4).all(|i| yd[i] % xd[i] == 0);
            let floor = op.attrs.str("nearest_mode").unwrap_or("round_prefer_floor") == "floor";
            let ok =
                integer && (matches!(coord, "half_pixel" | "pytorch_half_pixel") || coord == "asymmetric" && floor);
            if !ok {
                return Err(format!("nearest resize {xd:?} → {yd:?} with `{coord}` has no TFLite form"));
            }
            (B::ResizeNearestNeighbor, false, false)
        }
        "linear" => match coord {
            "half_pixel" => (B::ResizeBilinear, false, true),
            "pytorch_half_pixel" if yd[2] > 1 && yd[3] > 1 => (B::ResizeBilinear, false, true),
            "align_corners" => (B::ResizeBilinear, true, false),
            "asymmetric" => (B::ResizeBilinear, false, false),
            _ => return Err(format!("linear resize with `{coord}` has no TFLite form")),
        },
        _ => return Err(format!("`{mode}` resize has no TFLite form")),
    };
    let name = e.value_name(op.results[0]);
    let size = e.g.ints(&format!("{name}.size"), &[2], &[yd[2] as i32, yd[3] as i32]);
    let (tmp, ty) = same_grid_output(e, op, tx)?;
    let options = if code == B::ResizeBilinear {
        O::ResizeBilinearOptions(Box::new(tfl::ResizeBilinearOptions {
            align_corners: align,
            half_pixel_centers: half,
        }))
    } else {
        O::ResizeNearestNeighborOptions(Box::new(tfl::ResizeNearestNeighborOptions {
            align_corners: align,
            half_pixel_centers: half,
        }))
    };
    e.g.op(code, &[tx, size], &[tmp], Some(options));
    finish_same_grid(e, tmp, ty);
    Ok(())
}

/// Split along one axis: SPLIT_V with the part sizes (outputs on their
/// own grids get a QUANTIZE each).
pub(super) fn split(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    let rank = e.dims(x)?.len();
    let axis = layout::stored_axis(op.attrs.int("axis").unwrap_or(0), rank).ok_or("axis out of range")?;
    let logical = layout::value_axis(op.attrs.int("axis").unwrap_or(0), rank).ok_or("axis out of range")?;
    let mut sizes = Vec::new();
    let mut outs = Vec::new();
    let mut finish = Vec::new();
    for i in 0..op.results.len() {
        sizes.push(e.dims(op.results[i])?[logical] as i32);
        let ty = e.output_n(op, i)?;
        if e.g.quant(ty) == e.g.quant(tx) {
            outs.push(ty);
        } else {
            let t = temp(e, tx, &format!("{}.in_grid", e.value_name(op.results[i])), &e.g.shape(ty));
            outs.push(t);
            finish.push((t, ty));
        }
    }
    let name = e.value_name(op.results[0]);
    let st = e.g.ints(&format!("{name}.sizes"), &[sizes.len()], &sizes);
    let at = e.g.ints(&format!("{name}.axis"), &[], &[axis as i32]);
    let options = O::SplitVOptions(Box::new(tfl::SplitVOptions { num_splits: sizes.len() as i32 }));
    e.g.op(B::SplitV, &[tx, st, at], &outs, Some(options));
    for (t, ty) in finish {
        finish_same_grid(e, t, ty);
    }
    Ok(())
}

/// Pad: PAD with zeros (the zero point), MIRROR_PAD for `reflect` and for
/// `edge` by at most one element (SYMMETRIC repeats the edge); pads in
/// stored order.
pub(super) fn pad(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let mode = op.attrs.str("mode").unwrap_or("constant");
    if op.operand(3).is_some() {
        return Err("Pad with `axes` is not written yet".into());
    }
    if let Some(v) = op.operand(2).filter(|_| mode == "constant") {
        if e.scalar(v)? != 0.0 {
            return Err("padding with a value other than 0 is not written yet".into());
        }
    }
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    let rank = e.dims(x)?.len();
    let pads = op.operand(1).and_then(|p| e.const_of(p)).and_then(|c| c.to_i64s()).ok_or("pads are not a constant")?;
    if pads.len() != 2 * rank || pads.iter().any(|&p| p < 0) {
        return Err(format!("pads {pads:?}: expected {} non-negative values", 2 * rank));
    }
    let logical = |j: usize| if rank == 4 { TO_NHWC[j] } else { j };
    let p: Vec<i32> = (0..rank).flat_map(|j| [pads[logical(j)] as i32, pads[rank + logical(j)] as i32]).collect();
    let name = e.value_name(op.results[0]);
    let pt = e.g.ints(&format!("{name}.paddings"), &[rank, 2], &p);
    let (tmp, ty) = same_grid_output(e, op, tx)?;
    let mirror = match mode {
        "constant" => None,
        "reflect" => Some(tfl::MirrorPadMode::Reflect),
        "edge" if pads.iter().all(|&p| p <= 1) => Some(tfl::MirrorPadMode::Symmetric),
        _ => return Err(format!("`{mode}` padding by {pads:?} has no TFLite form")),
    };
    match mirror {
        None => e.g.op(B::Pad, &[tx, pt], &[tmp], Some(O::PadOptions(Box::default()))),
        Some(mode) => {
            let options = O::MirrorPadOptions(Box::new(tfl::MirrorPadOptions { mode }));
            e.g.op(B::MirrorPad, &[tx, pt], &[tmp], Some(options));
        }
    }
    finish_same_grid(e, tmp, ty);
    Ok(())
}

/// `core.slice` with positive steps: one STRIDED_SLICE over the stored axes
/// (the result keeps the input's layout and grid; a QUANTIZE follows when
/// the QDQ form gives it another). Exact: it only selects values.
pub(super) fn slice(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let t = e.stored(x)?;
    let xd = e.dims(x)?;
    let p = ir::ops::layout::canonical::slice_params(&op.attrs)?;
    if let Some(s) = p.steps.iter().find(|&&s| s < 0) {
        return Err(format!("a Slice with the negative step {s} has no TFLite form in edgec yet"));
    }
    // Per model axis: first index, count and step (whole axis when not sliced).
    let mut range: Vec<(u64, u64, i64)> = xd.iter().map(|&n| (0, n as u64, 1)).collect();
    for (i, &a) in p.axes.iter().enumerate() {
        let a = usize::try_from(a).ok().filter(|&a| a < xd.len()).ok_or_else(|| format!("axis {a} out of range"))?;
        let (first, count) = edgec_numeric::slice::slice_range(xd[a] as u64, p.starts[i], p.ends[i], p.steps[i]);
        if count == 0 {
            return Err(format!("the slice of axis {a} is empty"));
        }
        range[a] = (first, count, p.steps[i]);
    }
    let pin = e.perm(t);
    let mut begin = Vec::new();
    let mut end = Vec::new();
    let mut strides = Vec::new();
    for &a in &pin {
        let (first, count, step) = range[a];
        begin.push(first as i32);
        end.push((first as i64 + (count as i64 - 1) * step + 1) as i32);
        strides.push(step as i32);
    }
    let name = e.value_name(op.results[0]);
    let n = pin.len();
    let (bt, et, st) = (
        e.g.ints(&format!("{name}.begin"), &[n], &begin),
        e.g.ints(&format!("{name}.end"), &[n], &end),
        e.g.ints(&format!("{name}.strides"), &[n], &strides),
    );
    let (tmp, ty) = same_grid_output_in(e, op, t, pin)?;
    let options = O::StridedSliceOptions(Box::default());
    e.g.op(B::StridedSlice, &[t, bt, et, st], &[tmp], Some(options));
    finish_same_grid(e, tmp, ty);
    Ok(())
}
