//! Max and Min of two operands as MAXIMUM and MINIMUM, which TFLite and
//! Vela run on one grid: both inputs and the result share its scale and
//! zero point (Vela's `constraint_matching_quantization_parameters`).
//!
//! Each activation operand on another grid is moved to the result's by a
//! QUANTIZE; a constant operand is written on the result's grid by
//! QuantizeLinear's own rounding. Rounding is monotone, so the maximum of
//! two rounded values is the rounding of the maximum: the QDQ form's result
//! up to the one rounding of each QUANTIZE (within 1 LSB); with a constant
//! bound (`max(x, -0.4)`, a clamp tf2onnx writes as Max) and `x` already on
//! the result's grid, exact.

use super::super::graph::{Quant, TensorId};
use super::super::{layout, Emitter};
use super::{elementwise_layout, weight};
use crate::schema as tfl;
use edgec_numeric::quant::quantize_f32;
use ir::{OpData, Value};

/// `onnx.Max` / `onnx.Min` of two operands (`code`: MAXIMUM or MINIMUM).
pub(in crate::emit) fn minmax(e: &mut Emitter<'_>, op: &OpData, code: tfl::BuiltinOperator) -> Result<(), String> {
    let operands: Vec<Value> = op.inputs().collect();
    if operands.len() != 2 {
        return Err(format!("{} operands (MAXIMUM and MINIMUM take two)", operands.len()));
    }
    let rank = e.dims(op.results[0])?.len();
    let perm = elementwise_layout(e, op, rank);
    let ty = e.output_stored(op, 0, perm.clone())?;
    let q = e.g.quant(ty).ok_or("its result has no grid")?;
    if q.scale.len() != 1 {
        return Err("a result quantized per channel".into());
    }
    let name = e.value_name(op.results[0]);
    let to = Target { perm: &perm, q: &q, ty };
    let mut ins = [ty; 2];
    for (k, &v) in operands.iter().enumerate() {
        let label = format!("{name}.{}", ["a", "b"][k]);
        ins[k] = match e.stored(v) {
            Ok(_) => on_grid(e, v, &to, &label)?,
            Err(_) => constant_on_grid(e, v, &to, &label)?,
        };
    }
    e.g.op(code, &ins, &[ty], None);
    Ok(())
}

/// Where the operands go: the result's layout, grid and tensor.
struct Target<'a> {
    perm: &'a [usize],
    q: &'a Quant,
    ty: TensorId,
}

/// Activation `v` in the result's layout and on its grid: as stored, or
/// through a QUANTIZE.
fn on_grid(e: &mut Emitter<'_>, v: Value, to: &Target<'_>, label: &str) -> Result<TensorId, String> {
    let Target { perm, q, ty } = *to;
    if e.dims(v)?.len() != perm.len() {
        return Err(format!("{} broadcasts from another rank, which is not written yet", e.value_name(v)));
    }
    let t = e.stored(v)?;
    let t = if e.perm(t) == perm { t } else { e.activation(v)? };
    if e.g.quant(t).as_ref() == Some(q) {
        return Ok(t);
    }
    let moved = e.g.tensor(&format!("{label}.on_grid"), &e.g.shape(t), e.g.dtype(ty), Some(q.clone()));
    e.set_perm(moved, perm.to_vec());
    e.g.op(tfl::BuiltinOperator::Quantize, &[t], &[moved], None);
    Ok(moved)
}

/// Constant `v` (float, or a dequantized per-tensor integer constant) on
/// the result's grid by QuantizeLinear's rounding, broadcast to its rank
/// and laid out as it is.
fn constant_on_grid(e: &mut Emitter<'_>, v: Value, to: &Target<'_>, label: &str) -> Result<TensorId, String> {
    let Target { perm, q, ty } = *to;
    let vals: Vec<f32> = match e.const_of(v).filter(|c| c.ty.dtype.is_float()) {
        Some(c) => c.to_f64s().ok_or("unreadable constant")?.into_iter().map(|x| x as f32).collect(),
        None => {
            let reals = weight(e, v)?.reals();
            let reals =
                reals.ok_or_else(|| format!("{}: a constant operand not on one 8- or 16-bit grid", e.value_name(v)))?;
            reals.into_iter().map(|x| x as f32).collect()
        }
    };
    let d = e.dims(v)?;
    if d.len() > perm.len() {
        return Err(format!("{} has a higher rank than the result", e.value_name(v)));
    }
    let mut dims = vec![1; perm.len() - d.len()];
    dims.extend(&d);
    let (s, z) = (q.scale[0], q.zero_point[0] as i32);
    let (bytes, width): (Vec<u8>, usize) = if e.g.dtype(ty) == tfl::TensorType::Int16 {
        (vals.iter().flat_map(|&x| (quantize_f32(x, s, z, -32768, 32767) as i16).to_le_bytes()).collect(), 2)
    } else {
        (vals.iter().map(|&x| quantize_f32(x, s, z, -128, 127) as i8 as u8).collect(), 1)
    };
    let data = layout::permute(&bytes, width, &dims, perm);
    let shape: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
    Ok(e.g.constant(label, &shape, e.g.dtype(ty), Some(q.clone()), data))
}
