//! Appliers of the `attention` rule family (`passes/rules/attention.rules`):
//! `core.attention` as `core.attention_blocked`, the exact FlashAttention-style
//! form that keeps at most `block_q × block_k` scores live instead of the
//! whole `B·H·Sq·Sk` score tensor.
//!
//! Block sizes are chosen so one tile (scores `block_q·block_k`, the Q tile
//! `block_q·D`, the K and V tiles `block_k·(D + Dv)` and the accumulator
//! `block_q·Dv`, 4 bytes each) fits the target's on-chip memory
//! ([`TargetInfo::onchip_bytes`], else [`DEFAULT_ONCHIP_BYTES`]). Peak score
//! memory goes from `B·H·Sq·Sk·4` bytes to `block_q·block_k·4` bytes.
//!
//! The rule fires where [`attention_needs_blocking`] holds: the scores do not
//! fit on chip, or the target rejects `core.attention` (the explicit
//! `attention-blocked` pass, whose target view [`blocked_target`] rejects and
//! prices out `core.attention`, so it fires on every attention it can block).

use super::ApplierDef;
use crate::egraph::analysis::EG;
use crate::egraph::extract::{CostModel, OpCount};
use crate::egraph::lang::ENode;
use crate::egraph::TargetInfo;
use crate::rules::args::ArgVal;
use crate::rules::conds::CondDef;
use crate::rules::env::{ApplyEnv, Env};
use egg::Id;
use ir::{Attr, Opcode, TensorType};
use std::sync::Arc;

/// The appliers of this family.
pub static APPLIERS: &[ApplierDef] = &[ApplierDef {
    name: "attention_blocked",
    arity: 5..=5,
    signature: "Q, K, V, mask, attrs",
    doc: "core.attention as core.attention_blocked with block sizes whose tile (scores + Q/K/V tiles + \
          accumulator, 4 bytes each) fits on chip: peak score memory B*H*Sq*Sk*4 -> block_q*block_k*4 bytes; \
          needs static Sq, Sk, D, Dv",
    apply: attention_blocked,
}];

/// Conditions only this family uses.
pub static CONDS: &[CondDef] = &[CondDef {
    name: "attention_needs_blocking",
    arity: 2..=2,
    signature: "(root, k)",
    doc: "the target rejects the root core.attention, or its scores (B*H*Sq*Sk*4 bytes, from the \
          root's and K's static types) exceed the target's onchip_bytes",
    check: attention_needs_blocking,
}];

/// On-chip budget used when the target does not declare one (explicit pass).
pub const DEFAULT_ONCHIP_BYTES: u64 = 256 * 1024;

/// Bytes per element assumed for scores and tiles.
const ELEM_BYTES: u64 = 4;

/// Extra cost of `core.attention` under the explicit pass's target view.
pub const ATTENTION_PENALTY: f64 = 1e9;

/// Static dims of a type, if every dim is static.
fn static_dims(t: Option<&TensorType>) -> Option<Vec<u64>> {
    t?.dims()?.iter().map(|d| d.as_static()).collect()
}

/// Bytes of the full score tensor: `prod(root dims but the last) · Sk · 4`.
fn score_bytes(root: Option<&TensorType>, k: Option<&TensorType>) -> Option<u64> {
    let (y, k) = (static_dims(root)?, static_dims(k)?);
    let rows = y[..y.len().checked_sub(1)?].iter().try_fold(1u64, |p, &d| p.checked_mul(d))?;
    let sk = *k.get(k.len().checked_sub(2)?)?;
    rows.checked_mul(sk)?.checked_mul(ELEM_BYTES)
}

fn attention_needs_blocking(e: &Env<'_>, a: &[ArgVal]) -> bool {
    let (Some(t), Some(c)) = (e.target, e.class(&a[0])) else { return false };
    let rejected = e.eg[c]
        .nodes
        .iter()
        .any(|n| matches!(n, ENode::Op { op: Opcode::CoreAttention, .. }) && t.supports(e.eg, c, n).is_err());
    let too_big = match (t.onchip_bytes(), score_bytes(e.ty(&a[0]), e.ty(&a[1]))) {
        (Some(cap), Some(bytes)) => bytes > cap,
        _ => false,
    };
    rejected || too_big
}

/// Bytes one tile needs (see the module docs).
pub fn tile_bytes(bq: u64, bk: u64, d: u64, dv: u64) -> u64 {
    ELEM_BYTES * (bq * bk + bq * d + bk * (d + dv) + bq * dv)
}

/// Candidate block sizes for a sequence of `n`: powers of two below `n`, and `n`.
fn candidates(n: u64) -> impl Iterator<Item = u64> {
    (0..63).map(|i| 1u64 << i).take_while(move |&b| b < n).chain(std::iter::once(n))
}

/// The `(block_q, block_k)` with the largest tile area that fits `budget`
/// (ties: the larger `block_k`), or `None` if not even 1×1 fits.
pub fn choose_blocks(sq: u64, sk: u64, d: u64, dv: u64, budget: u64) -> Option<(u64, u64)> {
    let mut best: Option<(u64, u64)> = None;
    for bq in candidates(sq.max(1)) {
        for bk in candidates(sk.max(1)) {
            let better = best.is_none_or(|(q, k)| bq * bk > q * k || (bq * bk == q * k && bk > k));
            if better && tile_bytes(bq, bk, d, dv) <= budget {
                best = Some((bq, bk));
            }
        }
    }
    best
}

/// `@attention_blocked(?q, ?k, ?v, ?m, ?a)`.
fn attention_blocked(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let attrs = a.env().attrs(&args[4]).cloned().ok_or("attention attributes are not bound")?;
    let (q, k, v, m) = (a.class(&args[0])?, a.class(&args[1])?, a.class(&args[2])?, a.class(&args[3])?);
    let dims = |c: Id, what: &str| -> Result<Vec<u64>, String> {
        let t = a.eg[c].data.ty().ok_or_else(|| format!("{what} has no type"))?;
        let d = t.dims().ok_or_else(|| format!("{what} has unknown rank"))?;
        let n = d.len();
        if n < 2 {
            return Err(format!("{what} has rank {n} < 2"));
        }
        d[n - 2..]
            .iter()
            .map(|x| x.as_static().ok_or_else(|| format!("{what} {t}: Sq/Sk/D/Dv must be static")))
            .collect()
    };
    let (qd, kd, vd) = (dims(q, "Q")?, dims(k, "K")?, dims(v, "V")?);
    let (sq, d, sk, dv) = (qd[0], qd[1], kd[0], vd[1]);
    let budget = a.target.and_then(|t| t.onchip_bytes()).unwrap_or(DEFAULT_ONCHIP_BYTES);
    let (bq, bk) = choose_blocks(sq, sk, d, dv, budget).ok_or_else(|| {
        format!("not even a 1x1 tile ({} bytes with D={d}, Dv={dv}) fits {budget} bytes", tile_bytes(1, 1, d, dv))
    })?;
    let to_i = |x: u64| i64::try_from(x).map_err(|_| format!("block size {x} is out of range"));
    let battrs = attrs.with("block_q", Attr::Int(to_i(bq)?)).with("block_k", Attr::Int(to_i(bk)?));
    let mut operands = vec![q, k, v];
    if !a.absent(m) {
        operands.push(m);
    }
    let id = a.add_op(Opcode::CoreAttentionBlocked, &operands, &battrs)?;
    if let Some(full) = score_bytes(a.eg[a.root].data.ty(), a.eg[k].data.ty()) {
        let ty = a.eg[a.root].data.ty().map(|t| t.to_string()).unwrap_or_default();
        a.note(format!(
            "attention {ty}: peak score memory {} -> {} ({bq}x{bk} tiles)",
            human_bytes(full),
            human_bytes(bq * bk * 4)
        ));
    }
    Ok(id)
}

/// `1536 B`, `12.0 KiB`, `3.5 MiB`.
fn human_bytes(b: u64) -> String {
    match b {
        0..1024 => format!("{b} B"),
        1024..1048576 => format!("{:.1} KiB", b as f64 / 1024.0),
        _ => format!("{:.1} MiB", b as f64 / 1048576.0),
    }
}

/// The target view of the explicit `attention-blocked` pass: the pipeline's
/// target (or op counting), except that `core.attention` is unsupported and
/// costs [`ATTENTION_PENALTY`] more, so every blockable attention is blocked.
struct ForceBlocked {
    inner: Option<Arc<dyn TargetInfo>>,
    name: String,
}

fn is_attention(node: &ENode) -> bool {
    matches!(node, ENode::Op { op: Opcode::CoreAttention, .. })
}

impl TargetInfo for ForceBlocked {
    fn name(&self) -> &str {
        &self.name
    }
    fn supports(&self, eg: &EG, class: Id, node: &ENode) -> Result<(), String> {
        if is_attention(node) {
            return Err("the attention-blocked pass lowers core.attention to core.attention_blocked".into());
        }
        self.inner.as_ref().map_or(Ok(()), |t| t.supports(eg, class, node))
    }
    fn cost(&self, eg: &EG, class: Id, node: &ENode) -> f64 {
        let base = match &self.inner {
            Some(t) => t.cost(eg, class, node),
            None => OpCount.node_cost(eg, class, node),
        };
        base + if is_attention(node) { ATTENTION_PENALTY } else { 0.0 }
    }
    fn onchip_bytes(&self) -> Option<u64> {
        self.inner.as_ref().and_then(|t| t.onchip_bytes())
    }
}

/// `target` wrapped so that `core.attention` is unsupported (see [`ForceBlocked`]).
pub fn blocked_target(target: Option<Arc<dyn TargetInfo>>) -> Arc<dyn TargetInfo> {
    let name =
        target.as_ref().map_or_else(|| "attention-blocked".to_owned(), |t| format!("{} (attention-blocked)", t.name()));
    Arc::new(ForceBlocked { inner: target, name })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_fit_the_budget() {
        // BERT-base head: Sq = Sk = 128, D = Dv = 64 in 64 KiB.
        let (bq, bk) = choose_blocks(128, 128, 64, 64, 64 * 1024).unwrap();
        assert!(tile_bytes(bq, bk, 64, 64) <= 64 * 1024);
        assert!(bq * bk >= 32 * 32, "{bq}x{bk}");
        // Everything fits: the whole matrix is one tile.
        assert_eq!(choose_blocks(5, 7, 2, 3, 1 << 20), Some((5, 7)));
        // Not even one row.
        assert_eq!(choose_blocks(5, 7, 1000, 1000, 100), None);
    }

    #[test]
    fn score_bytes_counts_all_rows() {
        let y = TensorType::fixed(ir::DType::F32, &[2, 12, 128, 64]);
        let k = TensorType::fixed(ir::DType::F32, &[2, 12, 128, 64]);
        assert_eq!(score_bytes(Some(&y), Some(&k)), Some(2 * 12 * 128 * 128 * 4));
    }
}
