//! Reference kernels: select family, the ops whose result size depends on
//! the data: NonZero and Compress here, TopK and Unique in [`sort`],
//! NonMaxSuppression in [`nms`]. NonZero, Compress, TopK and Unique move
//! elements by index maps like the layout kernels, so every element type is
//! supported.

use crate::interp::broadcast::norm_axis;
use crate::interp::tensor::wide::{is_nonzero, numel, unravel};
use crate::interp::{Data, EvalCtx, Tensor};

pub mod nms;
pub mod sort;

pub use nms::non_max_suppression;
pub use sort::{top_k, unique};

type Out = Result<Vec<Tensor>, String>;

/// Positions kept by a Compress condition over `n` entries.
fn compress_positions(cond: &Tensor, n: usize) -> Result<Vec<usize>, String> {
    if cond.rank() != 1 {
        return Err(format!("`condition` must be 1-D, found shape {:?}", cond.shape));
    }
    let keep: Vec<usize> = (0..cond.len()).filter(|&i| is_nonzero(&cond.data, i)).collect();
    if let Some(&i) = keep.iter().find(|&&i| i >= n) {
        return Err(format!("`condition` selects entry {i} of an axis of size {n}"));
    }
    Ok(keep)
}

/// `onnx.Compress`: keep the slices along `axis` (or flattened elements) whose condition is true.
pub fn compress(ctx: &EvalCtx<'_>) -> Out {
    let data = ctx.input(0)?;
    let cond = ctx.input(1)?;
    let Some(axis) = ctx.attrs.int("axis") else {
        let keep = compress_positions(cond, data.len())?;
        return Ok(vec![Tensor::new(vec![keep.len()], data.data.gather(&keep))]);
    };
    let ax = norm_axis(axis, data.rank())?;
    let n = data.shape[ax];
    let keep = compress_positions(cond, n)?;
    let mut shape = data.shape.clone();
    shape[ax] = keep.len();
    let (outer, inner) = (numel(&data.shape[..ax]), numel(&data.shape[ax + 1..]));
    let mut map = Vec::with_capacity(numel(&shape));
    for o in 0..outer {
        for &j in &keep {
            map.extend((0..inner).map(|k| (o * n + j) * inner + k));
        }
    }
    Ok(vec![Tensor::new(shape, data.data.gather(&map))])
}

/// `onnx.NonZero`: the coordinates of non-zero (non-empty for strings) elements,
/// as an i64 `[rank, count]` tensor in row-major order.
pub fn non_zero(ctx: &EvalCtx<'_>) -> Out {
    let x = ctx.input(0)?;
    let hits: Vec<usize> = (0..x.len()).filter(|&i| is_nonzero(&x.data, i)).collect();
    let r = x.rank();
    let mut out = vec![0i64; r * hits.len()];
    for (j, &flat) in hits.iter().enumerate() {
        for (k, c) in unravel(flat, &x.shape).into_iter().enumerate() {
            out[k * hits.len() + j] = c as i64;
        }
    }
    Ok(vec![Tensor::new(vec![r, hits.len()], Data::I64(out))])
}
