//! Axis arithmetic shared by shape inference, the interpreter, the Rust
//! backend and the kernels (each words its own error).

/// `axis` in `[-rank, rank)` as an index in `[0, rank)`, negative axes
/// counting from the end; `None` outside that range.
pub fn normalize_axis(axis: i64, rank: usize) -> Option<usize> {
    let r = rank as i64;
    if axis < -r || axis >= r {
        return None;
    }
    Some((if axis < 0 { axis + r } else { axis }) as usize)
}

/// Row-major strides of `shape` (the last axis has stride 1).
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

#[cfg(test)]
mod tests {
    use super::normalize_axis;

    #[test]
    fn negative_axes_count_from_the_end_and_out_of_range_is_none() {
        assert_eq!(normalize_axis(-1, 3), Some(2));
        assert_eq!(normalize_axis(-3, 3), Some(0));
        assert_eq!(normalize_axis(2, 3), Some(2));
        assert_eq!(normalize_axis(3, 3), None);
        assert_eq!(normalize_axis(-4, 3), None);
        assert_eq!(normalize_axis(0, 0), None);
    }
}
