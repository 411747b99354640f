//! Helper sets shared by the family modules of this test binary. Each is the helper set of
//! one former test file, kept verbatim so the moved tests compile unchanged.

pub mod dims;
pub mod listed;
pub mod listed_consts;
pub mod text;
