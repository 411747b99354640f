//! The contents of small integer tensors computed from shapes (`Shape` →
//! `Gather` → `Concat` → `Reshape` chains): followed element by element as
//! [`Iv`]s, so a shape rule that needs such a tensor's values gets
//! expressions over the input dims instead of waiting for the tensor to be
//! computed. The tensors themselves are still computed by their ops where
//! data needs them.

use super::{Iv, ShapeCx, Vals};
use ir::Opcode;

/// Largest tensor whose contents are followed.
const MAX: usize = 64;

/// The contents of `sc.op`'s first result, given the contents of its
/// operands in `sc.rt_vals` (constants are read by [`ShapeCx::vals`]), or
/// `None` if the op is not followed.
pub fn contents(sc: &ShapeCx<'_>) -> Option<Vec<Iv>> {
    use Opcode::*;
    let op = sc.op;
    let r = *op.results.first()?;
    let out_len = sc.f.ty(r).shape.num_elements()? as usize;
    let dt = sc.f.ty(r).dtype;
    if out_len > MAX || !(dt.is_int() || dt == ir::DType::Bool) {
        return None;
    }
    let all = |i: usize| -> Option<Vec<Iv>> {
        let v = sc.vals(i)?;
        (0..v.len()).map(|j| Some(iv(&v, j))).collect()
    };
    let out = match op.opcode {
        Shape => {
            let d = sc.dims(0).ok()?;
            let rk = d.len() as i64;
            let norm = |x: i64| if x < 0 { (x + rk).max(0) } else { x.min(rk) } as usize;
            let (s, e) = (norm(sc.int("start", 0)), norm(op.attrs.int("end").unwrap_or(rk)));
            d.get(s..e.max(s))?.iter().map(Iv::of_size).collect()
        }
        Size => vec![Iv::of_size(&super::Sz::product(sc.dims(0).ok()?))],
        Cast if dt == ir::DType::Bool => all(0)?.iter().map(|x| compare(Opcode::Or, x, &Iv::Lit(0))).collect(),
        Cast | Identity | Reshape | CoreReshape | Squeeze | CoreSqueeze | Unsqueeze | CoreUnsqueeze | Flatten => {
            all(0)?
        }
        Concat => (0..op.operands.len()).map(all).collect::<Option<Vec<_>>>()?.concat(),
        Gather if sc.dims(0).ok()?.len() == 1 => {
            let (data, idx) = (all(0)?, sc.vals(1)?.lit_ints()?);
            let n = data.len() as i64;
            idx.iter().map(|&i| data.get((if i < 0 { i + n } else { i }) as usize).cloned()).collect::<Option<_>>()?
        }
        CoreSlice if sc.dims(0).ok()?.len() == 1 => {
            let data = all(0)?;
            let a = &op.attrs;
            let (s, e, st) = (a.ints("starts")?[0], a.ints("ends")?[0], a.ints("steps")?[0]);
            slice(&data, s, e, st)?
        }
        Slice if sc.dims(0).ok()?.len() == 1 => {
            let data = all(0)?;
            let (s, e) = (sc.vals(1)?.lit_int(0)?, sc.vals(2)?.lit_int(0)?);
            let st = if op.operand(4).is_some() { sc.vals(4)?.lit_int(0)? } else { 1 };
            slice(&data, s, e, st)?
        }
        Add | Sub | Mul | Div | Max | Min => {
            let (a, b) = (all(0)?, all(1)?);
            let n = a.len().max(b.len());
            let at = |v: &[Iv], j: usize| v.get(if v.len() == 1 { 0 } else { j }).cloned();
            (0..n).map(|j| Some(arith(op.opcode, &at(&a, j)?, &at(&b, j)?))).collect::<Option<_>>()?
        }
        Neg => all(0)?.iter().map(|x| arith(Opcode::Sub, &Iv::Lit(0), x)).collect(),
        Equal | Less | Greater | LessOrEqual | GreaterOrEqual | And | Or => {
            let (a, b) = (all(0)?, all(1)?);
            let n = a.len().max(b.len());
            let at = |v: &[Iv], j: usize| v.get(if v.len() == 1 { 0 } else { j }).cloned();
            (0..n).map(|j| Some(compare(op.opcode, &at(&a, j)?, &at(&b, j)?))).collect::<Option<_>>()?
        }
        Not => all(0)?.iter().map(|x| compare(Opcode::Equal, x, &Iv::Lit(0))).collect(),
        ReduceProd | ReduceSum | CoreReduce if sc.dims(0).ok()?.len() == 1 => {
            let kind = match op.opcode {
                CoreReduce => op.attrs.str("kind")?,
                ReduceProd => "prod",
                _ => "sum",
            };
            let (f, init) = match kind {
                "prod" => (Opcode::Mul, 1),
                "sum" => (Opcode::Add, 0),
                _ => return None,
            };
            vec![all(0)?.iter().fold(Iv::Lit(init), |acc, x| arith(f, &acc, x))]
        }
        ConstantOfShape => {
            let v = match op.attrs.get("value") {
                Some(ir::Attr::Sym(name)) => sc.m.const_by_name(name).and_then(|id| sc.m.consts[id].to_i64s())?,
                _ => vec![0],
            };
            vec![Iv::Lit(*v.first()?); out_len]
        }
        _ => return None,
    };
    (out.len() == out_len).then_some(out)
}

fn iv(v: &Vals, j: usize) -> Iv {
    match v {
        Vals::Lit(x) => Iv::Lit(x[j] as i64),
        Vals::Sym(x) => x[j].clone(),
        Vals::Floats(x) => Iv::Expr(format!("({} as i64)", x[j])),
    }
}

/// ONNX Slice of a list (the kernels' `slice_axis` rule).
fn slice(data: &[Iv], s: i64, e: i64, step: i64) -> Option<Vec<Iv>> {
    if step == 0 {
        return None;
    }
    let a = edgec_kernels::layout::slice_axis(data.len(), s, e, step);
    (0..a.len).map(|i| data.get((a.start as isize + i as isize * a.step) as usize).cloned()).collect()
}

/// A comparison or logic op on two integers (bools as 0/1), as 0/1.
fn compare(op: Opcode, a: &Iv, b: &Iv) -> Iv {
    let f = |x: i64, y: i64| match op {
        Opcode::Equal => x == y,
        Opcode::Less => x < y,
        Opcode::Greater => x > y,
        Opcode::LessOrEqual => x <= y,
        Opcode::GreaterOrEqual => x >= y,
        Opcode::And => x != 0 && y != 0,
        _ => x != 0 || y != 0,
    };
    if let (Iv::Lit(x), Iv::Lit(y)) = (a, b) {
        return Iv::Lit(i64::from(f(*x, *y)));
    }
    let e = match op {
        Opcode::Equal => format!("{a} == {b}"),
        Opcode::Less => format!("{a} < {b}"),
        Opcode::Greater => format!("{a} > {b}"),
        Opcode::LessOrEqual => format!("{a} <= {b}"),
        Opcode::GreaterOrEqual => format!("{a} >= {b}"),
        Opcode::And => format!("{a} != 0 && {b} != 0"),
        _ => format!("{a} != 0 || {b} != 0"),
    };
    Iv::Expr(format!("(({e}) as i64)"))
}

/// `a op b` on two integers: folded when both are known.
fn arith(op: Opcode, a: &Iv, b: &Iv) -> Iv {
    if let (Iv::Lit(x), Iv::Lit(y)) = (a, b) {
        let v = match op {
            Opcode::Add => x.checked_add(*y),
            Opcode::Sub => x.checked_sub(*y),
            Opcode::Mul => x.checked_mul(*y),
            Opcode::Div => x.checked_div(*y),
            Opcode::Max => Some(*x.max(y)),
            Opcode::Min => Some(*x.min(y)),
            _ => None,
        };
        if let Some(v) = v {
            return Iv::Lit(v);
        }
    }
    match op {
        Opcode::Max => Iv::Expr(format!("{a}.max({b})")),
        Opcode::Min => Iv::Expr(format!("{a}.min({b})")),
        Opcode::Div => Iv::Expr(format!("{a}.checked_div({b}).unwrap_or(0)")),
        _ => {
            let sym = match op {
                Opcode::Add => "+",
                Opcode::Sub => "-",
                _ => "*",
            };
            Iv::Expr(format!("({a} {sym} {b})"))
        }
    }
}
