//! `TensorScatter` (a KV-cache update): `y` is `past` with `update` written
//! along one axis from position `write_indices[b]` of each batch entry `b`
//! (0 without indices); `circular` wraps positions modulo the axis, `linear`
//! requires them to fit (a run-time error otherwise, the kernel panics naming
//! the position).

/// The static geometry of a TensorScatter.
#[derive(Copy, Clone, Debug)]
pub struct TensorScatter {
    /// Product of the dims before the axis (batch included).
    pub outer: usize,
    /// Product of the dims between the batch axis and the axis.
    pub per_batch: usize,
    /// The cache's axis size.
    pub max_seq: usize,
    /// The update's axis size.
    pub seq: usize,
    /// Product of the dims after the axis.
    pub inner: usize,
    /// Wrap positions instead of requiring them to fit.
    pub circular: bool,
}

/// `y` = `past` with `update` scattered in (see the module doc).
pub fn tensor_scatter<T: Copy>(p: &TensorScatter, past: &[T], update: &[T], write: Option<&[i64]>, y: &mut [T]) {
    assert_eq!(past.len(), p.outer * p.max_seq * p.inner, "TensorScatter: past_cache length");
    assert_eq!(update.len(), p.outer * p.seq * p.inner, "TensorScatter: update length");
    y.copy_from_slice(past);
    for o in 0..p.outer {
        let start = write.map_or(0, |w| w[o / p.per_batch.max(1)]);
        for s in 0..p.seq {
            let mut pos = start + s as i64;
            if p.circular {
                pos = pos.rem_euclid(p.max_seq as i64);
            }
            assert!(
                (0..p.max_seq as i64).contains(&pos),
                "TensorScatter: write position {pos} is outside the cache axis of size {}",
                p.max_seq
            );
            let (dst, src) = ((o * p.max_seq + pos as usize) * p.inner, (o * p.seq + s) * p.inner);
            y[dst..dst + p.inner].copy_from_slice(&update[src..src + p.inner]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_at_each_batch_position() {
        let p = TensorScatter { outer: 2, per_batch: 1, max_seq: 3, seq: 2, inner: 1, circular: true };
        let mut y = [0; 6];
        tensor_scatter(&p, &[1, 2, 3, 4, 5, 6], &[7, 8, 9, 10], Some(&[1, 2]), &mut y);
        assert_eq!(y, [1, 7, 8, 10, 5, 9]);
    }
}
