//! Matrix products and their kin: `onnx.MatMul`, `onnx.Gemm`, `core.linear`
//! (constant B matrices are packed once, at model construction; bias and
//! activation run in the GEMM epilogue), MatMul in the interpreter's
//! summation order (`k::linalg::wide`: on f64, which models computed in double
//! precision keep, and on f32 for a widened 16-bit MatMul), Det
//! (`k::linalg::det`) and Einsum (`k::linalg::einsum`, the interpreter's loop
//! nest, derived at compile time; over run-time sizes its labels now and
//! sizes and strides when the model runs).

use super::{act, dims, f32_lit, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use edgec_kernels as k;
use ir::Opcode;

/// Lower a matrix product, Det or Einsum; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    use Opcode::*;
    if cx.op.opcode == MatMul && passes::widen::computes_half(cx.func(), cx.op) {
        wide_matmul(cx, Class::F32)?;
        return Ok(true);
    }
    if cx.op.opcode == MatMul && super::f64_op(cx) {
        wide_matmul(cx, Class::F64)?;
        return Ok(true);
    }
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
        Opcode::Det => det(cx)?,
        Opcode::Einsum => einsum(cx)?,
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
        let init = packed_b(cx, (k, n), trans_b)?;
        let pb = cx.field("k::gemm::PackedB", init);
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

/// The initializer of constant operand 1 as a packed B (`k × n`, stored
/// transposed if `trans_b`): packed now for the chosen family if sizes and
/// type allow, else packed at construction.
fn packed_b(cx: &mut OpCx<'_, '_>, (k, n): (&Sz, &Sz), trans_b: bool) -> Result<String, String> {
    if let (Some(kl), Some(nl)) = (k.lit(), n.lit()) {
        let key = format!("B {kl}x{nl} trans {trans_b}");
        let pack = |isa, w: &[f32]| k::gemm::PackedB::new_for(isa, w, kl, nl, trans_b).blob();
        if let Some((part, isa)) = cx.prepacked(1, &key, pack)? {
            return Ok(format!("k::gemm::PackedB::prepacked({isa}, {part}, {kl}, {nl})?"));
        }
    }
    let w = cx.init_weights(1)?;
    Ok(format!("k::gemm::PackedB::new({w}, {k}, {n}, {trans_b})"))
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
        let init = packed_b(cx, (wk, wn), tb)?;
        let pb = cx.field("k::gemm::PackedB", init);
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

/// MatMul in the interpreter's summation order: on f64, and on f32 for a
/// 16-bit MatMul computed in f32 (see `passes::widen::computes_half`).
fn wide_matmul(cx: &mut OpCx<'_, '_>, class: Class) -> Result<(), String> {
    if cx.in_class(1) != Some(class) {
        return Err(format!("MatMul: both operands must be {}", class.name()));
    }
    let (a, b) = (cx.in_dims(0), cx.in_dims(1));
    if a.is_empty() || b.is_empty() {
        return Err("MatMul of scalars is not defined".into());
    }
    let batch = a.len().max(b.len()).saturating_sub(2);
    if batch > edgec_kernels::linalg::wide::MAX_BATCH_RANK {
        return Err(format!("MatMul with {batch} batch dims is not supported"));
    }
    let out = cx.begin(0);
    let (x, y) = (cx.input(0)?, cx.input(1)?);
    cx.line(format!("k::linalg::wide::matmul({}, {x}, {}, {y}, {out});", dims(&a), dims(&b)));
    Ok(())
}

fn det(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let xs = cx.in_static(0);
    let n = xs.last().copied().unwrap_or(0);
    if !cx.out_class(0).is_float() {
        return Err("Det takes float tensors only".into());
    }
    if n > edgec_kernels::linalg::det::DET_MAX {
        return Err(format!(
            "Det of {n}x{n} matrices is not supported (at most {0}x{0})",
            edgec_kernels::linalg::det::DET_MAX
        ));
    }
    let out = cx.begin(0);
    let x = cx.input(0)?;
    cx.line(format!("k::linalg::det::det({n}, {x}, {out});"));
    Ok(())
}

fn einsum(cx: &mut OpCx<'_, '_>) -> Result<(), String> {
    let c = cx.out_class(0);
    if !(c == Class::F32 || c == Class::F64 || c.is_int()) {
        return Err(format!("Einsum on {} is not supported (f32, f64 and integers)", c.name()));
    }
    let eq = cx.op.attrs.str("equation").ok_or("Einsum: missing `equation`")?.to_string();
    if (0..cx.op.operands.len()).any(|i| cx.in_dims(i).iter().any(|d| d.lit().is_none())) {
        return einsum_rt(cx, &eq);
    }
    let shapes: Vec<Vec<usize>> = (0..cx.op.operands.len()).map(|i| cx.in_static(i)).collect();
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let nest = edgec_numeric::einsum::loop_nest(&eq, &refs).map_err(|e| format!("Einsum: {e}"))?;
    if nest.dims.len() > edgec_kernels::linalg::einsum::EINSUM_MAX_LOOPS {
        return Err(format!(
            "Einsum `{eq}` has {} labels, more than the kernel's {}",
            nest.dims.len(),
            edgec_kernels::linalg::einsum::EINSUM_MAX_LOOPS
        ));
    }
    let access: Vec<String> = nest.access.iter().map(|a| format!("&{a:?}")).collect();
    let out = cx.begin(0);
    let xs: Vec<String> = (0..shapes.len()).map(|i| cx.input(i)).collect::<Result<_, _>>()?;
    cx.line(format!(
        "k::linalg::einsum::einsum(&k::linalg::einsum::Einsum {{ dims: &{:?}, n_out: {}, access: &[{}] }}, &[{}], {out});",
        nest.dims,
        nest.out_shape.len(),
        access.join(", "),
        xs.join(", ")
    ));
    Ok(())
}

/// An Einsum over operands with run-time sizes: the loop structure now,
/// sizes and strides when the model runs.
fn einsum_rt(cx: &mut OpCx<'_, '_>, eq: &str) -> Result<(), String> {
    let shapes: Vec<Vec<super::Sz>> = (0..cx.op.operands.len()).map(|i| cx.in_dims(i)).collect();
    let ranks: Vec<usize> = shapes.iter().map(Vec::len).collect();
    let (loops, n_loops, n_out) = crate::rust::shapes::nn::einsum_labels(eq, &ranks)?;
    use edgec_kernels::linalg::einsum::{EINSUM_MAX_LOOPS, EINSUM_MAX_OPERANDS};
    if n_loops > EINSUM_MAX_LOOPS || loops.len() > EINSUM_MAX_OPERANDS {
        return Err(format!("Einsum `{eq}`: more than {EINSUM_MAX_LOOPS} labels or {EINSUM_MAX_OPERANDS} operands"));
    }
    let what = format!("Einsum {}", cx.op.loc);
    let labels: Vec<String> = loops.iter().map(|l| format!("&{l:?}")).collect();
    let dims: Vec<String> = shapes.iter().map(|s| super::dims(s)).collect();
    let out = cx.begin(0);
    let xs: Vec<String> = (0..shapes.len()).map(|i| cx.input(i)).collect::<Result<_, _>>()?;
    let call = format!(
        "k::linalg::einsum::einsum_rt({what:?}, &k::linalg::einsum::EinsumLabels {{ loops: &[{}], n_loops: {n_loops}, n_out: {n_out} }}, &[{}], &[{}], {out})",
        labels.join(", "),
        dims.join(", "),
        xs.join(", ")
    );
    super::try_line(cx, call);
    Ok(())
}
