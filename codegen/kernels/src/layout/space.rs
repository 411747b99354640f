//! DepthToSpace/SpaceToDepth (transposes of 6-D views).

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
