//! DepthToSpace and SpaceToDepth: pure data movement, any element type.

use crate::interp::tensor::real::int_at_least;
use crate::interp::{EvalCtx, Tensor};

fn nchw(t: &Tensor) -> Result<[usize; 4], String> {
    match t.shape[..] {
        [n, c, h, w] => Ok([n, c, h, w]),
        _ => Err(format!("input must be 4-D [N, C, H, W], found {:?}", t.shape)),
    }
}

/// `onnx.DepthToSpace`: move `[N, C*b*b, H, W]` channel blocks into `[N, C, H*b, W*b]`;
/// `DCR` (default) takes the block offset from the outer channel bits, `CRD` from the inner.
pub fn depth_to_space(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let b = int_at_least(ctx, "blocksize", 0, 1)? as usize;
    let [n, c, h, w] = nchw(x)?;
    if b.checked_mul(b).is_none_or(|bb| c % bb != 0) {
        return Err(format!("channels {c} are not divisible by the square of blocksize {b}"));
    }
    let crd = ctx.str("mode", "DCR") == "CRD";
    let co = c / (b * b);
    let mut idx = Vec::with_capacity(x.len());
    for ni in 0..n {
        for ci in 0..co {
            for y in 0..h * b {
                for xx in 0..w * b {
                    let (by, bx) = (y % b, xx % b);
                    let src_c = if crd { (ci * b + by) * b + bx } else { (by * b + bx) * co + ci };
                    idx.push(((ni * c + src_c) * h + y / b) * w + xx / b);
                }
            }
        }
    }
    Ok(vec![Tensor::new(vec![n, co, h * b, w * b], x.data.gather(&idx))])
}

/// `onnx.SpaceToDepth`: move `b x b` spatial blocks of `[N, C, H, W]` into channels,
/// giving `[N, C*b*b, H/b, W/b]` (the inverse of DepthToSpace in DCR mode).
pub fn space_to_depth(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let b = int_at_least(ctx, "blocksize", 0, 1)? as usize;
    let [n, c, h, w] = nchw(x)?;
    if h % b != 0 || w % b != 0 {
        return Err(format!("spatial dims {h}x{w} are not divisible by blocksize {b}"));
    }
    let (ho, wo) = (h / b, w / b);
    let mut idx = Vec::with_capacity(x.len());
    for ni in 0..n {
        for oc in 0..c * b * b {
            let (by, bx, ci) = (oc / (b * c), (oc / c) % b, oc % c);
            for y in 0..ho {
                for xx in 0..wo {
                    idx.push(((ni * c + ci) * h + y * b + by) * w + xx * b + bx);
                }
            }
        }
    }
    Ok(vec![Tensor::new(vec![n, c * b * b, ho, wo], x.data.gather(&idx))])
}
