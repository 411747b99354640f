//! Shape/type inference of the recurrent layers: RNN, GRU and LSTM, and
//! their shared attribute schema.

use super::{a, dim_div, expect_dtype, same_type, shape, AttrSpec, InferCtx, InferResult};
use crate::attr::AttrKind::{self, *};
use crate::types::{DType, Dim, TensorType};

/// The `direction` attribute of the recurrent ops.
pub const RNN_DIRECTION: AttrKind = Enum(&["forward", "reverse", "bidirectional"]);

/// The attributes of RNN (GRU and LSTM add one each).
pub const RNN_ATTRS: &[AttrSpec] = &[
    a("activation_alpha", Floats),
    a("activation_beta", Floats),
    a("activations", Strs),
    a("clip", Float),
    a("direction", RNN_DIRECTION),
    a("hidden_size", Int),
    a("layout", Int),
];

/// The dims of `t` (or `rank` unknown dims), erroring on another rank.
fn dims_of(t: &TensorType, rank: usize, what: &str) -> Result<Vec<Dim>, String> {
    match t.dims() {
        None => Ok(vec![Dim::Unknown; rank]),
        Some(d) if d.len() == rank => Ok(d.to_vec()),
        Some(_) => Err(format!("{what} {t} must have rank {rank}")),
    }
}

/// Prefer the static of two dims.
fn pick(a: Dim, b: Dim) -> Dim {
    if a == Dim::Unknown {
        b
    } else {
        a
    }
}

/// Shared inference of RNN/GRU/LSTM with `gates` gates: Y `[seq, dirs, batch, hidden]`,
/// Y_h (and LSTM's Y_c) `[dirs, batch, hidden]`; with `layout = 1` the batch axis comes
/// first (`[batch, seq, dirs, hidden]`, `[batch, dirs, hidden]`).
fn recurrent(ctx: &InferCtx<'_>, gates: u64) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "X", DType::is_float, "a float type")?;
    for (i, name) in [(1, "W"), (2, "R"), (3, "B"), (5, "initial_h"), (6, "initial_c"), (7, "P")] {
        if let Some(t) = ctx.opt_input(i) {
            same_type(t, name, x.dtype)?;
        }
    }
    if let Some(l) = ctx.opt_input(4) {
        same_type(l, "sequence_lens", DType::I32)?;
    }
    let dirs = match ctx.str("direction", "forward") {
        "forward" | "reverse" => 1,
        "bidirectional" => 2,
        d => return Err(format!("attribute `direction` has invalid value {d:?}")),
    };
    let layout1 = ctx.int("layout", 0) != 0;
    let xd = dims_of(x, 3, "X")?;
    let (seq, batch) = if layout1 { (xd[1], xd[0]) } else { (xd[0], xd[1]) };
    let (wd, rd) = (dims_of(ctx.input(1)?, 3, "W")?, dims_of(ctx.input(2)?, 3, "R")?);
    let mut hidden = pick(rd[2], dim_div(pick(rd[1], wd[1]), gates, "W/R gate rows").unwrap_or(Dim::Unknown));
    if let Some(h) = ctx.attrs.int("hidden_size") {
        let h = u64::try_from(h).map_err(|_| format!("attribute `hidden_size` = {h} is negative"))?;
        if hidden.as_static().is_some_and(|k| k != h) {
            return Err(format!("attribute `hidden_size` = {h} disagrees with R {}", ctx.input(2)?));
        }
        hidden = Dim::Static(h);
    }
    for (d, what) in [(wd[0], "W"), (rd[0], "R")] {
        if d.as_static().is_some_and(|k| k != dirs) {
            return Err(format!("{what} has {d} directions, attribute `direction` implies {dirs}"));
        }
    }
    if rd[1].as_static().zip(hidden.as_static()).is_some_and(|(r, h)| r != gates * h) {
        return Err(format!("R {} must have {gates} x hidden rows", ctx.input(2)?));
    }
    let dirs = Dim::Static(dirs);
    let y = if layout1 { [batch, seq, dirs, hidden] } else { [seq, dirs, batch, hidden] };
    let state = if layout1 { [batch, dirs, hidden] } else { [dirs, batch, hidden] };
    let mut out = vec![TensorType::new(x.dtype, shape(y))];
    while out.len() < ctx.num_results.max(1) {
        out.push(TensorType::new(x.dtype, shape(state)));
    }
    Ok(out)
}

/// RNN: see [`recurrent`] (one gate).
pub fn rnn(ctx: &InferCtx<'_>) -> InferResult {
    recurrent(ctx, 1)
}

/// GRU: see [`recurrent`] (three gates).
pub fn gru(ctx: &InferCtx<'_>) -> InferResult {
    recurrent(ctx, 3)
}

/// LSTM: see [`recurrent`] (four gates).
pub fn lstm(ctx: &InferCtx<'_>) -> InferResult {
    recurrent(ctx, 4)
}
