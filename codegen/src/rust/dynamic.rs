//! Functions with symbolic dims: shapes evaluated when the model runs.
//!
//! The method of such a function starts with a prologue that binds every
//! input dim (checking that the occurrences of one symbol agree), computes
//! the shape of every value op by op (`shapes::result_shapes`: literals
//! where the compiler knows a size, run-time expressions elsewhere, each
//! size the IR declares static checked), and takes the memory plan for
//! this set of buffer sizes from the model's plan cache (planned on first
//! use with the same best-fit placement static models get when generated;
//! the arenas grow only when a larger plan arrives). The op blocks that
//! follow are the static backend's lowerings, reading dims and offsets from
//! the prologue's variables.

use super::func::Emitter;
use super::shapes::{has_runtime_shape_operands, result_shapes, values, Iv, ShapeCx, Vals};
use super::sz::Sz;
use crate::plan::{Class, Plan, Storage};
use ir::{Dim, Function, OpId, Value};
use std::collections::HashMap;

/// What the op lowerings of a function with symbolic dims read.
#[derive(Debug, Default)]
pub struct Shapes {
    /// Dims of every value the function's ops read or write.
    pub dims: HashMap<Value, Vec<Sz>>,
    /// Offset of each plan buffer (`po[b]`).
    pub buf_off: Vec<Sz>,
    /// Length of each plan buffer.
    pub buf_len: Vec<Sz>,
}

/// True if any value `plan` stores has a symbolic or unknown dim, or an op
/// takes a shape parameter (a Reshape target, Slice bounds) that is not a
/// constant: its result's sizes are then checked when the model runs.
pub fn is_dynamic(m: &ir::Module, f: &Function, plan: &Plan) -> bool {
    plan.storage.keys().any(|&v| f.ty(v).shape.static_dims().is_none())
        || plan.schedule.iter().any(|&id| has_runtime_shape_operands(m, f, &f.ops[id]))
}

/// The name of the plan cache field of function `name`.
pub fn cache_field(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("pc_{s}")
}

/// The prologue of `f`'s method and the shapes its ops read.
pub fn prologue(e: &mut Emitter<'_>, f: &Function, plan: &Plan) -> Result<(String, Shapes), Vec<String>> {
    let mut sh = Shapes::default();
    let mut code = String::new();
    let mut errs = Vec::new();
    bind_params(f, &mut sh, &mut code);
    let mut contents = HashMap::new();
    for (n, &id) in plan.schedule.iter().enumerate() {
        if let Err(err) = op_shapes(e, f, plan, id, n, &mut sh, &mut contents, &mut code) {
            errs.push(format!("{}: {err}", super::func::describe(&f.ops[id], f)));
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    code += &plan_code(e, f, plan, &mut sh);
    Ok((code, sh))
}

/// Dims of the parameters: `p{i}s[k]` for each non-static dim; later
/// occurrences of a symbol are checked against the first.
fn bind_params(f: &Function, sh: &mut Shapes, code: &mut String) {
    let mut first: HashMap<ir::Symbol, Sz> = HashMap::new();
    for (i, &p) in f.body.params.iter().enumerate() {
        let dims = f.ty(p).dims().unwrap_or(&[]);
        let mut out = Vec::with_capacity(dims.len());
        for (k, d) in dims.iter().enumerate() {
            let here = Sz::expr(format!("p{i}s[{k}]"));
            out.push(match *d {
                Dim::Static(n) => Sz::Lit(n as usize),
                Dim::Sym(s) => match first.get(&s) {
                    Some(e) => {
                        *code += &format!("        k::shape::same({:?}, {e}, {here})?;\n", s.as_str());
                        e.clone()
                    }
                    None => {
                        first.insert(s, here.clone());
                        here
                    }
                },
                Dim::Unknown => here,
            });
        }
        sh.dims.insert(p, out);
    }
}

/// Static dims of `v` from its type (constants and hoisted values).
fn static_dims(f: &Function, v: Value) -> Option<Vec<Sz>> {
    f.ty(v).shape.static_dims().map(|d| d.iter().map(|&x| Sz::Lit(x as usize)).collect())
}

/// Compute (and bind) the shapes of op `id`'s results, and follow the
/// contents of its result if it is a small integer tensor computed from
/// shapes (`shapes::values`).
#[allow(clippy::too_many_arguments)]
fn op_shapes(
    e: &mut Emitter<'_>,
    f: &Function,
    plan: &Plan,
    id: OpId,
    n: usize,
    sh: &mut Shapes,
    contents: &mut HashMap<Value, Vec<Iv>>,
    code: &mut String,
) -> Result<(), String> {
    let op = &f.ops[id];
    let ins: Vec<Option<Vec<Sz>>> =
        op.operands.iter().map(|o| o.and_then(|v| sh.dims.get(&v).cloned().or_else(|| static_dims(f, v)))).collect();
    let mut sc = ShapeCx::new(e.m, f, op, ins, format!("t{n}"));
    for (i, o) in op.operands.iter().enumerate() {
        let Some(v) = *o else { continue };
        sc.rt_vals[i] = contents.get(&v).cloned().map(Vals::Sym).or_else(|| input_values(f, plan, v));
    }
    if op.regions.is_empty() {
        if let Some(c) = values::contents(&sc) {
            contents.insert(op.results[0], c);
        }
    }
    let all_static = op.results.iter().all(|&r| f.ty(r).shape.static_dims().is_some());
    let checked = all_static && op.regions.is_empty() && has_runtime_shape_operands(e.m, f, op);
    if all_static && !checked {
        for &r in &op.results {
            sh.dims.insert(r, static_dims(f, r).unwrap_or_default());
        }
        return Ok(());
    }
    if !op.regions.is_empty() {
        return Err("control flow with symbolic dims is not supported by the Rust backend yet".into());
    }
    let shapes = match result_shapes(&mut sc) {
        Ok(s) => s,
        // Static sizes the rule cannot check from these run-time values are
        // taken as declared (the kernels still check lengths).
        Err(_) if checked => {
            sc.lines.clear();
            op.results.iter().map(|&r| static_dims(f, r).unwrap_or_default()).collect()
        }
        Err(e) => return Err(e),
    };
    for l in &sc.lines {
        *code += &format!("        {l}\n");
    }
    let what = sc.what.clone();
    for (j, (&r, dims)) in op.results.iter().zip(shapes).enumerate() {
        let dims = check_declared(f, r, j, dims, &what, code)?;
        sh.dims.insert(r, bind_result(r, dims, code));
    }
    Ok(())
}

/// Check computed dims against the sizes the IR declares static (checked
/// when the model runs where computed then).
fn check_declared(
    f: &Function,
    r: Value,
    j: usize,
    dims: Vec<Sz>,
    what: &str,
    code: &mut String,
) -> Result<Vec<Sz>, String> {
    let declared = f.ty(r).dims().ok_or("result rank unknown")?.to_vec();
    if declared.len() != dims.len() {
        return Err(format!("result #{j}: rank {} computed, {} declared", dims.len(), declared.len()));
    }
    let mut out = Vec::with_capacity(dims.len());
    for (k, (d, decl)) in dims.into_iter().zip(declared).enumerate() {
        out.push(match (d, decl) {
            (Sz::Lit(a), Dim::Static(b)) if a as u64 != b => {
                return Err(format!("result #{j}: dim {k} is {a} but the IR says {b}"))
            }
            (Sz::Expr(x), Dim::Static(b)) => {
                *code += &format!("        k::shape::expect({what:?}, {k}, {x}, {b})?;\n");
                Sz::Lit(b as usize)
            }
            (d, _) => d,
        });
    }
    Ok(out)
}

/// Bind the non-literal dims of result `r` to `s{r}` (so later expressions stay short).
fn bind_result(r: Value, dims: Vec<Sz>, code: &mut String) -> Vec<Sz> {
    if dims.iter().all(|d| d.lit().is_some()) {
        return dims;
    }
    let name = format!("s{}", r.as_u32());
    *code += &format!("        let {name}: [usize; {}] = {};\n", dims.len(), Sz::array(&dims));
    dims.iter()
        .enumerate()
        .map(|(k, d)| if d.lit().is_some() { d.clone() } else { Sz::expr(format!("{name}[{k}]")) })
        .collect()
}

/// The values of `v` if it is a small input of the model (read when it runs).
fn input_values(f: &Function, plan: &Plan, v: Value) -> Option<Vals> {
    let Some(Storage::Param(i)) = plan.storage.get(&v) else { return None };
    let len = f.ty(v).shape.num_elements()? as usize;
    let dt = f.ty(v).dtype;
    if len > 64 {
        return None;
    }
    if dt.is_int() {
        return Some(Vals::Sym((0..len).map(|j| Iv::Expr(format!("(p{i}[{j}] as i64)"))).collect()));
    }
    (dt == ir::DType::F32 || dt == ir::DType::F64)
        .then(|| Vals::Floats((0..len).map(|j| format!("(p{i}[{j}] as f32)")).collect()))
}

/// Buffer lengths, the plan lookup and arena growth.
fn plan_code(e: &mut Emitter<'_>, f: &Function, plan: &Plan, sh: &mut Shapes) -> String {
    let nb = plan.buffers.len();
    let mut owner: Vec<Option<Value>> = vec![None; nb];
    let mut values: Vec<Value> = f.body.params.clone();
    for &id in &plan.schedule {
        values.extend(f.ops[id].results.iter().copied());
    }
    for v in values {
        if let Some(Storage::Buffer(b)) = plan.storage.get(&v) {
            owner[*b].get_or_insert(v);
        }
    }
    for (&i, &b) in &plan.result_copies {
        owner[b].get_or_insert(f.body.results[i]);
    }
    let mut code = String::new();
    sh.buf_len = owner
        .iter()
        .enumerate()
        .map(|(b, v)| {
            let n = v.and_then(|v| sh.dims.get(&v)).map_or(Sz::Lit(0), Sz::product);
            if n.lit().is_some() {
                return n;
            }
            code += &format!("        let n{b}: usize = {n};\n");
            Sz::expr(format!("n{b}"))
        })
        .collect();
    if nb == 0 {
        return code;
    }
    let live: Vec<String> = crate::plan::live_ranges(plan)
        .iter()
        .map(|l| format!("k::plan::Live::new({}, {}, {})", l.class, l.def, l.last))
        .collect();
    let bufs = format!("BUFS_{}", cache_field(&f.name).to_uppercase());
    e.parts.items.push(format!("const {bufs}: [k::plan::Live; {nb}] = [{}];", live.join(", ")));
    let pc = cache_field(&f.name);
    let lens: Vec<String> = sh.buf_len.iter().map(Sz::to_string).collect();
    code += &format!("        let lens: [usize; {nb}] = [{}];\n", lens.join(", "));
    code += &format!("        let pi = self.{pc}.plan(&{bufs}, &lens, {});\n", Class::ALL.len());
    code += &format!("        let mut po = [0usize; {nb}];\n        po.copy_from_slice(self.{pc}.offsets(pi));\n");
    let mut classes: Vec<Class> = plan.buffers.iter().map(|b| b.class).collect();
    classes.sort();
    classes.dedup();
    for c in classes {
        let ci = crate::plan::class_index(c);
        code += &format!("        k::rt::grow(&mut self.a{}, self.{pc}.arena(pi, {ci}));\n", c.suffix());
    }
    sh.buf_off = (0..nb).map(|b| Sz::expr(format!("po[{b}]"))).collect();
    code
}
