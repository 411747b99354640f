//! Weight-rewriting appliers of the fusion family: bias addition, per-channel
//! scaling and BatchNormalization folding into `core.conv`,
//! `core.conv_transpose` and `core.linear`.
//!
//! Output channels: axis 1 of a conv result (`M`), the last axis of a linear
//! result (`N`). A conv weight `W` is `[M, C/group, k...]`, a transposed conv
//! weight `[C, M/group, k...]`, a linear `B` `[..., K, N]` (`[..., N, K]` with
//! `trans_b = 1`). New biases are always `[M]` / `[N]` vectors.

use super::{fusable, Fusable};
use crate::egraph::analysis::EAnalysis;
use crate::rules::args::ArgVal;
use crate::rules::env::{text, ApplyEnv};
use egg::Id;
use ir::{ConstData, Constant, DType, Opcode, TensorType};
use std::sync::Arc;

/// A constant of float type `dt` (`f32` or `f64`) and shape `dims` from `f64` values.
fn make_const(dt: DType, dims: &[u64], vals: &[f64]) -> Result<Constant, String> {
    let bytes: Vec<u8> = match dt {
        DType::F32 => vals.iter().flat_map(|&v| (v as f32).to_le_bytes()).collect(),
        DType::F64 => vals.iter().flat_map(|&v| v.to_le_bytes()).collect(),
        other => return Err(format!("weights of element type {other} are not rewritten (f32/f64 only)")),
    };
    Ok(Constant { name: String::new(), ty: TensorType::fixed(dt, dims), data: ConstData::Bytes(bytes.into()) })
}

/// The fused op's result: element type, rank, output-channel axis and channel count.
struct OutInfo {
    dtype: DType,
    rank: usize,
    axis: usize,
    channels: usize,
}

fn out_info(a: &ApplyEnv<'_>, f: Id, op: Opcode) -> Result<OutInfo, String> {
    let t = a.eg[f].data.ty().ok_or("the fused value has no type")?;
    let dims = t.dims().ok_or("the fused value has unknown rank")?;
    let axis = match op {
        Opcode::CoreLinear => dims.len().checked_sub(1).ok_or("core.linear result of rank 0")?,
        _ => 1,
    };
    let channels = dims.get(axis).and_then(|d| d.as_static()).ok_or("the output channel count is not static")?;
    Ok(OutInfo { dtype: t.dtype, rank: dims.len(), axis, channels: channels as usize })
}

/// The values of `c` as one per output channel, if `c` broadcasts against the
/// result without changing its shape and varies (if at all) along the channel axis.
fn channel_vector(c: &Constant, o: &OutInfo) -> Result<Vec<f64>, String> {
    let bad = || format!("constant {} is not per-output-channel for a rank-{} result", c.ty, o.rank);
    if c.ty.dtype != o.dtype {
        return Err(format!("constant of type {} vs result of type {}", c.ty.dtype, o.dtype));
    }
    let dims = c.ty.shape.static_dims().ok_or_else(bad)?;
    let off = o.rank.checked_sub(dims.len()).ok_or_else(bad)?;
    let ok = dims.iter().enumerate().all(|(j, &d)| d == 1 || (off + j == o.axis && d as usize == o.channels));
    let v = c.to_f64s().ok_or_else(bad)?;
    match v.len() {
        n if ok && n == o.channels => Ok(v),
        1 if ok => Ok(vec![v[0]; o.channels]),
        _ => Err(bad()),
    }
}

/// The current bias of `fu` per output channel (zeros if absent); it must be constant.
fn bias_values(a: &ApplyEnv<'_>, fu: &Fusable, o: &OutInfo) -> Result<Option<Vec<f64>>, String> {
    if a.absent(fu.b) {
        return Ok(None);
    }
    let k = EAnalysis::const_of(a.eg, fu.b).ok_or("the existing bias is not a constant")?;
    if fu.op == Opcode::CoreLinear {
        return channel_vector(k, o).map(Some);
    }
    match k.to_f64s() {
        Some(v) if v.len() == o.channels => Ok(Some(v)),
        _ => Err("the existing bias is not an [M] vector".into()),
    }
}

/// The constant value of an argument's class.
fn konst(a: &ApplyEnv<'_>, arg: &ArgVal, what: &str) -> Result<Arc<Constant>, String> {
    let c = a.class(arg)?;
    EAnalysis::const_of(a.eg, c).cloned().ok_or_else(|| format!("{what} is not a constant"))
}

/// Output channel of every element of weight `w` of the fusable op `fu`.
fn weight_channels(fu: &Fusable, w: &Constant, channels: usize) -> Result<Vec<usize>, String> {
    let dims: Vec<usize> =
        w.ty.shape.static_dims().ok_or("weights of unknown shape")?.iter().map(|&d| d as usize).collect();
    let n: usize = dims.iter().product();
    let bad = || format!("weights {} do not have {channels} output channels", w.ty);
    let idx: Vec<usize> = match fu.op {
        Opcode::CoreConv => {
            let per = n.checked_div(*dims.first().ok_or_else(bad)?).ok_or_else(bad)?;
            (0..n).map(|i| i / per).collect()
        }
        Opcode::CoreConvTranspose => {
            let group = fu.attrs.int("group").unwrap_or(1).max(1) as usize;
            let (cin, mg) = (*dims.first().ok_or_else(bad)?, *dims.get(1).ok_or_else(bad)?);
            let ks = n.checked_div(cin * mg).ok_or_else(bad)?;
            let cg = cin.checked_div(group).filter(|&g| g > 0).ok_or_else(bad)?;
            (0..n).map(|i| (i / (mg * ks) / cg) * mg + (i / ks) % mg).collect()
        }
        _ => {
            let r = dims.len();
            if r < 2 {
                return Err("B of rank < 2 has no output-channel axis".into());
            }
            if fu.attrs.int("trans_b").unwrap_or(0) == 1 {
                let (nn, k) = (dims[r - 2], dims[r - 1]);
                (0..n).map(|i| (i / k.max(1)) % nn.max(1)).collect()
            } else {
                (0..n).map(|i| i % dims[r - 1].max(1)).collect()
            }
        }
    };
    if idx.iter().all(|&m| m < channels) && idx.iter().max().map_or(channels == 0, |&m| m + 1 == channels) {
        Ok(idx)
    } else {
        Err(bad())
    }
}

/// `fu` with its weights scaled per output channel by `factor` and its bias
/// replaced by `bias` (absent stays absent when `bias` is `None`).
fn rebuild(
    a: &mut ApplyEnv<'_>,
    fu: &Fusable,
    o: &OutInfo,
    factor: &[f64],
    bias: Option<Vec<f64>>,
) -> Result<Id, String> {
    if factor.iter().chain(bias.iter().flatten()).any(|v| !v.is_finite()) {
        return Err("the folded weights would not be finite".into());
    }
    let w = EAnalysis::const_of(a.eg, fu.w).cloned().ok_or("the weights are not a constant")?;
    if w.ty.dtype != o.dtype {
        return Err("weights and result have different element types".into());
    }
    let chans = weight_channels(fu, &w, o.channels)?;
    let wv = w.to_f64s().ok_or("weights are not numeric")?;
    let scaled: Vec<f64> = wv.iter().zip(&chans).map(|(&x, &m)| x * factor[m]).collect();
    let dims = w.ty.shape.static_dims().ok_or("weights of unknown shape")?;
    let nw = a.add_const(make_const(o.dtype, &dims, &scaled)?);
    let nb = match bias {
        Some(b) => a.add_const(make_const(o.dtype, &[o.channels as u64], &b)?),
        None => fu.b,
    };
    a.add_op(fu.op, &[fu.x, nw, nb], &fu.attrs)
}

/// `@fuse_bias(?f, ?c [, sub])`: `f + c` (or `f - c`) as the fusable op of `f` with bias `b ± c`.
pub fn fuse_bias(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let f = a.class(&args[0])?;
    let sign = if args.get(2).and_then(text) == Some("sub") { -1.0 } else { 1.0 };
    let fu = fusable(a, f)?;
    let o = out_info(a, f, fu.op)?;
    let c = channel_vector(&*konst(a, &args[1], "the added value")?, &o)?;
    let old = bias_values(a, &fu, &o)?.unwrap_or_else(|| vec![0.0; o.channels]);
    let new: Vec<f64> = old.iter().zip(&c).map(|(b, c)| b + sign * c).collect();
    if new.iter().any(|v| !v.is_finite()) {
        return Err("the new bias would not be finite".into());
    }
    let nb = a.add_const(make_const(o.dtype, &[o.channels as u64], &new)?);
    a.add_op(fu.op, &[fu.x, fu.w, nb], &fu.attrs)
}

/// `@fold_scale(?f, ?k [, div])`: `f * k` (or `f / k`) with weights and bias scaled by `k` (or `1/k`).
pub fn fold_scale(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let f = a.class(&args[0])?;
    let div = args.get(2).and_then(text) == Some("div");
    let fu = fusable(a, f)?;
    let o = out_info(a, f, fu.op)?;
    let mut k = channel_vector(&*konst(a, &args[1], "the factor")?, &o)?;
    if div {
        if k.contains(&0.0) {
            return Err("division by zero".into());
        }
        k.iter_mut().for_each(|x| *x = 1.0 / *x);
    }
    let bias = bias_values(a, &fu, &o)?.map(|b| b.iter().zip(&k).map(|(b, k)| b * k).collect());
    rebuild(a, &fu, &o, &k, bias)
}

/// `@fold_batchnorm(?f, ?scale, ?B, ?mean, ?var, ?attrs)`: inference BN over
/// the fusable op's result, folded into its weights and bias:
/// `W' = W * s / sqrt(var + eps)`, `b' = (b - mean) * s / sqrt(var + eps) + B`.
pub fn fold_batchnorm(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let f = a.class(&args[0])?;
    let fu = fusable(a, f)?;
    let o = out_info(a, f, fu.op)?;
    if o.axis != 1 {
        return Err(format!("BatchNormalization normalizes axis 1, the fused op's channel axis is {}", o.axis));
    }
    let attrs = a.env().attrs(&args[5]).cloned().ok_or("BN attributes are not bound")?;
    if attrs.int("training_mode").unwrap_or(0) != 0 {
        return Err("training-mode BatchNormalization".into());
    }
    let eps = attrs.float("epsilon").unwrap_or(1e-5) as f64;
    let mut p = Vec::with_capacity(4);
    for (arg, what) in args[1..5].iter().zip(["scale", "B", "mean", "var"]) {
        let k = konst(a, arg, what)?;
        match k.to_f64s() {
            Some(v) if k.ty.dtype == o.dtype && v.len() == o.channels => p.push(v),
            _ => return Err(format!("BN {what} is not a [{}] vector of the result's type", o.channels)),
        }
    }
    let (s, bb, mean, var) = (&p[0], &p[1], &p[2], &p[3]);
    let factor: Vec<f64> = s.iter().zip(var).map(|(s, v)| s / (v + eps).sqrt()).collect();
    let old = bias_values(a, &fu, &o)?.unwrap_or_else(|| vec![0.0; o.channels]);
    let bias = (0..o.channels).map(|m| (old[m] - mean[m]) * factor[m] + bb[m]).collect();
    rebuild(a, &fu, &o, &factor, Some(bias))
}
