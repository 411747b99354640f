//! Shape rules of the quantization family: QuantizeLinear,
//! DequantizeLinear and DynamicQuantizeLinear keep their input's shape;
//! MatMulInteger and QLinearMatMul follow MatMul, ConvInteger and
//! QLinearConv the convolution window. Whether the scales and zero points
//! fit the data's shape is checked where it is known: when generating for
//! literal dims, by the kernels (`k::quant::shaped`) when the model runs.

use super::{nn, ShapeCx, Sz};
use ir::Opcode;

type Shapes = Result<Option<Vec<Vec<Sz>>>, String>;

/// The rule for `sc.op` if it is a quantization op.
pub fn shapes(sc: &mut ShapeCx<'_>) -> Shapes {
    use Opcode::*;
    let op = sc.op;
    Ok(Some(match op.opcode {
        QuantizeLinear | DequantizeLinear => vec![sc.dims(0)?.to_vec()],
        DynamicQuantizeLinear => vec![sc.dims(0)?.to_vec(), vec![], vec![]],
        MatMulInteger | QLinearMatMul => {
            let (a, b) = if op.opcode == QLinearMatMul { (0, 3) } else { (0, 1) };
            let (a, b) = (sc.dims(a)?.to_vec(), sc.dims(b)?.to_vec());
            inner_dims_agree(&a, &b)?;
            vec![nn::matmul(sc, &a, &b)?]
        }
        ConvInteger | QLinearConv => {
            let (x, w) = if op.opcode == QLinearConv { (0, 3) } else { (0, 1) };
            let wd = sc.dims(w)?.to_vec();
            if wd.len() < 3 {
                return Err(format!("the weights of rank {} need rank >= 3", wd.len()));
            }
            let kernel: Vec<Sz> = wd[2..].to_vec();
            let mut y = nn::window_shape(sc, x, &kernel, false)?;
            y[1] = wd[0].clone();
            vec![y]
        }
        _ => return Ok(None),
    }))
}

/// Literal inner dims of a matmul must agree (symbolic ones are checked by
/// the kernel when the model runs).
fn inner_dims_agree(a: &[Sz], b: &[Sz]) -> Result<(), String> {
    let k_a = a.last();
    let k_b = if b.len() == 1 { b.first() } else { b.get(b.len().wrapping_sub(2)) };
    match (k_a.and_then(Sz::lit), k_b.and_then(Sz::lit)) {
        (Some(x), Some(y)) if x != y => Err(format!("inner dims {x} and {y} differ")),
        _ => Ok(()),
    }
}
