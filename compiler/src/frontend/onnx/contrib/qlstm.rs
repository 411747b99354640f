//! `DynamicQuantizeLSTM`: the recurrence as a standard `Scan` over the time
//! steps (any sequence length and batch, symbolic ones included), computing
//! what onnxruntime's CPU kernel computes, quantization and float rounding
//! alike.
//!
//! onnxruntime runs `LSTMBase::ComputeImpl` → one `UniDirectionalLstm` per
//! direction (reverse: the input reversed in time, run forward, the outputs
//! reversed back), with both GEMMs quantized (`rnn_helpers.cc`,
//! `ComputeGemm` for `uint8_t` weights):
//!
//! - input projection: ONE quantized GEMM over all `seq * batch` rows, i.e.
//!   `X` is quantized as a whole (u8, min/max widened to include 0, scale
//!   `(max - min) / 255`, zero point rounded half to even: exactly
//!   `DynamicQuantizeLinear`), times `W[d]` (`[input, 4*hidden]`, gates
//!   i, o, f, c), `float(acc) * (x_scale * w_scale)` (per column when the
//!   weight scale is per channel). Both directions see the same `X`, hence
//!   the same quantization.
//! - each step: `h_{t-1}` of ALL batch rows quantized together (one range
//!   for the whole `[batch, hidden]` matrix, not per row), times `R[d]`, and
//!   the product accumulated onto the step's projection:
//!   `float(acc) * (h_scale * r_scale) + xw_t` (a multiply, then an add).
//!   With no `initial_h` the first step quantizes zeros: the product is 0.
//!   (With more than one intra-op thread and `batch > 4`, or `batch >= 2`
//!   and `hidden <= 256`, onnxruntime splits the batch across threads and
//!   quantizes each chunk alone; its results then depend on the thread
//!   count. This lowering follows the single-threaded run, which is how the
//!   reference data is made.)
//! - the weight zero point used is the direction's first element (per-column
//!   ones must be equal for u8 weights and zero for i8 weights).
//! - gates, in float, in this order: `+= c_{t-1} * P_i` (peephole), `+= Wb+Rb`
//!   (the two biases added first), clipped to `±clip` when given, then MLAS's
//!   logistic for i, f, o and MLAS's tanh for the cell gate (see `mlas.rs`:
//!   the recurrence feeds `h` back into a quantization, so float values must
//!   be MLAS's to the bit or a quantization step flips and the error grows,
//!   e.g. 0.05 after 15 steps at batch 3 in voicefilter_embedder);
//!   `f = 1 - i` with `input_forget`; `c = c_{t-1} * f + i * g`; the output
//!   gate's peephole uses the new `c`; `h = tanh(c) * o`.
//!
//! Only the MLAS float kernels of x86-64 with FMA3 are reproduced; the
//! integer GEMM is exact (as on AVX-512 VNNI / AVX-VNNI machines; the AVX2
//! kernel without VNNI saturates pairs of products to 16 bits).

use super::{bind_at, cast, dtype, f32_const, int_attr, mlas, op, op1, op_n, str_attr, wants, Ins};
use crate::frontend::onnx::importer::{place, Cursor};
use crate::frontend::onnx::node::{NResult, NodeCx, NodeError};
use ir::interp::{Data, Tensor};
use ir::{Attr, Attrs, DType, Dim, Opcode, Region, Shape, TensorType, Value};

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
    /// `Wb + Rb` `[4H]` and its four gate slices (i, o, f, c), if given.
    bias: Option<(Value, [Value; 4])>,
    /// Peepholes `p_i`, `p_o`, `p_f` (`[H]` each), if given.
    peep: Option<[Value; 3]>,
    /// `initial_h[d]`, `initial_c[d]` `[B, H]`, if given.
    h0: Option<Value>,
    c0: Option<Value>,
}

/// Attributes shared by every step.
struct Cfg {
    hidden: i64,
    /// `clip`, if given (onnxruntime's default, `FLT_MAX`, changes nothing
    /// finite).
    clip: Option<f32>,
    input_forget: bool,
}

/// `x[d]` along axis 0 (a scalar-index Gather drops the axis).
fn pick(cx: &mut NodeCx<'_, '_, '_>, x: Value, d: usize) -> NResult<Value> {
    let i = cx.constant(&Tensor::new(vec![], Data::I64(vec![d as i64])), "direction");
    op(cx, Opcode::Gather, vec![Some(x), Some(i)], Attrs::new().with("axis", Attr::Int(0)))
}

fn pick_opt(cx: &mut NodeCx<'_, '_, '_>, x: Option<Value>, d: usize) -> NResult<Option<Value>> {
    x.map(|x| pick(cx, x, d)).transpose()
}

/// `Slice(x, starts, ends, axes, steps)` with constant bounds.
fn slice(cx: &mut NodeCx<'_, '_, '_>, x: Value, start: i64, end: i64, axis: i64, step: i64) -> NResult<Value> {
    let s = cx.const_i64s(&[start], "starts");
    let e = cx.const_i64s(&[end], "ends");
    let a = cx.const_i64s(&[axis], "axes");
    let st = cx.const_i64s(&[step], "steps");
    op1(cx, Opcode::Slice, &[x, s, e, a, st])
}

/// `[start, end)` of the last axis.
fn cols(cx: &mut NodeCx<'_, '_, '_>, x: Value, start: i64, end: i64) -> NResult<Value> {
    slice(cx, x, start, end, -1, 1)
}

/// Split the last axis into parts of the given sizes.
fn split(cx: &mut NodeCx<'_, '_, '_>, x: Value, sizes: &[i64]) -> NResult<Vec<Value>> {
    let s = cx.const_i64s(sizes, "split");
    op_n(cx, Opcode::Split, vec![Some(x), Some(s)], Attrs::new().with("axis", Attr::Int(-1)), sizes.len())
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
            let sum = op1(cx, Opcode::Add, &[wb, rb])?;
            let g = split(cx, sum, &[h; 4])?;
            Some((sum, [g[0], g[1], g[2], g[3]]))
        }
        None => None,
    };
    let peep = match pick_opt(cx, ins.opt(7), d)? {
        Some(p) => {
            let g = split(cx, p, &[h; 3])?;
            Some([g[0], g[1], g[2]])
        }
        None => None,
    };
    let h0 = pick_opt(cx, ins.opt(5), d)?;
    let c0 = pick_opt(cx, ins.opt(6), d)?;
    Ok(Dir { w, r, ws, wz, rs, rz, bias, peep, h0, c0 })
}

/// `float(MatMulInteger(aq, b)) * (a_scale * b_scale)` for `aq` the three
/// results of `DynamicQuantizeLinear(a)`.
fn qmatmul(cx: &mut NodeCx<'_, '_, '_>, aq: &[Value], b: Value, bs: Value, bz: Option<Value>) -> NResult<Value> {
    let acc = op(cx, Opcode::MatMulInteger, vec![Some(aq[0]), Some(b), Some(aq[2]), bz], Attrs::new())?;
    let f = cast(cx, acc, DType::F32)?;
    let mult = op1(cx, Opcode::Mul, &[aq[1], bs])?;
    op1(cx, Opcode::Mul, &[f, mult])
}

/// `a + b * c`.
fn add_mul(cx: &mut NodeCx<'_, '_, '_>, a: Value, b: Value, c: Value) -> NResult<Value> {
    let m = op1(cx, Opcode::Mul, &[b, c])?;
    op1(cx, Opcode::Add, &[a, m])
}

/// A gate's activation input: `g (+ c * p) (+ bias)`, clipped if asked.
fn gate_input(
    cx: &mut NodeCx<'_, '_, '_>,
    cfg: &Cfg,
    g: Value,
    peep: Option<(Value, Value)>,
    bias: Option<Value>,
) -> NResult<Value> {
    let mut x = g;
    if let Some((c, p)) = peep {
        x = add_mul(cx, x, c, p)?;
    }
    if let Some(b) = bias {
        x = op1(cx, Opcode::Add, &[x, b])?;
    }
    if let Some(clip) = cfg.clip {
        let (lo, hi) = (f32_const(cx, -clip, "clip_lo"), f32_const(cx, clip, "clip_hi"));
        x = op1(cx, Opcode::Clip, &[x, lo, hi])?;
    }
    Ok(x)
}

/// `1 - i`, the forget gate with `input_forget`.
fn one_minus(cx: &mut NodeCx<'_, '_, '_>, i: Value) -> NResult<Value> {
    let one = f32_const(cx, 1.0, "one");
    op1(cx, Opcode::Sub, &[one, i])
}

/// One LSTM step (the Scan body): `(h, c)` from `h_{t-1}`, `c_{t-1}` and the
/// step's input projection `xw` `[B, 4H]`.
fn step(cx: &mut NodeCx<'_, '_, '_>, dir: &Dir, cfg: &Cfg, h: Value, c: Value, xw: Value) -> NResult<(Value, Value)> {
    let hq = op_n(cx, Opcode::DynamicQuantizeLinear, vec![Some(h)], Attrs::new(), 3)?;
    let rh = qmatmul(cx, &hq, dir.r, dir.rs, dir.rz)?;
    let g = op1(cx, Opcode::Add, &[rh, xw])?;
    let hs = cfg.hidden;
    let (o, c_new) = match dir.peep {
        None => {
            // Elementwise the same as gate by gate: one logistic over i, o, f.
            let pre = gate_input(cx, cfg, g, None, dir.bias.map(|b| b.0))?;
            let parts = split(cx, pre, &[3 * hs, hs])?;
            let s = mlas::logistic(cx, parts[0])?;
            let z = mlas::tanh(cx, parts[1])?;
            let iof = split(cx, s, &[hs; 3])?;
            let f = if cfg.input_forget { one_minus(cx, iof[0])? } else { iof[2] };
            let cf = op1(cx, Opcode::Mul, &[c, f])?;
            let c_new = add_mul(cx, cf, iof[0], z)?;
            (iof[1], c_new)
        }
        Some([pi, po, pf]) => {
            let gs = split(cx, g, &[hs; 4])?;
            let b = |k: usize| dir.bias.map(|b| b.1[k]);
            let x = gate_input(cx, cfg, gs[0], Some((c, pi)), b(0))?;
            let i = mlas::logistic(cx, x)?;
            let f = if cfg.input_forget {
                one_minus(cx, i)?
            } else {
                let x = gate_input(cx, cfg, gs[2], Some((c, pf)), b(2))?;
                mlas::logistic(cx, x)?
            };
            let x = gate_input(cx, cfg, gs[3], None, b(3))?;
            let z = mlas::tanh(cx, x)?;
            let cf = op1(cx, Opcode::Mul, &[c, f])?;
            let c_new = add_mul(cx, cf, i, z)?;
            let x = gate_input(cx, cfg, gs[1], Some((c_new, po)), b(1))?;
            let o = mlas::logistic(cx, x)?;
            (o, c_new)
        }
    };
    let tc = mlas::tanh(cx, c_new)?;
    let h_new = op1(cx, Opcode::Mul, &[tc, o])?;
    Ok((h_new, c_new))
}

/// `v`'s type narrowed to `ty` where inference left dims unknown.
fn narrow(cx: &mut NodeCx<'_, '_, '_>, v: Value, ty: &TensorType) {
    if let Ok(t) = ir::infer::meet_type(ty, cx.f.ty(v)) {
        cx.f.values[v].ty = t;
    }
}

/// Zeros `[B, H]` with `B` taken from `X`'s shape.
fn zero_state(cx: &mut NodeCx<'_, '_, '_>, x: Value, h: i64, ty: &TensorType) -> NResult<Value> {
    let shape = op1(cx, Opcode::Shape, &[x])?;
    let b = slice(cx, shape, 1, 2, 0, 1)?;
    let hv = cx.const_i64s(&[h], "hidden");
    let dims = op(cx, Opcode::Concat, vec![Some(b), Some(hv)], Attrs::new().with("axis", Attr::Int(0)))?;
    let zero = f32_const(cx, 0.0, "zero");
    let z = op1(cx, Opcode::Expand, &[zero, dims])?;
    narrow(cx, z, ty);
    Ok(z)
}

/// One direction over the whole sequence: `Y` `[S, 1, B, H]`, last `h` and
/// `c` `[1, B, H]`. `xq` is `DynamicQuantizeLinear(X)`.
fn run_direction(
    cx: &mut NodeCx<'_, '_, '_>,
    x: Value,
    xq: &[Value],
    dir: &Dir,
    cfg: &Cfg,
    reverse: bool,
) -> NResult<(Value, Value, Value)> {
    let xw = qmatmul(cx, xq, dir.w, dir.ws, dir.wz)?;
    let batch = cx.ty(x).dims().map_or(Dim::Unknown, |d| d[1]);
    let hidden = Dim::Static(cfg.hidden as u64);
    let state_ty = TensorType::new(DType::F32, Shape::from_dims([batch, hidden]));
    let step_ty = TensorType::new(DType::F32, Shape::from_dims([batch, Dim::Static(4 * cfg.hidden as u64)]));
    // The initial states are `[B, H]` (onnxruntime checks it): say so where
    // inference could not tell, so the carried states keep that type.
    let mut state = |v: Option<Value>| match v {
        Some(v) => {
            narrow(cx, v, &state_ty);
            Ok(v)
        }
        None => zero_state(cx, x, cfg.hidden, &state_ty),
    };
    let h0 = state(dir.h0)?;
    let c0 = state(dir.c0)?;

    // Scan(h0, c0, xw): states h, c; one scan input, read backwards for the
    // reverse direction; scan output h per step.
    let attrs = Attrs::new()
        .with("num_scan_inputs", Attr::Int(1))
        .with("scan_input_directions", Attr::Ints(vec![reverse as i64]));
    let placeholder = vec![TensorType::unranked(DType::F32); 3];
    let scan = cx.f.create_op(Opcode::Scan, [Some(h0), Some(c0), Some(xw)], attrs, placeholder, cx.loc());
    cx.f.ops[scan].regions.push(Region::default());
    let hp = cx.f.add_region_param(scan, 0, state_ty.clone());
    let cp = cx.f.add_region_param(scan, 0, state_ty);
    let xp = cx.f.add_region_param(scan, 0, step_ty);
    let outer = cx.cursor;
    cx.cursor = Cursor::Region(scan, 0);
    let body = step(cx, dir, cfg, hp, cp, xp);
    cx.cursor = outer;
    let (hn, cn) = body?;
    cx.f.ops[scan].regions[0].results = vec![hn, cn, hn];
    let types = ir::infer::infer_op(&cx.imp.m, cx.f, &cx.f.ops[scan]).map_err(|e| format!("Scan: {e}"))?;
    let results = cx.f.ops[scan].results.to_vec();
    for (&v, t) in results.iter().zip(types) {
        cx.f.values[v].ty = t;
    }
    place(cx.f, cx.cursor, scan);

    let mut ys = results[2];
    if reverse {
        // Scan stacks outputs in step order; put them back in time order.
        ys = slice(cx, ys, -1, i64::MIN, 0, -1)?;
    }
    let ax1 = cx.const_i64s(&[1], "axes");
    let y = op1(cx, Opcode::Unsqueeze, &[ys, ax1])?;
    let ax0 = cx.const_i64s(&[0], "axes");
    let yh = op1(cx, Opcode::Unsqueeze, &[results[0], ax0])?;
    let yc = op1(cx, Opcode::Unsqueeze, &[results[1], ax0])?;
    Ok((y, yh, yc))
}

/// Validate what this lowering supports; the shared attributes.
fn config(cx: &NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<Cfg> {
    if ins.opt(4).is_some() {
        return Err(
            "input `sequence_lens` is not supported (onnxruntime's quantization ranges then depend on each row's length)"
                .into(),
        );
    }
    if let Some(a) = cx.attr("activations") {
        let names: Vec<String> = a.strings.iter().map(|s| String::from_utf8_lossy(s).to_lowercase()).collect();
        if names.chunks(3).any(|c| c != ["sigmoid", "tanh", "tanh"]) {
            return Err(NodeError::Error(format!("activations {names:?} are not supported (Sigmoid, Tanh, Tanh)")));
        }
    }
    let hidden = cx.attr("hidden_size").map(|a| a.i).filter(|&h| (1..=1 << 30).contains(&h));
    let hidden = hidden.ok_or("needs `hidden_size` in 1..=2^30")?;
    let clip = cx.attr("clip").map(|a| a.f);
    if clip.is_some_and(|c| c.is_nan() || c <= 0.0) {
        return Err("`clip` must be positive".into());
    }
    Ok(Cfg { hidden, clip, input_forget: int_attr(cx, "input_forget", 0) != 0 })
}

/// `DynamicQuantizeLSTM(X, W, R, B?, sequence_lens?, initial_h?, initial_c?,
/// P?, W_scale, W_zero_point, R_scale, R_zero_point)` → `Y, Y_h, Y_c`.
pub(super) fn dynamic_quantize_lstm(cx: &mut NodeCx<'_, '_, '_>, ins: &Ins<'_>) -> NResult<()> {
    let cfg = config(cx, ins)?;
    let x = ins.req(0, "X")?;
    if dtype(cx, x) != DType::F32 {
        return Err("X must be float32".into());
    }
    if cx.ty(x).rank().is_some_and(|r| r != 3) {
        return Err("X must have rank 3 ([seq, batch, input])".into());
    }
    if cx.ty(x).rank().is_none() {
        return Err("X needs a known rank (3)".into());
    }
    let dirs: &[bool] = match str_attr(cx, "direction", "forward").as_str() {
        "forward" => &[false],
        "reverse" => &[true],
        "bidirectional" => &[false, true],
        other => return Err(NodeError::Error(format!("direction `{other}` is not supported"))),
    };
    let w_dirs = cx.ty(ins.req(1, "W")?).dims().and_then(|d| d.first().copied()).and_then(Dim::as_static);
    if w_dirs.is_some_and(|n| n != dirs.len() as u64) {
        return Err(NodeError::Error(format!("W has {} directions, the node {}", w_dirs.unwrap_or(0), dirs.len())));
    }
    let xq = op_n(cx, Opcode::DynamicQuantizeLinear, vec![Some(x)], Attrs::new(), 3)?;
    let (mut ys, mut hs, mut cs) = (Vec::new(), Vec::new(), Vec::new());
    for (d, &reverse) in dirs.iter().enumerate() {
        let dir = direction(cx, ins, d, cfg.hidden)?;
        let (y, yh, yc) = run_direction(cx, x, &xq, &dir, &cfg, reverse)?;
        ys.push(Some(y));
        hs.push(Some(yh));
        cs.push(Some(yc));
    }
    let cat = |axis: i64| Attrs::new().with("axis", Attr::Int(axis));
    if wants(cx, 0) {
        let y = op(cx, Opcode::Concat, ys, cat(1))?;
        bind_at(cx, 0, y);
    }
    if wants(cx, 1) {
        let yh = op(cx, Opcode::Concat, hs, cat(0))?;
        bind_at(cx, 1, yh);
    }
    if wants(cx, 2) {
        let yc = op(cx, Opcode::Concat, cs, cat(0))?;
        bind_at(cx, 2, yc);
    }
    Ok(())
}
