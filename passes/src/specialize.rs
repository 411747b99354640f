//! Fixing symbolic input dims to sizes: `--shape NAME=d0,d1,...` and
//! `--dim SYMBOL=N`.
//!
//! Every occurrence of a fixed symbol in the function becomes the size, and
//! shape inference reruns, so every dim computed from them becomes static:
//! the fastest code, and what static-shape targets need. A `--dim` may name
//! a symbol the model declared but inference renamed (an alias recorded by
//! the importer as `onnx.dim_aliases`); it applies to the inferred name.

use ir::infer::{meet_type, refine_function};
use ir::{Attr, Dim, Function, Module, Opcode, Shape, Symbol, TensorType};

/// Module attribute written by the ONNX importer: `"declared ~ inferred"` symbol pairs.
pub const DIM_ALIASES: &str = "onnx.dim_aliases";

/// Sizes to fix, as given on the command line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ShapeSpec {
    /// `(input name, full shape)` from `--shape`.
    pub shapes: Vec<(String, Vec<u64>)>,
    /// `(symbol, size)` from `--dim`.
    pub dims: Vec<(String, u64)>,
}

fn sizes(list: &str, flag: &str, arg: &str) -> Result<Vec<u64>, String> {
    if list.trim().is_empty() {
        return Ok(vec![]); // a scalar input
    }
    list.split(',')
        .map(|s| s.trim().parse::<u64>().map_err(|_| format!("{flag} {arg}: \"{s}\" is not a size")))
        .collect()
}

impl ShapeSpec {
    /// Parse the `--shape` and `--dim` arguments; every bad one is reported.
    pub fn parse(shapes: &[String], dims: &[String]) -> Result<ShapeSpec, Vec<String>> {
        let mut spec = ShapeSpec::default();
        let mut errs = Vec::new();
        for a in shapes {
            match a.split_once('=') {
                Some((name, list)) if !name.is_empty() => match sizes(list, "--shape", a) {
                    Ok(s) => spec.shapes.push((name.to_string(), s)),
                    Err(e) => errs.push(e),
                },
                _ => errs.push(format!("--shape expects NAME=D0,D1,..., got \"{a}\"")),
            }
        }
        for a in dims {
            match a.split_once('=').map(|(s, n)| (s, n.trim().parse::<u64>())) {
                Some((sym, Ok(n))) if !sym.is_empty() => spec.dims.push((sym.to_string(), n)),
                _ => errs.push(format!("--dim expects SYMBOL=SIZE, got \"{a}\"")),
            }
        }
        if errs.is_empty() {
            Ok(spec)
        } else {
            Err(errs)
        }
    }

    /// True if nothing is to be fixed.
    pub fn is_empty(&self) -> bool {
        self.shapes.is_empty() && self.dims.is_empty()
    }
}

/// Symbolic dims of `types`, in order of first appearance.
pub fn symbols_in<'a>(types: impl Iterator<Item = &'a TensorType>) -> Vec<Symbol> {
    let mut out = Vec::new();
    for d in types.flat_map(|t| t.dims().unwrap_or(&[]).iter()) {
        if let Dim::Sym(s) = *d {
            if !out.contains(&s) {
                out.push(s);
            }
        }
    }
    out
}

/// `t` with every symbol of `subst` replaced by its size.
pub fn substitute(t: &TensorType, subst: &[(Symbol, u64)]) -> TensorType {
    let Some(dims) = t.dims() else { return t.clone() };
    let dims = dims.iter().map(|&d| match d {
        Dim::Sym(s) => subst.iter().find(|(x, _)| *x == s).map_or(d, |&(_, n)| Dim::Static(n)),
        d => d,
    });
    TensorType::new(t.dtype, Shape::from_dims(dims))
}

/// Fix the dims of `spec` in function `func` of `m` and re-infer its types.
/// Returns the symbols fixed. Every problem (unknown input or symbol, wrong
/// rank, a size contradicting a static dim or another flag) is reported.
pub fn specialize_inputs(m: &mut Module, func: &str, spec: &ShapeSpec) -> Result<Vec<(Symbol, u64)>, Vec<String>> {
    let fi = m.funcs.iter().position(|f| f.name == func).ok_or_else(|| vec![format!("no function @{func}")])?;
    let f = &m.funcs[fi];
    if f.live_ops().iter().any(|&id| f.ops[id].opcode == Opcode::CoreBucketDispatch) {
        return Err(vec![format!("@{func} is bucketed: --shape/--dim apply to the model before bucketing")]);
    }
    let mut errs = Vec::new();
    let mut subst: Vec<(Symbol, u64, String)> = Vec::new();
    let mut fixed_params = Vec::new();
    for (name, dims) in &spec.shapes {
        match shape_binding(f, name, dims) {
            Ok((p, syms)) => {
                fixed_params.push((p, dims.clone()));
                for (s, n) in syms {
                    bind(&mut subst, s, n, format!("--shape {name}"), &mut errs);
                }
            }
            Err(e) => errs.push(e),
        }
    }
    let known = symbols_in(f.values.iter().map(|(_, v)| &v.ty).chain(&f.result_types));
    for (sym, n) in &spec.dims {
        match resolve(m, &known, sym) {
            Ok(s) => bind(&mut subst, s, *n, format!("--dim {sym}"), &mut errs),
            Err(e) => errs.push(e),
        }
    }
    if !errs.is_empty() {
        return Err(errs);
    }
    let subst: Vec<(Symbol, u64)> = subst.into_iter().map(|(s, n, _)| (s, n)).collect();
    let mut g = m.funcs[fi].clone();
    for (p, dims) in fixed_params {
        g.values[p].ty = TensorType::fixed(g.values[p].ty.dtype, &dims);
    }
    apply(m, &mut g, &subst).map_err(|e| vec![e])?;
    m.funcs[fi] = g;
    Ok(subst)
}

/// The parameter named `name` and the symbols `dims` fixes in its type.
fn shape_binding(f: &Function, name: &str, dims: &[u64]) -> Result<(ir::Value, Vec<(Symbol, u64)>), String> {
    let names: Vec<String> = f.body.params.iter().map(|&p| f.values[p].name.clone().unwrap_or_default()).collect();
    let Some(i) = names.iter().position(|n| n == name) else {
        return Err(format!("--shape {name}: @{} has no input `{name}` (inputs: {})", f.name, names.join(", ")));
    };
    let p = f.body.params[i];
    let ty = f.ty(p);
    let Some(have) = ty.dims() else { return Ok((p, vec![])) };
    let show = |d: &[u64]| d.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    if have.len() != dims.len() {
        return Err(format!("--shape {name}={}: the input is {ty} (rank {})", show(dims), have.len()));
    }
    let mut syms = Vec::new();
    for (axis, (&d, &n)) in have.iter().zip(dims).enumerate() {
        match d {
            Dim::Static(s) if s != n => {
                return Err(format!("--shape {name}={}: axis {axis} of {ty} is {s}, not {n}", show(dims)))
            }
            Dim::Sym(s) => syms.push((s, n)),
            _ => {}
        }
    }
    Ok((p, syms))
}

/// The symbol `name` stands for: itself if the function uses it, else the
/// inferred symbol it is a declared alias of.
fn resolve(m: &Module, known: &[Symbol], name: &str) -> Result<Symbol, String> {
    let s = Symbol::new(name);
    if known.contains(&s) {
        return Ok(s);
    }
    if let Some(Attr::Strs(pairs)) = m.attrs.get(DIM_ALIASES) {
        let hit = pairs.iter().filter_map(|p| p.split_once(" ~ ")).find(|(d, _)| *d == name);
        if let Some((_, inferred)) = hit {
            return Ok(Symbol::new(inferred));
        }
    }
    let have: Vec<&str> = known.iter().map(|s| s.as_str()).collect();
    let have = if have.is_empty() { "none".to_string() } else { have.join(", ") };
    Err(format!("--dim {name}: no symbolic dim `{name}` in the model (symbolic dims: {have})"))
}

fn bind(subst: &mut Vec<(Symbol, u64, String)>, s: Symbol, n: u64, by: String, errs: &mut Vec<String>) {
    match subst.iter().find(|(x, _, _)| *x == s) {
        Some((_, m, first)) if *m != n => {
            errs.push(format!("{by}: dim `{}` is {n} here but {m} from {first}", s.as_str()));
        }
        Some(_) => {}
        None => subst.push((s, n, by)),
    }
}

/// Substitute `subst` in every type of `g` and re-infer.
fn apply(m: &Module, g: &mut Function, subst: &[(Symbol, u64)]) -> Result<(), String> {
    for v in g.values.keys().collect::<Vec<_>>() {
        g.values[v].ty = substitute(&g.values[v].ty, subst);
    }
    g.result_types = g.result_types.iter().map(|t| substitute(t, subst)).collect();
    refine_function(m, g).map_err(|(id, e)| {
        let op = &g.ops[id];
        format!("@{}: {} [{}]: {e}", g.name, op.opcode.name(), op.loc)
    })?;
    for (i, &v) in g.body.results.iter().enumerate() {
        g.result_types[i] =
            meet_type(&g.result_types[i], g.ty(v)).map_err(|e| format!("@{}: result #{i}: {e}", g.name))?;
    }
    Ok(())
}

/// Re-infer `f` with `subst` applied: a copy named `name` (used by bucketing).
pub fn specialized_copy(m: &Module, f: &Function, name: String, subst: &[(Symbol, u64)]) -> Result<Function, String> {
    let mut g = f.clone();
    g.name = name;
    apply(m, &mut g, subst)?;
    Ok(g)
}
