//! Every kernel of edgec-kernels compared with edgec's reference interpreter
//! (`ir::interp::eval_op`) on random shapes and data (proptest).

mod common;
mod datadep;
mod dtypes;
mod elementwise;
mod layout;
mod lowp8;
mod norm;
mod quant_low;
mod quant_shaped;
mod reduce;
mod resample;
mod scan;
mod signal;
mod sizes;
mod vision;
mod wide;
