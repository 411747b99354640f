//! Table forms beyond `quant_lut`'s one QDQ table: PRelu, whose slope gives
//! each channel its own row, and LiteRT's integer kernels, for targets that
//! compute TFLite's arithmetic (`arithmetic = "tflite"`), where a table of
//! the kernel's results makes the integer module answer what LiteRT does.
//!
//! Invariant: a row holds the result for every value of x's 8-bit type, in
//! stored-byte order (u8 0..=255, i8 -128..=127), so `quant.lut` indexes it
//! by the byte plus 128 for i8 as it does its single table.

use super::{grid, konst};
use crate::rules::appliers::recognition::eval1;
use crate::rules::args::ArgVal;
use crate::rules::env::ApplyEnv;
use edgec_numeric::fixed::{leaky_relu_gemmlowp, prelu_gemmlowp};
use egg::Id;
use ir::interp::Tensor;
use ir::{Attrs, ConstData, Constant, DType, Opcode, TensorType};

/// Every value of the 8-bit type `dt`, in stored-byte order.
fn all_values(dt: DType) -> Result<Vec<i32>, String> {
    match dt {
        DType::U8 => Ok((0..=255).collect()),
        DType::I8 => Ok((-128..=127).collect()),
        other => Err(format!("element type {other}, expected u8 or i8")),
    }
}

/// The range of the 8-bit type `dt`.
fn range(dt: DType) -> (i32, i32) {
    if dt == DType::U8 {
        (0, 255)
    } else {
        (-128, 127)
    }
}

/// `quant.lut(x, rows)` with rows of 256 stored bytes each (`[256]` for one).
fn table_op(a: &mut ApplyEnv<'_>, x: Id, yd: DType, bytes: Vec<u8>) -> Result<Id, String> {
    let n = bytes.len() / 256;
    let dims: Vec<u64> = if n == 1 { vec![256] } else { vec![n as u64, 256] };
    let t = a.add_const(Constant {
        name: String::new(),
        ty: TensorType::fixed(yd, &dims),
        data: ConstData::Bytes(bytes.into()),
    });
    a.add_op(Opcode::QuantLut, &[x, t], &Attrs::new())
}

/// The 8-bit type of class `arg`.
fn q8_type(a: &ApplyEnv<'_>, arg: &ArgVal, what: &str) -> Result<(Id, TensorType), String> {
    let c = a.class(arg)?;
    let t = a.eg[c].data.ty().cloned().ok_or_else(|| format!("{what} has no type"))?;
    all_values(t.dtype).map_err(|e| format!("{what} has {e}"))?;
    Ok((c, t))
}

/// `@quant_lut_tflite(x, sx, zx, sy, zy, Op, op_attrs)`: LiteRT's integer
/// kernel of `Op` on every value of x (LeakyRelu).
pub(super) fn quant_lut_tflite(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let op = crate::rules::appliers::op_word(&args[5])?;
    if op != Opcode::LeakyRelu {
        return Err(format!("no LiteRT table for {}", op.name()));
    }
    let (x, xt) = q8_type(a, &args[0], "x")?;
    let yd = konst(a, &args[4], "y zero point")?.ty.dtype;
    let (sx, zx) = grid(a, &args[1], &args[2], xt.dtype, "x")?;
    let (sy, zy) = grid(a, &args[3], &args[4], yd, "y")?;
    let alpha = a.env().attrs(&args[6]).and_then(|t| t.float("alpha")).unwrap_or(0.01);
    let (lo, hi) = range(yd);
    let rows = all_values(xt.dtype)?
        .into_iter()
        .map(|v| leaky_relu_gemmlowp(v, zx as i32, sx, alpha, sy, zy as i32, lo, hi).map(|y| y as u8))
        .collect::<Option<Vec<u8>>>()
        .ok_or_else(|| format!("a LeakyRelu multiplier out of range (alpha {alpha})"))?;
    table_op(a, x, yd, rows)
}

/// `@quant_lut_prelu(x, sx, zx, k, sk, zk, sy, zy, [tflite])`: a row per
/// slope of the quantized constant `k` (one, or one per channel of x's
/// axis 1): the QDQ ops on every value (exact), or with `tflite` LiteRT's
/// integer PRELU, which the TFLite writer uses for slopes outside [0, 1]
/// (for slopes inside it writes `max(x, a·x)`, which this does not model).
pub(super) fn quant_lut_prelu(a: &mut ApplyEnv<'_>, args: &[ArgVal]) -> Result<Id, String> {
    let (x, xt) = q8_type(a, &args[0], "x")?;
    let k = konst(a, &args[3], "the slope")?.clone();
    let kq: Vec<i32> = k.to_i64s().ok_or("the slope is not an integer constant")?.iter().map(|&v| v as i32).collect();
    let n = kq.len();
    per_channel(&xt, &k.ty, n)?;
    let yd = konst(a, &args[7], "y zero point")?.ty.dtype;
    let (sk, zk) = grid(a, &args[4], &args[5], k.ty.dtype, "the slope")?;
    let (sx, zx) = grid(a, &args[1], &args[2], xt.dtype, "x")?;
    let (sy, zy) = grid(a, &args[6], &args[7], yd, "y")?;
    let values = all_values(xt.dtype)?;
    let rows = if matches!(args.get(8), Some(ArgVal::Word(w)) if w == "tflite") {
        let slope = |q: i32| (q - zk as i32) as f64 * f64::from(sk);
        if kq.iter().all(|&q| (0.0..=1.0).contains(&slope(q))) {
            return Err("slopes in [0, 1]: the TFLite writer writes max(x, a·x), not PRELU".into());
        }
        let (lo, hi) = range(yd);
        kq.iter()
            .flat_map(|&q| values.iter().map(move |&v| (v, q)))
            .map(|(v, q)| prelu_gemmlowp(v, zx as i32, sx, q, zk as i32, sk, sy, zy as i32, lo, hi).map(|y| y as u8))
            .collect::<Option<Vec<u8>>>()
            .ok_or("a PRelu multiplier out of range")?
    } else {
        qdq_rows(a, args, &xt, &k, &values)?
    };
    debug_assert_eq!(rows.len(), 256 * n);
    table_op(a, x, yd, rows)
}

/// `Ok` when `k` (of type `kt`, `n` elements) has one slope, or one per
/// channel of `x`'s axis 1 (right-aligned against x, every other dim 1).
fn per_channel(xt: &TensorType, kt: &TensorType, n: usize) -> Result<(), String> {
    if n == 1 {
        return Ok(());
    }
    let (Some(xd), Some(kd)) = (xt.shape.static_dims(), kt.shape.static_dims()) else {
        return Err("x or the slope has a dynamic shape".into());
    };
    let pad = xd.len().checked_sub(kd.len()).ok_or("the slope has a higher rank than x")?;
    let at = |i: usize| if i < pad { 1 } else { kd[i - pad] };
    let ok = xd.len() >= 2 && (0..xd.len()).all(|i| at(i) == if i == 1 { n as u64 } else { 1 }) && xd[1] == n as u64;
    if !ok {
        return Err(format!("a slope of shape {kd:?} for x of shape {xd:?} (one per channel of axis 1 expected)"));
    }
    Ok(())
}

/// The QDQ form's rows: `Q(PRelu(DQ(v), DQ(k[r])))` for each slope `r` and
/// value `v`, evaluated by the interpreter on an `[n, 256]` constant, so
/// every entry is the QDQ result bit for bit.
fn qdq_rows(
    a: &ApplyEnv<'_>,
    args: &[ArgVal],
    xt: &TensorType,
    k: &Constant,
    values: &[i32],
) -> Result<Vec<u8>, String> {
    let n = k.ty.shape.num_elements().ok_or("the slope has a dynamic shape")?;
    let bytes: Vec<u8> = (0..n).flat_map(|_| values.iter().map(|&v| v as u8)).collect();
    let all = Constant {
        name: String::new(),
        ty: TensorType::fixed(xt.dtype, &[n, 256]),
        data: ConstData::Bytes(bytes.into()),
    };
    let slope = Constant { name: String::new(), ty: TensorType::fixed(k.ty.dtype, &[n, 1]), data: k.data.clone() };
    let tensor = |arg: &ArgVal, what: &str| Tensor::from_constant(konst(a, arg, what)?);
    let (sx, zx) = (tensor(&args[1], "x")?, tensor(&args[2], "x")?);
    let dq_x = eval1(Opcode::DequantizeLinear, vec![Tensor::from_constant(&all)?, sx, zx], Attrs::new())?;
    let (sk, zk) = (tensor(&args[4], "the slope")?, tensor(&args[5], "the slope")?);
    let dq_k = eval1(Opcode::DequantizeLinear, vec![Tensor::from_constant(&slope)?, sk, zk], Attrs::new())?;
    let p = eval1(Opcode::PRelu, vec![dq_x, dq_k], Attrs::new())?;
    let q = eval1(Opcode::QuantizeLinear, vec![p, tensor(&args[6], "y")?, tensor(&args[7], "y")?], Attrs::new())?;
    q.to_le_bytes().ok_or_else(|| "the table cannot be stored".into())
}
