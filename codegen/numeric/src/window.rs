//! Sliding-window geometry shared by the kernels (run-time `auto_pad`), the
//! TFLite writer (SAME or VALID) and the target profiles' window limits.

/// `(begin, end)` padding of `auto_pad` SAME_UPPER (`lower` false: the odd
/// one after, which is also TFLite's SAME) or SAME_LOWER, for an output of
/// `ceil(input / stride)` with kernel `k` dilated by `dil`.
pub fn same_pads(input: usize, k: usize, stride: usize, dil: usize, lower: bool) -> (usize, usize) {
    let out = input.div_ceil(stride.max(1));
    let need = (out.saturating_sub(1)) * stride + (k.max(1) - 1) * dil + 1;
    let total = need.saturating_sub(input);
    let small = total / 2;
    if lower {
        (total - small, small)
    } else {
        (small, total - small)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_pads_put_the_odd_one_after_or_before() {
        assert_eq!(same_pads(5, 3, 2, 1, false), (1, 1));
        assert_eq!(same_pads(6, 3, 2, 1, false), (0, 1));
        assert_eq!(same_pads(6, 3, 2, 1, true), (1, 0));
        // 16 wide, 5x5 stride 4: 4 outputs need 17 columns, one pad after.
        assert_eq!(same_pads(16, 5, 4, 1, false), (0, 1));
    }
}
