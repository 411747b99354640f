//! Generate a synthetic transformer encoder as an ONNX model, for benchmarks.
//!
//! The graph has the shape PyTorch and paddle2onnx emit at opset 13: LayerNorm
//! decomposed into `ReduceMean`/`Sub`/`Pow`/`ReduceMean`/`Add`/`Sqrt`/`Div`/
//! `Mul`/`Add`, multi-head attention built from `MatMul`+`Add` projections,
//! `Reshape`/`Transpose` head splits, a scaled, masked `Softmax`, and a
//! feed-forward block with GELU in its `erf` form. Scalars, shapes and the
//! attention mask are `Constant` nodes (one per use, as exporters write them);
//! weights are initializers drawn from a fixed-seed LCG, so the same arguments
//! always give byte-identical files.
//!
//! ```text
//! cargo run --release -p edgec-examples --bin gen_transformer -- --layers 12 -o /tmp/t12.onnx
//! ```
//!
//! Options: `--layers N` (default 12), `--d-model D` (64), `--heads H` (4),
//! `--ff F` (128), `--seq S` (32), `--seed N` (1), `-o FILE` (required),
//! `--input-npy FILE` (also write a random input for `x`, in `[-1, 1)`, as
//! `.npy`, for `edgec run --input x=FILE`).
//! The model has one input `x: f32[1, S, D]` and one output `y: f32[1, S, D]`.

use compiler::frontend::onnx::proto::{
    attribute_proto::AttributeType, tensor_proto::DataType, tensor_shape_proto, type_proto, AttributeProto, GraphProto,
    ModelProto, NodeProto, OperatorSetIdProto, TensorProto, TensorShapeProto, TypeProto, ValueInfoProto,
};
use compiler::npy::write_npy;
use ir::interp::{Data, Tensor};
use prost::Message;
use std::process::ExitCode;

/// Model dimensions. Invariant (checked by [`Config::validate`]): all sizes are
/// positive and `d_model` is a multiple of `heads`.
#[derive(Clone, Debug)]
struct Config {
    layers: usize,
    d_model: usize,
    heads: usize,
    ff: usize,
    seq: usize,
    seed: u64,
    output: String,
    input_npy: Option<String>,
}

impl Config {
    fn parse(args: &[String]) -> Result<Config, String> {
        let mut c = Config {
            layers: 12,
            d_model: 64,
            heads: 4,
            ff: 128,
            seq: 32,
            seed: 1,
            output: String::new(),
            input_npy: None,
        };
        let mut it = args.iter();
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
            let num = || value.parse::<usize>().map_err(|e| format!("{flag} {value}: {e}"));
            match flag.as_str() {
                "--layers" => c.layers = num()?,
                "--d-model" => c.d_model = num()?,
                "--heads" => c.heads = num()?,
                "--ff" => c.ff = num()?,
                "--seq" => c.seq = num()?,
                "--seed" => c.seed = num()? as u64,
                "-o" | "--output" => c.output = value.clone(),
                "--input-npy" => c.input_npy = Some(value.clone()),
                _ => return Err(format!("unknown option {flag}")),
            }
        }
        c.validate()?;
        Ok(c)
    }

    fn validate(&self) -> Result<(), String> {
        if self.output.is_empty() {
            return Err("missing -o FILE".into());
        }
        if [self.layers, self.d_model, self.heads, self.ff, self.seq].contains(&0) {
            return Err("sizes must be positive".into());
        }
        if !self.d_model.is_multiple_of(self.heads) {
            return Err(format!("--d-model {} is not a multiple of --heads {}", self.d_model, self.heads));
        }
        Ok(())
    }

    fn head_dim(&self) -> usize {
        self.d_model / self.heads
    }
}

/// A 64-bit linear congruential generator (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    /// Uniform in `[-1, 1)`.
    fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
}

/// Accumulates nodes and initializers; names are unique by construction
/// (a running counter).
struct Builder {
    nodes: Vec<NodeProto>,
    inits: Vec<TensorProto>,
    rng: Lcg,
    next: usize,
}

fn f32_tensor(name: &str, dims: &[usize], data: &[f32]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: dims.iter().map(|&d| d as i64).collect(),
        data_type: DataType::Float as i32,
        raw_data: data.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ..Default::default()
    }
}

fn i64_tensor(name: &str, data: &[i64]) -> TensorProto {
    TensorProto {
        name: name.into(),
        dims: vec![data.len() as i64],
        data_type: DataType::Int64 as i32,
        raw_data: data.iter().flat_map(|v| v.to_le_bytes()).collect(),
        ..Default::default()
    }
}

fn attr_ints(name: &str, v: &[i64]) -> AttributeProto {
    AttributeProto { name: name.into(), r#type: AttributeType::Ints as i32, ints: v.to_vec(), ..Default::default() }
}

fn attr_int(name: &str, v: i64) -> AttributeProto {
    AttributeProto { name: name.into(), r#type: AttributeType::Int as i32, i: v, ..Default::default() }
}

impl Builder {
    fn fresh(&mut self, base: &str) -> String {
        self.next += 1;
        format!("{base}_{}", self.next)
    }

    /// Appends a node with one output and returns the output's name.
    fn op(&mut self, op: &str, inputs: &[&str], attrs: Vec<AttributeProto>) -> String {
        let out = self.fresh(op);
        self.nodes.push(NodeProto {
            op_type: op.into(),
            name: format!("{out}_node"),
            input: inputs.iter().map(|s| s.to_string()).collect(),
            output: vec![out.clone()],
            attribute: attrs,
            ..Default::default()
        });
        out
    }

    /// A `Constant` node holding `t` (its name is replaced by a fresh one).
    fn constant(&mut self, t: TensorProto) -> String {
        let attr = AttributeProto {
            name: "value".into(),
            r#type: AttributeType::Tensor as i32,
            t: Some(t),
            ..Default::default()
        };
        self.op("Constant", &[], vec![attr])
    }

    fn scalar(&mut self, v: f32) -> String {
        self.constant(f32_tensor("", &[], &[v]))
    }

    fn shape(&mut self, dims: &[i64]) -> String {
        self.constant(i64_tensor("", dims))
    }

    /// An initializer with values `center + scale * U[-1, 1)`.
    fn weight(&mut self, base: &str, dims: &[usize], center: f32, scale: f32) -> String {
        let name = self.fresh(base);
        let n: usize = dims.iter().product();
        let data: Vec<f32> = (0..n).map(|_| center + scale * self.rng.next_f32()).collect();
        self.inits.push(f32_tensor(&name, dims, &data));
        name
    }

    /// `x @ W + b` with `W: [din, dout]` scaled by `1/sqrt(din)`.
    fn linear(&mut self, x: &str, din: usize, dout: usize) -> String {
        let w = self.weight("weight", &[din, dout], 0.0, 1.0 / (din as f32).sqrt());
        let b = self.weight("bias", &[dout], 0.0, 0.02);
        let mm = self.op("MatMul", &[x, &w], vec![]);
        self.op("Add", &[&mm, &b], vec![])
    }

    /// Decomposed LayerNorm over the last axis.
    fn layer_norm(&mut self, x: &str, d: usize) -> String {
        let axes = || vec![attr_ints("axes", &[-1]), attr_int("keepdims", 1)];
        let mean = self.op("ReduceMean", &[x], axes());
        let centered = self.op("Sub", &[x, &mean], vec![]);
        let two = self.scalar(2.0);
        let sq = self.op("Pow", &[&centered, &two], vec![]);
        let var = self.op("ReduceMean", &[&sq], axes());
        let eps = self.scalar(1e-5);
        let var_eps = self.op("Add", &[&var, &eps], vec![]);
        let std = self.op("Sqrt", &[&var_eps], vec![]);
        let normed = self.op("Div", &[&centered, &std], vec![]);
        let gamma = self.weight("ln_gamma", &[d], 1.0, 0.05);
        let beta = self.weight("ln_beta", &[d], 0.0, 0.05);
        let scaled = self.op("Mul", &[&normed, &gamma], vec![]);
        self.op("Add", &[&scaled, &beta], vec![])
    }

    /// Projects `x` and splits heads: `[1,S,D] -> [1,S,H,Dh] -> perm`.
    fn head_proj(&mut self, x: &str, c: &Config, perm: &[i64]) -> String {
        let p = self.linear(x, c.d_model, c.d_model);
        let shape = self.shape(&[1, c.seq as i64, c.heads as i64, c.head_dim() as i64]);
        let r = self.op("Reshape", &[&p, &shape], vec![]);
        self.op("Transpose", &[&r], vec![attr_ints("perm", perm)])
    }

    /// Multi-head self-attention with a constant padding mask (last quarter of
    /// the positions masked out).
    fn attention(&mut self, x: &str, c: &Config) -> String {
        let q = self.head_proj(x, c, &[0, 2, 1, 3]);
        let k = self.head_proj(x, c, &[0, 2, 3, 1]);
        let v = self.head_proj(x, c, &[0, 2, 1, 3]);
        let scores = self.op("MatMul", &[&q, &k], vec![]);
        let scale = self.scalar((c.head_dim() as f32).sqrt());
        let scaled = self.op("Div", &[&scores, &scale], vec![]);
        let keep = c.seq - c.seq / 4;
        let mask: Vec<f32> = (0..c.seq).map(|i| if i < keep { 0.0 } else { -10000.0 }).collect();
        let mask = self.constant(f32_tensor("", &[1, 1, 1, c.seq], &mask));
        let masked = self.op("Add", &[&scaled, &mask], vec![]);
        let probs = self.op("Softmax", &[&masked], vec![attr_int("axis", -1)]);
        let ctx = self.op("MatMul", &[&probs, &v], vec![]);
        let ctx = self.op("Transpose", &[&ctx], vec![attr_ints("perm", &[0, 2, 1, 3])]);
        let shape = self.shape(&[1, c.seq as i64, c.d_model as i64]);
        let ctx = self.op("Reshape", &[&ctx, &shape], vec![]);
        self.linear(&ctx, c.d_model, c.d_model)
    }

    /// GELU in its `erf` form: `x * (erf(x / sqrt 2) + 1) * 0.5`.
    fn gelu(&mut self, x: &str) -> String {
        let sqrt2 = self.scalar(std::f32::consts::SQRT_2);
        let div = self.op("Div", &[x, &sqrt2], vec![]);
        let erf = self.op("Erf", &[&div], vec![]);
        let one = self.scalar(1.0);
        let plus = self.op("Add", &[&erf, &one], vec![]);
        let mul = self.op("Mul", &[x, &plus], vec![]);
        let half = self.scalar(0.5);
        self.op("Mul", &[&mul, &half], vec![])
    }

    /// One post-LN encoder layer (BERT layout).
    fn layer(&mut self, x: &str, c: &Config) -> String {
        let attn = self.attention(x, c);
        let res = self.op("Add", &[x, &attn], vec![]);
        let x = self.layer_norm(&res, c.d_model);
        let h = self.linear(&x, c.d_model, c.ff);
        let h = self.gelu(&h);
        let h = self.linear(&h, c.ff, c.d_model);
        let res = self.op("Add", &[&x, &h], vec![]);
        self.layer_norm(&res, c.d_model)
    }
}

fn value_info(name: &str, dims: &[usize]) -> ValueInfoProto {
    let dim = dims
        .iter()
        .map(|&d| tensor_shape_proto::Dimension {
            value: Some(tensor_shape_proto::dimension::Value::DimValue(d as i64)),
            ..Default::default()
        })
        .collect();
    let t = type_proto::Tensor { elem_type: DataType::Float as i32, shape: Some(TensorShapeProto { dim }) };
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto { value: Some(type_proto::Value::TensorType(t)), ..Default::default() }),
        ..Default::default()
    }
}

/// Builds the whole model; the final layer's result is renamed `y` with an
/// `Identity`, as exporters do for named outputs.
fn build(c: &Config) -> ModelProto {
    let mut b = Builder { nodes: Vec::new(), inits: Vec::new(), rng: Lcg(c.seed), next: 0 };
    let mut x = "x".to_string();
    for _ in 0..c.layers {
        x = b.layer(&x, c);
    }
    b.nodes.push(NodeProto {
        op_type: "Identity".into(),
        name: "output_identity".into(),
        input: vec![x],
        output: vec!["y".into()],
        ..Default::default()
    });
    let io = [1, c.seq, c.d_model];
    let graph = GraphProto {
        name: format!("transformer_{}l", c.layers),
        node: b.nodes,
        initializer: b.inits,
        input: vec![value_info("x", &io)],
        output: vec![value_info("y", &io)],
        ..Default::default()
    };
    ModelProto {
        ir_version: 7,
        producer_name: "edgec gen_transformer".into(),
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: 13 }],
        graph: Some(graph),
        ..Default::default()
    }
}

/// A random `x` input (seeded from `seed + 1`, so it differs from the weights).
fn random_input(c: &Config) -> Vec<u8> {
    let mut rng = Lcg(c.seed.wrapping_add(1));
    let data: Vec<f32> = (0..c.seq * c.d_model).map(|_| rng.next_f32()).collect();
    write_npy(&Tensor::new(vec![1, c.seq, c.d_model], Data::F32(data)))
}

fn write(path: &str, bytes: &[u8]) -> Result<(), String> {
    std::fs::write(path, bytes).map_err(|e| format!("cannot write {path}: {e}"))
}

const USAGE: &str = "usage: gen_transformer [--layers N] [--d-model D] [--heads H] [--ff F] [--seq S] [--seed N] \
                     [--input-npy FILE] -o FILE";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return ExitCode::SUCCESS;
    }
    let c = match Config::parse(&args) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("gen_transformer: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let model = build(&c);
    let nodes = model.graph.as_ref().map_or(0, |g| g.node.len());
    let written = write(&c.output, &model.encode_to_vec())
        .and_then(|()| c.input_npy.as_ref().map_or(Ok(()), |p| write(p, &random_input(&c))));
    if let Err(e) = written {
        eprintln!("gen_transformer: {e}");
        return ExitCode::FAILURE;
    }
    eprintln!("wrote {} ({} layers, {nodes} nodes)", c.output, c.layers);
    ExitCode::SUCCESS
}
