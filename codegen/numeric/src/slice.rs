//! Index arithmetic of Slice.

/// `(first index, count)` of ONNX `start:end:step` over a dim of size `n`:
/// negative `start`/`end` count from the end, out-of-range values clamp, and
/// an empty result starts at 0. Step 0 is invalid in ONNX, and every caller
/// reports it as an error first; here it takes nothing (no panic path).
pub fn slice_range(n: u64, start: i64, end: i64, step: i64) -> (u64, u64) {
    if n == 0 || step == 0 {
        return (0, 0);
    }
    let (n, s, e, st) = (n as i128, start as i128, end as i128, step as i128);
    let adj = |x: i128| if x < 0 { x + n } else { x };
    let (s, e) = if st > 0 {
        (adj(s).clamp(0, n), adj(e).clamp(0, n))
    } else {
        (adj(s).clamp(0, n - 1), adj(e).clamp(-1, n - 1))
    };
    let (span, stride) = if st > 0 { (e - s, st) } else { (s - e, -st) };
    let len = if span <= 0 { 0 } else { (span + stride - 1) / stride };
    if len == 0 {
        (0, 0)
    } else {
        (s as u64, len as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::slice_range;

    #[test]
    fn onnx_clamping() {
        assert_eq!(slice_range(5, 1, i64::MAX, 2), (1, 2));
        assert_eq!(slice_range(5, -1, i64::MIN, -1), (4, 5));
        assert_eq!(slice_range(5, 3, 1, 1), (0, 0));
        assert_eq!(slice_range(0, 0, -1, -1), (0, 0));
        assert_eq!(slice_range(5, 0, 5, 0), (0, 0));
    }
}
