//! The reference interpreter: the oracle every pass and backend is checked
//! against. Kernels are naive and readable, one per op, and follow ONNX
//! semantics exactly.
//!
//! Layout: one module per op family, named by [`crate::Family::name`]
//! (`interp/<family>.rs`, with sub-files in `interp/<family>/` when large),
//! holding the kernels of exactly that family's ops; the op table
//! (`table.rs`) names every kernel by its family's module. Besides the
//! families there are only infrastructure modules shared by all of them:
//! `tensor` (runtime tensors and the numeric views of their data that kernels
//! of many families compute in), `broadcast` (numpy broadcasting and axis
//! normalization), `lowp` (data of the low-precision element types) and
//! `table`. This file holds the interpreter proper and the helpers kernels
//! use to call other kernels ([`sub_kernel`], [`call`], [`call_canonical`]).
//!
//! Invariants checked while running: every op's outputs match its declared
//! result types (element type, rank, static dims), and each symbolic dim is
//! bound to one size for the whole run (first binding wins, any later
//! disagreement is an error naming the op).

pub mod attention;
pub mod broadcast;
pub mod control;
pub mod conv;
pub mod elementwise;
pub mod generate;
pub mod index;
pub mod layout;
pub mod linalg;
pub mod loss;
pub mod lowp;
pub mod norm;
pub mod pool;
pub mod quant;
pub mod reduce;
pub mod resample;
pub mod rnn;
pub mod select;
pub mod signal;
pub mod strings;
mod table;
pub mod tensor;

pub use table::kernel;
pub use tensor::{from_le_bytes, strides, Data, Tensor};

use crate::attr::Attrs;
use crate::module::{Function, Loc, Module, OpId, Region, Value};
use crate::types::{DType, Dim, Symbol, TensorType};
use std::cell::RefCell;
use std::collections::HashMap;

/// A kernel: computes an op's results from its operands and attributes.
pub type EvalFn = fn(&EvalCtx<'_>) -> Result<Vec<Tensor>, String>;

/// Runs a nested region of the current op with the given parameters.
pub trait RegionRunner {
    /// Run region `index` of the op being evaluated.
    fn run_region(&mut self, index: usize, params: Vec<Tensor>) -> Result<Vec<Tensor>, String>;
}

/// What a kernel sees.
pub struct EvalCtx<'a> {
    /// Operands in schema order (`None` for omitted optional operands).
    pub inputs: &'a [Option<&'a Tensor>],
    /// Attributes.
    pub attrs: &'a Attrs,
    /// The module (for constants referenced by symbol attributes).
    pub module: &'a Module,
    /// Declared result types (kernels whose output type depends on it may read it).
    pub result_types: &'a [TensorType],
    /// Region execution for control-flow ops.
    pub regions: std::cell::RefCell<&'a mut dyn RegionRunner>,
}

impl<'a> EvalCtx<'a> {
    /// Operand `i`, or an error naming it.
    pub fn input(&self, i: usize) -> Result<&'a Tensor, String> {
        self.inputs.get(i).copied().flatten().ok_or_else(|| format!("missing operand #{i}"))
    }
    /// Operand `i` if present.
    pub fn opt(&self, i: usize) -> Option<&'a Tensor> {
        self.inputs.get(i).copied().flatten()
    }
    /// Number of results the op declares.
    pub fn num_results(&self) -> usize {
        self.result_types.len()
    }
    /// Integer attribute with a default.
    pub fn int(&self, name: &str, default: i64) -> i64 {
        self.attrs.int(name).unwrap_or(default)
    }
    /// Float attribute with a default.
    pub fn float(&self, name: &str, default: f32) -> f32 {
        self.attrs.float(name).unwrap_or(default)
    }
    /// String attribute with a default.
    pub fn str(&self, name: &str, default: &'a str) -> &'a str {
        self.attrs.str(name).unwrap_or(default)
    }
}

/// Region runner for kernels called by other kernels (none of them has
/// regions); it names the caller in its internal error.
struct NoRegions(&'static str);

impl RegionRunner for NoRegions {
    fn run_region(&mut self, index: usize, _params: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        Err(format!("internal: {} asked for region #{index}", self.0))
    }
}

/// Run `kernel` on `inputs` with `attrs` (in `ctx`'s module), as the
/// interpreter would run the op, its result typed like the first present
/// input; `who` names the caller should the kernel ask for a region.
pub(crate) fn sub_kernel(
    ctx: &EvalCtx<'_>,
    kernel: EvalFn,
    inputs: &[Option<&Tensor>],
    attrs: &Attrs,
    who: &'static str,
) -> Result<Vec<Tensor>, String> {
    let dt = inputs.iter().flatten().next().map_or(DType::F32, |t| t.dtype());
    let result_types = [TensorType::unranked(dt)];
    let mut none = NoRegions(who);
    let sub =
        EvalCtx { inputs, attrs, module: ctx.module, result_types: &result_types, regions: RefCell::new(&mut none) };
    kernel(&sub)
}

/// The first result of a kernel.
pub(crate) fn first(out: Vec<Tensor>) -> Result<Tensor, String> {
    out.into_iter().next().ok_or_else(|| "internal: a sub-kernel produced no result".into())
}

/// Run `kernel` on `inputs` with `attrs` (in `ctx`'s module) and return its
/// first result, as the interpreter would for a one-result op. The fused
/// `core.*` kernels are composed of such calls, so they round exactly like
/// the chains they replace.
pub(crate) fn call(
    ctx: &EvalCtx<'_>,
    kernel: EvalFn,
    inputs: &[Option<&Tensor>],
    attrs: &Attrs,
) -> Result<Tensor, String> {
    first(sub_kernel(ctx, kernel, inputs, attrs, "a fused op's sub-kernel")?)
}

/// Run `kernel` on `ctx`'s data operand followed by the 1-D i64 operands
/// `lists`, with `attrs`, as the interpreter would run the onnx op: how the
/// canonical `core.*` kernels (layout, reduce) call their onnx counterparts.
pub(crate) fn call_canonical(
    ctx: &EvalCtx<'_>,
    kernel: EvalFn,
    lists: &[&[i64]],
    attrs: &Attrs,
) -> Result<Vec<Tensor>, String> {
    let x = ctx.input(0)?;
    let extra: Vec<Tensor> = lists.iter().map(|v| Tensor::from_i64s(v.to_vec())).collect();
    let inputs: Vec<Option<&Tensor>> = std::iter::once(Some(x)).chain(extra.iter().map(Some)).collect();
    sub_kernel(ctx, kernel, &inputs, attrs, "a canonical op's onnx kernel")
}

/// An interpreter failure, naming the op and its provenance.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{op}{}: {message}", if *loc == Loc::Unknown { String::new() } else { format!(" [{loc}]") })]
pub struct InterpError {
    /// Op name (or `input`/`output` for boundary checks).
    pub op: String,
    /// Provenance.
    pub loc: Loc,
    /// What went wrong.
    pub message: String,
}

/// Run function `name` of `m` on `inputs` (one per parameter, in order).
pub fn run(m: &Module, name: &str, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, InterpError> {
    run_traced(m, name, inputs).map(|(out, _)| out)
}

/// [`run`], also returning every value of the function's body (its
/// parameters and each op's results; not the values inside regions), as
/// calibration and per-layer comparison need. The interpreter keeps them
/// all while it runs, so this costs no extra memory.
pub fn run_traced(
    m: &Module,
    name: &str,
    inputs: Vec<Tensor>,
) -> Result<(Vec<Tensor>, HashMap<Value, Tensor>), InterpError> {
    let f = m.func(name).ok_or_else(|| boundary(format!("no function @{name}")))?;
    if inputs.len() != f.body.params.len() {
        return Err(boundary(format!("@{name} takes {} inputs, {} given", f.body.params.len(), inputs.len())));
    }
    let mut st = State { m, f, env: HashMap::new(), outer: Vec::new(), syms: HashMap::new() };
    for (i, (&p, t)) in f.body.params.iter().zip(inputs).enumerate() {
        let what = format!("input #{i} ({})", f.values[p].name.as_deref().unwrap_or("?"));
        st.check_type(&t, f.ty(p)).map_err(|e| boundary(format!("{what}: {e}")))?;
        st.env.insert(p, t);
    }
    st.run_ops(&f.body)?;
    let mut out = Vec::new();
    for (i, &v) in f.body.results.iter().enumerate() {
        let t = st.env.get(&v).cloned().ok_or_else(|| boundary(format!("output #{i} was never computed")))?;
        st.check_type(&t, &f.result_types[i]).map_err(|e| boundary(format!("output #{i}: {e}")))?;
        out.push(t);
    }
    Ok((out, st.env))
}

fn boundary(message: String) -> InterpError {
    InterpError { op: "interpreter".into(), loc: Loc::Unknown, message }
}

/// Values computed in one scope, with read-only access to enclosing scopes.
struct State<'m, 'o> {
    m: &'m Module,
    f: &'m Function,
    env: HashMap<Value, Tensor>,
    outer: Vec<&'o HashMap<Value, Tensor>>,
    syms: HashMap<Symbol, usize>,
}

impl<'m, 'o> State<'m, 'o> {
    fn lookup(&self, v: Value) -> Option<&Tensor> {
        self.env.get(&v).or_else(|| self.outer.iter().rev().find_map(|e| e.get(&v)))
    }

    fn run_ops(&mut self, r: &Region) -> Result<(), InterpError> {
        for &id in &r.ops {
            self.run_op(id)?;
        }
        Ok(())
    }

    fn run_op(&mut self, id: OpId) -> Result<(), InterpError> {
        let f = self.f;
        let op = &f.ops[id];
        let def = op.opcode.def();
        let err = |message: String| InterpError { op: def.name.into(), loc: op.loc.clone(), message };
        let kernel = table::kernel(op.opcode).ok_or_else(|| err("no reference kernel for this op".into()))?;
        let result_types: Vec<TensorType> = op.results.iter().map(|&v| f.ty(v).clone()).collect();
        let outputs = {
            let inputs: Vec<Option<&Tensor>> = op.operands.iter().map(|o| o.and_then(|v| self.lookup(v))).collect();
            if let Some(i) = op.operands.iter().zip(&inputs).position(|(o, t)| o.is_some() && t.is_none()) {
                return Err(err(format!("operand #{i} has no value")));
            }
            let mut outer = self.outer.clone();
            outer.push(&self.env);
            let mut runner = Regions { m: self.m, f, op: id, outer, syms: self.syms.clone() };
            let ctx = EvalCtx {
                inputs: &inputs,
                attrs: &op.attrs,
                module: self.m,
                result_types: &result_types,
                regions: RefCell::new(&mut runner),
            };
            kernel(&ctx).map_err(err)?
        };
        if outputs.len() != op.results.len() {
            return Err(err(format!("kernel produced {} results, op declares {}", outputs.len(), op.results.len())));
        }
        for (i, (t, ty)) in outputs.iter().zip(&result_types).enumerate() {
            self.check_type(t, ty).map_err(|e| err(format!("result #{i}: {e}")))?;
        }
        for (&v, t) in op.results.iter().zip(outputs) {
            self.env.insert(v, t);
        }
        Ok(())
    }

    /// Check a runtime tensor against a declared type, binding symbols.
    fn check_type(&mut self, t: &Tensor, ty: &TensorType) -> Result<(), String> {
        check_type(&mut self.syms, t, ty)
    }
}

fn check_type(syms: &mut HashMap<Symbol, usize>, t: &Tensor, ty: &TensorType) -> Result<(), String> {
    if t.dtype() != ty.dtype {
        return Err(format!("got element type {}, declared {}", t.dtype(), ty.dtype));
    }
    let Some(dims) = ty.dims() else { return Ok(()) };
    if dims.len() != t.rank() {
        return Err(format!("got shape {:?}, declared {}", t.shape, ty.shape));
    }
    for (&d, &n) in dims.iter().zip(&t.shape) {
        match d {
            Dim::Static(s) if s as usize != n => return Err(format!("got shape {:?}, declared {}", t.shape, ty.shape)),
            Dim::Sym(s) => {
                let bound = *syms.entry(s).or_insert(n);
                if bound != n {
                    return Err(format!("dim `{}` is {n} here but was {bound} earlier", s.as_str()));
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// Runs regions of one op: a child scope that sees every value computed so far.
struct Regions<'a> {
    m: &'a Module,
    f: &'a Function,
    op: OpId,
    outer: Vec<&'a HashMap<Value, Tensor>>,
    syms: HashMap<Symbol, usize>,
}

impl RegionRunner for Regions<'_> {
    fn run_region(&mut self, index: usize, params: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
        let r = self.f.ops[self.op].regions.get(index).ok_or_else(|| format!("op has no region #{index}"))?;
        if params.len() != r.params.len() {
            return Err(format!("region #{index} takes {} parameters, {} given", r.params.len(), params.len()));
        }
        let mut st =
            State { m: self.m, f: self.f, env: HashMap::new(), outer: self.outer.clone(), syms: self.syms.clone() };
        for (&p, t) in r.params.iter().zip(params) {
            st.env.insert(p, t);
        }
        st.run_ops(r).map_err(|e| e.to_string())?;
        r.results
            .iter()
            .map(|&v| st.lookup(v).cloned().ok_or_else(|| "region result was never computed".into()))
            .collect()
    }
}

/// Evaluate one op on concrete inputs: builds a module whose inputs are
/// constants (so shape inference sees their values), infers the result types,
/// verifies it and runs it. The convenient entry point for kernel tests.
pub fn eval_op(
    opcode: crate::Opcode,
    inputs: &[Option<Tensor>],
    attrs: Attrs,
    num_results: usize,
) -> Result<Vec<Tensor>, String> {
    eval_op_with(opcode, inputs, attrs, num_results, &[])
}

/// [`eval_op`] for an op whose attributes name module constants (`Sym`,
/// e.g. ConstantOfShape's `value`): `consts` holds them.
pub fn eval_op_with(
    opcode: crate::Opcode,
    inputs: &[Option<Tensor>],
    attrs: Attrs,
    num_results: usize,
    consts: &[crate::module::Constant],
) -> Result<Vec<Tensor>, String> {
    use crate::module::{ConstData, Constant};
    let mut m = Module::new("eval");
    for c in consts {
        m.add_const(c.clone())?;
    }
    let mut f = Function::new("main");
    let mut operands = Vec::new();
    for (i, t) in inputs.iter().enumerate() {
        let Some(t) = t else {
            operands.push(None);
            continue;
        };
        let data = match &t.data {
            Data::String(s) => ConstData::Strings(s.clone().into()),
            _ => ConstData::Bytes(t.to_le_bytes().unwrap_or_default().into()),
        };
        let name = format!("in{i}");
        m.add_const(Constant { name: name.clone(), ty: t.ty(), data })?;
        let attrs = Attrs::new().with("value", crate::Attr::Sym(name));
        let c = f.append_op(crate::Opcode::CoreConst, [], attrs, [t.ty()], Loc::Unknown);
        operands.push(Some(f.result(c)));
    }
    let probe = f.create_op(
        opcode,
        operands.clone(),
        attrs.clone(),
        vec![TensorType::unranked(crate::DType::F32); num_results],
        Loc::Unknown,
    );
    let types = crate::infer::infer_op(&m, &f, &f.ops[probe])?;
    let op = f.append_op(opcode, operands, attrs, types.clone(), Loc::Unknown);
    f.body.results = f.ops[op].results.to_vec();
    f.result_types = types;
    m.funcs.push(f);
    crate::verify::verify(&m).map_err(|e| e.to_string())?;
    run(&m, "main", vec![]).map_err(|e| e.to_string())
}
