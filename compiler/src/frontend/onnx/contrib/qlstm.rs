//! `DynamicQuantizeLSTM`, unrolled over its (static) sequence length.
//!
//! onnxruntime's kernel is the LSTM of ONNX with both GEMMs quantized: the
//! input GEMM quantizes all of `X` at once (`DynamicQuantizeLinear` over the
//! whole tensor) and multiplies by `W[d]` (`[input, 4*hidden]`, gates
//! i, o, f, c); each step's recurrent GEMM quantizes `h` alone and multiplies
//! by `R[d]`. Both accumulate in int32 and scale by `a_scale * w_scale` in
//! float (per column when the weight scale is per channel). Gates then add
//! `Wb + Rb` and peepholes and go through sigmoid / tanh in float. This
//! lowering emits exactly those steps. With no `initial_h` the first
//! recurrent product is exactly zero and is skipped.

use super::{bind_at, cast, dtype, int_attr, op, op1, op_n, str_attr, wants, Ins};
use crate::frontend::onnx::convert::{NResult, NodeCx, NodeError};
use ir::interp::{Data, Tensor};
use ir::{Attr, Attrs, DType, Opcode, Value};

/// Per-direction operands.
struct Dir {
    /// `W[d]` `[I, 4H]`, `R[d]` `[H, 4H]` (quantized).
    w: Value,
    r: Value,
    /// Weight scales and zero points (scalar or per column).
    ws: Value,
    wz: Option<Value>,
    rs: Value,
    rz: Option<Value>,
    /// `Wb + Rb` `[4H]`, if given.
    bias: Option<Value>,
    /// Peepholes `p_i`, `p_o`, `p_f` (`[H]` each), if given.
    peep: Option<[Value; 3]>,
    /// `initial_h[d]`, `initial_c[d]` `[B, H]`, if given.
    h0: Option<Value>,
    c0: Option<Value>,
}

/// `x[d]` along axis 0 (a scalar-index Gather drops the axis).
fn pick(cx: &mut NodeCx<'_, '_, '_>, x: Value, d: usize) -> NResult<Value> {
    let i = cx.constant(&Tensor::new(vec![], Data::I64(vec![d as i64])), "direction");
    op(cx, Opcode::Gather, vec![Some(x), Some(i)], Attrs::new().with("axis", Attr::Int(0)))
}

fn pick_opt(cx: &mut NodeCx<'_, '_, '_>, x: Option<Value>, d: usize) -> NResult<Option<Value>> {
    x.map(|x| pick(cx, x, d)).transpose()
}

/// `[start, end)` of the last axis.
fn cols(cx: &mut NodeCx<'_, '_, '_>, x: Value, start: i64, end: i64) -> NResult<Value> {
    let (s, e, a) = (cx.const_i64s(&[start], "starts"), cx.const_i64s(&[end], "ends"), cx.const_i64s(&[-1], "axes"));
    op1(cx, Opcode::Slice, &[x, s, e, a])
}

fn direction(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>, d: usize, h: i64) -> NResult<Dir> {
    let w = pick(cx, ins.req(1, "W")?, d)?;
    let r = pick(cx, ins.req(2, "R")?, d)?;
    let ws = pick(cx, ins.req(8, "W_scale")?, d)?;
    let wz = pick_opt(cx, ins.opt(9), d)?;
    let rs = pick(cx, ins.req(10, "R_scale")?, d)?;
    let rz = pick_opt(cx, ins.opt(11), d)?;
    let bias = match pick_opt(cx, ins.opt(3), d)? {
        Some(b) => {
            let wb = cols(cx, b, 0, 4 * h)?;
            let rb = cols(cx, b, 4 * h, 8 * h)?;
            Some(op1(cx, Opcode::Add, &[wb, rb])?)
        }
        None => None,
    };
    let peep = match pick_opt(cx, ins.opt(7), d)? {
        Some(p) => Some([cols(cx, p, 0, h)?, cols(cx, p, h, 2 * h)?, cols(cx, p, 2 * h, 3 * h)?]),
        None => None,
    };
    let h0 = pick_opt(cx, ins.opt(5), d)?;
    let c0 = pick_opt(cx, ins.opt(6), d)?;
    Ok(Dir { w, r, ws, wz, rs, rz, bias, peep, h0, c0 })
}

/// `float(MatMulInteger(DynamicQuantize(a), b)) * (a_scale * b_scale)`.
fn qmatmul(cx: &mut NodeCx<'_, '_, '_>, a: Value, b: Value, bs: Value, bz: Option<Value>) -> NResult<Value> {
    let q = op_n(cx, Opcode::DynamicQuantizeLinear, vec![Some(a)], Attrs::new(), 3)?;
    let acc = op(cx, Opcode::MatMulInteger, vec![Some(q[0]), Some(b), Some(q[2]), bz], Attrs::new())?;
    let f = cast(cx, acc, DType::F32)?;
    let mult = op1(cx, Opcode::Mul, &[q[1], bs])?;
    op1(cx, Opcode::Mul, &[f, mult])
}

/// `a + b * c`.
fn add_mul(cx: &mut NodeCx<'_, '_, '_>, a: Value, b: Value, c: Value) -> NResult<Value> {
    let m = op1(cx, Opcode::Mul, &[b, c])?;
    op1(cx, Opcode::Add, &[a, m])
}

/// One LSTM step: `(h, c)` from the step's input projection `xw` `[B, 4H]`.
fn step(
    cx: &mut NodeCx<'_, '_, '_>,
    dir: &Dir,
    xw: Value,
    h: Option<Value>,
    c: Value,
    hs: i64,
) -> NResult<(Value, Value)> {
    let mut g = xw;
    if let Some(h) = h {
        let rh = qmatmul(cx, h, dir.r, dir.rs, dir.rz)?;
        g = op1(cx, Opcode::Add, &[g, rh])?;
    }
    if let Some(b) = dir.bias {
        g = op1(cx, Opcode::Add, &[g, b])?;
    }
    let split = cx.const_i64s(&[hs; 4], "split");
    let gates = op_n(cx, Opcode::Split, vec![Some(g), Some(split)], Attrs::new().with("axis", Attr::Int(-1)), 4)?;
    let (mut i, mut o, mut f, z) = (gates[0], gates[1], gates[2], gates[3]);
    if let Some([pi, _, pf]) = dir.peep {
        i = add_mul(cx, i, pi, c)?;
        f = add_mul(cx, f, pf, c)?;
    }
    let i = op1(cx, Opcode::Sigmoid, &[i])?;
    let f = op1(cx, Opcode::Sigmoid, &[f])?;
    let z = op1(cx, Opcode::Tanh, &[z])?;
    let cf = op1(cx, Opcode::Mul, &[c, f])?;
    let c = add_mul(cx, cf, i, z)?;
    if let Some([_, po, _]) = dir.peep {
        o = add_mul(cx, o, po, c)?;
    }
    let o = op1(cx, Opcode::Sigmoid, &[o])?;
    let tc = op1(cx, Opcode::Tanh, &[c])?;
    let h = op1(cx, Opcode::Mul, &[tc, o])?;
    Ok((h, c))
}

/// Zeros `[B, H]` with `B` taken from `X`'s shape.
fn zero_state(cx: &mut NodeCx<'_, '_, '_>, x: Value, h: i64) -> NResult<Value> {
    let shape = op1(cx, Opcode::Shape, &[x])?;
    let (one, two) = (cx.const_i64s(&[1], "one"), cx.const_i64s(&[2], "two"));
    let b = op1(cx, Opcode::Slice, &[shape, one, two])?;
    let hv = cx.const_i64s(&[h], "hidden");
    let dims = op(cx, Opcode::Concat, vec![Some(b), Some(hv)], Attrs::new().with("axis", Attr::Int(0)))?;
    let zero = super::f32_const(cx, 0.0, "zero");
    op1(cx, Opcode::Expand, &[zero, dims])
}

/// One direction over the whole sequence: `Y` `[S, 1, B, H]`, last `h` and
/// `c` `[1, B, H]`. `xq` is `DynamicQuantizeLinear(X)` (shared by both
/// directions, as ORT quantizes the same `X` for each).
fn run_direction(
    cx: &mut NodeCx<'_, '_, '_>,
    x: Value,
    xq: &[Value],
    dir: &Dir,
    reverse: bool,
    seq: usize,
    h: i64,
) -> NResult<(Value, Value, Value)> {
    let acc = op(cx, Opcode::MatMulInteger, vec![Some(xq[0]), Some(dir.w), Some(xq[2]), dir.wz], Attrs::new())?;
    let accf = cast(cx, acc, DType::F32)?;
    let mult = op1(cx, Opcode::Mul, &[xq[1], dir.ws])?;
    let xw = op1(cx, Opcode::Mul, &[accf, mult])?;
    let mut hv = dir.h0;
    let mut cv = match dir.c0 {
        Some(c) => c,
        None => zero_state(cx, x, h)?,
    };
    let mut per_t = vec![None; seq];
    let order: Vec<usize> = if reverse { (0..seq).rev().collect() } else { (0..seq).collect() };
    for t in order {
        let xt = pick(cx, xw, t)?;
        let (hn, cn) = step(cx, dir, xt, hv, cv, h)?;
        per_t[t] = Some(hn);
        hv = Some(hn);
        cv = cn;
    }
    let ax01 = cx.const_i64s(&[0, 1], "axes");
    let mut steps = Vec::new();
    for v in per_t.into_iter().flatten() {
        steps.push(Some(op1(cx, Opcode::Unsqueeze, &[v, ax01])?));
    }
    let y = op(cx, Opcode::Concat, steps, Attrs::new().with("axis", Attr::Int(0)))?;
    let ax0 = cx.const_i64s(&[0], "axes");
    let last_h = hv.ok_or("empty sequence")?;
    let yh = op1(cx, Opcode::Unsqueeze, &[last_h, ax0])?;
    let yc = op1(cx, Opcode::Unsqueeze, &[cv, ax0])?;
    Ok((y, yh, yc))
}

/// Validate the attributes this lowering supports.
fn check_attrs(cx: &NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    if ins.opt(4).is_some() {
        return Err("input `sequence_lens` is not supported".into());
    }
    if int_attr(cx, "input_forget", 0) != 0 || cx.attr("clip").is_some() {
        return Err("attributes `input_forget` and `clip` are not supported".into());
    }
    if let Some(a) = cx.attr("activations") {
        let names: Vec<String> = a.strings.iter().map(|s| String::from_utf8_lossy(s).to_lowercase()).collect();
        if names.chunks(3).any(|c| c != ["sigmoid", "tanh", "tanh"]) {
            return Err(NodeError::Error(format!("activations {names:?} are not supported (Sigmoid, Tanh, Tanh)")));
        }
    }
    Ok(())
}

/// `DynamicQuantizeLSTM(X, W, R, B?, sequence_lens?, initial_h?, initial_c?,
/// P?, W_scale, W_zero_point, R_scale, R_zero_point)` → `Y, Y_h, Y_c`.
pub(super) fn dynamic_quantize_lstm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    check_attrs(cx, ins)?;
    let x = ins.req(0, "X")?;
    if dtype(cx, x) != DType::F32 {
        return Err("X must be float32".into());
    }
    let seq = cx.ty(x).dims().and_then(|d| d.first()).and_then(|d| d.as_static());
    let seq = seq.ok_or("DynamicQuantizeLSTM needs a static sequence length (it is unrolled)")? as usize;
    let h = cx.attr("hidden_size").map(|a| a.i).filter(|&h| (1..=1 << 30).contains(&h));
    let h = h.ok_or("needs `hidden_size` in 1..=2^30")?;
    if seq > 4096 {
        return Err(NodeError::Error(format!("sequence length {seq} is too long to unroll (at most 4096)")));
    }
    let dirs: &[bool] = match str_attr(cx, "direction", "forward").as_str() {
        "forward" => &[false],
        "reverse" => &[true],
        "bidirectional" => &[false, true],
        other => return Err(NodeError::Error(format!("direction `{other}` is not supported"))),
    };
    let xq = op_n(cx, Opcode::DynamicQuantizeLinear, vec![Some(x)], Attrs::new(), 3)?;
    let (mut ys, mut hs, mut cs) = (Vec::new(), Vec::new(), Vec::new());
    for (d, &reverse) in dirs.iter().enumerate() {
        let dir = direction(cx, ins, d, h)?;
        let (y, yh, yc) = run_direction(cx, x, &xq, &dir, reverse, seq, h)?;
        ys.push(Some(y));
        hs.push(Some(yh));
        cs.push(Some(yc));
    }
    let cat = |axis: i64| Attrs::new().with("axis", Attr::Int(axis));
    if wants(cx, 0) {
        let y = op(cx, Opcode::Concat, ys, cat(1))?;
        bind_at(cx, 0, y);
    }
    let yh = op(cx, Opcode::Concat, hs, cat(0))?;
    bind_at(cx, 1, yh);
    let yc = op(cx, Opcode::Concat, cs, cat(0))?;
    bind_at(cx, 2, yc);
    Ok(())
}
