//! Norm-family kernels: the normalizations (Batch, Layer, Instance, Group, RMS, MVN, LRN,
//! Lp) and Softmax / LogSoftmax / Hardmax.

mod normalization;
mod softmax;
