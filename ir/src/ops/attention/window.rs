//! Swin-style window ops (`core.window_partition`, `core.window_merge`,
//! `core.window_attention`): the static forms the `window` recognition rules
//! produce from the Reshape/Transpose/Slice/Concat chains exporters write, and
//! that the `window-lower` rules lower to rank-4 reshapes, transposes and
//! batched matrix products for targets without them.
//!
//! Layout (channels-last, as Swin computes): an image batch `X [B, H, W, C]`
//! is cut into `nW = (H / wh) · (W / ww)` windows of `N = wh · ww` tokens each.
//! Window `b · nW + p · (W / ww) + q` holds the rows `p·wh .. p·wh + wh` and the
//! columns `q·ww .. q·ww + ww` of image `b`, its tokens in row-major order:
//! exactly `x.view(B, H/wh, wh, W/ww, ww, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, N, C)`.
//!
//! Attribute invariants (checked by inference, so the verifier reports them):
//! * `window = [wh, ww]`: two entries `>= 1` dividing `H` and `W`;
//! * `shift = [sh, sw]` (optional, absent means `[0, 0]`): `0 <= sh < H` and
//!   `0 <= sw < W`, so equal cyclic shifts have equal attributes (rewrites
//!   reduce shifts modulo the size and omit an all-zero shift);
//! * `size = [H, W]` (`core.window_merge` only): the merged image size, each
//!   a multiple of the window;
//! * `num_windows` (`core.window_attention`): `nW >= 1`, dividing the batch of
//!   windows; the mask, if given, is `[nW, N, N]`.

use crate::attr::Attrs;
use crate::ops::linalg::broadcast_into;
use crate::ops::{expect_dtype, expect_same, InferCtx, InferResult};
use crate::types::{DType, Dim, Shape, TensorType};

/// The geometry of one windowing: image size, window size and cyclic shift.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Windows {
    /// Image rows and columns `[H, W]`.
    pub size: [u64; 2],
    /// Window rows and columns `[wh, ww]`.
    pub window: [u64; 2],
    /// Cyclic shift `[sh, sw]`, each below the image size on its axis.
    pub shift: [u64; 2],
}

impl Windows {
    /// Windows per image: `(H / wh) · (W / ww)`.
    pub fn num_windows(&self) -> u64 {
        (self.size[0] / self.window[0]) * (self.size[1] / self.window[1])
    }
    /// Tokens per window: `wh · ww`.
    pub fn tokens(&self) -> u64 {
        self.window[0] * self.window[1]
    }
    /// True if the shift is zero on both axes.
    pub fn unshifted(&self) -> bool {
        self.shift == [0, 0]
    }
}

/// A two-entry integer-list attribute, if present.
fn pair(attrs: &Attrs, name: &str) -> Result<Option<[i64; 2]>, String> {
    match attrs.ints(name) {
        None => Ok(None),
        Some(&[a, b]) => Ok(Some([a, b])),
        Some(v) => Err(format!("attribute `{name}` {v:?} must have two entries (rows, columns)")),
    }
}

/// Read and check `window` and `shift` for an image of `size` (see the module docs).
pub fn windows(attrs: &Attrs, size: [u64; 2]) -> Result<Windows, String> {
    let w = pair(attrs, "window")?.ok_or("missing required attribute `window`")?;
    let s = pair(attrs, "shift")?.unwrap_or([0, 0]);
    let mut out = Windows { size, window: [1, 1], shift: [0, 0] };
    for i in 0..2 {
        let axis = ["rows", "columns"][i];
        if size[i] == 0 {
            return Err(format!("the image has no {axis} (size {size:?}): windows need at least one"));
        }
        if w[i] < 1 || !size[i].is_multiple_of(w[i] as u64) {
            return Err(format!("`window` {w:?}: the {axis} window {} must be >= 1 and divide {}", w[i], size[i]));
        }
        if s[i] < 0 || s[i] as u64 >= size[i] {
            return Err(format!("`shift` {s:?}: the {axis} shift {} must be in 0..{}", s[i], size[i]));
        }
        out.window[i] = w[i] as u64;
        out.shift[i] = s[i] as u64;
    }
    Ok(out)
}

/// `core.window_merge`'s `size` attribute: two entries `>= 1`.
pub fn merge_size(attrs: &Attrs) -> Result<[u64; 2], String> {
    let s = pair(attrs, "size")?.ok_or("missing required attribute `size`")?;
    if s.iter().any(|&d| d < 1) {
        return Err(format!("`size` {s:?} must have entries >= 1"));
    }
    Ok([s[0] as u64, s[1] as u64])
}

/// `n · k` as a dim: static if `n` is, else unknown.
fn times(n: Dim, k: u64) -> Dim {
    n.as_static().map_or(Dim::Unknown, |n| Dim::Static(n * k))
}

/// The dims of `t`, which must have rank `r` (`layout` names its axes).
fn ranked<'a>(t: &'a TensorType, what: &str, r: usize, layout: &str) -> Result<&'a [Dim], String> {
    match t.dims() {
        Some(d) if d.len() == r => Ok(d),
        _ => Err(format!("{what} {t} must have rank {r} ({layout})")),
    }
}

/// `core.window_partition`: `X [B, H, W, C]` with static `H`, `W` →
/// `[B·nW, N, C]` (see the module docs; `B` may be symbolic).
pub fn partition(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let d = ranked(x, "X", 4, "[B, H, W, C]")?;
    let (Some(h), Some(w)) = (d[1].as_static(), d[2].as_static()) else {
        return Err(format!("X {x}: window_partition needs static H and W"));
    };
    let g = windows(ctx.attrs, [h, w])?;
    let dims = [times(d[0], g.num_windows()), Dim::Static(g.tokens()), d[3]];
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(dims))])
}

/// `core.window_merge`: `X [B·nW, N, C]` → `[B, H, W, C]` with `[H, W] = size`;
/// a static window batch must be a multiple of `nW`.
pub fn merge(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let d = ranked(x, "X", 3, "[B*nW, N, C]")?;
    let size = merge_size(ctx.attrs)?;
    let g = windows(ctx.attrs, size)?;
    if let Some(n) = d[1].as_static() {
        if n != g.tokens() {
            return Err(format!("X {x} has {n} tokens per window, the window {:?} has {}", g.window, g.tokens()));
        }
    }
    let b = match d[0].as_static() {
        Some(bw) if !bw.is_multiple_of(g.num_windows()) => {
            return Err(format!("X {x}: {bw} windows are not a multiple of {} windows per image", g.num_windows()))
        }
        Some(bw) => Dim::Static(bw / g.num_windows()),
        None => Dim::Unknown,
    };
    let dims = [b, Dim::Static(size[0]), Dim::Static(size[1]), d[2]];
    Ok(vec![TensorType::new(x.dtype, Shape::from_dims(dims))])
}

/// `num_windows`, required and `>= 1`.
pub fn num_windows(attrs: &Attrs) -> Result<u64, String> {
    match attrs.int("num_windows") {
        None => Err("missing required attribute `num_windows`".into()),
        Some(n) if n < 1 => Err(format!("attribute `num_windows` = {n} must be >= 1")),
        Some(n) => Ok(n as u64),
    }
}

/// Error unless static dims `a` and `b` agree.
fn agree(a: Dim, b: Dim, msg: impl FnOnce() -> String) -> Result<(), String> {
    match (a.as_static(), b.as_static()) {
        (Some(x), Some(y)) if x != y => Err(msg()),
        _ => Ok(()),
    }
}

/// `core.window_attention`: `Q, K [B·nW, heads, N, D]`, `V [B·nW, heads, N, Dv]`
/// (equal leading dims, static `N`), optional `bias` broadcasting to
/// `[1, heads, N, N]` without changing it, optional `mask [nW, N, N]`
/// (`nW = num_windows`, dividing a static `B·nW`) → `[B·nW, heads, N, Dv]`.
pub fn attention(ctx: &InferCtx<'_>) -> InferResult {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    expect_dtype(q, "Q", DType::is_float, "a float type")?;
    let layout = "[B*nW, heads, N, D]";
    let (qd, kd, vd) = (ranked(q, "Q", 4, layout)?, ranked(k, "K", 4, layout)?, ranked(v, "V", 4, layout)?);
    for (t, what) in [(k, "K"), (v, "V")] {
        if t.dtype != q.dtype {
            return Err(format!("{what} has element type {}, expected {} (the type of Q)", t.dtype, q.dtype));
        }
    }
    for i in 0..3 {
        agree(qd[i], kd[i], || format!("Q {q} and K {k} differ in dim {i}"))?;
        agree(qd[i], vd[i], || format!("Q {q} and V {v} differ in dim {i}"))?;
    }
    agree(qd[3], kd[3], || format!("Q {q} and K {k} must have the same head size D"))?;
    let n = qd[2].as_static().ok_or_else(|| format!("Q {q}: window_attention needs a static token count N"))?;
    if ctx.attrs.float("scale").is_none() {
        return Err("missing required attribute `scale`".into());
    }
    let nw = num_windows(ctx.attrs)?;
    if let Some(bw) = qd[0].as_static() {
        if !bw.is_multiple_of(nw) {
            return Err(format!("Q {q}: {bw} windows are not a multiple of num_windows = {nw}"));
        }
    }
    let scores = TensorType::new(q.dtype, Shape::from_dims([Dim::Static(1), qd[1], Dim::Static(n), Dim::Static(n)]));
    if let Some(b) = ctx.opt_input(3) {
        broadcast_into(b, "bias", &scores).and_then(|_| expect_same(b, "bias", q.dtype, "Q"))?;
    }
    if let Some(m) = ctx.opt_input(4) {
        expect_same(m, "mask", q.dtype, "Q")?;
        let want = TensorType::fixed(q.dtype, &[nw, n, n]);
        if m.dims().is_some_and(|d| d.len() != 3) || !m.compatible(&want) {
            return Err(format!("mask {m} must be {want} ([num_windows, N, N])"));
        }
    }
    let dims = [qd[0], qd[1], qd[2], vd[3]];
    Ok(vec![TensorType::new(q.dtype, Shape::from_dims(dims))])
}
