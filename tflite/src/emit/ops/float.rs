//! CPU islands: ops with no integer TFLite form (Sqrt, GELU, a
//! LayerNormalization, a division by an activation, ...) written as TFLite
//! float32 operators between a DEQUANTIZE of their int8 operands and a
//! QUANTIZE onto the grid of their QuantizeLinear reader. That is the QDQ
//! form's own computation: the float op on dequantized values, rounded
//! once where it is quantized (up to the float kernels' last bits). Vela
//! runs no float operator: it leaves these, and the DEQUANTIZE and QUANTIZE
//! at their edges, to the host CPU, where `edgec report` places them (the
//! Ethos-U profiles support none of these ops).
//!
//! Invariants: a float value has at most one float32 tensor
//! (`Emitter::real_of`), stored in its rank's default layout (NHWC for
//! rank 4); an op whose operands all have int8 tensors and that has an
//! int8 form is never written here ([`wants_float`]).

use super::movement::reshape_into;
use super::{weight, Lower, TensorId, B, O};
use crate::emit::{layout, Emitter};
use crate::schema as tfl;
use ir::{OpData, Opcode, Value};

/// The ops with a float32 TFLite form.
pub(super) fn lowering(op: Opcode) -> Option<Lower> {
    Some(match op {
        Opcode::Sqrt => |e, op| unary(e, op, B::Sqrt, None),
        Opcode::Exp => |e, op| unary(e, op, B::Exp, None),
        Opcode::Log => |e, op| unary(e, op, B::Log, None),
        Opcode::Abs => |e, op| unary(e, op, B::Abs, None),
        Opcode::Neg => |e, op| unary(e, op, B::Neg, None),
        Opcode::Relu => |e, op| unary(e, op, B::Relu, None),
        Opcode::Sigmoid => |e, op| unary(e, op, B::Logistic, None),
        Opcode::Tanh => |e, op| unary(e, op, B::Tanh, None),
        Opcode::Gelu => gelu,
        Opcode::Add => |e, op| binary(e, op, B::Add),
        Opcode::Sub => |e, op| binary(e, op, B::Sub),
        Opcode::Mul => |e, op| binary(e, op, B::Mul),
        Opcode::Div => |e, op| binary(e, op, B::Div),
        Opcode::Pow => |e, op| binary(e, op, B::Pow),
        Opcode::Max => |e, op| binary(e, op, B::Maximum),
        Opcode::Min => |e, op| binary(e, op, B::Minimum),
        Opcode::CoreReduce => reduce,
        Opcode::LayerNormalization => layer_norm,
        _ => return None,
    })
}

/// Whether `op` is written in float: it has no int8 form, or reads a value
/// only a float op computes, or divides by an activation (TFLite's DIV has
/// no int8 kernel; a division by a constant is an affine step).
pub(super) fn wants_float(e: &Emitter<'_>, op: &OpData) -> bool {
    if lowering(op.opcode).is_none() {
        return false;
    }
    let float_only = |v: &Value| e.real_of.contains_key(v) && !e.float_of.contains_key(v);
    let divides = op.opcode == Opcode::Div && op.operand(1).is_some_and(|d| e.const_of(d).is_none());
    super::lowering(op.opcode).is_none() || op.inputs().any(|v| float_only(&v)) || divides
}

/// The float32 tensor of float value `v`, in its rank's default layout: a
/// float op's result, a DEQUANTIZE of its int8 tensor (an affine step not
/// written yet applied in float), or a constant (padded to `rank` dims).
pub(super) fn real(e: &mut Emitter<'_>, v: Value, rank: usize) -> Result<TensorId, String> {
    if let Some(&t) = e.real_of.get(&v) {
        return Ok(t);
    }
    let name = format!("{}.f32", e.value_name(v));
    if let Some((tx, xd, a, b)) = e.pending.get(&v).cloned() {
        let x = dequantize(e, tx, &format!("{name}.x"));
        let per_channel = |e: &mut Emitter<'_>, c: &[f64], what: &str| {
            // One value, or one per element of the last stored axis.
            let shape = if c.len() == 1 || xd.len() != 4 { vec![c.len()] } else { vec![1, 1, 1, c.len()] };
            constant(e, &format!("{name}.{what}"), &shape, c)
        };
        let shape = e.g.shape(x);
        let mut t = x;
        if a.iter().any(|&a| a != 1.0) {
            let ta = per_channel(e, &a, "scale");
            let ax = e.g.tensor(&format!("{name}.scaled"), &shape, tfl::TensorType::Float32, None);
            e.g.op(B::Mul, &[t, ta], &[ax], Some(mul_options()));
            t = ax;
        }
        if b.iter().any(|&b| b != 0.0) {
            let tb = per_channel(e, &b, "offset");
            let bx = e.g.tensor(&format!("{name}.offset_by"), &shape, tfl::TensorType::Float32, None);
            e.g.op(B::Add, &[t, tb], &[bx], Some(add_options()));
            t = bx;
        }
        e.set_perm(t, layout::default_perm(xd.len()));
        e.real_of.insert(v, t);
        return Ok(t);
    }
    if e.float_of.contains_key(&v) {
        let tq = e.activation(v)?;
        let t = dequantize(e, tq, &name);
        e.real_of.insert(v, t);
        return Ok(t);
    }
    let (vals, dims) = match e.const_of(v).filter(|c| c.ty.dtype.is_float()) {
        Some(c) => (c.to_f64s().ok_or("unreadable constant")?, e.dims(v)?),
        None => {
            let w = weight(e, v).map_err(|_| format!("{} is neither an activation nor a constant", e.value_name(v)))?;
            let reals =
                w.reals().ok_or_else(|| format!("{}: a per-channel constant of a float op", e.value_name(v)))?;
            (reals, w.dims)
        }
    };
    if dims.len() > rank {
        return Err(format!("{} has a higher rank than the result", e.value_name(v)));
    }
    let mut full = vec![1; rank - dims.len()];
    full.extend(&dims);
    let perm = layout::default_perm(rank);
    let bytes: Vec<u8> = vals.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
    let data = layout::permute(&bytes, 4, &full, &perm);
    let shape: Vec<usize> = perm.iter().map(|&a| full[a]).collect();
    Ok(e.g.constant(&name, &shape, tfl::TensorType::Float32, None, data))
}

/// A float32 constant of `shape` holding `vals`.
fn constant(e: &mut Emitter<'_>, name: &str, shape: &[usize], vals: &[f64]) -> TensorId {
    let data = vals.iter().flat_map(|&x| (x as f32).to_le_bytes()).collect();
    e.g.constant(name, shape, tfl::TensorType::Float32, None, data)
}

/// DEQUANTIZE of integer tensor `t` into a float32 tensor of its shape and layout.
fn dequantize(e: &mut Emitter<'_>, t: TensorId, name: &str) -> TensorId {
    let out = e.g.tensor(name, &e.g.shape(t), tfl::TensorType::Float32, None);
    e.g.op(B::Dequantize, &[t], &[out], None);
    e.set_perm(out, e.perm(t));
    out
}

/// The float32 tensor of `op`'s result `i`, in its rank's default layout.
fn result(e: &mut Emitter<'_>, op: &OpData, i: usize) -> Result<TensorId, String> {
    let r = *op.results.get(i).ok_or("missing result")?;
    let dims = e.dims(r)?;
    let perm = layout::default_perm(dims.len());
    let shape: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
    let t = e.g.tensor(&e.value_name(r), &shape, tfl::TensorType::Float32, None);
    e.set_perm(t, perm);
    e.real_of.insert(r, t);
    Ok(t)
}

fn add_options() -> tfl::BuiltinOptions {
    let none = tfl::ActivationFunctionType::None;
    O::AddOptions(Box::new(tfl::AddOptions { fused_activation_function: none, pot_scale_int16: false }))
}

fn mul_options() -> tfl::BuiltinOptions {
    O::MulOptions(Box::new(tfl::MulOptions { fused_activation_function: tfl::ActivationFunctionType::None }))
}

fn unary(e: &mut Emitter<'_>, op: &OpData, code: tfl::BuiltinOperator, options: Option<O>) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let tx = real(e, x, e.dims(x)?.len())?;
    let ty = result(e, op, 0)?;
    e.g.op(code, &[tx], &[ty], options);
    Ok(())
}

/// GELU, exact (erf) or with the tanh approximation, as ONNX's `approximate`.
fn gelu(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let approximate = op.attrs.str("approximate") == Some("tanh");
    unary(e, op, B::Gelu, Some(O::GeluOptions(Box::new(tfl::GeluOptions { approximate }))))
}

/// An elementwise binary op with numpy broadcasting (activations of the
/// result's rank, constants of any lower rank).
fn binary(e: &mut Emitter<'_>, op: &OpData, code: tfl::BuiltinOperator) -> Result<(), String> {
    let rank = e.dims(op.results[0])?.len();
    let mut ts = vec![];
    for v in op.inputs() {
        if e.const_of(v).is_none() && e.dims(v)?.len() != rank {
            let r = e.dims(v)?.len();
            return Err(format!("{} broadcasts from rank {r} to {rank}, which is not written yet", e.value_name(v)));
        }
        ts.push(real(e, v, rank)?);
    }
    let [a, b] = ts[..] else { return Err("expected two operands".into()) };
    let ty = result(e, op, 0)?;
    let options = match code {
        B::Add => Some(add_options()),
        B::Mul => Some(mul_options()),
        B::Sub => Some(O::SubOptions(Box::default())),
        B::Div => Some(O::DivOptions(Box::default())),
        _ => None,
    };
    e.g.op(code, &[a, b], &[ty], options);
    Ok(())
}

/// The stored positions, in the default layout of `rank`, of value axes `axes`.
fn stored_axes(axes: &[usize], rank: usize) -> Vec<i32> {
    let perm = layout::default_perm(rank);
    let mut s: Vec<i32> = axes.iter().map(|a| perm.iter().position(|p| p == a).unwrap_or(0) as i32).collect();
    s.sort_unstable();
    s
}

/// A reduction of `x` over stored axes `axes`, dims kept, into a new float32 tensor.
fn reduce_kept(e: &mut Emitter<'_>, code: tfl::BuiltinOperator, x: TensorId, axes: &[i32], name: &str) -> TensorId {
    let mut shape = e.g.shape(x);
    axes.iter().for_each(|&a| shape[a as usize] = 1);
    let at = e.g.ints(&format!("{name}.axes"), &[axes.len()], axes);
    let t = e.g.tensor(name, &shape, tfl::TensorType::Float32, None);
    e.g.op(code, &[x, at], &[t], Some(O::ReducerOptions(Box::new(tfl::ReducerOptions { keep_dims: true }))));
    t
}

/// `core.reduce` mean, sum, max or min over constant axes; a dropped axis
/// by a RESHAPE of the kept result (the default layouts of ranks 4 and
/// below it store the remaining axes in another order only for rank 4).
fn reduce(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let x = op.operand(0).ok_or("no input")?;
    let rank = e.dims(x)?.len();
    let (code, logical) = super::reduction(op, rank)?;
    let tx = real(e, x, rank)?;
    let name = e.value_name(op.results[0]);
    let kept = reduce_kept(e, code, tx, &stored_axes(&logical, rank), &format!("{name}.kept"));
    if op.attrs.int("keepdims").unwrap_or(1) != 0 {
        e.real_of.insert(op.results[0], kept);
        return Ok(());
    }
    if rank == 4 {
        return Err("a rank-4 reduction dropping its axes is not written in float yet".into());
    }
    let ty = result(e, op, 0)?;
    let shape = e.g.shape(ty);
    reshape_into(e, kept, ty, &shape, &name);
    Ok(())
}

/// LayerNormalization over axes `[axis, rank)`: `(x − mean) · rsqrt(var +
/// ε) · scale + bias`, the mean and variance by MEAN (TFLite has no
/// layer-norm operator).
fn layer_norm(e: &mut Emitter<'_>, op: &OpData) -> Result<(), String> {
    let uses = e.f.use_counts();
    if op.results.iter().skip(1).any(|r| uses.get(ir::entity::EntityId::index(*r)).is_some_and(|&n| n > 0)) {
        return Err("its Mean and InvStdDev results have no TFLite form".into());
    }
    let x = op.operand(0).ok_or("no input")?;
    let rank = e.dims(x)?.len();
    let axis = op.attrs.int("axis").unwrap_or(-1);
    let axis = layout::value_axis(axis, rank).ok_or_else(|| format!("axis {axis} is out of range for rank {rank}"))?;
    let eps = op.attrs.float("epsilon").unwrap_or(1e-5) as f64;
    let axes = stored_axes(&(axis..rank).collect::<Vec<_>>(), rank);
    let name = e.value_name(op.results[0]);
    let tx = real(e, x, rank)?;
    let shape = e.g.shape(tx);
    let f32_tensor = |e: &mut Emitter<'_>, n: &str, s: &[usize]| e.g.tensor(n, s, tfl::TensorType::Float32, None);
    let mean = reduce_kept(e, B::Mean, tx, &axes, &format!("{name}.mean"));
    let d = f32_tensor(e, &format!("{name}.centered"), &shape);
    e.g.op(B::Sub, &[tx, mean], &[d], Some(O::SubOptions(Box::default())));
    let sq = f32_tensor(e, &format!("{name}.squared"), &shape);
    e.g.op(B::Mul, &[d, d], &[sq], Some(mul_options()));
    let var = reduce_kept(e, B::Mean, sq, &axes, &format!("{name}.variance"));
    let eps_t = constant(e, &format!("{name}.epsilon"), &[1], &[eps]);
    let ve = f32_tensor(e, &format!("{name}.variance_eps"), &e.g.shape(var));
    e.g.op(B::Add, &[var, eps_t], &[ve], Some(add_options()));
    let inv = f32_tensor(e, &format!("{name}.inv_std"), &e.g.shape(var));
    e.g.op(B::Rsqrt, &[ve], &[inv], None);
    let n = f32_tensor(e, &format!("{name}.normalized"), &shape);
    e.g.op(B::Mul, &[d, inv], &[n], Some(mul_options()));
    let scale = real(e, op.operand(1).ok_or("no scale")?, rank)?;
    let bias = op.operand(2).map(|b| real(e, b, rank)).transpose()?;
    let ty = result(e, op, 0)?;
    let scaled = if bias.is_some() { f32_tensor(e, &format!("{name}.scaled"), &shape) } else { ty };
    e.g.op(B::Mul, &[n, scale], &[scaled], Some(mul_options()));
    if let Some(b) = bias {
        e.g.op(B::Add, &[scaled, b], &[ty], Some(add_options()));
    }
    Ok(())
}
