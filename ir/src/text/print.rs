//! The printer. Output is canonical: dense value numbering, sorted attributes,
//! constants in pool order, so `print(parse(print(m))) == print(m)`.

use super::Anchor;
use super::{is_bare_ident, write_quoted, write_symbol};
use crate::attr::write_f32;
use crate::module::{ConstData, Constant, Function, Loc, Module, OpId, Region, Value};
use crate::types::DType;
use crate::weights::{fnv1a64, SidecarWriter};
use std::collections::HashMap;
use std::fmt::Write;

/// How constant contents are printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WeightsMode {
    /// Every constant inline as `dense<[...]>` (lossless, text only).
    Inline,
    /// Constants with more than `inline_limit` elements go to a binary sidecar
    /// file named `file` (recorded in the module header).
    Sidecar {
        /// Sidecar file name, relative to the `.eir` file.
        file: String,
        /// Largest element count printed inline.
        inline_limit: usize,
    },
    /// Large constants print as `elided<...>` (for reading, not reloading).
    Elide {
        /// Largest element count printed inline.
        inline_limit: usize,
    },
}

/// Printer options.
#[derive(Clone, Debug)]
pub struct PrintOptions {
    /// Constant handling.
    pub weights: WeightsMode,
    /// Print provenance `loc(...)` suffixes.
    pub locs: bool,
}

impl Default for PrintOptions {
    fn default() -> Self {
        PrintOptions { weights: WeightsMode::Inline, locs: true }
    }
}

/// Printed text plus, in sidecar mode, the sidecar bytes to write.
#[derive(Debug)]
pub struct Printed {
    /// The `.eir` text.
    pub text: String,
    /// Contents of the sidecar file (sidecar mode only).
    pub sidecar: Option<Vec<u8>>,
}

/// Print with default options (everything inline).
pub fn print_module(m: &Module) -> String {
    Printer::new(PrintOptions::default()).print(m).text
}

/// A configurable printer; can decorate lines with annotations (verifier errors).
pub struct Printer<'a> {
    opts: PrintOptions,
    notes: Option<&'a HashMap<Anchor, Vec<String>>>,
}

struct FuncCtx<'f> {
    f: &'f Function,
    fidx: usize,
    names: HashMap<Value, String>,
    next: usize,
}

impl<'a> Printer<'a> {
    /// A printer with the given options.
    pub fn new(opts: PrintOptions) -> Self {
        Printer { opts, notes: None }
    }
    /// Print `// error: ...`-style notes under the anchored lines.
    pub fn with_notes(mut self, notes: &'a HashMap<Anchor, Vec<String>>) -> Self {
        self.notes = Some(notes);
        self
    }

    fn notes(&self, out: &mut String, anchor: Anchor, indent: usize) {
        if let Some(v) = self.notes.and_then(|n| n.get(&anchor)) {
            for note in v {
                let _ = writeln!(out, "{:indent$}// {note}", "");
            }
        }
    }

    /// Print the module.
    pub fn print(&self, m: &Module) -> Printed {
        let mut out = String::new();
        let mut sidecar = match &self.opts.weights {
            WeightsMode::Sidecar { .. } => Some(SidecarWriter::new()),
            _ => None,
        };
        out.push_str("module ");
        let _ = write_symbol(&mut out, &m.name);
        out.push_str(" attributes {phase = ");
        let _ = write_quoted(&mut out, m.phase.name());
        for (k, v) in m.attrs.iter().filter(|(k, _)| *k != "phase" && *k != "weights") {
            let _ = write!(out, ", {} = {v}", attr_key(k));
        }
        if let WeightsMode::Sidecar { file, .. } = &self.opts.weights {
            out.push_str(", weights = ");
            let _ = write_quoted(&mut out, file);
        }
        out.push_str("} {\n");
        self.notes(&mut out, Anchor::Module, 2);
        for (id, c) in m.consts.iter() {
            out.push_str("  const ");
            let _ = write_symbol(&mut out, &c.name);
            let _ = write!(out, " : {} = ", c.ty);
            self.const_value(&mut out, c, sidecar.as_mut());
            out.push('\n');
            self.notes(&mut out, Anchor::Const(id), 2);
        }
        for (fidx, f) in m.funcs.iter().enumerate() {
            if fidx > 0 || !m.consts.is_empty() {
                out.push('\n');
            }
            self.func(&mut out, f, fidx);
        }
        out.push_str("}\n");
        Printed { text: out, sidecar: sidecar.map(SidecarWriter::finish) }
    }

    fn const_value(&self, out: &mut String, c: &Constant, sidecar: Option<&mut SidecarWriter>) {
        let n = c.num_elements();
        let limit = match &self.opts.weights {
            WeightsMode::Inline => usize::MAX,
            WeightsMode::Sidecar { inline_limit, .. } | WeightsMode::Elide { inline_limit } => *inline_limit,
        };
        match (&c.data, sidecar) {
            (ConstData::Bytes(b), Some(w)) if n > limit => {
                let offset = w.add(b);
                let _ = write!(out, "external<offset = {offset}, size = {}, hash = {:#018x}>", b.len(), fnv1a64(b));
            }
            (ConstData::Bytes(b), None) if n > limit => {
                let _ = write!(out, "elided<size = {}, hash = {:#018x}>", b.len(), fnv1a64(b));
            }
            _ => write_dense(out, c),
        }
    }

    fn func(&self, out: &mut String, f: &Function, fidx: usize) {
        let mut cx = FuncCtx { f, fidx, names: HashMap::new(), next: 0 };
        cx.name_params(&f.body.params);
        out.push_str("  func ");
        let _ = write_symbol(out, &f.name);
        out.push('(');
        for (i, &p) in f.body.params.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "{}: {}", cx.names[&p], f.ty(p));
        }
        out.push_str(") -> (");
        for (i, t) in f.result_types.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            if let Some(Some(name)) = f.result_names.get(i) {
                if is_bare_ident(name) {
                    out.push_str(name);
                } else {
                    let _ = write_quoted(out, name);
                }
                out.push_str(": ");
            }
            let _ = write!(out, "{t}");
        }
        out.push_str(") {\n");
        self.notes(out, Anchor::Func(fidx), 4);
        self.region_body(out, &mut cx, &f.body, 4, "return");
        self.notes(out, Anchor::Return(fidx), 4);
        out.push_str("  }\n");
    }

    fn region_body(&self, out: &mut String, cx: &mut FuncCtx<'_>, r: &Region, indent: usize, term: &str) {
        for &op in &r.ops {
            self.op(out, cx, op, indent);
        }
        let _ = write!(out, "{:indent$}{term}", "");
        for (i, v) in r.results.iter().enumerate() {
            out.push_str(if i == 0 { " " } else { ", " });
            out.push_str(&cx.use_name(*v));
        }
        out.push('\n');
    }

    fn op(&self, out: &mut String, cx: &mut FuncCtx<'_>, id: OpId, indent: usize) {
        let Some(op) = cx.f.ops.get(id) else {
            let _ = writeln!(out, "{:indent$}// <invalid op reference {id}>", "");
            return;
        };
        let _ = write!(out, "{:indent$}", "");
        // Operands are named before results so a (verifier-invalid) self-use prints stably.
        let operands: Vec<String> = op.operands.iter().map(|o| o.map_or("none".into(), |v| cx.use_name(v))).collect();
        for (i, &r) in op.results.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&cx.define(r));
        }
        if !op.results.is_empty() {
            out.push_str(" = ");
        }
        out.push_str(op.opcode.name());
        if !operands.is_empty() {
            let _ = write!(out, " {}", operands.join(", "));
        }
        if !op.attrs.is_empty() {
            out.push_str(" {");
            for (i, (k, v)) in op.attrs.iter().enumerate() {
                let _ = write!(out, "{}{} = {v}", if i > 0 { ", " } else { "" }, attr_key(k));
            }
            out.push('}');
        }
        if !op.results.is_empty() {
            out.push_str(" :");
            for (i, &r) in op.results.iter().enumerate() {
                let _ = write!(out, "{} {}", if i > 0 { "," } else { "" }, cx.f.ty(r));
            }
        }
        for r in &op.regions {
            out.push_str(" region(");
            let params = r.params.clone();
            for (i, &p) in params.iter().enumerate() {
                let name = cx.define(p);
                let _ = write!(out, "{}{name}: {}", if i > 0 { ", " } else { "" }, cx.f.ty(p));
            }
            out.push_str(") {\n");
            self.region_body(out, cx, r, indent + 2, "yield");
            let _ = write!(out, "{:indent$}}}", "");
        }
        if self.opts.locs && op.loc != Loc::Unknown {
            out.push_str(" loc(");
            write_loc(out, &op.loc);
            out.push(')');
        }
        out.push('\n');
        self.notes(out, Anchor::Op(cx.fidx, id), indent);
    }
}

impl FuncCtx<'_> {
    fn name_params(&mut self, params: &[Value]) {
        let mut used = std::collections::HashSet::new();
        for (i, &p) in params.iter().enumerate() {
            let base = match &self.f.values[p].name {
                Some(n) if !n.is_empty() && !n.bytes().all(|b| b.is_ascii_digit()) => n.clone(),
                _ => format!("arg{i}"),
            };
            let mut name = base.clone();
            let mut k = 1;
            while !used.insert(name.clone()) {
                name = format!("{base}_{k}");
                k += 1;
            }
            let mut s = String::from("%");
            if is_bare_ident(&name) {
                s.push_str(&name);
            } else {
                let _ = write_quoted(&mut s, &name);
            }
            self.names.insert(p, s);
        }
    }
    fn define(&mut self, v: Value) -> String {
        if let Some(s) = self.names.get(&v) {
            return s.clone();
        }
        let s = format!("%{}", self.next);
        self.next += 1;
        self.names.insert(v, s.clone());
        s
    }
    fn use_name(&mut self, v: Value) -> String {
        match self.names.get(&v) {
            Some(s) => s.clone(),
            // A use before its definition (invalid IR being printed for diagnostics):
            // reserve the next number now; the definition reuses it.
            None => self.define(v),
        }
    }
}

fn attr_key(k: &str) -> String {
    if is_bare_ident(k) {
        k.to_owned()
    } else {
        let mut s = String::new();
        let _ = write_quoted(&mut s, k);
        s
    }
}

/// Write a provenance in text form (without the surrounding `loc(...)`).
pub fn write_loc(out: &mut String, loc: &Loc) {
    match loc {
        Loc::Unknown => out.push_str("unknown"),
        Loc::Onnx { node, op_type } => {
            let _ = write_quoted(out, node);
            out.push_str(" op ");
            let _ = write_quoted(out, op_type);
        }
        Loc::Fused(v) => {
            out.push_str("fused[");
            for (i, l) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_loc(out, l);
            }
            out.push(']');
        }
    }
}

/// Write `dense<[...]>` with one literal per element in row-major order.
pub fn write_dense(out: &mut String, c: &Constant) {
    out.push_str("dense<[");
    match &c.data {
        ConstData::Strings(v) => {
            for (i, s) in v.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let _ = write_quoted(out, s);
            }
        }
        ConstData::Bytes(b) => write_elements(out, c.ty.dtype, b),
    }
    out.push_str("]>");
}

fn write_elements(out: &mut String, dt: DType, b: &[u8]) {
    let Some(sz) = dt.size_bytes() else { return };
    for (i, e) in b.chunks_exact(sz).enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = match dt {
            DType::F32 => write_f32(out, f32::from_le_bytes([e[0], e[1], e[2], e[3]])),
            DType::F16 => write_f32(out, half::f16::from_le_bytes([e[0], e[1]]).to_f32()),
            DType::BF16 => write_f32(out, half::bf16::from_le_bytes([e[0], e[1]]).to_f32()),
            DType::F64 => write_f64(out, f64::from_le_bytes(e.try_into().unwrap_or([0; 8]))),
            DType::Bool => write!(out, "{}", if e[0] != 0 { "true" } else { "false" }),
            DType::I8 => write!(out, "{}", e[0] as i8),
            DType::U8 => write!(out, "{}", e[0]),
            DType::I16 => write!(out, "{}", i16::from_le_bytes([e[0], e[1]])),
            DType::U16 => write!(out, "{}", u16::from_le_bytes([e[0], e[1]])),
            DType::I32 => write!(out, "{}", i32::from_le_bytes([e[0], e[1], e[2], e[3]])),
            DType::U32 => write!(out, "{}", u32::from_le_bytes([e[0], e[1], e[2], e[3]])),
            DType::I64 => write!(out, "{}", i64::from_le_bytes(e.try_into().unwrap_or([0; 8]))),
            DType::U64 => write!(out, "{}", u64::from_le_bytes(e.try_into().unwrap_or([0; 8]))),
            DType::String => Ok(()),
            // Stored bytes outside the type's range print as their wrapped value.
            DType::I4 | DType::I2 | DType::U4 | DType::U2 => {
                write!(out, "{}", crate::lowp::wrap_small_int(dt, e[0] as i8 as i128))
            }
            _ => write_f64(out, crate::lowp::decode(dt, e[0])),
        };
    }
}

fn write_f64(out: &mut String, x: f64) -> std::fmt::Result {
    if x.is_nan() {
        out.push_str("nan");
        Ok(())
    } else if x.is_infinite() {
        out.push_str(if x > 0.0 { "inf" } else { "-inf" });
        Ok(())
    } else {
        write!(out, "{x:?}")
    }
}
