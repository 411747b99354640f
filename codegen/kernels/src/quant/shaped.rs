//! Quantization over shapes known only when the model runs (symbolic
//! dims): the scale layout of QuantizeLinear / DequantizeLinear, and
//! MatMulInteger / QLinearMatMul with numpy batching, each checking what
//! ONNX requires of the shapes and returning an [`Error`] naming the op
//! (`what`) otherwise. The arithmetic is the static kernels' (bit for bit
//! the interpreter's); only the bookkeeping moves to run time.

use super::{DeqInt, QInt, QLayout, QMat};
use crate::error::Error;
use crate::lowp::Real;

/// The layout of the scale of a tensor of shape `x` (the interpreter's
/// `param_index` rules): per tensor (one-element scale), per axis (`block`
/// 0: a 1-D scale of length `x[axis]`), or blocked (the input's rank with
/// `x[axis].div_ceil(block)` on the axis). A zero point must have the
/// scale's element count.
pub fn layout(
    what: &str,
    x: &[usize],
    scale: &[usize],
    zero: Option<&[usize]>,
    axis: i64,
    block: i64,
) -> Result<QLayout, Error> {
    let ns: usize = scale.iter().product();
    if let Some(z) = zero.filter(|z| z.iter().product::<usize>() != ns) {
        return Err(Error(format!("{what}: zero point of shape {z:?} does not match the scale's {scale:?}")));
    }
    if ns == 1 || x.contains(&0) {
        return Ok(QLayout::Tensor);
    }
    let r = x.len() as i64;
    let ax = if axis < 0 { axis + r } else { axis };
    if !(0..r).contains(&ax) {
        return Err(Error(format!("{what}: axis {axis} is out of range for an input of rank {r}")));
    }
    let ax = ax as usize;
    let (dim, inner) = (x[ax], x[ax + 1..].iter().product());
    if block < 0 {
        return Err(Error(format!("{what}: block_size must be positive, got {block}")));
    }
    if block == 0 {
        if scale != [dim] {
            return Err(Error(format!(
                "{what}: per-axis scale of shape {scale:?} must be [{dim}] (axis {ax} of {x:?})"
            )));
        }
        return Ok(QLayout::Axis { dim, inner });
    }
    let b = block as usize;
    let fits = scale.len() == x.len()
        && (0..x.len()).all(|d| if d == ax { x[d].div_ceil(b) == scale[d] } else { x[d] == scale[d] });
    if !fits {
        return Err(Error(format!(
            "{what}: blocked scale {scale:?} does not match input {x:?} (axis {ax}, block_size {b})"
        )));
    }
    Ok(QLayout::Block { dim, inner, block: b })
}

/// A quantized matmul operand with its shape: zero points and scales of
/// one value or one per row (A, `m`) / per column (B, `n`).
#[derive(Copy, Clone, Debug)]
pub struct QTensor<'a, T, S = f32> {
    /// The dims (a 1-D A is a row, a 1-D B a column, as in MatMul).
    pub shape: &'a [usize],
    /// Row-major elements.
    pub data: &'a [T],
    /// Zero points (empty: zero).
    pub zero: &'a [T],
    /// Scales (empty for MatMulInteger).
    pub scale: &'a [S],
}

/// The geometry of `[.., m, k] @ [.., k, n]` with numpy batching.
struct Batched<'a> {
    /// Batch dims of A and B, without the matrix dims.
    a: &'a [usize],
    b: &'a [usize],
    rank: usize,
    m: usize,
    k: usize,
    n: usize,
}

impl<'a> Batched<'a> {
    fn new(what: &str, a: &'a [usize], b: &'a [usize]) -> Result<Batched<'a>, Error> {
        let (ra, rb) = (a.len(), b.len());
        if ra == 0 || rb == 0 {
            return Err(Error(format!("{what}: operands of shapes {a:?} and {b:?} need rank >= 1")));
        }
        let (m, k) = if ra == 1 { (1, a[0]) } else { (a[ra - 2], a[ra - 1]) };
        let (kb, n) = if rb == 1 { (b[0], 1) } else { (b[rb - 2], b[rb - 1]) };
        if k != kb {
            return Err(Error(format!("{what}: inner dims of {a:?} and {b:?} differ")));
        }
        let (a, b) = (&a[..ra.saturating_sub(2)], &b[..rb.saturating_sub(2)]);
        let g = Batched { a, b, rank: a.len().max(b.len()), m, k, n };
        for d in 0..g.rank {
            let (x, y) = (g.dim(g.a, d), g.dim(g.b, d));
            if x != y && x != 1 && y != 1 {
                return Err(Error(format!("{what}: batch dims {a:?} and {b:?} do not broadcast")));
            }
        }
        Ok(g)
    }
    /// Dim `d` of batch dims `s` left-padded with ones to `rank`.
    fn dim(&self, s: &[usize], d: usize) -> usize {
        (d + s.len()).checked_sub(self.rank).map_or(1, |i| s[i])
    }
    fn batches(&self) -> usize {
        (0..self.rank).map(|d| self.dim(self.a, d).max(self.dim(self.b, d))).product()
    }
    /// The element offsets of A's and B's matrices for output batch `t`.
    fn offsets(&self, t: usize) -> (usize, usize) {
        let (mut rem, mut ao, mut bo, mut sa, mut sb) = (t, 0, 0, 1, 1);
        for d in (0..self.rank).rev() {
            let (x, y) = (self.dim(self.a, d), self.dim(self.b, d));
            let full = x.max(y);
            let c = rem % full;
            rem /= full;
            ao += if x == 1 { 0 } else { c * sa };
            bo += if y == 1 { 0 } else { c * sb };
            (sa, sb) = (sa * x, sb * y);
        }
        (ao * self.m * self.k, bo * self.k * self.n)
    }
    /// `Err` unless the data, parameters and output have the lengths the shapes say.
    fn check<A, B, S, T>(
        &self,
        what: &str,
        a: &QTensor<'_, A, S>,
        b: &QTensor<'_, B, S>,
        y: &[T],
    ) -> Result<(), Error> {
        let numel = |s: &[usize]| s.iter().product::<usize>();
        let per = |v: usize, n: usize| v <= 1 || v == n;
        let ok = a.data.len() == numel(a.shape)
            && b.data.len() == numel(b.shape)
            && y.len() == self.batches() * self.m * self.n
            && per(a.zero.len(), self.m)
            && per(a.scale.len(), self.m)
            && per(b.zero.len(), self.n)
            && per(b.scale.len(), self.n);
        if ok {
            Ok(())
        } else {
            Err(Error(format!(
                "{what}: A {:?} and B {:?} with {} and {} zero points, {} and {} scales, and {} outputs do not fit \
                 (parameters are per tensor, per row of A, per column of B)",
                a.shape,
                b.shape,
                a.zero.len(),
                b.zero.len(),
                a.scale.len(),
                b.scale.len(),
                y.len()
            )))
        }
    }
}

fn at<T: Copy>(v: &[T], i: usize) -> Option<T> {
    v.get(if v.len() == 1 { 0 } else { i }).copied()
}

/// MatMulInteger: `y = (a - za) · (b - zb)` in i32 with wrapping
/// accumulation (the interpreter's sum modulo 2^32), batched as numpy's
/// matmul; rows of `y` accumulate along rows of `b` (contiguous reads).
pub fn matmul_integer<A: DeqInt, B: DeqInt>(
    what: &str,
    a: QTensor<'_, A>,
    b: QTensor<'_, B>,
    y: &mut [i32],
) -> Result<(), Error> {
    let g = Batched::new(what, a.shape, b.shape)?;
    g.check(what, &a, &b, y)?;
    let (m, k, n) = (g.m, g.k, g.n);
    if n == 0 {
        return Ok(());
    }
    for (t, ys) in y.chunks_exact_mut((m * n).max(1)).enumerate() {
        let (ao, bo) = g.offsets(t);
        for (i, row) in ys.chunks_exact_mut(n).enumerate() {
            row.fill(0);
            let za = at(a.zero, i).map_or(0, DeqInt::to_i64);
            for p in 0..k {
                let av = (a.data[ao + i * k + p].to_i64() - za) as i32;
                let brow = &b.data[bo + p * n..][..n];
                match b.zero.len() {
                    0 | 1 => {
                        let zb = at(b.zero, 0).map_or(0, DeqInt::to_i64);
                        for (o, &bv) in row.iter_mut().zip(brow) {
                            *o = o.wrapping_add(av.wrapping_mul((bv.to_i64() - zb) as i32));
                        }
                    }
                    _ => {
                        for ((o, &bv), &zb) in row.iter_mut().zip(brow).zip(b.zero) {
                            *o = o.wrapping_add(av.wrapping_mul((bv.to_i64() - zb.to_i64()) as i32));
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

/// QLinearMatMul (see [`super::qlinear_matmul`]) batched as numpy's matmul;
/// `y_scale` / `y_zero_point` are per tensor or per column.
pub fn qlinear_matmul<T: QInt + DeqInt, S: Real>(
    what: &str,
    a: QTensor<'_, T, S>,
    b: QTensor<'_, T, S>,
    (y_scale, y_zero): (&[S], &[T]),
    y: &mut [T],
) -> Result<(), Error> {
    let g = Batched::new(what, a.shape, b.shape)?;
    g.check(what, &a, &b, y)?;
    let per_col = |v: usize| v == 1 || v == g.n;
    if !per_col(y_scale.len()) || !per_col(y_zero.len()) {
        return Err(Error(format!(
            "{what}: y_scale ({}) and y_zero_point ({}) must be per tensor or per column ({})",
            y_scale.len(),
            y_zero.len(),
            g.n
        )));
    }
    let mn = g.m * g.n;
    if mn == 0 {
        return Ok(());
    }
    for (t, ys) in y.chunks_exact_mut(mn).enumerate() {
        let (ao, bo) = g.offsets(t);
        let qa = QMat { data: a.data, offsets: std::slice::from_ref(&ao), zero: a.zero, scale: a.scale };
        let qb = QMat { data: b.data, offsets: std::slice::from_ref(&bo), zero: b.zero, scale: b.scale };
        super::qlinear_matmul((g.m, g.k, g.n), qa, qb, (y_scale, y_zero), ys);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_follow_the_scale_shape() {
        assert_eq!(layout("q", &[2, 3], &[1], None, 1, 0), Ok(QLayout::Tensor));
        assert_eq!(layout("q", &[2, 3], &[3], Some(&[3]), -1, 0), Ok(QLayout::Axis { dim: 3, inner: 1 }));
        assert_eq!(layout("q", &[4, 3], &[2, 3], None, 0, 3), Ok(QLayout::Block { dim: 4, inner: 3, block: 3 }));
        assert!(layout("q", &[2, 3], &[2], None, 1, 0).unwrap_err().0.starts_with("q: per-axis scale"));
        assert!(layout("q", &[2, 3], &[3], Some(&[1]), 1, 0).is_err());
        assert!(layout("q", &[2, 3], &[3], None, 2, 0).is_err());
    }

    #[test]
    fn bad_shapes_are_errors() {
        let a = QTensor { shape: &[2, 3], data: &[0u8; 6], zero: &[], scale: &[] };
        let b = QTensor { shape: &[2, 2], data: &[0u8; 4], zero: &[], scale: &[] };
        let mut y = [0i32; 4];
        assert!(matmul_integer("mm", a, b, &mut y).unwrap_err().0.contains("inner dims"));
        let b = QTensor { shape: &[3, 2], data: &[0u8; 6], zero: &[1, 2, 3], scale: &[] };
        assert!(matmul_integer("mm", a, b, &mut y).is_err());
    }
}
