//! Activation equalization before quantization: a conv's output channels
//! whose ranges lie far apart share one per-tensor grid badly (the narrow
//! ones get a few codes). Where that output feeds only a depthwise conv,
//! channel `c` can be scaled by `2^k[c]` in the producer (its weights and
//! bias) and by `2^-k[c]` in the depthwise weights: the float program
//! computes the same bits (a power-of-two scale commutes exactly with
//! rounding, sums, zero padding and a fused relu, away from subnormals,
//! which are checked), and per-output-channel weight grids absorb both
//! scales, so only the activation's grid gains (cross-layer equalization,
//! Nagel et al., "Data-Free Quantization", 2019, restricted to the exact
//! case). `k[c]` raises each channel toward the widest: `2^k[c] · r[c] ≤
//! max r`, with `r[c]` the channel's largest magnitude on the calibration
//! set.
//!
//! Invariant: the rewritten module's `@main` gives bit-identical results
//! to the input's on every input; only constants change.

use super::channels::channel_stats;
use super::rewrite::const_weight;
use super::{label, Graph, QuantError};
use ir::interp::Tensor;
use ir::{Attr, ConstData, Constant, DType, Module, OpId, Opcode, TensorType, Value};
use std::collections::BTreeMap;

/// One producer–depthwise pair [`equalize`] rescaled.
#[derive(Clone, Debug, PartialEq)]
pub struct Equalized {
    /// The producing conv's label.
    pub producer: String,
    /// The depthwise conv's label.
    pub consumer: String,
    /// Channels scaled (`k[c] > 0`).
    pub channels: usize,
    /// Widest over narrowest channel magnitude, before and after (live
    /// channels only).
    pub spread: (f64, f64),
}

/// A candidate pair: the producing conv, the depthwise conv, the
/// activation between them and its channels (the producer's output
/// channels; the depthwise conv's are a multiple).
struct Pair {
    producer: OpId,
    consumer: OpId,
    act: Value,
    channels: usize,
}

/// Equalize every eligible pair of `m`'s `@main` (see the module docs),
/// measuring ranges on `samples` (`tick` after each run). Returns the
/// rewritten module and the pairs changed, in program order.
pub fn equalize(
    m: &Module,
    samples: &[Vec<Tensor>],
    tick: &mut dyn FnMut(),
) -> Result<(Module, Vec<Equalized>), QuantError> {
    let f = m.func("main").ok_or(QuantError::NoMain)?;
    let graph = Graph::new(f);
    let pairs = pairs(m, &graph);
    if pairs.is_empty() {
        return Ok((m.clone(), vec![]));
    }
    let values: BTreeMap<Value, isize> = pairs.iter().map(|p| (p.act, 1)).collect();
    let stats = channel_stats(m, &values, samples, tick).map_err(|e| QuantError::Eval(e.to_string()))?;
    let mut out = m.clone();
    let (mut done, mut replaced) = (Vec::new(), Vec::new());
    for p in &pairs {
        let Some(s) = stats.get(&p.act) else { continue };
        let r: Vec<f32> = s.lo.iter().zip(&s.hi).map(|(l, h)| l.abs().max(h.abs())).collect();
        let k = exponents(&r);
        if k.len() != p.channels || k.iter().all(|&k| k == 0) {
            continue;
        }
        let Some(old) = rescale(&mut out, &graph, p, &k) else { continue };
        replaced.extend(old);
        let after: Vec<f32> = r.iter().zip(&k).map(|(&r, &k)| r * 2f32.powi(k)).collect();
        let channels = k.iter().filter(|&&k| k > 0).count();
        let (producer, consumer) = (label(&f.ops[p.producer], p.producer), label(&f.ops[p.consumer], p.consumer));
        done.push(Equalized { producer, consumer, channels, spread: (spread(&r), spread(&after)) });
    }
    // The constants the scaled copies replaced, when nothing reads them now.
    let read: std::collections::BTreeSet<String> = out
        .funcs
        .iter()
        .flat_map(|f| {
            f.ops.iter().filter_map(|(_, op)| match op.attrs.get("value") {
                Some(Attr::Sym(s)) if op.opcode == Opcode::CoreConst => Some(s.clone()),
                _ => None,
            })
        })
        .collect();
    out.retain_consts(|c| read.contains(&c.name) || !replaced.contains(&c.name));
    Ok((out, done))
}

/// Per channel, the largest `k ≥ 0` with `2^k · r[c] ≤ max r` (0 for a
/// dead or non-finite channel).
fn exponents(r: &[f32]) -> Vec<i32> {
    let top = r.iter().copied().filter(|x| x.is_finite()).fold(0f32, f32::max);
    r.iter()
        .map(
            |&x| {
                if x > 0.0 && x.is_finite() && top > 0.0 {
                    (top / x).log2().floor().clamp(0.0, 30.0) as i32
                } else {
                    0
                }
            },
        )
        .collect()
}

/// Widest over narrowest magnitude among the live channels of `r`.
fn spread(r: &[f32]) -> f64 {
    let live = r.iter().copied().filter(|&x| x > 0.0 && x.is_finite());
    let (lo, hi) = live.fold((f32::INFINITY, 0f32), |(lo, hi), x| (lo.min(x), hi.max(x)));
    if hi > 0.0 {
        f64::from(hi) / f64::from(lo)
    } else {
        1.0
    }
}

/// The eligible pairs: a `core.conv` with a constant weight (and constant
/// bias if any), no fused activation or a relu, whose result only a
/// depthwise `core.conv` (one input channel per group, constant weight)
/// reads as its input; every constant read by its op alone.
fn pairs(m: &Module, graph: &Graph<'_>) -> Vec<Pair> {
    let Some(f) = m.func("main") else { return vec![] };
    let only = |v: Option<Value>, op: OpId| v.is_none_or(|v| graph.is_const(v) && graph.users(v) == [op]);
    let mut out = Vec::new();
    for &id in &f.body.ops {
        let op = &f.ops[id];
        // Activations a power of two passes through exactly.
        let act = op.attrs.get("act").is_none_or(|a| matches!(a, Attr::Str(s) if s == "none" || s == "relu"));
        let Some((wdims, _)) = const_weight(m, f, id).filter(|_| op.opcode == Opcode::CoreConv && act) else {
            continue;
        };
        if !only(op.operand(1), id) || !only(op.operand(2), id) {
            continue;
        }
        let Some(&y) = op.results.first() else { continue };
        let [d] = graph.users(y) else { continue };
        let dw = &f.ops[*d];
        let Some((dims, _)) = const_weight(m, f, *d).filter(|_| dw.opcode == Opcode::CoreConv) else { continue };
        let (Some(&c), Some(&rows)) = (wdims.first(), dims.first()) else { continue };
        let group = match dw.attrs.get("group") {
            Some(Attr::Int(g)) => u64::try_from(*g).ok(),
            _ => Some(1),
        };
        let depthwise = dims.get(1) == Some(&1) && c > 0 && group == Some(c) && rows % c == 0;
        if depthwise && dw.operand(0) == Some(y) && only(dw.operand(1), *d) && !f.body.results.contains(&y) {
            out.push(Pair { producer: id, consumer: *d, act: y, channels: c as usize });
        }
    }
    out
}

/// Scale channel `c` of the pair's producer weight and bias by `2^k[c]`
/// and the depthwise weights reading it by `2^-k[c]`, in `m` (fresh
/// constants; returns the names of those they replace); `None` (and `m`
/// unchanged) when a scaled element would leave the normal range or a
/// constant is not f32. `k` holds one exponent per channel of the pair.
fn rescale(m: &mut Module, graph: &Graph<'_>, p: &Pair, k: &[i32]) -> Option<Vec<String>> {
    let f = m.func("main")?;
    let (prod, dw) = (&f.ops[p.producer], &f.ops[p.consumer]);
    // Per constant operand: its op, its name and the scaled copy.
    let scaled = |v: Option<Value>, sign: i32| -> Option<Option<(OpId, String, Constant)>> {
        let Some(v) = v else { return Some(None) };
        let cop = graph.producer(v)?;
        let c = m.const_of_op(&f.ops[cop]).filter(|c| c.ty.dtype == DType::F32)?;
        let dims = c.ty.shape.static_dims()?;
        let xs: Vec<f32> = c.to_f64s()?.into_iter().map(|x| x as f32).collect();
        let per = xs.len() / (*dims.first()? as usize).max(1);
        let mult = (*dims.first()? as usize) / k.len().max(1);
        let ys: Option<Vec<f32>> = xs
            .iter()
            .enumerate()
            .map(|(i, &x)| {
                let y = x * 2f32.powi(sign * k[(i / per.max(1)) / mult.max(1)]);
                (x == 0.0 || y.is_normal()).then_some(y)
            })
            .collect();
        let ty = TensorType::fixed(DType::F32, &dims);
        let bytes: Vec<u8> = ys?.iter().flat_map(|x| x.to_le_bytes()).collect();
        let copy = Constant { name: format!("{}.eq", c.name), ty, data: ConstData::Bytes(bytes.into()) };
        Some(Some((cop, c.name.clone(), copy)))
    };
    let news = [scaled(prod.operand(1), 1), scaled(prod.operand(2), 1), scaled(dw.operand(1), -1)];
    if news.iter().any(Option::is_none) {
        return None;
    }
    let fi = m.funcs.iter().position(|f| f.name == "main")?;
    let mut old = Vec::new();
    for (cop, was, mut c) in news.into_iter().flatten().flatten() {
        while m.const_by_name(&c.name).is_some() {
            c.name.push_str(".eq");
        }
        let name = c.name.clone();
        m.add_const(c).ok()?; // the name is fresh
        m.funcs[fi].ops[cop].attrs.set("value", Attr::Sym(name));
        old.push(was);
    }
    Some(old)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ir::interp::{run, Data};
    use proptest::prelude::*;

    fn list(xs: &[f32]) -> String {
        xs.iter().map(|x| format!("{x:?}")).collect::<Vec<_>>().join(", ")
    }

    /// A conv (`k`×`k`, bias, `act`) of `c` channels read only by a
    /// depthwise 3×3 conv with channel multiplier `mult`.
    fn pair(c: usize, k: usize, mult: usize, act: &str, w: &[f32], dw: &[f32]) -> Module {
        let (cin, p) = (2, k / 2);
        let b: Vec<f32> = (0..c).map(|i| w[i] / 4.0).collect();
        let src = format!(
            r#"module @m attributes {{phase = "core"}} {{
  const @w : f32[{c}, {cin}, {k}, {k}] = dense<[{w}]>
  const @b : f32[{c}] = dense<[{b}]>
  const @dw : f32[{cm}, 1, 3, 3] = dense<[{dw}]>
  func @main(%x: f32[1, {cin}, 5, 5]) -> (f32[1, {cm}, 5, 5]) {{
    %w = core.const {{value = @w}} : f32[{c}, {cin}, {k}, {k}]
    %b = core.const {{value = @b}} : f32[{c}]
    %0 = core.conv %x, %w, %b {{act = "{act}", pads = [{p}, {p}, {p}, {p}]}} : f32[1, {c}, 5, 5]
    %dw = core.const {{value = @dw}} : f32[{cm}, 1, 3, 3]
    %1 = core.conv %0, %dw {{group = {c}, pads = [1, 1, 1, 1]}} : f32[1, {cm}, 5, 5]
    return %1
  }}
}}"#,
            w = list(&w[..c * cin * k * k]),
            b = list(&b),
            cm = c * mult,
            dw = list(&dw[..c * mult * 9]),
        );
        ir::text::parse_module(&src, "pair.eir", None).expect("parses").module
    }

    fn input(xs: &[f32]) -> Vec<Tensor> {
        vec![Tensor { shape: vec![1, 2, 5, 5], data: Data::F32(xs.to_vec()) }]
    }

    proptest! {
        /// Channel magnitudes up to 2^12 apart: whatever the shapes and
        /// values, the equalized module gives the float bits of the input.
        #[test]
        fn equalized_modules_compute_the_same_bits(
            c in 1usize..6, k in prop::sample::select(vec![1usize, 3]), mult in 1usize..3, relu: bool,
            w in prop::collection::vec(-1f32..1.0, 6 * 2 * 9), spread in prop::collection::vec(0i32..12, 6),
            dw in prop::collection::vec(-1f32..1.0, 12 * 9), xs in prop::collection::vec(-2f32..2.0, 4 * 50),
        ) {
            let per = 2 * k * k;
            let w: Vec<f32> = w[..c * per].iter().enumerate().map(|(i, &x)| x * 2f32.powi(-spread[i / per])).collect();
            let m = pair(c, k, mult, if relu { "relu" } else { "none" }, &w, &dw);
            let samples: Vec<Vec<Tensor>> = xs[..100].chunks(50).map(input).collect();
            let (eq, done) = equalize(&m, &samples, &mut || {}).unwrap();
            prop_assert!(done.len() <= 1);
            for x in xs[100..].chunks(50) {
                prop_assert_eq!(run(&m, "main", input(x)).unwrap(), run(&eq, "main", input(x)).unwrap());
            }
        }
    }
}
