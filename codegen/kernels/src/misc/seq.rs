//! ReverseSequence and Col2Im.

use crate::strided::{numel, stride};

/// `ReverseSequence`: along `time_axis`, reverse the first `lens[b]` steps
/// of each batch entry `b` (on `batch_axis`), copying the rest. Panics (a
/// run-time error) on a length outside `[0, time]`.
pub fn reverse_sequence<T: Copy, I: Copy + Into<i64>>(
    shape: &[usize],
    batch_axis: usize,
    time_axis: usize,
    lens: &[I],
    x: &[T],
    y: &mut [T],
) {
    assert!(batch_axis < shape.len() && time_axis < shape.len() && batch_axis != time_axis, "reverse_sequence: axes");
    assert!(x.len() == numel(shape) && y.len() == x.len(), "reverse_sequence: lengths for {shape:?}");
    let (batch, time) = (shape[batch_axis], shape[time_axis]);
    assert_eq!(lens.len(), batch, "reverse_sequence: {} lengths for a batch of {batch}", lens.len());
    for &l in lens {
        let l: i64 = l.into();
        assert!(
            (0..=time as i64).contains(&l),
            "ReverseSequence: sequence length {l} is out of range for {time} steps"
        );
    }
    let (sb, st) = (stride(shape, batch_axis) as usize, stride(shape, time_axis) as usize);
    for (i, o) in y.iter_mut().enumerate() {
        let (b, t) = ((i / sb) % batch, (i / st) % time);
        let l = lens[b].into() as usize;
        *o = if t < l { x[i + (l - 1 - t) * st - t * st] } else { x[i] };
    }
}

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
                super::next_index(&mut l[..n], g.blocks);
            }
            super::next_index(&mut k[..n], g.block);
        }
    }
}
