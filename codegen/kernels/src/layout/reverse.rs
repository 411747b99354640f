//! ReverseSequence.

use crate::rt::Error;
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

/// [`reverse_sequence`] with shapes known only when the model runs: the
/// axes, lengths and sequence lengths checked, an [`Error`] naming the op
/// (`what`) instead of a panic.
pub fn reverse_sequence_checked<T: Copy, I: Copy + Into<i64>>(
    what: &str,
    shape: &[usize],
    (batch_axis, time_axis): (usize, usize),
    lens: &[I],
    x: &[T],
    y: &mut [T],
) -> Result<(), Error> {
    let fits = batch_axis < shape.len() && time_axis < shape.len() && batch_axis != time_axis;
    if !fits || x.len() != numel(shape) || y.len() != x.len() {
        return Err(Error(format!("{what}: bad axes or lengths for an input of shape {shape:?}")));
    }
    let (batch, time) = (shape[batch_axis], shape[time_axis]);
    if lens.len() != batch {
        return Err(Error(format!("{what}: {} sequence lengths for a batch of {batch}", lens.len())));
    }
    if let Some(l) = lens.iter().map(|&l| l.into()).find(|l| !(0..=time as i64).contains(l)) {
        return Err(Error(format!("{what}: sequence length {l} is out of range for {time} steps")));
    }
    reverse_sequence(shape, batch_axis, time_axis, lens, x, y);
    Ok(())
}
