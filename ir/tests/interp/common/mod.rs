//! Helper sets shared by the family modules of this test binary. Each is the helper set of
//! one former test binary (its `run`/`check` conventions differ, so the moved tests compile
//! unchanged); a test module imports the set its tests were written against. The tensor and
//! attribute builders they had in common live once, in `tensors`, which every set re-exports.

pub mod elementwise;
pub mod fused;
pub mod loss;
pub mod nn;
pub mod qlinear;
pub mod shape;
pub mod tensors;
