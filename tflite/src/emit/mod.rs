//! The TFLite writer: a quantized module in QDQ form (what `edgec quantize
//! --qdq` and `edgec compile --quantize int8` give) to an INT8 TFLite
//! flatbuffer.
//!
//! The QDQ form says, for every activation, which grid it is stored on: the
//! result of each `onnx.QuantizeLinear` becomes one int8 tensor, a
//! `DequantizeLinear` only names the tensor it reads, and each float op
//! between them ([`ops`]) becomes the TFLite operator that computes the same
//! function on the stored integers, its output the tensor of the first
//! `QuantizeLinear` reading it (a second grid of the same value is a
//! QUANTIZE from the first). Weights and biases are the constants behind
//! their `DequantizeLinear`s, written in the layout the operator reads.
//!
//! Invariants: inputs and outputs are the int8 tensors of the graph's
//! quantized inputs and outputs, their scales and zero points in the
//! [`Report`]; u8 grids are written as i8 (values and zero point − 128,
//! the same reals); every static shape is required; an op with no integer
//! form but a float32 one is a CPU island (`ops/float.rs`); anything
//! without a TFLite form is an error naming its ONNX node, all of them at once.

mod graph;
pub mod layout;
mod ops;
mod widths;

use crate::schema as tfl;
use graph::{Graph, Quant, TensorId};
use ir::{Constant, DType, Function, Module, OpData, OpId, Opcode, Value, ValueDef};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What could not be written, one line per op.
#[derive(Debug, thiserror::Error)]
#[error("cannot write TFLite:\n  {}", .0.join("\n  "))]
pub struct EmitError(pub Vec<String>);

/// A written model and what the writer did.
#[derive(Debug)]
pub struct Emitted {
    /// The `.tflite` file.
    pub bytes: Vec<u8>,
    /// The graph's interface, operators and layout decisions.
    pub report: Report,
}

/// What `--explain` and the compile report show of a written model.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Report {
    /// The graph inputs, in order.
    pub inputs: Vec<Io>,
    /// The graph outputs, in order.
    pub outputs: Vec<Io>,
    /// Operators by builtin name.
    pub operators: BTreeMap<String, usize>,
    /// Each layout TRANSPOSE left in the graph, with its reason.
    pub transposes: Vec<String>,
}

/// One graph input or output: an int8 (or int16) tensor.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Io {
    /// The ONNX name.
    pub name: String,
    /// The shape as stored (see `perm`).
    pub shape: Vec<usize>,
    /// `"NHWC"` for a rank-4 tensor of the NCHW model stored channels
    /// last, `"as is"` for one stored in the model's own axis order,
    /// `"permuted"` for any other order.
    pub layout: &'static str,
    /// Stored axis `i` is the model's axis `perm[i]`.
    pub perm: Vec<usize>,
    /// `real = scale · (q − zero_point)`.
    pub scale: f32,
    /// The zero point.
    pub zero_point: i64,
    /// `int8` or `int16`.
    pub dtype: &'static str,
}

/// Whether the writer has a TFLite int8 form for `op` in a QDQ module:
/// constants, QuantizeLinear and DequantizeLinear (tensor grids), and the
/// ops [`ops::lowering`] writes.
pub fn has_form(op: Opcode) -> bool {
    matches!(op, Opcode::CoreConst | Opcode::QuantizeLinear | Opcode::DequantizeLinear) || ops::lowering(op).is_some()
}

/// Whether the writer has a float32 TFLite form for `op`, which Vela leaves
/// to the host CPU (written where the op has no int8 form, or reads a
/// value only float ops compute).
pub fn has_cpu_form(op: Opcode) -> bool {
    ops::has_float_form(op)
}

/// The TFLite model of `m`'s `@main`.
pub fn emit(m: &Module) -> Result<Emitted, EmitError> {
    let f = m.func("main").ok_or_else(|| EmitError(vec!["the module has no @main function".into()]))?;
    let mut e = Emitter::new(m, f);
    let mut errs = Vec::new();
    // Results of ops that failed, and of ops reading them (not reported again).
    let mut failed = HashSet::new();
    for &id in &f.body.ops {
        let op = &f.ops[id];
        if op.inputs().any(|v| failed.contains(&v)) {
            failed.extend(op.results.iter().copied());
        } else if let Err(msg) = e.op(op) {
            errs.push(format!("{} ({}): {msg}", op.opcode.name(), op.loc));
            failed.extend(op.results.iter().copied());
        }
    }
    let mut report = Report { transposes: std::mem::take(&mut e.transposes), ..Default::default() };
    let mut inputs = Vec::new();
    for &p in &f.body.params {
        match e.input_tensor(p) {
            Ok(t) => {
                inputs.push(t);
                report.inputs.push(e.io(p, t));
            }
            Err(_) if e.q_reader.get(&p).is_some_and(|&id| failed.contains(&f.ops[id].results[0])) => {}
            Err(msg) => errs.push(format!("input {}: {msg}", e.value_name(p))),
        }
    }
    let mut outputs = Vec::new();
    for (i, &r) in f.body.results.iter().enumerate() {
        match e.float_of.get(&r) {
            Some(&t) => {
                outputs.push(t);
                let mut io = e.io(r, t);
                io.name = f.result_names.get(i).cloned().flatten().unwrap_or_else(|| format!("output_{i}"));
                report.outputs.push(io);
            }
            None if failed.contains(&r) => {}
            None => errs.push(format!("output #{i}: not a quantized value (TFLite int8 graphs return int8 tensors)")),
        }
    }
    if !errs.is_empty() {
        return Err(EmitError(errs));
    }
    for k in &e.g.op_kinds {
        *report.operators.entry(format!("{k:?}")).or_default() += 1;
    }
    let desc = format!("edgec {}", env!("CARGO_PKG_VERSION"));
    let bytes = e.g.finish(&m.name, inputs, outputs, &desc);
    Ok(Emitted { bytes, report })
}

/// An affine map `a·x + b` (per channel or one value) of a stored tensor.
type Pending = (TensorId, Vec<usize>, Vec<f64>, Vec<f64>);

/// The writer's state over one function.
struct Emitter<'m> {
    m: &'m Module,
    f: &'m Function,
    g: Graph,
    /// The int8 tensor holding each float value that has one: results of
    /// DequantizeLinear of an activation and of the float ops written.
    float_of: HashMap<Value, TensorId>,
    /// The tensor of each QuantizeLinear result (and quantized input).
    quantized: HashMap<Value, TensorId>,
    /// The float32 tensor of each float value a CPU island reads or writes.
    real_of: HashMap<Value, TensorId>,
    /// The first QuantizeLinear reading each value.
    q_reader: HashMap<Value, OpId>,
    /// Float values an affine map of a stored tensor computes, not written
    /// yet: (tensor, its NCHW dims, per-channel scale, offset).
    pending: HashMap<Value, Pending>,
    /// Tensors not stored in their rank's default layout ([`layout::default_perm`]):
    /// stored axis `i` holds the value's axis `perm[i]`.
    perms: HashMap<TensorId, Vec<usize>>,
    /// The default-layout copy of each tensor stored otherwise.
    canonical: HashMap<TensorId, TensorId>,
    transposes: Vec<String>,
    /// The 16-bit form of the op being written ([`widths`]).
    widths: widths::Widening,
}

impl<'m> Emitter<'m> {
    fn new(m: &'m Module, f: &'m Function) -> Emitter<'m> {
        let mut q_reader = HashMap::new();
        for &id in &f.body.ops {
            let op = &f.ops[id];
            if op.opcode == Opcode::QuantizeLinear {
                if let Some(x) = op.operand(0) {
                    q_reader.entry(x).or_insert(id);
                }
            }
        }
        Emitter {
            m,
            f,
            g: Graph::new(),
            float_of: HashMap::new(),
            quantized: HashMap::new(),
            real_of: HashMap::new(),
            q_reader,
            pending: HashMap::new(),
            perms: HashMap::new(),
            canonical: HashMap::new(),
            transposes: vec![],
            widths: widths::Widening::default(),
        }
    }

    fn op(&mut self, op: &OpData) -> Result<(), String> {
        if !op.regions.is_empty() {
            return Err("ops with regions have no TFLite form".into());
        }
        match op.opcode {
            Opcode::CoreConst => Ok(()),
            Opcode::QuantizeLinear => self.quantize(op),
            Opcode::DequantizeLinear => self.dequantize(op),
            _ if ops::is_float(self, op) => ops::lower_float(self, op),
            _ => {
                let before = self.g.op_count();
                let saved = self.widen_operands(op)?;
                let written = ops::lower(self, op);
                self.finish_widths(saved, written.is_ok());
                written?;
                self.g.mixed_widths(before).map_or(Ok(()), Err)
            }
        }
    }

    /// A QuantizeLinear: the tensor its input's writer made, the graph input
    /// it quantizes, or a QUANTIZE (requantization) from another grid.
    fn quantize(&mut self, op: &OpData) -> Result<(), String> {
        let (x, r) = (op.operand(0).ok_or("no input")?, op.results[0]);
        let q = self.grid(op)?;
        if let Some(&t) = self.float_of.get(&x) {
            if self.g.quant(t).as_ref() == Some(&q) {
                self.quantized.insert(r, t);
                return Ok(());
            }
            let out = self.g.tensor(&self.value_name(r), &self.g.shape(t), self.g.dtype(t), Some(q));
            self.g.op(tfl::BuiltinOperator::Quantize, &[t], &[out], None);
            self.set_perm(out, self.perm(t));
            self.quantized.insert(r, out);
            return Ok(());
        }
        if let Some(&t) = self.real_of.get(&x) {
            // A float op's result: quantized by a QUANTIZE.
            let out = self.g.tensor(&self.value_name(r), &self.g.shape(t), tensor_type(self.f.ty(r).dtype)?, Some(q));
            self.g.op(tfl::BuiltinOperator::Quantize, &[t], &[out], None);
            self.set_perm(out, self.perm(t));
            self.quantized.insert(r, out);
            return Ok(());
        }
        if matches!(self.f.values[x].def, ValueDef::Param(_)) {
            let dims = self.dims(x)?;
            let perm = self.input_perm(r, dims.len());
            let shape: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
            let t = self.g.tensor(&self.value_name(x), &shape, tensor_type(self.f.ty(r).dtype)?, Some(q));
            self.set_perm(t, perm);
            self.quantized.insert(r, t);
            return Ok(());
        }
        Err(format!("quantizes {}, which no TFLite operator computes", self.value_name(x)))
    }

    /// A DequantizeLinear of an activation names the tensor it reads; one of
    /// a constant is read by the op that takes it as weights.
    fn dequantize(&mut self, op: &OpData) -> Result<(), String> {
        let x = op.operand(0).ok_or("no input")?;
        if let Some(&t) = self.quantized.get(&x) {
            self.float_of.insert(op.results[0], t);
        } else if self.const_of(x).is_none() {
            return Err(format!("dequantizes {}, which is not a quantized tensor", self.value_name(x)));
        }
        Ok(())
    }

    /// The grid of QuantizeLinear `op` as TFLite stores it (u8 as i8).
    fn grid(&self, op: &OpData) -> Result<Quant, String> {
        let scale = self.scalar(op.operand(1).ok_or("no scale")?)?;
        let zp = match op.operand(2) {
            Some(z) => self.scalar(z)? as i64,
            None => 0,
        };
        let dt = self.f.ty(op.results[0]).dtype;
        match dt {
            DType::I8 => Ok(Quant::tensor(scale as f32, zp)),
            DType::U8 => Ok(Quant::tensor(scale as f32, zp - 128)),
            DType::I16 if zp == 0 => Ok(Quant::tensor(scale as f32, 0)),
            DType::I16 => Err(format!("an i16 grid with zero point {zp}: TFLite's 16-bit activations are symmetric")),
            other => Err(format!("{other} activations have no TFLite int8 form")),
        }
    }

    /// The output tensor of float op `op`'s result: on the grid of the first
    /// QuantizeLinear reading it.
    fn output(&mut self, op: &OpData) -> Result<TensorId, String> {
        self.output_n(op, 0)
    }

    /// The output tensor of result `i` of float op `op` (as [`Self::output`]).
    fn output_n(&mut self, op: &OpData, i: usize) -> Result<TensorId, String> {
        let rank = self.dims(*op.results.get(i).ok_or("missing result")?)?.len();
        self.output_stored(op, i, layout::default_perm(rank))
    }

    /// The output tensor of result `i` of `op`, stored in layout `perm`
    /// (for a 16-bit op's 8-bit result, the wide tensor it writes:
    /// [`Self::written_for`]).
    fn output_stored(&mut self, op: &OpData, i: usize, perm: Vec<usize>) -> Result<TensorId, String> {
        let r = *op.results.get(i).ok_or("missing result")?;
        let &qid = self.q_reader.get(&r).ok_or_else(|| {
            format!(
                "its result {} is not quantized (a float op: keep-float ops have no int8 TFLite form)",
                self.value_name(r)
            )
        })?;
        let qop = &self.f.ops[qid];
        let q = self.grid(qop)?;
        let dims = self.dims(r)?;
        let shape: Vec<usize> = perm.iter().map(|&a| dims[a]).collect();
        let name = self.value_name(r);
        let t = self.g.tensor(&name, &shape, tensor_type(self.f.ty(qop.results[0]).dtype)?, Some(q));
        self.set_perm(t, perm);
        self.float_of.insert(r, t);
        Ok(self.written_for(t, &name))
    }

    /// The int8 tensor of float operand `v` (a dequantized activation),
    /// stored in its rank's default layout (NHWC for rank 4): a tensor
    /// stored otherwise gets a TRANSPOSE, reported, once.
    fn activation(&mut self, v: Value) -> Result<TensorId, String> {
        let t = self.stored(v)?;
        let (perm, want) = (self.perm(t), layout::default_perm(self.g.shape(t).len()));
        if perm == want {
            return Ok(t);
        }
        if let Some(&c) = self.canonical.get(&t) {
            return Ok(c);
        }
        let dims = self.dims(v)?;
        let shape: Vec<usize> = want.iter().map(|&a| dims[a]).collect();
        let name = format!("{}.relayout", self.value_name(v));
        let c = self.g.tensor(&name, &shape, self.g.dtype(t), self.g.quant(t));
        // Stored axis i of the copy holds value axis want[i], at position perm⁻¹(want[i]) of t.
        let order: Vec<i32> = want.iter().map(|a| perm.iter().position(|p| p == a).unwrap_or(0) as i32).collect();
        let pt = self.g.ints(&format!("{name}.perm"), &[order.len()], &order);
        let options = tfl::BuiltinOptions::TransposeOptions(Box::default());
        self.g.op(tfl::BuiltinOperator::Transpose, &[t, pt], &[c], Some(options));
        self.transposes.push(format!("{}: stored {perm:?}, read in the layout {want:?}", self.value_name(v)));
        self.canonical.insert(t, c);
        Ok(c)
    }

    /// The int8 tensor of float operand `v` in whatever layout it is stored.
    fn stored(&self, v: Value) -> Result<TensorId, String> {
        self.float_of
            .get(&v)
            .copied()
            .ok_or_else(|| format!("operand {} is not a quantized activation", self.value_name(v)))
    }

    /// How tensor `t` is stored: stored axis `i` holds the value's axis `perm[i]`.
    fn perm(&self, t: TensorId) -> Vec<usize> {
        self.perms.get(&t).cloned().unwrap_or_else(|| layout::default_perm(self.g.shape(t).len()))
    }

    fn set_perm(&mut self, t: TensorId, perm: Vec<usize>) {
        if perm == layout::default_perm(perm.len()) {
            self.perms.remove(&t);
        } else {
            self.perms.insert(t, perm);
        }
    }

    /// The layout of the graph input quantized as `q`: when a rank-4 input's
    /// reader (through its DequantizeLinear) is a Transpose, the one that
    /// stores the Transpose's result in the default layout (an NHWC model
    /// input is then stored as it is given); else the default. A Reshape
    /// that moves only a size-1 axis is the Transpose it equals (tf2onnx
    /// writes NHWC → NCHW of a one-channel input `[N, H, W, 1]` so).
    fn input_perm(&self, q: Value, rank: usize) -> Vec<usize> {
        let default = layout::default_perm(rank);
        let reader = |v: Value| self.f.body.ops.iter().map(|&id| &self.f.ops[id]).find(|o| o.inputs().any(|i| i == v));
        let Some(dq) = reader(q).filter(|o| o.opcode == Opcode::DequantizeLinear) else { return default };
        let Some(r) = reader(dq.results[0]) else { return default };
        let perm: Option<Vec<i64>> = match r.opcode {
            Opcode::Transpose => r.attrs.ints("perm").map(|p| p.to_vec()),
            Opcode::Reshape | Opcode::CoreReshape => self.reshape_as_transpose(dq.results[0], r.results[0]),
            _ => None,
        };
        match perm {
            Some(p) if p.len() == rank && rank == 4 => default.iter().map(|&a| p[a] as usize).collect(),
            _ => default,
        }
    }

    /// `[0, 3, 1, 2]` when reshaping `x` to `y` is that transpose: `[N, H,
    /// W, C]` to `[N, C, H, W]` with `C = 1` or `H·W = 1` (the element order
    /// is unchanged).
    fn reshape_as_transpose(&self, x: Value, y: Value) -> Option<Vec<i64>> {
        let (xd, yd) = (self.dims(x).ok()?, self.dims(y).ok()?);
        let moved = xd.len() == 4 && yd == [xd[0], xd[3], xd[1], xd[2]] && (xd[3] == 1 || xd[1] * xd[2] == 1);
        moved.then(|| vec![0, 3, 1, 2])
    }

    fn input_tensor(&self, p: Value) -> Result<TensorId, String> {
        let &qid = self.q_reader.get(&p).ok_or("not quantized (TFLite int8 graphs take int8 inputs)")?;
        let r = self.f.ops[qid].results[0];
        self.quantized.get(&r).copied().ok_or_else(|| "its quantization was not written".into())
    }

    fn io(&self, v: Value, t: TensorId) -> Io {
        let q = self.g.quant(t).unwrap_or_else(|| Quant::tensor(1.0, 0));
        let shape = self.g.shape(t);
        let perm = self.perm(t);
        let layout = if perm.iter().enumerate().all(|(i, &a)| i == a) {
            "as is"
        } else if perm == layout::TO_NHWC {
            "NHWC"
        } else {
            "permuted"
        };
        Io {
            name: self.value_name(v),
            layout,
            perm,
            shape,
            scale: q.scale.first().copied().unwrap_or(1.0),
            zero_point: q.zero_point.first().copied().unwrap_or(0),
            dtype: if self.g.dtype(t) == tfl::TensorType::Int16 { "int16" } else { "int8" },
        }
    }

    /// A value's name: its ONNX name if it has one, else `v<N>`.
    fn value_name(&self, v: Value) -> String {
        self.f.values[v].name.clone().unwrap_or_else(|| format!("v{}", v.as_u32()))
    }

    /// The static dims of `v`.
    fn dims(&self, v: Value) -> Result<Vec<usize>, String> {
        let d = self.f.ty(v).shape.static_dims().ok_or_else(|| {
            format!(
                "{} has the dynamic shape {} (fix the input shapes with --shape)",
                self.value_name(v),
                self.f.ty(v).shape
            )
        })?;
        Ok(d.into_iter().map(|x| x as usize).collect())
    }

    /// The module constant defining `v`, if a `core.const` does.
    fn const_of(&self, v: Value) -> Option<&'m Constant> {
        let ValueDef::Result(op, _) = self.f.values[v].def else { return None };
        let op = &self.f.ops[op];
        (op.opcode == Opcode::CoreConst).then(|| self.m.const_of_op(op)).flatten()
    }

    /// The one element of constant scalar `v`.
    fn scalar(&self, v: Value) -> Result<f64, String> {
        let c = self.const_of(v).ok_or_else(|| format!("{} is not a constant", self.value_name(v)))?;
        match c.to_f64s().as_deref() {
            Some([x]) => Ok(*x),
            _ => Err(format!("{} is not a one-element constant", self.value_name(v))),
        }
    }

    /// The defining op of `v`, if an op result.
    fn def_op(&self, v: Value) -> Option<&'m OpData> {
        let ValueDef::Result(op, _) = self.f.values[v].def else { return None };
        Some(&self.f.ops[op])
    }
}

/// The TFLite element type of a quantized activation type.
fn tensor_type(d: DType) -> Result<tfl::TensorType, String> {
    match d {
        DType::I8 | DType::U8 => Ok(tfl::TensorType::Int8),
        DType::I16 => Ok(tfl::TensorType::Int16),
        other => Err(format!("{other} tensors have no TFLite int8 form")),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A two-input ADD graph written through [`Graph`].
    pub(crate) fn tiny_model() -> Vec<u8> {
        let mut g = Graph::new();
        let q = Some(Quant::tensor(0.5, -3));
        let a = g.tensor("a", &[1, 2, 2, 3], tfl::TensorType::Int8, q.clone());
        let b = g.constant("b", &[1, 1, 1, 3], tfl::TensorType::Int8, q.clone(), vec![1, 2, 3]);
        let y = g.tensor("y", &[1, 2, 2, 3], tfl::TensorType::Int8, q);
        g.op(tfl::BuiltinOperator::Add, &[a, b], &[y], None);
        g.finish("tiny", vec![a], vec![y], "test")
    }
}
