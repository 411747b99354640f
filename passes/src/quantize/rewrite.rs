//! The QDQ rewrite: activations get `QuantizeLinear → DequantizeLinear`
//! after their producer; weights and biases of int8 ops become integer
//! constants behind a `DequantizeLinear` placed before their op.

use super::{weight_slots, ActQ, Layer, Options, Precision, QuantError, Quantized};
use crate::calibrate::{QParams, QType};
use ir::{Attr, Attrs, ConstData, Constant, DType, Function, Loc, Module, OpId, Opcode, TensorType, Value};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Rewrite a copy of `m` (see the module docs of [`super`]).
pub(super) fn apply(
    m: &Module,
    layers: Vec<Layer>,
    params: &BTreeMap<Value, (QType, QParams)>,
    opts: &Options,
) -> Result<Quantized, QuantError> {
    let mut out = m.clone();
    let fi = out.funcs.iter().position(|f| f.name == "main").ok_or(QuantError::NoMain)?;
    let mut f = std::mem::take(&mut out.funcs[fi]);
    let mut cx = Cx { m: &mut out, before: HashMap::new(), after: HashMap::new(), fitted: BTreeMap::new() };

    let mut acts = BTreeMap::new();
    let mut quantizers = HashSet::new();
    for (&v, &(qtype, p)) in params {
        let producer = producer(&f, v);
        // Provenance: the producer, or for an input the first int8 op reading it.
        let reader = || layers.iter().find(|l| f.ops[l.op].inputs().any(|x| x == v)).map(|l| f.ops[l.op].loc.clone());
        let loc = producer.map(|op| f.ops[op].loc.clone()).or_else(reader).unwrap_or_default();
        let ty = f.ty(v).clone();
        let (scale, zp) = cx.scalar_params(&mut f, (v, producer), qtype, p, &loc);
        let qt = TensorType { dtype: dtype(qtype), shape: ty.shape.clone() };
        let q = f.create_op(Opcode::QuantizeLinear, [Some(v), Some(scale), Some(zp)], Attrs::new(), [qt], loc.clone());
        let qv = f.result(q);
        let dq = f.create_op(Opcode::DequantizeLinear, [Some(qv), Some(scale), Some(zp)], Attrs::new(), [ty], loc);
        cx.after.entry(producer).or_default().extend([q, dq]);
        quantizers.insert(q);
        acts.insert(v, ActQ { dq: f.result(dq), qtype, params: p });
    }

    let mut weights = Vec::new();
    let mut bias_corrected = 0;
    for l in layers.iter().filter(|l| l.precision == Precision::Int8) {
        let shift = opts.bias_shift.get(&l.op).map(Vec::as_slice);
        let done = cx.weights(&mut f, l.op, &acts, opts, shift);
        bias_corrected += usize::from(shift.is_some() && done.len() == 2);
        weights.extend(done);
    }

    // Place the new ops, then route every reader of a quantized value to its dequantized form.
    let mut body = Vec::with_capacity(f.body.ops.len());
    body.extend(cx.after.remove(&None).unwrap_or_default());
    for &id in &f.body.ops {
        body.extend(cx.before.remove(&id).unwrap_or_default());
        body.push(id);
        body.extend(cx.after.remove(&Some(id)).unwrap_or_default());
    }
    f.body.ops = body;
    let fitted = cx.fitted;
    let dq: HashMap<Value, Value> = acts.iter().map(|(&v, a)| (v, a.dq)).collect();
    reroute(&mut f, &dq, &quantizers);
    out.funcs[fi] = f;
    // The float weights the int8 constants replaced are now unread.
    let dce = crate::Pass::run(&crate::simplify::Dce, &mut out, &mut crate::PassCx::default());
    dce.map_err(|e| QuantError::Verify(e.to_string()))?;
    ir::verify::verify(&out).map_err(|e| QuantError::Verify(e.to_string()))?;
    Ok(Quantized { module: out, acts, layers, weights, bias_corrected, bias_fitted: fitted })
}

/// The op defining `v`, if an op does.
fn producer(f: &Function, v: Value) -> Option<OpId> {
    match f.values[v].def {
        ir::ValueDef::Result(op, _) => Some(op),
        _ => None,
    }
}

/// Make every reader of a key of `to` (operands of live ops but the
/// `quantizers`, region and function results) read its value instead, in
/// one walk over the function.
fn reroute(f: &mut Function, to: &HashMap<Value, Value>, quantizers: &HashSet<OpId>) {
    let swap = |v: &mut Value| {
        if let Some(&n) = to.get(v) {
            *v = n;
        }
    };
    f.body.results.iter_mut().for_each(swap);
    for id in f.live_ops() {
        let op = &mut f.ops[id];
        if !quantizers.contains(&id) {
            op.operands.iter_mut().flatten().for_each(swap);
        }
        op.regions.iter_mut().flat_map(|r| r.results.iter_mut()).for_each(swap);
    }
}

fn dtype(q: QType) -> DType {
    match q {
        QType::U8 => DType::U8,
        QType::I8 => DType::I8,
        QType::I16 => DType::I16,
    }
}

/// The rewrite's state: the module (for constants) and ops to place.
struct Cx<'m> {
    m: &'m mut Module,
    /// New ops to place before an op.
    before: HashMap<OpId, Vec<OpId>>,
    /// New ops to place after an op (`None`: at the start of the body).
    after: HashMap<Option<OpId>, Vec<OpId>>,
    /// Per op, the channels whose weight scale [`fit_bias`] raised.
    fitted: BTreeMap<OpId, usize>,
}

impl Cx<'_> {
    /// Add a constant under a fresh name based on `base`, and a `core.const`
    /// op for it (not placed); returns the op and its value.
    fn constant(&mut self, f: &mut Function, base: &str, c: (DType, Vec<u64>, Vec<u8>), loc: &Loc) -> (OpId, Value) {
        let mut name = base.to_string();
        let mut n = 1;
        while self.m.const_by_name(&name).is_some() {
            name = format!("{base}.{n}");
            n += 1;
        }
        let ty = TensorType::fixed(c.0, &c.1);
        let konst = Constant { name: name.clone(), ty: ty.clone(), data: ConstData::Bytes(c.2.into()) };
        let _ = self.m.add_const(konst); // the name is fresh
        let mut attrs = Attrs::new();
        attrs.set("value", Attr::Sym(name));
        let op = f.create_op(Opcode::CoreConst, [], attrs, [ty], loc.clone());
        (op, f.result(op))
    }

    /// Scalar scale and zero point constants of activation `v`, placed with its Q/DQ.
    fn scalar_params(
        &mut self,
        f: &mut Function,
        (v, producer): (Value, Option<OpId>),
        q: QType,
        p: QParams,
        loc: &Loc,
    ) -> (Value, Value) {
        let zp_bytes = match q {
            QType::U8 => vec![p.zero_point as u8],
            QType::I8 => vec![p.zero_point as i8 as u8],
            QType::I16 => (p.zero_point as i16).to_le_bytes().to_vec(),
        };
        let base = format!("q{}", v.as_u32());
        let (s_op, s) =
            self.constant(f, &format!("{base}.scale"), (DType::F32, vec![], p.scale.to_le_bytes().to_vec()), loc);
        let (z_op, z) = self.constant(f, &format!("{base}.zero_point"), (dtype(q), vec![], zp_bytes), loc);
        self.after.entry(producer).or_default().extend([s_op, z_op]);
        (s, z)
    }

    /// Quantize the weight (and bias, less `shift` when bias correction
    /// gives one) of int8 op `id` as `opts` says; returns what was quantized.
    fn weights(
        &mut self,
        f: &mut Function,
        id: OpId,
        acts: &BTreeMap<Value, ActQ>,
        opts: &Options,
        shift: Option<&[f32]>,
    ) -> Vec<(OpId, usize, bool)> {
        let Some(slots) = weight_slots(&f.ops[id]) else { return vec![] };
        let Some(w) = self.const_f32(f, f.ops[id].operand(slots.weight)) else { return vec![] };
        let axis = weight_axis(slots, w.0.len(), opts.per_channel);
        let qmax = f32::from(super::weight_max(opts.reduce_range));
        let loc = f.ops[id].loc.clone();
        // Bias: int32 with scale input scale × weight scale, when the input is quantized.
        let x_scale = f.ops[id].operand(0).and_then(|x| acts.get(&x)).map(|a| a.params.scale);
        let bias = slots.bias.zip(x_scale).and_then(|(b_slot, _)| {
            // A corrected layer without a bias gets one.
            let bias = self.const_f32(f, f.ops[id].operand(b_slot));
            let bias = bias.or_else(|| shift.map(|d| (vec![d.len() as u64], vec![0.0; d.len()])));
            bias.map(|(d, b)| match shift.filter(|s| s.len() == b.len()) {
                Some(s) => (d, b.iter().zip(s).map(|(&b, &s)| b - s).collect::<Vec<f32>>()),
                None => (d, b),
            })
        });
        let mut scales = weight_scales(&w.0, &w.1, axis, qmax);
        if let (Some((_, b)), Some(sx)) = (&bias, x_scale) {
            let raised = fit_bias(&mut scales, b, sx);
            if raised > 0 {
                self.fitted.insert(id, raised);
            }
        }
        let q = quantize_weight(&w.0, &w.1, axis, &scales, qmax);
        let (wdims, channels) = (w.0.clone(), scales.len() as u64);
        let base = format!("w{id}");
        let (s_op, s) = self.constant(f, &format!("{base}.scale"), f32_const(&scales, axis.map(|_| channels)), &loc);
        let zp = vec![0u8; scales.len()];
        let (z_op, z) =
            self.constant(f, &format!("{base}.zero_point"), (DType::I8, dims(axis.map(|_| channels)), zp), &loc);
        let qbytes: Vec<u8> = q.iter().map(|&x| x as u8).collect();
        let (w_op, wq) = self.constant(f, &format!("{base}.q"), (DType::I8, wdims.clone(), qbytes), &loc);
        let deq = self.dequantize(f, [wq, s, z], axis, TensorType::fixed(DType::F32, &wdims), &loc);
        self.before.entry(id).or_default().extend([s_op, z_op, w_op, deq.0]);
        f.ops[id].operands[slots.weight] = Some(deq.1);
        let mut done = vec![(id, slots.weight, axis.is_some())];
        if let (Some(b_slot), Some(sx)) = (slots.bias, x_scale) {
            if let Some((bdims, b)) = bias {
                let n = b.len();
                let bscale: Vec<f32> = (0..n).map(|c| sx * scales[if axis.is_some() { c } else { 0 }]).collect();
                if bdims.len() == 1 && (axis.is_none() || n == scales.len()) {
                    let bq: Vec<u8> = b
                        .iter()
                        .zip(&bscale)
                        .map(|(&x, &s)| {
                            (f64::from(x) / f64::from(s)).round_ties_even().clamp(-BIAS_MAX, BIAS_MAX) as i32
                        })
                        .flat_map(i32::to_le_bytes)
                        .collect();
                    let ax = Some(0).filter(|_| axis.is_some());
                    let bscale = if ax.is_some() { bscale } else { vec![bscale[0]] };
                    let (bs_op, bs) =
                        self.constant(f, &format!("{base}.bias_scale"), f32_const(&bscale, ax.map(|_| n as u64)), &loc);
                    let zeros = vec![0u8; 4 * bscale.len()];
                    let (bz_op, bz) = self.constant(
                        f,
                        &format!("{base}.bias_zero_point"),
                        (DType::I32, dims(ax.map(|_| n as u64)), zeros),
                        &loc,
                    );
                    let (bq_op, bqv) =
                        self.constant(f, &format!("{base}.bias_q"), (DType::I32, bdims.clone(), bq), &loc);
                    let bt = TensorType::fixed(DType::F32, &bdims);
                    let deq = self.dequantize(f, [bqv, bs, bz], ax, bt, &loc);
                    self.before.entry(id).or_default().extend([bs_op, bz_op, bq_op, deq.0]);
                    let operands = &mut f.ops[id].operands;
                    if operands.len() <= b_slot {
                        operands.resize(b_slot + 1, None);
                    }
                    operands[b_slot] = Some(deq.1);
                    done.push((id, b_slot, ax.is_some()));
                }
            }
        }
        done
    }

    fn dequantize(
        &mut self,
        f: &mut Function,
        ops: [Value; 3],
        axis: Option<usize>,
        ty: TensorType,
        loc: &Loc,
    ) -> (OpId, Value) {
        let mut attrs = Attrs::new();
        if let Some(a) = axis {
            attrs.set("axis", Attr::Int(a as i64));
        }
        let op = f.create_op(Opcode::DequantizeLinear, ops.map(Some), attrs, [ty], loc.clone());
        (op, f.result(op))
    }

    /// The dims and f32 elements of a `core.const` operand.
    fn const_f32(&self, f: &Function, v: Option<Value>) -> Option<(Vec<u64>, Vec<f32>)> {
        const_f32(self.m, f, v)
    }
}

/// The static dims and values of `v` when a constant op of `m` defines it as f32.
fn const_f32(m: &Module, f: &Function, v: Option<Value>) -> Option<(Vec<u64>, Vec<f32>)> {
    let c = m.const_of_op(&f.ops[producer(f, v?)?])?;
    if c.ty.dtype != DType::F32 {
        return None;
    }
    let d = c.ty.shape.static_dims()?;
    Some((d, c.to_f64s()?.into_iter().map(|x| x as f32).collect()))
}

/// The int8 weight of op `id` of a module [`apply`] made, dequantized
/// (`q · scale`, read from the constants behind its DequantizeLinear),
/// with its dims: what the quantized layer multiplies by.
pub(super) fn dequantized_weight(m: &Module, f: &Function, id: OpId) -> Option<(Vec<u64>, Vec<f64>)> {
    let slot = weight_slots(&f.ops[id])?.weight;
    let dq = &f.ops[producer(f, f.ops[id].operand(slot)?)?];
    if dq.opcode != Opcode::DequantizeLinear {
        return None;
    }
    let konst = |i: usize| m.const_of_op(&f.ops[producer(f, dq.operand(i)?)?]);
    let (q, scales) = (konst(0)?, konst(1)?.to_f64s()?);
    let dims = q.ty.shape.static_dims()?;
    let axis = match dq.attrs.get("axis") {
        Some(Attr::Int(a)) if scales.len() > 1 => Some(usize::try_from(*a).ok()?),
        _ => None,
    };
    let at = |i: usize| scales.get(axis.map_or(0, |a| channel(&dims, a, i))).copied();
    let w = q.to_f64s()?.into_iter().enumerate().map(|(i, v)| Some(v * at(i)?)).collect::<Option<Vec<f64>>>()?;
    Some((dims, w))
}

/// The constant f32 weight of op `id` (see [`weight_slots`]), if it has one.
pub(super) fn const_weight(m: &Module, f: &Function, id: OpId) -> Option<(Vec<u64>, Vec<f32>)> {
    const_f32(m, f, f.ops[id].operand(weight_slots(&f.ops[id])?.weight))
}

/// The axis of a weight of rank `rank` its scales run along: the slots'
/// output-channel axis when per channel, else none (one scale).
pub(super) fn weight_axis(slots: super::WeightSlots, rank: usize, per_channel: bool) -> Option<usize> {
    let rank = rank as isize;
    let axis = slots.axis.map(|a| if a < 0 { rank + a } else { a });
    axis.filter(|&a| per_channel && (0..rank).contains(&a)).map(|a| a as usize)
}

fn dims(n: Option<u64>) -> Vec<u64> {
    n.map(|n| vec![n]).unwrap_or_default()
}

fn f32_const(xs: &[f32], n: Option<u64>) -> (DType, Vec<u64>, Vec<u8>) {
    (DType::F32, dims(n), xs.iter().flat_map(|x| x.to_le_bytes()).collect())
}

/// The channel of flat index `i` of a tensor with `dims` along `axis`.
pub(super) fn channel(dims: &[u64], axis: usize, i: usize) -> usize {
    let inner: u64 = dims[axis + 1..].iter().product();
    ((i as u64 / inner.max(1)) % dims[axis].max(1)) as usize
}

/// Largest |bias| in units of its scale: 2·10^9, inside i32 with room for
/// a sum the products bring back toward zero (the integer kernels add them
/// wrapping, so only the final sum must fit).
const BIAS_MAX: f64 = 2.0e9;

/// Raise weight scales (one per channel of `bias`, or one for all) where
/// `bias / (sx · scale)` would not fit [`BIAS_MAX`]: with a fine input grid
/// (i16) and small weights a large bias would otherwise saturate, silently.
/// The coarser weights are what such a channel can carry. Returns how many
/// scales it raised.
fn fit_bias(scales: &mut [f32], bias: &[f32], sx: f32) -> usize {
    let need = |b: f32| (f64::from(b.abs()) / (f64::from(sx) * BIAS_MAX) * (1.0 + 1e-6)) as f32;
    let mut raised = 0;
    let mut raise = |s: &mut f32, b: f32| {
        let n = need(b);
        if n > *s {
            *s = n;
            raised += 1;
        }
    };
    if scales.len() == bias.len() {
        scales.iter_mut().zip(bias).for_each(|(s, &b)| raise(s, b));
    } else if let [s] = scales {
        let b = bias.iter().fold(0.0f32, |m, &b| m.max(b.abs()));
        raise(s, b);
    }
    raised
}

/// Symmetric int8 scales: `max |w| / qmax` per channel of `axis` (or one for
/// the whole tensor); an all-zero channel gets scale 1.
pub(super) fn weight_scales(dims: &[u64], w: &[f32], axis: Option<usize>, qmax: f32) -> Vec<f32> {
    let n = axis.map_or(1, |a| dims[a] as usize);
    let mut m = vec![0f32; n];
    for (i, &x) in w.iter().enumerate() {
        let c = axis.map_or(0, |a| channel(dims, a, i));
        if x.is_finite() {
            m[c] = m[c].max(x.abs());
        }
    }
    m.into_iter().map(|m| if m > 0.0 { m / qmax } else { 1.0 }).collect()
}

/// `w` quantized to `-qmax..=qmax` by the per-channel `scales`, rounding half to even.
pub(super) fn quantize_weight(dims: &[u64], w: &[f32], axis: Option<usize>, scales: &[f32], qmax: f32) -> Vec<i8> {
    w.iter()
        .enumerate()
        .map(|(i, &x)| {
            let s = scales[axis.map_or(0, |a| channel(dims, a, i))];
            (x / s).round_ties_even().clamp(-qmax, qmax) as i8
        })
        .collect()
}
