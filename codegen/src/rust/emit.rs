//! What emitting code reads and writes: the module-wide [`Emitter`], one
//! function's [`FuncCx`] (its memory plan, and its run-time [`Shapes`] when
//! it has symbolic dims), one op's [`OpCx`], and where a value lives.
//!
//! Invariant: this module is below every lowering (`ops`, `control`,
//! `dynamic`) and refers to none of them; `func` ties them together.

use super::sz::Sz;
use super::weights::WeightLayout;
use crate::plan::{Class, Plan, Storage};
use ir::{Function, Loc, Module, OpData, OpId, Value};
use std::cell::Cell;
use std::collections::{BTreeMap, HashMap, HashSet};

/// What the op lowerings of a function with symbolic dims read.
#[derive(Debug, Default)]
pub struct Shapes {
    /// Dims of every value the function's ops read or write.
    pub dims: HashMap<Value, Vec<Sz>>,
    /// Offset of each plan buffer (`po[b]`).
    pub buf_off: Vec<Sz>,
    /// Length of each plan buffer.
    pub buf_len: Vec<Sz>,
    /// Values whose size is known only when their op runs: results of
    /// control flow, values of regions, values whose size follows from such
    /// a value or from data (`plan::Storage::Own`).
    pub late: HashSet<Value>,
    /// Statements computing the shapes of an op's late results, emitted
    /// right before the op (`⟦N⟧` stands for value `N`'s slice).
    pub late_code: HashMap<OpId, String>,
    /// `If`s whose condition follows from shapes: the branch that runs.
    pub chosen: HashMap<OpId, usize>,
    /// The facts about sizes this variant assumes, checked first when it runs.
    pub facts: Vec<(String, bool)>,
    /// Facts a rank depended on that `facts` did not settle.
    pub open: Vec<String>,
    /// The prologue's statements: input dims and the shapes known before
    /// any op runs.
    pub(super) early_code: String,
}

/// Everything that becomes part of the generated `Model` besides the methods.
#[derive(Default)]
pub struct ModelParts {
    /// `(field, type, initializer)` of fields built at construction.
    pub fields: Vec<(String, String, String)>,
    /// Items at module level (`const` parameter structs).
    pub items: Vec<String>,
    /// Scratch length expressions (the scratch buffer is their maximum).
    pub scratch: Vec<String>,
    /// Methods, one per function.
    pub methods: Vec<String>,
    /// Methods of `Consts` computing each function's hoisted values.
    pub hoist_methods: Vec<String>,
    /// Own buffers of values sized when their op runs: `(field, class)`.
    pub own_fields: Vec<(String, Class)>,
    /// `k::profile::OpName` literals, one per timed op slot (the index in
    /// the generated `PROFILE_OPS`).
    pub profile: Vec<String>,
    names: HashSet<String>,
}

impl ModelParts {
    /// A fresh identifier derived from `base` (lower snake case).
    pub fn fresh(&mut self, base: &str) -> String {
        let mut id: String =
            base.chars().map(|c| if c.is_ascii_alphanumeric() { c.to_ascii_lowercase() } else { '_' }).collect();
        id = id.trim_matches('_').to_string();
        if id.is_empty() || id.starts_with(|c: char| c.is_ascii_digit()) {
            id = format!("n_{id}");
        }
        let mut name = id.clone();
        let mut k = 1;
        while !self.names.insert(name.clone()) {
            k += 1;
            name = format!("{id}_{k}");
        }
        name
    }
}

/// Shared state of emitting the functions of one module.
pub struct Emitter<'a> {
    /// The module.
    pub m: &'a Module,
    /// Weights referenced so far.
    pub weights: WeightLayout,
    /// Model parts collected so far.
    pub parts: ModelParts,
    /// Problems found (every unsupported op, not just the first).
    pub errors: Vec<String>,
    /// Op counts by name, for the report.
    pub ops: BTreeMap<String, usize>,
    /// Emitting construction-time code (a `Consts` method, no profile slots).
    pub hoisting: bool,
    /// The family constant weights are packed for ([`super::EmitOptions::pack_for`]).
    pub pack_for: Option<edgec_kernels::gemm::Isa>,
}

/// One function being emitted.
pub struct FuncCx<'a> {
    /// The function.
    pub f: &'a Function,
    /// Its memory plan.
    pub plan: &'a Plan,
    /// Base offset of this function's buffers in each arena.
    pub base: BTreeMap<Class, usize>,
    /// Base offset of this function's hoisted buffers in each constant arena.
    pub const_base: BTreeMap<Class, usize>,
    /// Emitting the construction-time (hoisted) ops, as methods of `Consts`.
    pub hoist: bool,
    /// Run-time shapes, offsets and lengths of a function with symbolic dims.
    pub dy: Option<&'a Shapes>,
}

impl<'a> FuncCx<'a> {
    /// The same function seen through a region's `plan`.
    pub fn with_plan(&self, plan: &'a Plan) -> FuncCx<'a> {
        FuncCx {
            f: self.f,
            plan,
            base: Default::default(),
            const_base: self.const_base.clone(),
            hoist: false,
            dy: self.dy,
        }
    }

    /// Class, offset and length of plan buffer `b` (run-time expressions in
    /// a function with symbolic dims).
    pub fn buf_region(&self, b: usize) -> (Class, Sz, Sz) {
        let buf = &self.plan.buffers[b];
        match self.dy {
            Some(d) => (buf.class, d.buf_off[b].clone(), d.buf_len[b].clone()),
            None => (
                buf.class,
                Sz::Lit(self.plan.base.get(&buf.class).copied().unwrap_or(0) + buf.offset),
                Sz::Lit(buf.len),
            ),
        }
    }
}

/// Where an operand comes from, as a Rust expression.
pub fn region(off: impl std::fmt::Display, len: impl std::fmt::Display) -> String {
    format!("Region::new({off}, {len})")
}

/// Reading `len` elements of `class` at `off` of the arena: through the
/// carved rest when the op writes the same arena, directly otherwise.
pub fn arena_read(class: Class, off: &Sz, len: &Sz, out_class: Option<Class>) -> String {
    if Some(class) == out_class {
        format!("r.get({})", region(off, len))
    } else {
        format!("&self.a{}[{off}..{}]", class.suffix(), off + len)
    }
}

/// A read-only slice expression for `v` in `cx`'s plan, for a statement
/// that writes the arena of `out_class` (if any).
pub fn value_expr(e: &mut Emitter<'_>, cx: &FuncCx<'_>, v: Value, out_class: Option<Class>) -> Result<String, String> {
    // Statements of `Model` reach the constants through `self.c`; those of `Consts` own them.
    let consts = if cx.hoist { "self" } else { "self.c" };
    Ok(match cx.plan.storage.get(&v).copied() {
        Some(Storage::Param(p)) => format!("p{p}"),
        Some(Storage::Const(op)) => {
            let Some(ir::Attr::Sym(name)) = cx.f.ops[op].attrs.get("value") else {
                return Err("constant without a value".into());
            };
            let (c, off, len) = e.weights.add(e.m, name)?;
            format!("&{consts}.w{}[{off}..{}]", c.suffix(), off + len)
        }
        Some(Storage::Hoisted(b)) => {
            let buf = &cx.plan.hoisted[b];
            let off = cx.const_base.get(&buf.class).copied().unwrap_or(0) + buf.offset;
            if cx.hoist && Some(buf.class) == out_class {
                format!("r.get({})", region(off, buf.len))
            } else {
                format!("&{consts}.c{}[{off}..{}]", buf.class.suffix(), off + buf.len)
            }
        }
        Some(Storage::Buffer(b)) => {
            let (class, off, len) = cx.buf_region(b);
            arena_read(class, &off, &len, out_class)
        }
        Some(Storage::Fixed { class, offset, len }) => arena_read(class, &Sz::Lit(offset), &Sz::Lit(len), out_class),
        Some(Storage::Own(o)) => format!("&self.{}[..]", own_field(cx.f, o)),
        None => return Err(format!("internal: value {v} has no storage")),
    })
}

/// The arena region `v` lives in, offsets and lengths as sizes (run-time
/// expressions in a function with symbolic dims).
pub fn arena_region_sz(cx: &FuncCx<'_>, v: Value) -> Option<(Class, Sz, Sz)> {
    match cx.plan.storage.get(&v).copied()? {
        Storage::Buffer(b) => Some(cx.buf_region(b)),
        Storage::Fixed { class, offset, len } => Some((class, Sz::Lit(offset), Sz::Lit(len))),
        _ => None,
    }
}

/// The arena region `v` lives in (`None` for inputs, constants, hoisted values).
pub fn arena_region(cx: &FuncCx<'_>, v: Value) -> Option<(Class, usize, usize)> {
    match cx.plan.storage.get(&v).copied()? {
        Storage::Buffer(b) => {
            let buf = &cx.plan.buffers[b];
            Some((buf.class, cx.plan.base.get(&buf.class).copied().unwrap_or(0) + buf.offset, buf.len))
        }
        Storage::Fixed { class, offset, len } => Some((class, offset, len)),
        _ => None,
    }
}

/// A comment naming an op's provenance.
pub fn describe(op: &OpData, f: &Function) -> String {
    let loc = match &op.loc {
        Loc::Unknown => String::new(),
        l => format!(" [{l}]"),
    };
    let tys: Vec<String> = op.results.iter().map(|&r| f.ty(r).to_string()).collect();
    format!("{}{loc} -> {}", op.opcode.name(), tys.join(", ")).replace("*/", "* /").replace('\n', " ")
}

/// The context one op's lowering sees.
pub struct OpCx<'e, 'a> {
    e: &'e mut Emitter<'a>,
    cx: &'e FuncCx<'a>,
    /// The op.
    pub op: &'a OpData,
    id: OpId,
    blocks: Vec<String>,
    cur: Option<Block>,
    /// Set when a lowering asked for static dims of a value whose dims are symbolic.
    symbolic: Cell<bool>,
    /// Fields this op created (named in its scratch expressions).
    my_fields: Vec<String>,
}

/// True if an item's value reads no run-time variable: only literals,
/// paths, struct syntax and punctuation (run-time sizes are `s12[3]`,
/// `p0s[1]`, `t4_0` and friends: lower-case identifiers not followed by `:`
/// or `(` or preceded by `::`).
fn is_literal_item(value: &str) -> bool {
    let b = value.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i] as char;
        if c.is_ascii_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'_') {
                i += 1;
            }
            let word = &value[start..i];
            if c.is_ascii_uppercase() {
                continue; // a type or a constant
            }
            let after = value[i..].trim_start();
            let path = start >= 2 && &value[start - 2..start] == "::";
            let field = after.starts_with(':') && !after.starts_with("::");
            let keyword = matches!(word, "true" | "false" | "vec");
            if !(path
                || field
                || keyword
                || after.starts_with("::")
                || after.starts_with('(')
                || after.starts_with('!'))
            {
                return false;
            }
        } else if c.is_ascii_digit() {
            // A number, with any type suffix (`1usize`, `0.5f32`).
            while i < b.len() && ((b[i] as char).is_ascii_alphanumeric() || b[i] == b'.') {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    true
}

/// `s` with every whole-word occurrence of identifier `from` replaced by `to`.
fn replace_ident(s: &str, from: &str, to: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(p) = rest.find(from) {
        let before_ok = !rest[..p].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        let after = &rest[p + from.len()..];
        let after_ok = !after.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        out += &rest[..p];
        out += if before_ok && after_ok { to } else { from };
        rest = after;
    }
    out + rest
}

struct Block {
    out: Option<(Class, Sz, Sz)>,
    /// The own buffer written instead (field, elements).
    own: Option<(String, Sz)>,
    lines: Vec<String>,
    bound: Vec<(usize, String)>,
}

impl<'e, 'a> OpCx<'e, 'a> {
    /// The context of lowering op `id` of `cx`'s function.
    pub fn new(e: &'e mut Emitter<'a>, cx: &'e FuncCx<'a>, id: OpId) -> Self {
        let op = &cx.f.ops[id];
        OpCx { e, cx, op, id, blocks: vec![], cur: None, symbolic: Cell::new(false), my_fields: vec![] }
    }

    /// True if the lowering asked for static dims of a value whose dims are
    /// symbolic (its code is then wrong and must not be used).
    pub fn asked_static_of_symbolic(&self) -> bool {
        self.symbolic.get()
    }

    /// The op's code: its blocks in order.
    pub fn code(&self) -> String {
        self.blocks.concat()
    }

    /// The module.
    pub fn module(&self) -> &'a Module {
        self.e.m
    }
    /// The function.
    pub fn func(&self) -> &'a Function {
        self.cx.f
    }
    /// Static dims of value `v`. A lowering that calls this has no run-time
    /// shape path: on a value with symbolic dims the op is reported as
    /// unsupported (see [`OpCx::sdims`]).
    pub fn dims(&self, v: Value) -> Vec<usize> {
        let dims = self.sdims(v);
        Sz::all_lit(&dims).unwrap_or_else(|| {
            self.symbolic.set(true);
            vec![0; dims.len()]
        })
    }
    /// Dims of value `v` as sizes: literals, or run-time expressions in a
    /// function with symbolic dims.
    pub fn sdims(&self, v: Value) -> Vec<Sz> {
        if let Some(d) = self.cx.dy.and_then(|d| d.dims.get(&v)) {
            return d.clone();
        }
        let dims = self.cx.f.ty(v).shape.static_dims().unwrap_or_default();
        dims.into_iter().map(|d| Sz::Lit(d as usize)).collect()
    }
    /// Dims of operand `i` as sizes.
    pub fn in_sdims(&self, i: usize) -> Vec<Sz> {
        self.op.operand(i).map(|v| self.sdims(v)).unwrap_or_default()
    }
    /// Dims of result `i` as sizes.
    pub fn out_sdims(&self, i: usize) -> Vec<Sz> {
        self.sdims(self.op.results[i])
    }
    /// True in a function with symbolic dims (sizes may be run-time expressions).
    pub fn is_dynamic(&self) -> bool {
        self.cx.dy.is_some()
    }
    /// Static dims of operand `i` (see [`OpCx::dims`]).
    pub fn in_static(&self, i: usize) -> Vec<usize> {
        self.op.operand(i).map(|v| self.dims(v)).unwrap_or_default()
    }
    /// Static dims of result `i` (see [`OpCx::dims`]).
    pub fn out_static(&self, i: usize) -> Vec<usize> {
        self.dims(self.op.results[i])
    }
    /// Dims of operand `i` as sizes.
    pub fn in_dims(&self, i: usize) -> Vec<Sz> {
        self.in_sdims(i)
    }
    /// Dims of result `i` as sizes.
    pub fn out_dims(&self, i: usize) -> Vec<Sz> {
        self.out_sdims(i)
    }
    /// Element type class of result `i`.
    pub fn out_class(&self, i: usize) -> Class {
        Class::of(self.cx.f.ty(self.op.results[i]).dtype).unwrap_or(Class::F32)
    }
    /// Element type class of operand `i`.
    pub fn in_class(&self, i: usize) -> Option<Class> {
        self.op.operand(i).and_then(|v| Class::of(self.cx.f.ty(v).dtype))
    }
    /// The constant behind operand `i`, if it is one.
    pub fn in_const(&self, i: usize) -> Option<&'a ir::Constant> {
        ir::infer::defining_const(self.e.m, self.cx.f, self.op.operand(i)?)
    }
    /// The operand this op overwrites in place, if the planner chose so.
    pub fn in_place(&self) -> Option<usize> {
        self.cx.plan.in_place.get(&self.op.results[0]).copied()
    }
    /// A base name for items of this op (its ONNX node name, else its opcode).
    pub fn base_name(&self) -> String {
        match &self.op.loc {
            Loc::Onnx { node, .. } if !node.is_empty() => node.clone(),
            Loc::Fused(v) => match v.last() {
                Some(Loc::Onnx { node, .. }) => node.clone(),
                _ => self.op.opcode.name().replace('.', "_"),
            },
            _ => self.op.opcode.name().replace('.', "_"),
        }
    }

    /// Start a block writing result `j` (call before binding operands);
    /// returns the name of the output slice (`out`).
    pub fn begin(&mut self, j: usize) -> String {
        self.flush();
        let v = self.op.results[j];
        let own = match self.cx.plan.storage.get(&v) {
            Some(Storage::Own(o)) => {
                let n = Sz::product(&self.sdims(v));
                Some((own_field(self.cx.f, *o), n))
            }
            _ => None,
        };
        let out = match self.cx.plan.storage.get(&v) {
            Some(Storage::Buffer(b)) => Some(self.cx.buf_region(*b)),
            Some(Storage::Hoisted(b)) => {
                let buf = &self.cx.plan.hoisted[*b];
                let off = self.cx.const_base.get(&buf.class).copied().unwrap_or(0) + buf.offset;
                Some((buf.class, Sz::Lit(off), Sz::Lit(buf.len)))
            }
            _ => None,
        };
        self.cur = Some(Block { out, own, lines: vec![], bound: vec![] });
        "out".to_string()
    }

    /// Start a block that writes no result: what an op computes before its
    /// results can be sized (the counts of `shapes::ShapeCx::counted`).
    pub fn begin_none(&mut self) {
        self.flush();
        self.cur = Some(Block { out: None, own: None, lines: vec![], bound: vec![] });
    }

    /// The Rust expression of operand `i` (a slice), bound in the current block.
    pub fn input(&mut self, i: usize) -> Result<String, String> {
        let v = self.op.operand(i).ok_or_else(|| format!("operand #{i} is absent"))?;
        if let Some((_, name)) = self.cur.as_ref().and_then(|b| b.bound.iter().find(|(k, _)| *k == i)) {
            return Ok(name.clone());
        }
        let expr = self.source(v)?;
        let name = format!("i{i}");
        let block = self.cur.as_mut().ok_or("internal: operand bound outside a block")?;
        block.lines.push(format!("let {name} = {expr};"));
        block.bound.push((i, name.clone()));
        Ok(name)
    }

    fn source(&mut self, v: Value) -> Result<String, String> {
        let out_class = self.cur.as_ref().and_then(|b| b.out.as_ref().map(|o| o.0));
        value_expr(self.e, self.cx, v, out_class)
    }

    /// The weights section place of constant value `v`.
    fn weight_of(&mut self, v: Value) -> Result<(Class, usize, usize), String> {
        let Some(Storage::Const(op)) = self.cx.plan.storage.get(&v).copied() else {
            return Err(format!("internal: value {v} is not a constant"));
        };
        let Some(ir::Attr::Sym(name)) = self.cx.f.ops[op].attrs.get("value") else {
            return Err("constant without a value".into());
        };
        self.e.weights.add(self.e.m, name)
    }

    /// True if operand `i` is known at construction (a constant or hoisted):
    /// kernels may pack it in a field (see [`OpCx::init_weights`]).
    pub fn is_static(&self, i: usize) -> bool {
        !self.cx.hoist
            && self
                .op
                .operand(i)
                .is_some_and(|v| matches!(self.cx.plan.storage.get(&v), Some(Storage::Const(_) | Storage::Hoisted(_))))
    }

    /// Add a statement to the current block.
    pub fn line(&mut self, s: String) {
        if let Some(b) = self.cur.as_mut() {
            b.lines.push(s);
        }
    }

    /// A field built once at construction (its initializer may read the
    /// decoded weights `w` and earlier fields by name); returns its name
    /// (`self.<name>` in statements, `<name>` in scratch expressions).
    pub fn field(&mut self, ty: &str, init: String) -> String {
        let name = self.e.parts.fresh(&self.base_name());
        self.e.parts.fields.push((name.clone(), ty.to_string(), init));
        self.my_fields.push(name.clone());
        name
    }

    /// A module-level constant item; returns its name. In a function with
    /// symbolic dims, `value` may read run-time sizes: it is then a local of
    /// the current block instead (a constant item if it has none).
    pub fn item(&mut self, ty: &str, value: String) -> String {
        let name = self.e.parts.fresh(&self.base_name()).to_uppercase();
        if self.is_dynamic() && self.cur.is_some() && !is_literal_item(&value) {
            self.line(format!("let {name}: {ty} = {value};"));
        } else {
            self.e.parts.items.push(format!("const {name}: {ty} = {value};"));
        }
        name
    }

    /// Constant operand `i` packed now, at compile time, for the family
    /// `pack_for` names: `pack(isa, values)` returns the blob, stored once per
    /// `key` in the weights; the result is an expression of the blob's
    /// weights section (`k::rt::Section<f32>`) and the family
    /// (`k::gemm::Isa::…`) for a field initializer. `None` if nothing is
    /// packed at compile time (no family chosen, or not an f32 constant).
    pub fn prepacked(
        &mut self,
        i: usize,
        key: &str,
        pack: impl FnOnce(edgec_kernels::gemm::Isa, &[f32]) -> Vec<f32>,
    ) -> Result<Option<(String, String)>, String> {
        let (Some(isa), Some(v)) = (self.e.pack_for, self.op.operand(i)) else { return Ok(None) };
        let Some(Storage::Const(op)) = self.cx.plan.storage.get(&v).copied() else { return Ok(None) };
        let Some(ir::Attr::Sym(name)) = self.cx.f.ops[op].attrs.get("value") else { return Ok(None) };
        let id = self.e.m.const_by_name(name).ok_or_else(|| format!("constant @{name} is missing"))?;
        let c = &self.e.m.consts[id];
        let Some(bytes) = c.bytes().filter(|_| c.ty.dtype == ir::DType::F32) else { return Ok(None) };
        let values: Vec<f32> = bytes.chunks_exact(4).map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])).collect();
        let (off, len) = self.e.weights.add_blob(&format!("{name} {key} {}", isa.name()), || pack(isa, &values));
        let isa_expr = format!("k::gemm::Isa::{isa:?}");
        Ok(Some((format!("k::weights::part(&c.w{}, {off}, {len})", Class::F32.suffix()), isa_expr)))
    }

    /// A slice expression for static operand `i` usable in a construction-time
    /// field initializer (reads the constants `c`, after hoisting).
    pub fn init_weights(&mut self, i: usize) -> Result<String, String> {
        let v = self.op.operand(i).ok_or("absent operand")?;
        match self.cx.plan.storage.get(&v).copied() {
            Some(Storage::Const(_)) => {
                let (c, off, len) = self.weight_of(v)?;
                Ok(format!("&c.w{}[{off}..{}]", c.suffix(), off + len))
            }
            Some(Storage::Hoisted(b)) => {
                let buf = &self.cx.plan.hoisted[b];
                let off = self.cx.const_base.get(&buf.class).copied().unwrap_or(0) + buf.offset;
                Ok(format!("&c.c{}[{off}..{}]", buf.class.suffix(), off + buf.len))
            }
            _ => Err(format!("operand #{i} is not a constant")),
        }
    }

    /// Register a scratch length needed by this op.
    pub fn scratch(&mut self, expr: String) {
        if !self.is_dynamic() || self.cur.is_none() {
            self.e.parts.scratch.push(expr);
            return;
        }
        // Sized when the model runs: grow the scratch buffer before the call.
        // (Scratch expressions name this op's fields as constructor locals.)
        let mut e = expr;
        for f in &self.my_fields {
            e = replace_ident(&e, f, &format!("self.{f}"));
        }
        self.line(format!("k::rt::grow(&mut self.scratch, {e});"));
    }

    fn flush(&mut self) {
        let Some(b) = self.cur.take() else { return };
        let mut s = String::from("        {\n");
        if let Some((field, n)) = &b.own {
            s += &format!("            let out = k::rt::fit(&mut self.{field}, {n});\n");
        }
        if let Some((class, off, len)) = &b.out {
            let uses_rest = b.lines.iter().any(|l| l.contains("r.get("));
            let r = if uses_rest { "r" } else { "_r" };
            let arena = if self.cx.hoist { "c" } else { "a" };
            s += &format!(
                "            let ({r}, out) = carve(&mut self.{arena}{}, {});\n",
                class.suffix(),
                region(off, len)
            );
        }
        for l in &b.lines {
            s += &format!("            {l}\n");
        }
        s += "        }\n";
        self.blocks.push(s);
    }

    /// Finish the op (flushes the last block).
    pub fn finish(&mut self) {
        self.flush();
    }

    /// The op id (for diagnostics).
    pub fn id(&self) -> OpId {
        self.id
    }
}

/// The field of the own buffer owned by `v` in function `f`.
pub fn own_field(f: &ir::Function, owner: Value) -> String {
    let s: String = f.name.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
    format!("o_{s}_{}", owner.as_u32())
}
