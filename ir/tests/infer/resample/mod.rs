//! Shape inference of the Resample family.

mod affine_grid;
mod resize;
