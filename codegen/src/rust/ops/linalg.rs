//! Matrix products and convolutions: `onnx.MatMul`, `onnx.Gemm`,
//! `core.linear`, `onnx.Conv`/`core.conv`, `onnx.ConvTranspose`/
//! `core.conv_transpose`. Constant B matrices and conv weights are packed
//! once, at model construction; bias and activation run in the GEMM epilogue.

use super::{dims, f32_lit, Sz};
use crate::rust::emit::OpCx;
use ir::ops::elementwise::Activation;
use ir::{OpData, Opcode};

/// The kernel `Act` for an op's `act`/`act_alpha`/`act_beta` attributes.
pub fn act(op: &OpData) -> Result<String, String> {
    Ok(match Activation::from_attrs(&op.attrs)? {
        Activation::None => "k::act::Act::None".into(),
        Activation::Relu => "k::act::Act::Relu".into(),
        Activation::Clip { min, max } => {
            format!("k::act::Act::Clip {{ min: {}, max: {} }}", f32_lit(min), f32_lit(max))
        }
        Activation::Sigmoid => "k::act::Act::Sigmoid".into(),
        Activation::HardSigmoid { alpha, beta } => {
            format!("k::act::Act::HardSigmoid {{ alpha: {}, beta: {} }}", f32_lit(alpha), f32_lit(beta))
        }
        Activation::HardSwish => "k::act::Act::HardSwish".into(),
        Activation::LeakyRelu { alpha } => format!("k::act::Act::LeakyRelu {{ alpha: {} }}", f32_lit(alpha)),
        Activation::Silu => "k::act::Act::Silu".into(),
        Activation::Gelu => "k::act::Act::Gelu".into(),
        Activation::GeluTanh => "k::act::Act::GeluTanh".into(),
        Activation::Tanh => "k::act::Act::Tanh".into(),
    })
}

/// Lower a product or convolution; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    if matches!(cx.op.opcode, MatMul | CoreLinear | Gemm) {
        super::f32_only(cx)?;
    }
    match cx.op.opcode {
        Opcode::MatMul => product(cx, false, None, "k::act::Act::None".into())?,
        Opcode::CoreLinear => {
            let a = act(cx.op)?;
            let tb = cx.op.attrs.int("trans_b").unwrap_or(0) != 0;
            product(cx, tb, cx.op.operand(2).map(|_| 2), a)?
        }
        Opcode::Gemm => gemm(cx)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Promote 1-D matmul operands (`[k]` → `[1, k]` for A, `[k, 1]` for B).
fn promoted(d: Vec<Sz>, is_a: bool) -> Vec<Sz> {
    match (d.len(), is_a) {
        (1, true) => vec![Sz::Lit(1), d[0].clone()],
        (1, false) => vec![d[0].clone(), Sz::Lit(1)],
        _ => d,
    }
}

/// The epilogue bias for a bias operand of shape `b` and a product `[.., m, n]`.
fn bias_expr(b: &[Sz], out: &[Sz], name: &str) -> Result<String, String> {
    let n = out.last().cloned().unwrap_or(Sz::Lit(1));
    let elems = Sz::product(b);
    let m_all = Sz::product(&out[..out.len().saturating_sub(1)]);
    if elems.is(1) {
        Ok(format!("k::gemm::Bias::Scalar({name}[0])"))
    } else if elems == n && b.last() == Some(&n) {
        Ok(format!("k::gemm::Bias::PerCol({name})"))
    } else if elems == &m_all * &n && b.iter().rev().zip(out.iter().rev()).all(|(x, y)| x == y) && b.len() <= 2 {
        Ok(format!("k::gemm::Bias::Full({name})"))
    } else {
        Err(format!("bias of shape {b:?} for a product of shape {out:?} is not supported"))
    }
}

/// `act(A @ B' + bias)`: packed GEMM when B is a 2-D constant, batched matmul otherwise.
fn product(cx: &mut OpCx<'_, '_>, trans_b: bool, bias: Option<usize>, act: String) -> Result<(), String> {
    let (sa, sb, so) = (promoted(cx.in_dims(0), true), promoted(cx.in_dims(1), false), cx.out_dims(0));
    let bias_shape = bias.map(|i| cx.in_dims(i));
    let b_const = cx.is_static(1) && sb.len() == 2;
    let (k, n) = if trans_b { (&sb[1], &sb[0]) } else { (&sb[0], &sb[1]) };
    let m_total = Sz::product(&sa[..sa.len() - 1]);
    let out = cx.begin(0);
    let ep_bias = match (bias, &bias_shape) {
        (Some(i), Some(bs)) => {
            let name = cx.input(i)?;
            bias_expr(bs, &so, &name)?
        }
        _ => "k::gemm::Bias::None".into(),
    };
    let ep = format!("k::gemm::Epilogue {{ bias: {ep_bias}, act: {act}, ..Default::default() }}");
    let a = cx.input(0)?;
    if b_const {
        let w = cx.init_weights(1)?;
        let pb = cx.field("k::gemm::PackedB", format!("k::gemm::PackedB::new({w}, {k}, {n}, {trans_b})"));
        cx.scratch(format!("k::gemm::packed_scratch_len({m_total}, &{pb})"));
        cx.line(format!("k::gemm::sgemm_packed({m_total}, {a}, &self.{pb}, {out}, &{ep}, &mut self.scratch);"));
    } else {
        let b = cx.input(1)?;
        cx.scratch(format!("k::gemm::matmul_scratch_len({}, {}, {trans_b})", dims(&sa), dims(&sb)));
        cx.line(format!(
            "k::gemm::matmul({}, {a}, {}, {b}, {trans_b}, {out}, &{ep}, &mut self.scratch);",
            dims(&sa),
            dims(&sb)
        ));
    }
    Ok(())
}

/// `onnx.Gemm`: `alpha · op(A) · op(B) + beta · C`.
fn gemm(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let op = cx.op;
    let (ta, tb) = (op.attrs.int("transA").unwrap_or(0) != 0, op.attrs.int("transB").unwrap_or(0) != 0);
    let (alpha, beta) = (op.attrs.float("alpha").unwrap_or(1.0), op.attrs.float("beta").unwrap_or(1.0));
    let (sa, so) = (cx.in_dims(0), cx.out_dims(0));
    let (m, n) = (so[0].clone(), so[1].clone());
    let k = if ta { sa[0].clone() } else { sa[1].clone() };
    let out = cx.begin(0);
    let bias = match op.operand(2) {
        None => "k::gemm::Bias::None".into(),
        Some(_) => {
            let cs = cx.in_dims(2);
            let name = cx.input(2)?;
            let elems = Sz::product(&cs);
            if elems.is(1) {
                format!("k::gemm::Bias::Scalar({name}[0])")
            } else if cs.last() == Some(&n) && elems == n {
                format!("k::gemm::Bias::PerCol({name})")
            } else if elems == m && cs.len() == 2 && cs[1].is(1) {
                format!("k::gemm::Bias::PerRow({name})")
            } else if elems == &m * &n {
                format!("k::gemm::Bias::Full({name})")
            } else {
                return Err(format!("Gemm C of shape {cs:?} is not supported"));
            }
        }
    };
    let ep = format!(
        "k::gemm::Epilogue {{ alpha: {}, beta: {}, bias: {bias}, act: k::act::Act::None }}",
        f32_lit(alpha),
        f32_lit(beta)
    );
    let a = cx.input(0)?;
    if cx.is_static(1) && !ta {
        // The packed weight is built once, so its sizes come from the constant's
        // own (static) shape, never from the activation's run-time dims.
        let sb = cx.in_dims(1);
        let (wk, wn) = if tb { (&sb[1], &sb[0]) } else { (&sb[0], &sb[1]) };
        let w = cx.init_weights(1)?;
        let pb = cx.field("k::gemm::PackedB", format!("k::gemm::PackedB::new({w}, {wk}, {wn}, {tb})"));
        cx.scratch(format!("k::gemm::packed_scratch_len({m}, &{pb})"));
        cx.line(format!("k::gemm::sgemm_packed({m}, {a}, &self.{pb}, {out}, &{ep}, &mut self.scratch);"));
    } else {
        let b = cx.input(1)?;
        let g = format!("k::gemm::Gemm {{ m: {m}, n: {n}, k: {k}, trans_a: {ta}, trans_b: {tb} }}");
        cx.scratch(format!("k::gemm::scratch_len(&{g})"));
        cx.line(format!("k::gemm::sgemm(&{g}, {a}, {b}, {out}, &{ep}, &mut self.scratch);"));
    }
    Ok(())
}
