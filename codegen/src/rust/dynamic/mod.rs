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

pub mod control;

use super::emit::{Emitter, Shapes};
use super::shapes::{has_runtime_shape_operands, result_shapes, values, Iv, ShapeCx, Vals};
use super::sz::Sz;
use crate::plan::{Class, Plan, Storage};
use ir::{Dim, Function, OpId, Value};
use std::collections::{HashMap, HashSet};

/// True if `f` needs shapes computed when the model runs: a value of its
/// body or of a region has a symbolic or unknown size, or an op's result
/// size follows from a run-time value.
pub fn needs_runtime_shapes(m: &ir::Module, f: &Function) -> bool {
    f.body.params.iter().any(|&p| f.ty(p).shape.static_dims().is_none())
        || f.live_ops().iter().any(|&id| {
            let op = &f.ops[id];
            op.results.iter().any(|&r| f.ty(r).shape.static_dims().is_none()) || has_runtime_shape_operands(m, f, op)
        })
}

/// The name of the plan cache field of function `name`.
pub fn cache_field(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("pc_{s}")
}

/// The shapes of every value of `f` (a function with symbolic dims), which
/// values are late, and the statements that compute them, in the variant
/// that assumes `facts` (see [`ShapeCx::decide`]). Every problem is reported.
pub fn analyze(m: &ir::Module, f: &Function, facts: &[(String, bool)]) -> (Shapes, Vec<String>) {
    let mut w = Walk {
        m,
        f,
        sh: Shapes::default(),
        contents: HashMap::new(),
        late_contents: HashSet::new(),
        errs: vec![],
        n: 0,
    };
    w.sh.facts = facts.to_vec();
    bind_params(f, &mut w.sh);
    let body = f.body.ops.clone();
    w.ops(&body, false);
    (w.sh, w.errs)
}

/// The variants of `f`: one per combination of the facts its ranks depend
/// on (at most 8), each with its shapes. A combination under which some op
/// gets a rank it does not take is one the model cannot run at (such sizes
/// get a run-time error); if every combination fails, the first's errors
/// are reported.
pub fn variants(m: &ir::Module, f: &Function) -> Result<Vec<Shapes>, Vec<String>> {
    let mut pending: Vec<Vec<(String, bool)>> = vec![vec![]];
    let mut done = Vec::new();
    let mut first_err = None;
    while let Some(facts) = pending.pop() {
        let (sh, errs) = analyze(m, f, &facts);
        match (sh.open.first(), errs.is_empty()) {
            (Some(cond), _) => {
                for v in [true, false] {
                    let mut more = facts.clone();
                    more.push((cond.clone(), v));
                    pending.push(more);
                }
            }
            (None, true) => done.push(sh),
            (None, false) => {
                first_err.get_or_insert(errs);
            }
        }
        if done.len() + pending.len() > 8 {
            return Err(vec![format!("@{}: more than 8 variants of shape-dependent ranks", f.name)]);
        }
    }
    match (done.is_empty(), first_err) {
        (true, Some(e)) => Err(e),
        _ => Ok(done),
    }
}

/// The prologue of `f`'s method: input dims, early shapes, buffer lengths,
/// the plan lookup and arena growth.
pub fn prologue(e: &mut Emitter<'_>, method: &str, f: &Function, plan: &Plan, sh: &mut Shapes) -> String {
    let mut code = std::mem::take(&mut sh.early_code);
    code += &plan_code(e, method, f, plan, sh);
    code
}

/// Dims of the parameters: `p{i}s[k]` for each non-static dim; later
/// occurrences of a symbol are checked against the first.
fn bind_params(f: &Function, sh: &mut Shapes) {
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
                        sh.early_code += &format!("        k::shape::same({:?}, {e}, {here})?;\n", s.as_str());
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

/// The placeholder for value `v`'s slice in late shape code.
pub fn slice_placeholder(v: Value) -> String {
    format!("⟦{}⟧", v.as_u32())
}

/// The walk over a function's ops that computes every shape.
pub(super) struct Walk<'a> {
    pub(super) m: &'a ir::Module,
    pub(super) f: &'a Function,
    pub(super) sh: Shapes,
    contents: HashMap<Value, Vec<Iv>>,
    /// Values whose contents follow from shapes known only once late ops ran.
    late_contents: HashSet<Value>,
    errs: Vec<String>,
    pub(super) n: usize,
}

impl Walk<'_> {
    pub(super) fn ops(&mut self, ops: &[OpId], in_region: bool) {
        for &id in ops {
            if let Err(err) = self.op(id, in_region) {
                self.errs.push(format!("{}: {err}", super::emit::describe(&self.f.ops[id], self.f)));
            }
        }
    }

    fn op(&mut self, id: OpId, in_region: bool) -> Result<(), String> {
        let (f, op) = (self.f, &self.f.ops[id]);
        if !op.regions.is_empty() {
            return control::shapes(self, id);
        }
        self.n += 1;
        if let Some(v) = op.inputs().find(|&v| !self.sh.dims.contains_key(&v) && f.ty(v).shape.static_dims().is_none())
        {
            return Err(format!("the shape of operand {v} is unknown (see the errors above)"));
        }
        let ins: Vec<Option<Vec<Sz>>> = op.operands.iter().map(|o| o.map(|v| self.dims_of(v))).collect();
        let mut sc = ShapeCx::new(self.m, f, op, ins, format!("t{}", self.n));
        sc.facts = self.sh.facts.clone();
        for (i, o) in op.operands.iter().enumerate() {
            let Some(v) = *o else { continue };
            sc.rt_vals[i] = self.contents.get(&v).cloned().map(Vals::Sym).or_else(|| input_values(f, v));
        }
        // Late operands, or contents that follow from late shapes, exist only
        // once their ops ran: this op's shape code must run after them.
        let late_in = op.inputs().any(|v| self.sh.late.contains(&v));
        let late_src = late_in || in_region || op.inputs().any(|v| self.late_contents.contains(&v));
        if let Some(c) = values::contents(&sc) {
            self.contents.insert(op.results[0], c);
            if late_src {
                self.late_contents.insert(op.results[0]);
            }
        }
        let all_static = op.results.iter().all(|&r| f.ty(r).shape.static_dims().is_some());
        let late = in_region || (late_src && !all_static);
        let checked = all_static && has_runtime_shape_operands(self.m, f, op);
        if all_static && !checked {
            for &r in &op.results {
                self.sh.dims.insert(r, static_dims(f, r).unwrap_or_default());
            }
            if in_region {
                self.sh.late.extend(op.results.iter().copied());
            }
            return Ok(());
        }
        let shapes = match result_shapes(&mut sc) {
            Ok(s) => Ok(s),
            // Static sizes the rule cannot check from these run-time values are
            // taken as declared (the kernels still check lengths).
            Err(_) if checked => {
                sc.lines.clear();
                Ok(op.results.iter().map(|&r| static_dims(f, r).unwrap_or_default()).collect())
            }
            Err(e) => Err(e),
        };
        let (shapes, mut late) = match shapes {
            Ok(s) => (s, late),
            // Values computed from data: read them when the op runs.
            Err(_) => (self.late_retry(&mut sc, id)?, true),
        };
        let counted = std::mem::take(&mut sc.counted);
        let mut code = String::new();
        for (cond, holds) in sc.used.drain(..) {
            code += &guard(&cond, holds);
        }
        for c in sc.open.drain(..) {
            if !self.sh.open.contains(&c) {
                self.sh.open.push(c);
            }
        }
        for l in &sc.lines {
            code += &format!("        {l}\n");
        }
        let what = sc.what.clone();
        for (j, (&r, dims)) in op.results.iter().zip(shapes).enumerate() {
            let ks: Vec<usize> = counted.iter().filter(|c| c.0 == j).map(|c| c.1).collect();
            let dims = if ks.is_empty() {
                let dims = check_declared(f, r, j, dims, &what, &mut code)?;
                bind_result(r, dims, &mut code)
            } else {
                let (dims, open) = bind_counted(f, r, j, dims, &ks, &what, &mut code)?;
                late |= open;
                dims
            };
            self.sh.dims.insert(r, dims);
        }
        if late {
            self.sh.late.extend(op.results.iter().copied());
        }
        if late || late_src {
            self.sh.late_code.entry(id).or_default().push_str(&code);
        } else {
            self.sh.early_code += &code;
        }
        Ok(())
    }

    /// The contents of `v`, also when they follow from late shapes (for
    /// decisions checked where they are made).
    pub(super) fn contents_any(&self, v: Value) -> Option<&Vec<Iv>> {
        self.contents.get(&v)
    }

    /// [`ShapeCx::decide`] for the walk itself (an If's condition); the
    /// check of a known fact goes to `code`.
    pub(super) fn decide(&mut self, cond: String, code: &mut String) -> bool {
        if let Some(&(_, v)) = self.sh.facts.iter().find(|(c, _)| *c == cond) {
            *code += &guard(&cond, v);
            return v;
        }
        if !self.sh.open.contains(&cond) {
            self.sh.open.push(cond);
        }
        false
    }

    /// The shapes of an op whose rule needs operand values only the run
    /// has: every integer operand read from its slice (a placeholder until
    /// the plan says where it lives).
    fn late_retry(&mut self, sc: &mut ShapeCx<'_>, id: OpId) -> Result<Vec<Vec<Sz>>, String> {
        let op = &self.f.ops[id];
        for (i, o) in op.operands.iter().enumerate() {
            let Some(v) = *o else { continue };
            let t = self.f.ty(v);
            match (sc.rt_vals[i].is_some(), t.shape.num_elements()) {
                (false, Some(n)) if t.dtype.is_int() && n <= 64 => {
                    let slot = slice_placeholder(v);
                    sc.rt_vals[i] =
                        Some(Vals::Sym((0..n as usize).map(|j| Iv::Expr(format!("(({slot})[{j}] as i64)"))).collect()));
                }
                (false, Some(n)) if is_real(t.dtype) && n <= 64 => {
                    let slot = slice_placeholder(v);
                    sc.rt_vals[i] = Some(Vals::Floats(
                        (0..n as usize).map(|j| format!("k::Real::to_f64(({slot})[{j}])")).collect(),
                    ));
                }
                _ => {}
            }
        }
        sc.lines.clear();
        result_shapes(sc)
    }

    /// Dims of `v` (computed, or static from its type).
    pub(super) fn dims_of(&self, v: Value) -> Vec<Sz> {
        self.sh.dims.get(&v).cloned().or_else(|| static_dims(self.f, v)).unwrap_or_default()
    }
}

/// The statement that leaves this variant of the function when `cond`
/// does not have the value `holds` it assumes.
fn guard(cond: &str, holds: bool) -> String {
    let not = if holds { "!" } else { "" };
    format!("        if {not}({cond}) {{\n            return Ok(false); // another variant's sizes\n        }}\n")
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
    // An unranked result (after an If whose branches differ) takes the computed shape.
    let Some(declared) = f.ty(r).dims().map(<[Dim]>::to_vec) else { return Ok(dims) };
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

/// Result `r`'s dims when the op itself sets those at `ks` (see
/// `ShapeCx::counted`): a size the IR declares static stays literal (the op
/// checks its count against it); the others are elements of a mutable
/// `s{r}` the op assigns when it runs. Returns the dims and whether any is
/// such a variable (the result is then late).
fn bind_counted(
    f: &Function,
    r: Value,
    j: usize,
    mut dims: Vec<Sz>,
    ks: &[usize],
    what: &str,
    code: &mut String,
) -> Result<(Vec<Sz>, bool), String> {
    let declared = f.ty(r).dims().map(<[Dim]>::to_vec).unwrap_or_default();
    let mut open = false;
    for &k in ks {
        let d = dims.get_mut(k).ok_or("internal: counted dim out of range")?;
        *d = match declared.get(k).and_then(|d| d.as_static()) {
            Some(n) => Sz::Lit(n as usize),
            None => {
                open = true;
                Sz::expr("0")
            }
        };
    }
    let dims = check_declared(f, r, j, dims, what, code)?;
    if !open {
        return Ok((bind_result(r, dims, code), false));
    }
    let name = format!("s{}", r.as_u32());
    *code += &format!("        let mut {name}: [usize; {}] = {};\n", dims.len(), Sz::array(&dims));
    let dims = dims
        .iter()
        .enumerate()
        .map(|(k, d)| if d.lit().is_some() { d.clone() } else { Sz::expr(format!("{name}[{k}]")) })
        .collect();
    Ok((dims, true))
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

/// Float types the kernels read as `k::Real` (exactly, as f64).
fn is_real(dt: ir::DType) -> bool {
    matches!(dt, ir::DType::F32 | ir::DType::F64 | ir::DType::F16 | ir::DType::BF16)
}

/// The values of `v` if it is a small input of the model (read when it runs).
fn input_values(f: &Function, v: Value) -> Option<Vals> {
    let i = f.body.params.iter().position(|&p| p == v)?;
    let len = f.ty(v).shape.num_elements()? as usize;
    let dt = f.ty(v).dtype;
    if len > 64 {
        return None;
    }
    if dt.is_int() {
        return Some(Vals::Sym((0..len).map(|j| Iv::Expr(format!("(p{i}[{j}] as i64)"))).collect()));
    }
    is_real(dt).then(|| Vals::Floats((0..len).map(|j| format!("k::Real::to_f64(p{i}[{j}])")).collect()))
}

/// Buffer lengths, the plan lookup and arena growth.
fn plan_code(e: &mut Emitter<'_>, method: &str, f: &Function, plan: &Plan, sh: &mut Shapes) -> String {
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
    let bufs = format!("BUFS_{}", cache_field(method).to_uppercase());
    e.parts.items.push(format!("const {bufs}: [k::plan::Live; {nb}] = [{}];", live.join(", ")));
    let pc = cache_field(method);
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
