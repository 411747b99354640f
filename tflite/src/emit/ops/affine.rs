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
        (Ok(kd), Ok(xd)) => channels_of(&kd, &xd).is_some(),
        _ => true,
    }
}

/// How many values a constant of dims `kd` holds against a value of dims
/// `xd`, as an affine map's coefficients: one for all; one per channel of
/// a rank-4 NCHW value; or, for any other rank, one per element of the last
/// axis (a LayerNorm's scale). Either way one per element of the last
/// stored axis, which the map's 1×1 depthwise convolution takes as channels.
fn channels_of(kd: &[usize], xd: &[usize]) -> Option<usize> {
    let n: usize = kd.iter().product();
    let ones_but = |i: usize| kd.iter().enumerate().all(|(j, &d)| d == 1 || j == i);
    let channels = xd.len() == 4 && kd.len() == 4 && ones_but(1) && kd[1] == xd[1];
    let last_axis =
        xd.len() != 4 && kd.len() <= xd.len() && ones_but(kd.len().saturating_sub(1)) && xd.last() == Some(&n);
    (n == 1 || channels || last_axis).then_some(n)
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
    let kd = e.dims(ins[k])?;
    if channels_of(&kd, &xd) != Some(c.len()) {
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
    flat_affine(e, &name, tx, (a, b), act, ty)
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
    let s = e.g.shape(tx);
    let (a, b) = ([alpha_beta.0], [alpha_beta.1]);
    let clip = Activation::Clip { min: 0.0, max: 1.0 };
    if let [n, h, w, c] = s[..] {
        return depthwise_affine_to(e, name, tx, &[n, c, h, w], (&a, &b), clip, ty);
    }
    flat_affine(e, name, tx, (&a, &b), clip, ty)
}

/// `act(a·x + b)` of tensor `tx` stored in its value's axis order into
/// `ty` of the same shape, `a` and `b` one value or one per element of the
/// last axis: on a `[1, 1, n / C, C]` view (RESHAPEs keep the bytes).
fn flat_affine(
    e: &mut Emitter<'_>,
    name: &str,
    tx: TensorId,
    (a, b): (&[f64], &[f64]),
    act: Activation,
    ty: TensorId,
) -> Result<(), String> {
    let s = e.g.shape(tx);
    let n: usize = s.iter().product();
    let c = a.len().max(b.len());
    if s.last() != Some(&c) && c != 1 {
        return Err(format!("affine coefficients of {c} values for a tensor of shape {s:?}"));
    }
    let flat = [1, 1, n / c, c];
    let (vx, vy) = (
        e.g.tensor(&format!("{name}.flat_in"), &flat, e.g.dtype(tx), e.g.quant(tx)),
        e.g.tensor(&format!("{name}.flat_out"), &flat, e.g.dtype(ty), e.g.quant(ty)),
    );
    reshape_into(e, tx, vx, &flat, &format!("{name}.flat_in"));
    depthwise_affine_to(e, name, vx, &[1, c, 1, n / c], (a, b), act, vy)?;
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

#[cfg(test)]
mod tests {
    use super::channels_of;

    #[test]
    fn step_constants_hold_one_value_per_last_stored_axis_element() {
        // One value for all, of any rank (a scalar has no dims).
        assert_eq!(channels_of(&[], &[1, 8, 4, 4]), Some(1));
        assert_eq!(channels_of(&[1, 1], &[1, 128]), Some(1));
        // Per channel of a rank-4 NCHW value (stored NHWC: channels last).
        assert_eq!(channels_of(&[1, 8, 1, 1], &[1, 8, 4, 4]), Some(8));
        assert_eq!(channels_of(&[8, 1, 1], &[1, 8, 4, 4]), None);
        // Along the last axis of any other rank (a LayerNorm's scale).
        assert_eq!(channels_of(&[128], &[1, 128]), Some(128));
        assert_eq!(channels_of(&[1, 1, 32], &[1, 16, 32]), Some(32));
        assert_eq!(channels_of(&[16, 1], &[1, 16, 32]), None);
        // A rank-4 value's last axis is W, not stored last.
        assert_eq!(channels_of(&[4], &[1, 8, 4, 4]), None);
    }
}
