//! OneHot with a `values` operand and integer or float indices.

use crate::strided::numel;

/// Index element types of OneHot: integers, or floats truncated toward zero.
pub trait AsIndex: Copy {
    /// The index value.
    fn as_index(self) -> i64;
}

macro_rules! as_index {
    ($($t:ty),*) => {$(
        impl AsIndex for $t {
            #[inline]
            fn as_index(self) -> i64 {
                self as i64
            }
        }
    )*};
}
as_index!(i64, i32, i8, u8, f32);

/// `OneHot`: a new axis of `depth` at `axis` of `idx_shape` (so `y` has
/// `idx_shape[..axis] ++ [depth] ++ idx_shape[axis..]`), `values[1]` where
/// the coordinate equals the index (negative counting from `depth`),
/// `values[0]` elsewhere; indices outside `[-depth, depth)` give all-off lines.
pub fn one_hot<T: Copy, I: AsIndex>(
    idx_shape: &[usize],
    axis: usize,
    depth: usize,
    indices: &[I],
    values: &[T],
    y: &mut [T],
) {
    assert!(axis <= idx_shape.len() && values.len() == 2, "one_hot: axis {axis}, {} values", values.len());
    let (outer, inner) = (numel(&idx_shape[..axis]), numel(&idx_shape[axis..]));
    assert_eq!(indices.len(), outer * inner, "one_hot: indices for {idx_shape:?}");
    assert_eq!(y.len(), outer * depth * inner, "one_hot: y holds {} elements", y.len());
    for o in 0..outer {
        for i in 0..inner {
            let v = indices[o * inner + i].as_index();
            let v = if v < 0 { v + depth as i64 } else { v };
            for d in 0..depth {
                y[(o * depth + d) * inner + i] = values[usize::from(v == d as i64)];
            }
        }
    }
}
