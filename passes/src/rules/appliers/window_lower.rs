//! Appliers of the `window-lower` rule family (`passes/rules/window-lower.rules`):
//! the window ops (`ir::ops::attention::window`) as static ops of rank ≤ 4 for targets
//! without them, and the explicit `window-lower` pass's target view.
//!
//! Invariants: the layout lowerings (partition, merge, the cyclic shift as
//! `core.slice` + `onnx.Concat`, the qkv split) move exactly the elements the
//! window op moves, so they are exact; the attention lowering computes the
//! op's chain with `bias + mask` folded into one constant (one rounding
//! instead of two). No node added here has a rank above 4, and every applier
//! checks its final node's type against the matched class before returning it.

use super::recognition::{add_checked, eval1, konst};
use super::window::{shape_attrs, static_dims};
use super::ApplierDef;
use crate::egraph::analysis::{tensor_to_const, EG};
use crate::egraph::extract::{CostModel, OpCount};
use crate::egraph::lang::ENode;
use crate::egraph::TargetInfo;
use crate::rules::args::ArgVal;
use crate::rules::conds::CondDef;
use crate::rules::env::ApplyEnv;
use egg::Id;
use ir::interp::Tensor;
use ir::ops::attention::window::{merge_size, num_windows, windows, Windows};
use ir::{Attr, Attrs, Opcode};
use std::sync::Arc;

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "window_lower_partition",
        arity: 2..=2,
        signature: "x, partition_attrs",
        doc: "core.window_partition as roll (core.slice + onnx.Concat) + core.reshape [B*H/wh, wh, W/ww, ww*C] + \
              Transpose [0,2,1,3] + core.reshape [B*nW, N, C]",
        apply: lower_partition,
    },
    ApplierDef {
        name: "window_lower_merge",
        arity: 2..=2,
        signature: "x, merge_attrs",
        doc: "core.window_merge as core.reshape [B*H/wh, W/ww, wh, ww*C] + Transpose [0,2,1,3] + core.reshape \
              [B, H, W, C] + roll (core.slice + onnx.Concat)",
        apply: lower_merge,
    },
    ApplierDef {
        name: "window_lower_attention",
        arity: 6..=6,
        signature: "q, k, v, bias|none, mask|none, attrs",
        doc: "core.window_attention as core.linear(Q, K){trans_b} * scale, + bias, or reshaped to [B, nW*heads, N, N] \
              + one folded bias+mask constant, Softmax, MatMul(V); needs a constant mask",
        apply: lower_attention,
    },
    ApplierDef {
        name: "window_lower_qkv_split",
        arity: 4..=4,
        signature: "x, reshape_attrs, index, gather_attrs",
        doc: "Gather(Transpose(Reshape(x, [B, N, 3, h, d]), [2,0,3,1,4]), i) as Transpose(Reshape(core.slice(x) \
              of channels i*h*d.., [B, N, h, d]), [0,2,1,3])",
        apply: lower_qkv_split,
    },
];

/// Conditions only this family uses (none).
pub static CONDS: &[CondDef] = &[];

/// The attributes bound to argument `a`.
fn attrs_of(env: &ApplyEnv<'_>, a: &ArgVal, what: &str) -> Result<Attrs, String> {
    env.env().attrs(a).cloned().ok_or_else(|| format!("the {what} attributes are not bound"))
}

/// `core.slice` of `x` along `axis` over `start..end` (step 1).
fn slice(env: &mut ApplyEnv<'_>, x: Id, axis: usize, start: u64, end: u64) -> Result<Id, String> {
    let one = |v: u64| Attr::Ints(vec![v as i64]);
    let a = Attrs::new().with("axes", one(axis as u64)).with("starts", one(start)).with("ends", one(end));
    env.add_op(Opcode::CoreSlice, &[x], &a.with("steps", one(1)))
}

/// `torch.roll(x, -k)` along `axis` of size `n`: `Concat(x[k:], x[:k])` (`x` itself for `k = 0`).
fn roll_back(env: &mut ApplyEnv<'_>, x: Id, axis: usize, k: u64, n: u64) -> Result<Id, String> {
    if k == 0 {
        return Ok(x);
    }
    let parts = [slice(env, x, axis, k, n)?, slice(env, x, axis, 0, k)?];
    env.add_op(Opcode::Concat, &parts, &Attrs::new().with("axis", Attr::Int(axis as i64)))
}

/// `x` viewed as `dims` (a `core.reshape`).
fn reshape(env: &mut ApplyEnv<'_>, x: Id, dims: &[u64]) -> Result<Id, String> {
    env.add_op(Opcode::CoreReshape, &[x], &shape_attrs(dims))
}

/// `Transpose(x){perm = [0, 2, 1, 3]}`.
fn swap_middle(env: &mut ApplyEnv<'_>, x: Id) -> Result<Id, String> {
    env.add_op(Opcode::Transpose, &[x], &Attrs::new().with("perm", Attr::Ints(vec![0, 2, 1, 3])))
}

/// Static `[B, H, W, C]` of the image side and the windowing.
fn image(env: &ApplyEnv<'_>, c: Id, what: &str) -> Result<[u64; 4], String> {
    let d = static_dims(env, c, what)?;
    d[..].try_into().map_err(|_| format!("{what} {d:?} is not [B, H, W, C]"))
}

/// `core.reshape` dims that pair window rows with image rows: `[B·H/wh, wh or W/ww, ..]`.
fn strip_dims(g: &Windows, b: u64, c: u64, rows_first: bool) -> [u64; 4] {
    let (p, q) = (g.size[0] / g.window[0], g.size[1] / g.window[1]);
    let (wh, ww) = (g.window[0], g.window[1]);
    if rows_first {
        [b * p, wh, q, ww * c]
    } else {
        [b * p, q, wh, ww * c]
    }
}

fn lower_partition(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let [b, h, w, c] = image(env, x, "X")?;
    let g = windows(&attrs_of(env, &a[1], "window_partition")?, [h, w])?;
    let rolled = roll_back(env, x, 1, g.shift[0], h)?;
    let rolled = roll_back(env, rolled, 2, g.shift[1], w)?;
    let strips = reshape(env, rolled, &strip_dims(&g, b, c, true))?;
    let t = swap_middle(env, strips)?;
    add_checked(env, Opcode::CoreReshape, &[t], &shape_attrs(&[b * g.num_windows(), g.tokens(), c]))
}

fn lower_merge(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let attrs = attrs_of(env, &a[1], "window_merge")?;
    let [h, w] = merge_size(&attrs)?;
    let g = windows(&attrs, [h, w])?;
    let [b, _, _, c] = image(env, env.root, "the merged image")?;
    let strips = reshape(env, x, &strip_dims(&g, b, c, false))?;
    let t = swap_middle(env, strips)?;
    let img = reshape(env, t, &[b, h, w, c])?;
    // Rolling by +s is rolling back by n - s.
    let img = roll_back(env, img, 1, (h - g.shift[0]) % h, h)?;
    let img = roll_back(env, img, 2, (w - g.shift[1]) % w, w)?;
    let root_ty = env.eg[env.root].data.ty().cloned().ok_or("the window merge has no type")?;
    match env.eg[img].data.ty() {
        Some(t) if *t == root_ty => Ok(img),
        t => Err(format!("the lowered merge has type {t:?}, expected {root_ty}")),
    }
}

/// The constant tensor of class `c`, or why there is none.
fn constant(env: &ApplyEnv<'_>, c: Id, what: &str) -> Result<Tensor, String> {
    let k = konst(env, c).ok_or_else(|| format!("the {what} is not a constant"))?;
    Tensor::from_constant(&k)
}

/// `bias + mask` as the `[1, nW·heads, N, N]` constant added to scores viewed as
/// `[B, nW·heads, N, N]`: entry `w·heads + i` is `bias[i] + mask[w]`.
fn fold_bias_mask(bias: Option<Tensor>, mask: Tensor, heads: u64, n: u64) -> Result<Tensor, String> {
    let nw = mask.len() as u64 / (n * n);
    let dims = |d: &[u64]| Tensor::from_i64s(d.iter().map(|&v| v as i64).collect());
    let m5 = eval1(Opcode::Reshape, vec![mask, dims(&[1, nw, 1, n, n])], Attrs::new())?;
    let sum = match bias {
        Some(b) => {
            let b4 = eval1(Opcode::Expand, vec![b, dims(&[1, heads, n, n])], Attrs::new())?;
            let b5 = eval1(Opcode::Reshape, vec![b4, dims(&[1, 1, heads, n, n])], Attrs::new())?;
            eval1(Opcode::Add, vec![b5, m5], Attrs::new())?
        }
        None => eval1(Opcode::Expand, vec![m5, dims(&[1, nw, heads, n, n])], Attrs::new())?,
    };
    eval1(Opcode::Reshape, vec![sum, dims(&[1, nw * heads, n, n])], Attrs::new())
}

fn lower_attention(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let (q, k, v) = (env.class(&a[0])?, env.class(&a[1])?, env.class(&a[2])?);
    let (b, m) = (env.class(&a[3])?, env.class(&a[4])?);
    let attrs = attrs_of(env, &a[5], "window_attention")?;
    let scale = attrs.float("scale").ok_or("no scale")?;
    let nw = num_windows(&attrs)?;
    let qd = static_dims(env, q, "Q")?;
    let &[bw, heads, n, _] = &qd[..] else { return Err(format!("Q {qd:?} is not [B*nW, heads, N, D]")) };
    if bw * heads * n == 0 {
        return Err(format!("Q {qd:?} has no scores to lower"));
    }
    let dtype = env.eg[q].data.ty().map(|t| t.dtype).ok_or("Q has no type")?;
    let bias_const = if env.absent(b) { None } else { konst(env, b).map(|_| constant(env, b, "bias")).transpose()? };
    let folded = if env.absent(m) {
        None
    } else {
        let mask = constant(env, m, "window mask")
            .map_err(|e| format!("{e} (the lowering folds bias + mask into one constant)"))?;
        let f = fold_bias_mask(bias_const.clone(), mask, heads, n)?;
        Some(tensor_to_const(&f).ok_or("cannot store the bias + mask constant")?)
    };
    let s = env.add_op(Opcode::CoreLinear, &[q, k], &Attrs::new().with("trans_b", Attr::Int(1)))?;
    let sc = eval1(Opcode::Cast, vec![Tensor::scalar_f32(scale)], Attrs::new().with("to", Attr::Type(dtype)))?;
    let sc = env.add_const(tensor_to_const(&sc).ok_or("cannot store the scale")?);
    let mut s = env.add_op(Opcode::Mul, &[s, sc], &Attrs::new())?;
    // A bias not folded with the mask (no mask, or not constant) is added on its own.
    if !env.absent(b) && (bias_const.is_none() || folded.is_none()) {
        s = env.add_op(Opcode::Add, &[s, b], &Attrs::new())?;
    }
    if let Some(f) = folded {
        let f = env.add_const(f);
        let s4 = reshape(env, s, &[bw / nw, nw * heads, n, n])?;
        let s4 = env.add_op(Opcode::Add, &[s4, f], &Attrs::new())?;
        s = reshape(env, s4, &[bw, heads, n, n])?;
    }
    let p = env.add_op(Opcode::Softmax, &[s], &Attrs::new().with("axis", Attr::Int(-1)))?;
    add_checked(env, Opcode::MatMul, &[p, v], &Attrs::new())
}

fn lower_qkv_split(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let xd = static_dims(env, x, "x")?;
    let &[b, n, packed] = &xd[..] else { return Err(format!("x {xd:?} is not [B, N, 3*heads*D]")) };
    let r = attrs_of(env, &a[1], "reshape")?;
    let (bb, nn, parts, h, d) = match r.ints("shape") {
        Some(&[bb, nn, parts, h, d]) if [bb, nn, parts, h, d].iter().all(|&v| v > 0) => {
            (bb as u64, nn as u64, parts as u64, h as u64, d as u64)
        }
        other => return Err(format!("the reshape {other:?} is not a static [B, N, parts, heads, D]")),
    };
    if [bb, nn] != [b, n] || parts * h * d != packed {
        return Err(format!("the reshape [{bb}, {nn}, {parts}, {h}, {d}] does not split x {xd:?}'s channels"));
    }
    let axis = attrs_of(env, &a[3], "Gather")?.int("axis").unwrap_or(0);
    if axis != 0 && axis != -5 {
        return Err(format!("the Gather on axis {axis} does not pick one of the {parts} parts"));
    }
    let i = env.class(&a[2])?;
    let scalar = env.eg[i].data.ty().is_some_and(|t| t.rank() == Some(0));
    let idx = konst(env, i).and_then(|k| k.to_i64s()).ok_or("the index is not an integer constant")?;
    let (true, &[i]) = (scalar, &idx[..]) else { return Err(format!("the index {idx:?} is not a scalar")) };
    let i = if i < 0 { i + parts as i64 } else { i };
    if !(0..parts as i64).contains(&i) {
        return Err(format!("the index {i} is out of range for {parts} parts"));
    }
    let (lo, hi) = (i as u64 * h * d, (i as u64 + 1) * h * d);
    let part = slice(env, x, 2, lo, hi)?;
    let heads = reshape(env, part, &[b, n, h, d])?;
    add_checked(env, Opcode::Transpose, &[heads], &Attrs::new().with("perm", Attr::Ints(vec![0, 2, 1, 3])))
}

/// The window ops the explicit pass lowers.
const LOWERED: [Opcode; 3] = [Opcode::CoreWindowPartition, Opcode::CoreWindowMerge, Opcode::CoreWindowAttention];

/// Extra cost of a window op under the explicit pass's target view: far above
/// any lowered form, so extraction prefers one wherever it exists.
pub const WINDOW_PENALTY: f64 = 1e9;

fn lowered(node: &ENode) -> bool {
    matches!(node, ENode::Op { op, .. } if LOWERED.contains(op))
}

/// The target view of the explicit `window-lower` pass: the pipeline's target
/// (or op counting without one), except that the window ops are unsupported
/// and cost [`WINDOW_PENALTY`] more.
struct ForceWindowLower {
    inner: Option<Arc<dyn TargetInfo>>,
    name: String,
}

impl TargetInfo for ForceWindowLower {
    fn name(&self) -> &str {
        &self.name
    }
    fn supports(&self, eg: &EG, class: Id, node: &ENode) -> Result<(), String> {
        if lowered(node) {
            return Err("the window-lower pass lowers the window ops to rank-4 reshapes and matmuls".into());
        }
        self.inner.as_ref().map_or(Ok(()), |t| t.supports(eg, class, node))
    }
    fn cost(&self, eg: &EG, class: Id, node: &ENode) -> f64 {
        let base = match &self.inner {
            Some(t) => t.cost(eg, class, node),
            None => OpCount.node_cost(eg, class, node),
        };
        base + if lowered(node) { WINDOW_PENALTY } else { 0.0 }
    }
    fn onchip_bytes(&self) -> Option<u64> {
        self.inner.as_ref().and_then(|t| t.onchip_bytes())
    }
}

/// `target` wrapped so that the window ops are unsupported (see [`ForceWindowLower`]).
pub fn window_lower_target(target: Option<Arc<dyn TargetInfo>>) -> Arc<dyn TargetInfo> {
    let name = target.as_ref().map_or_else(|| "window-lower".to_owned(), |t| format!("{} (window-lower)", t.name()));
    Arc::new(ForceWindowLower { inner: target, name })
}

#[cfg(test)]
mod tests {
    use super::fold_bias_mask;
    use ir::interp::{Data, Tensor};

    #[test]
    fn folded_constant_interleaves_windows_and_heads() {
        // 2 heads, 2 windows, N = 1: entry w*heads + i = bias[i] + mask[w].
        let bias = Tensor::new(vec![2, 1, 1], Data::F32(vec![1.0, 2.0]));
        let mask = Tensor::new(vec![2, 1, 1], Data::F32(vec![10.0, 20.0]));
        let f = fold_bias_mask(Some(bias), mask.clone(), 2, 1).unwrap();
        assert_eq!(f.shape, vec![1, 4, 1, 1]);
        assert_eq!(f.data, Data::F32(vec![11.0, 12.0, 21.0, 22.0]));
        let m = fold_bias_mask(None, mask, 2, 1).unwrap();
        assert_eq!(m.data, Data::F32(vec![10.0, 10.0, 20.0, 20.0]));
    }
}
