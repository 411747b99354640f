//! Assembling `src/lib.rs`: the `Model` struct, its constructor, `run` (with
//! the bucket dispatcher for bucketed modules) and the per-function methods.

use super::emit::{region, Emitter};
use super::{EmitOptions, Entry};
use crate::plan::{Class, Plan, Storage};
use ir::ops::control::dispatch::Dispatch;
use ir::{Function, Module};
use std::collections::BTreeMap;

/// The method emitted for function `name`.
pub fn method_name(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("f_{s}")
}

/// The `Consts` method computing function `name`'s hoisted values.
pub fn hoist_name(name: &str) -> String {
    let s: String = name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("h_{s}")
}

/// Rust parameters `, p0: &[T], ...` of a function whose inputs are
/// arguments (with `dynamic`, each followed by its shape `p0s: &[usize]`).
pub fn param_args(f: &Function, dynamic: bool) -> String {
    let shape = |i: usize| if dynamic { format!(", p{i}s: &[usize]") } else { String::new() };
    f.body.params.iter().enumerate().map(|(i, &p)| format!(", p{i}: &[{}]{}", rust_ty(f, p), shape(i))).collect()
}

fn rust_ty(f: &Function, v: ir::Value) -> &'static str {
    Class::of(f.ty(v).dtype).map_or("f32", Class::rust)
}

/// Rust field names of the model's inputs / outputs (sanitized, unique).
pub fn io_idents(names: &[String]) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    names
        .iter()
        .map(|n| {
            let mut s: String =
                n.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
            if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) || is_keyword(&s) {
                s = format!("t_{s}");
            }
            let mut u = s.clone();
            let mut k = 1;
            while !seen.insert(u.clone()) {
                k += 1;
                u = format!("{s}_{k}");
            }
            u
        })
        .collect()
}

fn is_keyword(s: &str) -> bool {
    const KEYWORDS: &[&str] = &[
        "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn",
        "else", "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro",
        "match", "mod", "move", "mut", "override", "priv", "pub", "ref", "return", "self", "static", "struct", "super",
        "trait", "true", "try", "type", "typeof", "union", "unsafe", "unsized", "use", "virtual", "where", "while",
        "yield", // Names the generated code itself uses.
        "k", "r", "out", "model", "w",
    ];
    KEYWORDS.contains(&s)
}

/// Input and output names of `@main`.
pub fn io_names(m: &Module) -> (Vec<String>, Vec<String>) {
    let Some(f) = m.func("main") else { return (vec![], vec![]) };
    let ins = f
        .body
        .params
        .iter()
        .enumerate()
        .map(|(i, &p)| f.values[p].name.clone().unwrap_or(format!("input{i}")))
        .collect();
    let outs = (0..f.result_types.len())
        .map(|i| f.result_names.get(i).cloned().flatten().unwrap_or(format!("output{i}")))
        .collect();
    (ins, outs)
}

/// Element counts of each class's arena: the largest function plan, plus the
/// dispatcher's output buffers above it.
/// A region of one class's arena: (class, offset, elements).
type ClassRegion = (Class, usize, usize);

pub fn arena_sizes(entry: &Entry<'_>, main: &Function) -> (BTreeMap<Class, usize>, Vec<ClassRegion>) {
    let mut size: BTreeMap<Class, usize> = BTreeMap::new();
    for (_, p) in &entry.funcs {
        for (&c, &n) in &p.extent {
            let e = size.entry(c).or_default();
            *e = (*e).max(n);
        }
    }
    let mut outs = Vec::new();
    if entry.dispatch.is_some() {
        for (i, t) in main.result_types.iter().enumerate() {
            let c = Class::of(t.dtype).unwrap_or(Class::F32);
            let n = entry
                .funcs
                .iter()
                .map(|(f, _)| f.ty(f.body.results[i]).shape.num_elements().unwrap_or(0) as usize)
                .max()
                .unwrap_or(0);
            let e = size.entry(c).or_default();
            outs.push((c, *e, n));
            *e += n;
        }
    }
    (size, outs)
}

const CLASSES: [Class; 23] = Class::ALL;

/// Elements of each class's constant arena (every function's hoisted values).
fn const_sizes(entry: &Entry<'_>) -> BTreeMap<Class, usize> {
    let mut size: BTreeMap<Class, usize> = BTreeMap::new();
    for (_, p) in &entry.funcs {
        for (&c, &n) in &p.const_arena {
            *size.entry(c).or_default() += n;
        }
    }
    size
}

fn zero(c: Class) -> String {
    match c {
        Class::F16 | Class::BF16 => format!("{}::ZERO", c.rust()),
        c if c.is_low() => format!("{}::default()", c.rust()),
        _ => c.literal(0.0),
    }
}

/// `src/lib.rs`.
pub fn lib_rs(m: &Module, entry: &Entry<'_>, e: &mut Emitter<'_>, opts: &EmitOptions) -> Result<String, String> {
    let main = m.func("main").ok_or("no @main")?;
    let (sizes, outs) = arena_sizes(entry, main);
    let (in_names, out_names) = io_names(m);
    let (ins, outs_id) = (io_idents(&in_names), io_idents(&out_names));
    let weights = e.weights.file();
    let mut s = header(m, entry, opts, &in_names, &out_names, &sizes, weights.len());
    s += &format!(
        "const WEIGHTS_HASH: u64 = {:#018x};\nconst WEIGHTS_COUNTS: k::rt::Counts = {:?};\n",
        super::weights::fnv1a64(&weights),
        e.weights.counts()
    );
    s += "static WEIGHTS: &k::weights::Aligned<[u8]> =\n    &k::weights::Aligned { align: [], bytes: *include_bytes!(\"../weights.bin\") };\n\n";
    for item in &e.parts.items {
        s += item;
        s.push('\n');
    }
    s += &format!(
        "/// The op of each profile slot (`Model::profile`).\nconst PROFILE_OPS: &[k::profile::OpName] = &[\n{}];\n\n",
        e.parts.profile.iter().map(|o| format!("    {o},\n")).collect::<String>()
    );
    s += &outputs_struct(main, &out_names, &outs_id, entry.view_api());
    let csizes = const_sizes(entry);
    s += &consts_struct(e, &csizes);
    s += &model_struct(e, &sizes, entry, main);
    s += "impl Model {\n";
    s += &constructor(e, entry, &sizes, &csizes, main);
    s += &match &entry.dispatch {
        None if entry.dynamic => run_dynamic(main, &entry.funcs[0].1, &ins, &in_names, &outs_id),
        None => run_static(main, &entry.funcs[0].1, &ins, &in_names, &outs_id),
        Some((_, d)) => run_bucketed(main, entry, d, &ins, &in_names, &outs_id, &outs),
    };
    s += PROFILE_METHODS;
    s += &arena_bytes_method(e, &sizes);
    s += super::threads::METHODS;
    for mth in &e.parts.methods {
        s += mth;
    }
    s += "}\n";
    Ok(s)
}

/// `Model::arena_bytes`: the buffers the model holds for intermediates.
fn arena_bytes_method(e: &Emitter<'_>, sizes: &BTreeMap<Class, usize>) -> String {
    let mut terms: Vec<String> =
        sizes.keys().map(|c| format!("std::mem::size_of_val(&self.a{}[..])", c.suffix())).collect();
    terms.push("std::mem::size_of_val(&self.scratch[..])".into());
    terms.extend(e.parts.own_fields.iter().map(|(f, _)| format!("std::mem::size_of_val(&self.{f}[..])")));
    format!(
        "    /// Bytes held now for intermediates: the arenas and the calling thread's
    /// scratch (a model with symbolic dims grows them on runs at larger sizes).
    pub fn arena_bytes(&self) -> usize {{\n        {}\n    }}\n\n",
        terms.join("\n            + ")
    )
}

/// The profiling API of every generated `Model`.
const PROFILE_METHODS: &str = "    /// Time every op of the runs that follow (`false`: stop timing). Off by
    /// default; while off, each op costs one branch.
    pub fn set_profiling(&mut self, on: bool) {
        self.prof.set(on);
    }

    /// Time per op accumulated while profiling was on, slowest first, each
    /// op named by its ONNX node(s).
    pub fn profile(&self) -> Vec<k::profile::ProfileLine> {
        self.prof.lines(PROFILE_OPS)
    }

    /// [`Model::profile`] as a table: milliseconds per run over `runs` runs,
    /// each op's share of the total, then the time per op type.
    pub fn profile_table(&self, runs: usize) -> String {
        self.prof.table(PROFILE_OPS, runs)
    }

    /// Forget the time accumulated so far.
    pub fn reset_profile(&mut self) {
        self.prof.reset();
    }

";

fn header(
    m: &Module,
    entry: &Entry<'_>,
    opts: &EmitOptions,
    ins: &[String],
    outs: &[String],
    sizes: &BTreeMap<Class, usize>,
    weight_bytes: usize,
) -> String {
    let main = m.func("main");
    let ty = |v: ir::Value| main.map_or(String::new(), |f| f.ty(v).to_string());
    let mut s = format!(
        "//! `{}`: generated by edgec {} from `{}` for the cpu target. Do not edit.\n//!\n",
        opts.name,
        env!("CARGO_PKG_VERSION"),
        opts.source
    );
    if let Some(f) = main {
        for (n, &p) in ins.iter().zip(&f.body.params) {
            s += &format!("//! - input `{n}`: {}\n", ty(p));
        }
        for (n, t) in outs.iter().zip(&f.result_types) {
            s += &format!("//! - output `{n}`: {t}\n");
        }
    }
    let arena: usize = sizes.iter().map(|(c, n)| c.bytes() * n).sum();
    s +=
        &format!("//!\n//! Memory: one arena of {arena} bytes for every intermediate, weights {weight_bytes} bytes.\n");
    if let Some((_, d)) = &entry.dispatch {
        for (dim, b) in d.dims.iter().zip(&d.buckets) {
            s += &format!("//! Bucketed: `{dim}` in {b:?} (inputs padded, outputs sliced back).\n");
        }
    }
    // Names follow the ONNX graph's (node names may hold `__` or capitals);
    // size expressions keep their parentheses.
    s += &format!(
        "\n#![forbid(unsafe_code)]\n#![allow(clippy::all, non_snake_case, unused_parens)]\n\nuse edgec_kernels as k;\nuse k::arena::{{carve, Region}};\npub use k::rt::{{Error, View}};\n\n/// Bytes of the embedded weights (`Model::arena_bytes` gives the arenas a model holds).\npub const WEIGHT_BYTES: usize = {weight_bytes};\n\n"
    );
    s
}

fn outputs_struct(main: &Function, names: &[String], ids: &[String], bucketed: bool) -> String {
    let mut s = String::from(
        "/// The outputs of one run, borrowed from the model.\n#[derive(Debug)]\npub struct Outputs<'a> {\n",
    );
    for ((n, id), t) in names.iter().zip(ids).zip(&main.result_types) {
        let et = Class::of(t.dtype).map_or("f32", Class::rust);
        let ty = if bucketed { format!("View<'a, {et}>") } else { format!("&'a [{et}]") };
        s += &format!("    /// `{n}`: {t}.\n    pub {id}: {ty},\n");
    }
    s + "}\n\n"
}

fn consts_struct(e: &Emitter<'_>, csizes: &BTreeMap<Class, usize>) -> String {
    let mut s = String::from(
        "/// The constants: the weights (in place where their type allows) and the values computed from them once, at construction.\n#[allow(dead_code)] // sections this model does not use\nstruct Consts {\n",
    );
    for c in CLASSES {
        s += &format!("    w{}: k::rt::Section<{}>,\n", c.suffix(), c.rust());
    }
    for c in csizes.keys() {
        s += &format!("    c{}: Vec<{}>,\n", c.suffix(), c.rust());
    }
    s += "}\n\nimpl Consts {\n";
    for m in &e.parts.hoist_methods {
        s += m;
    }
    s + "}\n\n"
}

fn model_struct(e: &Emitter<'_>, sizes: &BTreeMap<Class, usize>, entry: &Entry<'_>, main: &Function) -> String {
    let bucketed = entry.dispatch.is_some();
    let mut s = String::from(
        "/// The model: constants, packed operands and the arenas; `run` allocates nothing.\n#[allow(dead_code)] // buffers this model does not use\npub struct Model {\n    c: Consts,\n",
    );
    for c in CLASSES {
        if sizes.contains_key(&c) {
            s += &format!("    a{}: Vec<{}>,\n", c.suffix(), c.rust());
        }
    }
    s += "    scratch: Vec<f32>,\n    prof: k::profile::Profile,\n";
    s += super::threads::FIELD;
    for (n, ty, _) in &e.parts.fields {
        s += &format!("    {n}: {ty},\n");
    }
    if bucketed {
        for (i, t) in main.result_types.iter().enumerate() {
            s += &format!("    shape{i}: [usize; {}],\n", t.rank().unwrap_or(0));
        }
    }
    for (field, class) in &e.parts.own_fields {
        s += &format!("    {field}: Vec<{}>,\n", class.rust());
    }
    for (name, &d) in entry.methods.iter().zip(&entry.is_dyn) {
        if d {
            s += &format!("    {}: k::plan::PlanCache,\n", super::dynamic::cache_field(name));
        }
    }
    if entry.dynamic {
        for i in 0..main.result_types.len() {
            s += &format!("    os{i}: [usize; 8],\n    on{i}: usize,\n    oo{i}: (usize, usize),\n");
        }
    }
    s + "}\n\n"
}

fn constructor(
    e: &Emitter<'_>,
    entry: &Entry<'_>,
    sizes: &BTreeMap<Class, usize>,
    csizes: &BTreeMap<Class, usize>,
    main: &Function,
) -> String {
    let mut s = String::from(
        "    /// The model with its embedded weights (used in place, not copied).\n    pub fn new() -> Result<Model, Error> {\n        Model::build(k::rt::Weights::embedded(WEIGHTS, WEIGHTS_COUNTS)?)\n    }\n\n",
    );
    s += "    /// The model with weights from `bytes` (checked against the generated hash).\n";
    s += "    pub fn from_weights(bytes: &[u8]) -> Result<Model, Error> {\n        Model::build(k::rt::Weights::decode(bytes, WEIGHTS_HASH, WEIGHTS_COUNTS)?)\n    }\n\n";
    s += "    fn build(w: k::rt::Weights) -> Result<Model, Error> {\n        let mut c = Consts {\n";
    for cl in CLASSES {
        s += &format!("            w{}: w.{},\n", cl.suffix(), cl.name());
    }
    for (cl, n) in csizes {
        s += &format!("            c{}: vec![{}; {n}],\n", cl.suffix(), zero(*cl));
    }
    s += "        };\n";
    for name in &entry.methods {
        s += &format!("        c.{}();\n", hoist_name(name));
    }
    for (n, ty, init) in &e.parts.fields {
        s += &format!("        let {n}: {ty} = {init};\n");
    }
    let scratch: Vec<&str> = e.parts.scratch.iter().map(String::as_str).collect();
    s += &format!("        let scratch = [0usize, {}].into_iter().max().unwrap_or(0);\n", scratch.join(", "));
    s += "        Ok(Model {\n            c,\n";
    for (c, n) in sizes {
        s += &format!("            a{}: vec![{}; {n}],\n", c.suffix(), zero(*c));
    }
    s += "            scratch: vec![0.0; scratch],\n            prof: k::profile::Profile::new(PROFILE_OPS.len()),\n";
    s += super::threads::INIT;
    for (n, _, _) in &e.parts.fields {
        s += &format!("            {n},\n");
    }
    if entry.dispatch.is_some() {
        for (i, t) in main.result_types.iter().enumerate() {
            s += &format!("            shape{i}: [0; {}],\n", t.rank().unwrap_or(0));
        }
    }
    for (field, _) in &e.parts.own_fields {
        s += &format!("            {field}: Vec::new(),\n");
    }
    for (name, &d) in entry.methods.iter().zip(&entry.is_dyn) {
        if d {
            s += &format!("            {}: k::plan::PlanCache::new(),\n", super::dynamic::cache_field(name));
        }
    }
    if entry.dynamic {
        for i in 0..main.result_types.len() {
            s += &format!("            os{i}: [0; 8],\n            on{i}: 0,\n            oo{i}: (0, 0),\n");
        }
    }
    s + "        })\n    }\n\n"
}

/// The method that runs function `name` generated as `count` variants (one
/// per answer to the size facts its ranks depend on): the variant that ran
/// last is tried first, each returns `false` when its facts do not hold.
pub fn variant_dispatcher(f: &Function, name: &str, count: usize) -> String {
    let m = method_name(name);
    let params = param_args(f, true);
    let args: Vec<String> = (0..f.body.params.len()).map(|i| format!("p{i}, p{i}s")).collect();
    let mut s = format!("    #[allow(clippy::all)]\n    fn {m}(&mut self{params}) -> Result<bool, Error> {{\n");
    s += &format!("        for k in 0..{count} {{\n            let v = (self.last_{m} + k) % {count};\n            let ran = match v {{\n");
    for k in 0..count {
        s += &format!("                {k} => self.{m}__v{k}({})?,\n", args.join(", "));
    }
    s += "                _ => false,\n            };\n";
    s += &format!("            if ran {{\n                self.last_{m} = v;\n                return Ok(true);\n            }}\n        }}\n        Ok(false)\n    }}\n");
    s
}

/// Where `run` reads result `o` (value `v`) of the (unbucketed) main function.
fn output_expr(plan: &Plan, o: usize, v: ir::Value) -> String {
    if let Some(&b) = plan.result_copies.get(&o) {
        let buf = &plan.buffers[b];
        return format!("&self.a{}[{}..{}]", buf.class.suffix(), buf.offset, buf.offset + buf.len);
    }
    match plan.storage.get(&v) {
        Some(Storage::Hoisted(b)) => {
            let buf = &plan.hoisted[*b];
            format!("&self.c.c{}[{}..{}]", buf.class.suffix(), buf.offset, buf.offset + buf.len)
        }
        _ => {
            let (c, off, len) = region_of(plan, v).unwrap_or((Class::F32, 0, 0));
            format!("&self.a{}[{off}..{}]", c.suffix(), off + len)
        }
    }
}

/// The arena region of value `v` in `plan` (results and bucket parameters live there).
fn region_of(plan: &Plan, v: ir::Value) -> Option<(Class, usize, usize)> {
    match plan.storage.get(&v)? {
        Storage::Buffer(b) => {
            let buf = &plan.buffers[*b];
            Some((buf.class, buf.offset, buf.len))
        }
        _ => None,
    }
}

fn run_static(main: &Function, plan: &Plan, ins: &[String], in_names: &[String], outs: &[String]) -> String {
    let params: Vec<(String, String)> =
        ins.iter().zip(&main.body.params).map(|(id, &p)| (id.clone(), format!("&[{}]", rust_ty(main, p)))).collect();
    let mut s = super::threads::run_head("Run the model on one set of inputs (shapes as in the crate docs).", &params);
    for ((id, n), &p) in ins.iter().zip(in_names).zip(&main.body.params) {
        let len = main.ty(p).shape.num_elements().unwrap_or(0);
        s += &format!("        k::rt::check_len({n:?}, {id}.len(), {len})?;\n");
    }
    s += &format!("        self.{}({});\n", method_name(&main.name), ins.join(", "));
    s += "        Ok(Outputs {\n";
    for (o, (id, &v)) in outs.iter().zip(&main.body.results).enumerate() {
        s += &format!("            {id}: {},\n", output_expr(plan, o, v));
    }
    s + "        })\n    }\n\n"
}

/// The `run` parameters of a model whose inputs are shaped views.
fn view_params(main: &Function, ins: &[String]) -> Vec<(String, String)> {
    ins.iter().zip(&main.body.params).map(|(id, &p)| (id.clone(), format!("View<'_, {}>", rust_ty(main, p)))).collect()
}

/// `run` of a model with symbolic dims: shaped views in, shaped views out.
fn run_dynamic(main: &Function, plan: &Plan, ins: &[String], in_names: &[String], outs: &[String]) -> String {
    let doc = "Run the model on one set of inputs; symbolic dims take the sizes the inputs have.";
    let mut s = super::threads::run_head(doc, &view_params(main, ins));
    let mut args = Vec::new();
    for ((id, n), &p) in ins.iter().zip(in_names).zip(&main.body.params) {
        let dims: Vec<String> = main
            .ty(p)
            .dims()
            .unwrap_or(&[])
            .iter()
            .map(|d| d.as_static().map_or("None".into(), |n| format!("Some({n})")))
            .collect();
        s += &format!("        k::rt::check_shape({n:?}, &{id}, &[{}])?;\n", dims.join(", "));
        args.push(format!("{id}.data, {id}.shape"));
    }
    s += &format!(
        "        if !self.{}({})? {{\n            return Err(Error(\"no variant of the model takes these input sizes\".into()));\n        }}\n",
        method_name(&main.name),
        args.join(", ")
    );
    s += "        Ok(Outputs {\n";
    for (o, (id, &v)) in outs.iter().zip(&main.body.results).enumerate() {
        let data = match plan.storage.get(&v) {
            Some(Storage::Hoisted(_)) if !plan.result_copies.contains_key(&o) => output_expr(plan, o, v),
            Some(Storage::Own(owner)) => format!("&self.{}[..]", super::emit::own_field(main, *owner)),
            _ => {
                let c = Class::of(main.ty(v).dtype).unwrap_or(Class::F32);
                format!("&self.a{}[self.oo{o}.0..self.oo{o}.0 + self.oo{o}.1]", c.suffix())
            }
        };
        s += &format!("            {id}: View {{ shape: &self.os{o}[..self.on{o}], data: {data} }},\n");
    }
    s + "        })\n    }\n\n"
}

fn run_bucketed(
    main: &Function,
    entry: &Entry<'_>,
    d: &Dispatch,
    ins: &[String],
    in_names: &[String],
    outs: &[String],
    out_regions: &[ClassRegion],
) -> String {
    let doc = "Run the model; bucketed dims may take any size up to their largest bucket.";
    let mut s = super::threads::run_head(doc, &view_params(main, ins));
    for (i, ((id, n), &p)) in ins.iter().zip(in_names).zip(&main.body.params).enumerate() {
        let dims: Vec<String> = main
            .ty(p)
            .dims()
            .unwrap_or(&[])
            .iter()
            .enumerate()
            .map(|(a, dim)| {
                let bucketed = d.pads.iter().any(|r| r.tensor == i && r.axis == a);
                match dim.as_static() {
                    Some(n) if !bucketed => format!("Some({n})"),
                    _ => "None".into(),
                }
            })
            .collect();
        s += &format!("        k::rt::check_shape({n:?}, &{id}, &[{}])?;\n", dims.join(", "));
    }
    let mut strides = vec![1usize; d.dims.len()];
    for i in (0..d.dims.len().saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * d.buckets[i + 1].len();
    }
    let mut combo = Vec::new();
    for (di, dim) in d.dims.iter().enumerate() {
        let carriers: Vec<String> =
            d.pads.iter().filter(|r| r.dim == di).map(|r| format!("({}.shape, {})", ins[r.tensor], r.axis)).collect();
        s += &format!("        let d{di} = k::rt::dim_size({dim:?}, &[{}])?;\n", carriers.join(", "));
        s += &format!("        let b{di} = k::rt::select_bucket({dim:?}, d{di}, &{:?})?;\n", d.buckets[di]);
        combo.push(format!("b{di} * {}", strides[di]));
    }
    s += &format!("        match {} {{\n", combo.join(" + "));
    for (ci, (f, plan)) in entry.funcs.iter().enumerate() {
        s += &format!("            {ci} => {{\n");
        for (i, (&p, id)) in f.body.params.iter().zip(ins).enumerate() {
            let (c, off, len) = region_of(plan, p).unwrap_or((Class::F32, 0, 0));
            let to: Vec<usize> = f.ty(p).shape.static_dims().unwrap_or_default().iter().map(|&x| x as usize).collect();
            let fill = pad_literal(c, d.pad_values[i]);
            s += &format!(
                "                k::rt::pad_into({id}.shape, {id}.data, &{to:?}, &mut self.a{}[{off}..{}], {fill});\n",
                c.suffix(),
                off + len
            );
        }
        s += &format!("                self.{}();\n", method_name(&f.name));
        for (o, &v) in f.body.results.iter().enumerate() {
            let (c, off, len) = match plan.result_copies.get(&o) {
                Some(&b) => (plan.buffers[b].class, plan.buffers[b].offset, plan.buffers[b].len),
                None => region_of(plan, v).unwrap_or((Class::F32, 0, 0)),
            };
            let from: Vec<usize> =
                f.ty(v).shape.static_dims().unwrap_or_default().iter().map(|&x| x as usize).collect();
            let to: Vec<String> = from
                .iter()
                .enumerate()
                .map(|(a, n)| {
                    d.slices
                        .iter()
                        .find(|r| r.tensor == o && r.axis == a)
                        .map_or(n.to_string(), |r| format!("d{}", r.dim))
                })
                .collect();
            let (_, oo, _) = out_regions[o];
            s += &format!("                self.shape{o} = [{}];\n", to.join(", "));
            s += &format!("                let n{o}: usize = self.shape{o}.iter().product();\n");
            s +=
                &format!("                let (r, out) = carve(&mut self.a{}, Region::new({oo}, n{o}));\n", c.suffix());
            s += &format!(
                "                k::rt::slice_into(&{from:?}, r.get({}), &self.shape{o}, out);\n",
                region(off, len)
            );
        }
        s += "            }\n";
    }
    s += "            _ => unreachable!(\"bucket index out of range\"),\n        }\n        Ok(Outputs {\n";
    for (o, id) in outs.iter().enumerate() {
        let (c, oo, _) = out_regions[o];
        s += &format!("            {id}: View {{ shape: &self.shape{o}, data: &self.a{}[{oo}..{oo} + self.shape{o}.iter().product::<usize>()] }},\n", c.suffix());
    }
    let _ = main;
    s + "        })\n    }\n\n"
}

fn pad_literal(c: Class, v: f32) -> String {
    c.literal(v as f64)
}
