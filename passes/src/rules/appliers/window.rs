//! Appliers of the `window` rule family (`passes/rules/window.rules`): Swin
//! window partition/merge chains, the cyclic shifts around them and window
//! attention recognized as `core.window_partition`, `core.window_merge` and
//! `core.window_attention` (see `ir::ops::attention::window` for their semantics).
//!
//! Invariant of every applier: it returns a node that computes exactly what
//! the matched chain computes, and only after checking every static shape the
//! identity depends on (the 6-D reshape splits `H` and `W` into windows, the
//! 5-D reshape splits the window batch into images × `nW`, the slices of a
//! roll meet at one offset); anything it cannot check declines with the
//! reason, which `edgec opt --explain` prints. Layout rewrites are exact; the
//! attention forms differ from their chains only in rounding (the `q * scale`
//! form scales the scores instead of Q).

use super::recognition::{add_checked, scale_of, untranspose};
use super::ApplierDef;
use crate::rules::args::ArgVal;
use crate::rules::conds::CondDef;
use crate::rules::env::ApplyEnv;
use egg::Id;
use ir::ops::attention::window::{windows, Windows};
use ir::{Attr, Attrs, Opcode};

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[
    ApplierDef {
        name: "window_partition",
        arity: 3..=3,
        signature: "x, reshape6_attrs, reshape_attrs",
        doc: "Reshape(x [B, H, W, C], [B, H/wh, wh, W/ww, ww, C]) → Transpose [0,1,3,2,4,5] → Reshape [B*nW, N, C] \
              (or [B*nW, wh, ww, C]) as core.window_partition{window}",
        apply: partition,
    },
    ApplierDef {
        name: "window_merge",
        arity: 3..=3,
        signature: "x, reshape6_attrs, reshape_attrs",
        doc: "Reshape(x [B*nW, N, C] or [B*nW, wh, ww, C], [B, H/wh, W/ww, wh, ww, C]) → Transpose [0,1,3,2,4,5] → \
              Reshape [B, H, W, C] as core.window_merge{window, size}",
        apply: merge,
    },
    ApplierDef {
        name: "window_partition_roll",
        arity: 5..=5,
        signature: "y, slice1_attrs, slice2_attrs, concat_attrs, partition_attrs",
        doc: "core.window_partition of Concat(y[k:], y[:k]) on axis 1 or 2 (torch.roll(y, -k)) as \
              core.window_partition(y) with that axis' shift increased by k (mod the size)",
        apply: partition_roll,
    },
    ApplierDef {
        name: "window_merge_roll",
        arity: 5..=5,
        signature: "x, merge_attrs, slice1_attrs, slice2_attrs, concat_attrs",
        doc: "Concat(m[k:], m[:k]) on axis 1 or 2 of m = core.window_merge(x) (torch.roll(m, -k)) as \
              core.window_merge(x) with that axis' shift decreased by k (mod the size)",
        apply: merge_roll,
    },
    ApplierDef {
        name: "window_attention_bias",
        arity: 5..=5,
        signature: "q, k, v, bias, attention_attrs",
        doc: "core.attention(Q, K, V, bias) of [B*nW, heads, N, D] windows with a per-head bias [heads, N, N] or \
              [1, heads, N, N] (relative position bias) as core.window_attention{num_windows = 1}",
        apply: attention_bias,
    },
    ApplierDef {
        name: "window_attention",
        arity: 8..=10,
        signature: "q, kt, v, bias|none, mask, reshape5_attrs, reshape4_attrs, softmax_attrs, (mul|div, factor)*",
        doc: "softmax(Reshape(Reshape(scores + bias, [B, nW, heads, N, N]) + mask[1, nW, 1, N, N], [B*nW, heads, N, \
              N])) @ V as core.window_attention(Q, K, V, bias, mask[nW, N, N]){num_windows = nW, scale}",
        apply: attention_masked,
    },
];

/// Conditions only this family uses (none: the rules use the shared ones).
pub static CONDS: &[CondDef] = &[];

/// The static dims of class `c`.
pub(crate) fn static_dims(env: &ApplyEnv<'_>, c: Id, what: &str) -> Result<Vec<u64>, String> {
    let t = env.eg[c].data.ty().ok_or_else(|| format!("{what} has no type"))?;
    t.shape.static_dims().ok_or_else(|| format!("{what} {t} is not static"))
}

/// The attributes bound to argument `a`.
fn attrs_of(env: &ApplyEnv<'_>, a: &ArgVal, what: &str) -> Result<Attrs, String> {
    env.env().attrs(a).cloned().ok_or_else(|| format!("the {what} attributes are not bound"))
}

/// The `shape` of a bound `core.reshape` with its `-1` resolved for `total` elements.
fn reshape_dims(env: &ApplyEnv<'_>, a: &ArgVal, total: u64) -> Result<Vec<u64>, String> {
    let attrs = attrs_of(env, a, "reshape")?;
    let s = attrs.ints("shape").ok_or("the reshape has no `shape`")?;
    let known: u64 = s.iter().filter(|&&d| d >= 0).map(|&d| d as u64).product();
    s.iter()
        .map(|&d| match d {
            -1 if known > 0 && total.is_multiple_of(known) => Ok(total / known),
            d if d >= 0 => Ok(d as u64),
            _ => Err(format!("reshape {s:?} of {total} elements cannot be resolved")),
        })
        .collect()
}

/// The attributes of a windowing: `window`, and `shift` only if non-zero.
pub(crate) fn window_attrs(g: &Windows) -> Attrs {
    let mut a = Attrs::new().with("window", Attr::Ints(g.window.iter().map(|&v| v as i64).collect()));
    if !g.unshifted() {
        a = a.with("shift", Attr::Ints(g.shift.iter().map(|&v| v as i64).collect()));
    }
    a
}

/// The windowing that a 6-D reshape `[B, P, p, Q, q, C]` of `[B, P·p, Q·q, C]`
/// describes; declines for an empty image (no windows to count).
fn geometry(outer: [u64; 2], inner: [u64; 2]) -> Result<Windows, String> {
    if outer.contains(&0) || inner.contains(&0) {
        return Err(format!("an empty image ({outer:?} windows of {inner:?}) has no windows"));
    }
    let size = [outer[0] * inner[0], outer[1] * inner[1]];
    Ok(Windows { size, window: inner, shift: [0, 0] })
}

fn partition(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let xd = static_dims(env, x, "x")?;
    let &[b, h, w, c] = &xd[..] else { return Err(format!("x {xd:?} is not [B, H, W, C]")) };
    let total = xd.iter().product();
    let r6 = reshape_dims(env, &a[1], total)?;
    let &[b6, nh, wh, nw, ww, c6] = &r6[..] else { return Err(format!("the reshape {r6:?} is not 6-D")) };
    if b6 != b || c6 != c || nh * wh != h || nw * ww != w {
        return Err(format!("the reshape {r6:?} of {xd:?} is not [B, H/wh, wh, W/ww, ww, C]"));
    }
    let g = geometry([nh, nw], [wh, ww])?;
    let out = reshape_dims(env, &a[2], total)?;
    let (bw, n) = (b * g.num_windows(), g.tokens());
    if out == [bw, n, c] {
        return add_checked(env, Opcode::CoreWindowPartition, &[x], &window_attrs(&g));
    }
    if out != [bw, wh, ww, c] {
        return Err(format!("the result {out:?} is not the windows [{bw}, {n}, {c}] or [{bw}, {wh}, {ww}, {c}]"));
    }
    let wp = env.add_op(Opcode::CoreWindowPartition, &[x], &window_attrs(&g))?;
    add_checked(env, Opcode::CoreReshape, &[wp], &shape_attrs(&out))
}

/// `core.reshape` attributes for static dims.
pub(crate) fn shape_attrs(dims: &[u64]) -> Attrs {
    Attrs::new().with("shape", Attr::Ints(dims.iter().map(|&d| d as i64).collect()))
}

fn merge(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let xd = static_dims(env, x, "x")?;
    let total = xd.iter().product();
    let r6 = reshape_dims(env, &a[1], total)?;
    let &[b, nh, nw, wh, ww, c] = &r6[..] else { return Err(format!("the reshape {r6:?} is not 6-D")) };
    let g = geometry([nh, nw], [wh, ww])?;
    let (bw, n) = (b * g.num_windows(), g.tokens());
    let windows_in = match xd[..] {
        [d0, d1, d2] if [d0, d1, d2] == [bw, n, c] => x,
        [d0, d1, d2, d3] if [d0, d1, d2, d3] == [bw, wh, ww, c] => {
            env.add_op(Opcode::CoreReshape, &[x], &shape_attrs(&[bw, n, c]))?
        }
        _ => return Err(format!("x {xd:?} is not the windows [{bw}, {n}, {c}] or [{bw}, {wh}, {ww}, {c}]")),
    };
    let out = reshape_dims(env, &a[2], total)?;
    if out != [b, g.size[0], g.size[1], c] {
        return Err(format!("the result {out:?} is not the image [{b}, {}, {}, {c}]", g.size[0], g.size[1]));
    }
    let size = Attr::Ints(g.size.iter().map(|&v| v as i64).collect());
    add_checked(env, Opcode::CoreWindowMerge, &[windows_in], &window_attrs(&g).with("size", size))
}

/// A roll `Concat(y[k:], y[:k])` along one axis: `(axis, k, n)` with
/// `0 < k < n`, `n` the axis' size, `axis` 1 or 2 (rows or columns of `[B, H, W, C]`).
fn roll(env: &ApplyEnv<'_>, dims: &[u64], s1: &ArgVal, s2: &ArgVal, cat: &ArgVal) -> Result<(usize, u64, u64), String> {
    let axis = attrs_of(env, cat, "Concat")?.int("axis").ok_or("the Concat has no axis")?;
    let axis = if axis < 0 { axis + dims.len() as i64 } else { axis };
    if dims.len() != 4 || !(1..=2).contains(&axis) {
        return Err(format!("the Concat on axis {axis} of {dims:?} is not on the rows or columns of [B, H, W, C]"));
    }
    let n = dims[axis as usize] as i64;
    let one = |a: &ArgVal, what: &str| -> Result<[i64; 4], String> {
        let at = attrs_of(env, a, "Slice")?;
        let get = |k: &str| match at.ints(k) {
            Some(&[v]) => Ok(v),
            _ => Err(format!("the {what} slice is not a slice of one axis")),
        };
        Ok([get("axes")?, get("starts")?, get("ends")?, get("steps")?])
    };
    let ([a1, k, e1, st1], [a2, b2, k2, st2]) = (one(s1, "first")?, one(s2, "second")?);
    let is_roll = a1 == axis && a2 == axis && st1 == 1 && st2 == 1 && e1 == n && b2 == 0 && k2 == k;
    if !is_roll || k <= 0 || k >= n {
        return Err(format!(
            "Concat(y[{k}:{e1}], y[{b2}:{k2}]) on axis {axis} (size {n}) is not a roll y[k:] ++ y[:k] with 0 < k < {n}"
        ));
    }
    Ok((axis as usize, k as u64, n as u64))
}

fn partition_roll(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let y = env.class(&a[0])?;
    let yd = static_dims(env, y, "y")?;
    let (axis, k, n) = roll(env, &yd, &a[1], &a[2], &a[3])?;
    let mut g = windows(&attrs_of(env, &a[4], "window_partition")?, [yd[1], yd[2]])?;
    // partition(roll(y, -k)) with shift s reads y at (i + s + k) mod n.
    g.shift[axis - 1] = (g.shift[axis - 1] + k) % n;
    add_checked(env, Opcode::CoreWindowPartition, &[y], &window_attrs(&g))
}

fn merge_roll(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let x = env.class(&a[0])?;
    let mattrs = attrs_of(env, &a[1], "window_merge")?;
    let size = ir::ops::attention::window::merge_size(&mattrs)?;
    let mut g = windows(&mattrs, size)?;
    let root = static_dims(env, env.root, "the roll")?;
    let (axis, k, n) = roll(env, &root, &a[2], &a[3], &a[4])?;
    // roll(merge(x) rolled by +s, -k) = merge(x) rolled by s - k.
    g.shift[axis - 1] = (g.shift[axis - 1] + n - k) % n;
    let attrs = window_attrs(&g).with("size", Attr::Ints(size.iter().map(|&v| v as i64).collect()));
    add_checked(env, Opcode::CoreWindowMerge, &[x], &attrs)
}

/// The dims `[B·nW, heads, N, D]` of Q, with K of the same dims and V `[B·nW, heads, N, Dv]`.
fn qkv_dims(env: &ApplyEnv<'_>, q: Id, k: Id, v: Id) -> Result<[u64; 4], String> {
    let (qd, kd, vd) = (static_dims(env, q, "Q")?, static_dims(env, k, "K")?, static_dims(env, v, "V")?);
    let &[bw, h, n, d] = &qd[..] else { return Err(format!("Q {qd:?} is not [B*nW, heads, N, D]")) };
    if kd != qd || vd.len() != 4 || vd[..3] != qd[..3] {
        return Err(format!("Q {qd:?}, K {kd:?}, V {vd:?} are not windows of one [B*nW, heads, N, D] layout"));
    }
    Ok([bw, h, n, d])
}

/// `core.window_attention` attributes.
fn attention_attrs(scale: f64, nw: u64) -> Attrs {
    Attrs::new().with("scale", Attr::Float(scale as f32)).with("num_windows", Attr::Int(nw as i64))
}

fn attention_bias(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let (q, k, v, b) = (env.class(&a[0])?, env.class(&a[1])?, env.class(&a[2])?, env.class(&a[3])?);
    let attrs = attrs_of(env, &a[4], "attention")?;
    if attrs.int("causal").unwrap_or(0) != 0 {
        return Err("a causal attention is not a window attention".into());
    }
    let scale = attrs.float("scale").ok_or("the attention has no scale")?;
    let [_, h, n, _] = qkv_dims(env, q, k, v)?;
    let bd = static_dims(env, b, "the bias")?;
    if bd != [h, n, n] && bd != [1, h, n, n] {
        return Err(format!("the mask {bd:?} is not a per-head window bias [{h}, {n}, {n}] or [1, {h}, {n}, {n}]"));
    }
    add_checked(env, Opcode::CoreWindowAttention, &[q, k, v, b], &attention_attrs(scale as f64, 1))
}

fn attention_masked(env: &mut ApplyEnv<'_>, a: &[ArgVal]) -> Result<Id, String> {
    let (q, kt, v) = (env.class(&a[0])?, env.class(&a[1])?, env.class(&a[2])?);
    let axis = attrs_of(env, &a[7], "Softmax")?.int("axis").unwrap_or(-1);
    if axis != -1 && axis != 3 {
        return Err(format!("Softmax axis {axis} is not the last axis of the scores"));
    }
    let scale = scale_of(env, &a[8..])?;
    let k = untranspose(env, kt)?;
    let [bw, h, n, _] = qkv_dims(env, q, k, v)?;
    let r5 = reshape_dims(env, &a[5], bw * h * n * n)?;
    let &[b, nw, h5, n1, n2] = &r5[..] else { return Err(format!("the scores reshape {r5:?} is not 5-D")) };
    if b * nw != bw || [h5, n1, n2] != [h, n, n] {
        return Err(format!("the scores reshape {r5:?} is not [B, nW, {h}, {n}, {n}] with B*nW = {bw}"));
    }
    let r4 = reshape_dims(env, &a[6], bw * h * n * n)?;
    if r4 != [bw, h, n, n] {
        return Err(format!("the reshape back {r4:?} is not [{bw}, {h}, {n}, {n}]"));
    }
    let m = env.class(&a[4])?;
    let md = static_dims(env, m, "the mask")?;
    let padded: Vec<u64> = std::iter::repeat_n(1, 5usize.saturating_sub(md.len())).chain(md.iter().copied()).collect();
    if padded != [1, nw, 1, n, n] {
        return Err(format!("the mask {md:?} is not a window mask [1, {nw}, 1, {n}, {n}]"));
    }
    let mask = env.add_op(Opcode::CoreReshape, &[m], &shape_attrs(&[nw, n, n]))?;
    let bias = match &a[3] {
        ArgVal::Word(w) if w == "none" => env.none(),
        x => env.class(x)?,
    };
    add_checked(env, Opcode::CoreWindowAttention, &[q, k, v, bias, mask], &attention_attrs(scale, nw))
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleSet;

    #[test]
    fn window_rules_load() {
        let rs = RuleSet::builtin().unwrap_or_else(|e| panic!("{e}"));
        assert!(rs.only_topics(&["window"]).rules.len() >= 9);
    }
}
