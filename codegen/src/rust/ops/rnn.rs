//! Recurrent ops: `onnx.LSTM`, `onnx.GRU`, `onnx.RNN` (the `k::rnn`
//! kernels). The op's parameters (sizes, resolved activation lists, clip)
//! are one constant item; constant W and R are packed once at construction.
//!
//! One kernel call writes every output: Y straight into its buffer, Y_h and
//! Y_c into the head of the scratch, copied to their buffers by the blocks
//! after it (no other op runs in between, so the scratch still holds them).

use super::{f32_lit, Sz};
use crate::plan::Class;
use crate::rust::emit::OpCx;
use edgec_kernels::rnn::{resolve_activations, Activation, Gru, Lstm, Rnn};
use ir::{Attr, OpData, Opcode};

#[derive(Copy, Clone, PartialEq, Eq)]
enum Cell {
    Lstm,
    Gru,
    Rnn,
}

impl Cell {
    fn gates(self) -> usize {
        match self {
            Cell::Lstm => 4,
            Cell::Gru => 3,
            Cell::Rnn => 1,
        }
    }
    /// Kernel name in `k::rnn` (function, parameter type, packing constructor).
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Cell::Lstm => ("lstm", "Lstm"),
            Cell::Gru => ("gru", "Gru"),
            Cell::Rnn => ("rnn", "Rnn"),
        }
    }
}

/// Lower a recurrent op; `Ok(false)` if `op` is not one.
pub fn lower(cx: &mut OpCx<'_, '_>) -> Result<bool, String> {
    let cell = match cx.op.opcode {
        Opcode::LSTM => Cell::Lstm,
        Opcode::GRU => Cell::Gru,
        Opcode::RNN => Cell::Rnn,
        _ => return Ok(false),
    };
    super::f32_only(cx)?;
    let geo = geometry(cx, cell)?;
    let params = params(cx.op, cell, &geo)?;
    let (kfn, kty) = cell.names();
    let n_res = cx.op.results.len();
    if n_res == 0 {
        return Ok(true);
    }
    // Sized when the model runs, the parameters are a local of the block
    // writing Y; the weights are packed from a copy with sequence and batch 1.
    let out = cx.begin(0);
    let p = cx.item(&format!("k::rnn::{kty}"), params);
    let weights = if cx.is_static(1) && cx.is_static(2) {
        let packing = if cx.is_dynamic() {
            let pg = Geometry { shape: geo.shape_with(&Sz::Lit(1), &Sz::Lit(1)), ..geo.clone() };
            cx.item(&format!("k::rnn::{kty}"), self::params(cx.op, cell, &pg)?)
        } else {
            p.clone()
        };
        let (w, r) = (cx.init_weights(1)?, cx.init_weights(2)?);
        let f = cx.field("k::rnn::PackedWeights", format!("k::rnn::PackedWeights::{kfn}(&{packing}, {w}, {r})"));
        Some(f)
    } else {
        None
    };
    // Y_h (and Y_c) go to the scratch head, one state each.
    let states = n_res.saturating_sub(1);
    let head = &geo.state * states;
    cx.scratch(format!("{head} + k::rnn::{kfn}_scratch_len(&{p})"));
    call(cx, cell, &geo, &p, weights.as_deref(), &out)?;
    for j in 1..n_res {
        let out = cx.begin(j);
        let (lo, hi) = (&geo.state * (j - 1), &geo.state * j);
        cx.line(format!("{out}.copy_from_slice(&self.scratch[{lo}..{hi}]);"));
    }
    Ok(true)
}

/// Sizes of the op, read from its operand types.
#[derive(Clone)]
struct Geometry {
    shape: String,
    dirs: usize,
    batch: Sz,
    state: Sz,
    /// `(input, hidden, direction, layout)` names, to rebuild `shape`.
    fixed: (usize, usize, &'static str, &'static str),
}

impl Geometry {
    /// The kernel's `Shape` literal for sequence `seq` and batch `batch`.
    fn shape_with(&self, seq: &Sz, batch: &Sz) -> String {
        let (input, hidden, direction, layout) = self.fixed;
        format!(
            "k::rnn::Shape {{ seq: {seq}, batch: {batch}, input: {input}, hidden: {hidden}, \
             direction: k::rnn::Direction::{direction}, layout: k::rnn::Layout::{layout} }}"
        )
    }
}

fn geometry(cx: &OpCx<'_, '_>, cell: Cell) -> Result<Geometry, String> {
    let op = cx.op;
    let (xs, ws, rs) = (cx.in_dims(0), cx.in_static(1), cx.in_static(2));
    let layout1 = op.attrs.int("layout").unwrap_or(0) != 0;
    let [s0, s1, x_in] = &xs[..] else { return Err(format!("X must be 3-D, found {xs:?}")) };
    let (seq, batch) = if layout1 { (s1, s0) } else { (s0, s1) };
    let (direction, dirs) = match op.attrs.str("direction").unwrap_or("forward") {
        "forward" => ("Forward", 1),
        "reverse" => ("Reverse", 1),
        "bidirectional" => ("Bidirectional", 2),
        d => return Err(format!("unknown direction {d:?}")),
    };
    let [_, _, hidden] = rs[..] else { return Err(format!("R must be 3-D, found {rs:?}")) };
    let [_, _, input] = ws[..] else { return Err(format!("W must be 3-D, found {ws:?}")) };
    let g = cell.gates();
    if ws != [dirs, g * hidden, input] || rs != [dirs, g * hidden, hidden] || x_in.lit().is_some_and(|x| x != input) {
        return Err(format!("W {ws:?} / R {rs:?} do not match {dirs} direction(s) of {g} gates x {hidden}"));
    }
    let layout = if layout1 { "BatchFirst" } else { "SeqFirst" };
    let mut geo = Geometry {
        shape: String::new(),
        dirs,
        batch: batch.clone(),
        state: batch * (dirs * hidden),
        fixed: (input, hidden, direction, layout),
    };
    geo.shape = geo.shape_with(seq, batch);
    Ok(geo)
}

/// The parameter struct literal of the op (activations resolved here, so a
/// bad `activations` list is a compile-time error).
fn params(op: &OpData, cell: Cell, geo: &Geometry) -> Result<String, String> {
    let names: Option<Vec<&str>> = match op.attrs.get("activations") {
        Some(Attr::Strs(v)) => Some(v.iter().map(String::as_str).collect()),
        _ => None,
    };
    let names = names.as_deref();
    let alphas = op.attrs.floats("activation_alpha").unwrap_or(&[]);
    let betas = op.attrs.floats("activation_beta").unwrap_or(&[]);
    let clip = match op.attrs.float("clip") {
        Some(c) if c.is_nan() || c < 0.0 => return Err(format!("attribute `clip` = {c} must be non-negative")),
        Some(c) => format!("Some({})", f32_lit(c)),
        None => "None".into(),
    };
    let d = geo.dirs;
    let shape = &geo.shape;
    Ok(match cell {
        Cell::Lstm => {
            let acts = resolve_activations(names, alphas, betas, Lstm::DEFAULT_ACTS, d)?;
            let fgt = op.attrs.int("input_forget").unwrap_or(0) != 0;
            format!("k::rnn::Lstm {{ shape: {shape}, acts: {}, clip: {clip}, input_forget: {fgt} }}", lists(&acts))
        }
        Cell::Gru => {
            let acts = resolve_activations(names, alphas, betas, Gru::DEFAULT_ACTS, d)?;
            let lbr = op.attrs.int("linear_before_reset").unwrap_or(0) != 0;
            format!(
                "k::rnn::Gru {{ shape: {shape}, acts: {}, clip: {clip}, linear_before_reset: {lbr} }}",
                lists(&acts)
            )
        }
        Cell::Rnn => {
            let acts = resolve_activations(names, alphas, betas, [Rnn::DEFAULT_ACT], d)?;
            let l: Vec<String> = acts.iter().map(|a| activation(a[0])).collect();
            format!("k::rnn::Rnn {{ shape: {shape}, acts: [{}], clip: {clip} }}", l.join(", "))
        }
    })
}

fn lists<const N: usize>(acts: &[[Activation; N]; 2]) -> String {
    let l: Vec<String> =
        acts.iter().map(|d| format!("[{}]", d.iter().map(|&a| activation(a)).collect::<Vec<_>>().join(", "))).collect();
    format!("[{}]", l.join(", "))
}

/// An activation as a Rust expression.
fn activation(a: Activation) -> String {
    use edgec_numeric::rnn::Activation::*;
    let p = "k::rnn::Activation::";
    match a {
        Relu => format!("{p}Relu"),
        Tanh => format!("{p}Tanh"),
        Sigmoid => format!("{p}Sigmoid"),
        Softsign => format!("{p}Softsign"),
        Softplus => format!("{p}Softplus"),
        Affine { alpha, beta } => format!("{p}Affine {{ alpha: {}, beta: {} }}", f32_lit(alpha), f32_lit(beta)),
        ScaledTanh { alpha, beta } => {
            format!("{p}ScaledTanh {{ alpha: {}, beta: {} }}", f32_lit(alpha), f32_lit(beta))
        }
        HardSigmoid { alpha, beta } => {
            format!("{p}HardSigmoid {{ alpha: {}, beta: {} }}", f32_lit(alpha), f32_lit(beta))
        }
        LeakyRelu { alpha } => format!("{p}LeakyRelu {{ alpha: {} }}", f32_lit(alpha)),
        ThresholdedRelu { alpha } => format!("{p}ThresholdedRelu {{ alpha: {} }}", f32_lit(alpha)),
        Elu { alpha } => format!("{p}Elu {{ alpha: {} }}", f32_lit(alpha)),
    }
}

/// The kernel call, in the block writing Y.
fn call(
    cx: &mut OpCx<'_, '_>,
    cell: Cell,
    geo: &Geometry,
    p: &str,
    packed: Option<&str>,
    out: &str,
) -> Result<(), String> {
    let op = cx.op;
    let x = cx.input(0)?;
    let w = match packed {
        Some(f) => format!("k::rnn::Weights::Packed(&self.{f})"),
        None => format!("k::rnn::Weights::Raw {{ w: {}, r: {} }}", cx.input(1)?, cx.input(2)?),
    };
    let opt = |cx: &mut OpCx<'_, '_>, i: usize| -> Result<String, String> {
        Ok(match op.operand(i) {
            Some(_) => format!("Some({})", cx.input(i)?),
            None => "None".into(),
        })
    };
    let b = opt(cx, 3)?;
    let lens = match op.operand(4) {
        None => "None".to_string(),
        Some(_) if cx.in_class(4) == Some(Class::I64) => format!("Some({})", cx.input(4)?),
        Some(_) => {
            let s = cx.input(4)?;
            let batch = geo.batch.lit().ok_or("sequence_lens of a type other than i64 on a symbolic batch")?;
            cx.line(format!("let mut lens = [0i64; {batch}];"));
            cx.line(format!("for (d, s) in lens.iter_mut().zip({s}.iter()) {{ *d = *s as i64; }}"));
            "Some(&lens[..])".to_string()
        }
    };
    let h0 = opt(cx, 5)?;
    let n_res = op.results.len();
    let state = &geo.state;
    cx.line(format!("let (st, ks) = self.scratch.split_at_mut({});", state * n_res.saturating_sub(1)));
    if n_res > 2 {
        cx.line(format!("let (st_h, st_c) = st.split_at_mut({state});"));
    }
    let yh = match n_res {
        0 | 1 => "None".to_string(),
        2 => format!("Some(&mut st[..{state}])"),
        _ => "Some(st_h)".to_string(),
    };
    let yc = if n_res > 2 { "Some(st_c)".to_string() } else { "None".into() };
    let head = format!("k::rnn::{}(&{p}, {x}, {w}, {b}, {lens}, {h0}", cell.names().0);
    let line = match cell {
        Cell::Lstm => {
            let (c0, peep) = (opt(cx, 6)?, opt(cx, 7)?);
            format!("{head}, {c0}, {peep}, Some({out}), {yh}, {yc}, ks);")
        }
        Cell::Gru | Cell::Rnn => format!("{head}, Some({out}), {yh}, ks);"),
    };
    cx.line(line);
    Ok(())
}
