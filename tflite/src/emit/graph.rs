//! The TFLite graph under construction: tensors, their buffers, operator
//! codes and operators, in the order they are added, serialized as one
//! subgraph.
//!
//! Invariants: buffer 0 is the empty buffer every non-constant tensor names
//! (TFLite's convention); operator codes are listed in first-use order, so
//! the same sequence of calls gives the same bytes.

use crate::schema as tfl;

/// Index of a tensor of the subgraph.
pub type TensorId = i32;

/// A tensor's element type and quantization.
#[derive(Clone, Debug, PartialEq)]
pub struct Quant {
    /// Scales: one, or one per channel of `axis`.
    pub scale: Vec<f32>,
    /// Zero points, as many as scales.
    pub zero_point: Vec<i64>,
    /// The quantized dimension of per-channel parameters.
    pub axis: i32,
}

impl Quant {
    /// One scale and zero point for the whole tensor.
    pub fn tensor(scale: f32, zero_point: i64) -> Quant {
        Quant { scale: vec![scale], zero_point: vec![zero_point], axis: 0 }
    }
}

/// The graph being written.
#[derive(Default)]
pub struct Graph {
    tensors: Vec<tfl::Tensor>,
    buffers: Vec<tfl::Buffer>,
    codes: Vec<tfl::BuiltinOperator>,
    operators: Vec<tfl::Operator>,
    /// The builtin operator of each operator, in order (for reports).
    pub op_kinds: Vec<tfl::BuiltinOperator>,
}

impl Graph {
    /// An empty graph (with the empty buffer 0).
    pub fn new() -> Graph {
        Graph { buffers: vec![tfl::Buffer::default()], ..Default::default() }
    }

    /// A tensor computed by the graph (or an input).
    pub fn tensor(&mut self, name: &str, shape: &[usize], ty: tfl::TensorType, q: Option<Quant>) -> TensorId {
        self.push_tensor(name, shape, ty, q, 0)
    }

    /// A constant tensor holding `data` (little-endian elements).
    pub fn constant(
        &mut self,
        name: &str,
        shape: &[usize],
        ty: tfl::TensorType,
        q: Option<Quant>,
        data: Vec<u8>,
    ) -> TensorId {
        self.buffers.push(tfl::Buffer { data: Some(data), offset: 0, size: 0 });
        let b = (self.buffers.len() - 1) as u32;
        self.push_tensor(name, shape, ty, q, b)
    }

    /// An int32 vector constant (shapes, axes, paddings).
    pub fn ints(&mut self, name: &str, shape: &[usize], xs: &[i32]) -> TensorId {
        let data = xs.iter().flat_map(|x| x.to_le_bytes()).collect();
        self.constant(name, shape, tfl::TensorType::Int32, None, data)
    }

    fn push_tensor(
        &mut self,
        name: &str,
        shape: &[usize],
        ty: tfl::TensorType,
        q: Option<Quant>,
        buffer: u32,
    ) -> TensorId {
        let quantization = q.map(|q| {
            Box::new(tfl::QuantizationParameters {
                scale: Some(q.scale),
                zero_point: Some(q.zero_point),
                quantized_dimension: q.axis,
                ..Default::default()
            })
        });
        self.tensors.push(tfl::Tensor {
            shape: Some(shape.iter().map(|&d| d as i32).collect()),
            type_: ty,
            buffer,
            name: Some(name.to_string()),
            quantization,
            ..Default::default()
        });
        (self.tensors.len() - 1) as TensorId
    }

    /// The shape of tensor `t`.
    pub fn shape(&self, t: TensorId) -> Vec<usize> {
        self.tensors[t as usize].shape.iter().flatten().map(|&d| d as usize).collect()
    }

    /// The quantization of tensor `t`.
    pub fn quant(&self, t: TensorId) -> Option<Quant> {
        let q = self.tensors[t as usize].quantization.as_ref()?;
        Some(Quant {
            scale: q.scale.clone().unwrap_or_default(),
            zero_point: q.zero_point.clone().unwrap_or_default(),
            axis: q.quantized_dimension,
        })
    }

    /// The element type of tensor `t`.
    pub fn dtype(&self, t: TensorId) -> tfl::TensorType {
        self.tensors[t as usize].type_
    }

    /// An operator reading `inputs` (-1: an omitted optional input) and
    /// writing `outputs`.
    pub fn op(
        &mut self,
        code: tfl::BuiltinOperator,
        inputs: &[TensorId],
        outputs: &[TensorId],
        options: Option<tfl::BuiltinOptions>,
    ) {
        let opcode_index = match self.codes.iter().position(|&c| c == code) {
            Some(i) => i,
            None => {
                self.codes.push(code);
                self.codes.len() - 1
            }
        } as u32;
        self.op_kinds.push(code);
        self.operators.push(tfl::Operator {
            opcode_index,
            inputs: Some(inputs.to_vec()),
            outputs: Some(outputs.to_vec()),
            builtin_options: options,
            ..Default::default()
        });
    }

    /// The number of operators written so far.
    pub fn op_count(&self) -> usize {
        self.operators.len()
    }

    /// The first operator from index `from` on that mixes 8- and 16-bit
    /// activations (TFLite's kernels compute in their output's type: an
    /// int8 tensor feeding an int16 result, or the reverse, has no kernel;
    /// QUANTIZE converts between grids and is exempt), described.
    pub fn mixed_widths(&self, from: usize) -> Option<String> {
        let width = |t: i32| match self.tensors.get(usize::try_from(t).ok()?) {
            Some(x) if x.buffer == 0 && matches!(x.type_, tfl::TensorType::Int8 | tfl::TensorType::Int16) => {
                Some((x.type_, x.name.clone().unwrap_or_default()))
            }
            _ => None,
        };
        for (o, &code) in self.operators.iter().zip(&self.op_kinds).skip(from) {
            if code == tfl::BuiltinOperator::Quantize {
                continue;
            }
            let ins = o.inputs.iter().flatten().filter_map(|&t| width(t));
            let outs: Vec<_> = o.outputs.iter().flatten().filter_map(|&t| width(t)).collect();
            let Some((ty, out)) = outs.first() else { continue };
            if let Some((it, name)) = ins.into_iter().find(|(it, _)| it != ty) {
                return Some(format!(
                    "TFLite {code:?} computes in its result's type, but reads {it:?} tensor {name} for {ty:?} result {out}: no TFLite kernel mixes 8- and 16-bit operands"
                ));
            }
        }
        None
    }

    /// The flatbuffer (file identifier `TFL3`, schema version 3).
    pub fn finish(self, name: &str, inputs: Vec<TensorId>, outputs: Vec<TensorId>, description: &str) -> Vec<u8> {
        let operator_codes = self
            .codes
            .iter()
            .map(|&c| tfl::OperatorCode {
                // Codes above 127 keep the placeholder in the old i8 field.
                deprecated_builtin_code: (c as i32).min(127) as i8,
                custom_code: None,
                version: op_version(c),
                builtin_code: c,
            })
            .collect();
        let subgraph = tfl::SubGraph {
            tensors: Some(self.tensors),
            inputs: Some(inputs),
            outputs: Some(outputs),
            operators: Some(self.operators),
            name: Some(name.to_string()),
            debug_metadata_index: -1,
        };
        let model = tfl::Model {
            version: 3,
            operator_codes: Some(operator_codes),
            subgraphs: Some(vec![subgraph]),
            description: Some(description.to_string()),
            buffers: Some(self.buffers),
            ..Default::default()
        };
        let mut b = planus::Builder::new();
        with_identifier(b.finish(&model, None), *b"TFL3")
    }
}

/// A finished flatbuffer `fb` (a root offset, then the body) with a file
/// identifier: its root offset first, then `ident`, then the body sixteen
/// bytes further, so the body's own offsets (all relative) stand and its
/// alignment (at most 16 bytes) holds. (planus 1.3's `finish` with an identifier puts
/// the identifier before the root offset, which no reader accepts.)
fn with_identifier(fb: &[u8], ident: [u8; 4]) -> Vec<u8> {
    let root = u32::from_le_bytes([fb[0], fb[1], fb[2], fb[3]]);
    let mut out = Vec::with_capacity(fb.len() + 16);
    out.extend_from_slice(&(root + 16).to_le_bytes());
    out.extend_from_slice(&ident);
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&fb[4..]);
    out
}

/// The operator version TFLite's converter records for the int8 form of
/// `code` (per-channel weights where the op has them); interpreters pick
/// kernels by tensor types, but refuse versions they do not register
/// (PRELU has only version 1).
fn op_version(code: tfl::BuiltinOperator) -> i32 {
    use tfl::BuiltinOperator as B;
    match code {
        B::Conv2d | B::DepthwiseConv2d | B::TransposeConv => 3,
        B::FullyConnected => 4,
        B::Add
        | B::Sub
        | B::Mul
        | B::MaxPool2d
        | B::AveragePool2d
        | B::Concatenation
        | B::Softmax
        | B::Logistic
        | B::Mean
        | B::Pad
        | B::Padv2
        | B::Transpose
        | B::ResizeBilinear
        | B::ResizeNearestNeighbor
        | B::Quantize
        | B::Dequantize
        | B::Relu
        | B::Relu6
        | B::LeakyRelu
        | B::Maximum
        | B::Minimum
        | B::Tanh => 2,
        _ => 1,
    }
}
