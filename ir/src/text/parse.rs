//! Recursive-descent parser for the text IR.
//!
//! The parser checks syntax, name resolution and literal ranges; typing rules
//! are the verifier's job, so a well-formed but ill-typed module parses and
//! then fails verification with every problem listed. Forward references to
//! values defined later in the same function parse (the verifier reports them
//! as use-before-definition); names never defined are parse errors.

use super::error::{ParseError, SourcePos};
use super::lexer::{float_f32, float_f64, tokenize, Tok, Token};
use super::Anchor;
use crate::attr::{Attr, Attrs};
use crate::module::{ConstData, Constant, Function, Loc, Module, OpId, Phase, Region, Value, ValueData, ValueDef};
use crate::ops::Opcode;
use crate::types::{DType, Dim, Shape, Symbol, TensorType};
use smallvec::SmallVec;
use std::collections::HashMap;

/// A parsed module with the source position of each anchor (for diagnostics).
#[derive(Debug)]
pub struct ParsedModule {
    /// The module.
    pub module: Module,
    /// Where each op, constant, function header and return was written.
    pub spans: HashMap<Anchor, SourcePos>,
}

/// Loads a weights sidecar by the file name recorded in the module header.
pub type SidecarLoader<'a> = &'a dyn Fn(&str) -> Result<Vec<u8>, String>;

/// Parse a module. `file` names the source in errors; `sidecar` loads the
/// weights file named by the module's `weights` attribute, if it has one.
pub fn parse_module(src: &str, file: &str, sidecar: Option<SidecarLoader<'_>>) -> Result<ParsedModule, ParseError> {
    let toks = tokenize(src, file)?;
    let mut p = Parser { toks, i: 0, file, sidecar, sidecar_bytes: None, spans: HashMap::new(), depth: 0 };
    let module = p.module()?;
    Ok(ParsedModule { module, spans: p.spans })
}

struct Parser<'a> {
    toks: Vec<Token>,
    i: usize,
    file: &'a str,
    sidecar: Option<SidecarLoader<'a>>,
    sidecar_bytes: Option<(String, Vec<u8>)>,
    spans: HashMap<Anchor, SourcePos>,
    /// Current nesting of regions and fused locations (bounded, so hostile input
    /// cannot overflow the stack of this recursive-descent parser).
    depth: u32,
}

/// Deepest nesting of regions plus fused locations the parser accepts.
const MAX_NESTING: u32 = 100;

type PResult<T> = Result<T, ParseError>;

/// Per-function name scopes.
struct Scope {
    names: Vec<HashMap<String, Value>>,
    /// Uses of names not yet defined: placeholder value and first use position.
    pending: HashMap<String, (Value, SourcePos)>,
    /// Placeholder → real value, applied when the function ends.
    resolved: Vec<(Value, Value)>,
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.i].tok
    }
    fn pos(&self) -> SourcePos {
        self.toks[self.i].pos
    }
    fn next(&mut self) -> Token {
        let t = self.toks[self.i].clone();
        if self.i + 1 < self.toks.len() {
            self.i += 1;
        }
        t
    }
    fn err<T>(&self, pos: SourcePos, msg: impl Into<String>) -> PResult<T> {
        Err(ParseError { file: self.file.to_owned(), pos, message: msg.into() })
    }
    fn unexpected<T>(&self, what: &str) -> PResult<T> {
        self.err(self.pos(), format!("expected {what}, found {}", self.peek().describe()))
    }
    fn is_punct(&self, p: &str) -> bool {
        matches!(self.peek(), Tok::Punct(q) if *q == p)
    }
    fn is_kw(&self, kw: &str) -> bool {
        matches!(self.peek(), Tok::Ident(s) if s == kw)
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        let hit = self.is_punct(p);
        if hit {
            self.next();
        }
        hit
    }
    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.unexpected(&format!("`{p}`"))
        }
    }
    fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        if self.is_kw(kw) {
            self.next();
            Ok(())
        } else {
            self.unexpected(&format!("`{kw}`"))
        }
    }
    fn ident(&mut self, what: &str) -> PResult<(String, SourcePos)> {
        match self.peek().clone() {
            Tok::Ident(s) => {
                let pos = self.next().pos;
                Ok((s, pos))
            }
            _ => self.unexpected(what),
        }
    }
    fn sym(&mut self, what: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::SymRef(s) => {
                self.next();
                Ok(s)
            }
            _ => self.unexpected(what),
        }
    }
    fn int(&mut self, what: &str) -> PResult<i128> {
        match *self.peek() {
            Tok::Int(v) => {
                self.next();
                Ok(v)
            }
            _ => self.unexpected(what),
        }
    }
    /// Enter one nesting level (a region or `fused[...]`); leave with `depth -= 1`.
    fn enter(&mut self, pos: SourcePos) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_NESTING {
            return self.err(pos, format!("regions and locations nest deeper than {MAX_NESTING} levels"));
        }
        Ok(())
    }
    /// `sep`-separated items until `close` (which is consumed).
    fn list<T>(&mut self, close: &str, mut item: impl FnMut(&mut Self) -> PResult<T>) -> PResult<Vec<T>> {
        let mut out = Vec::new();
        if self.eat_punct(close) {
            return Ok(out);
        }
        loop {
            out.push(item(self)?);
            if self.eat_punct(close) {
                return Ok(out);
            }
            self.expect_punct(",")?;
        }
    }

    fn module(&mut self) -> PResult<Module> {
        self.expect_kw("module")?;
        let mut m = Module::new(self.sym("module name `@name`")?);
        if self.is_kw("attributes") {
            self.next();
            let attrs = self.attr_dict()?;
            self.module_attrs(&mut m, attrs)?;
        }
        self.expect_punct("{")?;
        loop {
            match self.peek() {
                Tok::Ident(s) if s == "const" => self.constant(&mut m)?,
                Tok::Ident(s) if s == "func" => {
                    let f = self.func(&m)?;
                    m.funcs.push(f);
                }
                Tok::Punct("}") => {
                    self.next();
                    break;
                }
                _ => return self.unexpected("`const`, `func` or `}`"),
            }
        }
        if *self.peek() != Tok::Eof {
            return self.unexpected("end of input after the module");
        }
        Ok(m)
    }

    fn module_attrs(&mut self, m: &mut Module, attrs: Vec<(String, Attr, SourcePos)>) -> PResult<()> {
        for (k, v, pos) in attrs {
            match (k.as_str(), v) {
                ("phase", Attr::Str(s)) => match Phase::from_name(&s) {
                    Some(p) => m.phase = p,
                    None => return self.err(pos, format!("unknown phase \"{s}\" (expected onnx, core or target)")),
                },
                ("phase", _) => return self.err(pos, "`phase` must be a string"),
                ("weights", Attr::Str(s)) => {
                    let Some(load) = self.sidecar else {
                        return self.err(pos, format!("module refers to weights file \"{s}\" but no file location is known (parse from a file, not stdin)"));
                    };
                    let bytes =
                        load(&s).or_else(|e| self.err(pos, format!("cannot read weights file \"{s}\": {e}")))?;
                    self.sidecar_bytes = Some((s, bytes));
                }
                (_, v) => m.attrs.set(k, v),
            }
        }
        Ok(())
    }

    fn constant(&mut self, m: &mut Module) -> PResult<()> {
        let pos = self.pos();
        self.expect_kw("const")?;
        let name = self.sym("constant name `@name`")?;
        self.expect_punct(":")?;
        let ty_pos = self.pos();
        let ty = self.ty()?;
        if ty.shape.static_dims().is_none() {
            return self.err(ty_pos, format!("constant @{name} must have a fully static shape, found {}", ty.shape));
        }
        let size = ty.shape.num_elements().and_then(|n| n.checked_mul(ty.dtype.size_bytes().unwrap_or(1) as u64));
        if !matches!(size, Some(b) if b <= isize::MAX as u64) {
            return self.err(ty_pos, format!("constant @{name} of type {ty} is too large"));
        }
        self.expect_punct("=")?;
        let data = self.const_data(&ty)?;
        let c = Constant { name, ty, data };
        match m.add_const(c) {
            Ok(id) => {
                self.spans.insert(Anchor::Const(id), pos);
                Ok(())
            }
            Err(e) => self.err(pos, e),
        }
    }

    fn const_data(&mut self, ty: &TensorType) -> PResult<ConstData> {
        let (kind, pos) = self.ident("`dense`, `external` or `elided`")?;
        let n = ty.shape.num_elements().unwrap_or(0) as usize;
        match kind.as_str() {
            "dense" => {
                self.expect_punct("<")?;
                self.expect_punct("[")?;
                let data = if ty.dtype == DType::String {
                    let v = self.list("]", |p| match p.peek().clone() {
                        Tok::Str(s) => {
                            p.next();
                            Ok(s)
                        }
                        _ => p.unexpected("a string element"),
                    })?;
                    check_count(self, pos, v.len(), n)?;
                    ConstData::Strings(v.into())
                } else {
                    // The declared size is untrusted: preallocate at most 1 MiB.
                    let mut bytes = Vec::with_capacity((n * ty.dtype.size_bytes().unwrap_or(1)).min(1 << 20));
                    let count = self.list("]", |p| p.element(ty.dtype, &mut bytes))?.len();
                    check_count(self, pos, count, n)?;
                    ConstData::Bytes(bytes.into())
                };
                self.expect_punct(">")?;
                Ok(data)
            }
            "external" => self.external(ty, pos),
            "elided" => self.err(pos, "constant contents were elided when this module was printed; write it with `-o FILE.eir` to keep the weights"),
            other => self.err(pos, format!("expected `dense`, `external` or `elided`, found `{other}`")),
        }
    }

    fn external(&mut self, ty: &TensorType, pos: SourcePos) -> PResult<ConstData> {
        self.expect_punct("<")?;
        let mut fields = [0u64; 3];
        for (i, key) in ["offset", "size", "hash"].iter().enumerate() {
            if i > 0 {
                self.expect_punct(",")?;
            }
            self.expect_kw(key)?;
            self.expect_punct("=")?;
            let vpos = self.pos();
            fields[i] = u64::try_from(self.int("an integer")?).or_else(|_| self.err(vpos, "value out of range"))?;
        }
        self.expect_punct(">")?;
        let [offset, size, hash] = fields;
        let expected = ty.shape.num_elements().unwrap_or(0) * ty.dtype.size_bytes().unwrap_or(0) as u64;
        if size != expected {
            return self.err(pos, format!("external blob has {size} bytes but type {ty} needs {expected}"));
        }
        let Some((file, bytes)) = &self.sidecar_bytes else {
            return self.err(pos, "`external` constant but the module header names no `weights` file");
        };
        match crate::weights::read_blob(bytes, offset, size, hash) {
            Ok(b) => Ok(ConstData::Bytes(b.to_vec().into())),
            Err(e) => self.err(pos, format!("weights file \"{file}\": {e}")),
        }
    }

    fn element(&mut self, dt: DType, out: &mut Vec<u8>) -> PResult<()> {
        let pos = self.pos();
        let tok = self.next().tok;
        let range_err = |p: &Self| p.err(pos, format!("literal {} out of range for {dt}", tok.describe()));
        match (dt, &tok) {
            (DType::Bool, Tok::Ident(s)) if s == "true" || s == "false" => out.push((s == "true") as u8),
            (d, Tok::Int(v)) if d.is_float() => push_float(out, d, *v as f64),
            (d, Tok::Float(v)) if d.is_float() => push_float_text(out, d, v),
            (d, Tok::Int(v)) if d.is_int() => {
                let v = *v;
                let ok = match d {
                    DType::I8 => i8::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                    DType::U8 => u8::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                    DType::I16 => i16::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                    DType::U16 => u16::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                    DType::I32 => i32::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                    DType::U32 => u32::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                    DType::I64 => i64::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                    DType::I4 | DType::U4 | DType::I2 | DType::U2 => {
                        let (lo, hi) = crate::lowp::int_range(d).unwrap_or((0, 0));
                        let ok = (lo..=hi).contains(&v);
                        if ok {
                            out.push(v as u8);
                        }
                        ok
                    }
                    _ => u64::try_from(v).map(|x| out.extend(x.to_le_bytes())).is_ok(),
                };
                if !ok {
                    return range_err(self);
                }
            }
            _ => return self.err(pos, format!("expected a {dt} element, found {}", tok.describe())),
        }
        Ok(())
    }

    fn ty(&mut self) -> PResult<TensorType> {
        let (name, pos) = self.ident("an element type such as `f32`")?;
        let Some(dtype) = DType::from_name(&name) else {
            return self.err(pos, format!("unknown element type `{name}`"));
        };
        self.expect_punct("[")?;
        if self.eat_punct("*") {
            self.expect_punct("]")?;
            return Ok(TensorType::unranked(dtype));
        }
        let dims = self.list("]", |p| p.dim())?;
        Ok(TensorType::new(dtype, Shape::Ranked(SmallVec::from_vec(dims))))
    }

    fn dim(&mut self) -> PResult<Dim> {
        let pos = self.pos();
        match self.next().tok {
            Tok::Int(v) => u64::try_from(v)
                .map(Dim::Static)
                .or_else(|_| self.err(pos, format!("dimension {v} is negative or too large"))),
            Tok::Punct("?") => Ok(Dim::Unknown),
            Tok::Ident(s) | Tok::Str(s) => Ok(Dim::Sym(Symbol::new(&s))),
            t => self.err(pos, format!("expected a dimension (number, name or `?`), found {}", t.describe())),
        }
    }

    fn attr_dict(&mut self) -> PResult<Vec<(String, Attr, SourcePos)>> {
        self.expect_punct("{")?;
        let items = self.list("}", |p| {
            let pos = p.pos();
            let key = match p.next().tok {
                Tok::Ident(s) | Tok::Str(s) => s,
                t => return p.err(pos, format!("expected an attribute name, found {}", t.describe())),
            };
            p.expect_punct("=")?;
            Ok((key, p.attr_value()?, pos))
        })?;
        for (i, (k, _, pos)) in items.iter().enumerate() {
            if items[..i].iter().any(|(k2, _, _)| k2 == k) {
                return self.err(*pos, format!("duplicate attribute `{k}`"));
            }
        }
        Ok(items)
    }

    fn attr_value(&mut self) -> PResult<Attr> {
        let pos = self.pos();
        match self.next().tok {
            Tok::Int(v) => i64::try_from(v).map(Attr::Int).or_else(|_| self.err(pos, "integer attribute out of range")),
            Tok::Float(v) => Ok(Attr::Float(float_f32(&v))),
            Tok::Str(s) => Ok(Attr::Str(s)),
            Tok::SymRef(s) => Ok(Attr::Sym(s)),
            Tok::Ident(s) => match DType::from_name(&s) {
                Some(d) => Ok(Attr::Type(d)),
                None => self.err(pos, format!("expected an attribute value, found `{s}`")),
            },
            Tok::Punct("[") => self.attr_list(pos),
            t => self.err(pos, format!("expected an attribute value, found {}", t.describe())),
        }
    }

    fn attr_list(&mut self, pos: SourcePos) -> PResult<Attr> {
        let items = self.list("]", |p| {
            let pos = p.pos();
            match p.next().tok {
                Tok::Int(v) => Ok(Tok::Int(v)),
                Tok::Float(v) => Ok(Tok::Float(v)),
                Tok::Str(s) => Ok(Tok::Str(s)),
                t => p.err(pos, format!("expected a list element, found {}", t.describe())),
            }
        })?;
        if items.iter().all(|t| matches!(t, Tok::Int(_))) {
            let v: Option<Vec<i64>> =
                items.iter().map(|t| if let Tok::Int(v) = t { i64::try_from(*v).ok() } else { None }).collect();
            return v.map(Attr::Ints).map_or_else(|| self.err(pos, "integer out of range in list"), Ok);
        }
        if items.iter().all(|t| matches!(t, Tok::Int(_) | Tok::Float(_))) {
            let v = items.iter().map(|t| match t {
                Tok::Int(v) => *v as f32,
                Tok::Float(v) => float_f32(v),
                _ => 0.0,
            });
            return Ok(Attr::Floats(v.collect()));
        }
        if items.iter().all(|t| matches!(t, Tok::Str(_))) {
            return Ok(Attr::Strs(
                items.into_iter().map(|t| if let Tok::Str(s) = t { s } else { String::new() }).collect(),
            ));
        }
        self.err(pos, "list mixes strings and numbers")
    }

    fn func(&mut self, m: &Module) -> PResult<Function> {
        let pos = self.pos();
        self.expect_kw("func")?;
        let mut f = Function::new(self.sym("function name `@name`")?);
        let fidx = m.funcs.len();
        self.spans.insert(Anchor::Func(fidx), pos);
        if m.funcs.iter().any(|g| g.name == f.name) {
            return self.err(pos, format!("duplicate function @{}", f.name));
        }
        let mut scope = Scope { names: vec![HashMap::new()], pending: HashMap::new(), resolved: Vec::new() };
        self.expect_punct("(")?;
        let params = self.list(")", |p| {
            let pos = p.pos();
            let Tok::ValueRef(name) = p.next().tok else { return p.err(pos, "expected a parameter `%name`") };
            p.expect_punct(":")?;
            Ok((name, pos, p.ty()?))
        })?;
        for (name, ppos, ty) in params {
            let v = f.add_param(Some(name.clone()), ty);
            self.define(&mut scope, &name, v, ppos)?;
        }
        self.expect_punct("->")?;
        self.expect_punct("(")?;
        let results = self.list(")", |p| {
            let named = matches!(p.toks.get(p.i + 1).map(|t| &t.tok), Some(Tok::Punct(":")));
            let name = match (named, p.peek().clone()) {
                (true, Tok::Ident(s) | Tok::Str(s)) => {
                    p.next();
                    p.next();
                    Some(s)
                }
                _ => None,
            };
            Ok((name, p.ty()?))
        })?;
        if results.iter().any(|(n, _)| n.is_some()) {
            f.result_names = results.iter().map(|(n, _)| n.clone()).collect();
        }
        f.result_types = results.into_iter().map(|(_, t)| t).collect();
        self.expect_punct("{")?;
        let body = self.region_body(&mut f, &mut scope, fidx, "return")?;
        f.body.ops = body.ops;
        f.body.results = body.results;
        self.expect_punct("}")?;
        if let Some((name, (_, pos))) = scope.pending.iter().min_by_key(|(_, (_, p))| *p) {
            return self.err(*pos, format!("use of undefined value %{name}"));
        }
        for (from, to) in std::mem::take(&mut scope.resolved) {
            f.replace_all_uses(from, to);
        }
        Ok(f)
    }

    fn define(&mut self, scope: &mut Scope, name: &str, v: Value, pos: SourcePos) -> PResult<()> {
        if scope.names.iter().any(|s| s.contains_key(name)) {
            return self.err(pos, format!("value %{name} is defined twice"));
        }
        if let Some((placeholder, _)) = scope.pending.remove(name) {
            scope.resolved.push((placeholder, v));
        }
        scope.names.last_mut().expect("scope stack is never empty").insert(name.to_owned(), v);
        Ok(())
    }

    fn use_value(&mut self, f: &mut Function, scope: &mut Scope, name: &str, pos: SourcePos) -> Value {
        if let Some(v) = scope.names.iter().rev().find_map(|s| s.get(name)) {
            return *v;
        }
        if let Some((v, _)) = scope.pending.get(name) {
            return *v;
        }
        // A forward reference: resolved when the name is defined (the verifier
        // then reports use-before-definition), an error if it never is.
        let v = f.values.push(ValueData {
            ty: TensorType::unranked(DType::F32),
            def: ValueDef::Param(u32::MAX),
            name: None,
        });
        scope.pending.insert(name.to_owned(), (v, pos));
        v
    }

    fn region_body(&mut self, f: &mut Function, scope: &mut Scope, fidx: usize, term: &str) -> PResult<Region> {
        let mut region = Region::default();
        loop {
            if self.is_kw(term) {
                let pos = self.pos();
                self.next();
                if term == "return" {
                    self.spans.insert(Anchor::Return(fidx), pos);
                }
                if !self.is_punct("}") {
                    loop {
                        let vpos = self.pos();
                        let Tok::ValueRef(name) = self.next().tok else {
                            return self.err(vpos, "expected a value `%name`");
                        };
                        region.results.push(self.use_value(f, scope, &name, vpos));
                        if !self.eat_punct(",") {
                            break;
                        }
                    }
                }
                return Ok(region);
            }
            let id = self.op(f, scope, fidx)?;
            region.ops.push(id);
        }
    }

    fn op(&mut self, f: &mut Function, scope: &mut Scope, fidx: usize) -> PResult<OpId> {
        let start = self.pos();
        let mut results = Vec::new();
        if matches!(self.peek(), Tok::ValueRef(_)) {
            loop {
                let pos = self.pos();
                let Tok::ValueRef(name) = self.next().tok else { return self.err(pos, "expected `%name`") };
                results.push((name, pos));
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct("=")?;
        }
        let (opname, opos) = match self.peek() {
            Tok::Ident(_) => self.ident("an op name")?,
            _ => {
                return self
                    .unexpected(&format!("an op name or `{}`", if scope.names.len() > 1 { "yield" } else { "return" }))
            }
        };
        let Some(opcode) = Opcode::from_name(&opname) else {
            return self.err(opos, format!("unknown op `{opname}`"));
        };
        let mut operands = SmallVec::<[Option<Value>; 4]>::new();
        if matches!(self.peek(), Tok::ValueRef(_)) || self.is_kw("none") {
            loop {
                let pos = self.pos();
                match self.next().tok {
                    Tok::Ident(s) if s == "none" => operands.push(None),
                    Tok::ValueRef(name) => operands.push(Some(self.use_value(f, scope, &name, pos))),
                    t => return self.err(pos, format!("expected an operand, found {}", t.describe())),
                }
                if !self.eat_punct(",") {
                    break;
                }
            }
        }
        let mut attrs = Attrs::new();
        if self.is_punct("{") {
            for (k, v, _) in self.attr_dict()? {
                let v = match opcode.def().attr(&k) {
                    Some(spec) => v.coerce(spec.kind),
                    None => v,
                };
                attrs.set(k, v);
            }
        }
        let mut types = Vec::new();
        if self.eat_punct(":") {
            types.push(self.ty()?);
            while self.eat_punct(",") {
                types.push(self.ty()?);
            }
        }
        if types.len() != results.len() {
            return self.err(
                start,
                format!("op defines {} result(s) but lists {} result type(s)", results.len(), types.len()),
            );
        }
        let id = f.create_op(opcode, operands, attrs, types, Loc::Unknown);
        self.spans.insert(Anchor::Op(fidx, id), start);
        for (i, (name, pos)) in results.iter().enumerate() {
            let v = f.ops[id].results[i];
            self.define(scope, name, v, *pos)?;
        }
        while self.is_kw("region") {
            self.region(f, scope, fidx, id)?;
        }
        if self.is_kw("loc") {
            self.next();
            self.expect_punct("(")?;
            f.ops[id].loc = self.loc()?;
            self.expect_punct(")")?;
        }
        Ok(id)
    }

    fn region(&mut self, f: &mut Function, scope: &mut Scope, fidx: usize, owner: OpId) -> PResult<()> {
        self.enter(self.pos())?;
        self.expect_kw("region")?;
        let ridx = f.ops[owner].regions.len();
        f.ops[owner].regions.push(Region::default());
        scope.names.push(HashMap::new());
        self.expect_punct("(")?;
        let params = self.list(")", |p| {
            let pos = p.pos();
            let Tok::ValueRef(name) = p.next().tok else { return p.err(pos, "expected a region parameter `%name`") };
            p.expect_punct(":")?;
            Ok((name, pos, p.ty()?))
        })?;
        for (name, pos, ty) in params {
            let v = f.add_region_param(owner, ridx, ty);
            self.define(scope, &name, v, pos)?;
        }
        self.expect_punct("{")?;
        let body = self.region_body(f, scope, fidx, "yield")?;
        self.expect_punct("}")?;
        let r = &mut f.ops[owner].regions[ridx];
        r.ops = body.ops;
        r.results = body.results;
        scope.names.pop();
        self.depth -= 1;
        Ok(())
    }

    fn loc(&mut self) -> PResult<Loc> {
        let pos = self.pos();
        match self.next().tok {
            Tok::Ident(s) if s == "unknown" => Ok(Loc::Unknown),
            Tok::Ident(s) if s == "fused" => {
                self.enter(pos)?;
                self.expect_punct("[")?;
                let locs = self.list("]", |p| p.loc())?;
                self.depth -= 1;
                Ok(Loc::Fused(locs))
            }
            Tok::Str(node) => {
                self.expect_kw("op")?;
                match self.next().tok {
                    Tok::Str(op_type) => Ok(Loc::Onnx { node, op_type }),
                    t => self.err(pos, format!("expected the op type string, found {}", t.describe())),
                }
            }
            t => self.err(pos, format!("expected a location, found {}", t.describe())),
        }
    }
}

fn check_count(p: &Parser<'_>, pos: SourcePos, found: usize, expected: usize) -> PResult<()> {
    if found == expected {
        Ok(())
    } else {
        p.err(pos, format!("dense literal has {found} elements, type needs {expected}"))
    }
}

fn push_float(out: &mut Vec<u8>, dt: DType, v: f64) {
    match dt {
        DType::F32 => out.extend((v as f32).to_le_bytes()),
        DType::F64 => out.extend(v.to_le_bytes()),
        DType::F16 => out.extend(edgec_numeric::float16::f16_bits(v).to_le_bytes()),
        DType::F8E8M0 => out.push(crate::lowp::encode_e8m0(v, false, crate::lowp::RoundMode::Nearest)),
        d if d.is_low_float() => out.push(crate::lowp::encode(d, v, false)),
        _ => out.extend(edgec_numeric::float16::bf16_bits(v).to_le_bytes()),
    }
}

fn push_float_text(out: &mut Vec<u8>, dt: DType, text: &str) {
    match dt {
        // Parse at the target precision: printed f32 values are shortest round-trip f32 text.
        DType::F32 | DType::F16 | DType::BF16 => {
            let x = float_f32(text);
            match dt {
                DType::F32 => out.extend(x.to_le_bytes()),
                DType::F16 => out.extend(half::f16::from_f32(x).to_le_bytes()),
                _ => out.extend(half::bf16::from_f32(x).to_le_bytes()),
            }
        }
        _ => push_float(out, dt, float_f64(text)),
    }
}
