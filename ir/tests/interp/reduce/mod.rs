//! Reduce-family kernels: the Reduce* ops, ArgMax / ArgMin, CumSum, CumProd.

mod cum_prod;
mod ops;
