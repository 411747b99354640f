//! edgec's test infrastructure: the filetest runner (see `testsuite/README.md`).

pub mod filetest;
