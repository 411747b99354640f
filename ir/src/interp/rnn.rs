//! Reference kernels: rnn family. Recurrent ops: RNN, GRU and LSTM, per the
//! ONNX operator spec (all directions, activation lists with alpha/beta, clip,
//! sequence_lens, initial states, layout, GRU `linear_before_reset`, LSTM
//! peepholes and `input_forget`).

use crate::interp::tensor::real::{float_kernel, reals, to_tensor, Real};
use crate::interp::{EvalCtx, Tensor};

/// An RNN activation function, computed in f64 (the numeric core's).
type Act = edgec_numeric::rnn::Activation<f64>;

/// `act` applied to `x` in f64, rounded back to `T`.
fn apply<T: Real>(act: Act, x: T) -> T {
    T::from_f64(act.apply(x.to_f64()))
}

/// Parse the `activations` list (`n` per direction, defaults `defaults`), consuming
/// `activation_alpha`/`activation_beta` in order by the functions that take them.
fn activations(ctx: &EvalCtx<'_>, defaults: &[Act], dirs: usize) -> Result<Vec<Act>, String> {
    let names = match ctx.attrs.get("activations") {
        Some(crate::Attr::Strs(v)) => Some(&v[..]),
        _ => None,
    };
    let f64s = |name| ctx.attrs.floats(name).unwrap_or(&[]).iter().map(|&x| x as f64).collect::<Vec<f64>>();
    edgec_numeric::rnn::resolve_activations(names, &f64s("activation_alpha"), &f64s("activation_beta"), defaults, dirs)
}

/// Which recurrent cell.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Cell {
    Rnn,
    Gru,
    Lstm,
}

impl Cell {
    fn gates(self) -> usize {
        match self {
            Cell::Rnn => 1,
            Cell::Gru => 3,
            Cell::Lstm => 4,
        }
    }
}

/// Sizes and options shared by the three ops.
struct Setup {
    seq: usize,
    batch: usize,
    input: usize,
    hidden: usize,
    dirs: usize,
    layout1: bool,
    clip: Option<f64>,
    lens: Vec<usize>,
    acts: Vec<Act>,
}

fn setup(ctx: &EvalCtx<'_>, cell: Cell) -> Result<Setup, String> {
    let (x, w, r) = (ctx.input(0)?, ctx.input(1)?, ctx.input(2)?);
    let layout1 = ctx.int("layout", 0) != 0;
    let [s0, s1, input] = x.shape[..] else { return Err(format!("X must be 3-D, found {:?}", x.shape)) };
    let (seq, batch) = if layout1 { (s1, s0) } else { (s0, s1) };
    let dirs = match ctx.str("direction", "forward") {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        d => return Err(format!("unknown direction {d:?}")),
    };
    let hidden = match r.shape[..] {
        [_, _, h] => h,
        _ => return Err(format!("R must be 3-D, found {:?}", r.shape)),
    };
    if ctx.attrs.int("hidden_size").is_some_and(|h| h != hidden as i64) {
        return Err(format!("attribute `hidden_size` disagrees with R {:?}", r.shape));
    }
    let g = cell.gates();
    if w.shape != [dirs, g * hidden, input] || r.shape != [dirs, g * hidden, hidden] {
        return Err(format!(
            "W {:?} / R {:?} do not match {dirs} direction(s) of {g} gates x {hidden}",
            w.shape, r.shape
        ));
    }
    let lens = match ctx.opt(4) {
        Some(t) if t.shape == [batch] => t
            .to_i64s()
            .iter()
            .map(|&l| {
                usize::try_from(l)
                    .ok()
                    .filter(|&l| l <= seq)
                    .ok_or_else(|| format!("sequence length {l} is out of range [0, {seq}]"))
            })
            .collect::<Result<_, _>>()?,
        Some(t) => return Err(format!("sequence_lens {:?} must have shape [{batch}]", t.shape)),
        None => vec![seq; batch],
    };
    let clip = ctx.attrs.float("clip").map(|c| c as f64);
    if let Some(c) = clip.filter(|c| c.is_nan() || *c < 0.0) {
        return Err(format!("attribute `clip` = {c} must be a non-negative threshold"));
    }
    let defaults: &[Act] = match cell {
        Cell::Rnn => &[Act::Tanh],
        Cell::Gru => &[Act::Sigmoid, Act::Tanh],
        Cell::Lstm => &[Act::Sigmoid, Act::Tanh, Act::Tanh],
    };
    let acts = activations(ctx, defaults, dirs)?;
    Ok(Setup { seq, batch, input, hidden, dirs, layout1, clip, lens, acts })
}

/// Weights of one direction, in the compute type.
struct DirWeights<T> {
    w: Vec<T>,
    r: Vec<T>,
    wb: Vec<T>,
    rb: Vec<T>,
    p: Vec<T>,
}

fn dir_weights<T: Real>(ctx: &EvalCtx<'_>, s: &Setup, cell: Cell, d: usize) -> Result<DirWeights<T>, String> {
    let gh = cell.gates() * s.hidden;
    let (w, r) = (reals::<T>(ctx.input(1)?), reals::<T>(ctx.input(2)?));
    let (wn, rn) = (gh * s.input, gh * s.hidden);
    let (wb, rb) = match ctx.opt(3) {
        Some(b) if b.shape == [s.dirs, 2 * gh] => {
            let b = reals::<T>(b);
            (b[d * 2 * gh..d * 2 * gh + gh].to_vec(), b[d * 2 * gh + gh..(d + 1) * 2 * gh].to_vec())
        }
        Some(b) => return Err(format!("B {:?} must have shape [{}, {}]", b.shape, s.dirs, 2 * gh)),
        None => (vec![T::ZERO; gh], vec![T::ZERO; gh]),
    };
    let p = match ctx.opt(7).filter(|_| cell == Cell::Lstm) {
        Some(p) if p.shape == [s.dirs, 3 * s.hidden] => {
            reals::<T>(p)[d * 3 * s.hidden..(d + 1) * 3 * s.hidden].to_vec()
        }
        Some(p) => return Err(format!("P {:?} must have shape [{}, {}]", p.shape, s.dirs, 3 * s.hidden)),
        None => vec![T::ZERO; 3 * s.hidden],
    };
    Ok(DirWeights { w: w[d * wn..(d + 1) * wn].to_vec(), r: r[d * rn..(d + 1) * rn].to_vec(), wb, rb, p })
}

/// `M[rows] @ v` for a row-major matrix with `v.len()` columns, rows `r0..r0+n`.
fn matvec<T: Real>(m: &[T], r0: usize, n: usize, v: &[T]) -> Vec<T> {
    let k = v.len();
    (r0..r0 + n).map(|i| m[i * k..(i + 1) * k].iter().zip(v).map(|(&a, &b)| a * b).sum()).collect()
}

/// The initial state (operand `i`) of direction `d`, batch item `b`, or zeros.
fn initial<T: Real>(ctx: &EvalCtx<'_>, s: &Setup, i: usize, d: usize, b: usize) -> Result<Vec<T>, String> {
    let Some(t) = ctx.opt(i) else { return Ok(vec![T::ZERO; s.hidden]) };
    let want = if s.layout1 { [s.batch, s.dirs, s.hidden] } else { [s.dirs, s.batch, s.hidden] };
    if t.shape != want {
        return Err(format!("initial state #{i} {:?} must have shape {want:?}", t.shape));
    }
    let off = if s.layout1 { (b * s.dirs + d) * s.hidden } else { (d * s.batch + b) * s.hidden };
    Ok(reals::<T>(t)[off..off + s.hidden].to_vec())
}

/// One time step of direction `d`: updates `h` (and `c` for LSTM).
fn step<T: Real>(
    cell: Cell,
    s: &Setup,
    wt: &DirWeights<T>,
    acts: &[Act],
    x: &[T],
    h: &mut Vec<T>,
    c: &mut [T],
    lbr: bool,
    couple: bool,
) {
    let hs = s.hidden;
    let clip = |v: T| s.clip.map_or(v, |cl| T::from_f64(v.to_f64().clamp(-cl, cl)));
    let gx = matvec(&wt.w, 0, cell.gates() * hs, x);
    let gh = matvec(&wt.r, 0, cell.gates() * hs, h);
    let pre = |g: usize, j: usize| gx[g * hs + j] + gh[g * hs + j] + wt.wb[g * hs + j] + wt.rb[g * hs + j];
    match cell {
        Cell::Rnn => *h = (0..hs).map(|j| apply(acts[0], clip(pre(0, j)))).collect(),
        Cell::Gru => {
            let z: Vec<T> = (0..hs).map(|j| apply(acts[0], clip(pre(0, j)))).collect();
            let r: Vec<T> = (0..hs).map(|j| apply(acts[0], clip(pre(1, j)))).collect();
            let rh: Vec<T> = (0..hs).map(|j| r[j] * h[j]).collect();
            let hr = matvec(&wt.r, 2 * hs, hs, if lbr { h } else { &rh });
            let hh: Vec<T> = (0..hs)
                .map(|j| {
                    let xw = gx[2 * hs + j] + wt.wb[2 * hs + j];
                    let v = if lbr { xw + r[j] * (hr[j] + wt.rb[2 * hs + j]) } else { xw + hr[j] + wt.rb[2 * hs + j] };
                    apply(acts[1], clip(v))
                })
                .collect();
            *h = (0..hs).map(|j| (T::ONE - z[j]) * hh[j] + z[j] * h[j]).collect();
        }
        Cell::Lstm => {
            for j in 0..hs {
                let i = apply(acts[0], clip(pre(0, j) + wt.p[j] * c[j]));
                let f = if couple { T::ONE - i } else { apply(acts[0], clip(pre(2, j) + wt.p[2 * hs + j] * c[j])) };
                let ct = apply(acts[1], clip(pre(3, j)));
                c[j] = f * c[j] + i * ct;
                let o = apply(acts[0], clip(pre(1, j) + wt.p[hs + j] * c[j]));
                h[j] = o * apply(acts[2], c[j]);
            }
        }
    }
}

fn run_t<T: Real>(ctx: &EvalCtx<'_>, cell: Cell) -> Result<Vec<Tensor>, String> {
    let s = setup(ctx, cell)?;
    let x = ctx.input(0)?;
    let xv = reals::<T>(x);
    let (lbr, couple) = (ctx.int("linear_before_reset", 0) != 0, ctx.int("input_forget", 0) != 0);
    let nact = s.acts.len() / s.dirs;
    let reverse_only = ctx.str("direction", "forward") == "reverse";
    let hs = s.hidden;
    let mut y = vec![T::ZERO; s.seq * s.dirs * s.batch * hs];
    let mut yh = vec![T::ZERO; s.dirs * s.batch * hs];
    let mut yc = vec![T::ZERO; s.dirs * s.batch * hs];
    for d in 0..s.dirs {
        let wt = dir_weights::<T>(ctx, &s, cell, d)?;
        let acts = &s.acts[d * nact..(d + 1) * nact];
        for b in 0..s.batch {
            let mut h = initial::<T>(ctx, &s, 5, d, b)?;
            let mut c = initial::<T>(ctx, &s, 6, d, b)?;
            let len = s.lens[b];
            for k in 0..len {
                let t = if d == 1 || reverse_only { len - 1 - k } else { k };
                let xo = if s.layout1 { (b * s.seq + t) * s.input } else { (t * s.batch + b) * s.input };
                step(cell, &s, &wt, acts, &xv[xo..xo + s.input], &mut h, &mut c, lbr, couple);
                let yo = ((t * s.dirs + d) * s.batch + b) * hs;
                y[yo..yo + hs].copy_from_slice(&h);
            }
            yh[(d * s.batch + b) * hs..(d * s.batch + b + 1) * hs].copy_from_slice(&h);
            yc[(d * s.batch + b) * hs..(d * s.batch + b + 1) * hs].copy_from_slice(&c);
        }
    }
    let dt = x.dtype();
    let mut outs = Vec::new();
    for (i, v) in [y, yh, yc].into_iter().enumerate().take(ctx.num_results()) {
        outs.push(if i == 0 { y_layout(dt, &s, v)? } else { state_layout(dt, &s, v)? });
    }
    Ok(outs)
}

/// `Y` from `[seq, dirs, batch, hidden]` to the op's layout.
fn y_layout<T: Real>(dt: crate::types::DType, s: &Setup, v: Vec<T>) -> Result<Tensor, String> {
    if !s.layout1 {
        return to_tensor(dt, vec![s.seq, s.dirs, s.batch, s.hidden], v);
    }
    let mut out = Vec::with_capacity(v.len());
    for b in 0..s.batch {
        for t in 0..s.seq {
            for d in 0..s.dirs {
                let o = ((t * s.dirs + d) * s.batch + b) * s.hidden;
                out.extend_from_slice(&v[o..o + s.hidden]);
            }
        }
    }
    to_tensor(dt, vec![s.batch, s.seq, s.dirs, s.hidden], out)
}

/// A final state from `[dirs, batch, hidden]` to the op's layout.
fn state_layout<T: Real>(dt: crate::types::DType, s: &Setup, v: Vec<T>) -> Result<Tensor, String> {
    if !s.layout1 {
        return to_tensor(dt, vec![s.dirs, s.batch, s.hidden], v);
    }
    let mut out = Vec::with_capacity(v.len());
    for b in 0..s.batch {
        for d in 0..s.dirs {
            let o = (d * s.batch + b) * s.hidden;
            out.extend_from_slice(&v[o..o + s.hidden]);
        }
    }
    to_tensor(dt, vec![s.batch, s.dirs, s.hidden], out)
}

/// `onnx.RNN`: `H_t = f(X_t W^T + H_{t-1} R^T + Wb + Rb)` (default f = Tanh).
pub fn rnn(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    float_kernel!(ctx.input(0)?.dtype(), run_t(ctx, Cell::Rnn))
}

/// `onnx.GRU`: update/reset/hidden gates (order z, r, h), `linear_before_reset`.
pub fn gru(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    float_kernel!(ctx.input(0)?.dtype(), run_t(ctx, Cell::Gru))
}

/// `onnx.LSTM`: gates in order i, o, f, c; peepholes P = [Pi, Po, Pf]; `input_forget`
/// couples the forget gate to `1 - i`.
pub fn lstm(ctx: &EvalCtx<'_>) -> Result<Vec<Tensor>, String> {
    float_kernel!(ctx.input(0)?.dtype(), run_t(ctx, Cell::Lstm))
}
