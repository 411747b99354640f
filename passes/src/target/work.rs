//! Work estimates of one op from its operand and result types.
//!
//! Sizes come from static dims; a symbolic or unknown dim counts as
//! [`NOMINAL_DIM`] and an unranked tensor as [`NOMINAL_UNRANKED_ELEMS`]
//! elements, so every estimate is finite and grows with every dim.
//!
//! MAC (multiply-accumulate) counts:
//! * convolutions (`onnx.Conv`, `core.conv`, `onnx.ConvInteger`, `onnx.QLinearConv`,
//!   `onnx.DeformConv`): output elements × `prod(W.dims[1..])` = `Cin/group × prod(kernel)`;
//! * transposed convolutions (`onnx.ConvTranspose`, `core.conv_transpose`):
//!   input elements × `prod(W.dims[1..])` = `Cout/group × prod(kernel)`;
//! * matrix products (`onnx.MatMul`, `onnx.Gemm`, `core.linear`, `onnx.MatMulInteger`,
//!   `onnx.QLinearMatMul`): output elements × K (the contracted dim of A);
//! * attention (`core.attention`, `core.attention_blocked`, `core.window_attention`, `onnx.Attention`,
//!   `onnx.FlexAttention`):
//!   `B·H·Sq·Sk·(D+Dv)`, computed as `(Q elements / D) · Sk · (D + Dv)` with `Sk`
//!   the second-to-last dim of K (this also holds for the 3-D `[B, S, H·D]` layout);
//! * recurrent ops (`onnx.RNN`, `onnx.GRU`, `onnx.LSTM`): `dims[0]·dims[1]` of X
//!   (sequence × batch) × (elements of W + elements of R).
//!
//! Element counts ([`Work::elems`]): the total elements of the results, except for
//! reductions and pooling ops (`onnx.Reduce*`, `core.reduce`, `ArgMax`/`ArgMin`,
//! `*Pool`, `TopK`), which count the elements of their first operand.

use super::OpQuery;
use ir::{Opcode, TensorType};

/// Size assumed for a symbolic or unknown dim.
pub const NOMINAL_DIM: f64 = 64.0;
/// Element count assumed for an unranked tensor.
pub const NOMINAL_UNRANKED_ELEMS: f64 = NOMINAL_DIM * NOMINAL_DIM;

/// The estimated work of one op. All fields are finite and `>= 0`.
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct Work {
    /// Multiply-accumulates (0 for ops without a MAC count).
    pub macs: f64,
    /// Elements produced (or, for reductions and pooling, consumed).
    pub elems: f64,
    /// Bytes of all present operands.
    pub bytes_in: f64,
    /// Bytes of all results.
    pub bytes_out: f64,
}

/// How an op's MACs are counted.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MacKind {
    /// Output elements × `prod(W.dims[1..])`; W is operand `w`.
    Conv {
        /// Operand index of the weights.
        w: usize,
    },
    /// Elements of operand 0 × `prod(W.dims[1..])` (W is operand 1).
    ConvTranspose,
    /// Output elements × the contracted dim of operand 0.
    MatMul,
    /// `onnx.Gemm`: like `MatMul` but honouring `transA`.
    Gemm,
    /// `(Q elements / D) · Sk · (D + Dv)`.
    Attention,
    /// `X.dims[0] · X.dims[1] · (elements of W + elements of R)`.
    Recurrent,
}

/// How `op`'s MACs are counted, if it has a MAC count.
pub fn mac_kind(op: Opcode) -> Option<MacKind> {
    Some(match op.name() {
        "onnx.Conv" | "core.conv" | "onnx.ConvInteger" | "onnx.DeformConv" => MacKind::Conv { w: 1 },
        "onnx.QLinearConv" => MacKind::Conv { w: 3 },
        "onnx.ConvTranspose" | "core.conv_transpose" => MacKind::ConvTranspose,
        "onnx.MatMul" | "core.linear" | "onnx.MatMulInteger" | "onnx.QLinearMatMul" => MacKind::MatMul,
        "onnx.Gemm" => MacKind::Gemm,
        "core.attention"
        | "core.attention_blocked"
        | "core.window_attention"
        | "onnx.Attention"
        | "onnx.FlexAttention" => MacKind::Attention,
        "onnx.RNN" | "onnx.GRU" | "onnx.LSTM" => MacKind::Recurrent,
        _ => return None,
    })
}

/// True for ops whose element work is their first operand's size.
fn counts_input_elems(op: Opcode) -> bool {
    let name = op.name();
    name.starts_with("onnx.Reduce")
        || name == "core.reduce"
        || name.ends_with("Pool")
        || matches!(name, "onnx.ArgMax" | "onnx.ArgMin" | "onnx.TopK")
}

/// Dims of `t` as numbers (non-static dims are [`NOMINAL_DIM`]); an unranked or
/// missing tensor is taken to have `rank_guess` nominal dims.
pub(super) fn dims(t: Option<&TensorType>, rank_guess: usize) -> Vec<f64> {
    match t.and_then(|t| t.dims()) {
        Some(d) => d.iter().map(|d| d.as_static().map_or(NOMINAL_DIM, |n| n as f64)).collect(),
        None => vec![NOMINAL_DIM; rank_guess],
    }
}

/// Element count of `t` (nominal for non-static dims and unranked tensors).
pub fn elems(t: &TensorType) -> f64 {
    match t.dims() {
        Some(_) => dims(Some(t), 0).iter().product(),
        None => NOMINAL_UNRANKED_ELEMS,
    }
}

/// Bytes of `t` (strings count 8 bytes per element).
pub fn bytes(t: &TensorType) -> f64 {
    elems(t) * t.dtype.size_bytes().unwrap_or(8) as f64
}

impl Work {
    /// Estimate the work of `q` (see the module docs).
    pub fn estimate(q: &OpQuery) -> Work {
        let input = |i: usize| q.inputs.get(i).copied().flatten();
        let out_elems: f64 = q.outputs.iter().map(elems).sum();
        let elems_in0 = input(0).map_or(NOMINAL_UNRANKED_ELEMS, elems);
        let macs = mac_kind(q.opcode).map_or(0.0, |k| macs(k, q, out_elems));
        Work {
            macs,
            elems: if counts_input_elems(q.opcode) { elems_in0 } else { out_elems },
            bytes_in: q.inputs.iter().flatten().map(|t| bytes(t)).sum(),
            bytes_out: q.outputs.iter().map(bytes).sum(),
        }
    }
}

fn macs(kind: MacKind, q: &OpQuery, out_elems: f64) -> f64 {
    let input = |i: usize| q.inputs.get(i).copied().flatten();
    let tail = |i: usize| dims(input(i), 4).iter().skip(1).product::<f64>();
    let last = |d: &[f64]| d.last().copied().unwrap_or(1.0);
    match kind {
        MacKind::Conv { w } => out_elems * tail(w),
        MacKind::ConvTranspose => input(0).map_or(NOMINAL_UNRANKED_ELEMS, elems) * tail(1),
        MacKind::MatMul => out_elems * last(&dims(input(0), 2)),
        MacKind::Gemm => {
            let a = dims(input(0), 2);
            let k = if q.attrs.int("transA").unwrap_or(0) != 0 { a.first().copied().unwrap_or(1.0) } else { last(&a) };
            out_elems * k
        }
        MacKind::Attention => {
            let (qd, kd, vd) = (dims(input(0), 4), dims(input(1), 4), dims(input(2), 4));
            let d = last(&qd).max(1.0);
            let sk = if kd.len() >= 2 { kd[kd.len() - 2] } else { 1.0 };
            qd.iter().product::<f64>() / d * sk * (d + last(&vd))
        }
        MacKind::Recurrent => {
            let x = dims(input(0), 3);
            let steps = x.iter().take(2).product::<f64>();
            let w = |i| dims(input(i), 3).iter().product::<f64>();
            steps * (w(1) + w(2))
        }
    }
}
