//! Emitting one function: a method of the generated `Model` with one block
//! per op, reading operands from the caller's inputs, the weights or the
//! arenas at the offsets of the memory plan, and writing its result into its
//! planned arena region. Control-flow ops recurse into their regions through
//! [`Emitter::op`] (`control`, `dynamic::control`).

use super::emit::{arena_region_sz, describe, value_expr, Emitter, FuncCx, OpCx};
use super::sz::Sz;
use super::{control, dynamic, ops};
use ir::{OpId, Value};

impl<'a> Emitter<'a> {
    /// Emit `f` as method `name`; `args` are the Rust parameters (for
    /// functions whose parameters are not in the arena). With `cx.hoist`, the
    /// method computes the hoisted values and goes to `Consts`.
    pub fn function(&mut self, cx: &FuncCx<'a>, name: &str, args: &str) {
        let body = self.body(cx);
        let method =
            format!("    #[allow(unused_variables, clippy::all)]\n    fn {name}(&mut self{args}) {{\n{body}    }}\n");
        if cx.hoist {
            self.parts.hoist_methods.push(method);
        } else {
            self.parts.methods.push(method);
        }
    }

    /// Emit a function with symbolic dims as method `name`: the
    /// `prologue` (shapes and plan, see `dynamic`), the ops, then the
    /// result shapes and places recorded for `run` (`os{i}`, `oo{i}`).
    pub fn function_dyn(&mut self, cx: &FuncCx<'a>, name: &str, args: &str, prologue: &str) {
        let mut body = prologue.to_string();
        body += &self.body(cx);
        for (i, &v) in cx.f.body.results.iter().enumerate() {
            let dims = cx.dy.and_then(|d| d.dims.get(&v)).cloned().unwrap_or_default();
            // Up to 8 dims; a function of several variants may give an output
            // a different rank in each.
            body += &format!(
                "        self.os{i}[..{}].copy_from_slice(&{});\n        self.on{i} = {};\n",
                dims.len(),
                Sz::array(&dims),
                dims.len()
            );
            let place = match cx.plan.result_copies.get(&i) {
                Some(&b) => Some(cx.buf_region(b)),
                None => arena_region_sz(cx, v),
            };
            if let Some((_, off, len)) = place {
                body += &format!("        self.oo{i} = ({off}, {len});\n");
            }
        }
        let method = format!(
            "    #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]\n    fn {name}(&mut self{args}) -> Result<bool, Error> {{\n{body}        Ok(true)\n    }}\n"
        );
        self.parts.methods.push(method);
    }

    /// The op blocks of `cx`'s function (and its result copies).
    fn body(&mut self, cx: &FuncCx<'a>) -> String {
        let mut body = String::new();
        self.hoisting = cx.hoist;
        let ops = if cx.hoist { &cx.plan.hoist_schedule } else { &cx.plan.schedule };
        for &id in ops {
            let op = &cx.f.ops[id];
            *self.ops.entry(op.opcode.name().to_string()).or_default() += 1;
            match self.op(cx, id) {
                Ok(code) => body += &code,
                Err(e) => self.errors.push(format!("{}: {e}", describe(op, cx.f))),
            }
        }
        if !cx.hoist {
            body += &self.result_copies(cx);
        }
        body
    }

    /// Copies of the results that are parameters or constants into their
    /// own buffers (the plan's `result_copies`).
    fn result_copies(&mut self, cx: &FuncCx<'a>) -> String {
        let mut s = String::new();
        for (&i, &b) in &cx.plan.result_copies {
            let v = cx.f.body.results[i];
            let (class, off, len) = cx.buf_region(b);
            match value_expr(self, cx, v, None) {
                Ok(src) => {
                    s += &format!(
                        "        // result #{i} is an input or a constant: copied out
"
                    );
                    s += &format!("        self.a{}[{off}..{}].copy_from_slice({src});\n", class.suffix(), &off + &len);
                }
                Err(e) => self.errors.push(format!("@{}: result #{i}: {e}", cx.f.name)),
            }
        }
        s
    }

    /// The code of one op (a block), or of a control-flow op with its regions.
    pub fn op(&mut self, cx: &FuncCx<'a>, id: OpId) -> Result<String, String> {
        let op = &cx.f.ops[id];
        let late = self.late_code(cx, id)?;
        if !op.regions.is_empty() {
            return match cx.dy {
                Some(_) => Ok(late + &dynamic::control::lower(self, cx, id)?),
                None => control::lower(self, cx, id),
            };
        }
        if op.opcode == ir::Opcode::CoreConst {
            // A constant enters the weights where an op first reads it as it
            // is: one read only packed at compile time is stored packed alone.
            return Ok(String::new());
        }
        let mut ocx = OpCx::new(self, cx, id);
        ops::lower(&mut ocx)?;
        if ocx.asked_static_of_symbolic() {
            return Err(format!("{} with symbolic dims is not supported by the Rust backend yet", op.opcode.name()));
        }
        let header = format!("        // {}\n", describe(op, cx.f));
        let code = ocx.code();
        if self.hoisting || code.is_empty() {
            return Ok(late + &header + &code);
        }
        Ok(late + &header + &self.timed(cx.f, op, &code))
    }

    /// `code` between the start and the stop of a new profile slot for `op`
    /// (`Model::set_profiling`): one branch per op while profiling is off.
    fn timed(&mut self, f: &ir::Function, op: &ir::OpData, code: &str) -> String {
        let slot = self.parts.profile.len();
        let node = op.loc.onnx_nodes().map(|(n, _)| n).collect::<Vec<_>>().join(" + ");
        let tys: Vec<String> = op.results.iter().map(|&r| f.ty(r).to_string()).collect();
        let (name, ty) = (op.opcode.name(), tys.join(", "));
        self.parts.profile.push(format!("k::profile::OpName {{ node: {node:?}, op: {name:?}, ty: {ty:?} }}"));
        format!("        let t{slot} = self.prof.start();\n{code}        self.prof.stop({slot}, t{slot});\n")
    }

    /// The statements computing the shapes of op `id`'s late results, with
    /// each `⟦N⟧` placeholder replaced by value N's slice.
    fn late_code(&mut self, cx: &FuncCx<'a>, id: OpId) -> Result<String, String> {
        let Some(code) = cx.dy.and_then(|d| d.late_code.get(&id)) else { return Ok(String::new()) };
        let mut out = String::new();
        let mut rest = code.as_str();
        while let Some(p) = rest.find('⟦') {
            out += &rest[..p];
            let end = rest[p..].find('⟧').ok_or("internal: unterminated placeholder")? + p;
            let n: usize = rest[p + '⟦'.len_utf8()..end].parse().map_err(|_| "internal: bad placeholder")?;
            out += &value_expr(self, cx, <Value as ir::entity::EntityId>::new(n), None)?;
            rest = &rest[end + '⟧'.len_utf8()..];
        }
        Ok(out + rest)
    }
}
