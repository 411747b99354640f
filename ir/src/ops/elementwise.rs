//! Elementwise ops: numpy broadcasting and dtype rules, and the activation
//! epilogue of the fused `core.*` ops.
//!
//! The fused ops of other families (`core.conv`, `core.conv_transpose`,
//! `core.linear`) end in an elementwise [`Activation`] stored as the `act`,
//! `act_alpha` and `act_beta` attributes; its schema kind and the reading and
//! writing of those attributes live here with the elementwise ops they apply.
//!
//! BitCast (reinterpreting bits) is in [`bitcast`].

use super::{expect_dtype, InferCtx, InferResult};
use crate::attr::{Attr, AttrKind, Attrs};
use crate::types::{DType, Dim, Shape, TensorType};
pub use edgec_numeric::act::{ActAttrs, Activation, ACT_NAMES};
use smallvec::SmallVec;

pub mod bitcast;

/// Broadcast two dims under numpy rules. `Err` on a static contradiction.
pub fn broadcast_dim(a: Dim, b: Dim) -> Result<Dim, String> {
    Ok(match (a, b) {
        (x, y) if x == y => x,
        (Dim::Static(1), y) => y,
        (x, Dim::Static(1)) => x,
        (Dim::Static(m), Dim::Static(n)) => return Err(format!("dims {m} and {n} do not broadcast")),
        // The symbol/unknown side must be 1 or equal to the static size.
        (Dim::Static(n), _) | (_, Dim::Static(n)) => Dim::Static(n),
        // Two different symbols (or an unknown): either may be 1.
        _ => Dim::Unknown,
    })
}

/// Broadcast two shapes under numpy rules.
pub fn broadcast_shapes(a: &Shape, b: &Shape) -> Result<Shape, String> {
    let (Some(da), Some(db)) = (a.dims(), b.dims()) else {
        return Ok(Shape::Unranked);
    };
    let rank = da.len().max(db.len());
    let mut out: SmallVec<[Dim; 4]> = SmallVec::with_capacity(rank);
    for i in 0..rank {
        let x = if i + da.len() >= rank { da[i + da.len() - rank] } else { Dim::Static(1) };
        let y = if i + db.len() >= rank { db[i + db.len() - rank] } else { Dim::Static(1) };
        out.push(broadcast_dim(x, y).map_err(|e| format!("operands are not broadcast-compatible: {a} vs {b} ({e})"))?);
    }
    Ok(Shape::Ranked(out))
}

fn same_dtype(ctx: &InferCtx<'_>, idx: &[usize]) -> Result<DType, String> {
    let first = ctx.input(idx[0])?.dtype;
    for &i in &idx[1..] {
        let t = ctx.input(i)?.dtype;
        if t != first {
            return Err(format!("operand element types differ: {first} vs {t}"));
        }
    }
    Ok(first)
}

fn broadcast_all(ctx: &InferCtx<'_>, idx: impl IntoIterator<Item = usize>) -> Result<Shape, String> {
    let mut shape = Shape::scalar();
    for i in idx {
        shape = broadcast_shapes(&shape, &ctx.input(i)?.shape)?;
    }
    Ok(shape)
}

/// Two operands of one numeric dtype, broadcast.
pub fn binary_same(ctx: &InferCtx<'_>) -> InferResult {
    let dt = same_dtype(ctx, &[0, 1])?;
    expect_dtype(ctx.input(0)?, "operand", DType::is_numeric, "a numeric type")?;
    Ok(vec![TensorType::new(dt, broadcast_all(ctx, [0, 1])?)])
}

/// Variadic operands of one numeric dtype, broadcast together.
pub fn variadic_same(ctx: &InferCtx<'_>) -> InferResult {
    let idx: Vec<usize> = (0..ctx.num_operands()).collect();
    let dt = same_dtype(ctx, &idx)?;
    expect_dtype(ctx.input(0)?, "operand", DType::is_numeric, "a numeric type")?;
    Ok(vec![TensorType::new(dt, broadcast_all(ctx, idx)?)])
}

/// Power: base numeric, exponent numeric (may differ), result has base type.
pub fn pow(ctx: &InferCtx<'_>) -> InferResult {
    let base = ctx.input(0)?;
    expect_dtype(base, "base", DType::is_numeric, "a numeric type")?;
    expect_dtype(ctx.input(1)?, "exponent", DType::is_numeric, "a numeric type")?;
    Ok(vec![TensorType::new(base.dtype, broadcast_all(ctx, [0, 1])?)])
}

/// PRelu: slope broadcasts to X (unidirectionally); result is X.
pub fn prelu(ctx: &InferCtx<'_>) -> InferResult {
    let dt = same_dtype(ctx, &[0, 1])?;
    let x = ctx.input(0)?;
    let out = broadcast_all(ctx, [0, 1])?;
    if let (Some(o), Some(r)) = (out.rank(), x.rank()) {
        if o != r {
            return Err(format!("slope {} does not broadcast to X {}", ctx.input(1)?.shape, x.shape));
        }
    }
    Ok(vec![TensorType::new(dt, x.shape.clone())])
}

/// Comparison: same dtype in, bool out.
pub fn compare(ctx: &InferCtx<'_>) -> InferResult {
    same_dtype(ctx, &[0, 1])?;
    Ok(vec![TensorType::new(DType::Bool, broadcast_all(ctx, [0, 1])?)])
}

/// Logical binary op on bools.
pub fn logic(ctx: &InferCtx<'_>) -> InferResult {
    for i in 0..2 {
        expect_dtype(ctx.input(i)?, "operand", |d| d == DType::Bool, "bool")?;
    }
    Ok(vec![TensorType::new(DType::Bool, broadcast_all(ctx, [0, 1])?)])
}

/// Logical not.
pub fn logic_not(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "operand", |d| d == DType::Bool, "bool")?;
    Ok(vec![x.clone()])
}

/// `Where(cond, X, Y)`: bool condition, X and Y of one type, three-way broadcast.
pub fn where_(ctx: &InferCtx<'_>) -> InferResult {
    expect_dtype(ctx.input(0)?, "condition", |d| d == DType::Bool, "bool")?;
    let dt = same_dtype(ctx, &[1, 2])?;
    Ok(vec![TensorType::new(dt, broadcast_all(ctx, [0, 1, 2])?)])
}

/// Unary op on any type, result of the same type.
pub fn unary_same(ctx: &InferCtx<'_>) -> InferResult {
    Ok(vec![ctx.input(0)?.clone()])
}

/// Unary op on floats only.
pub fn unary_float(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_float, "a float type")?;
    Ok(vec![x.clone()])
}

/// Unary op on numeric types.
pub fn unary_numeric(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_numeric, "a numeric type")?;
    Ok(vec![x.clone()])
}

/// Unary op on floats and signed integers (Relu, Neg).
pub fn unary_signed(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let ok = |d: DType| d.is_float() || matches!(d, DType::I8 | DType::I16 | DType::I32 | DType::I64);
    expect_dtype(x, "input", ok, "a float or signed integer type")?;
    Ok(vec![x.clone()])
}

/// Clip: optional `min`/`max` must be scalars of the input type.
pub fn clip(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_numeric, "a numeric type")?;
    for (i, name) in [(1, "min"), (2, "max")] {
        if let Some(t) = ctx.opt_input(i) {
            if t.dtype != x.dtype {
                return Err(format!("`{name}` has element type {}, expected {}", t.dtype, x.dtype));
            }
            if t.rank().is_some_and(|r| r != 0) {
                return Err(format!("`{name}` must be a scalar, found shape {}", t.shape));
            }
        }
    }
    Ok(vec![x.clone()])
}

/// Cast: result has the `to` element type and the input shape.
pub fn cast(ctx: &InferCtx<'_>) -> InferResult {
    let to = ctx.attrs.dtype("to").ok_or("missing attribute `to`")?;
    Ok(vec![TensorType::new(to, ctx.input(0)?.shape.clone())])
}

/// Dropout in inference mode: output like data, optional bool mask.
pub fn dropout(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    let mut out = vec![x.clone()];
    if ctx.num_results > 1 {
        out.push(TensorType::new(DType::Bool, x.shape.clone()));
    }
    Ok(out)
}

/// Unary op on `f32` only (Celu).
pub fn unary_f32(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", |d| d == DType::F32, "f32")?;
    Ok(vec![x.clone()])
}

/// Shrink: numeric types except bf16, result of the input type.
pub fn shrink(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", |d| d.is_numeric() && d != DType::BF16, "a numeric type other than bf16")?;
    Ok(vec![x.clone()])
}

/// Float predicate (IsNaN, IsInf): float input, bool result of the same shape.
pub fn float_predicate(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_float, "a float type")?;
    Ok(vec![TensorType::new(DType::Bool, x.shape.clone())])
}

/// Bitwise And/Or/Xor: two operands of one integer type, broadcast.
pub fn bitwise_binary(ctx: &InferCtx<'_>) -> InferResult {
    let dt = same_dtype(ctx, &[0, 1])?;
    expect_dtype(ctx.input(0)?, "operand", DType::is_int, "an integer type")?;
    Ok(vec![TensorType::new(dt, broadcast_all(ctx, [0, 1])?)])
}

/// BitwiseNot: an integer operand, result of the same type.
pub fn bitwise_not(ctx: &InferCtx<'_>) -> InferResult {
    let x = ctx.input(0)?;
    expect_dtype(x, "input", DType::is_int, "an integer type")?;
    Ok(vec![x.clone()])
}

/// BitShift: two operands of one unsigned integer type, broadcast.
pub fn bit_shift(ctx: &InferCtx<'_>) -> InferResult {
    let dt = same_dtype(ctx, &[0, 1])?;
    let unsigned = |d: DType| matches!(d, DType::U8 | DType::U16 | DType::U32 | DType::U64);
    expect_dtype(ctx.input(0)?, "operand", unsigned, "an unsigned integer type")?;
    Ok(vec![TensorType::new(dt, broadcast_all(ctx, [0, 1])?)])
}

/// CastLike: the shape of `input` with the element type of `target_type`.
pub fn cast_like(ctx: &InferCtx<'_>) -> InferResult {
    Ok(vec![TensorType::new(ctx.input(1)?.dtype, ctx.input(0)?.shape.clone())])
}

/// Schema kind of the `act` attribute of the fused ops.
pub const ACT_KIND: AttrKind = AttrKind::Enum(ACT_NAMES);

/// The IR's attribute map holds an [`Activation`] as `act`, `act_alpha`
/// and `act_beta`.
impl ActAttrs for Attrs {
    fn get_str(&self, name: &str) -> Result<Option<&str>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Attr::Str(s)) => Ok(Some(s.as_str())),
            Some(other) => Err(format!("attribute `{name}` must be a string, found {other:?}")),
        }
    }
    fn get_float(&self, name: &str) -> Result<Option<f32>, String> {
        match self.get(name) {
            None => Ok(None),
            Some(Attr::Float(x)) => Ok(Some(*x)),
            Some(other) => Err(format!("attribute `{name}` must be a float, found {other:?}")),
        }
    }
    fn remove(&mut self, name: &str) {
        Attrs::remove(self, name);
    }
    fn set_str(&mut self, name: &str, value: &str) {
        self.set(name, Attr::Str(value.into()));
    }
    fn set_float(&mut self, name: &str, value: f32) {
        self.set(name, Attr::Float(value));
    }
}
