//! Shape inference of the Layout family.

mod ops;
mod split_uneven;
