//! Select-family kernels: Compress, NonZero, NonMaxSuppression, TopK, Unique.

mod compress_nonzero;
mod nms;
mod sort;
