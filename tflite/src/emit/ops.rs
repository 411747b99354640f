//! Float ops of the QDQ form to TFLite operators on their int8 tensors:
//! the dispatch, elementwise ops, reductions and activations here;
//! convolutions, fully connected layers and pooling in [`conv`], per-channel
//! affine maps in [`affine`], data movement in [`movement`], Max and Min in
//! [`minmax`]; ops with no integer form in float32 for the host CPU in
//! [`float`].
//!
//! Every lowering computes, on the stored integers, the op of the QDQ form
//! up to the rounding of its requantization (TFLite's fixed-point
//! multipliers where the QDQ form rounds a float once): at most 1 LSB per
//! op. Ops TFLite requires to keep their input's grid (pooling, resizing,
//! reshapes) write on that grid and requantize with a QUANTIZE when the QDQ
//! form gives the result another grid.

mod affine;
mod conv;
mod float;
mod minmax;
mod movement;

use super::graph::{Quant, TensorId};
use super::layout;
use super::Emitter;
use crate::schema as tfl;
use edgec_numeric::act::Activation;
use ir::{DType, OpData, Opcode, Value};
use tfl::BuiltinOperator as B;
use tfl::BuiltinOptions as O;

/// The writer of one op's TFLite form.
type Lower = fn(&mut Emitter<'_>, &OpData) -> Result<(), String>;

/// Whether `op` is written in float32 for the host CPU ([`float`]).
pub(super) fn is_float(e: &Emitter<'_>, op: &OpData) -> bool {
    float::wants_float(e, op)
}

/// Write `op` in float32 ([`float`]).
pub(super) fn lower_float(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    float::lowering(op.opcode).ok_or("has no TFLite float form")?(e, op)
}

/// Whether TFLite has a float32 form of `op` the writer emits.
pub(super) fn has_float_form(op: Opcode) -> bool {
    float::lowering(op).is_some()
}

/// Write `op`, a float op between quantized tensors.
pub(super) fn lower(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    match lowering(op.opcode) {
        Some(write) => write(e, op),
        None => Err("has no TFLite int8 form in edgec yet".into()),
    }
}

/// The ops with a TFLite int8 form (the Ethos-U profiles list the same ops
/// as supported; a test keeps them equal).
pub(super) fn lowering(op: Opcode) -> Option<Lower> {
    Some(match op {
        Opcode::CoreConv | Opcode::Conv => conv::conv as Lower,
        Opcode::CoreConvTranspose | Opcode::ConvTranspose => conv::conv_transpose,
        Opcode::PRelu => prelu,
        Opcode::CoreLinear | Opcode::MatMul | Opcode::Gemm => conv::linear,
        Opcode::HardSigmoid => affine::hard_sigmoid,
        Opcode::Add => |e, op| binary(e, op, B::Add),
        Opcode::Sub => |e, op| binary(e, op, B::Sub),
        Opcode::Mul => |e, op| binary(e, op, B::Mul),
        Opcode::Div => affine::step,
        Opcode::Max => |e, op| minmax::minmax(e, op, B::Maximum),
        Opcode::Min => |e, op| minmax::minmax(e, op, B::Minimum),
        Opcode::MaxPool => |e, op| conv::pool(e, op, B::MaxPool2d),
        Opcode::AveragePool => |e, op| conv::pool(e, op, B::AveragePool2d),
        Opcode::GlobalAveragePool => global_avg_pool,
        Opcode::CoreReduce => reduce,
        Opcode::Relu => |e, op| unary(e, op, B::Relu, None),
        Opcode::HardSwish => hard_swish,
        Opcode::Gelu => gelu,
        Opcode::Sigmoid => |e, op| unary(e, op, B::Logistic, Some((1.0 / 256.0, -128))),
        Opcode::Tanh => |e, op| unary(e, op, B::Tanh, Some((1.0 / 128.0, 0))),
        Opcode::LeakyRelu => leaky_relu,
        Opcode::Clip => clip,
        Opcode::Softmax => softmax,
        Opcode::Concat => movement::concat,
        Opcode::Reshape | Opcode::CoreReshape | Opcode::Flatten => movement::reshape,
        Opcode::Squeeze | Opcode::CoreSqueeze | Opcode::Unsqueeze | Opcode::CoreUnsqueeze => movement::reshape,
        Opcode::Split => movement::split,
        Opcode::Transpose => movement::transpose,
        Opcode::Resize => movement::resize,
        Opcode::Pad => movement::pad,
        Opcode::CoreSlice => movement::slice,
        _ => return None,
    })
}

/// An int8 constant behind a DequantizeLinear: its bytes, dims and grid.
struct Weight {
    data: Vec<u8>,
    dims: Vec<usize>,
    scale: Vec<f32>,
    zero_point: Vec<i64>,
    axis: usize,
    dtype: DType,
}

impl Weight {
    /// The real values `scale · (q − zero_point)` of a per-tensor i8 or i16
    /// constant; `None` for other grids and element types.
    fn reals(&self) -> Option<Vec<f64>> {
        let (s, z) = match (&self.scale[..], &self.zero_point[..]) {
            ([s], [z]) => (*s as f64, *z as f64),
            _ => return None,
        };
        let q: Vec<f64> = match self.dtype {
            DType::I8 => self.data.iter().map(|&b| b as i8 as f64).collect(),
            DType::I16 => self.data.chunks_exact(2).map(|b| i16::from_le_bytes([b[0], b[1]]) as f64).collect(),
            _ => return None,
        };
        Some(q.into_iter().map(|q| s * (q - z)).collect())
    }
}

/// The quantized constant `v` dequantizes (u8 values moved to i8).
fn weight(e: &Emitter<'_>, v: Value) -> Result<Weight, String> {
    let not = || format!("{} is not a dequantized constant", e.value_name(v));
    let dq = e.def_op(v).filter(|o| o.opcode == Opcode::DequantizeLinear).ok_or_else(not)?;
    let c = e.const_of(dq.operand(0).ok_or_else(not)?).ok_or_else(not)?;
    let dims: Vec<usize> = c.ty.shape.static_dims().ok_or_else(not)?.into_iter().map(|d| d as usize).collect();
    let scale_c = e.const_of(dq.operand(1).ok_or_else(not)?).ok_or_else(not)?;
    let scale: Vec<f32> = scale_c.to_f64s().ok_or_else(not)?.into_iter().map(|x| x as f32).collect();
    let zero_point: Vec<i64> = match dq.operand(2) {
        Some(z) => e.const_of(z).and_then(|c| c.to_i64s()).ok_or_else(not)?,
        None => vec![0; scale.len()],
    };
    let rank = dims.len() as i64;
    let axis = if scale.len() > 1 { dq.attrs.int("axis").unwrap_or(1).rem_euclid(rank.max(1)) as usize } else { 0 };
    let mut data = c.bytes().ok_or_else(not)?.to_vec();
    let (mut zero_point, mut dtype) = (zero_point, c.ty.dtype);
    if dtype == DType::U8 {
        data.iter_mut().for_each(|b| *b ^= 0x80);
        zero_point.iter_mut().for_each(|z| *z -= 128);
        dtype = DType::I8;
    }
    Ok(Weight { data, dims, scale, zero_point, axis, dtype })
}

/// The TFLite fused activation whose clamp on tensor `ty`'s grid equals
/// that of `act` (the QDQ form applies `act` before rounding; every allowed
/// `act` is monotone, so it clamps the rounded value to the rounded
/// bounds). On a wide copy narrowed to 8 bits, the clamps agree within
/// the range the narrowing keeps (it saturates the rest).
fn fused(e: &Emitter<'_>, act: Activation, ty: TensorId) -> Result<tfl::ActivationFunctionType, String> {
    use tfl::ActivationFunctionType as A;
    let q = e.g.quant(ty).ok_or("output has no grid")?;
    let (qmin, qmax) = if e.g.dtype(ty) == tfl::TensorType::Int16 { (-32768i64, 32767i64) } else { (-128, 127) };
    let (s, zp) = (q.scale[0] as f64, q.zero_point[0]);
    let even = |x: f64| (x / s).round_ties_even() as i64 + zp;
    let away = |x: f64| (x / s).round() as i64 + zp;
    let want = match act {
        Activation::None => (qmin, qmax),
        Activation::Relu => (zp.max(qmin), qmax),
        Activation::Clip { min, max } => {
            let lo = if min.is_finite() { even(min as f64).max(qmin) } else { qmin };
            let hi = if max.is_finite() { even(max as f64).min(qmax) } else { qmax };
            (lo, hi)
        }
        other => {
            return Err(format!(
                "the fused activation {} has no TFLite form (compile for a TFLite target, e.g. --target ethos-u55-256, which keeps it a separate op)",
                other.name()
            ))
        }
    };
    // TFLite's CalculateActivationRangeQuantized (rounding halves away from zero).
    let candidates = [
        (A::None, (qmin, qmax)),
        (A::Relu, (zp.max(qmin), qmax)),
        (A::Relu6, (zp.max(qmin), away(6.0).min(qmax))),
        (A::ReluN1To1, (away(-1.0).max(qmin), away(1.0).min(qmax))),
    ];
    let kept = |(lo, hi): (i64, i64)| match e.narrowed_range(ty) {
        Some((klo, khi)) => (lo.max(klo), hi.min(khi)),
        None => (lo, hi),
    };
    candidates.iter().find(|c| kept(c.1) == kept(want)).map(|c| c.0).ok_or_else(|| {
        format!("{} clamps to [{}, {}] on its grid, which no TFLite fused activation gives", act.name(), want.0, want.1)
    })
}

fn activation_of(op: &OpData) -> Result<Activation, String> {
    Activation::from_attrs(&op.attrs)
}

/// A window's integer attribute list, defaulting to `n` copies of `d`.
fn ints(op: &OpData, name: &str, n: usize, d: usize) -> Result<Vec<usize>, String> {
    match op.attrs.ints(name) {
        Some(v) if v.len() == n && v.iter().all(|&x| x >= 0) => Ok(v.iter().map(|&x| x as usize).collect()),
        Some(v) => Err(format!("`{name}` = {v:?}: expected {n} non-negative values")),
        None => Ok(vec![d; n]),
    }
}

/// PRelu with a constant slope: with every slope in [0, 1] and one per
/// channel (or one for all), `max(x, a·x)` (below); else PRELU, the slope on
/// the int8 grid the quantizer gave it (one scale), or, when it left the
/// slope in float, on a symmetric grid of its own (then not the
/// interpreter's exact function).
fn prelu(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    let xd = e.dims(x)?;
    let s = op.operand(1).ok_or("no slope")?;
    let name = e.value_name(op.results[0]);
    if let Some(a) = unit_slopes(e, s, &xd) {
        return prelu_as_maximum(e, op, tx, &xd, &a);
    }
    if e.g.dtype(tx) == tfl::TensorType::Int16 {
        // Measured: Vela 5.2 stops with "Non-passthrough operation (Mul)
        // could not run on NPU" on an int16 PRELU.
        return Err(
            "an int16 PRelu with slopes outside [0, 1]: Vela 5.2 fails on int16 PRELU (quantize it as int8)".into()
        );
    }
    if let Ok(w) = weight(e, s) {
        if w.scale.len() != 1 || w.dtype != DType::I8 {
            return Err("a PRelu slope quantized per channel (TFLite takes one grid)".into());
        }
        let mut dims = w.dims.clone();
        while dims.len() < xd.len() {
            dims.insert(0, 1);
        }
        let (data, shape) = if dims.len() == 4 {
            (layout::permute(&w.data, 1, &dims, &layout::TO_NHWC), layout::stored(&dims))
        } else {
            (w.data.clone(), dims)
        };
        let q = Some(Quant::tensor(w.scale[0], w.zero_point[0]));
        let ts = e.g.constant(&format!("{name}.slope"), &shape, tfl::TensorType::Int8, q, data);
        let ty = e.output(op)?;
        e.g.op(B::Prelu, &[tx, ts], &[ty], None);
        return Ok(());
    }
    let c = e.const_of(s).filter(|c| c.ty.dtype.is_float()).ok_or("a slope that is not a float constant")?;
    let vals = c.to_f64s().ok_or("unreadable slope")?;
    let mut dims = e.dims(s)?;
    while dims.len() < xd.len() {
        dims.insert(0, 1);
    }
    let m = vals.iter().fold(0f64, |m, v| m.max(v.abs()));
    let scale = if m > 0.0 { m / 127.0 } else { 1.0 };
    let q: Vec<u8> = vals.iter().map(|v| (v / scale).round().clamp(-127.0, 127.0) as i8 as u8).collect();
    let (data, shape) = if dims.len() == 4 {
        (layout::permute(&q, 1, &dims, &layout::TO_NHWC), layout::stored(&dims))
    } else {
        (q, dims)
    };
    let name = e.value_name(op.results[0]);
    let ts = e.g.constant(
        &format!("{name}.slope"),
        &shape,
        tfl::TensorType::Int8,
        Some(Quant::tensor(scale as f32, 0)),
        data,
    );
    let ty = e.output(op)?;
    e.g.op(B::Prelu, &[tx, ts], &[ty], None);
    Ok(())
}

/// The slopes of PRelu `s` of an NCHW `xd` as the interpreter sees them
/// (dequantized), if there is one per channel or one for all and every one
/// lies in [0, 1].
fn unit_slopes(e: &Emitter<'_>, s: Value, xd: &[usize]) -> Option<Vec<f64>> {
    let mut dims = e.dims(s).ok()?;
    if xd.len() != 4 || dims.len() > 4 {
        return None;
    }
    while dims.len() < 4 {
        dims.insert(0, 1);
    }
    if dims.iter().enumerate().any(|(i, &d)| d != 1 && !(i == 1 && d == xd[1])) {
        return None;
    }
    let vals = match weight(e, s) {
        Ok(w) => w.reals()?,
        Err(_) => e.const_of(s).filter(|c| c.ty.dtype.is_float())?.to_f64s()?,
    };
    vals.iter().all(|a| (0.0..=1.0).contains(a)).then_some(vals)
}

/// PRelu with slopes `a` in [0, 1] is `max(x, a·x)`: `x` and `a·x` each a
/// 1×1 DEPTHWISE_CONV_2D onto the result's grid (`x` itself when already
/// there), then MAXIMUM. Each input rounds once and the maximum of two
/// roundings is the rounding of the maximum, so this stays within 1 LSB of
/// the QDQ form; Vela runs it without PRELU's per-element reads of the
/// slope from constant storage (about half of MTCNN's estimated cycles).
fn prelu_as_maximum(e: &mut Emitter<'_>, op: &OpData, tx: TensorId, xd: &[usize], a: &[f64]) -> Result<(), String> {
    let ty = e.output(op)?;
    let name = e.value_name(op.results[0]);
    let on_y_grid = |e: &mut Emitter<'_>, suffix: &str| {
        let t = e.g.tensor(&format!("{name}.{suffix}"), &e.g.shape(ty), e.g.dtype(ty), e.g.quant(ty));
        e.set_perm(t, layout::default_perm(4));
        t
    };
    let x = if e.g.quant(tx) == e.g.quant(ty) {
        tx
    } else {
        let t = on_y_grid(e, "x");
        affine::depthwise_affine_to(e, &format!("{name}.x"), tx, xd, (&[1.0], &[0.0]), Activation::None, t)?;
        t
    };
    let ax = on_y_grid(e, "ax");
    affine::depthwise_affine_to(e, &format!("{name}.ax"), tx, xd, (a, &[0.0]), Activation::None, ax)?;
    e.g.op(B::Maximum, &[x, ax], &[ty], None);
    Ok(())
}

/// An operand of an elementwise op stored in layout `perm`: its activation
/// tensor, or a constant tensor for a dequantized constant, broadcast to
/// the result's rank and laid out by `perm`.
fn operand(e: &mut Emitter<'_>, v: Value, perm: &[usize], name: &str) -> Result<TensorId, String> {
    let rank = perm.len();
    if let Ok(t) = e.stored(v) {
        if e.dims(v)?.len() != rank {
            let r = e.dims(v)?.len();
            return Err(format!("{} broadcasts from rank {r} to {rank}, which is not written yet", e.value_name(v)));
        }
        return if e.perm(t) == perm { Ok(t) } else { e.activation(v) };
    }
    let w = match e.const_of(v).filter(|c| c.ty.dtype.is_float()) {
        Some(c) => exact_weight(c).ok_or_else(|| {
            format!(
                "{}: a float constant operand whose values no int8 grid holds exactly \
                 (multiples of one power-of-two step, at most 255 steps apart)",
                e.value_name(v)
            )
        })?,
        None => weight(e, v)?,
    };
    if w.scale.len() != 1 {
        return Err(format!("{}: a per-channel constant operand", e.value_name(v)));
    }
    if w.dims.len() > rank {
        return Err(format!("{} has a higher rank than the result", e.value_name(v)));
    }
    let mut dims = vec![1; rank - w.dims.len()];
    dims.extend(&w.dims);
    let data = layout::permute(&w.data, 1, &dims, perm);
    let shape: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
    let ty = if w.dtype == DType::I16 { tfl::TensorType::Int16 } else { tfl::TensorType::Int8 };
    Ok(e.g.constant(name, &shape, ty, Some(Quant::tensor(w.scale[0], w.zero_point[0])), data))
}

/// A float constant as int8 on a grid that holds every value exactly (the
/// coarsest power-of-two step `2^k`, `|k| ≤ 16`, whose multiples they all
/// are, within 255 steps; zero point 0 when it fits): an anchor grid
/// (`0.5, 1.5, …`) or per-anchor strides (`8, 16, 32`). `None` if none does.
fn exact_weight(c: &ir::Constant) -> Option<Weight> {
    let v = c.to_f64s()?;
    let dims: Vec<usize> = c.ty.shape.static_dims()?.into_iter().map(|d| d as usize).collect();
    let (lo, hi) = v.iter().fold((f64::MAX, f64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
    let step = (-16..=16)
        .rev()
        .map(|k| 2f64.powi(k))
        .find(|&g| (hi - lo) / g <= 255.0 && v.iter().all(|&x| x.is_finite() && (x / g).round() * g == x))?;
    let (qlo, qhi) = ((lo / step) as i64, (hi / step) as i64);
    // Stored q = x / step + zp must lie in [-128, 127]: zp in [-128 - qlo, 127 - qhi].
    let zp = 0i64.clamp(-128 - qlo, 127 - qhi);
    let data = v.iter().map(|&x| ((x / step) as i64 + zp) as i8 as u8).collect();
    Some(Weight { data, dims, scale: vec![step as f32], zero_point: vec![zp], axis: 0, dtype: DType::I8 })
}

/// The layout an elementwise op computes in: that of its activation
/// operands when they share one (no data moves), else the default.
fn elementwise_layout(e: &Emitter<'_>, op: &OpData, rank: usize) -> Vec<usize> {
    let perms: Vec<Vec<usize>> = op.inputs().filter_map(|v| e.stored(v).ok()).map(|t| e.perm(t)).collect();
    match perms.first() {
        Some(p) if p.len() == rank && perms.iter().all(|q| q == p) => p.clone(),
        _ => layout::default_perm(rank),
    }
}

/// ADD / SUB / MUL with numpy broadcasting (equal ranks); a step by a
/// float constant is an affine map ([`affine::step`]).
fn binary(e: &mut Emitter<'_>, op: &OpData, code: tfl::BuiltinOperator) -> Result<(), String> {
    if affine::is_step(e, op) {
        return affine::step(e, op);
    }
    let rank = e.dims(op.results[0])?.len();
    let perm = elementwise_layout(e, op, rank);
    let name = e.value_name(op.results[0]);
    let ta = operand(e, op.operand(0).ok_or("no A")?, &perm, &format!("{name}.a"))?;
    let tb = operand(e, op.operand(1).ok_or("no B")?, &perm, &format!("{name}.b"))?;
    let ty = e.output_stored(op, 0, perm)?;
    let none = tfl::ActivationFunctionType::None;
    let options = match code {
        B::Add => O::AddOptions(Box::new(tfl::AddOptions { fused_activation_function: none, pot_scale_int16: false })),
        B::Sub => O::SubOptions(Box::new(tfl::SubOptions { fused_activation_function: none, pot_scale_int16: false })),
        _ => O::MulOptions(Box::new(tfl::MulOptions { fused_activation_function: none })),
    };
    e.g.op(code, &[ta, tb], &[ty], Some(options));
    Ok(())
}

/// The output of an op TFLite runs on its input's grid: a tensor on input
/// `t`'s grid, then a QUANTIZE to the QDQ form's grid if that differs.
/// Returns (tensor to write, and after the op is written call [`finish_same_grid`]).
fn same_grid_output(e: &mut Emitter<'_>, op: &OpData, t: TensorId) -> Result<(TensorId, TensorId), String> {
    let rank = e.dims(op.results[0])?.len();
    same_grid_output_in(e, op, t, layout::default_perm(rank))
}

/// [`same_grid_output`] with the result stored in layout `perm`.
fn same_grid_output_in(
    e: &mut Emitter<'_>,
    op: &OpData,
    t: TensorId,
    perm: Vec<usize>,
) -> Result<(TensorId, TensorId), String> {
    let ty = e.output_stored(op, 0, perm.clone())?;
    if e.g.quant(ty) == e.g.quant(t) {
        return Ok((ty, ty));
    }
    let name = format!("{}.in_grid", e.value_name(op.results[0]));
    let tmp = e.g.tensor(&name, &e.g.shape(ty), e.g.dtype(t), e.g.quant(t));
    e.set_perm(tmp, perm);
    Ok((tmp, ty))
}

/// After writing an op into `tmp`: the QUANTIZE to `ty` when they differ.
fn finish_same_grid(e: &mut Emitter<'_>, tmp: TensorId, ty: TensorId) {
    if tmp != ty {
        e.g.op(B::Quantize, &[tmp], &[ty], None);
    }
}

/// GlobalAveragePool: MEAN over height and width, dims kept.
fn global_avg_pool(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.activation(x)?;
    if e.dims(x)?.len() != 4 {
        return Err("only 2-D global pooling is written".into());
    }
    let ty = e.output(op)?;
    let axes = e.g.ints(&format!("{}.axes", e.value_name(op.results[0])), &[2], &[1, 2]);
    e.g.op(B::Mean, &[tx, axes], &[ty], Some(O::ReducerOptions(Box::new(tfl::ReducerOptions { keep_dims: true }))));
    Ok(())
}

/// `core.reduce` mean, sum, max or min over constant axes: MEAN, SUM
/// (requantizing), REDUCE_MAX, REDUCE_MIN (on the input's grid), over the
/// stored positions of the axes in whatever layout the input is stored;
/// the result keeps that layout (less the axes it drops).
fn reduce(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = e.stored(x)?;
    let rank = e.dims(x)?.len();
    let (code, logical) = reduction(op, rank)?;
    let pin = e.perm(tx);
    let mut axes: Vec<i32> = logical.iter().map(|a| pin.iter().position(|p| p == a).unwrap_or(0) as i32).collect();
    axes.sort_unstable();
    let keep = op.attrs.int("keepdims").unwrap_or(1) != 0;
    // The result's layout: the input's, less the dropped axes (renumbered).
    let pout: Vec<usize> = if keep {
        pin.clone()
    } else {
        let kept: Vec<usize> = (0..rank).filter(|a| !logical.contains(a)).collect();
        pin.iter().filter(|a| !logical.contains(a)).map(|a| kept.iter().position(|k| k == a).unwrap_or(0)).collect()
    };
    let name = e.value_name(op.results[0]);
    let at = e.g.ints(&format!("{name}.axes"), &[axes.len()], &axes);
    let options = Some(O::ReducerOptions(Box::new(tfl::ReducerOptions { keep_dims: keep })));
    // MEAN and SUM requantize; REDUCE_MAX and REDUCE_MIN keep the input's grid.
    let (tmp, ty) = if matches!(code, B::ReduceMax | B::ReduceMin) {
        same_grid_output_in(e, op, tx, pout)?
    } else {
        let ty = e.output_stored(op, 0, pout)?;
        (ty, ty)
    };
    e.g.op(code, &[tx, at], &[tmp], options);
    finish_same_grid(e, tmp, ty);
    Ok(())
}

/// `core.reduce`'s TFLite operator (MEAN, SUM, REDUCE_MAX, REDUCE_MIN)
/// and the value axes it reduces (non-negative) of a rank-`rank` operand.
fn reduction(op: &OpData, rank: usize) -> Result<(tfl::BuiltinOperator, Vec<usize>), String> {
    let code = match op.attrs.str("kind").unwrap_or("") {
        "mean" => B::Mean,
        "sum" => B::Sum,
        "max" => B::ReduceMax,
        "min" => B::ReduceMin,
        kind => return Err(format!("a `{kind}` reduction has no TFLite form")),
    };
    let axes = op.attrs.ints("axes").unwrap_or(&[]);
    Ok((code, axes.iter().map(|&a| a.rem_euclid(rank.max(1) as i64) as usize).collect()))
}

/// A unary op with separate input and output grids; `fixed`: the output
/// grid TFLite's int8 kernel requires (LOGISTIC, TANH; their int16 kernels
/// require 1/32768 around 0).
fn unary(
    e: &mut Emitter<'_>,
    op: &OpData,
    code: tfl::BuiltinOperator,
    fixed: Option<(f32, i64)>,
) -> Result<(), String> {
    let tx = e.stored(op.operand(0).ok_or("no input")?)?;
    unary_on(e, op, tx, code, fixed, None)
}

/// [`unary`] reading tensor `tx` (the operand, in the layout it is written
/// in), the result stored in that layout, with the operator's `options`.
fn unary_on(
    e: &mut Emitter<'_>,
    op: &OpData,
    tx: TensorId,
    code: tfl::BuiltinOperator,
    fixed: Option<(f32, i64)>,
    options: Option<tfl::BuiltinOptions>,
) -> Result<(), String> {
    let ty = e.output_stored(op, 0, e.perm(tx))?;
    if let Some((s8, z8)) = fixed {
        let q = e.g.quant(ty).ok_or("output has no grid")?;
        // The int16 kernels write on 1/32768 around 0.
        let dt = e.g.dtype(ty);
        let (s, z) = if dt == tfl::TensorType::Int16 { (1.0 / 32768.0, 0) } else { (s8, z8) };
        if q.scale[0] != s || q.zero_point[0] != z {
            return Err(format!(
                "TFLite's {dt:?} {code:?} writes on scale {s} and zero point {z}, its result's grid is {} / {}",
                q.scale[0], q.zero_point[0]
            ));
        }
    }
    e.g.op(code, &[tx], &[ty], options);
    Ok(())
}

/// HARD_SWISH on int8; on int16 (LiteRT 2.3 has no int16 HARD_SWISH
/// kernel) `x · hard_sigmoid(x)`: [`affine::hard_sigmoid_of`] onto the
/// int16 grid 1/32767 (0 and 1 exact), then a 16x8 MUL. Two roundings
/// where the QDQ form has one: the first errs by at most `|x| / 65534`,
/// half a step of an int16 grid holding `x`.
fn hard_swish(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let tx = e.stored(op.operand(0).ok_or("no input")?)?;
    if e.g.dtype(tx) != tfl::TensorType::Int16 {
        return unary_on(e, op, tx, B::HardSwish, None, None);
    }
    let (perm, shape) = (e.perm(tx), e.g.shape(tx));
    let name = format!("{}.hard_sigmoid", e.value_name(op.results[0]));
    let unit = Quant::tensor(1.0 / 32767.0, 0);
    let th = e.g.tensor(&name, &shape, tfl::TensorType::Int16, Some(unit));
    e.set_perm(th, perm.clone());
    affine::hard_sigmoid_of(e, &name, tx, (1.0 / 6.0, 0.5), th)?;
    let ty = e.output_stored(op, 0, perm)?;
    let options =
        O::MulOptions(Box::new(tfl::MulOptions { fused_activation_function: tfl::ActivationFunctionType::None }));
    e.g.op(B::Mul, &[tx, th], &[ty], Some(options));
    Ok(())
}

/// GELU on int8: LiteRT's kernel is a table of the float GELU (exact, or
/// the tanh form as ONNX's `approximate` says) of every input value, so it
/// computes the QDQ form per value; Vela runs it on the NPU, on 8-bit
/// tensors only.
fn gelu(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let tx = e.stored(op.operand(0).ok_or("no input")?)?;
    if e.g.dtype(tx) != tfl::TensorType::Int8 {
        return Err("a 16-bit GELU: Vela runs GELU on 8-bit tensors only (quantize it as int8)".into());
    }
    let approximate = op.attrs.str("approximate") == Some("tanh");
    unary_on(e, op, tx, B::Gelu, None, Some(O::GeluOptions(Box::new(tfl::GeluOptions { approximate }))))
}

fn leaky_relu(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let tx = e.stored(op.operand(0).ok_or("no input")?)?;
    let ty = e.output_stored(op, 0, e.perm(tx))?;
    let alpha = op.attrs.float("alpha").unwrap_or(0.01);
    e.g.op(B::LeakyRelu, &[tx], &[ty], Some(O::LeakyReluOptions(Box::new(tfl::LeakyReluOptions { alpha }))));
    Ok(())
}

/// Clip with constant bounds: RELU, RELU6, RELU_N1_TO_1 or RELU_0_TO_1.
fn clip(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let bound = |i: usize| -> Result<Option<f64>, String> { op.operand(i).map(|v| e.scalar(v)).transpose() };
    let (lo, hi) = (bound(1)?.unwrap_or(f64::NEG_INFINITY), bound(2)?.unwrap_or(f64::INFINITY));
    let code = match (lo, hi) {
        (l, h) if l == 0.0 && h == f64::INFINITY => B::Relu,
        (l, h) if l == 0.0 && h == 6.0 => B::Relu6,
        (l, h) if l == -1.0 && h == 1.0 => B::ReluN1To1,
        (l, h) if l == 0.0 && h == 1.0 => B::Relu0To1,
        _ => return Err(format!("Clip({lo}, {hi}) has no TFLite operator")),
    };
    unary(e, op, code, None)
}

/// Softmax over the last stored axis (the input's layout kept when it
/// stores the axis last).
fn softmax(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let rank = e.dims(x)?.len();
    let r = rank.max(1) as i64;
    let axis = op.attrs.int("axis").unwrap_or(-1);
    if axis < -r || axis >= r {
        return Err(format!("axis {axis} is out of range for rank {rank}"));
    }
    let axis = axis.rem_euclid(r) as usize;
    // The axis must be stored last: as the input is, else in the default layout.
    let mut t = e.stored(x)?;
    if e.perm(t).last() != Some(&axis) {
        if layout::default_perm(rank).last() != Some(&axis) {
            return Err("TFLite's SOFTMAX runs over the last stored axis only".into());
        }
        t = e.activation(x)?;
    }
    let options = O::SoftmaxOptions(Box::new(tfl::SoftmaxOptions { beta: 1.0 }));
    unary_on(e, op, t, B::Softmax, Some((1.0 / 256.0, -128)), Some(options))
}

#[cfg(test)]
mod tests {
    use super::exact_weight;
    use ir::Constant;

    /// Stored values decoded back with TFLite's `(q - zp) * scale`.
    fn decode(vals: &[f32]) -> Option<(Vec<f32>, f32)> {
        let w = exact_weight(&Constant::from_f32s("c", &[vals.len() as u64], vals))?;
        let zp = w.zero_point[0] as f32;
        Some((w.data.iter().map(|&q| (q as i8 as f32 - zp) * w.scale[0]).collect(), w.scale[0]))
    }

    #[test]
    fn weight_reals_decode_i8_and_i16_per_tensor_only() {
        use super::Weight;
        use ir::DType;
        let w = |data: Vec<u8>, dtype, scale: Vec<f32>| Weight {
            dims: vec![2],
            zero_point: vec![1; scale.len()],
            data,
            scale,
            axis: 0,
            dtype,
        };
        assert_eq!(w(vec![3, 0xff], DType::I8, vec![0.5]).reals(), Some(vec![1.0, -1.0]));
        let wide = [300i16, -300].iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(w(wide, DType::I16, vec![0.5]).reals(), Some(vec![149.5, -150.5]));
        assert_eq!(w(vec![3, 4], DType::I8, vec![0.5, 0.25]).reals(), None);
        assert_eq!(w(vec![0; 8], DType::I32, vec![0.5]).reals(), None);
    }

    #[test]
    fn exact_weight_holds_every_value_on_the_coarsest_grid() {
        assert_eq!(decode(&[0.5, 1.5, 2.5]), Some((vec![0.5, 1.5, 2.5], 0.5)));
        assert_eq!(decode(&[8.0, 16.0, 32.0]), Some((vec![8.0, 16.0, 32.0], 8.0)));
        // All negative, and a range away from zero wider than 255 from 0.
        assert_eq!(decode(&[-3.0, -1.0]), Some((vec![-3.0, -1.0], 1.0)));
        assert_eq!(decode(&[200.0, 300.0, 455.0]), Some((vec![200.0, 300.0, 455.0], 1.0)));
        // No power-of-two grid holds 0.1 exactly, nor 0 and 1000 within 255 steps of 1/8.
        assert_eq!(decode(&[0.1, 1.0]), None);
        assert_eq!(decode(&[0.125, 1000.0]), None);
    }
}
