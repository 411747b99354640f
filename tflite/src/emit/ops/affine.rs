//! Per-channel affine maps `y = act(a·x + b)` as a 1×1 DEPTHWISE_CONV_2D:
//! weights ±127 on the scale `|a|/127` (so `a` itself, to f32 precision),
//! an int32 bias on `x scale × weight scale`, the clamp of `act` fused.
//! TFLite has no HardSigmoid; this form computes it in one requantization
//! (the bias rounds to a fraction of the accumulator's unit, far below one
//! output step), and Vela runs it on the NPU.

use super::movement::reshape_into;
use super::{fused, Quant, TensorId, B, O};
use crate::emit::Emitter;
use crate::schema as tfl;
use edgec_numeric::act::Activation;
use ir::{OpData, Opcode};

/// HardSigmoid: `clip(alpha·x + beta, 0, 1)`.
pub(super) fn hard_sigmoid(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let alpha = op.attrs.float("alpha").unwrap_or(0.2) as f64;
    let beta = op.attrs.float("beta").unwrap_or(0.5) as f64;
    let x = op.operand(0).ok_or("no input")?;
    let (tx, xd) = (e.activation(x)?, e.dims(x)?);
    depthwise_affine(e, op, tx, &xd, &[alpha], &[beta], Activation::Clip { min: 0.0, max: 1.0 })
}

/// True if `op` is a step [`step`] writes: a float constant operand with
/// one value or one per channel of the other operand (or any float
/// constant when the other operand is itself a pending step or not stored).
pub(super) fn is_step(e: &Emitter<'_>, op: &OpData) -> bool {
    let ins: Vec<_> = op.inputs().collect();
    let Some(k) = ins.iter().position(|&v| e.const_of(v).is_some_and(|c| c.ty.dtype.is_float())) else {
        return false;
    };
    if ins.len() != 2 || op.opcode == Opcode::Div || e.pending.contains_key(&ins[1 - k]) {
        return true;
    }
    match (e.dims(ins[k]), e.dims(ins[1 - k])) {
        (Ok(kd), Ok(xd)) => kd.iter().product::<usize>() == 1 || per_channel(&kd, &xd),
        _ => true,
    }
}

/// A constant of dims `kd` holds one value per channel of a rank-4 `xd`.
fn per_channel(kd: &[usize], xd: &[usize]) -> bool {
    let channels = xd.get(1).copied().unwrap_or(1);
    xd.len() == 4 && kd.len() == 4 && kd.iter().enumerate().all(|(i, &d)| d == 1 || i == 1 && d == channels)
}

/// An Add, Sub, Mul or Div of an activation (or of a pending affine map)
/// and a float constant, one value or one per channel: composed with the
/// map it extends, and written once a QuantizeLinear reads the result
/// (the quantizer gives steps by a scalar no grid of their own).
pub(super) fn step(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let ins: Vec<_> = op.inputs().collect();
    let k = ins.iter().position(|&v| e.const_of(v).is_some_and(|c| c.ty.dtype.is_float()));
    let (Some(k), 2) = (k, ins.len()) else {
        return Err(format!("{} of two activations has no TFLite int8 form", op.opcode.name()));
    };
    let x = ins[1 - k];
    let c = e.const_of(ins[k]).and_then(|c| c.to_f64s()).ok_or("unreadable constant")?;
    let (tx, xd, mut a, mut b) = match e.pending.get(&x) {
        Some(p) => p.clone(),
        None => (e.activation(x)?, e.dims(x)?, vec![1.0], vec![0.0]),
    };
    let channels = xd.get(1).copied().unwrap_or(1);
    let kd = e.dims(ins[k])?;
    if c.len() != 1 && !(per_channel(&kd, &xd) && c.len() == channels) {
        return Err(format!("a step by a constant of shape {kd:?} is not per channel of {xd:?}"));
    }
    let widen = |v: &mut Vec<f64>, n: usize| {
        if v.len() < n {
            *v = vec![v[0]; n];
        }
    };
    let n = a.len().max(b.len()).max(c.len());
    widen(&mut a, n);
    widen(&mut b, n);
    let cv = |i: usize| c[if c.len() == 1 { 0 } else { i }];
    for i in 0..n {
        match (op.opcode, k) {
            (Opcode::Mul, _) => (a[i], b[i]) = (a[i] * cv(i), b[i] * cv(i)),
            (Opcode::Div, 1) => (a[i], b[i]) = (a[i] / cv(i), b[i] / cv(i)),
            (Opcode::Add, _) => b[i] += cv(i),
            (Opcode::Sub, 1) => b[i] -= cv(i),
            (Opcode::Sub, _) => (a[i], b[i]) = (-a[i], cv(i) - b[i]),
            _ => return Err("a division by an activation has no TFLite int8 form".into()),
        }
    }
    if e.q_reader.contains_key(&op.results[0]) {
        depthwise_affine(e, op, tx, &xd, &a, &b, Activation::None)
    } else {
        e.pending.insert(op.results[0], (tx, xd, a, b));
        Ok(())
    }
}

/// `act(a·x + b)` of tensor `tx` (NCHW dims `xd`, rank 4), `a` and `b` per
/// channel or one for all, written into `op`'s output tensor.
pub(super) fn depthwise_affine(
    e: &mut Emitter<'_>,
    op: &OpData,
    tx: TensorId,
    xd: &[usize],
    a: &[f64],
    b: &[f64],
    act: Activation,
) -> Result<(), String> {
    let ty = e.output(op)?;
    let name = e.value_name(op.results[0]);
    if xd.len() == 4 {
        return depthwise_affine_to(e, &name, tx, xd, (a, b), act, ty);
    }
    if a.len() != 1 || b.len() != 1 {
        return Err(format!("a per-channel affine map of a rank-{} tensor is not written yet", xd.len()));
    }
    scalar_affine(e, &name, tx, (a[0], b[0]), act, ty)
}

/// HardSigmoid `clip(alpha·x + beta, 0, 1)` of tensor `tx`, in whatever
/// layout it is stored, into tensor `ty` (HardSwish's int16 form).
pub(super) fn hard_sigmoid_of(
    e: &mut Emitter<'_>,
    name: &str,
    tx: TensorId,
    alpha_beta: (f64, f64),
    ty: TensorId,
) -> Result<(), String> {
    scalar_affine(e, name, tx, alpha_beta, Activation::Clip { min: 0.0, max: 1.0 }, ty)
}

/// `act(a·x + b)`, one map for every element of tensor `tx` (any layout)
/// into `ty` of the same shape: a stored rank-4 tensor's last axis as the
/// channels, any other on a `[1, 1, n, 1]` view (RESHAPEs keep the bytes).
fn scalar_affine(
    e: &mut Emitter<'_>,
    name: &str,
    tx: TensorId,
    (a, b): (f64, f64),
    act: Activation,
    ty: TensorId,
) -> Result<(), String> {
    let s = e.g.shape(tx);
    if let [n, h, w, c] = s[..] {
        return depthwise_affine_to(e, name, tx, &[n, c, h, w], (&[a], &[b]), act, ty);
    }
    let flat = [1, 1, s.iter().product(), 1];
    let (vx, vy) = (
        e.g.tensor(&format!("{name}.flat_in"), &flat, e.g.dtype(tx), e.g.quant(tx)),
        e.g.tensor(&format!("{name}.flat_out"), &flat, e.g.dtype(ty), e.g.quant(ty)),
    );
    reshape_into(e, tx, vx, &flat, &format!("{name}.flat_in"));
    depthwise_affine_to(e, name, vx, &[1, 1, 1, flat[2]], (&[a], &[b]), act, vy)?;
    let shape = e.g.shape(ty);
    reshape_into(e, vy, ty, &shape, name);
    Ok(())
}

/// [`depthwise_affine`] into tensor `ty` (constants named after `name`).
pub(super) fn depthwise_affine_to(
    e: &mut Emitter<'_>,
    name: &str,
    tx: TensorId,
    xd: &[usize],
    (a, b): (&[f64], &[f64]),
    act: Activation,
    ty: TensorId,
) -> Result<(), String> {
    if xd.len() != 4 {
        return Err(format!("a per-channel affine map of a rank-{} tensor is not written yet", xd.len()));
    }
    let c = xd[1];
    let at = |v: &[f64], i: usize| v[if v.len() == 1 { 0 } else { i }];
    if a.len() != 1 && a.len() != c || b.len() != 1 && b.len() != c {
        return Err(format!("affine coefficients of {} and {} values for {c} channels", a.len(), b.len()));
    }
    let sx = e.g.quant(tx).map_or(1.0, |q| q.scale[0]) as f64;
    let mut w = Vec::with_capacity(c);
    let mut ws = Vec::with_capacity(c);
    let mut bias = Vec::with_capacity(c);
    let mut bs = Vec::with_capacity(c);
    for i in 0..c {
        let ai = at(a, i);
        let scale = if ai == 0.0 { 1.0 / 127.0 } else { (ai.abs() / 127.0) as f32 as f64 };
        w.push(if ai > 0.0 {
            127i8
        } else if ai < 0.0 {
            -127
        } else {
            0
        } as u8);
        ws.push(scale as f32);
        let q = (at(b, i) / (sx * scale)).round();
        if q.abs() >= 2f64.powi(31) {
            return Err(format!("offset {} does not fit an int32 bias on its scale", at(b, i)));
        }
        bias.push(q as i64);
        bs.push((sx * scale) as f32);
    }
    let act = fused(e, act, ty)?;
    let wq = Quant { scale: ws, zero_point: vec![0; c], axis: 3 };
    let tw = e.g.constant(&format!("{name}.scale"), &[1, 1, 1, c], tfl::TensorType::Int8, Some(wq), w);
    let bq = Quant { scale: bs, zero_point: vec![0; c], axis: 0 };
    let tb = super::conv::bias_tensor(e, &format!("{name}.offset"), tx, bq, &bias)?;
    let options = O::DepthwiseConv2DOptions(Box::new(tfl::DepthwiseConv2DOptions {
        padding: tfl::Padding::Valid,
        stride_w: 1,
        stride_h: 1,
        depth_multiplier: 1,
        fused_activation_function: act,
        dilation_w_factor: 1,
        dilation_h_factor: 1,
    }));
    e.g.op(B::DepthwiseConv2d, &[tx, tw, tb], &[ty], Some(options));
    Ok(())
}
