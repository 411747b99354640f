//! Reference kernel of `core.bucket_dispatch` (semantics in
//! [`crate::ops::control::dispatch`]): read the actual sizes, pick the buckets, pad,
//! run the static callee, slice the results back.

use crate::interp::tensor::wide::{from_wide, pick, Wide};
use crate::interp::{EvalCtx, Tensor};
use crate::ops::control::dispatch::{AxisRef, Dispatch};
use crate::types::DType;

/// `core.bucket_dispatch`.
pub fn bucket_dispatch(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let d = Dispatch::from_attrs(ctx.attrs)?;
    let inputs: Vec<&Tensor> = (0..ctx.inputs.len()).map(|i| ctx.input(i)).collect::<Result<_, _>>()?;
    let sizes = actual_sizes(&d, &inputs)?;
    let (index, chosen) = d.select(&sizes)?;
    let mut padded = Vec::with_capacity(inputs.len());
    for (i, t) in inputs.iter().enumerate() {
        let axes: Vec<(usize, usize)> =
            d.pads.iter().filter(|r| r.tensor == i).map(|r| (r.axis, chosen[r.dim] as usize)).collect();
        padded.push(pad_end(t, &axes, d.pad_values[i]).map_err(|e| format!("padding operand #{i}: {e}"))?);
    }
    let callee = &d.callees[index];
    let outs = crate::interp::run(ctx.module, callee, padded).map_err(|e| format!("in @{callee}: {e}"))?;
    outs.into_iter()
        .enumerate()
        .map(|(o, t)| {
            let axes: Vec<(usize, usize)> =
                d.slices.iter().filter(|r| r.tensor == o).map(|r| (r.axis, sizes[r.dim] as usize)).collect();
            slice_prefix(&t, &axes).map_err(|e| format!("slicing result #{o}: {e}"))
        })
        .collect()
}

/// The runtime size of every bucketed dim; all axes carrying a dim must agree.
pub fn actual_sizes(d: &Dispatch, inputs: &[&Tensor]) -> Result<Vec<u64>, String> {
    let mut sizes: Vec<Option<(u64, AxisRef)>> = vec![None; d.dims.len()];
    for r in &d.pads {
        let t = inputs.get(r.tensor).ok_or_else(|| format!("pad_axes names operand #{}", r.tensor))?;
        let n = *t.shape.get(r.axis).ok_or_else(|| format!("operand #{} has no axis {}", r.tensor, r.axis))? as u64;
        match sizes[r.dim] {
            Some((m, first)) if m != n => {
                return Err(format!(
                    "dim `{}` is {m} on operand #{} axis {} but {n} on operand #{} axis {}",
                    d.dims[r.dim], first.tensor, first.axis, r.tensor, r.axis
                ))
            }
            Some(_) => {}
            None => sizes[r.dim] = Some((n, *r)),
        }
    }
    Ok(sizes.into_iter().map(|s| s.map_or(0, |(n, _)| n)).collect())
}

/// The pad value as one element of `dt` (integral values only for integer types).
fn pad_element(dt: DType, v: f32) -> Result<crate::interp::Data, String> {
    let w = if dt.is_float() {
        Wide::F(v as f64)
    } else if dt == DType::String {
        return Err("string tensors cannot be padded".into());
    } else if v.fract() == 0.0 {
        Wide::I(v as i128)
    } else {
        return Err(format!("pad value {v} is not an integer, but the input is {dt}"));
    };
    Ok(from_wide(dt, &[w]))
}

/// `t` padded at the end of each `(axis, size)` to `size` with `value`.
pub fn pad_end(t: &Tensor, axes: &[(usize, usize)], value: f32) -> Result<Tensor, String> {
    let mut shape = t.shape.clone();
    for &(axis, size) in axes {
        let n = shape.get_mut(axis).ok_or_else(|| format!("no axis {axis} in shape {:?}", t.shape))?;
        if *n > size {
            return Err(format!("axis {axis} has {} elements, more than the bucket {size}", *n));
        }
        *n = size;
    }
    if shape == t.shape {
        return Ok(t.clone());
    }
    let fill = pad_element(t.dtype(), value)?;
    let src = t.strides();
    let total: usize = shape.iter().product();
    let mut picks = Vec::with_capacity(total);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..total {
        let inside = idx.iter().zip(&t.shape).all(|(i, n)| i < n);
        picks.push(if inside { (0, idx.iter().zip(&src).map(|(i, s)| i * s).sum()) } else { (1, 0) });
        advance(&mut idx, &shape);
    }
    Ok(Tensor::new(shape, pick(&[&t.data, &fill], &picks)?))
}

/// `t` cut to its first `size` elements along each `(axis, size)`.
pub fn slice_prefix(t: &Tensor, axes: &[(usize, usize)]) -> Result<Tensor, String> {
    let mut shape = t.shape.clone();
    for &(axis, size) in axes {
        let n = shape.get_mut(axis).ok_or_else(|| format!("no axis {axis} in shape {:?}", t.shape))?;
        *n = size.min(*n);
    }
    if shape == t.shape {
        return Ok(t.clone());
    }
    let src = t.strides();
    let total: usize = shape.iter().product();
    let mut flat = Vec::with_capacity(total);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..total {
        flat.push(idx.iter().zip(&src).map(|(i, s)| i * s).sum());
        advance(&mut idx, &shape);
    }
    Ok(Tensor::new(shape, t.data.gather(&flat)))
}

/// Step a row-major multi-index through `shape`.
fn advance(idx: &mut [usize], shape: &[usize]) {
    for a in (0..idx.len()).rev() {
        idx[a] += 1;
        if idx[a] < shape[a] {
            return;
        }
        idx[a] = 0;
    }
}
