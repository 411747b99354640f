//! edgec's test infrastructure: the filetest runner (see `testsuite/README.md`).

pub mod conformance;
pub mod contrib;
pub mod contrib_rust;
pub mod filetest;
pub mod onnx_data;
pub mod par;
pub mod rulecheck;
pub mod rustbatch;
pub mod wild;
