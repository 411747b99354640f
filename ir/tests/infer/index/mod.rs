//! Shape inference of the Index family.

mod gather;
mod tensor_scatter;
