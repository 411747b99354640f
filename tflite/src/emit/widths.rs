//! Mixed 8/16-bit graphs: TFLite's kernels compute in one activation type
//! (an int16 result needs int16 inputs: the 16x8 operators), so an op that
//! touches a 16-bit activation computes in 16 bits.
//!
//! Each 8-bit activation operand of such an op is widened by a QUANTIZE to
//! the int16 grid `scale / 128`, zero point 0, which holds every int8 value
//! exactly (`|q − zp| ≤ 255`, times 128 is at most 32640), once per tensor;
//! each 8-bit result is written on that wider grid and narrowed by a
//! QUANTIZE to its own: one more rounding than the QDQ form's, on a grid
//! 128 times finer (within 1 LSB, as the other operators).

use super::graph::{Quant, TensorId};
use super::Emitter;
use crate::schema as tfl;
use ir::{OpData, Value};

/// How an op's 8-bit operands and results meet its 16-bit ones.
#[derive(Default)]
pub(super) struct Widening {
    /// The op computes in 16 bits.
    pub wide: bool,
    /// The 16-bit copy of each 8-bit tensor widened so far.
    pub copies: std::collections::HashMap<TensorId, TensorId>,
    /// Results written on a wide grid: (the 16-bit tensor written, the 8-bit tensor it narrows to).
    pub narrowed: Vec<(TensorId, TensorId)>,
}

/// The int16 grid holding every value of 8-bit grid `q` exactly.
pub(super) fn wide_grid(q: &Quant) -> Quant {
    Quant::tensor(q.scale[0] / 128.0, 0)
}

impl Emitter<'_> {
    /// Whether `op` reads or writes a 16-bit activation.
    fn touches_int16(&self, op: &OpData) -> bool {
        let int16 = |t: TensorId| self.g.dtype(t) == tfl::TensorType::Int16;
        let reads = op.inputs().filter_map(|v| self.float_of.get(&v)).any(|&t| int16(t));
        let writes = op
            .results
            .iter()
            .filter_map(|r| self.q_reader.get(r))
            .any(|&q| self.f.ty(self.f.ops[q].results[0]).dtype == ir::DType::I16);
        reads || writes
    }

    /// Before writing `op`: when it computes in 16 bits, its 8-bit
    /// activation operands read as their 16-bit copies. Returns the
    /// operands' own tensors, for [`Self::finish_widths`].
    pub(super) fn widen_operands(&mut self, op: &OpData) -> Result<Vec<(Value, TensorId)>, String> {
        self.widths.wide = self.touches_int16(op);
        if !self.widths.wide {
            return Ok(vec![]);
        }
        let mut saved = vec![];
        let operands: Vec<Value> = op.inputs().collect();
        for v in operands {
            let Some(&t) = self.float_of.get(&v) else { continue };
            if self.g.dtype(t) != tfl::TensorType::Int8 || saved.iter().any(|(s, _)| *s == v) {
                continue;
            }
            let w = match self.widths.copies.get(&t) {
                Some(&w) => w,
                None => {
                    let q = self.g.quant(t).ok_or("an 8-bit tensor without a grid")?;
                    let name = format!("{}.int16", self.value_name(v));
                    let w = self.g.tensor(&name, &self.g.shape(t), tfl::TensorType::Int16, Some(wide_grid(&q)));
                    self.g.op(tfl::BuiltinOperator::Quantize, &[t], &[w], None);
                    self.set_perm(w, self.perm(t));
                    self.widths.copies.insert(t, w);
                    w
                }
            };
            self.float_of.insert(v, w);
            saved.push((v, t));
        }
        Ok(saved)
    }

    /// The tensor a 16-bit op writes for 8-bit result tensor `t`: a wide
    /// copy, narrowed to `t` by [`Self::finish_widths`] (`t` itself when
    /// the op is not 16-bit or `t` is not 8-bit).
    pub(super) fn written_for(&mut self, t: TensorId, name: &str) -> TensorId {
        if !self.widths.wide || self.g.dtype(t) != tfl::TensorType::Int8 {
            return t;
        }
        let Some(q) = self.g.quant(t) else { return t };
        let w = self.g.tensor(&format!("{name}.int16"), &self.g.shape(t), tfl::TensorType::Int16, Some(wide_grid(&q)));
        self.set_perm(w, self.perm(t));
        self.widths.narrowed.push((w, t));
        w
    }

    /// The stored integers of wide copy `w` its narrowing keeps (it
    /// saturates the rest); `None` for a tensor that is not narrowed.
    pub(super) fn narrowed_range(&self, w: TensorId) -> Option<(i64, i64)> {
        let &(_, t) = self.widths.narrowed.iter().find(|(c, _)| *c == w)?;
        let zp = self.g.quant(t)?.zero_point[0];
        Some(((-128 - zp) * 128, (127 - zp) * 128))
    }

    /// After writing an op: its 8-bit results narrowed from their wide
    /// copies, and its operands read as their own tensors again.
    /// (`written`: the op was written; else nothing is narrowed.)
    pub(super) fn finish_widths(&mut self, saved: Vec<(Value, TensorId)>, written: bool) {
        for (w, t) in std::mem::take(&mut self.widths.narrowed) {
            if written {
                self.g.op(tfl::BuiltinOperator::Quantize, &[w], &[t], None);
            }
        }
        for (v, t) in saved {
            self.float_of.insert(v, t);
        }
        self.widths.wide = false;
    }
}
