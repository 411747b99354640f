//! f16/bf16 compute for ops whose kernels exist in f32 only: before
//! emission, each such op on 16-bit floats is rewritten to exact casts of
//! its 16-bit operands to f32, the op in f32, and casts of its 16-bit results
//! back (each rounded once). This is how edgec's interpreter computes these
//! ops on f16/bf16 (in f32, rounding the results), so the generated code
//! matches it; the extra buffers are planned like any other value.
//!
//! Ops in regions (Loop, Scan and If bodies) are rewritten in place, the
//! casts beside them; f64 is never narrowed (the interpreter computes it in
//! f64). MaxPool only selects, so its f32 result is exactly the 16-bit one.

use ir::{Attr, Attrs, DType, Function, Module, OpData, OpId, Opcode, TensorType, Value, ValueDef};
use std::collections::HashMap;

/// The `widen-half` pass: every op the backend computes in f32 (`widened`)
/// that meets a 16-bit float is put between exact casts. Part of a
/// backend's preparation pipeline (the Rust backend's table says which ops).
pub struct WidenHalf {
    /// The ops the backend computes in f32.
    pub widened: fn(Opcode) -> bool,
}

impl crate::Pass for WidenHalf {
    fn name(&self) -> &'static str {
        "widen-half"
    }
    fn run(&self, m: &mut Module, _cx: &mut crate::PassCx) -> Result<crate::PassResult, crate::PassError> {
        let w = widen_half_ops(m, self.widened);
        let changed = w.is_some();
        if let Some(w) = w {
            *m = w;
        }
        Ok(crate::PassResult::changed(changed))
    }
}

/// True if `op`, an f32 op, computes a 16-bit float op (as [`widen_half_ops`]
/// leaves it): operand 0 is an exact widening of a 16-bit value and every
/// use of the result rounds it back to 16 bits. Lowerings then sum in the
/// interpreter's order, so the rounded results are the interpreter's bit for
/// bit (a different f32 order moves some of them by a 16-bit ulp, which a
/// recurrence amplifies).
pub fn computes_half(f: &Function, op: &OpData) -> bool {
    let widened_input = |v: Value| match f.values[v].def {
        ValueDef::Result(id, _) => {
            let c = &f.ops[id];
            c.opcode == Opcode::Cast && c.operand(0).is_some_and(|x| half(f.ty(x).dtype))
        }
        _ => false,
    };
    let Some(&r) = op.results.first() else { return false };
    if f.ty(r).dtype != DType::F32 || !op.operand(0).is_some_and(widened_input) {
        return false;
    }
    let mut rounded = 0;
    for id in f.live_ops() {
        let u = &f.ops[id];
        let n = u.inputs().filter(|&v| v == r).count();
        if n > 0 && (u.opcode != Opcode::Cast || !half(f.ty(u.results[0]).dtype)) {
            return false;
        }
        rounded += n as u32;
    }
    rounded > 0 && f.use_counts()[r.as_u32() as usize] == rounded
}

fn half(dt: DType) -> bool {
    matches!(dt, DType::F16 | DType::BF16)
}

/// `m` with every widenable 16-bit op rewritten, or `None` if there is none.
pub fn widen_half_ops(m: &Module, widened: fn(Opcode) -> bool) -> Option<Module> {
    let any = m.funcs.iter().any(|f| f.live_ops().into_iter().any(|id| candidate(f, id, widened)));
    if !any {
        return None;
    }
    let mut out = m.clone();
    for f in &mut out.funcs {
        widen_function(f, widened);
    }
    Some(out)
}

fn candidate(f: &Function, id: OpId, widened: fn(Opcode) -> bool) -> bool {
    let op = &f.ops[id];
    if !widened(op.opcode) || !op.regions.is_empty() {
        return false;
    }
    let dts: Vec<DType> = op.inputs().chain(op.results.iter().copied()).map(|v| f.ty(v).dtype).collect();
    dts.iter().any(|&d| half(d)) && !dts.contains(&DType::F64)
}

fn cast_op(f: &mut Function, v: Value, to: DType, loc: ir::Loc) -> OpId {
    let ty = TensorType { dtype: to, ..f.ty(v).clone() };
    f.create_op(Opcode::Cast, [Some(v)], Attrs::new().with("to", Attr::Type(to)), [ty], loc)
}

fn widen_function(f: &mut Function, widened: fn(Opcode) -> bool) {
    let body = std::mem::take(&mut f.body.ops);
    let mut back = HashMap::new();
    f.body.ops = widen_ops(f, body, &mut back, widened);
    rename(&mut f.body.results, &back);
}

/// `vs` with each widened result replaced by its cast back.
fn rename(vs: &mut [Value], back: &HashMap<Value, Value>) {
    for v in vs {
        if let Some(&b) = back.get(v) {
            *v = b;
        }
    }
}

/// `old` with each candidate op between its casts (regions first). Later
/// uses of a widened result read its cast back (`back`), so an op reading
/// it sees the 16-bit value the interpreter computes, widened again exactly
/// if that op is widened too.
fn widen_ops(
    f: &mut Function,
    old: Vec<OpId>,
    back: &mut HashMap<Value, Value>,
    widened: fn(Opcode) -> bool,
) -> Vec<OpId> {
    let mut ops = Vec::with_capacity(old.len());
    for id in old {
        for o in f.ops[id].operands.iter_mut().flatten() {
            if let Some(&b) = back.get(o) {
                *o = b;
            }
        }
        for k in 0..f.ops[id].regions.len() {
            let inner = std::mem::take(&mut f.ops[id].regions[k].ops);
            f.ops[id].regions[k].ops = widen_ops(f, inner, back, widened);
            rename(&mut f.ops[id].regions[k].results, back);
        }
        if !candidate(f, id, widened) {
            ops.push(id);
            continue;
        }
        let loc = f.ops[id].loc.clone();
        for i in 0..f.ops[id].operands.len() {
            let Some(v) = f.ops[id].operands[i].filter(|&v| half(f.ty(v).dtype)) else { continue };
            let c = cast_op(f, v, DType::F32, loc.clone());
            f.ops[id].operands[i] = Some(f.result(c));
            ops.push(c);
        }
        ops.push(id);
        let results: Vec<Value> = f.ops[id].results.iter().copied().filter(|&r| half(f.ty(r).dtype)).collect();
        for r in results {
            let c = cast_op(f, r, f.ty(r).dtype, loc.clone());
            f.values[r].ty.dtype = DType::F32;
            ops.push(c);
            back.insert(r, f.result(c));
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use ir::interp::{Data, Tensor};

    const SRC: &str = r#"module @m attributes {phase = "onnx"} {
  func @main(%x: f16[2, 3], %w: f16[3, 4], %k: f16[1, 2, 3, 3]) -> (f16[2, 4], f16[1, 1, 3, 3]) {
    %0 = onnx.MatMul %x, %w : f16[2, 4]
    %1 = onnx.Relu %0 : f16[2, 4]
    %2 = onnx.Conv %k, %k {pads = [1, 1, 1, 1]} : f16[1, 1, 3, 3]
    return %1, %2
  }
}"#;

    fn half_tensor(shape: &[usize], seed: u32) -> Tensor {
        let n: usize = shape.iter().product();
        let v = (0..n)
            .map(|i| half::f16::from_f32((((i as u32).wrapping_mul(2654435761) ^ seed) % 1000) as f32 / 333.0 - 1.5))
            .collect();
        Tensor::new(shape.to_vec(), Data::F16(v))
    }

    fn matmul_conv(op: Opcode) -> bool {
        matches!(op, Opcode::MatMul | Opcode::Conv)
    }

    #[test]
    fn widened_ops_compute_like_the_interpreter_and_verify() {
        let m = ir::text::parse_module(SRC, "widen.eir", None).expect("parses").module;
        let w = widen_half_ops(&m, matmul_conv).expect("something to widen");
        ir::verify::verify(&w).expect("the widened module verifies");
        let f = w.func("main").expect("main");
        let casts = f.body.ops.iter().filter(|&&id| f.ops[id].opcode == Opcode::Cast).count();
        // MatMul: 2 operand casts + 1 back; Conv: 1 (shared value, cast per use) x2 + 1 back.
        assert_eq!(casts, 6);
        let ins = vec![half_tensor(&[2, 3], 1), half_tensor(&[3, 4], 2), half_tensor(&[1, 2, 3, 3], 3)];
        let want = ir::interp::run(&m, "main", ins.clone()).expect("original runs");
        let got = ir::interp::run(&w, "main", ins).expect("widened runs");
        assert_eq!(got, want, "widening changed the interpreter's results");
        assert!(widen_half_ops(&w, matmul_conv).is_none(), "widening is idempotent");
    }
}
