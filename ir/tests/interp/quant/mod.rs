//! Quant-family kernels: QuantizeLinear / DequantizeLinear / DynamicQuantizeLinear,
//! MatMulInteger / QLinearMatMul, ConvInteger / QLinearConv.

mod integer_conv;
mod integer_matmul;
mod linear;
