//! Reference kernel of `core.attention_blocked`: the same function as
//! `core.attention` (see [`super::fused::attention`]), computed in tiles of
//! `block_q` query rows × `block_k` keys with an online softmax
//! (FlashAttention-style: a running row maximum `m`, a running sum `l` of
//! `exp(s - m)` and an accumulator of `exp(s - m) · V` that is rescaled by
//! `exp(m_old - m_new)` whenever the maximum grows).
//!
//! Invariants: at most `block_q × block_k` scores exist at any time (plus the
//! `block_q × Dv` accumulator and `block_q` running statistics); every score
//! is rounded to the element type exactly as the unfused chain rounds it
//! (`Q·K`, then `· scale`, then `+ mask`), so results differ from
//! `core.attention` only by summation order and by the softmax being carried
//! in `f64`. A row whose keys are all masked (running max still `-inf` at the
//! end) is NaN, like `onnx.Softmax` of an all `-inf` row; a NaN score makes its
//! row NaN; with no keys at all (`Sk = 0`) the result is 0, like `MatMul` of an
//! empty product. Tiles that `causal` or `window` mask entirely are skipped
//! (folding an all `-inf` tile into the running state changes nothing), so a
//! window of W costs about `Sq · (2W + block_k)` scores instead of `Sq · Sk`.

use super::{in_window, window_attr};
use crate::interp::broadcast::{broadcast_map, broadcast_shapes};
use crate::interp::elementwise::num::{float_data, floats, max_nan, round_to};
use crate::interp::{Data, EvalCtx, Tensor};
use crate::types::DType;

/// What every kernel returns.
type KResult = Result<Vec<Tensor>, String>;

/// Read a positive block size attribute.
fn block(ctx: &EvalCtx<'_>, name: &str) -> Result<usize, String> {
    let b = ctx.attrs.int(name).ok_or_else(|| format!("missing attribute `{name}`"))?;
    usize::try_from(b).ok().filter(|&b| b >= 1).ok_or_else(|| format!("attribute `{name}` = {b} must be >= 1"))
}

/// The mask, flattened and mapped onto the scores `[batch.., Sq, Sk]`.
enum Mask {
    None,
    Bool(Vec<bool>, Vec<usize>),
    Float(Vec<f64>, Vec<usize>),
}

impl Mask {
    /// The score at flat score index `i` after masking (`s` already scaled).
    fn apply(&self, dt: DType, i: usize, s: f64) -> f64 {
        match self {
            Mask::None => s,
            Mask::Bool(v, map) => {
                if v[map[i]] {
                    s
                } else {
                    f64::NEG_INFINITY
                }
            }
            Mask::Float(v, map) => round_to(dt, s + v[map[i]]),
        }
    }
}

/// Flat element values of a float tensor.
fn values(t: &Tensor, what: &str) -> Result<Vec<f64>, String> {
    floats(&t.data).ok_or_else(|| format!("{what} must be a float tensor, got {}", t.dtype()))
}

/// Split a rank ≥ 2 shape into (batch dims, rows, cols).
fn split(t: &Tensor, what: &str) -> Result<(Vec<usize>, usize, usize), String> {
    let r = t.rank();
    if r < 2 {
        return Err(format!("{what} must have rank ≥ 2, got shape {:?}", t.shape));
    }
    Ok((t.shape[..r - 2].to_vec(), t.shape[r - 2], t.shape[r - 1]))
}

/// Problem geometry: the operands' flat data and per-batch offsets.
struct Problem {
    dt: DType,
    q: Vec<f64>,
    k: Vec<f64>,
    v: Vec<f64>,
    sq: usize,
    sk: usize,
    d: usize,
    dv: usize,
    scale: f64,
    causal: bool,
    window: Option<usize>,
    bq: usize,
    bk: usize,
}

/// `core.attention_blocked`: see the module docs.
pub fn attention_blocked(ctx: &EvalCtx<'_>) -> KResult {
    let (q, k, v) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let scale = ctx.attrs.float("scale").ok_or("missing attribute `scale`")?;
    let causal = match ctx.int("causal", 0) {
        0 => false,
        1 => true,
        c => return Err(format!("attribute `causal` = {c} must be 0 or 1")),
    };
    let (qb, sq, d) = split(q, "Q")?;
    let (kb, sk, dk) = split(k, "K")?;
    let (vb, skv, dv) = split(v, "V")?;
    if dk != d || skv != sk {
        return Err(format!("Q {:?}, K {:?}, V {:?} do not fit together", q.shape, k.shape, v.shape));
    }
    let dt = q.dtype();
    if k.dtype() != dt || v.dtype() != dt {
        return Err(format!("Q, K and V must have one element type, got {dt}, {}, {}", k.dtype(), v.dtype()));
    }
    let sb = broadcast_shapes(&[&qb, &kb])?;
    let ob = broadcast_shapes(&[&sb, &vb])?;
    let mut score_shape = sb.clone();
    score_shape.extend([sq, sk]);
    let mask = match ctx.opt(3) {
        None => Mask::None,
        Some(m) => {
            if broadcast_shapes(&[&m.shape, &score_shape])? != score_shape {
                return Err(format!("mask {:?} does not broadcast to the scores {:?}", m.shape, score_shape));
            }
            let map = broadcast_map(&m.shape, &score_shape);
            match &m.data {
                Data::Bool(b) => Mask::Bool(b.clone(), map),
                _ if m.dtype() == dt => Mask::Float(values(m, "mask")?, map),
                _ => return Err(format!("mask must be bool or {dt}, got {}", m.dtype())),
            }
        }
    };
    let p = Problem {
        dt,
        q: values(q, "Q")?,
        k: values(k, "K")?,
        v: values(v, "V")?,
        sq,
        sk,
        d,
        dv,
        scale: round_to(dt, scale as f64),
        causal,
        window: window_attr(ctx)?,
        bq: block(ctx, "block_q")?,
        bk: block(ctx, "block_k")?,
    };
    let nb: usize = ob.iter().product();
    let (qm, km, vm) = (broadcast_map(&qb, &ob), broadcast_map(&kb, &ob), broadcast_map(&vb, &ob));
    let sm = broadcast_map(&sb, &ob);
    let mut out = vec![0.0; nb * sq * dv];
    for b in 0..nb {
        let o = &mut out[b * sq * dv..(b + 1) * sq * dv];
        p.batch(o, [qm[b], km[b], vm[b], sm[b]], &mask);
    }
    let mut shape = ob;
    shape.extend([sq, dv]);
    Ok(vec![Tensor::new(shape, float_data(dt, out)?)])
}

/// Running softmax state of one query block.
struct Tile {
    /// Running row maxima.
    m: Vec<f64>,
    /// Running sums of `exp(s - m)`.
    l: Vec<f64>,
    /// Running `Σ exp(s - m) · V`, `rows × Dv`.
    acc: Vec<f64>,
    /// The current `rows × block_k` scores (the only score storage).
    s: Vec<f64>,
}

impl Problem {
    /// One batch element: `o` is its `[Sq, Dv]` output; `idx` the batch indices
    /// of Q, K, V and the scores.
    fn batch(&self, o: &mut [f64], idx: [usize; 4], mask: &Mask) {
        let (sq, sk, d, dv) = (self.sq, self.sk, self.d, self.dv);
        let q = &self.q[idx[0] * sq * d..(idx[0] + 1) * sq * d];
        let k = &self.k[idx[1] * sk * d..(idx[1] + 1) * sk * d];
        let v = &self.v[idx[2] * sk * dv..(idx[2] + 1) * sk * dv];
        let s_base = idx[3] * sq * sk;
        for i0 in (0..sq).step_by(self.bq) {
            let rows = self.bq.min(sq - i0);
            let mut t = Tile {
                m: vec![f64::NEG_INFINITY; rows],
                l: vec![0.0; rows],
                acc: vec![0.0; rows * dv],
                s: vec![0.0; rows * self.bk.min(sk)],
            };
            for j0 in (0..sk).step_by(self.bk) {
                let cols = self.bk.min(sk - j0);
                if !self.tile_visible((i0, rows), (j0, cols)) {
                    continue;
                }
                self.scores(&mut t.s, q, k, (i0, rows), (j0, cols), |i, j, s| {
                    mask.apply(self.dt, s_base + i * sk + j, s)
                });
                self.update(&mut t, v, rows, (j0, cols));
            }
            for r in 0..rows {
                let row = &mut o[(i0 + r) * dv..(i0 + r + 1) * dv];
                for (c, y) in row.iter_mut().enumerate() {
                    *y = if sk == 0 {
                        0.0
                    } else if t.m[r] == f64::NEG_INFINITY {
                        f64::NAN
                    } else {
                        t.acc[r * dv + c] / t.l[r]
                    };
                }
            }
        }
    }

    /// Fill `s[r * cols + c]` with the masked, scaled score of query `i0 + r`
    /// and key `j0 + c`, rounded like the unfused chain.
    fn scores(
        &self,
        s: &mut [f64],
        q: &[f64],
        k: &[f64],
        (i0, rows): (usize, usize),
        (j0, cols): (usize, usize),
        masked: impl Fn(usize, usize, f64) -> f64,
    ) {
        let d = self.d;
        for r in 0..rows {
            let (i, qi) = (i0 + r, &q[(i0 + r) * d..(i0 + r + 1) * d]);
            for c in 0..cols {
                let j = j0 + c;
                let dot: f64 = qi.iter().zip(&k[j * d..(j + 1) * d]).map(|(a, b)| a * b).sum();
                let x = round_to(self.dt, round_to(self.dt, dot) * self.scale);
                let x = masked(i, j, x);
                s[r * cols + c] = if self.visible(i, j) { x } else { f64::NEG_INFINITY };
            }
        }
    }

    /// True if `causal` and `window` let query `i` see key `j`.
    fn visible(&self, i: usize, j: usize) -> bool {
        !(self.causal && j > i) && self.window.is_none_or(|w| in_window(i, j, w))
    }

    /// True if some query of the row range may see some key of the column range.
    fn tile_visible(&self, (i0, rows): (usize, usize), (j0, cols): (usize, usize)) -> bool {
        let (i1, j1) = (i0 + rows - 1, j0 + cols - 1);
        let causal_ok = !self.causal || j0 <= i1;
        let window_ok = self.window.is_none_or(|w| j0 <= i1.saturating_add(w) && i0 <= j1.saturating_add(w));
        causal_ok && window_ok
    }

    /// Fold the current score tile (keys `j0..j0 + cols`) into the running state.
    fn update(&self, t: &mut Tile, v: &[f64], rows: usize, (j0, cols): (usize, usize)) {
        let dv = self.dv;
        for r in 0..rows {
            let srow = &t.s[r * cols..(r + 1) * cols];
            let m_new = srow.iter().copied().fold(t.m[r], max_nan);
            if m_new == f64::NEG_INFINITY {
                // Every key so far is masked: nothing contributes yet.
                continue;
            }
            // exp(-inf - finite) = 0 drops the (empty) old state; NaN propagates.
            let alpha = (t.m[r] - m_new).exp();
            let acc = &mut t.acc[r * dv..(r + 1) * dv];
            acc.iter_mut().for_each(|a| *a *= alpha);
            let mut l = t.l[r] * alpha;
            for (c, &s) in srow.iter().enumerate() {
                let p = (s - m_new).exp();
                l += p;
                let vrow = &v[(j0 + c) * dv..(j0 + c + 1) * dv];
                acc.iter_mut().zip(vrow).for_each(|(a, &x)| *a += p * x);
            }
            t.l[r] = l;
            t.m[r] = m_new;
        }
    }
}
