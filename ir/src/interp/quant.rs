//! Reference kernels: quant family. Linear (de)quantization (QuantizeLinear,
//! DequantizeLinear, DynamicQuantizeLinear) in [`linear`], and integer and
//! quantized linear algebra (MatMulInteger, QLinearMatMul in [`matmul`];
//! ConvInteger, QLinearConv in [`conv`]) on the helpers here.
//!
//! Integer products and sums are computed on i32 and wrap (the spec allows
//! overflow only of 32-bit accumulation). Requantization follows the ONNX
//! reference: the scale multiplier is computed in the scales' float type, the
//! product with the accumulator in f64, then rounded half to even and saturated.

pub mod conv;
pub mod fused;
pub mod linear;
pub mod matmul;

pub use conv::{conv_integer, qlinear_conv, quant_conv};
pub use fused::{quant_add, quant_global_avg_pool, quant_lut, quant_mul, quant_sub};
pub use linear::{dequantize_linear, dynamic_quantize_linear, quantize_linear};
pub use matmul::{matmul_integer, qlinear_matmul};

use crate::interp::broadcast::{broadcast_map, broadcast_shapes};
use crate::interp::tensor::real::round_to;
use crate::interp::{Data, Tensor};
use crate::types::DType;

/// The elements of an i8 or u8 tensor as i32.
fn q8_values(t: &Tensor, what: &str) -> Result<Vec<i32>, String> {
    match &t.data {
        Data::I8(v) => Ok(v.iter().map(|&x| x as i32).collect()),
        Data::U8(v) => Ok(v.iter().map(|&x| x as i32).collect()),
        _ => Err(format!("{what} has element type {}, expected i8 or u8", t.dtype())),
    }
}

/// The elements of an f32, f16 or bf16 scale tensor as f32, with its element type.
fn scale_values(t: &Tensor, what: &str) -> Result<(Vec<f32>, DType), String> {
    let v = match &t.data {
        Data::F32(v) => v.clone(),
        Data::F16(v) => v.iter().map(|x| x.to_f32()).collect(),
        Data::BF16(v) => v.iter().map(|x| x.to_f32()).collect(),
        _ => return Err(format!("{what} has element type {}, expected f32, f16 or bf16", t.dtype())),
    };
    Ok((v, t.dtype()))
}

/// For each flat index of `target`, the element of the quantization parameter `p` it
/// uses. A single value is per tensor; with `row`, a 1-D parameter of several values
/// is one value per row (laid out as `[len, 1]`); otherwise `p` numpy-broadcasts.
fn param_map(p: &Tensor, target: &[usize], row: bool, what: &str) -> Result<Vec<usize>, String> {
    let n = target.iter().product();
    if p.len() == 1 {
        return Ok(vec![0; n]);
    }
    let shape = if row && p.rank() == 1 && target.len() >= 2 { vec![p.len(), 1] } else { p.shape.clone() };
    if shape.len() > target.len() || broadcast_shapes(&[&shape, target]).ok().as_deref() != Some(target) {
        return Err(format!("{what} of shape {:?} does not fit an operand of shape {target:?}", p.shape));
    }
    Ok(broadcast_map(&shape, target))
}

/// `x - zero_point` as i32, `x` viewed with shape `shape` (see [`param_map`] for `row`).
fn centered(x: &Tensor, zp: Option<&Tensor>, shape: &[usize], row: bool, what: &str) -> Result<Vec<i32>, String> {
    let mut v = q8_values(x, "quantized operand")?;
    if let Some(zp) = zp {
        if zp.dtype() != x.dtype() {
            return Err(format!("{what} has element type {}, expected {}", zp.dtype(), x.dtype()));
        }
        let z = q8_values(zp, what)?;
        let map = param_map(zp, shape, row, what)?;
        v.iter_mut().zip(map).for_each(|(x, j)| *x -= z[j]);
    }
    Ok(v)
}

/// Round half to even and saturate to the range of the i8/u8 type `dt`.
fn saturate(dt: DType, shape: Vec<usize>, v: &[f64]) -> Result<Tensor, String> {
    let data = match dt {
        DType::I8 => Data::I8(v.iter().map(|x| x.round_ties_even() as i8).collect()),
        DType::U8 => Data::U8(v.iter().map(|x| x.round_ties_even() as u8).collect()),
        other => return Err(format!("quantized results of element type {other} are not supported (i8 or u8)")),
    };
    Ok(Tensor::new(shape, data))
}

/// A per-tensor (one value) or per-output-channel (`[m]`) parameter as `m` values.
fn per_channel<T: Copy>(v: &[T], shape: &[usize], m: usize, what: &str) -> Result<Vec<T>, String> {
    match v.len() {
        1 => Ok(vec![v[0]; m]),
        len if len == m && shape.len() == 1 => Ok(v.to_vec()),
        _ => Err(format!("{what} of shape {shape:?} must be a scalar or have shape [{m}] (output channels)")),
    }
}
