//! Reference kernels of the window ops (see [`crate::ops::attention::window`] for the
//! layout and the attribute invariants).
//!
//! `core.window_partition` and `core.window_merge` move elements only: each
//! output element is one input element, found by an explicit index map (the
//! cyclic shift folded in), so they are bit exact for every element type and
//! independent of the Reshape/Transpose/Slice/Concat kernels they are tested
//! against. `core.window_attention` is composed from the `onnx.*` kernels in
//! the order of the unfused `scores * scale` chain (`MatMul(Q, Kᵀ)`,
//! `Mul(scale)`, `Add(bias)`, the 5-D `Add(mask)`, `Softmax(-1)`, `MatMul(V)`),
//! so it rounds exactly like that chain.

use super::scalar;
use crate::attr::{Attr, Attrs};
use crate::interp::layout::transpose_last_two;
use crate::interp::{call, elementwise as ew, linalg, norm, EvalCtx, Tensor};
use crate::ops::attention::window::{merge_size, num_windows, windows, Windows};

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

/// The flat index into `X [B, H, W, C]` of token `t` of window `w`, channel 0,
/// for windows taken after rolling `X` by `-shift` (see the module docs).
fn source(g: &Windows, c: usize, w: usize, t: usize) -> usize {
    let [h, wd] = g.size.map(|x| x as usize);
    let [wh, ww] = g.window.map(|x| x as usize);
    let [sh, sw] = g.shift.map(|x| x as usize);
    let (nw, per_row) = (g.num_windows() as usize, wd / ww);
    let (b, p, q) = (w / nw, (w % nw) / per_row, (w % nw) % per_row);
    let i = (p * wh + t / ww + sh) % h;
    let j = (q * ww + t % ww + sw) % wd;
    ((b * h + i) * wd + j) * c
}

/// The index map of a partition of `batch` images with `c` channels:
/// `map[k]` is the input element of output element `k` of `[B·nW, N, C]`.
fn partition_map(g: &Windows, batch: usize, c: usize) -> Vec<usize> {
    let (nw, n) = (g.num_windows() as usize, g.tokens() as usize);
    let mut map = Vec::with_capacity(batch * nw * n * c);
    for w in 0..batch * nw {
        for t in 0..n {
            let base = source(g, c, w, t);
            map.extend(base..base + c);
        }
    }
    map
}

/// `core.window_partition`: roll `X [B, H, W, C]` by `-shift` on axes 1 and 2,
/// then cut it into `[B·nW, N, C]` windows.
pub fn partition(ctx: &EvalCtx<'_>) -> KResult {
    let x = ctx.input(0)?;
    let [b, h, w, c] = x.shape[..] else { return Err(format!("X must have rank 4, got shape {:?}", x.shape)) };
    let g = windows(ctx.attrs, [h as u64, w as u64])?;
    let map = partition_map(&g, b, c);
    let shape = vec![b * g.num_windows() as usize, g.tokens() as usize, c];
    Ok(vec![Tensor::new(shape, x.data.gather(&map))])
}

/// `core.window_merge`: the inverse of `core.window_partition` with the same
/// `window` and `shift`: `[B·nW, N, C]` back to `[B, H, W, C]` (`size = [H, W]`).
pub fn merge(ctx: &EvalCtx<'_>) -> KResult {
    let x = ctx.input(0)?;
    let [bw, n, c] = x.shape[..] else { return Err(format!("X must have rank 3, got shape {:?}", x.shape)) };
    let size = merge_size(ctx.attrs)?;
    let g = windows(ctx.attrs, size)?;
    let nw = g.num_windows() as usize;
    if n != g.tokens() as usize || !bw.is_multiple_of(nw) {
        return Err(format!("X {:?} is not [B*{nw}, {}, C]", x.shape, g.tokens()));
    }
    // The partition map is a permutation of the image's elements: invert it.
    let fwd = partition_map(&g, bw / nw, c);
    let mut map = vec![0; fwd.len()];
    for (k, &src) in fwd.iter().enumerate() {
        map[src] = k;
    }
    let shape = vec![bw / nw, size[0] as usize, size[1] as usize, c];
    Ok(vec![Tensor::new(shape, x.data.gather(&map))])
}

/// `t` with its data viewed as `shape` (same element count).
fn view(t: Tensor, shape: Vec<usize>) -> Result<Tensor, String> {
    if shape.iter().product::<usize>() != t.len() {
        return Err(format!("cannot view {:?} as {shape:?}", t.shape));
    }
    Ok(Tensor::new(shape, t.data))
}

/// `s + other`, which must not change the shape of `s`.
fn add_into(ctx: &EvalCtx<'_>, s: Tensor, other: &Tensor, what: &str) -> Result<Tensor, String> {
    let y = call(ctx, ew::add, &[Some(&s), Some(other)], &Attrs::new())?;
    if y.shape != s.shape {
        return Err(format!("{what} {:?} does not broadcast to the scores {:?}", other.shape, s.shape));
    }
    Ok(y)
}

/// `core.window_attention`: `softmax(Q @ Kᵀ * scale + bias + mask[b % nW]) @ V`
/// over `[B·nW, heads, N, D]` windows (see the module docs for the rounding).
pub fn attention(ctx: &EvalCtx<'_>) -> KResult {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let scale = ctx.attrs.float("scale").ok_or("missing attribute `scale`")?;
    let nw = num_windows(ctx.attrs)? as usize;
    let [bw, heads, n, _] = q.shape[..] else { return Err(format!("Q must have rank 4, got shape {:?}", q.shape)) };
    if !bw.is_multiple_of(nw) {
        return Err(format!("{bw} windows are not a multiple of num_windows = {nw}"));
    }
    let none = Attrs::new();
    let kt = transpose_last_two(ctx, k, "K")?;
    let s = call(ctx, linalg::matmul, &[Some(q), Some(&kt)], &none)?;
    let sc = scalar(s.dtype(), scale as f64)?;
    let mut s = call(ctx, ew::mul, &[Some(&s), Some(&sc)], &none)?;
    if s.shape != [bw, heads, n, n] {
        return Err(format!("the scores {:?} are not [{bw}, {heads}, {n}, {n}]", s.shape));
    }
    if let Some(b) = ctx.opt(3) {
        s = add_into(ctx, s, b, "bias")?;
    }
    if let Some(m) = ctx.opt(4) {
        if m.shape != [nw, n, n] {
            return Err(format!("mask {:?} is not [{nw}, {n}, {n}]", m.shape));
        }
        let m5 = Tensor::new(vec![1, nw, 1, n, n], m.data.clone());
        let s5 = add_into(ctx, view(s, vec![bw / nw, nw, heads, n, n])?, &m5, "mask")?;
        s = view(s5, vec![bw, heads, n, n])?;
    }
    let p = call(ctx, norm::softmax, &[Some(&s)], &Attrs::new().with("axis", Attr::Int(-1)))?;
    Ok(vec![call(ctx, linalg::matmul, &[Some(&p), Some(v)], &none)?])
}
