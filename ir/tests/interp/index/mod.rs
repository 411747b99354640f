//! Index-family kernels: Gather / GatherElements / GatherND / OneHot, ScatterElements /
//! ScatterND, TensorScatter.

mod gather;
mod scatter;
mod tensor_scatter;
