//! Per-channel statistics of chosen values over a sample set, for the
//! quantization steps that look inside a tensor (bias correction's means,
//! equalization's ranges).

use crate::calibrate::CalibError;
use ir::interp::{Data, Tensor};
use ir::{Module, Value};
use std::collections::BTreeMap;

/// One value's statistics per channel.
#[derive(Clone, Debug, Default)]
pub(super) struct Stats {
    /// Mean of each channel.
    pub mean: Vec<f64>,
    /// Smallest element of each channel.
    pub lo: Vec<f32>,
    /// Largest element of each channel.
    pub hi: Vec<f32>,
}

/// [`Stats`] of each key of `values` (channels along its axis, negative
/// from the last, resolved on each run's shape) over
/// `samples`, running `m`'s `@main` once per sample (`tick` after each).
/// A value whose channel count changes between samples, or that is not
/// f32, is left out. Deterministic: sums run in sample and element order.
pub(super) fn channel_stats(
    m: &Module,
    values: &BTreeMap<Value, isize>,
    samples: &[Vec<Tensor>],
    tick: &mut dyn FnMut(),
) -> Result<BTreeMap<Value, Stats>, CalibError> {
    let mut acc: BTreeMap<Value, (Stats, u64)> = BTreeMap::new();
    let mut bad = std::collections::BTreeSet::new();
    for (sample, inputs) in samples.iter().enumerate() {
        let (_, env) =
            ir::interp::run_traced(m, "main", inputs.clone()).map_err(|source| CalibError::Run { sample, source })?;
        for (&v, &axis) in values {
            let Some(Tensor { shape, data: Data::F32(xs) }) = env.get(&v) else { continue };
            let Ok(axis) = usize::try_from(if axis < 0 { shape.len() as isize + axis } else { axis }) else { continue };
            let Some(&c) = shape.get(axis).filter(|&&c| c > 0) else { continue };
            let inner = shape[axis + 1..].iter().product::<usize>().max(1);
            let fresh =
                || (Stats { mean: vec![0.0; c], lo: vec![f32::INFINITY; c], hi: vec![f32::NEG_INFINITY; c] }, 0);
            let (s, n) = acc.entry(v).or_insert_with(fresh);
            if s.mean.len() != c {
                bad.insert(v);
                continue;
            }
            for (i, &x) in xs.iter().enumerate() {
                let ch = (i / inner) % c;
                s.mean[ch] += f64::from(x);
                s.lo[ch] = s.lo[ch].min(x);
                s.hi[ch] = s.hi[ch].max(x);
            }
            *n += (xs.len() / c) as u64;
        }
        tick();
    }
    let done = |(mut s, n): (Stats, u64)| {
        s.mean.iter_mut().for_each(|x| *x /= n.max(1) as f64);
        s
    };
    Ok(acc.into_iter().filter(|(v, _)| !bad.contains(v)).map(|(v, a)| (v, done(a))).collect())
}
