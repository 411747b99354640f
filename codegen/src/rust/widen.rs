//! f16/bf16 compute for ops whose kernels exist in f32 only: before
//! emission, each such op on 16-bit floats is rewritten to exact casts of
//! its 16-bit operands to f32, the op in f32, and casts of its 16-bit results
//! back (each rounded once). This is how edgec's interpreter computes these
//! ops on f16/bf16 (in f32, rounding the results), so the generated code
//! matches it; the extra buffers are planned like any other value.
//!
//! Only ops at the top level of a function body without regions are
//! rewritten; f64 is never narrowed (the interpreter computes it in f64).

use ir::{Attr, Attrs, DType, Function, Module, OpId, Opcode, TensorType, Value};

/// The ops computed in f32 for 16-bit float operands.
fn widened(op: Opcode) -> bool {
    use Opcode::*;
    matches!(
        op,
        Conv | CoreConv
            | ConvTranspose
            | CoreConvTranspose
            | MatMul
            | Gemm
            | CoreLinear
            | Attention
            | CoreAttention
            | CoreAttentionBlocked
            | CausalConvWithState
            | LinearAttention
            | FlexAttention
            | AveragePool
            | GlobalAveragePool
    )
}

fn half(dt: DType) -> bool {
    matches!(dt, DType::F16 | DType::BF16)
}

/// `m` with every widenable 16-bit op rewritten, or `None` if there is none.
pub fn widen_half_ops(m: &Module) -> Option<Module> {
    let any = m.funcs.iter().any(|f| f.body.ops.iter().any(|&id| candidate(f, id)));
    if !any {
        return None;
    }
    let mut out = m.clone();
    for f in &mut out.funcs {
        widen_function(f);
    }
    Some(out)
}

fn candidate(f: &Function, id: OpId) -> bool {
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

fn widen_function(f: &mut Function) {
    let old = std::mem::take(&mut f.body.ops);
    let mut ops = Vec::with_capacity(old.len());
    let mut narrowed: Vec<(Value, OpId)> = Vec::new();
    for id in old {
        if !candidate(f, id) {
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
            narrowed.push((r, c));
        }
    }
    f.body.ops = ops;
    // Every use of a widened result now reads its cast back, except the cast.
    for (r, c) in narrowed {
        let back = f.result(c);
        f.replace_all_uses(r, back);
        f.ops[c].operands[0] = Some(r);
    }
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

    #[test]
    fn widened_ops_compute_like_the_interpreter_and_verify() {
        let m = ir::text::parse_module(SRC, "widen.eir", None).expect("parses").module;
        let w = widen_half_ops(&m).expect("something to widen");
        ir::verify::verify(&w).expect("the widened module verifies");
        let f = w.func("main").expect("main");
        let casts = f.body.ops.iter().filter(|&&id| f.ops[id].opcode == Opcode::Cast).count();
        // MatMul: 2 operand casts + 1 back; Conv: 1 (shared value, cast per use) x2 + 1 back.
        assert_eq!(casts, 6);
        let ins = vec![half_tensor(&[2, 3], 1), half_tensor(&[3, 4], 2), half_tensor(&[1, 2, 3, 3], 3)];
        let want = ir::interp::run(&m, "main", ins.clone()).expect("original runs");
        let got = ir::interp::run(&w, "main", ins).expect("widened runs");
        assert_eq!(got, want, "widening changed the interpreter's results");
        assert!(widen_half_ops(&w).is_none(), "widening is idempotent");
    }
}
