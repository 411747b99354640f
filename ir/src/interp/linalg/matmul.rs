//! MatMul and Gemm.

use crate::interp::broadcast::{broadcast_map, broadcast_shapes};
use crate::interp::tensor::real::{from_int_bits, int_bits, reals, to_tensor, to_tensor_any, IntCast, Real, Ring};
use crate::interp::{EvalCtx, Tensor};
use crate::types::DType;

/// The index bookkeeping of a numpy matmul: `[.., M, K] @ [.., K, N]`
/// (MatMul here, MatMulInteger and QLinearMatMul in the quant family).
pub(crate) struct Plan {
    /// A's shape with a 1-D A promoted to `[1, K]`.
    pub(crate) a_shape: Vec<usize>,
    /// B's shape with a 1-D B promoted to `[K, 1]`.
    pub(crate) b_shape: Vec<usize>,
    /// `[batch.., M, N]`, before promoted axes are removed.
    pub(crate) full: Vec<usize>,
    /// The result shape.
    pub(crate) out_shape: Vec<usize>,
    pub(crate) m: usize,
    pub(crate) k: usize,
    pub(crate) n: usize,
    /// Per output batch: the element offsets of the A and B matrices.
    pub(crate) offsets: Vec<(usize, usize)>,
}

/// Plan `a @ b`; errors name the op as `what`.
pub(crate) fn plan(a: &[usize], b: &[usize], what: &str) -> Result<Plan, String> {
    if a.is_empty() || b.is_empty() {
        return Err(format!("{what} operands must have rank ≥ 1, found {a:?} and {b:?}"));
    }
    let a2: Vec<usize> = if a.len() == 1 { vec![1, a[0]] } else { a.to_vec() };
    let b2: Vec<usize> = if b.len() == 1 { vec![b[0], 1] } else { b.to_vec() };
    let (m, k) = (a2[a2.len() - 2], a2[a2.len() - 1]);
    let (kb, n) = (b2[b2.len() - 2], b2[b2.len() - 1]);
    if k != kb {
        return Err(format!("{what} inner dimensions differ: A {a:?} and B {b:?}"));
    }
    let (ab, bb) = (&a2[..a2.len() - 2], &b2[..b2.len() - 2]);
    let batch = broadcast_shapes(&[ab, bb]).map_err(|e| format!("{what} batch dims: {e}"))?;
    let (am, bm) = (broadcast_map(ab, &batch), broadcast_map(bb, &batch));
    let offsets = am.iter().zip(&bm).map(|(&i, &j)| (i * m * k, j * k * n)).collect();
    let mut full = batch.clone();
    full.extend([m, n]);
    let mut out_shape = batch;
    if a.len() > 1 {
        out_shape.push(m);
    }
    if b.len() > 1 {
        out_shape.push(n);
    }
    Ok(Plan { a_shape: a2, b_shape: b2, full, out_shape, m, k, n, offsets })
}

/// Batched matrix product accumulating in `T`.
fn run<T: Ring>(p: &Plan, a: &[T], b: &[T]) -> Vec<T> {
    let mut out = Vec::with_capacity(p.offsets.len() * p.m * p.n);
    for &(ao, bo) in &p.offsets {
        for i in 0..p.m {
            for j in 0..p.n {
                let mut acc = T::ZERO;
                for l in 0..p.k {
                    acc = acc.add(a[ao + i * p.k + l].mul(b[bo + l * p.n + j]));
                }
                out.push(acc);
            }
        }
    }
    out
}

fn matmul_float<T: Real + Ring>(a: &Tensor, b: &Tensor, p: &Plan) -> Result<Tensor, String> {
    let out = run(p, &reals::<T>(a), &reals::<T>(b));
    to_tensor(a.dtype(), p.out_shape.clone(), out)
}

fn same_dtype(a: &Tensor, b: &Tensor, what: &str) -> Result<(), String> {
    if a.dtype() == b.dtype() {
        Ok(())
    } else {
        Err(format!("{what} has element type {}, expected {}", b.dtype(), a.dtype()))
    }
}

/// `onnx.MatMul`: numpy matmul (batch broadcasting, 1-D promotion). Floats
/// accumulate in f32 (f64 for f64); integers wrap.
pub fn matmul(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b) = (ctx.input(0)?, ctx.input(1)?);
    same_dtype(a, b, "B")?;
    let p = plan(&a.shape, &b.shape, "MatMul")?;
    let y = match a.dtype() {
        DType::F64 => matmul_float::<f64>(a, b, &p)?,
        dt if dt.is_float() => matmul_float::<f32>(a, b, &p)?,
        dt if dt.is_int() => from_int_bits(dt, p.out_shape.clone(), &run(&p, &int_bits(&a.data), &int_bits(&b.data)))?,
        dt => return Err(format!("MatMul does not support element type {dt}")),
    };
    Ok(vec![y])
}

/// `[rows, cols]` of a 2-D Gemm operand after the optional transpose.
fn gemm_dims(t: &Tensor, trans: bool, what: &str) -> Result<(usize, usize), String> {
    match t.shape[..] {
        [r, c] => Ok(if trans { (c, r) } else { (r, c) }),
        _ => Err(format!("Gemm operand {what} must be 2-D, found shape {:?}", t.shape)),
    }
}

/// The plain product `op(A) @ op(B)` as an `[M, N]` row-major vector.
fn gemm_product<T: Ring>(a: &[T], b: &[T], dims: (usize, usize, usize), ta: bool, tb: bool) -> Vec<T> {
    let (m, k, n) = dims;
    let at = |i: usize, l: usize| if ta { a[l * m + i] } else { a[i * k + l] };
    let bt = |l: usize, j: usize| if tb { b[j * k + l] } else { b[l * n + j] };
    let mut out = Vec::with_capacity(m * n);
    for i in 0..m {
        for j in 0..n {
            out.push((0..k).fold(T::ZERO, |acc, l| acc.add(at(i, l).mul(bt(l, j)))));
        }
    }
    out
}

/// `onnx.Gemm`: `alpha * op(A) @ op(B) + beta * C` (C unidirectionally broadcast to
/// `[M, N]`, ignored when `beta == 0`). Integer products wrap; the scaling is done in
/// f64 and truncated back, as numpy does for `int_array * float`.
pub fn gemm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    let (a, b, c) = (ctx.input(0)?, ctx.input(1)?, ctx.opt(2));
    same_dtype(a, b, "B")?;
    let (ta, tb) = (ctx.int("transA", 0) != 0, ctx.int("transB", 0) != 0);
    let ((m, k), (kb, n)) = (gemm_dims(a, ta, "A")?, gemm_dims(b, tb, "B")?);
    if k != kb {
        return Err(format!("Gemm inner dimensions differ: op(A) is [{m}, {k}], op(B) is [{kb}, {n}]"));
    }
    let (alpha, beta) = (ctx.float("alpha", 1.0) as f64, ctx.float("beta", 1.0) as f64);
    let cmap = match c {
        Some(c) if beta != 0.0 => {
            same_dtype(a, c, "C")?;
            if broadcast_shapes(&[&c.shape, &[m, n]])? != [m, n] {
                return Err(format!("C {:?} does not broadcast to [{m}, {n}]", c.shape));
            }
            Some((c, broadcast_map(&c.shape, &[m, n])))
        }
        _ => None,
    };
    let dt = a.dtype();
    let y = if dt.is_float() {
        let prod = match dt {
            DType::F64 => gemm_product(&reals::<f64>(a), &reals::<f64>(b), (m, k, n), ta, tb),
            _ => {
                gemm_product(&reals::<f32>(a), &reals::<f32>(b), (m, k, n), ta, tb).iter().map(|&x| x as f64).collect()
            }
        };
        gemm_scale(prod, alpha, beta, cmap.as_ref(), |v| gemm_store_float(dt, m, n, v))?
    } else if dt.is_int() {
        let prod = gemm_product(&int_bits(&a.data), &int_bits(&b.data), (m, k, n), ta, tb);
        let prod = from_int_bits(dt, vec![m, n], &prod)?.to_f64s();
        gemm_scale(prod, alpha, beta, cmap.as_ref(), |v| to_tensor_any(dt, vec![m, n], &v, IntCast::Truncate))?
    } else {
        return Err(format!("Gemm does not support element type {dt}"));
    };
    Ok(vec![y])
}

/// Store f64 Gemm results computed from an f32 (or f64) product.
fn gemm_store_float(dt: DType, m: usize, n: usize, v: Vec<f64>) -> Result<Tensor, String> {
    if dt == DType::F64 {
        to_tensor(dt, vec![m, n], v)
    } else {
        to_tensor(dt, vec![m, n], v.into_iter().map(|x| x as f32).collect())
    }
}

/// `alpha * prod + beta * C`, then `store`. For f32-class types the arithmetic is
/// rounded to f32 after each step so it matches an f32 computation.
fn gemm_scale(
    prod: Vec<f64>,
    alpha: f64,
    beta: f64,
    c: Option<&(&Tensor, Vec<usize>)>,
    store: impl Fn(Vec<f64>) -> Result<Tensor, String>,
) -> Result<Tensor, String> {
    let cv = c.map(|(c, map)| (c.to_f64s(), map));
    let single = c.is_some_and(|(c, _)| matches!(c.dtype(), DType::F32 | DType::F16 | DType::BF16));
    let r = |x: f64| if single { x as f32 as f64 } else { x };
    let out = prod
        .iter()
        .enumerate()
        .map(|(i, &p)| {
            let y = r(p * alpha);
            match &cv {
                Some((c, map)) => r(y + r(c[map[i]] * beta)),
                None => y,
            }
        })
        .collect();
    store(out)
}
