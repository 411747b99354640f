//! Einsum: explicit and implicit outputs, ellipsis broadcasting, repeated labels
//! (diagonals) and summation, computed naively over every label assignment.

use crate::interp::tensor::real::{from_int_bits, int_bits, next_index, reals, to_tensor, Ring};
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;
use edgec_numeric::einsum::{loop_nest, LoopNest};

fn run<T: Ring>(p: &LoopNest, data: &[Vec<T>]) -> Vec<T> {
    let out_len: usize = p.out_shape.iter().product();
    let mut out = vec![T::ZERO; out_len];
    if p.dims.iter().all(|&d| d > 0) {
        let sum_len: usize = p.dims[p.out_shape.len()..].iter().product();
        let mut idx = vec![0; p.dims.len()];
        for o in out.iter_mut() {
            let mut acc = T::ZERO;
            for _ in 0..sum_len {
                let term = p.access.iter().zip(data).fold(T::ONE, |prod, (acc_axes, d)| {
                    prod.mul(d[acc_axes.iter().map(|&(pos, st)| idx[pos] * st).sum::<usize>()])
                });
                acc = acc.add(term);
                next_index(&mut idx, &p.dims);
            }
            *o = acc;
        }
    }
    out
}

/// `onnx.Einsum`: numpy `einsum` semantics for numeric tensors (integers wrap).
pub fn einsum(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let equation = ctx.attrs.str("equation").ok_or("missing required attribute `equation`")?;
    let xs: Vec<&Tensor> = (0..ctx.inputs.len()).map(|i| ctx.input(i)).collect::<Result<_, _>>()?;
    let dt = xs.first().ok_or("Einsum needs at least one operand")?.dtype();
    if xs.iter().any(|t| t.dtype() != dt) {
        return Err("all Einsum operands must have the same element type".into());
    }
    let shapes: Vec<&[usize]> = xs.iter().map(|t| &t.shape[..]).collect();
    let p = loop_nest(equation, &shapes)?;
    let s = p.out_shape.clone();
    let y = match dt {
        DType::F64 => to_tensor(dt, s, run(&p, &xs.iter().map(|t| reals::<f64>(t)).collect::<Vec<_>>()))?,
        _ if dt.is_float() => to_tensor(dt, s, run(&p, &xs.iter().map(|t| reals::<f32>(t)).collect::<Vec<_>>()))?,
        _ if dt.is_int() => from_int_bits(dt, s, &run(&p, &xs.iter().map(|t| int_bits(&t.data)).collect::<Vec<_>>()))?,
        _ => return Err(format!("Einsum does not support element type {dt}")),
    };
    Ok(vec![y])
}
