//! Col2Im: the inverse of im2col, summing the columns of sliding blocks
//! back into an image.

use crate::strided::{next_index, numel};

/// The most spatial axes [`col2im`] takes.
pub const COL2IM_MAX_RANK: usize = 6;

/// Col2Im geometry over `n = image.len()` spatial axes.
#[derive(Copy, Clone, Debug)]
pub struct Col2Im<'a> {
    /// Batch size `N`.
    pub batch: usize,
    /// Channels `C` (the input has `C · prod(block)` rows).
    pub channels: usize,
    /// Image size per spatial axis.
    pub image: &'a [usize],
    /// Block (kernel) size per axis.
    pub block: &'a [usize],
    /// Blocks per axis (`L = prod(blocks)` columns).
    pub blocks: &'a [usize],
    /// Stride per axis.
    pub strides: &'a [usize],
    /// Dilation per axis.
    pub dilations: &'a [usize],
    /// Leading pad per axis.
    pub pads: &'a [usize],
}

/// `Col2Im`: scatter-add the `[N, C·K, L]` columns `x` into the
/// `[N, C, image...]` output, column element `(c, k, l)` landing at
/// `l · stride + k · dilation - pad` per axis (dropped outside the image);
/// sums run in the interpreter's order (tap-major, then block).
pub fn col2im(g: &Col2Im<'_>, x: &[f32], y: &mut [f32]) {
    let n = g.image.len();
    assert!(n <= COL2IM_MAX_RANK, "col2im: {n} spatial axes (at most {COL2IM_MAX_RANK})");
    let (ks, ls, is) = (numel(g.block), numel(g.blocks), numel(g.image));
    assert_eq!(x.len(), g.batch * g.channels * ks * ls, "col2im: input holds {} elements", x.len());
    assert_eq!(y.len(), g.batch * g.channels * is, "col2im: output holds {} elements", y.len());
    y.fill(0.0);
    for bc in 0..g.batch * g.channels {
        let (src, dst) = (&x[bc * ks * ls..(bc + 1) * ks * ls], &mut y[bc * is..(bc + 1) * is]);
        let mut k = [0usize; COL2IM_MAX_RANK];
        for kf in 0..ks {
            let mut l = [0usize; COL2IM_MAX_RANK];
            for lf in 0..ls {
                let mut at = Some(0usize);
                for a in 0..n {
                    let p = (l[a] * g.strides[a] + k[a] * g.dilations[a]) as i64 - g.pads[a] as i64;
                    at = at.filter(|_| p >= 0 && (p as usize) < g.image[a]).map(|f| f * g.image[a] + p as usize);
                }
                if let Some(f) = at {
                    dst[f] += src[kf * ls + lf];
                }
                next_index(&mut l[..n], g.blocks);
            }
            next_index(&mut k[..n], g.block);
        }
    }
}

/// Col2Im's channel count `C` for an input of `rows = C · prod(block)`
/// rows. Errors (naming the op): a block entry below 1, `rows` not a
/// multiple of the block's size.
pub fn col2im_channels(rows: usize, block_shape: &[i64]) -> Result<usize, crate::rt::Error> {
    let bad = || crate::rt::Error(format!("Col2Im: block_shape {block_shape:?} does not divide {rows} input rows"));
    let mut k = 1usize;
    for &b in block_shape {
        k = usize::try_from(b).ok().filter(|&b| b >= 1).and_then(|b| k.checked_mul(b)).ok_or_else(bad)?;
    }
    if rows.is_multiple_of(k) {
        Ok(rows / k)
    } else {
        Err(bad())
    }
}

/// `Col2Im` with `image_shape` and `block_shape` read when the model runs:
/// `x [batch, channels · prod(block), L]` (`x_dims`) into `y [batch,
/// channels, image..]`; `strides`, `dilations` (one per axis) and `pads`
/// (begins then ends) are the attributes. Errors (naming the op): shapes
/// of another rank, non-positive entries, an image that is not the
/// declared `image` (`y`'s spatial dims), a channel or block count that
/// does not divide or match the input.
#[allow(clippy::too_many_arguments)]
pub fn col2im_checked(
    x_dims: [usize; 3],
    image_shape: &[i64],
    block_shape: &[i64],
    strides: &[usize],
    dilations: &[usize],
    pads: &[usize],
    image: &[usize],
    x: &[f32],
    y: &mut [f32],
) -> Result<(), crate::rt::Error> {
    let err = |m: String| Err(crate::rt::Error(format!("Col2Im: {m}")));
    let n = image.len();
    if image_shape.len() != n || block_shape.len() != n || n > COL2IM_MAX_RANK {
        return err(format!("image_shape {image_shape:?} and block_shape {block_shape:?} must have {n} entries"));
    }
    let (mut block, mut blocks) = ([0usize; COL2IM_MAX_RANK], [0usize; COL2IM_MAX_RANK]);
    for a in 0..n {
        if image_shape[a] != image[a] as i64 {
            return err(format!("image_shape {image_shape:?} is not the declared {image:?}"));
        }
        if block_shape[a] < 1 || strides[a] == 0 {
            return err(format!("block_shape {block_shape:?} must be positive"));
        }
        block[a] = block_shape[a] as usize;
        let extent = dilations[a] * (block[a] - 1) + 1;
        let padded = image[a] + pads[a] + pads[a + n];
        if padded < extent {
            return err(format!("axis {a}: block extent {extent} exceeds the padded image {padded}"));
        }
        blocks[a] = (padded - extent) / strides[a] + 1;
    }
    let (ks, ls) = (numel(&block[..n]), numel(&blocks[..n]));
    if ks == 0 || !x_dims[1].is_multiple_of(ks) || ls != x_dims[2] {
        return err(format!("input {x_dims:?} does not match {ks} block elements and {ls} blocks"));
    }
    let g = Col2Im {
        batch: x_dims[0],
        channels: x_dims[1] / ks,
        image,
        block: &block[..n],
        blocks: &blocks[..n],
        strides,
        dilations,
        pads: &pads[..n],
    };
    if y.len() != g.batch * g.channels * numel(image) {
        return err(format!("{} channels do not match the declared output", g.channels));
    }
    col2im(&g, x, y);
    Ok(())
}
