//! Layout-family kernels: Reshape, Transpose, Concat, Split, Squeeze / Unsqueeze / Flatten,
//! Expand, Tile, Shape / Size, Slice, Pad, CenterCropPad, ReverseSequence, DepthToSpace /
//! SpaceToDepth.

mod depth_space;
mod shapes;
mod slicing;
mod split_uneven;
