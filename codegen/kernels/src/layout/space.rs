//! DepthToSpace/SpaceToDepth (transposes of 6-D views) and Range.

use super::transpose;

/// Channel order of `DepthToSpace`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum DepthToSpace {
    /// Depth-column-row: the block offset comes from the outer channel bits (default).
    Dcr,
    /// Column-row-depth: the block offset comes from the inner channel bits.
    Crd,
}

/// `[N, C*b*b, H, W]` → `[N, C, H*b, W*b]`.
pub fn depth_to_space<T: Copy>(shape: &[usize], block: usize, mode: DepthToSpace, x: &[T], y: &mut [T]) {
    let &[n, c, h, w] = shape else { panic!("depth_to_space: input {shape:?} must be [N, C, H, W]") };
    assert!(block > 0 && c % (block * block) == 0, "depth_to_space: {c} channels, block {block}");
    let (b, co) = (block, c / (block * block));
    match mode {
        DepthToSpace::Dcr => transpose(&[n, b, b, co, h, w], &[0, 3, 4, 1, 5, 2], x, y),
        DepthToSpace::Crd => transpose(&[n, co, b, b, h, w], &[0, 1, 4, 2, 5, 3], x, y),
    }
}

/// `[N, C, H, W]` → `[N, C*b*b, H/b, W/b]` (the inverse of DCR DepthToSpace).
pub fn space_to_depth<T: Copy>(shape: &[usize], block: usize, x: &[T], y: &mut [T]) {
    let &[n, c, h, w] = shape else { panic!("space_to_depth: input {shape:?} must be [N, C, H, W]") };
    assert!(block > 0 && h % block == 0 && w % block == 0, "space_to_depth: {h}x{w}, block {block}");
    let b = block;
    transpose(&[n, c, h / b, b, w / b, b], &[0, 3, 5, 1, 2, 4], x, y);
}

/// Number of `Range` elements, `max(ceil((limit - start) / delta), 0)` (in f64).
pub fn range_len_f32(start: f32, limit: f32, delta: f32) -> usize {
    assert!(delta != 0.0, "range: delta must not be 0");
    ((limit as f64 - start as f64) / delta as f64).ceil().max(0.0) as usize
}

/// Number of `Range` elements for integers.
pub fn range_len_i64(start: i64, limit: i64, delta: i64) -> usize {
    assert!(delta != 0, "range: delta must not be 0");
    let (d, s, l) = (delta as i128, start as i128, limit as i128);
    let (q, r) = ((l - s) / d, (l - s) % d);
    (q + i128::from(r != 0 && (r < 0) == (d < 0))).max(0) as usize
}

/// `y[i] = start + i * delta`, computed in f64 and rounded once.
pub fn range_f32(start: f32, delta: f32, y: &mut [f32]) {
    let (s, d) = (start as f64, delta as f64);
    y.iter_mut().enumerate().for_each(|(i, y)| *y = (s + i as f64 * d) as f32);
}

/// `y[i] = start + i * delta` (wrapping).
pub fn range_i64(start: i64, delta: i64, y: &mut [i64]) {
    y.iter_mut().enumerate().for_each(|(i, y)| *y = start.wrapping_add((i as i64).wrapping_mul(delta)));
}
