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
