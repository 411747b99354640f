//! Shape inference of the Reduce family.

mod cum_prod;
mod ops;
