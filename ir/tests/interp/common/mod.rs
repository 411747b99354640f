//! Helper sets shared by the family modules of this test binary. Each is the helper set of
//! one former test binary, kept verbatim so the moved tests compile unchanged; a test module
//! imports the set its tests were written against.

pub mod elementwise;
pub mod fused;
pub mod loss;
pub mod nn;
pub mod qlinear;
pub mod shape;
