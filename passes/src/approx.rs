//! Opt-in approximations. Each one is applied only when asked for, records
//! itself in the module attribute `approximations` (a string list `edgec
//! verify` prints), keeps the exact function as `@main.reference` (unless
//! bucketing already did) so the deviation can be measured on any inputs, and
//! is reported by `--explain` and on stderr. Nothing here runs by default.
//!
//! `attention-window` (`--attention-window W`): every self-attention
//! (`core.attention` / `core.attention_blocked` with as many queries as keys)
//! gets `window = W`: query `i` attends only to keys `j` with `|i - j| <= W`
//! (a symmetric sliding window, Longformer-style local attention; with
//! `causal` it becomes `i - W <= j <= i`, Mistral-style). The blocked form then
//! skips every tile outside the band, so scores cost about `S · (2W + block)`
//! instead of `S²`.

use crate::bucket::{reference_name, REFERENCE_SUFFIX};
use ir::{Attr, Dim, Function, Module, Opcode};

/// The module attribute listing the approximations applied.
pub const APPROXIMATIONS: &str = "approximations";

/// Record `what` in the module's `approximations` attribute.
pub fn record(m: &mut Module, what: String) {
    let mut list = match m.attrs.get(APPROXIMATIONS) {
        Some(Attr::Strs(v)) => v.clone(),
        _ => Vec::new(),
    };
    list.push(what);
    m.attrs.set(APPROXIMATIONS, Attr::Strs(list));
}

/// Keep a copy of `@main` as `@main.reference` unless one exists.
pub fn keep_reference(m: &mut Module) {
    let name = reference_name("main");
    if m.func(&name).is_some() {
        return;
    }
    if let Some(main) = m.func("main") {
        let mut r = main.clone();
        r.name = name;
        m.funcs.push(r);
    }
}

/// What [`window_attention`] changed.
#[derive(Debug, Default)]
pub struct WindowReport {
    /// Attention ops that got the window.
    pub windowed: usize,
    /// Attention ops left exact, with why.
    pub skipped: Vec<String>,
    /// Windowed ops whose query and key lengths could not be compared statically.
    pub assumed: Vec<String>,
}

/// Apply `window = w` to every self-attention of every non-reference function.
pub fn window_attention(m: &mut Module, w: u64) -> WindowReport {
    let mut rep = WindowReport::default();
    let targets: Vec<usize> = (0..m.funcs.len()).filter(|&i| !m.funcs[i].name.ends_with(REFERENCE_SUFFIX)).collect();
    let any = targets.iter().any(|&i| !attention_ops(&m.funcs[i]).is_empty());
    if any {
        keep_reference(m);
    }
    for fi in targets {
        let f = &mut m.funcs[fi];
        for id in attention_ops(f) {
            let op = &f.ops[id];
            let rows =
                |i: usize| op.operand(i).and_then(|v| f.ty(v).dims().and_then(|d| d.iter().rev().nth(1).copied()));
            let (sq, sk) = (rows(0), rows(1));
            let what = format!("{} [{}] in @{}", op.opcode.name(), op.loc, f.name);
            match (sq, sk) {
                (Some(Dim::Static(a)), Some(Dim::Static(b))) if a != b => {
                    rep.skipped.push(format!("{what}: cross-attention ({a} queries, {b} keys); left exact"));
                    continue;
                }
                (Some(a), Some(b)) if a == b && a != Dim::Unknown => {}
                _ => rep
                    .assumed
                    .push(format!("{what}: query/key lengths not known statically; windowed as self-attention")),
            }
            let w = op.attrs.int("window").map_or(w as i64, |old| old.min(w as i64));
            f.ops[id].attrs.set("window", Attr::Int(w));
            rep.windowed += 1;
        }
    }
    if rep.windowed > 0 {
        record(
            m,
            format!(
                "attention-window {w}: {} attention op(s) see only keys |i - j| <= {w} (sliding window)",
                rep.windowed
            ),
        );
    }
    rep
}

fn attention_ops(f: &Function) -> Vec<ir::OpId> {
    f.live_ops()
        .into_iter()
        .filter(|&id| matches!(f.ops[id].opcode, Opcode::CoreAttention | Opcode::CoreAttentionBlocked))
        .collect()
}

/// The `attention-window` pass (see the module docs).
pub struct AttentionWindow {
    window: Option<u64>,
}

impl AttentionWindow {
    /// The pass for the pipeline options' window (`PipelineOptions::attention_window`).
    pub fn new(window: Option<u64>) -> Self {
        AttentionWindow { window }
    }
}

impl crate::Pass for AttentionWindow {
    fn name(&self) -> &'static str {
        "attention-window"
    }
    fn run(&self, m: &mut Module, cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let why = "the attention-window pass needs a window (edgec opt --attention-window W)";
        let w = self.window.ok_or_else(|| self.fail(why.into()))?;
        let rep = window_attention(m, w);
        let mut text = if rep.windowed == 0 {
            format!("APPROXIMATION attention-window {w}: no self-attention found; nothing changed\n")
        } else {
            format!(
                "APPROXIMATION attention-window {w}: {} attention op(s) restricted to keys |i - j| <= {w}; \
                 @main.reference keeps the exact function, `edgec verify` reports the deviation\n",
                rep.windowed
            )
        };
        for s in rep.skipped.iter().chain(&rep.assumed) {
            text += &format!("  {s}\n");
        }
        cx.text("attention-window", text);
        Ok(crate::PassResult::changed(rep.windowed > 0))
    }
}
